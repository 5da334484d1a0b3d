// Which check each fenced block of the docs gets, by its info string, and the check of the pages' relative links.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { ROOT } from "../cli-process.js";
import { checkCiSteps, checkConfig, checkJsonSchema, checkTemplate, checkWaivers } from "./data-blocks.js";
import type { Block } from "./pages.js";
import { checkBenchOutput, checkCheckOutput, checkReport, checkTree, checkViolationsHeader } from "./printed-text.js";
import type { DocsRig } from "./rig.js";
import { checkImageBlock, checkPytestFile, checkPythonRun, checkTestcontainersBlock } from "./other-language-blocks.js";
import { checkBanner, checkJsonLog, checkStartErrors, checkTextLog } from "./serve-output.js";
import { checkShBlock, checkSynopsis } from "./sh-blocks.js";
import { checkExample, runTs, typeProblemsOf } from "./typescript-blocks.js";

type Check = (block: Block, rig: DocsRig) => Promise<void> | void;

function checkOfKind(block: Block): Check | undefined {
  const { lang, kind } = block;
  if (lang === "sh") return { "": checkShBlock, synopsis: checkSynopsis, image: checkImageBlock }[kind];
  if (kind === "testcontainers" && ["java", "python", "ts", "go"].includes(lang)) return checkTestcontainersBlock;
  if (lang === "python") return { run: checkPythonRun, pytest: checkPytestFile }[kind];
  if ((lang === "ts" || lang === "js") && kind.startsWith("examples/")) return checkExample;
  if (lang === "ts" && kind === "run")
    return async (each, rig) => {
      expect(typeProblemsOf(each, rig)).toEqual([]);
      await runTs(each);
    };
  if (lang === "ts" && (kind === "fragment" || kind === "module")) return (each, rig) => expect(typeProblemsOf(each, rig)).toEqual([]);
  if (lang === "yaml") return { config: checkConfig, template: checkTemplate, ci: checkCiSteps, waivers: checkWaivers }[kind];
  if ((lang === "json" || lang === "jsonc") && /^\S+\.yaml \S+$/.test(kind)) return checkJsonSchema;
  if (lang === "json" && kind === "log") return checkJsonLog;
  if (lang === "text") {
    return {
      banner: checkBanner,
      log: checkTextLog,
      "start-errors": checkStartErrors,
      report: checkReport,
      check: checkCheckOutput,
      header: checkViolationsHeader,
      bench: checkBenchOutput,
      tree: checkTree,
    }[kind];
  }
  return undefined;
}

/** The check each block gets, run against `rig`; undefined for a block of a kind no check knows. */
export function checksOn(rig: DocsRig): (block: Block) => ((block: Block) => Promise<void> | void) | undefined {
  return (block) => {
    const check = checkOfKind(block);
    return check && ((each) => check(each, rig));
  };
}

// ---------------------------------------------------------------------------------------------
// Links: every relative link names a file that exists, and an anchor that is one of its headings.

/** GitHub's anchor of a heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```$/gm, "");
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] ?? "")));
}

export function brokenLinks(page: string): string[] {
  const text = readFileSync(path.join(ROOT, page), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1] ?? "";
    if (/^[a-z]+:/.test(link)) continue;
    const [target = "", anchor] = link.split("#");
    const file = target === "" ? path.join(ROOT, page) : path.join(ROOT, path.dirname(page), target);
    if (!existsSync(file)) broken.push(`${link}: no such file`);
    else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor)) broken.push(`${link}: no such heading`);
  }
  return broken;
}
