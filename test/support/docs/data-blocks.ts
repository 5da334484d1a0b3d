// The docs' YAML and JSON blocks: config files, templates and CI steps loaded or run, JSON values held to the contracts' schemas.

import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { expect } from "vitest";
import { readWaiverFile } from "../../../src/check/waivers.js";
import { resolveConfig } from "../../../src/config/resolve.js";
import { componentPointer } from "../../../src/contract/document-pointers.js";
import { compiledAtRunTime } from "../../../src/contract/engine.js";
import { loadContract } from "../../../src/contract/load.js";
import { renderTemplate } from "../../../src/domain/render.js";
import { loadTemplateCatalog } from "../../../src/domain/templates.js";
import { ROOT } from "../cli-process.js";
import { jsonValues } from "./expectations.js";
import { DOCS_KEY, type Block } from "./pages.js";
import type { DocsRig } from "./rig.js";
import { checkCommand } from "./sh-blocks.js";

export async function checkConfig(block: Block, rig: DocsRig): Promise<void> {
  const file = path.join(await rig.aFolder(), "sendmock.yaml");
  await writeFile(file, block.code);
  expect(() => resolveConfig({ config: file })).not.toThrow();
}

/** A waiver file as `check --ignore` reads it: every entry a waiver, none refused. */
export async function checkWaivers(block: Block, rig: DocsRig): Promise<void> {
  const file = path.join(await rig.aFolder(), "sendmock-waivers.yaml");
  await writeFile(file, block.code);
  const waivers = readWaiverFile(file);
  expect(waivers.length).toBe((block.code.match(/^- /gm) ?? []).length);
}

export async function checkTemplate(block: Block, rig: DocsRig): Promise<void> {
  const folder = await rig.aFolder();
  await writeFile(path.join(folder, "welcome.yaml"), block.code);
  const catalog = await loadTemplateCatalog(folder, { watch: false });
  expect(catalog.list().map((entry) => entry.error)).toEqual([undefined]);
  const template = catalog.get("welcome");
  if (template === undefined) throw new Error("the template did not load");
  const rendered = renderTemplate(template, template.sampleData ?? {});
  expect(rendered.subject).not.toContain("{");
}

/** A GitHub Actions step list: each `run:` is a command of the docs, its variables pointing at local stand-ins. */
export async function checkCiSteps(block: Block, rig: DocsRig): Promise<void> {
  const steps = parseYaml(block.code) as { run?: string; uses?: string }[];
  expect(Array.isArray(steps)).toBe(true);
  const env = { STAGING_URL: (await rig.theSpecService()).url, STAGING_KEY: DOCS_KEY };
  for (const step of steps) {
    expect(step.run ?? step.uses, "a step runs a command or uses an action").toBeDefined();
    if (step.run !== undefined)
      for (const line of step.run.split("\n").filter((text) => text.trim() !== ""))
        await checkCommand({ text: line, result: "", after: [] }, new Map(), env, rig);
  }
}

/** `json <document> <Schema>[.<member>...]`: every value is valid against that schema of openapi/<document>. */
export async function checkJsonSchema(block: Block): Promise<void> {
  const [document = "", schema = ""] = block.kind.split(/\s+/);
  const [name = "", ...members] = schema.split(".");
  const contract = await loadContract(path.join(ROOT, "openapi", document));
  const validate = compiledAtRunTime(contract, [componentPointer(name), ...members.map((member) => `properties/${member}`)].join("/"));
  const values = jsonValues(block.code);
  expect(values.length).toBeGreaterThan(0);
  for (const value of values) {
    validate(value);
    expect(validate.errors ?? [], JSON.stringify(value)).toEqual([]);
  }
}
