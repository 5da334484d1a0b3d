// `sendmock lint [--templates DIR] [--junit FILE]`: every template rendered with its sample_data and the message checks run on it, before anything is sent; exit 1 on a failed check, 0 otherwise, 2 for bad usage.

import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { SHIPPED_TEMPLATES } from "../package-root.js";
import { fail } from "./shared.js";

const USAGE = 2;

interface LintFlags {
  templates?: string;
  junit?: string;
}

async function lint(flags: LintFlags): Promise<void> {
  // Loaded here, not with the CLI: the checks bring their parsers, which `sendmock serve` has no need of at start.
  const [{ lintTemplates, LintUsageError }, { lintFailed, lintJunitXml, lintReport }] = await Promise.all([
    import("../lint/run-lint.js"),
    import("../lint/report.js"),
  ]);
  const folder = flags.templates ?? SHIPPED_TEMPLATES;
  const templates = await lintTemplates(folder).catch((error: unknown) =>
    fail(error instanceof LintUsageError ? error.message : `lint failed: ${String(error)}`, USAGE),
  );
  process.stdout.write(lintReport(templates));
  if (flags.junit !== undefined) {
    const junit = flags.junit;
    await writeFile(junit, lintJunitXml(templates, folder)).catch((error: unknown) =>
      fail(`cannot write --junit ${junit}: ${error instanceof Error ? error.message : String(error)}`, USAGE),
    );
  }
  process.exitCode = lintFailed(templates) ? 1 : 0;
}

export function registerLint(program: Command): void {
  program
    .command("lint")
    .description("render every template with its sample_data and run the message checks on it (exit 1 when a check fails)")
    .option("--templates <dir>", "folder of templates (default: the shipped fixtures/templates)")
    .option("--junit <file>", "write the results as JUnit XML: a test suite per template, a test case per check")
    // Usage errors (an unknown flag, a missing value) exit 2, like the folder that cannot be linted.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE))
    .action(lint);
}
