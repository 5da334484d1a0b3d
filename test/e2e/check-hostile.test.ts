// `sendmock check` through the real CLI against targets that try to hurt the run (issue 43, rows
// 12-15, 17, 18): huge and compressed bodies are read only up to --max-body-bytes, a silent target
// stops the run, escape sequences are printed escaped, a malformed key is never printed whole, and a
// target that answered and then broke is a failure (exit 1), not a target that cannot be reached.

import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, it } from "vitest";
import { CLI, ROOT } from "../support/cli-process.js";
import {
  closeMidBody,
  endlessBody,
  ESCAPES,
  gzipBomb,
  startHostileTarget,
  tooManyHeaders,
  type HostileHandler,
  type HostileTarget,
} from "../support/hostile-target.js";
import { peakRssArgs, writtenPeakMb } from "../support/peak-memory.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The child's peak resident memory, in MB. */
  peakMb: number;
}

/** The test's own `onTestFinished`: the tests run concurrently, so each cleans up after itself. */
type OnFinished = (cleanup: () => Promise<void>) => void;

async function check(args: string[]): Promise<Run> {
  const peakFile = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-peak-")), "peak");
  const env = { ...process.env };
  delete env.SENDMOCK_API_KEY;
  const child = spawn(process.execPath, [...peakRssArgs(peakFile), CLI, "check", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { code, stdout, stderr, peakMb: await writtenPeakMb(peakFile) };
}

async function target(onFinished: OnFinished, handler: HostileHandler): Promise<HostileTarget> {
  const started = await startHostileTarget(handler);
  onFinished(() => started.close());
  return started;
}

/** A check run on this machine peaks at ~100 MB; a body read whole took 1.6-4 GB. */
const PEAK_BOUND_MB = 300;

/** Any C0 or C1 control character but the line feed, DEL among them: what a terminal would act on. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe.concurrent("sendmock check against a hostile target", { timeout: 30_000 }, () => {
  it.for([
    ["error bodies of 128 MB", (res: Parameters<HostileHandler>[2], count: (bytes: number) => void) => endlessBody(res, 400, 128, count)],
    ["a gzip bomb of 256 MB (256 KB on the wire)", (res: Parameters<HostileHandler>[2], count: (bytes: number) => void) => gzipBomb(res, 400, 256, count)],
  ] as const)(
    "reads no more than --max-body-bytes of %s, drops the connection, fails the case in words (exit 1) and stays small",
    async ([, respond], { expect, onTestFinished }) => {
      const hostile = await target(onTestFinished, (_req, _body, res, count) => respond(res, count));
      const run = await check([hostile.url, "--generate", "0"]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toBe("");
      expect(run.stdout).toContain(
        "✗ missing to … 400 ((answer): expected a whole answer, actual answered 400 with a body over --max-body-bytes (1048576 bytes): not read further)",
      );
      expect(run.stdout).toMatch(/^0 passed, 9 failed$/m);
      expect(run.peakMb).toBeLessThan(PEAK_BOUND_MB);
      // The connection was dropped: the target could not write more than a few socket buffers past the bound.
      for (const bytes of hostile.written) expect(bytes).toBeLessThan(32 * 1024 * 1024);
    },
  );

  it("stops a target that accepts and never answers after 3 timeouts in a row: exit 1, a line saying so and the flags that change it", async ({
    expect,
    onTestFinished,
  }) => {
    const silent = await target(onTestFinished, () => undefined);
    const run = await check([silent.url, "--timeout", "500"]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    // The sample-data probe and the first two cases, nothing after them (a request the timeout cut before it arrived is not listed).
    const received = silent.received.map((request) => `${request.method} ${request.path}`);
    expect(["GET /_mock/templates/welcome", "POST /send", "POST /send"].slice(0, received.length)).toEqual(received);
    expect(run.stdout).toContain("✗ missing to … no answer ((answer): expected an answer, actual timed out after 500 ms)");
    expect(run.stdout).toMatch(/^\? missing data … - inconclusive \(not sent: the target stopped answering \(3 requests in a row timed out\)\)$/m);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.at(-2)).toMatch(
      /^inconclusive: \d+ requests without a judgeable answer: \d+ not sent: the target stopped answering \(--max-timeouts requests in a row timed out; raise --timeout, or --max-timeouts 0 never stops\)$/,
    );
    expect(lines.at(-1)).toBe("0 passed, 2 failed");
  });

  it("prints escape sequences from the target's answers escaped, in the report and the JUnit file", async ({ expect, onTestFinished }) => {
    const hostile = await target(onTestFinished, (_req, _body, res) => {
      res.writeHead(400, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ success: false, error: { code: `bad${ESCAPES}`, message: `no${ESCAPES}` }, [`member${ESCAPES}`]: 1 }));
    });
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const run = await check([hostile.url, "--contract", "sendmock", "--generate", "5", "--junit", junit]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stdout).toContain("/body/member\\u001b]0;owned\\u0007\\u001b[2J");
    const xml = await readFile(junit, "utf8");
    expect(xml).not.toMatch(CONTROL);
    expect(xml).toContain("member\\u001b]0;owned\\u0007\\u001b[2J");
  });

  it("never prints an API key a header cannot carry, only its last 4 characters: a usage error", async ({ expect }) => {
    const run = await check(["http://127.0.0.1:1", "--api-key", "sk_live_first_part\nsecond_part_9f3a"]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^sendmock: --api-key …9f3a holds a character an Authorization header cannot carry \(a line break\)/);
    expect(run.stdout + run.stderr).not.toContain("first_part");
    expect(run.stdout + run.stderr).not.toContain("second_part");
  });

  it.for([
    [
      "closes the connection mid-body",
      (res: Parameters<HostileHandler>[2]) => closeMidBody(res, 400),
      "answered 400, then broke: the connection closed mid-body",
    ],
    ["sends 3000 headers", (res: Parameters<HostileHandler>[2]) => tooManyHeaders(res, 400), "answered, then broke: headers larger than the client reads"],
  ] as const)(
    "a target that %s answered, then broke: a failed run (exit 1), not one that cannot be reached",
    async ([, respond, words], { expect, onTestFinished }) => {
      const hostile = await target(onTestFinished, (_req, _body, res) => respond(res));
      const run = await check([hostile.url, "--generate", "0"]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toBe("");
      expect(run.stdout).toContain(words);
      expect(run.stdout).toMatch(/^0 passed, 9 failed$/m);
    },
  );

  it("replays a generated body's exact bytes with its curl line, control characters escaped in the line", async ({ expect, onTestFinished }) => {
    // Every request is a server error, so not_a_server_error fails on the first one, shrunk to the smallest.
    const hostile = await target(onTestFinished, (_req, _body, res) => res.writeHead(500, { "Content-Type": "application/json" }).end("{}"));
    // A placeholder name with a C1 control (U+009B, a terminal's CSI) that JSON does not escape: every generated body carries it.
    const run = await check([hostile.url, "--generate", "5", "--seed", "9", "--shrink-time-ms", "0", "--data", '{"name\\u009b[2J":"Ada"}']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).not.toMatch(CONTROL);
    const bodies = run.stdout
      .split("\n")
      .filter((line) => line.startsWith("    curl "))
      .map((curl) => /--data-binary (.*)$/.exec(curl)?.[1])
      .filter((body) => body?.includes("name") === true);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      const replayed = spawnSync("bash", ["-c", `printf %s ${body ?? ""}`], { encoding: "utf8" }).stdout;
      expect(replayed).toContain("name\u009b[2J");
      expect(hostile.received.map((request) => request.body)).toContain(replayed);
    }
  });
});
