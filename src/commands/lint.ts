// `sendmock lint [--templates DIR] [--junit FILE]`: every template rendered with its sample_data and the message checks run on it, before anything is sent; exit 1 on a failed check, 0 otherwise, 2 for bad usage.

import { writeFile } from "node:fs/promises";
import { InvalidArgumentError, type Command } from "commander";
import { SETTINGS } from "../config/declaration.js";
import { SHIPPED_TEMPLATES } from "../package-root.js";
import { fail } from "./shared.js";
import type { LintedTemplate } from "../lint/run-lint.js";

const USAGE = 2;

interface LintFlags {
  templates?: string;
  junit?: string;
  spamd?: string;
  spamdTimeoutMs?: number;
}

/** The defaults of the settings `serve` has for these: one declaration of each. */
const SPAMD_TIMEOUT_MS = SETTINGS.spamd_timeout_ms.default;
const DEFAULT_SENDER = SETTINGS.sender.default;

/** `host:port` as the `spamd` setting takes it. */
function spamdAddress(value: string): string {
  if (!/^(\[[0-9A-Fa-f:.]+\]|[^\s:]+):\d{1,5}$/.test(value)) throw new InvalidArgumentError("must be host:port, such as 127.0.0.1:783");
  return value;
}

function timeoutMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100 || ms > 60_000) throw new InvalidArgumentError("must be a whole number of ms from 100 to 60000");
  return ms;
}

async function lint(flags: LintFlags): Promise<void> {
  // Loaded here, not with the CLI: the checks bring their parsers, which `sendmock serve` has no need of at start.
  const [{ lintTemplates, LintUsageError }, { lintFailed, lintJunitXml, lintReport }] = await Promise.all([
    import("../lint/run-lint.js"),
    import("../lint/report.js"),
  ]);
  const folder = flags.templates ?? SHIPPED_TEMPLATES;
  const linted = await lintTemplates(folder).catch((error: unknown) =>
    fail(error instanceof LintUsageError ? error.message : `lint failed: ${String(error)}`, USAGE),
  );
  const { spamd } = flags;
  const templates = spamd === undefined ? linted : await withSpamCheck(linted, spamd, flags.spamdTimeoutMs ?? SPAMD_TIMEOUT_MS);
  process.stdout.write(lintReport(templates));
  if (flags.junit !== undefined) {
    const junit = flags.junit;
    await writeFile(junit, lintJunitXml(templates, folder)).catch((error: unknown) =>
      fail(`cannot write --junit ${junit}: ${error instanceof Error ? error.message : String(error)}`, USAGE),
    );
  }
  process.exitCode = lintFailed(templates) ? 1 : 0;
}

/** Each template's checks with `spam` among them, as `GET /_mock/messages/{id}/checks` gives it: one template at a time, as spamd's children allow. */
async function withSpamCheck(templates: LintedTemplate[], spamd: string, spamdTimeoutMs: number): Promise<LintedTemplate[]> {
  const { spamCheck, unsentMessage } = await import("../http/message-checks.js");
  const { including } = await import("../message-checks/index.js");
  const checked: LintedTemplate[] = [];
  for (const template of templates) {
    const started = performance.now();
    const spam = await spamCheck(unsentMessage(template.id, template.rendered), { sender: DEFAULT_SENDER, spamd, spamdTimeoutMs });
    const checks = including(template.checks, spam);
    const durationsMs = new Map(template.durationsMs).set("spam", performance.now() - started);
    checked.push({
      ...template,
      checks,
      durationsMs,
      durationMs: template.durationMs + (durationsMs.get("spam") ?? 0),
    });
  }
  return checked;
}

export function registerLint(program: Command): void {
  program
    .command("lint")
    .description("render every template with its sample_data and run the message checks on it (exit 1 when a check fails)")
    .option("--templates <dir>", "folder of templates (default: the shipped fixtures/templates)")
    .option("--junit <file>", "write the results as JUnit XML: a test suite per template, a test case per check")
    .option("--spamd <host:port>", "a SpamAssassin spamd to score each template with (the spam check; default none: off)", spamdAddress)
    .option("--spamd-timeout-ms <ms>", "a spamd that has not answered by then gives the spam check error (default 10000)", timeoutMs)
    // Usage errors (an unknown flag, a missing value) exit 2, like the folder that cannot be linted.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE))
    .action(lint);
}
