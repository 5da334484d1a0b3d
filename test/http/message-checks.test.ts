// GET /_mock/messages/{id}/checks, mock.outbox.checks(), email.checks() and the sandbox client's: a planted defect of each kind is
// found by name, where it is. The templates under test/support/planted-defects plant one defect each; the others are planted
// through the data of the shipped `welcome` template (a localhost login link, a placeholder left in a value, a 120 KB name).

import { cp, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import type { MessageChecksView } from "../../src/http/message-checks.js";
import type { SendMock } from "../../src/mock.js";
import { sandboxClient } from "../../src/sandbox-client.js";
import { toPassEmailChecks } from "../../src/email-matchers.js";
import type { SendRequest } from "../../src/wire.js";
import type { MessageCheckName } from "../../src/message-checks/index.js";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer, SHIPPED_TEMPLATES } from "../support/helpers.js";

const PLANTED = path.join(path.dirname(new URL(import.meta.url).pathname), "../support/planted-defects");

/** The shipped templates and the planted ones, in one folder. */
async function templates(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-checks-"));
  await cp(SHIPPED_TEMPLATES, folder, { recursive: true });
  await cp(PLANTED, folder, { recursive: true });
  return folder;
}

async function sent(mock: SendMock, body: SendRequest): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer()).send(body);
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

async function checksOf(mock: SendMock, id: string, query: Record<string, string> = {}): Promise<MessageChecksView> {
  const response = await request(mock.app).get(`/_mock/messages/${id}/checks`).query(query);
  expect(response.status).toBe(200);
  return response.body as MessageChecksView;
}

const check = (checks: MessageChecksView, name: string) => checks.checks.find((each) => each.name === name);
const welcome = (data: Record<string, string>): SendRequest => aSendRequest({ data: { ...aSendRequest().data, ...data } });
const planted = (templateId: string): SendRequest => ({ to: "ada@example.com", template_id: templateId, data: { name: "Ada" } });

describe("GET /_mock/messages/{id}/checks", () => {
  let folder = "";
  beforeAll(async () => {
    folder = await templates();
  });

  it("passes the shipped welcome email, naming the seven checks in order", async () => {
    const mock = await aMockForThisTest({ templates: folder });
    const checks = await checksOf(mock, await sent(mock, aSendRequest()));
    expect(checks.checks.map((each) => each.name)).toEqual(["html_support", "links", "spam", "size", "text_part", "placeholders", "accessibility"]);
    expect(checks.status).not.toBe("fail");
    expect(checks.checks.filter((each) => each.status === "fail")).toEqual([]);
  });

  it("finds an unsupported CSS property with its line and the clients' support", async () => {
    const mock = await aMockForThisTest({ templates: folder });
    const checks = await checksOf(mock, await sent(mock, planted("flex-card")));
    const flex = check(checks, "html_support")?.findings.find((finding) => finding.feature === "css-display-flex");
    expect(flex).toMatchObject({ part: "html", line: 4 });
    expect(flex?.support?.outlook).toBeLessThan(100);
  });

  it("finds a localhost link, a placeholder left in a value, a 120 KB body, no text part and an image without alt", async () => {
    const mock = await aMockForThisTest({ templates: folder });
    const localhost = await checksOf(mock, await sent(mock, welcome({ login_url: "http://localhost:3000/login" })));
    expect(check(localhost, "links")?.status).toBe("fail");
    expect(check(localhost, "links")?.findings.map((finding) => finding.url)).toContain("http://localhost:3000/login");

    const leftover = await checksOf(mock, await sent(mock, welcome({ name: "{first_name}" })));
    expect(check(leftover, "placeholders")?.status).toBe("fail");
    expect(check(leftover, "placeholders")?.findings.map((finding) => finding.part)).toEqual(expect.arrayContaining(["subject", "html", "text"]));

    const big = await checksOf(mock, await sent(mock, welcome({ company: "Acme ".repeat(24 * 1024) })));
    expect(check(big, "size")?.status).toBe("fail");

    expect(check(await checksOf(mock, await sent(mock, planted("html-only"))), "text_part")?.status).toBe("fail");

    const noAlt = check(await checksOf(mock, await sent(mock, planted("logo-no-alt"))), "accessibility");
    expect(noAlt?.status).toBe("fail");
    expect(noAlt?.findings[0]).toMatchObject({ severity: "fail", part: "html", line: 4 });
  });

  it("checks a message of 900 KB of markup sent as data (escaped into the HTML): every check given, findings capped, no 500", async () => {
    const mock = await aMockForThisTest({ templates: folder });
    const hostile = `${"<div>".repeat(20_000)}${'<a href="http://localhost/x">here</a>'.repeat(20_000)}<script>alert(1)</script><p <b>`;
    const id = await sent(mock, welcome({ company: hostile.slice(0, 900 * 1024) }));
    const checks = await checksOf(mock, id);
    expect(checks.checks).toHaveLength(7);
    for (const each of checks.checks) expect(each.findings.length).toBeLessThanOrEqual(50);
    expect(check(checks, "size")?.status).toBe("fail");
  });

  it("answers latest, and 404 not_found for a message that is not there", async () => {
    const mock = await aMockForThisTest({ templates: folder });
    const id = await sent(mock, aSendRequest());
    expect((await checksOf(mock, "latest")).message_id).toBe(id);
    const missing = await request(mock.app).get("/_mock/messages/msg_nope/checks");
    expect(missing.status).toBe(404);
    expect(missing.headers["x-sendmock-error-code"]).toBe("not_found");
  });

  it("fetches links online only when asked, and only on link_check_hosts", async () => {
    const site = await aRunningMockForThisTest();
    const mock = await aMockForThisTest({ templates: folder, linkCheckHosts: ["127.0.0.1"] });
    // A page that is there (the health call) and one that is not: the other link, on a host not listed, is never fetched.
    const id = await sent(mock, welcome({ login_url: `${site.url}/_mock/nothing-here` }));
    expect(check(await checksOf(mock, id), "links")?.summary).not.toContain("fetched online");
    const links = check(await checksOf(mock, id, { online: "true" }), "links");
    expect(links?.status).toBe("fail");
    expect(links?.findings[0]?.message).toBe(`404 from ${site.url}/_mock/nothing-here`);
    expect(links?.summary).toContain("1 fetched online, 1 failed");
  });
});

