// How the bench reports: figures as text, tables, and the end of every section (the TARGETS
// block, test-results/bench.json and the exit code for BENCH_STRICT).

import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { log, MB, STRICT } from "./knobs.mjs";
import { ROOT } from "./servers.mjs";

/** @param {number} bytes */
export const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
/** @param {number} share */
export const percent = (share) => `${(share * 100).toFixed(1)}%`;
/** @param {number} value */
export const int = (value) => Math.round(value).toLocaleString("en-US");

/**
 * @param {string[][]} rows
 */
export function table(rows) {
  const widths = /** @type {string[]} */ (rows[0]).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  const line = (/** @type {string[]} */ row) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(" | ");
  return [line(/** @type {string[]} */ (rows[0])), widths.map((width) => "-".repeat(width)).join("-|-"), ...rows.slice(1).map(line)].join("\n");
}

/**
 * Prints the TARGETS block, writes test-results/bench.json, and sets the exit code for BENCH_STRICT.
 * @param {string[]} out the lines above TARGETS
 * @param {{ name: string, pass: boolean | null, detail: string }[]} targets null: could not be judged (a peer was not measured), never a pass
 * @param {Record<string, unknown>} report
 * @param {number} began performance.now() at the start
 */
export function finish(out, targets, report, began) {
  const totalSeconds = Math.round((performance.now() - began) / 1000);
  const lines = [
    ...out,
    "",
    "TARGETS",
    ...(targets.length === 0 ? ["  (none in this section: its figures are read, not judged)"] : []),
    ...targets.map(
      (target) => `  ${(target.pass === null ? "UNJUDGED" : target.pass ? "PASS" : "MISS").padEnd(8)}  ${target.name.padEnd(42)} ${target.detail}`,
    ),
    "",
    `total ${totalSeconds} s`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
  writeFileSync(
    path.join(ROOT, "test-results/bench.json"),
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length, ...report, targets, totalSeconds }, null, 2)}\n`,
  );
  log("wrote test-results/bench.json");
  if (STRICT && targets.some((target) => target.pass !== true)) process.exitCode = 2;
}
