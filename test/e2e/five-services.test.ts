// Issue 46's five services, as a CI engineer wrote them in Python from the provider's spec alone
// (test/support/send_service.py: 202 with an extra request_id, 401/403, 415/400/422/404/405 with Allow,
// a rolling per-second limit with 429 and Retry-After: 1), judged through the real CLI: the conforming
// one clean under `check`, `check --allow-send --max-sends 10` and `proxy`; each of the four bugs
// caught by `check --allow-send --max-sends 10` within its budget; B and D named through `proxy`; a
// run paced at the service's own 5/s drawing no 429.

import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../support/cli-process.js";
import { pythonServiceMissing, startPythonSendService, type PythonSendService, type PythonServiceVariant } from "../support/python-send-service.js";

const missing = pythonServiceMissing();
const running: ChildProcessWithoutNullStreams[] = [];
const services: PythonSendService[] = [];
afterAll(async () => {
  for (const child of running) child.kill();
  await Promise.all(services.map((service) => service.close()));
});

/** The services allow 5 a second; the runs of all five go at 100 (both sides), so that they take a second or two, not minutes. */
const FAST = 100;

async function service(variant: PythonServiceVariant, rate = FAST): Promise<PythonSendService> {
  const started = await startPythonSendService(variant, { rate });
  services.push(started);
  return started;
}

interface Checked {
  code: number | null;
  stdout: string;
  junit: string;
  service: PythonSendService;
}

/** `sendmock check` as the issue ran it, with the placeholders of the service's `welcome` template. */
async function check(variant: PythonServiceVariant, args: string[], rate = FAST): Promise<Checked> {
  const target = await service(variant, rate);
  const junit = path.join(await mkdtemp(path.join(os.tmpdir(), "sendmock-five-")), "check.xml");
  const run = runCli(
    [
      "check",
      target.url,
      "--api-key",
      `ci-key-${variant}`,
      "--data",
      '{"name":"Ada","company":"Acme"}',
      "--rate-limit",
      `${rate}/s`,
      "--junit",
      junit,
      ...args,
    ],
    running,
  );
  const code = await run.exited;
  return { code, stdout: run.stdout(), junit: await readFile(junit, "utf8"), service: target };
}

const SENDING = ["--allow-send", "--recipient", "qa@example.com", "--max-sends", "10", "--generate", "20", "--seed", "46", "--shrink-time-ms", "5000"];

/** The lines of the cases and checks that failed: `✗ name … status (…)`. */
const failedLines = (stdout: string): string[] => stdout.split("\n").filter((line) => line.startsWith("✗ "));
/**
 * The real mail a run cost: sends the service accepted to --recipient. Every other request goes to
 * example.invalid, which never resolves (RFC 2606): D accepts some of those, and they deliver nothing.
 */
const accepted = (target: PythonSendService): number =>
  target.received.filter((request) => request.status === 202 && request.body.includes('"to":"qa@example.com"')).length;
const limited = (target: PythonSendService): number => target.received.filter((request) => request.status === 429).length;

/** The report's line of real sends, checked against what the service itself accepted (its log lines may still be on their way). */
async function expectBudgetKept(run: Checked): Promise<void> {
  const used = Number(/^real sends: (\d+) of --max-sends 10 used/m.exec(run.stdout)?.[1]);
  expect(used).toBeGreaterThan(0);
  expect(used).toBeLessThanOrEqual(10);
  await vi.waitFor(() => expect(accepted(run.service)).toBe(used));
  expect(run.junit).toContain(`<property name="real sends" value="real sends: ${used} of --max-sends 10 used`);
  expect(limited(run.service)).toBe(0);
}

/** Runs `bash -c line` with the API key in the environment, as a person pastes a curl line. */
function bash(line: string): Promise<string> {
  const child = spawn("bash", ["-c", line], { env: { ...process.env, SENDMOCK_API_KEY: "ci-key-replay" } });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once("close", () => resolve(stdout)));
}

