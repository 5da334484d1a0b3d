// Broken bodies for POST /send, one case each (not a JSON object, content types, body size, deep nesting): what the client is told (status, X-Sendmock-Error-Code, envelope, a message naming the problem) and what is captured.

import zlib from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningSendMock } from "../../../src/index.js";
import { aRunningMock, aRunningMockForThisTest, aSendRequest, sharedMockBuiltBy } from "../../support/helpers.js";
import {
  capturedMessageOf,
  DEFAULT_BODY_LIMIT_BYTES,
  errorMessageOf,
  expectNothingCaptured,
  expectRejected,
  rawSends,
  WELCOME_DATA,
} from "./bad-input-sends.js";
import { lastJournalEntry } from "../../support/send-calls.js";

const { sendRaw, sendJson, expectStillServing } = rawSends();
const theMock = sharedMockBuiltBy(() => aRunningMock());
let mock: RunningSendMock;

beforeAll(() => {
  mock = theMock();
});

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

describe("large sends arriving together", () => {
  it("answers and captures each of twelve 200 KB sends sent at once, the refused ones refused, and a small send among them", async () => {
    const mockOfItsOwn = await aRunningMockForThisTest();
    const name = "x".repeat(200_000);
    const large = Array.from({ length: 12 }, (_, index) =>
      index % 3 === 2
        ? { ...aSendRequest({ data: { ...WELCOME_DATA, name } }), unknown_key: index }
        : aSendRequest({ to: `ada+${index}@example.com`, data: { ...WELCOME_DATA, name } }),
    );

    const [small, ...answers] = await Promise.all([
      sendJson(mockOfItsOwn, aSendRequest({ to: "small@example.com" })),
      ...large.map((body) => sendJson(mockOfItsOwn, body)),
    ]);

    expect(small.status).toBe(200);
    expect(answers.map((answer) => answer.status)).toEqual(large.map((_, index) => (index % 3 === 2 ? 400 : 200)));
    const captured = await mockOfItsOwn.outbox.list({ limit: 100 });
    expect(captured.messages.map((message) => message.to).sort()).toEqual(
      ["small@example.com", ...large.filter((_, index) => index % 3 !== 2).map((body) => body.to)].sort(),
    );
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
