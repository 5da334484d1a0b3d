// The webhooks section (BENCH_ONLY=webhooks): POST /send with one webhook configured against the
// same send without.

import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONNECTIONS, DURATION, log, RUNS, SEND_HEADERS, VALID_BODY, WARMUP } from "./lib/knobs.mjs";
import { roundRobin } from "./lib/load.mjs";
import { finish, int, table } from "./lib/report.mjs";
import { baselineHttp, makeTempDir, sendmock } from "./lib/sendmock.mjs";
import { median, stopServer } from "./lib/servers.mjs";

/** @typedef {import("./lib/load.mjs").Scenario} Scenario */
/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

/** POST /send with one webhook may be at most this much slower than without (issue 16, item 7). */
const WEBHOOK_MAX_SLOWDOWN = 0.1;

/**
 * A config file with one webhook to `receiverUrl` and lifecycle steps 100 ms apart, so that
 * events fall due, and are delivered, while the sends go on.
 * @param {string} tempDir the run's, see BenchRun
 * @param {string} receiverUrl
 */
function configWithWebhook(tempDir, receiverUrl) {
  const file = path.join(tempDir, "webhook.yaml");
  writeFileSync(file, `lifecycle: { step_ms: 100 }\nwebhooks: [{ url: "${receiverUrl}" }]\n`);
  return file;
}

/**
 * BENCH_ONLY=webhooks: POST /send with one webhook configured (a bare node:http receiver on
 * loopback, in a child of its own) against the same send without, both --quiet, round-robin.
 * @param {BenchRun} bench
 */
export async function webhooksOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  const receiver = await baselineHttp();
  const load = { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 };
  try {
    // The same step for both: only the webhook differs.
    const stepOnly = path.join(bench.tempDir, "steps.yaml");
    writeFileSync(stepOnly, "lifecycle: { step_ms: 100 }\n");
    const scenarios = [
      { id: "send_without_webhook", label: "sendmock POST /send, --quiet, no webhook", start: () => sendmock(["--quiet", "--config", stepOnly]), load },
      {
        id: "send_with_webhook",
        label: "sendmock POST /send, --quiet, one webhook (loopback receiver)",
        start: () => sendmock(["--quiet", "--config", configWithWebhook(bench.tempDir, `${receiver.url}/send`)]),
        prepare: async (/** @type {string} */ url) => {
          // A delivery that succeeds before the run: the receiver is reachable and responds with a 2xx.
          await fetch(`${url}/send`, { method: "POST", headers: SEND_HEADERS, body: VALID_BODY });
          await fetch(`${url}/_mock/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"advance_ms": 1000}' });
          const { deliveries } = /** @type {{ deliveries: { status: number | null }[] }} */ (
            await (await fetch(`${url}/_mock/webhooks/deliveries?limit=1`)).json()
          );
          if (deliveries[0]?.status !== 200) throw new Error(`the webhook receiver was not reached before the run: ${JSON.stringify(deliveries)}`);
        },
        load,
      },
    ];
    log(
      `webhooks only: ${RUNS} run(s) x 2 scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
    );
    const outcomes = await roundRobin(/** @type {Scenario[]} */ (scenarios));
    const withoutRuns = outcomes.get("send_without_webhook") ?? [];
    const withRuns = outcomes.get("send_with_webhook") ?? [];
    const without = median(withoutRuns.map((o) => o.rps));
    const withHook = median(withRuns.map((o) => o.rps));
    // Judged on the ratio within each round-robin pair, then the median: the two servers of one
    // pair ran seconds apart, while this machine's throughput drifts by ±20% from minute to minute.
    const share = median(withRuns.map((o, index) => o.rps / (withoutRuns[index]?.rps ?? Number.NaN)));
    const cpuWithout = median(withoutRuns.map((o) => o.serverCpuUsPerRequest));
    const cpuWith = median(withRuns.map((o) => o.serverCpuUsPerRequest));
    const rows = [
      ["scenario", `req/s (median of ${RUNS})`, "vs no webhook (median of pairs)", "server CPU µs/send", "vs no webhook"],
      ["no webhook", int(without), "1.000x", int(cpuWithout), "1.000x"],
      ["one webhook", int(withHook), `${share.toFixed(3)}x`, int(cpuWith), `${(cpuWith / cpuWithout).toFixed(3)}x`],
    ];
    const targets = [
      {
        name: `send with a webhook >= ${(1 - WEBHOOK_MAX_SLOWDOWN).toFixed(1)} x without`,
        pass: share >= 1 - WEBHOOK_MAX_SLOWDOWN,
        detail: `${share.toFixed(3)}x, the median of ${RUNS} round-robin pairs (medians ${int(withHook)} vs ${int(without)} req/s)`,
      },
    ];
    finish(
      ["", "POST /send with one webhook configured vs without (lifecycle step 100 ms, receiver on loopback)", table(rows)],
      targets,
      { webhooks: { without, withWebhook: withHook, ratio: share, serverCpuUsPerSend: { without: cpuWithout, withWebhook: cpuWith } } },
      began,
    );
  } finally {
    await stopServer(receiver);
  }
}
