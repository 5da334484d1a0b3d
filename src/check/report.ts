// What `sendmock check` prints: a line per case as it runs, a table, the totals; and JUnit XML.
// Every line goes through `printable`: a target's words (a member name, an error message) may hold
// escape sequences that would retitle the terminal or clear it.

import { printable } from "../domain/printable.js";
import type { ExplainedViolation } from "../errors.js";
import { BROKE_OFF } from "./named-checks.js";
import type { CheckPlan, CheckReport, CheckResult } from "./run-check.js";
import type { InconclusiveTally } from "./transport.js";
import type { BudgetUse } from "./budget.js";
import { describeWaiver } from "./waivers.js";

/** What a problem is about as shown: `/status`, `/headers/…`, `/body/…`; the empty pointer (the exchange as a whole) reads `(response)`. */
export function showPointer(path: string): string {
  return path === "" ? "(answer)" : path;
}

export function describeViolation(problem: ExplainedViolation): string {
  return `${showPointer(problem.path)}: ${problem.message} (expected ${problem.expected}, actual ${problem.actual})`;
}

/** The status as shown: `no status` when the target answered and broke before its status line was read (3000 headers), `no answer` when nothing came. */
function statusOf(result: CheckResult): string {
  if (result.status !== undefined) return String(result.status);
  return result.problems[0]?.message === BROKE_OFF ? "no status" : "no answer";
}

/** Lines as printed: each escaped, each ended. */
const printed = (lines: readonly string[]): string => lines.map((line) => `${printable(line)}\n`).join("");

/** `✓ missing to … 400`, `✗ unknown field … 200 (expected 4xx)`, then one indented line per problem. */
export function progressLine(result: CheckResult): string {
  if (result.outcome === "skipped") return printed([`- ${result.name} … skipped (${result.skipReason ?? "not run"})`]);
  if (result.outcome === "waived") return printed([`~ ${result.name} … waived (${waivedCount(result)})`]);
  if (result.outcome === "inconclusive")
    return printed([`? ${result.name} … ${result.status ?? "-"} inconclusive (${result.skipReason ?? "no judgeable answer"})`]);
  const status = statusOf(result);
  if (result.outcome === "passed") return printed([`✓ ${result.name} … ${result.judged === undefined ? status : `${result.judged} requests`}`]);
  const first = result.problems[0];
  const short =
    first === undefined
      ? ""
      : first.path === "/status" && first.actual === status
        ? ` (expected ${first.expected})`
        : ` (${showPointer(first.path)}: expected ${first.expected}, actual ${first.actual})`;
  return printed([
    `✗ ${result.name} … ${status}${short}`,
    ...result.problems.map((problem) => `    ${describeViolation(problem)}`),
    ...reproductionLines(result),
  ]);
}

/** A named check's smallest failing request and the curl line that sends it again (quoted so that it holds no control character), indented. */
function reproductionLines(result: CheckResult): string[] {
  const reproduction = result.reproduction;
  return reproduction === undefined ? [] : [`    smallest failing request: ${reproduction.request}`, `    ${reproduction.curl}`];
}

/** `3 failing requests` of a named check, `1 problem` of a case. */
function waivedCount(result: CheckResult): string {
  const count = result.waived ?? 0;
  const what = result.judged === undefined ? "problem" : "failing request";
  return `${count} ${what}${count === 1 ? "" : "s"}`;
}