describe("from the library and the sandbox client", () => {
  it("mock.outbox.checks(id), email.checks() and the sandbox client's give the route's answer", async () => {
    const mock = await aRunningMockForThisTest({ templates: await templates() });
    const box = sandboxClient({ url: mock.url, sandbox: "qa-1" });
    const response = await fetch(`${box.baseUrl}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json" },
      body: JSON.stringify(welcome({ login_url: "http://localhost:3000/login" })),
    });
    expect(response.status).toBe(200);
    const email = await box.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });
    const fromClient = await email.checks();
    expect(Object.keys(email)).not.toContain("checks");
    const handle = await mock.sandbox("qa-1");
    const fromHandle = await handle.outbox.checks(email.id);
    const [listed] = (await handle.outbox.list()).messages;
    expect(fromClient).toEqual(fromHandle);
    expect(await listed?.checks()).toEqual(fromHandle);
    expect(await box.outbox.checks("latest")).toEqual(fromHandle);
    expect(fromHandle.status).toBe("fail");
    await expect(handle.outbox.checks("msg_nope")).rejects.toThrow('No captured message with id "msg_nope"');
  });
});

/** A planted defect of each kind, the send that plants it and the check that must find it. */
const DEFECTS: readonly [string, SendRequest, string][] = [
  ["an unsupported CSS property", planted("flex-card"), "html_support"],
  ["a localhost link", welcome({ login_url: "http://localhost:3000/login" }), "links"],
  ["a placeholder left unrendered", welcome({ name: "{first_name}" }), "placeholders"],
  ["an image without alt", planted("logo-no-alt"), "accessibility"],
  ["a 120 KB body", welcome({ company: "Acme ".repeat(24 * 1024) }), "size"],
  ["no text part", planted("html-only"), "text_part"],
];

describe("toPassEmailChecks", () => {
  it.each(DEFECTS)("fails an email with %s, naming the %s check", async (_defect, body, name) => {
    const mock = await aMockForThisTest({ templates: await templates() });
    await sent(mock, body);
    const email = await mock.outbox.waitFor({ to: "ada@example.com" });
    const result = toPassEmailChecks(email);
    expect(result.pass).toBe(false);
    expect(result.message()).toContain(`\n  ${name}: `);
    expect(toPassEmailChecks(email, { allow: [name as MessageCheckName] }).pass).toBe(true);
  });

  it("fails an email with a failing check, naming it and its findings, and passes it when the check is allowed", async () => {
    const mock = await aMockForThisTest({ templates: await templates() });
    await sent(mock, welcome({ login_url: "http://localhost:3000/login" }));
    const email = await mock.outbox.waitFor({ to: "ada@example.com" });
    const result = toPassEmailChecks(email);
    expect(result.pass).toBe(false);
    expect(result.message()).toMatch(/^expected the email to pass its checks, but 1 failed:\n {2}links: .*\n {4}html:\d+ .*localhost/);
    expect(toPassEmailChecks(email, { allow: ["links"] }).pass).toBe(true);
    expect(toPassEmailChecks(await email.checks(), { allow: ["links"] }).pass).toBe(true);
  });
});
