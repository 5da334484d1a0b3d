// GET /_mock/messages/{id}/eml: a captured message downloaded as an email, read back by a mail parser.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import request from "supertest";
import YAML from "yaml";
import { describe, expect, it, onTestFinished } from "vitest";
import type { SendMock, SendRequest } from "../../src/index.js";
import { aMockForThisTest, aSendRequest, bearer, expectContract, sharedMock } from "../support/helpers.js";

type EmlResponse = request.Response;

async function sendOk(mock: SendMock, overrides: Partial<SendRequest> = {}): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

/** Downloads the .eml as bytes, checked against admin.yaml. */
async function downloadEml(mock: SendMock, id: string): Promise<EmlResponse> {
  const response = await request(mock.app)
    .get(`/_mock/messages/${id}/eml`)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => done(null, Buffer.concat(chunks)));
    });
  const isJson = (response.headers["content-type"] ?? "").startsWith("application/json");
  const body: unknown = isJson ? JSON.parse((response.body as Buffer).toString("utf8")) : (response.body as Buffer).toString("utf8");
  await expectContract({ status: response.status, headers: response.headers, body }, { contract: "admin", method: "get", path: "/_mock/messages/{id}/eml" });
  return response;
}

/** RFC 5322 §2.1.1 and §2.3: every line ends CRLF (no lone CR or LF) and holds at most 998 characters. */
function expectMailLines(raw: Buffer): void {
  const source = raw.toString("latin1");
  expect(source.match(/\r(?!\n)|(?<!\r)\n/g) ?? []).toEqual([]);
  const longest = Math.max(...source.split("\r\n").map((line) => line.length));
  expect(longest).toBeLessThanOrEqual(998);
}

const addresses = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field : field ? [field] : []).flatMap((entry) => entry.value);