function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** case | status | result | first problem, padded into columns. */
export function summaryTable(results: readonly CheckResult[]): string {
  const rows = results.map((result) => [
    printable(result.name),
    result.status === undefined ? "-" : String(result.status),
    result.outcome,
    result.outcome === "inconclusive"
      ? clip(printable(result.skipReason ?? ""), 100)
      : result.problems[0] === undefined
        ? ""
        : clip(printable(describeViolation(result.problems[0])), 100),
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

export function totals(results: readonly CheckResult[]): Record<CheckResult["outcome"], number> {
  const count = (outcome: CheckResult["outcome"]): number => results.filter((result) => result.outcome === outcome).length;
  return { passed: count("passed"), failed: count("failed"), skipped: count("skipped"), inconclusive: count("inconclusive"), waived: count("waived") };
}

/** Whether the run failed: a case or check failed, or a request was left without a judgeable response. */
export function runFailed(report: CheckReport): boolean {
  return report.results.some((result) => result.outcome === "failed") || inconclusiveLine(report.inconclusive) !== undefined;
}

/** `real sends: 7 of --max-sends 10 used (3 valid requests not sent once it was spent)`: the line saying how much real mail the run cost. */
export function sendsLine(sends: BudgetUse): string {
  const withheld = sends.withheld === 0 ? "" : ` (${sends.withheld} valid ${sends.withheld === 1 ? "request" : "requests"} not sent once it was spent)`;
  return `real sends: ${sends.used} of --max-sends ${sends.max} used${withheld}`;
}

/** One line per waiver: what it waived and why, or that it is stale. */
export function waiverLines(waivers: CheckReport["waivers"]): string[] {
  return waivers.map(({ waiver, findings }) => {
    // --skip-check's reason is the flag itself: said once, in the source.
    const given = waiver.reason === waiver.source;
    return findings === 0
      ? `stale waiver: ${describeWaiver(waiver)} (${waiver.source}) waived nothing: remove it${given ? "" : `, or fix its match (reason given: ${waiver.reason})`}`
      : `waived: ${describeWaiver(waiver)} (${waiver.source}): ${findings} ${findings === 1 ? "finding" : "findings"}${given ? "" : `, because ${waiver.reason}`}`;
  });
}

/** The table, why cases were skipped, the waivers, the real sends, the one line about unjudged requests, and `N passed, M failed` on its own line. */
export function finalReport(report: CheckReport): string {
  const { results } = report;
  const { passed, failed, skipped } = totals(results);
  const reasons = [...new Set(results.filter((result) => result.outcome === "skipped").map((result) => result.skipReason ?? "not run"))];
  const inconclusive = inconclusiveLine(report.inconclusive);
  const notes = [
    ...(skipped > 0 ? [`${skipped} skipped (${reasons.join("; ")})`] : []),
    ...waiverLines(report.waivers),
    ...(report.sends === undefined ? [] : [sendsLine(report.sends)]),
    ...(inconclusive === undefined ? [] : [inconclusive]),
  ];
  return `\n${summaryTable(results)}\n${printed(notes)}${passed} passed, ${failed} failed\n`;
}

/** What `--dry-run` prints: each request that would be sent, with the curl line that sends it, and the count. */
export function planReport(plan: CheckPlan): string {
  const lines = plan.requests.flatMap((request, index) => [
    `${index + 1}. ${request.label}${request.delivers ? " [delivers mail]" : ""}`,
    `   ${request.curl}`,
  ]);
  const delivering = plan.requests.filter((request) => request.delivers).length;
  const cap = plan.maxSends === undefined ? "" : `, at most ${plan.maxSends} of them accepted (--max-sends)`;
  const discarded = plan.discarded === 0 ? "" : `; ${plan.discarded} drawn requests the contract accepts would not be sent`;
  const seed = plan.seed === undefined ? "" : ` (seed ${plan.seed}: run with --seed ${plan.seed} to send exactly these)`;
  return printed([
    ...lines,
    "",
    `dry run: nothing was sent. ${plan.requests.length} requests would be sent${seed}; ${delivering} of them deliver mail${cap}${discarded}`,
  ]);
}

/**
 * Text for XML content and attributes, each line escaped as printed (`\u001b`, which XML 1.0 could
 * not hold raw anyway); line breaks between lines stay.
 */
export function xmlEscape(text: string): string {
  return text
    .split("\n")
    .map(printable)
    .join("\n")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/**
 * JUnit XML: a test case per case and named check. What was not judged is an `<error>`: an
 * inconclusive case or check, and, when any request was left without a judgeable response, one more
 * case, `judgeable responses`, so that the job's test report shows why the run failed.
 */
export function junitXml(report: CheckReport, target: string): string {
  const { results } = report;
  const { failed, skipped, inconclusive, waived } = totals(results);
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const unjudged = inconclusiveLine(report.inconclusive);
  // The run's own wall time: the cases' times leave out what lies between them (loading the contract, the sample data).
  const time = seconds(report.durationMs);
  const testcase = (name: string, durationMs: number, inside?: string): string => {
    const open = `    <testcase classname="sendmock check" name="${xmlEscape(name)}" time="${seconds(durationMs)}"`;
    return inside === undefined ? `${open}/>\n` : `${open}>\n      ${inside}\n    </testcase>\n`;
  };
  const error = (message: string): string => `<error message="${xmlEscape(message)}" type="inconclusive"/>`;
  const cases = results.map((result) => {
    if (result.outcome === "passed") return testcase(result.name, result.durationMs);
    if (result.outcome === "skipped") return testcase(result.name, result.durationMs, `<skipped message="${xmlEscape(result.skipReason ?? "not run")}"/>`);
    if (result.outcome === "waived") {
      const because = report.waivers.filter(({ waiver, findings }) => findings > 0 && waiver.target === result.id).map(({ waiver }) => waiver.reason);
      return testcase(result.name, result.durationMs, `<skipped message="${xmlEscape(`waived: ${waivedCount(result)} (${because.join("; ")})`)}"/>`);
    }
    if (result.outcome === "inconclusive")
      return testcase(result.name, result.durationMs, error(`inconclusive: ${result.skipReason ?? "no judgeable answer"}`));
    const first = result.problems[0];
    const message = first === undefined ? "failed" : describeViolation(first);
    const reproduction = result.reproduction === undefined ? "" : `\nsmallest failing request: ${result.reproduction.request}\n${result.reproduction.curl}`;
    const details = result.problems.map(describeViolation).join("\n") + reproduction;
    return testcase(
      result.name,
      result.durationMs,
      `<failure message="${xmlEscape(message)}" type="contract">${xmlEscape(`status: ${statusOf(result)}\n${details}`)}</failure>`,
    );
  });
  if (unjudged !== undefined) cases.push(testcase("judgeable answers", 0, error(unjudged)));
  // A stale waiver is a test case the job's report shows, skipped: it says what to remove.
  for (const { waiver, findings } of report.waivers)
    if (findings === 0)
      cases.push(testcase(`stale waiver: ${describeWaiver(waiver)}`, 0, `<skipped message="${xmlEscape(waiverLines([{ waiver, findings }]).join(""))}"/>`));
  const stale = report.waivers.filter(({ findings }) => findings === 0).length;
  const counts = `tests="${cases.length}" failures="${failed}" errors="${inconclusive + (unjudged === undefined ? 0 : 1)}" skipped="${skipped + waived + stale}" time="${time}"`;
  const property = (name: string, value: string): string => `      <property name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>\n`;
  const properties = [
    property("target", target),
    property("contract", report.contract),
    ...(report.sends === undefined ? [] : [property("real sends", sendsLine(report.sends))]),
    ...waiverLines(report.waivers).map((line) => property("waiver", line)),
  ].join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="sendmock check" ${counts}>\n` +
    `  <testsuite name="sendmock check" ${counts}>\n` +
    `    <properties>\n${properties}    </properties>\n` +
    cases.join("") +
    `  </testsuite>\n</testsuites>\n`
  );
}

/** The one line that says why requests were left unjudged and which flag helps; undefined when none were. */
export function inconclusiveLine(tally: Readonly<InconclusiveTally>): string | undefined {
  const total = tally.rate_limited + tally.key_refused + tally.not_sent + tally.not_answering;
  if (total === 0) return undefined;
  const parts: string[] = [];
  if (tally.rate_limited > 0)
    parts.push(`${tally.rate_limited} rate limited (pace the run with --rate-limit N/s or N/m under the target's limit, or raise --max-retries)`);
  if (tally.key_refused > 0)
    parts.push(`${tally.key_refused} refused the API key with 401/403 (pass a key the target accepts: --api-key or $SENDMOCK_API_KEY)`);
  if (tally.not_sent > 0) parts.push(`${tally.not_sent} not sent after too many in a row (--max-inconclusive)`);
  if (tally.not_answering > 0)
    parts.push(
      `${tally.not_answering} not sent: the target stopped answering (--max-timeouts requests in a row timed out; raise --timeout, or --max-timeouts 0 never stops)`,
    );
  return `inconclusive: ${total} ${total === 1 ? "request" : "requests"} without a judgeable answer: ${parts.join("; ")}`;
}
