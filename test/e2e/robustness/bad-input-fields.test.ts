// Hostile field values for POST /send, one case each (prototype keys, line breaks in header fields, text encoding, duplicate keys, recipient lists): what the client is told and what is captured.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import type { RunningSendMock } from "../../../src/index.js";
import { aRunningMock, aRunningMockForThisTest, aSendRequest, sharedMockBuiltBy } from "../../support/helpers.js";
import {
  capturedMessageOf,
  DEFAULT_BODY_LIMIT_BYTES,
  expectNothingCaptured,
  expectPrototypeClean,
  expectRejected,
  rawSends,
  WELCOME_DATA,
} from "./bad-input-sends.js";
import { lastJournalEntry } from "../../support/send-calls.js";

const { sendRaw, sendJson } = rawSends();
const theMock = sharedMockBuiltBy(() => aRunningMock());
let mock: RunningSendMock;

beforeAll(() => {
  mock = theMock();
});

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("prototype keys: __proto__, constructor, prototype", () => {
  const POLLUTER = '{"polluted":"yes"}';

  const SEND = '"to":"ada@example.com","template_id":"welcome"';

  it.each([
    { where: "at the top level", raw: `{"__proto__":${POLLUTER},${SEND},"data":{"name":"Ada"}}`, named: "__proto__ is not a known field" },
    {
      where: "as constructor.prototype at the top level",
      raw: `{"constructor":{"prototype":${POLLUTER}},${SEND},"data":{}}`,
      named: "constructor is not a known field",
    },
    { where: "as prototype at the top level", raw: `{"prototype":${POLLUTER},${SEND},"data":{}}`, named: "prototype is not a known field" },
    { where: "inside data", raw: `{${SEND},"data":{"__proto__":${POLLUTER}}}`, named: "data.__proto__ must be a string or an array of strings" },
    { where: "inside a nested object in data", raw: `{${SEND},"data":{"name":[{"__proto__":${POLLUTER}}]}}`, named: "data.name[0] must be a string" },
    { where: "inside a cc entry", raw: `{${SEND},"data":{},"cc":[{"constructor":{"prototype":${POLLUTER}}}]}`, named: "cc[0] must be a string" },
  ])("rejects {__proto__: {polluted}} $where with 400 naming it, and pollutes nothing", async ({ raw, named }) => {
    const response = await sendRaw(mock, raw);

    expectRejected(response, { status: 400, code: "invalid_request", says: named });
    expectPrototypeClean();
    await expectNothingCaptured(mock);
  });

  it("accepts string values under data keys __proto__, constructor and prototype as unknown keys, kept as plain data", async () => {
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":{"__proto__":"p","constructor":"c","prototype":"q","name":"Ada","company":"Acme","login_url":"https://a.example.com"}}`;

    const response = await sendRaw(mock, raw);

    const message = await capturedMessageOf(mock, response);
    expect(Object.keys(message.data)).toEqual(["__proto__", "constructor", "prototype", "name", "company", "login_url"]);
    expect(Object.getOwnPropertyDescriptor(message.data, "__proto__")?.value).toBe("p");
    expect(message.warnings).toEqual([
      'unknown_template_data: data.__proto__ matches no placeholder of template "welcome"',
      'unknown_template_data: data.constructor matches no placeholder of template "welcome"',
      'unknown_template_data: data.prototype matches no placeholder of template "welcome"',
    ]);
    expectPrototypeClean();
  });

  it("renders a normal send the same before and after prototype keys were sent everywhere", async () => {
    const before = await capturedMessageOf(mock, await sendJson(mock, aSendRequest()));
    for (const raw of [
      `{"__proto__":{"polluted":"yes"},"to":"ada@example.com","template_id":"welcome","data":{"__proto__":{"polluted":"yes"}}}`,
      `{"to":"ada@example.com","template_id":"welcome","data":{"__proto__":["polluted"],"name":"A","company":"B","login_url":"https://c.example.com"}}`,
      `{"to":"ada@example.com","template_id":"welcome","data":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
    ]) {
      await sendRaw(mock, raw);
    }

    const after = await capturedMessageOf(mock, await sendJson(mock, aSendRequest()));

    expectPrototypeClean();
    expect({ subject: after.subject, html: after.html, text: after.text, data: after.data, warnings: after.warnings }).toEqual({
      subject: before.subject,
      html: before.html,
      text: before.text,
      data: before.data,
      warnings: [],
    });
  });

  it("fills placeholders named constructor, __proto__ and toString only from data's own keys", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-bad-input-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeFile(path.join(folder, "odd.yaml"), YAML.stringify({ subject: "Odd names", text: "c={constructor} p={__proto__} s={toString}" }));
    const oddMock = await aRunningMockForThisTest({ templates: folder });

    const missing = await sendJson(oddMock, { to: "ada@example.com", template_id: "odd", data: {} });
    const filled = await sendRaw(oddMock, '{"to":"ada@example.com","template_id":"odd","data":{"constructor":"C","__proto__":"P","toString":"S"}}');

    expectRejected(missing, { status: 422, code: "missing_template_data", says: "data.constructor, data.__proto__, data.toString" });
    expect((await capturedMessageOf(oddMock, filled)).text).toBe("c=C p=P s=S");
  });
});

describe("line breaks in header fields (header injection)", () => {
  it.each([
    { kind: "CR LF", subject: "Hello\r\nBcc: victim@example.com" },
    { kind: "a lone LF", subject: "Hello\nBcc: victim@example.com" },
    { kind: "a lone CR", subject: "Hello\rBcc: victim@example.com" },
    { kind: "a trailing LF", subject: "Hello\n" },
  ])("rejects a subject with $kind with 400 invalid_request, and captures nothing", async ({ subject }) => {
    const response = await sendJson(mock, aSendRequest({ subject }));

    expectRejected(response, { status: 400, code: "invalid_request", says: "subject must not contain a line break (CR or LF)" });
    expect((await lastJournalEntry(mock)).violations).toEqual([{ path: "/subject", message: "subject must not contain a line break (CR or LF)" }]);
    await expectNothingCaptured(mock);
  });

  it("rejects a reply_to with CR LF with 400 invalid_request naming reply_to", async () => {
    const response = await sendJson(mock, aSendRequest({ reply_to: "support@example.com\r\nBcc: victim@example.com" }));

    expectRejected(response, { status: 400, code: "invalid_request", says: "reply_to is not a valid email address" });
    await expectNothingCaptured(mock);
  });

  it.each([
    { field: "to", body: aSendRequest({ to: "ada@example.com\r\nBcc: victim@example.com" }) },
    { field: "cc[0]", body: aSendRequest({ cc: ["grace@example.com\nBcc: victim@example.com"] }) },
  ])("rejects a $field with a line break with 422 invalid_recipient naming it", async ({ field, body }) => {
    const response = await sendJson(mock, body);

    expectRejected(response, { status: 422, code: "invalid_recipient", says: `Invalid recipient email address in ${field}` });
    await expectNothingCaptured(mock);
  });

  it("accepts a subject with Unicode line and paragraph separators, which do not split a mail header", async () => {
    const subject = "Hello\u2028there\u2029friend";

    const response = await sendJson(mock, aSendRequest({ subject }));

    expect((await capturedMessageOf(mock, response)).subject).toBe(subject);
  });
});

describe("text encoding of the body", () => {
  const validPrefix = Buffer.from('{"to":"ada@example.com","template_id":"welcome","data":{"company":"Acme","login_url":"https://a.example.com","name":"A');
  const validSuffix = Buffer.from('"}}');

  it.each([
    { kind: "0xC3 0x28 (a lead byte without its continuation)", bytes: [0xc3, 0x28] },
    { kind: "a lone continuation byte 0x80", bytes: [0x80] },
    { kind: "an overlong encoding of / (0xC0 0xAF)", bytes: [0xc0, 0xaf] },
    { kind: "a UTF-16 surrogate encoded as UTF-8 (0xED 0xA0 0x80)", bytes: [0xed, 0xa0, 0x80] },
    { kind: "0xFF", bytes: [0xff] },
  ])("rejects a string holding $kind with 400 invalid_json rather than capturing U+FFFD", async ({ bytes }) => {
    const response = await sendRaw(mock, Buffer.concat([validPrefix, Buffer.from(bytes), validSuffix]));

    expectRejected(response, { status: 400, code: "invalid_json", says: "not valid UTF-8" });
    await expectNothingCaptured(mock);
  });

  it("captures astral, zero-width and right-to-left characters verbatim", async () => {
    const name = "A\u200bda \u{1f600} \u202eעברית\u202c \u{10ffff}";
    const subject = "\u{1d54f} \u200d\u061c";

    const response = await sendJson(mock, aSendRequest({ subject, data: { ...WELCOME_DATA, name } }));

    const message = await capturedMessageOf(mock, response);
    expect(message.subject).toBe(subject);
    expect(message.text).toContain(name);
    expect(message.data.name).toBe(name);
  });
});

describe("duplicate keys", () => {
  it("takes the last of two `to` keys, as JSON.parse does: the answer, the outbox and the journal agree", async () => {
    const shapeB = await aRunningMockForThisTest({ responseShape: "b" });
    const raw = `{"to":"first@example.com","template_id":"welcome","data":${JSON.stringify(WELCOME_DATA)},"to":"second@example.com"}`;

    const response = await sendRaw(shapeB, raw);

    expect(response.status).toBe(200);
    const { message: said, email_id: emailId } = response.body as { message: string; email_id: string };
    expect(said).toBe("Email queued for delivery to second@example.com");
    expect((await shapeB.outbox.get(emailId))?.to).toBe("second@example.com");
    expect((await lastJournalEntry(shapeB)).to).toBe("second@example.com");
  });

  it("takes the last of two keys inside data", async () => {
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":{"name":"First","company":"Acme","login_url":"https://a.example.com","name":"Second"}}`;

    const message = await capturedMessageOf(mock, await sendRaw(mock, raw));

    expect(message.data.name).toBe("Second");
    expect(message.subject).toContain("Second");
  });
});

describe("recipient lists", () => {
  const addresses = (count: number, domain = "example.com"): string[] => Array.from({ length: count }, (_, index) => `r${index}@${domain}`);

  it("rejects 10,000 cc entries with 400 invalid_request naming the 1000 limit", async () => {
    const response = await sendJson(mock, aSendRequest({ cc: addresses(10_000) }));

    expectRejected(response, { status: 400, code: "invalid_request", says: "cc must not have more than 1000 items" });
    await expectNothingCaptured(mock);
  });

  it("rejects 1001 bcc entries with 400 invalid_request naming bcc", async () => {
    const response = await sendJson(mock, aSendRequest({ bcc: addresses(1_001) }));

    expectRejected(response, { status: 400, code: "invalid_request", says: "bcc must not have more than 1000 items" });
  });

  it("accepts 1000 cc and 1000 bcc entries and captures every one", async () => {
    const response = await sendJson(mock, aSendRequest({ cc: addresses(1_000), bcc: addresses(1_000, "example.org") }));

    const message = await capturedMessageOf(mock, response);
    expect(message.cc).toHaveLength(1_000);
    expect(message.bcc).toHaveLength(1_000);
    expect(message.bcc[999]).toBe("r999@example.org");
  });

  it("answers a body wrong in 300,000 places with a short message naming the first problems and counting the rest", async () => {
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":${JSON.stringify(WELCOME_DATA)},"cc":[${Array.from({ length: 300_000 }, () => "1").join(",")}]}`;
    expect(raw.length).toBeLessThan(DEFAULT_BODY_LIMIT_BYTES);

    const response = await sendRaw(mock, raw);

    expectRejected(response, {
      status: 400,
      code: "invalid_request",
      says: /^Invalid request: cc must not have more than 1000 items; cc\[0\] must be a string; .* and \d+ more$/,
    });
    expect(response.text.length, "the answer does not grow with the number of problems").toBeLessThan(2_000);
    expect((await lastJournalEntry(mock)).violations.length).toBeLessThanOrEqual(50);
  });

  it("names the first bad addresses and counts the rest when many cc entries are invalid", async () => {
    const response = await sendJson(mock, aSendRequest({ cc: Array.from({ length: 500 }, (_, index) => `not-an-address-${index}`) }));

    expectRejected(response, {
      status: 422,
      code: "invalid_recipient",
      says: /^Invalid recipient email address in cc\[0\] \("not-an-address-0"\), .*, and 490 more$/,
    });
  });
});

describe("unknown keys", () => {
  it("answers a body of 60,000 unknown keys as if each were checked: the first named, every problem counted, none taken as a prototype", async () => {
    const unknownKeys = Array.from({ length: 60_000 }, (_, index) => (index === 59_000 ? "__proto__" : `x${index}`));
    // 60,000 unknown keys and, after them, a subject of the wrong type: 60,001 problems.
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":${JSON.stringify(WELCOME_DATA)},${unknownKeys.map((key) => `"${key}":${key === "__proto__" ? '{"polluted":"yes"}' : 1}`).join(",")},"subject":5}`;
    expect(raw.length).toBeLessThan(DEFAULT_BODY_LIMIT_BYTES);

    const response = await sendRaw(mock, raw);

    const firstTen = unknownKeys.slice(0, 10).map((key) => `${key} is not a known field`);
    expectRejected(response, { status: 400, code: "invalid_request", says: new RegExp(`^Invalid request: ${firstTen.join("; ")}; and ${60_001 - 10} more$`) });
    const { violations } = await lastJournalEntry(mock);
    expect(violations.map((violation) => violation.path)).toEqual(unknownKeys.slice(0, 50).map((key) => `/${key}`));
    expectPrototypeClean();
  });

  it("finds a missing required field in a body of 60,000 unknown keys, whatever their order", async () => {
    const unknown = Object.fromEntries(Array.from({ length: 60_000 }, (_, index) => [`x${index}`, index]));
    const response = await sendJson(mock, { ...unknown, template_id: "welcome", data: WELCOME_DATA });

    expectRejected(response, { status: 400, code: "missing_required_field", says: "Missing required field: to" });
  });
});