describe.skipIf(missing !== undefined)("the five services of issue 46, through the CLI", { timeout: 90_000 }, () => {
  let runs: Record<"plain" | "conforming" | "a" | "b" | "c" | "d" | "paced", Checked>;
  beforeAll(async () => {
    const [plain, conforming, a, b, c, d, paced] = await Promise.all([
      check("conforming", ["--generate", "20", "--seed", "46"]),
      check("conforming", SENDING),
      check("no-id-with-subject", SENDING),
      check("500-on-non-ascii-subject", SENDING),
      check("wrong-404-body", SENDING),
      check("data-optional", SENDING),
      // The service's own 5 a second, and --rate-limit 5/s: 13 requests, the battery and its three real sends.
      check("conforming", ["--allow-send", "--recipient", "qa@example.com", "--max-sends", "10", "--generate", "0"], 5),
    ]);
    runs = { plain, conforming, a, b, c, d, paced };
  }, 90_000);

  it("conforming: clean under check, and under check --allow-send --max-sends 10 within its budget", async () => {
    for (const run of [runs.plain, runs.conforming]) {
      expect(failedLines(run.stdout), run.stdout).toEqual([]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^\d+ passed, 0 failed$/m);
      expect(limited(run.service)).toBe(0);
    }
    expect(accepted(runs.plain.service)).toBe(0);
    await expectBudgetKept(runs.conforming);
    expect(runs.conforming.stdout).toMatch(/^✓ positive_data_acceptance … \d+ requests$/m);
  });

  it("A, B, C and D: each caught by check --allow-send --max-sends 10, by the check that names its bug", async () => {
    const { a, b, c, d } = runs;
    for (const run of [a, b, c, d]) {
      expect(run.code, run.stdout).toBe(1);
      await expectBudgetKept(run);
    }
    // A: the 202 to a send with a subject carries no message_id.
    expect(failedLines(a.stdout)).toEqual([expect.stringMatching(/^✗ response_schema_conformance … 202 /)]);
    expect(a.stdout).toMatch(/smallest failing request: \(valid, every optional field\) POST \/send .*"subject":"sendmock check"/);
    // B: a subject past ASCII is a 500 (not_a_server_error's alone, as a 5xx says nothing of the request).
    expect(failedLines(b.stdout)).toEqual([expect.stringMatching(/^✗ not_a_server_error … 500 /)]);
    // C: the unknown template's 404 body is neither error shape.
    expect(failedLines(c.stdout)).toEqual([expect.stringMatching(/^✗ unknown template … 404 /)]);
    expect(c.stdout).toMatch(/^unknown template +\| 404 +\| failed +\| \/body/m);
    // D: a send without data is taken.
    expect(failedLines(d.stdout)).toEqual([expect.stringMatching(/^✗ missing data … 202 /), expect.stringMatching(/^✗ negative_data_rejection … 202 /)]);
  });

  it("B's report prints the no-break space of its subject escaped, and its curl line replays the exact bytes", async () => {
    const { b } = runs;
    const reproduction = b.stdout.split("\n").find((line) => line.includes("smallest failing request: (valid, the subject")) ?? "";
    expect(reproduction).toContain("Zoë\\u00a0Ünïcødé");
    expect(b.stdout).not.toContain("\u00a0");
    expect(b.junit).toContain("Zoë\\u00a0Ünïcødé");
    expect(b.junit).not.toContain("\u00a0");
    const curl = b.stdout.split("\n").find((line) => line.includes("curl ") && line.includes("\\xc2\\xa0"));
    if (curl === undefined) throw new Error(`no curl line with the no-break space's bytes in:\n${b.stdout}`);
    const failed = b.service.received.filter((request) => request.status === 500);
    const answer = await bash(curl.trim());
    expect(answer).toMatch(/^HTTP\/1\.[01] 500/);
    await vi.waitFor(() => expect(b.service.received.filter((request) => request.status === 500)).toHaveLength(failed.length + 1));
    const replayed = b.service.received.filter((request) => request.status === 500).at(-1)?.body;
    expect(replayed).toContain("Zoë\u00a0Ünïcødé");
    expect(failed.map((request) => request.body)).toContain(replayed);
  });

  it("the run paced at --rate-limit 5/s against the 5/s service draws no 429", async () => {
    const { paced } = runs;
    expect(paced.code, paced.stdout).toBe(0);
    expect(paced.service.received.length).toBeGreaterThan(5);
    expect(limited(paced.service)).toBe(0);
    await expectBudgetKept(paced);
  });

  it("proxy: the conforming service's exchanges are clean; B's 500 is not_a_server_error and D's accepted send without data negative_data_rejection, by name", async () => {
    const through = async (variant: PythonServiceVariant, body: Record<string, unknown>) => {
      const target = await service(variant);
      const proxy = runCli(["proxy", "--target", target.url, "--port", "0", "--quiet"], running);
      const url = await new Promise<string>((resolve, reject) => {
        proxy.child.stdout.on("data", () => {
          const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(proxy.stdout());
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        void proxy.exited.then((code) => reject(new Error(`proxy exited with ${String(code)}: ${proxy.stderr()}`)));
      });
      const response = await fetch(`${url}/send`, {
        method: "POST",
        headers: { Authorization: `Bearer ci-key-proxy-${variant}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      proxy.child.kill();
      return { status: response.status, violations: response.headers.get("x-sendmock-violations") ?? "" };
    };
    const welcome = { to: "qa@example.com", template_id: "welcome", data: { name: "Ada" } };
    const [clean, refused, b, d] = await Promise.all([
      through("conforming", welcome),
      through("conforming", { to: "qa@example.com", template_id: "welcome" }),
      through("500-on-non-ascii-subject", { ...welcome, subject: "Bienvenue, Zoë" }),
      through("data-optional", { to: "qa@example.com", template_id: "welcome" }),
    ]);
    expect(clean).toEqual({ status: 202, violations: "" });
    expect(refused.status).toBe(422);
    expect(refused.violations).not.toMatch(/not_a_server_error|negative_data_rejection/);
    expect(b.status).toBe(500);
    expect(b.violations).toContain("/response/status not_a_server_error: a server error (expected no 5xx, got 500)");
    expect(d.status).toBe(202);
    expect(d.violations).toMatch(
      /\/response\/status negative_data_rejection: a request the contract forbids \(.*data.*\) was not refused \(expected 4xx, got 202\)/,
    );
  });
});
