// A catalogue of hostile and broken input to POST /send, one case each: what the client is told
// (status, X-Sendmock-Error-Code, envelope, a message naming the problem) and what is captured.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { type CapturedMessage, type ErrorCode, type JournalEntry, type RunningSendMock } from "../../../src/index.js";
import { aRunningMock, aRunningMockForThisTest, aSendRequest, API_KEY, errorCodeOf, expectContract } from "../../support/helpers.js";
import { postRaw, type RawResponse } from "./post-raw.js";

const WELCOME_DATA = { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" };
const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Helpers: real sockets, exact bytes; every response goes through `expectContract`.
// ---------------------------------------------------------------------------------------------

interface ReadResponse extends RawResponse {
  body: unknown;
}

interface RawSendOptions {
  /** `null` sends no Content-Type at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

const agent = new http.Agent({ keepAlive: true });

/** POST /send with `body` as the exact bytes on the wire and a valid API key. */
async function sendRaw(mock: RunningSendMock, body: string | Buffer, options: RawSendOptions = {}): Promise<ReadResponse> {
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  const headers = { authorization: `Bearer ${API_KEY}`, ...(contentType !== null && { "content-type": contentType }), ...options.headers };
  const raw = await postRaw(`${mock.url}/send`, { body, headers }, agent);
  const response = { ...raw, body: JSON.parse(raw.text) as unknown };
  await expectContract(response);
  return response;
}

function sendJson(mock: RunningSendMock, body: unknown, options: RawSendOptions = {}): Promise<ReadResponse> {
  return sendRaw(mock, JSON.stringify(body), options);
}

function errorMessageOf(response: ReadResponse): string {
  const body = response.body as { error?: { message?: unknown }; message?: unknown };
  const message = body.error?.message ?? body.message;
  expect(message, "an error answer carries a message").toBeTypeOf("string");
  return String(message);
}

/** Status, X-Sendmock-Error-Code, the exact shape-a envelope, and what the message names. */
function expectRejected(response: ReadResponse, expected: { status: number; code: ErrorCode; says: string | RegExp }): void {
  expect(response.status).toBe(expected.status);
  expect(errorCodeOf(response)).toBe(expected.code);
  const message = errorMessageOf(response);
  expect(response.body).toEqual({ success: false, error: { code: expected.code, message } });
  expect(message).toMatch(expected.says);
}

async function expectNothingCaptured(mock: RunningSendMock): Promise<void> {
  expect((await mock.outbox.stats()).count).toBe(0);
}

async function capturedMessageOf(mock: RunningSendMock, response: ReadResponse): Promise<CapturedMessage> {
  expect(response.status, response.text).toBe(200);
  const { message_id: messageId } = response.body as { message_id: string };
  const message = await mock.outbox.get(messageId);
  expect(message, "the accepted send was captured").toBeDefined();
  return message as CapturedMessage;
}

async function lastJournalEntry(mock: RunningSendMock): Promise<JournalEntry> {
  const [entry] = (await mock.journal.list({ limit: 1 })).requests;
  expect(entry, "the request is in the journal").toBeDefined();
  return entry as JournalEntry;
}

/** What must hold after every hostile request: the server still takes a plain valid send. */
async function expectStillServing(mock: RunningSendMock): Promise<void> {
  const response = await sendJson(mock, aSendRequest());
  expect(response.status).toBe(200);
}

function expectPrototypeClean(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let mock: RunningSendMock;

beforeAll(async () => {
  mock = await aRunningMock();
});

afterAll(async () => {
  agent.destroy();
  await mock.close();
});

beforeEach(async () => {
  await mock.reset();
});

// ---------------------------------------------------------------------------------------------

describe("bodies that are not a JSON object", () => {
  it("rejects malformed JSON with 400 invalid_json", async () => {
    const response = await sendRaw(mock, '{"to": "ada@example.com",');

    expectRejected(response, { status: 400, code: "invalid_json", says: /^Invalid JSON body: .*JSON/ });
    await expectNothingCaptured(mock);
  });

  it.each([
    { kind: "an array", raw: JSON.stringify([aSendRequest()]), named: "an array" },
    { kind: "null", raw: "null", named: "null" },
    { kind: "a string", raw: '"ada@example.com"', named: "a string" },
    { kind: "a number", raw: "42", named: "a number" },
    { kind: "true", raw: "true", named: "a boolean" },
  ])("rejects $kind with 400 invalid_json saying it expected an object", async ({ raw, named }) => {
    const response = await sendRaw(mock, raw);

    expectRejected(response, { status: 400, code: "invalid_json", says: `expected a JSON object, got ${named}` });
    await expectNothingCaptured(mock);
  });
});

describe("content types", () => {
  it.each([
    { contentType: "text/plain", named: /text\/plain/ },
    { contentType: "application/x-www-form-urlencoded", named: /application\/x-www-form-urlencoded/ },
  ])("rejects Content-Type $contentType with 415 unsupported_media_type naming it", async ({ contentType, named }) => {
    const response = await sendJson(mock, aSendRequest(), { contentType });

    expectRejected(response, { status: 415, code: "unsupported_media_type", says: named });
    expect(errorMessageOf(response)).toContain("application/json");
    await expectNothingCaptured(mock);
  });

  it("rejects a body without Content-Type with 415 unsupported_media_type", async () => {
    const response = await sendJson(mock, aSendRequest(), { contentType: null });

    expectRejected(response, { status: 415, code: "unsupported_media_type", says: "no Content-Type" });
    await expectNothingCaptured(mock);
  });

  it.each(["application/json; charset=utf-8", "application/json; charset=UTF-8", 'application/json; charset="utf-8"'])(
    "accepts %s and captures the send",
    async (contentType) => {
      const response = await sendJson(mock, aSendRequest(), { contentType });

      expect((await capturedMessageOf(mock, response)).to).toBe("ada@example.com");
    },
  );

  it.each(["latin1", "iso-8859-1", "utf8", "us-ascii"])(
    "rejects charset=%s with 415 unsupported_media_type naming the charset: JSON is UTF-8",
    async (charset) => {
      const response = await sendJson(mock, aSendRequest(), { contentType: `application/json; charset=${charset}` });

      expectRejected(response, { status: 415, code: "unsupported_media_type", says: `Unsupported charset "${charset}"` });
      expect(errorMessageOf(response)).toContain("UTF-8");
      expect((await lastJournalEntry(mock)).violations).toEqual([{ path: "/headers/content-type", message: "the charset must be utf-8" }]);
      await expectNothingCaptured(mock);
    },
  );

  it("rejects a body really encoded in UTF-16 and labelled so, rather than decoding it", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(aSendRequest()), "utf16le")]);

    const response = await sendRaw(mock, utf16, { contentType: "application/json; charset=utf-16" });

    expectRejected(response, { status: 415, code: "unsupported_media_type", says: 'Unsupported charset "utf-16"' });
    await expectNothingCaptured(mock);
  });

  it("accepts a Content-Type parameter holding a percent sign (it used to answer 500)", async () => {
    const response = await sendJson(mock, aSendRequest(), { contentType: "application/json; %a=100%" });

    expect((await capturedMessageOf(mock, response)).to).toBe("ada@example.com");
  });

  it("accepts the same odd parameter on the inspection API (it answered 500 there too)", async () => {
    const response = await fetch(`${mock.url}/_mock/config`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json; %a=100%" },
      body: JSON.stringify({ response_shape: "b" }),
    });

    expect(response.status).toBe(200);
    expect(((await response.json()) as { response_shape: string }).response_shape).toBe("b");
  });
});

