// What `sendmock check` prints: a line per case as it runs, a table, the totals; and JUnit XML.

import type { ContractViolation } from "../contract/violations.js";
import type { CheckResult } from "./run-check.js";

/** A JSON pointer as shown: the empty pointer (the whole body) reads `(body)`. */
export function showPointer(path: string): string {
  return path === "" ? "(body)" : path;
}

export function describeProblem(problem: ContractViolation): string {
  return `${showPointer(problem.path)}: ${problem.message} (expected ${problem.expected}, actual ${problem.actual})`;
}

/** `✓ missing to … 400`, `✗ unknown field … 200 (expected 4xx)`, then one indented line per problem. */
export function progressLine(result: CheckResult): string {
  if (result.outcome === "skipped") return `- ${result.name} … skipped (${result.skipReason ?? "not run"})\n`;
  const status = result.status === undefined ? "no answer" : String(result.status);
  if (result.outcome === "passed") return `✓ ${result.name} … ${result.judged === undefined ? status : `${result.judged} requests`}\n`;
  const first = result.problems[0];
  const short =
    first === undefined
      ? ""
      : first.path === "/status" && first.actual === status
        ? ` (expected ${first.expected})`
        : ` (${showPointer(first.path)}: expected ${first.expected}, actual ${first.actual})`;
  return `✗ ${result.name} … ${status}${short}\n${result.problems.map((problem) => `    ${describeProblem(problem)}\n`).join("")}${reproductionLines(result)}`;
}

/** A named check's smallest failing request and the curl line that sends it again, indented. */
function reproductionLines(result: CheckResult): string {
  const reproduction = result.reproduction;
  return reproduction === undefined ? "" : `    smallest failing request: ${reproduction.request}\n    ${reproduction.curl}\n`;
}

function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** case | status | result | first problem, padded into columns. */
export function summaryTable(results: readonly CheckResult[]): string {
  const rows = results.map((result) => [
    result.name,
    result.status === undefined ? "-" : String(result.status),
    result.outcome,
    result.problems[0] === undefined ? "" : clip(describeProblem(result.problems[0]), 100),
  ]);
  const header = ["case", "status", "result", "first problem"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]): string =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join(" | ")
      .trimEnd()}\n`;
  return line(header) + line(widths.map((width) => "-".repeat(width))) + rows.map(line).join("");
}

export function totals(results: readonly CheckResult[]): { passed: number; failed: number; skipped: number } {
  const count = (outcome: CheckResult["outcome"]): number => results.filter((result) => result.outcome === outcome).length;
  return { passed: count("passed"), failed: count("failed"), skipped: count("skipped") };
}

/** The table, why cases were skipped, and `N passed, M failed` on its own line. */
export function finalReport(results: readonly CheckResult[]): string {
  const { passed, failed, skipped } = totals(results);
  const reasons = [...new Set(results.filter((result) => result.outcome === "skipped").map((result) => result.skipReason ?? "not run"))];
  const note = skipped > 0 ? `${skipped} skipped (${reasons.join("; ")})\n` : "";
  return `\n${summaryTable(results)}\n${note}${passed} passed, ${failed} failed\n`;
}

/** Escapes text for XML content and attributes; drops characters XML 1.0 cannot hold. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;")
      .replaceAll('"', "&quot;")
      .replaceAll("'", "&apos;")
  );
}

export function junitXml(results: readonly CheckResult[], target: string): string {
  const { failed, skipped } = totals(results);
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const time = seconds(results.reduce((sum, result) => sum + result.durationMs, 0));
  const cases = results.map((result) => {
    const open = `    <testcase classname="sendmock check" name="${xmlEscape(result.name)}" time="${seconds(result.durationMs)}"`;
    if (result.outcome === "passed") return `${open}/>\n`;
    if (result.outcome === "skipped") return `${open}>\n      <skipped message="${xmlEscape(result.skipReason ?? "not run")}"/>\n    </testcase>\n`;
    const first = result.problems[0];
    const message = first === undefined ? "failed" : describeProblem(first);
    const reproduction = result.reproduction === undefined ? "" : `\nsmallest failing request: ${result.reproduction.request}\n${result.reproduction.curl}`;
    const details = result.problems.map(describeProblem).join("\n") + reproduction;
    return `${open}>\n      <failure message="${xmlEscape(message)}" type="contract">${xmlEscape(`status: ${result.status ?? "no answer"}\n${details}`)}</failure>\n    </testcase>\n`;
  });
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="sendmock check" tests="${results.length}" failures="${failed}" errors="0" skipped="${skipped}" time="${time}">\n` +
    `  <testsuite name="sendmock check" tests="${results.length}" failures="${failed}" errors="0" skipped="${skipped}" time="${time}">\n` +
    `    <properties>\n      <property name="target" value="${xmlEscape(target)}"/>\n    </properties>\n` +
    cases.join("") +
    `  </testsuite>\n</testsuites>\n`
  );
}
