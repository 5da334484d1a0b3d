// Other text the docs show printed: setupSendMock's contract report, `sendmock check`'s lines (its waivers, budget and dry run among them), the violations header, the bench's output, and the layout's paths.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, vi } from "vitest";
import { contractBreaks, describeContractBreaks } from "../../../src/contract-breaks.js";
import { ROOT } from "../cli-process.js";
import { FIRST_SEND, sendHeaders, type Block } from "./pages.js";
import type { DocsRig } from "./rig.js";

/** The report `setupSendMock` throws or prints, for the request it names. */
export async function checkReport(block: Block, rig: DocsRig): Promise<void> {
  const [failLine = "", ...report] = block.code.trimEnd().split("\n");
  expect(failLine, "the test runner's own line").toMatch(/^FAIL {2}\S+ > .+$/);
  await rig.mock.reset();
  const field = /^ {4}\/(\w+): /m.exec(block.code)?.[1] ?? "";
  await fetch(`${rig.mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify({ ...FIRST_SEND, [field]: 123 }) });
  await vi.waitFor(async () => expect((await rig.mock.journal.list()).total).toBe(1));
  const breaks = contractBreaks((await rig.mock.journal.list()).requests.toReversed());
  expect(report.join("\n")).toBe(`Error: ${describeContractBreaks(breaks)}`);
}

/** The lines `sendmock check` prints, by their form. */
const CHECK_LINES = [
  /^sendmock check https?:\/\/\S+\/send against the contract (published|sendmock) \(openapi\/[\w.]+\) \(API key …\w{1,4}, shape (a|b|any)(, sending to \S+, at most \d+ real sends)?\)$/,
  /^[✓✗?-] [\w ]+ … (\d{3}|-) .+$/,
  /^~ [\w ]+ … waived \(\d+ (failing requests?|problems?)\)$/,
  /^waived: [\w -]+( where .+)? \([^)]+\): \d+ findings?(, because .+)?$/,
  /^stale waiver: [\w -]+( where .+)? \([^)]+\) waived nothing: remove it(, or fix its match \(reason given: .+\))?$/,
  /^real sends: \d+ of --max-sends \d+ used( \(\d+ valid requests? not sent once it was spent\))?$/,
  /^\d+\. [\w ()-]+( \[delivers mail\])?$/,
  /^ {3}curl -sS -i -X [A-Z]+ '\S+\/send'( -H .+)?$/,
  /^dry run: nothing was sent\. \d+ requests would be sent( \(seed \d+: run with --seed \d+ to send exactly these\))?; \d+ of them deliver mail.*$/,
  /^ {4}\/\S* .+$/,
  /^ {4}smallest failing request: \(.+\) POST \/send \{.*\}$/,
  /^ {4}curl -sS -i -X POST '\S+\/send' -H "Authorization: Bearer \$SENDMOCK_API_KEY" -H 'Content-Type: application\/json' --data-binary '.*'$/,
  /^\.\.\.$/,
  /^inconclusive: \d+ requests? without a judgeable answer: .+$/,
  /^\d+ passed, \d+ failed$/,
];

export function checkCheckOutput(block: Block): void {
  const lines = block.code.trimEnd().split("\n");
  expect(lines.filter((line) => !CHECK_LINES.some((form) => form.test(line)))).toEqual([]);
}

export function checkViolationsHeader(block: Block): void {
  for (const line of block.code.trimEnd().split("\n")) {
    expect(line).toMatch(/^X-Sendmock-Violations: \d+ violations?: [\x20-\x7e]+$/);
    expect(line.length - "X-Sendmock-Violations: ".length).toBeLessThanOrEqual(512);
  }
}

/** Every string and template literal of the bench's sources, as a pattern (`${...}` stands for any text), the length of its text and of its text before the first placeholder. */
function benchLiterals(): { pattern: RegExp; length: number; head: number }[] {
  const folder = path.join(ROOT, "test/bench");
  const sources = [folder, path.join(folder, "lib")].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".mjs"))
      .map((name) => path.join(dir, name)),
  );
  const literals: { pattern: RegExp; length: number; head: number }[] = [];
  for (const source of sources.map((file) => readFileSync(file, "utf8"))) {
    // The last character of code before this one: a slash after an operator or a bracket opens a regular expression.
    let previous = "";
    for (let at = 0; at < source.length; at += 1) {
      const char = source[at] ?? "";
      if (/\s/.test(char)) continue;
      const before = previous;
      previous = char;
      if (char === "/" && (source[at + 1] === "/" || source[at + 1] === "*")) {
        const lineComment = source[at + 1] === "/";
        const end = source.indexOf(lineComment ? "\n" : "*/", at + 2);
        if (end === -1) break;
        at = lineComment ? end : end + 1; // the loop's step then moves past the newline or the closing slash
        previous = before;
      } else if (char === "/" && /^$|[(,=:[!&|?{};]/.test(before)) {
        let inClass = false;
        for (at += 1; at < source.length && (source[at] !== "/" || inClass); at += 1) {
          if (source[at] === "\\") at += 1;
          else if (source[at] === "[") inClass = true;
          else if (source[at] === "]") inClass = false;
        }
      } else if (char === '"' || char === "'" || char === "`") {
        const parts: string[] = [];
        let text = "";
        let depth = 0;
        for (at += 1; at < source.length; at += 1) {
          const inner = source[at];
          if (depth > 0) {
            if (inner === "{") depth += 1;
            else if (inner === "}") depth -= 1;
            continue;
          }
          if (inner === "\\") text += source[++at] ?? "";
          else if (inner === char) break;
          else if (char === "`" && inner === "$" && source[at + 1] === "{") {
            parts.push(text);
            text = "";
            depth = 1;
            at += 1;
          } else text += inner ?? "";
        }
        parts.push(text);
        const length = parts.join("").trim().length;
        // A literal opening on a placeholder would match any line: it names none.
        const head = (parts[0] ?? "").trim().length;
        if (length >= 4 && head > 0)
          literals.push({
            pattern: new RegExp(`^${parts.map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*?")}`),
            length,
            head,
          });
      }
    }
  }
  return literals;
}

