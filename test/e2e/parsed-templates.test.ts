// The shipped templates are parsed at build (dist/parsed-templates.json): a mock serving them
// starts without loading the YAML parser, and a template whose text differs is parsed as before.

import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli-process.js";
import { SHIPPED_TEMPLATES } from "../support/helpers.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface StartReport {
  status: number;
  subject: string;
  yamlLoaded: boolean;
}

/** In a fresh node, from dist/: a mock on `templates` (default: the shipped ones), one welcome send, and whether `yaml` was loaded. */
async function startAndSend(templates?: string): Promise<StartReport> {
  const script = `
    import { createRequire } from "node:module";
    import { startSendMock } from ${JSON.stringify(pathToFileURL(path.join(ROOT, "dist/index.js")).href)};
    const require = createRequire(import.meta.url);
    const mock = await startSendMock({ port: 0, watchTemplates: false, ${templates === undefined ? "" : `templates: ${JSON.stringify(templates)}`} });
    const answer = await fetch(mock.url + "/send", {
      method: "POST",
      headers: { authorization: "Bearer parsed-ahead-1", "content-type": "application/json" },
      body: JSON.stringify({ to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
    });
    const { messages } = await mock.outbox.list();
    const yamlLoaded = Object.keys(require.cache).some((file) => file.includes("/node_modules/yaml/"));
    await mock.close();
    console.log(JSON.stringify({ status: answer.status, subject: messages[0]?.subject, yamlLoaded }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT });
  return JSON.parse(stdout.trim()) as StartReport;
}

describe("templates parsed at build", () => {
  it("are served without loading the YAML parser", async () => {
    expect(await startAndSend()).toEqual({ status: 200, subject: "Welcome to Acme, Ada!", yamlLoaded: false });
  });

  it("are not used for a template whose text differs: that one is parsed, and its edit shows", async () => {
    const templates = await mkdtemp(path.join(os.tmpdir(), "sendmock-parsed-"));
    cleanups.push(() => rm(templates, { recursive: true, force: true }));
    await cp(SHIPPED_TEMPLATES, templates, { recursive: true });
    const welcome = path.join(templates, "welcome.yaml");
    await writeFile(welcome, (await readFile(welcome, "utf8")).replace(/^subject: .*$/m, 'subject: "Edited: hello {name}"'));

    expect(await startAndSend(templates)).toEqual({ status: 200, subject: "Edited: hello Ada", yamlLoaded: true });
  });
});
