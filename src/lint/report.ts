// What `sendmock lint` prints (a line per template and check, its findings indented with part:line) and its JUnit XML (a test suite per template, a test case per check).

import path from "node:path";
import { xmlEscape } from "../check/report.js";
import { printable } from "../domain/printable.js";
import type { MessageFinding, MessageCheck } from "../message-checks/index.js";
import type { LintedTemplate } from "./run-lint.js";

/** Whether lint fails: any check of any template failed. */
export const lintFailed = (templates: readonly LintedTemplate[]): boolean => templates.some((template) => template.checks.status === "fail");

/** `html:12` or `text`, where a finding points. */
const placeOf = (finding: MessageFinding): string => `${finding.part ?? "message"}${finding.line === undefined ? "" : `:${finding.line}`}`;

const findingLine = (finding: MessageFinding): string =>
  `${placeOf(finding)}  ${finding.message}${finding.element === undefined || finding.message.includes(finding.element) ? "" : `  [${finding.element}]`}`;

/** The findings a check shows, and a line for those the cap left out. */
function findingLines(check: MessageCheck): string[] {
  const left = check.findings_total - check.findings.length;
  return [...check.findings.map(findingLine), ...(left > 0 ? [`… and ${left} more`] : [])];
}

/** A file as shown: relative to the working folder when inside it. */
const shownFile = (file: string): string => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
};

/**
 * Per template its id, file and status, then a line per check (status, name, summary) with its
 * findings indented under it; the totals last. Every line is printable: a template's text may
 * hold control characters.
 */
export function lintReport(templates: readonly LintedTemplate[]): string {
  const width = Math.max(...templates.flatMap((template) => template.checks.checks.map((check) => check.name.length)));
  const lines: string[] = [];
  for (const template of templates) {
    lines.push(`${template.id} (${shownFile(template.file)}): ${template.checks.status}`);
    for (const check of template.checks.checks) {
      lines.push(`  ${check.status.padEnd(5)} ${check.name.padEnd(width)}  ${check.summary}`);
      lines.push(...findingLines(check).map((line) => `          ${line}`));
    }
    lines.push("");
  }
  const count = (status: string): number => templates.filter((template) => template.checks.status === status).length;
  lines.push(`${templates.length} templates linted: ${count("fail")} failed, ${count("warn")} with warnings, ${count("pass")} passed`);
  return lines.map((line) => `${printable(line)}\n`).join("");
}

/** Seconds to the microsecond: a check of a small template takes well under a millisecond, which three decimals would show as 0. */
const seconds = (ms: number): string => (ms / 1000).toFixed(6);

/** JUnit XML: a test suite per template, a test case per check; a failed check is a `<failure>`, a broken one an `<error>`, findings of a warning are its output. */
export function lintJunitXml(templates: readonly LintedTemplate[], folder: string): string {
  let failures = 0;
  let errors = 0;
  let tests = 0;
  const suites = templates.map((template) => {
    const { checks } = template.checks;
    const failed = checks.filter((check) => check.status === "fail").length;
    const broke = checks.filter((check) => check.status === "error").length;
    failures += failed;
    errors += broke;
    tests += checks.length;
    const cases = checks.map((check) => {
      const open = `    <testcase classname="sendmock lint.${xmlEscape(template.id)}" name="${xmlEscape(check.name)}" time="${seconds(template.durationsMs.get(check.name) ?? 0)}"`;
      const details = xmlEscape([check.summary, ...findingLines(check)].join("\n"));
      const message = xmlEscape(check.findings[0]?.message ?? check.summary);
      if (check.status === "fail") return `${open}>\n      <failure message="${message}" type="${check.name}">${details}</failure>\n    </testcase>\n`;
      if (check.status === "error") return `${open}>\n      <error message="${xmlEscape(check.summary)}" type="${check.name}"/>\n    </testcase>\n`;
      if (check.status === "warn") return `${open}>\n      <system-out>${details}</system-out>\n    </testcase>\n`;
      return `${open}/>\n`;
    });
    const counts = `tests="${checks.length}" failures="${failed}" errors="${broke}" skipped="0" time="${seconds(template.durationMs)}"`;
    return `  <testsuite name="${xmlEscape(template.id)}" ${counts}>\n    <properties>\n      <property name="file" value="${xmlEscape(template.file)}"/>\n    </properties>\n${cases.join("")}  </testsuite>\n`;
  });
  const time = seconds(templates.reduce((sum, template) => sum + template.durationMs, 0));
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="sendmock lint ${xmlEscape(folder)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${time}">\n` +
    suites.join("") +
    `</testsuites>\n`
  );
}