/** Each line is one the bench prints: a table row of a scenario it runs, a target it judges, or a line it writes. */
export function checkBenchOutput(block: Block): void {
  const literals = benchLiterals();
  // A literal names a line when it is the whole line, or a long enough start of it (a table cell or a target's name, then figures).
  const known = (text: string): boolean =>
    literals.some(({ pattern, length, head }) => {
      const match = pattern.exec(text);
      return match !== null && (match[0].length === text.length || (head >= 3 && length >= 12));
    });
  // The servers the table names, by their rows' labels without the body they were sent.
  const labels = new Set(
    block.code
      .split("\n")
      .filter((line) => line.includes("|"))
      .map((line) =>
        line
          .slice(0, line.indexOf("|"))
          .trim()
          .replace(/ \((?:valid|invalid[^)]*)\)$/, "")
          .replace(/^sendmock .*/, "sendmock POST /send"),
      ),
  );
  const unknown = block.code
    .trimEnd()
    .split("\n")
    .filter((line) => {
      const text = line.trim();
      if (text === "" || /^[-| ]+$/.test(text)) return false;
      if (text.includes("|")) {
        const cell = text.slice(0, text.indexOf("|")).trim();
        return !/^\d+$/.test(cell) && !known(cell);
      }
      // A target's name is padded, and its detail follows: the name's pattern must match from the start.
      const target = /^(?:PASS|MISS|UNJUDGED) +(.+)$/.exec(text);
      if (target) return !known(target[1] ?? "");
      // The responses list: a server's padded label (a table row's), then what it responded to each body.
      const responded = /^(?:(.+?) {2,})?(?:valid|invalid) \d{3} /.exec(text);
      if (responded) return responded[1] !== undefined && !labels.has(responded[1]);
      return !known(text);
    });
  expect(unknown, "lines the bench does not print").toEqual([]);
}

/** Each path the layout names exists: top-level entries at column 0, their children indented by 2. */
export function checkTree(block: Block): void {
  let parent = "";
  const missing: string[] = [];
  for (const line of block.code.split("\n")) {
    const entry = /^( {0,2})(\S+)/.exec(line);
    if (!entry) continue;
    const name = entry[2] ?? "";
    const file = entry[1] === "" ? name : path.join(parent, name);
    if (entry[1] === "") parent = name;
    if (!existsSync(path.join(ROOT, file))) missing.push(file);
  }
  expect(missing).toEqual([]);
}
