// The pages whose fenced blocks the docs tests check, their blocks, and the values the docs show (URLs, keys, the first send).

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../cli-process.js";

/** The pages whose blocks are checked: the README, CONTRIBUTING.md and every page of docs/. */
export const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The URL the docs show for a local sendmock, and for an app's webhook receiver. */
export const DOCS_URL = "http://127.0.0.1:4010";
export const DOCS_RECEIVER_URL = "http://127.0.0.1:3000";
/** The first screen's send: every `sh` block starts on a mock that holds it, as a reader's would. */
export const FIRST_SEND = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } };
const API_KEY = "test-key-1234";
/** Variables the docs' commands read: a key, and where the CI example's staging service is. */
export const DOCS_KEY = "test-key-3f9a";
/** `check` runs paced or long in the docs are shortened: how long a run takes is not what is checked. */
export const CHECK_RATE = "1000/s";
/** A `--max-response-ms` the docs show judges the real service; against the suite's stand-in on a busy machine, it would judge the machine. */
export const CHECK_MAX_RESPONSE_MS = "60000";
export const CHECK_MAX_GENERATE = 10;
export const SLOW = { timeout: 60_000 };

export interface Block {
  page: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  lang: string;
  /** What follows the language in the info string: how the block is checked. */
  kind: string;
  code: string;
}

export function blocksOf(page: string): Block[] {
  const lines = readFileSync(path.join(ROOT, page), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[index] ?? "");
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && line === "```");
    if (end === -1) throw new Error(`${page}:${index + 1}: a code block that is never closed`);
    blocks.push({ page, line: index + 1, lang: open[1] ?? "", kind: (open[2] ?? "").trim(), code: lines.slice(index + 1, end).join("\n") + "\n" });
    index = end;
  }
  return blocks;
}

export function sendHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${API_KEY}`, "Content-Type": "application/json" };
}