describe("body size", () => {
  it("rejects a body over body_limit with 413 payload_too_large naming the limit, in the contract's shape", async () => {
    const small = await aRunningMockForThisTest({ bodyLimit: "1kb" });

    const response = await sendJson(small, aSendRequest({ data: { ...WELCOME_DATA, name: "x".repeat(2_000) } }));

    expectRejected(response, { status: 413, code: "payload_too_large", says: "limit of 1024 bytes" });
    await expectNothingCaptured(small);
    await expectStillServing(small);
  });

  it("rejects a gzip body that inflates past body_limit with 413 payload_too_large", async () => {
    const small = await aRunningMockForThisTest({ bodyLimit: "1kb" });
    const bomb = zlib.gzipSync(JSON.stringify(aSendRequest({ data: { ...WELCOME_DATA, name: " ".repeat(200_000) } })));
    expect(bomb.length, "a small body on the wire").toBeLessThan(1024);

    const response = await sendRaw(small, bomb, { headers: { "Content-Encoding": "gzip" } });

    expectRejected(response, { status: 413, code: "payload_too_large", says: "limit of 1024 bytes" });
    await expectNothingCaptured(small);
  });

  it("accepts a gzip body that inflates to a valid send", async () => {
    const response = await sendRaw(mock, zlib.gzipSync(JSON.stringify(aSendRequest())), { headers: { "Content-Encoding": "gzip" } });

    expect((await capturedMessageOf(mock, response)).to).toBe("ada@example.com");
  });

  it("rejects a body labelled gzip that is not compressed with 400 invalid_json naming the Content-Encoding", async () => {
    const response = await sendJson(mock, aSendRequest(), { headers: { "Content-Encoding": "gzip" } });

    expectRejected(response, { status: 400, code: "invalid_json", says: /could not be decompressed as its Content-Encoding says/ });
    await expectNothingCaptured(mock);
  });

  it("accepts data with many keys just under body_limit, answering in time, with a bounded warning header", async () => {
    const keyCount = 40_000;
    const data: Record<string, string> = { ...WELCOME_DATA };
    for (let index = 0; index < keyCount; index += 1) data[`extra_${String(index).padStart(5, "0")}`] = "value";
    const raw = JSON.stringify(aSendRequest({ data }));
    expect(raw.length).toBeGreaterThan(DEFAULT_BODY_LIMIT_BYTES * 0.8);
    expect(raw.length).toBeLessThan(DEFAULT_BODY_LIMIT_BYTES);

    const response = await sendRaw(mock, raw);

    const message = await capturedMessageOf(mock, response);
    expect(Object.keys(message.data)).toHaveLength(keyCount + 3);
    expect(message.warnings).toHaveLength(keyCount);
    // Clients refuse header blocks past 16 KB (Node's default): the header stays short and says there is more.
    const warning = String(response.headers["x-sendmock-warning"]);
    expect(warning.length).toBeLessThanOrEqual(1_000);
    expect(warning).toContain("data.extra_00000");
    expect(warning).toContain(`${keyCount} warnings in all`);
  });

  it("accepts long values just under body_limit and captures them whole", async () => {
    const name = "ä".repeat(450_000);
    const raw = JSON.stringify(aSendRequest({ data: { ...WELCOME_DATA, name } }));
    expect(Buffer.byteLength(raw)).toBeGreaterThan(DEFAULT_BODY_LIMIT_BYTES * 0.8);
    expect(Buffer.byteLength(raw)).toBeLessThan(DEFAULT_BODY_LIMIT_BYTES);

    const response = await sendRaw(mock, raw);

    const message = await capturedMessageOf(mock, response);
    expect(message.text).toContain(name);
  });
});

describe("deep nesting", () => {
  it("rejects 10,000 levels of nesting inside data with 400 invalid_request naming the field, and keeps serving", async () => {
    const depth = 10_000;
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":{"name":${'{"a":'.repeat(depth)}"x"${"}".repeat(depth)}}}`;

    const response = await sendRaw(mock, raw);

    expectRejected(response, { status: 400, code: "invalid_request", says: "data.name must be a string or an array of strings" });
    await expectNothingCaptured(mock);
    await expectStillServing(mock);
  });

  it("rejects nesting as deep as body_limit allows (500,000 arrays) with a 4xx, and keeps serving", async () => {
    const depth = 500_000;
    const raw = `{"to":"ada@example.com","template_id":"welcome","data":{"name":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    expect(raw.length).toBeLessThan(DEFAULT_BODY_LIMIT_BYTES);

    const response = await sendRaw(mock, raw);

    expectRejected(response, { status: 400, code: "invalid_request", says: "data.name[0] must be a string" });
    await expectStillServing(mock);
  });
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
