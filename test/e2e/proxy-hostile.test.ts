// `sendmock proxy` through the real CLI in front of an upstream that tries to hurt it (issue 43,
// rows 10, 11, 16, 18): huge and compressed bodies are read only up to --max-body-bytes and answered
// with a 502 saying so, a broken answer is told apart from an unreachable upstream, and the
// upstream's escape sequences reach the log on stderr escaped.

import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type CliRun } from "../support/cli-process.js";
import { closeMidBody, endlessBody, ESCAPES, gzipBomb, startHostileTarget, tooManyHeaders, type HostileTarget } from "../support/hostile-target.js";
import { runningPeakMb } from "../support/peak-memory.js";

const running: ChildProcessWithoutNullStreams[] = [];
let upstream: HostileTarget;
let proxy: CliRun & { url: string };

/** Each send's template_id says what the upstream does with it. */
beforeAll(async () => {
  upstream = await startHostileTarget((_req, body, res, count) => {
    const { template_id: behaviour } = JSON.parse(body) as { template_id: string };
    if (behaviour === "endless") endlessBody(res, 200, 128, count);
    else if (behaviour === "bomb") gzipBomb(res, 200, 256, count);
    else if (behaviour === "mid-body") closeMidBody(res, 200);
    else if (behaviour === "headers") tooManyHeaders(res, 200);
    else if (behaviour === "escapes") {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ success: false, error: { code: "server_error", message: `upstream down${ESCAPES}` } }));
    } else {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ success: true, message_id: "up_1", status: "queued", [`member${ESCAPES}`]: 1 }));
    }
  });
  const started = runCli(["proxy", "--target", upstream.url, "--port", "0", "--strict", "--contract", "sendmock"], running);
  const url = await new Promise<string>((resolve, reject) => {
    started.child.stdout.on("data", () => {
      const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(started.stdout());
      if (match?.[1]) resolve(match[1]);
    });
    void started.exited.then((code) => reject(new Error(`exited with ${String(code)}: ${started.stderr()}`)));
  });
  proxy = { ...started, url };
});

afterAll(async () => {
  for (const child of running) child.kill("SIGKILL");
  await upstream.close();
});

async function send(templateId: string): Promise<{ status: number; body: { success?: boolean; error?: { code?: string; message?: string } } }> {
  const response = await fetch(`${proxy.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer sk_test_hostile_1234" },
    body: JSON.stringify({ to: "ada@example.com", template_id: templateId, data: { name: "Ada" } }),
  });
  return { status: response.status, body: (await response.json()) as { success?: boolean; error?: { code?: string; message?: string } } };
}

/** A proxy at rest peaks at ~125 MB on this machine; four 300 MB bodies read whole took 3.5-4.5 GB. */
const PEAK_BOUND_MB = 400;

describe("sendmock proxy in front of a hostile upstream", { timeout: 30_000 }, () => {
  it.each([
    ["bodies of 128 MB", "endless", 4],
    ["a gzip bomb of 256 MB (256 KB on the wire)", "bomb", 2],
  ])("reads no more than --max-body-bytes of %s, answers each client 502 saying so, and stays small", async (_what, behaviour, clients) => {
    const responses = await Promise.all(Array.from({ length: clients }, () => send(behaviour)));
    for (const response of responses) {
      expect(response.status).toBe(502);
      expect(response.body).toEqual({
        success: false,
        error: {
          code: "server_error",
          message: `Proxy error: the upstream ${upstream.url}/send answered 200 with a body over 1048576 bytes (--max-body-bytes): not passed on`,
        },
      });
    }
    expect(runningPeakMb(proxy.child.pid ?? 0)).toBeLessThan(PEAK_BOUND_MB);
    // Each connection was dropped: the upstream could not write more than a few socket buffers past the bound.
    for (const bytes of upstream.written) expect(bytes).toBeLessThan(32 * 1024 * 1024);
  });

  it.each([
    ["closes the connection mid-body", "mid-body", "answered 200, then broke: the connection closed mid-body"],
    ["sends 3000 headers", "headers", "answered, then broke: headers larger than the client reads"],
  ])("says the upstream that %s answered, then broke, not that it could not be reached", async (_what, behaviour, words) => {
    const response = await send(behaviour);
    expect(response.status).toBe(502);
    expect(response.body.error?.message).toContain(`Proxy error: the upstream ${upstream.url}/send ${words}`);
  });

  it("writes the upstream's escape sequences escaped in its problem lines on stderr", async () => {
    const down = await send("escapes");
    expect(down.status).toBe(500);
    const broken = await send("escaped-member");
    expect(broken.status).toBe(502);
    await expect.poll(() => proxy.stderr()).toContain("answered 502 contract_violation");
    expect(proxy.stderr()).toContain("POST /send answered 500 server_error: upstream down\\u001b]0;owned\\u0007\\u001b[2J");
    expect(proxy.stderr()).toContain("/response/body/member\\u001b]0;owned\\u0007\\u001b[2J");
    // eslint-disable-next-line no-control-regex
    expect(proxy.stderr()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});
