// The `spam` check against a real SpamAssassin spamd (Debian's, test/support/spamd.ts): a spammy body is found with the rules it
// hit, a plain one passes; spamd down, silent or absent gives the spam check its words and never a 500, the other checks still given.

import type { ChildProcess } from "node:child_process";
import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli } from "../support/cli-process.js";
import type { SendMock } from "../../src/mock.js";
import type { MessageChecksView } from "../../src/http/message-checks.js";
import { toPassEmailChecks } from "../../src/email-matchers.js";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { spamdMissing, startSpamd, type SpamdProcess } from "../support/spamd.js";

const skipReason = spamdMissing();
const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** A folder holding the planted spammy template alone. */
async function spammyTemplates(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-spammy-"));
  await copyFile(path.join(ROOT, "test/support/planted-defects/prize.yaml"), path.join(folder, "prize.yaml"));
  return folder;
}

async function send(mock: SendMock, body: object): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer()).send(body);
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

async function checksOf(mock: SendMock, id: string): Promise<MessageChecksView> {
  const response = await request(mock.app).get(`/_mock/messages/${id}/checks`);
  expect(response.status).toBe(200);
  return response.body as MessageChecksView;
}

const spamOf = (checks: MessageChecksView) => checks.checks.find((check) => check.name === "spam");

describe("the spam check without spamd", () => {
  it("is off and says how to turn it on, the other checks given", async () => {
    const mock = await aMockForThisTest();
    const checks = await checksOf(mock, await send(mock, aSendRequest()));
    expect(spamOf(checks)).toMatchObject({ status: "off", findings: [] });
    expect(spamOf(checks)?.summary).toContain("set `spamd` to the host:port of a SpamAssassin spamd (`--spamd 127.0.0.1:783`, SENDMOCK_SPAMD");
    expect(checks.checks.map((check) => check.name)).toEqual(["html_support", "links", "spam", "size", "text_part", "placeholders", "accessibility"]);
  });

  it("is an error in words when spamd is down or silent, the other checks still given and no 500", async () => {
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => held.add(socket)).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const closed = net.createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => closed.once("listening", resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    try {
      const down = await aMockForThisTest({ spamd: `127.0.0.1:${String(closedPort)}` });
      const downChecks = await checksOf(down, await send(down, aSendRequest()));
      expect(spamOf(downChecks)).toMatchObject({ status: "error" });
      expect(spamOf(downChecks)?.summary).toMatch(new RegExp(`^spamd at 127\\.0\\.0\\.1:${String(closedPort)} is not reachable: `));
      expect(downChecks.checks).toHaveLength(7);

      const slow = await aMockForThisTest({ spamd: `127.0.0.1:${String((silent.address() as net.AddressInfo).port)}`, spamdTimeoutMs: 200 });
      const slowChecks = await checksOf(slow, await send(slow, aSendRequest()));
      expect(spamOf(slowChecks)).toMatchObject({ status: "error" });
      expect(spamOf(slowChecks)?.summary).toContain("did not answer within 200 ms (spamd_timeout_ms)");
      expect(slowChecks.checks).toHaveLength(7);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe.skipIf(skipReason !== undefined)("the spam check with a real spamd", () => {
  let spamd: SpamdProcess;
  beforeAll(async () => {
    spamd = await startSpamd();
  }, 70_000);
  afterAll(() => spamd.stop());

  it("finds a spammy body with the rules it hit and passes a plain one", async () => {
    const mock = await aMockForThisTest({ spamd: spamd.address, spamdTimeoutMs: 60_000, templates: await spammyTemplates() });
    const spammy = spamOf(await checksOf(mock, await send(mock, { to: "ada@example.com", template_id: "prize", data: { name: "Ada" } })));
    expect(spammy?.status).toBe("fail");
    expect(spammy?.summary).toMatch(/^spam: \d+\.\d points, \d+\.\d required \(SpamAssassin\)$/);
    expect(spammy?.findings.length).toBeGreaterThan(0);
    for (const finding of spammy?.findings ?? []) expect(finding.message).toMatch(/^\d+\.\d [A-Z0-9_]+: \S/);

    // The matcher judges what email.checks() gave: spam from the mock's spamd included.
    const email = await mock.outbox.waitFor({ to: "ada@example.com" });
    const result = toPassEmailChecks(await email.checks());
    expect(result.pass).toBe(false);
    expect(result.message()).toContain("\n  spam: spam: ");

    const shipped = await aMockForThisTest({ spamd: spamd.address, spamdTimeoutMs: 60_000 });
    const plain = spamOf(await checksOf(shipped, await send(shipped, aSendRequest())));
    expect(plain?.status).toBe("pass");
    expect((plain as { score?: number } | undefined)?.score ?? 99).toBeLessThan((spammy as { score?: number } | undefined)?.score ?? 0);
  }, 180_000);

  it("scores each template in sendmock lint --spamd, the spammy one failing or warning by its rules, and in the JUnit file", async () => {
    const folder = await spammyTemplates();
    const junit = path.join(folder, "lint.xml");
    const run = runCli(["lint", "--templates", folder, "--spamd", spamd.address, "--spamd-timeout-ms", "60000", "--junit", junit], running);
    expect(await run.exited).toBe(1);
    const spamLine = run
      .stdout()
      .split("\n")
      .find((line) => /\bspam\b/.test(line) && line.includes("points"));
    expect(spamLine).toMatch(/fail\s+spam\s+spam: \d+\.\d points, \d+\.\d required \(SpamAssassin\)/);
    expect(await readFile(junit, "utf8")).toContain('name="spam"');
  }, 180_000);

  it("says what is wrong with a --spamd that is not host:port, exit 2", async () => {
    const run = runCli(["lint", "--spamd", "localhost"], running);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("must be host:port, such as 127.0.0.1:783");
  });
});
