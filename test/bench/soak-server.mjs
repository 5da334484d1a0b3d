// The soak's server: sendmock started in-process from the built library, so that the process
// can report its own heap. Prints `sendmock-soak listening on URL`, then every second one JSON
// line {"uptime_s", "heapUsed", "heapTotal", "rss"} (bytes, from process.memoryUsage()).
// Started with `node --expose-gc`, every fifth line also has "heapUsedAfterGc": heapUsed right
// after a full collection, that is the live heap without the garbage of the moment.
// Log lines of the mock go to stderr, so stdout carries only the URL line and the samples.
// Usage: node [--expose-gc] test/bench/soak-server.mjs [capacity]   (port 0, capacity 10,000 by default)

import { startSendMock } from "../../dist/index.js";

const SAMPLE_INTERVAL_MS = 1000;
// A full collection of a 10,000-message heap pauses the server for about 0.2 s on 2 busy
// cores: one every 5 s costs the load a few percent, one a second would cost a fifth.
const COLLECT_EVERY_SAMPLES = 5;
const capacity = Number(process.argv[2] ?? 10_000);
/** @type {(() => void) | undefined} */
const collectGarbage = /** @type {{ gc?: () => void }} */ (globalThis).gc;

const mock = await startSendMock({ port: 0, capacity, log: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(`sendmock-soak listening on ${mock.url}\n`);

const started = performance.now();
let samples = 0;
const sampler = setInterval(() => {
  samples += 1;
  const { heapUsed, heapTotal, rss } = process.memoryUsage();
  /** @type {Record<string, number>} */
  const sample = { uptime_s: Math.round((performance.now() - started) / 100) / 10, heapUsed, heapTotal, rss };
  if (collectGarbage && samples % COLLECT_EVERY_SAMPLES === 0) {
    collectGarbage();
    sample.heapUsedAfterGc = process.memoryUsage().heapUsed;
  }
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}, SAMPLE_INTERVAL_MS);

const stop = () => {
  clearInterval(sampler);
  void mock.close().then(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
