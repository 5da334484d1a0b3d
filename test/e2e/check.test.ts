// `sendmock check` through the real CLI: against sendmock itself (both shapes), against a
// deliberately broken implementation, the generated requests' output and replay, the JUnit file,
// and the usage errors. The named checks themselves are proven in test/http/check-generative.test.ts.

import { spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, it, type ExpectStatic } from "vitest";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { brokenSendApi } from "../support/broken-send-api.js";
import { startSpecService } from "../support/spec-service.js";
import { CLI, ROOT } from "../support/cli-process.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function withoutApiKey(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SENDMOCK_API_KEY;
  return env;
}

function check(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [CLI, "check", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: withoutApiKey() });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** The test's own `onTestFinished`: the tests run concurrently, so each cleans up after itself. */
type OnFinished = (cleanup: () => Promise<void>) => void;

async function mock(responseShape: "a" | "b", onFinished: OnFinished): Promise<RunningSendMock> {
  const started = await startSendMock({ port: 0, responseShape, watchTemplates: false });
  onFinished(() => started.close());
  return started;
}

async function listen(onFinished: OnFinished, handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A send API with four defects: 200 to a send without `to`, a success without `message_id`,
 * errors without a code, and 500 to malformed JSON.
 */
function brokenServer(onFinished: OnFinished): Promise<string> {
  return listen(onFinished, (req, raw, res) => {
    const [status, body] = brokenResponse(req, raw);
    res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
}

function brokenResponse(req: IncomingMessage, raw: string): [number, unknown] {
  if (req.url !== "/send") return [404, { success: false, error: { code: "not_found", message: "no" } }];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return [500, { success: false, error: { code: "server_error", message: "parse crashed" } }];
  }
  if (body.to === undefined) return [200, { success: true, message_id: "msg_1", status: "queued" }];
  const ok = req.headers.authorization?.startsWith("Bearer ") === true && req.headers["content-type"] === "application/json";
  if (ok && typeof body.to === "string" && body.to.endsWith("@example.com") && Object.keys(body).length === 3) {
    return [200, { success: true, status: "queued" }];
  }
  return [400, { success: false, error: { message: "x" } }];
}

function expectOneCleanLine(expect: ExpectStatic, stderr: string): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).toMatch(/^sendmock: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe.concurrent("sendmock check against sendmock itself", { timeout: 30_000 }, () => {
  for (const shape of ["a", "b"] as const) {
    it(`passes every case in shape ${shape} under both contracts, delivers nothing without --allow-send, and writes JUnit naming the contract`, async ({
      expect,
      onTestFinished,
    }) => {
      const target = await mock(shape, onTestFinished);
      for (const [contract, passed, label] of [
        // The published contract never says unknown fields are refused: that case is sendmock's own promise.
        ["published", 9, "published (openapi/service.yaml)"],
        ["sendmock", 10, "sendmock (openapi/send.yaml)"],
      ] as const) {
        const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
        const run = await check([target.url, "--contract", contract, "--generate", "0", "--shape", shape, "--api-key", "secret-key-abcd", "--junit", junit]);
        expect(run.code, run.stdout + run.stderr).toBe(0);
        expect(run.stdout.split("\n")[0]).toBe(`sendmock check ${target.url}/send against the contract ${label} (API key …abcd, shape ${shape})`);
        expect(run.stdout).toMatch(new RegExp(`^${passed} passed, 0 failed$`, "m"));
        expect(run.stdout).not.toContain("✗");
        expect(run.stdout).toMatch(/✓ missing to … 400\n/);
        expect(run.stdout).toMatch(/- valid send … skipped/);
        expect(run.stdout).toMatch(
          contract === "published" ? /- unknown field … skipped \(the contract allows members it does not name\)/ : /✓ unknown field … 400/,
        );
        expect(run.stdout + run.stderr).not.toContain("secret-key-abcd");

        const xml = await readFile(junit, "utf8");
        expect(xml).toContain(`tests="11" failures="0" errors="0" skipped="${11 - passed}"`);
        expect(xml).toContain(`<property name="contract" value="${label}"/>`);
        expect(xml).not.toContain("<failure");
        expect(xml).toMatch(/name="valid send"[^>]*>\s*<skipped message="delivers mail/);
      }
      expect((await target.outbox.list()).total).toBe(0);
    });

    it(`with --allow-send sends the valid send, and one message twice with one Idempotency-Key, to --recipient, in shape ${shape}`, async ({
      expect,
      onTestFinished,
    }) => {
      const target = await mock(shape, onTestFinished);
      const run = await check([target.url, "--contract", "sendmock", "--generate", "0", "--allow-send", "--recipient", "qa@example.com"]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^12 passed, 0 failed$/m);
      expect(run.stdout).toMatch(/✓ valid send … 200\n/);
      expect(run.stdout).toMatch(/✓ idempotency key replay … 200\n/);
      // The valid send and the first of the pair: the second response was a replay.
      const all = await target.outbox.list();
      expect(all.total).toBe(2);
      expect(all.messages.map((message) => message.to)).toEqual(["qa@example.com", "qa@example.com"]);
    });
  }

  it("fails every answer in the other shape with --shape b against a shape-a mock", async ({ expect, onTestFinished }) => {
    const target = await mock("a", onTestFinished);
    const run = await check([target.url, "--contract", "sendmock", "--generate", "0", "--shape", "b"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("✗ missing to … 400 (/body: expected shape b, actual shape a)");
    expect(run.stdout).toMatch(/^0 passed, 10 failed$/m);
  });
});

describe.concurrent("sendmock check against a broken implementation", { timeout: 30_000 }, () => {
  it("reports each defect with its case, pointer, expected and actual, writes JUnit, and exits 1", async ({ expect, onTestFinished }) => {
    const target = await brokenServer(onTestFinished);
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const run = await check([target, "--contract", "sendmock", "--generate", "0", "--allow-send", "--recipient", "qa@example.com", "--junit", junit]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const out = run.stdout;
    // wrong status
    expect(out).toContain("✗ missing to … 200 (expected 4xx)");
    expect(out).toMatch(/\/status: the server accepted a request it must refuse \(expected 4xx, actual 200\)/);
    // success without message_id
    expect(out).toMatch(/✗ valid send … 200 \(\/body\/message_id: expected a non-empty message_id or email_id, actual absent\)/);
    // error without a code
    expect(out).toMatch(/✗ missing data … 400 \(\/body\/error\/code: expected a code, actual absent\)/);
    // 500 on bad input
    expect(out).toContain("✗ malformed JSON … 500 (expected 4xx)");
    expect(out).toMatch(/^malformed JSON +\| 500 +\| failed +\| \/status: /m);
    expect(out).toMatch(/^0 passed, 11 failed$/m);
    // A target that sends again under a new id does not support keys: said so, not failed.
    expect(out).toContain("- idempotency key replay … skipped (not supported: the target sent the message again under a new id)");

    const xml = await readFile(junit, "utf8");
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    expect(xml).toContain('<testsuite name="sendmock check" tests="12" failures="11" errors="0" skipped="1"');
    expect(xml.match(/<testcase /g)).toHaveLength(12);
    expect(xml.match(/<failure /g)).toHaveLength(11);
    expect(xml).toContain('<testcase classname="sendmock check" name="missing to"');
    expect(xml).toContain('message="/status: the server accepted a request it must refuse (expected 4xx, actual 200)"');
    expect(xml).toContain('message="/body/error/code: code is required (expected a code, actual absent)"');
    // Balanced and escaped: no raw ampersands or stray angle brackets inside attributes.
    expect(xml.match(/<testcase /g)?.length).toBe(xml.match(/<\/testcase>/g)?.length);
    expect(xml).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
  });

  it("fails a case whose answer never comes, after --timeout", async ({ expect, onTestFinished }) => {
    const target = await listen(onTestFinished, () => undefined);
    const run = await check([target, "--generate", "0", "--timeout", "150"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("✗ missing to … no answer ((answer): expected an answer, actual timed out after 150 ms)");
  });
});

describe.concurrent("sendmock check --generate through the CLI", { timeout: 30_000 }, () => {
  it("prints the seed, a line per named check and the totals, writes one JUnit test case per check, and no progress when stderr is not a terminal", async ({
    expect,
    onTestFinished,
  }) => {
    const target = await mock("a", onTestFinished);
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const run = await check([target.url, "--generate", "20", "--junit", junit]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\d+ \+ 20 requests generated from the contract \(coverage, then random\), seed \d+ \(replay: --seed \d+\)$/m);
    expect(run.stdout).toMatch(/^✓ not_a_server_error … \d+ requests$/m);
    expect(run.stdout).toContain("- max_response_time … skipped (needs --max-response-ms)");
    expect(run.stdout).toContain("- positive_data_acceptance … skipped (sends mail: needs --allow-send --recipient ADDR)");
    expect(run.stdout).toMatch(/^17 passed, 0 failed$/m);
    expect(run.stderr).toBe("");
    const xml = await readFile(junit, "utf8");
    for (const name of ["not_a_server_error", "status_code_conformance", "unsupported_method", "max_response_time", "positive_data_acceptance"]) {
      expect(xml.match(new RegExp(`<testcase classname="sendmock check" name="${name}"`, "g"))).toHaveLength(1);
    }
  });

  it("writes real JUnit times: the run's wall time for the suite, each case's and each named check's own, pacing included", async ({
    expect,
    onTestFinished,
  }) => {
    const target = await mock("a", onTestFinished);
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const started = performance.now();
    const run = await check([target.url, "--generate", "20", "--rate-limit", "40/s", "--junit", junit]);
    const outsideSeconds = (performance.now() - started) / 1000;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const xml = await readFile(junit, "utf8");
    const suite = Number(/<testsuite [^>]*time="([\d.]+)"/.exec(xml)?.[1]);
    const cases = new Map(
      [...xml.matchAll(/<testcase classname="sendmock check" name="([^"]+)" time="([\d.]+)"/g)].map((match) => [match[1], Number(match[2])]),
    );
    // Some 30 requests paced at 40 a second: most of a second of pacing the times must hold.
    expect(suite).toBeGreaterThan(0.5);
    expect(suite).toBeLessThanOrEqual(outsideSeconds);
    expect(cases.get("not_a_server_error")).toBeGreaterThan(0);
    expect(cases.get("missing to")).toBeGreaterThan(0);
    const fixed = [...cases].filter(([name]) => !/^[a-z_]+$/.test(name ?? "")).reduce((sum, [, seconds]) => sum + seconds, 0);
    expect(fixed).toBeLessThanOrEqual(suite);
  });

  it("names a broken server's failing check with its smallest request and curl line, exits 1, and replays the same with --seed", async ({
    expect,
    onTestFinished,
  }) => {
    const target = await brokenSendApi("accepts a number as to");
    onTestFinished(() => target.close());
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const runs = [
      await check([target.url, "--contract", "sendmock", "--generate", "15", "--seed", "77", "--junit", junit]),
      await check([target.url, "--contract", "sendmock", "--generate", "15", "--seed", "77"]),
    ];
    const failure = (stdout: string) => /^✗ negative_data_rejection[^]*?(?=^\S)/m.exec(stdout)?.[0];
    expect(runs[0]?.code, runs[0]?.stdout).toBe(1);
    expect(failure(runs[0]?.stdout ?? "")).toContain('    smallest failing request: (to: a number) POST /send {"to":0,');
    expect(failure(runs[0]?.stdout ?? "")).toMatch(/^ {4}curl -sS -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/send' -H "Authorization: Bearer \$SENDMOCK_API_KEY"/m);
    expect(runs[0]?.stdout).toContain("seed 77 (replay: --seed 77)");
    expect(failure(runs[1]?.stdout ?? "")).toBe(failure(runs[0]?.stdout ?? ""));
    const xml = await readFile(junit, "utf8");
    expect(xml).toMatch(
      /<testcase classname="sendmock check" name="negative_data_rejection"[^>]*>\s*<failure message="\/status: a request the contract forbids \(to: a number\)/,
    );
    expect(xml).toContain("smallest failing request: (to: a number)");
  });
});

describe.concurrent("sendmock check against a service that is not sendmock", { timeout: 30_000 }, () => {
  it("a rate-limited service: exit 1, one line saying how many requests were rate limited and the flag that helps, an <error> in JUnit", async ({
    expect,
    onTestFinished,
  }) => {
    const target = await startSpecService("rate-limited", { rateLimit: { requests: 3, windowSeconds: 3600 } });
    onTestFinished(() => target.close());
    const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-check-")), "report.xml");
    const startedAt = performance.now();
    const run = await check([target.url, "--generate", "0", "--junit", junit]);
    const runSeconds = (performance.now() - startedAt) / 1000;
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout.split("\n")[0]).toContain("against the contract published (openapi/service.yaml)");
    // The service asks for the seconds left in its hour-long window: 3600 unless the run took
    // over a second between its first request and this one (it said 3599 on a host at load 13).
    const wait = /^\? invalid recipient … 429 inconclusive \(rate limited: 429 asking for a wait of (\d+) s, over --max-retry-wait\)$/m.exec(run.stdout);
    expect(wait, run.stdout).not.toBeNull();
    expect(Number(wait?.[1])).toBeLessThanOrEqual(3600);
    expect(Number(wait?.[1])).toBeGreaterThanOrEqual(3600 - Math.ceil(runSeconds));
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.at(-2)).toMatch(/^inconclusive: 4 requests without a judgeable answer: 4 rate limited \(pace the run with --rate-limit N\/s or N\/m/);
    expect(lines.at(-1)).toBe("5 passed, 0 failed");
    const xml = await readFile(junit, "utf8");
    expect(xml).toContain('tests="12" failures="0" errors="5" skipped="2"');
    expect(xml).toMatch(/name="invalid recipient"[^>]*>\s*<error message="inconclusive: rate limited/);
    expect(xml).toMatch(/name="judgeable answers"[^>]*>\s*<error message="inconclusive: 4 requests/);
  });

  it("--contract FILE judges by that document and names it on the first line", async ({ expect, onTestFinished }) => {
    const target = await startSpecService("conforming");
    onTestFinished(() => target.close());
    const file = path.join(ROOT, "openapi", "service.yaml");
    const run = await check([target.url, "--contract", file, "--generate", "5"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toContain(`against the contract ${file} (`);
  });
});

describe.concurrent("sendmock check usage errors exit 2 with one clear line", { timeout: 30_000 }, () => {
  it("--allow-send without --recipient", async ({ expect }) => {
    const run = await check(["http://127.0.0.1:1", "--allow-send"]);
    expect(run.code).toBe(2);
    expectOneCleanLine(expect, run.stderr);
    expect(run.stderr).toContain("--allow-send needs --recipient");
    expect(run.stdout).toBe("");
  });

  it("a URL that is not one", async ({ expect }) => {
    const run = await check(["not a url"]);
    expect(run.code).toBe(2);
    expectOneCleanLine(expect, run.stderr);
    expect(run.stderr).toContain("not a URL");
  });

  it("an unreachable host", async ({ expect }) => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const run = await check([`http://127.0.0.1:${port}`]);
    expect(run.code).toBe(2);
    expectOneCleanLine(expect, run.stderr);
    expect(run.stderr).toContain(`cannot reach http://127.0.0.1:${port}/send: ECONNREFUSED`);
    expect(run.stdout).not.toContain("✗");
  });

  for (const [flag, value] of [
    ["--generate", "lots"],
    ["--generate", "-1"],
    ["--seed", "1.5"],
    ["--max-response-ms", "0"],
    ["--shrink-time-ms", "soon"],
  ] as const) {
    it(`${flag} ${value}`, async ({ expect }) => {
      const run = await check(["http://127.0.0.1:1", flag, value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(flag);
      expect(run.stderr).toContain("must be a whole number");
    });
  }

  for (const [what, content, problem] of [
    ["a file that is not there", undefined, /no such file/],
    ["a file that is not OpenAPI", "hello: world\n", /--contract: .*contract\.yaml: /],
    ["a Swagger 2.0 document", JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths: {} }), /expected an OpenAPI 3\.0 or 3\.1 document/],
    [
      "an OpenAPI 3.0 document without POST /send",
      JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/mail": { post: { responses: { "200": { description: "ok" } } } } } }),
      /no POST \/send operation/,
    ],
  ] as const) {
    it(`--contract with ${what}`, async ({ expect }) => {
      const file = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-contract-")), "contract.yaml");
      if (content !== undefined) await writeFile(file, content);
      const run = await check(["http://127.0.0.1:1", "--contract", file]);
      expect(run.code).toBe(2);
      expectOneCleanLine(expect, run.stderr);
      expect(run.stderr).toMatch(problem);
      expect(run.stdout).toBe("");
    });
  }

  for (const [what, args, problem] of [
    [
      "--max-sends 0 with --allow-send",
      ["--allow-send", "--recipient", "qa@example.com", "--max-sends", "0"],
      /--max-sends 0 with --allow-send would send no real mail/,
    ],
    ["--max-sends without --allow-send", ["--max-sends", "5"], /--max-sends caps the real mail of --allow-send/],
    [
      "--skip-check naming no check",
      ["--skip-check", "not_a_server_eror"],
      /--skip-check: unknown check or case "not_a_server_eror" \(did you mean not_a_server_error\?\)/,
    ],
  ] as const) {
    it(what, async ({ expect }) => {
      const run = await check(["http://127.0.0.1:1", ...args]);
      expect(run.code).toBe(2);
      expectOneCleanLine(expect, run.stderr);
      expect(run.stderr).toMatch(problem);
      expect(run.stdout).toBe("");
    });
  }

  for (const [what, content, problem] of [
    ["that is not YAML", "- check: [\n", /^sendmock: --ignore .*waivers\.yaml, line \d+, column \d+: /],
    [
      "naming an unknown check",
      "- check: not_a_servr_error\n  reason: accepted\n",
      /line 1: unknown check "not_a_servr_error" \(did you mean not_a_server_error\?\)/,
    ],
    ["with a waiver without a reason", "- case: invalid-recipient\n", /line 1: case invalid-recipient needs a reason/],
  ] as const) {
    it(`--ignore with a file ${what}`, async ({ expect }) => {
      const file = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-waivers-")), "waivers.yaml");
      await writeFile(file, content);
      const run = await check(["http://127.0.0.1:1", "--ignore", file]);
      expect(run.code).toBe(2);
      expectOneCleanLine(expect, run.stderr);
      expect(run.stderr).toMatch(problem);
      expect(run.stdout).toBe("");
    });
  }

  it("--rate-limit that is not N/s or N/m", async ({ expect }) => {
    const run = await check(["http://127.0.0.1:1", "--rate-limit", "10/h"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--rate-limit");
    expect(run.stderr).toContain("must be N/s or N/m");
  });

  it("a bad flag value", async ({ expect }) => {
    const run = await check(["http://127.0.0.1:1", "--shape", "c"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--shape");
  });
});

describe("sendmock check --dry-run", { timeout: 30_000 }, () => {
  it("prints every request the run would send as a curl line, marks the ones that deliver mail, and sends nothing", async ({ expect, onTestFinished }) => {
    const service = await startSpecService("conforming");
    onTestFinished(() => service.close());
    const run = await check([
      service.url,
      "--dry-run",
      "--data",
      '{"name":"Ada"}',
      "--allow-send",
      "--recipient",
      "qa@example.com",
      "--max-sends",
      "3",
      "--generate",
      "5",
      "--seed",
      "8",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(service.received).toEqual([]);
    expect(run.stdout).toMatch(/^1\. missing to\n {3}curl -sS -i -X POST '.*\/send' -H "Authorization: Bearer \$SENDMOCK_API_KEY" /m);
    expect(run.stdout).toMatch(/^\d+\. valid send \[delivers mail\]$/m);
    const total = run.stdout.match(/^\d+\. /gm)?.length ?? 0;
    const delivering = run.stdout.match(/\[delivers mail\]$/gm)?.length ?? 0;
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe(
      `dry run: nothing was sent. ${total} requests would be sent (seed 8: run with --seed 8 to send exactly these); ${delivering} of them deliver mail, at most 3 of them accepted (--max-sends)`,
    );
  });
});