describe("GET /_mock/messages/{id}/eml", () => {
  const shared = sharedMock();

  it("downloads the message as message/rfc822 that a mail parser reads back whole, non-ASCII subject and sender name included", async () => {
    const mock = await aMockForThisTest({ sender: "Zoë Müller <zoe@example.com>" });
    const id = await sendOk(mock, {
      to: "grace@example.com",
      cc: ["billing@example.com", "audit@example.com"],
      bcc: ["secret@example.com"],
      reply_to: "support@example.com",
      template_id: "order-receipt",
      subject: "Grüße aus Zürich — 注文 1042 ✓",
      data: { name: "Grace", order_number: "1042", items: ["1 x Compiler"], total: "€9.99" },
    });
    const message = await mock.outbox.get(id);

    const response = await downloadEml(mock, id);

    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^message\/rfc822/);
    expect(response.headers["content-disposition"]).toBe(`attachment; filename="${id}.eml"`);
    const source = (response.body as Buffer).toString("utf8");
    expect(source).toMatch(/^Content-Type: multipart\/alternative;/m);
    const mail: ParsedMail = await simpleParser(response.body as Buffer);
    expect(mail.subject).toBe("Grüße aus Zürich — 注文 1042 ✓");
    expect(addresses(mail.from)).toEqual([{ name: "Zoë Müller", address: "zoe@example.com" }]);
    expect(addresses(mail.to).map((entry) => entry.address)).toEqual(["grace@example.com"]);
    expect(addresses(mail.cc).map((entry) => entry.address)).toEqual(["billing@example.com", "audit@example.com"]);
    expect(addresses(mail.replyTo).map((entry) => entry.address)).toEqual(["support@example.com"]);
    expect(mail.text?.trim()).toBe(message?.text?.trim());
    expect(mail.html).toBe(message?.html);
    expect(mail.messageId).toBe(`<${id}@sendmock.test>`);
    // A mail Date header counts whole seconds.
    expect(mail.date?.toISOString()).toBe(message?.created_at.replace(/\.\d+Z$/, ".000Z"));
  });

  it("never carries the bcc, which no receiver of the email sees", async () => {
    const mock = shared();
    const id = await sendOk(mock, { bcc: ["secret@example.com"] });

    const response = await downloadEml(mock, id);

    const mail = await simpleParser(response.body as Buffer);
    expect(mail.bcc).toBeUndefined();
    expect((response.body as Buffer).toString("utf8")).not.toContain("secret@example.com");
  });

  it("comes from sendmock <no-reply@sendmock.test> unless the config names a sender", async () => {
    const mock = shared();
    const id = await sendOk(mock);

    const mail = await simpleParser((await downloadEml(mock, id)).body as Buffer);

    expect(addresses(mail.from)).toEqual([{ name: "sendmock", address: "no-reply@sendmock.test" }]);
  });

  it("downloads the newest message for the id latest, named after its own id", async () => {
    const mock = shared();
    await sendOk(mock);
    const newest = await sendOk(mock, { to: "grace@example.com" });

    const response = await downloadEml(mock, "latest");

    expect(response.headers["content-disposition"]).toBe(`attachment; filename="${newest}.eml"`);
    expect(addresses((await simpleParser(response.body as Buffer)).to).map((entry) => entry.address)).toEqual(["grace@example.com"]);
  });

  it("holds only the text part for a text-only message, not an empty HTML one", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-eml-"));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    await writeFile(path.join(folder, "plain.yaml"), "subject: Hello {name}\ntext: Hi {name}, plain text only.\n");
    const mock = await aMockForThisTest({ templates: folder });
    const id = await sendOk(mock, { template_id: "plain", data: { name: "Ada" } });

    const response = await downloadEml(mock, id);

    const source = (response.body as Buffer).toString("utf8");
    expect(source).toMatch(/^Content-Type: text\/plain; charset=utf-8/m);
    expect(source).not.toContain("multipart/alternative");
    const mail = await simpleParser(response.body as Buffer);
    expect(mail.text?.trim()).toBe("Hi Ada, plain text only.");
    expect(mail.html).toBe(false);
  });

  it("writes every line end as CRLF and no line over 998 characters, in the body parts and for a 998-character subject", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-eml-"));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    await writeFile(
      path.join(folder, "letter.yaml"),
      YAML.stringify({ subject: "Hello {name}", text: "Hi {name},\n\nline two\r\nline three\rend\n", html: "<p>Hi {name},</p>\n<p>line two</p>\n" }),
    );
    const mock = await aMockForThisTest({ templates: folder });
    const subject = "x".repeat(998);
    const id = await sendOk(mock, { template_id: "letter", subject, data: { name: "Ada" } });

    const response = await downloadEml(mock, id);

    const raw = response.body as Buffer;
    expectMailLines(raw);
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe(subject);
    expect(mail.text).toBe("Hi Ada,\n\nline two\nline three\nend\n");
    expect(mail.html).toBe("<p>Hi Ada,</p>\n<p>line two</p>\n");
  });

  it("encodes a long rendered subject without a space in it into short header lines that a mail parser reads back whole", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-eml-"));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    await writeFile(path.join(folder, "long.yaml"), YAML.stringify({ subject: "{title}!", text: "Hi" }));
    const mock = await aMockForThisTest({ templates: folder });
    const title = `${"y".repeat(5000)} =?UTF-8?Q?not_a_word?= ${"z".repeat(100)}`;
    const id = await sendOk(mock, { template_id: "long", data: { title } });

    const raw = (await downloadEml(mock, id)).body as Buffer;

    expectMailLines(raw);
    expect((await simpleParser(raw)).subject).toBe(`${title}!`);
  });

  it("refuses to start with a sender whose From line cannot fold within 998 characters", async () => {
    // nodemailer quotes this name and escapes each backslash: one From line of 1,804 characters.
    const unfoldable = `${"\\".repeat(900)}N <a@b>`;

    await expect(aMockForThisTest({ sender: unfoldable })).rejects.toThrow(
      "sender must fit a mail header line of 998 characters (RFC 5322 §2.1.1): put a space in its name",
    );
    await expect(aMockForThisTest({ sender: `${"N ".repeat(495)}<a@b>` })).resolves.toBeDefined();
  });

  it("answers 404 not_found for an unknown id", async () => {
    const response = await downloadEml(shared(), "msg_nope");
    expect(response.status).toBe(404);
    expect(JSON.parse((response.body as Buffer).toString("utf8"))).toMatchObject({ error: { code: "not_found" } });
  });

  it("refuses to start with a sender that is not one mailbox", async () => {
    await expect(aMockForThisTest({ sender: "ada@example.com, grace@example.com" })).rejects.toThrow(/sender must be one mailbox/);
    await expect(aMockForThisTest({ sender: "no address here" })).rejects.toThrow(/sender must be one mailbox/);
  });
});
