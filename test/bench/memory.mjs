// The memory section: sendmock's RSS at 10k and 100k captured messages beside their JSON, with
// the default heap and a capped one, and the section BENCH_ONLY=memory.

import os from "node:os";
import { log, MB } from "./lib/knobs.mjs";
import { fill, listMessages } from "./lib/load.mjs";
import { finish, int, mb } from "./lib/report.mjs";
import { configWithCapacity, makeTempDir, sendmock } from "./lib/sendmock.mjs";
import { memoryOf, stopServer } from "./lib/servers.mjs";
import { untilQuiet, untilSteady } from "./lib/settle.mjs";

/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

const MEMORY_SMALL = 10_000;
export const MEMORY_LARGE = 100_000;
// The knob docs/performance.md gives for large capacities: V8 lets its heap grow to a few times
// the live heap before collecting, and RSS follows the heap. Since message and journal text went
// off the heap (src/stores/memory/text-arena.ts), 100k messages with their journal entries take
// ~58 MB of live heap (~0.6 KB each, after a full collection) and ~2.7 KB each of text outside it:
// RSS 605 MB at 100k by default, 471 MB with this cap (before: 527 MB live, RSS 1,458 MB).
export const HEAP_CAP_FLAG = "--max-old-space-size=1024";

/** Bytes of JSON per captured message, from the newest 10,000 (or fewer). */
async function jsonPerMessage(url) {
  const { messages } = await listMessages(url, "limit=10000");
  const size = messages.reduce((sum, message) => sum + JSON.stringify(message).length, 0);
  return { perMessage: size / messages.length, sampled: messages.length };
}

/** @param {string} tempDir the run's, see BenchRun @param {string[]} nodeFlags */
export async function measureMemory(tempDir, nodeFlags = []) {
  const server = await sendmock(["--config", configWithCapacity(tempDir, MEMORY_LARGE)], nodeFlags);
  try {
    /** @param {number} count */
    const point = async (count) => {
      await untilSteady(server.pid);
      const memory = memoryOf(server.pid);
      const { total } = await listMessages(server.url, "limit=1");
      if (total !== count) throw new Error(`expected ${count} captured messages, found ${total}`);
      const json = await jsonPerMessage(server.url);
      const jsonBytes = Math.round(json.perMessage * count);
      const targetBytes = 3 * jsonBytes + 100 * MB;
      return { messages: count, rssBytes: memory.rss, peakRssBytes: memory.peak, jsonBytes, jsonBytesPerMessage: Math.round(json.perMessage), targetBytes };
    };
    const small = await fill(server.url, MEMORY_SMALL);
    log(`memory: ${MEMORY_SMALL} sends in ${small.seconds.toFixed(1)} s`);
    const at10k = await point(MEMORY_SMALL);
    const large = await fill(server.url, MEMORY_LARGE - MEMORY_SMALL);
    log(`memory: ${MEMORY_LARGE - MEMORY_SMALL} more sends in ${large.seconds.toFixed(1)} s`);
    const at100k = await point(MEMORY_LARGE);
    return { at10k, at100k };
  } finally {
    await stopServer(server);
  }
}

/** A line for each of the points measured with the default heap. @param {Awaited<ReturnType<typeof measureMemory>>} memory */
export function memoryLines(memory) {
  return [memory.at10k, memory.at100k].map(
    (point) =>
      `memory at ${int(point.messages)} messages: RSS ${mb(point.rssBytes)} (peak ${mb(point.peakRssBytes)}), JSON ${mb(point.jsonBytes)} (${int(point.jsonBytesPerMessage)} B/message), target 3 x JSON + 100 MB = ${mb(point.targetBytes)}`,
  );
}

/** The memory target, judged at 100k with the default heap. @param {Awaited<ReturnType<typeof measureMemory>>} memory */
export function memoryTarget(memory) {
  const m100 = memory.at100k;
  return {
    name: "memory <= 3 x JSON + 100 MB at 100k",
    pass: m100.rssBytes <= m100.targetBytes,
    detail: `RSS ${mb(m100.rssBytes)} vs ${mb(m100.targetBytes)} (3 x ${mb(m100.jsonBytes)} + 100 MB)`,
  };
}

/** BENCH_ONLY=memory: the memory section alone (default heap, then the capped one), and the memory target. @param {BenchRun} bench */
export async function memoryOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  log(`memory only; node ${process.version}, ${os.cpus().length} cores`);
  const memory = await measureMemory(bench.tempDir);
  await untilQuiet();
  log(`memory with node ${HEAP_CAP_FLAG}`);
  const capped = await measureMemory(bench.tempDir, [HEAP_CAP_FLAG]).catch((/** @type {unknown} */ error) => ({
    failed: error instanceof Error ? error.message.split("\n")[0] : String(error),
  }));
  const lines = memoryLines(memory);
  lines.push(
    "at100k" in capped
      ? `memory at ${int(capped.at100k.messages)} messages with node ${HEAP_CAP_FLAG}: RSS ${mb(capped.at100k.rssBytes)} (peak ${mb(capped.at100k.peakRssBytes)})`
      : `memory with node ${HEAP_CAP_FLAG}: FAILED (${capped.failed})`,
  );
  finish(["", ...lines], [memoryTarget(memory)], { memory, memoryHeapCapped: { nodeFlag: HEAP_CAP_FLAG, ...capped } }, began);
}
