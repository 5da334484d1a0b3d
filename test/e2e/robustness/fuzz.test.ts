// Property-based robustness of POST /send against a real listening mock: whatever bytes, headers
// and content types a client sends, the response is one the contract documents and never a 5xx,
// the server keeps serving, and every accepted send is captured exactly once.
//
// Generated cases per run: 10,000 (five properties, 5,000 cases per response shape; see
// RUNS_PER_SHAPE), each followed by a valid send. fast-check draws a fresh seed every run and
// prints it, with the shrunk counterexample, when a property fails; pass it back as
// `fc.assert(..., { seed, path })` to replay.

import http from "node:http";
import { promisify } from "node:util";
import zlib from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ERROR_CODES,
  startSendMock,
  type CapturedMessage,
  type ResponseShape,
  type RunningSendMock,
  type SendRequest,
  type TemplateData,
} from "../../../src/index.js";
import { API_KEY, contractViolations } from "../../support/helpers.js";
import { postRaw, type RawResponse, type RawRequest } from "./post-raw.js";

const RUNS_PER_SHAPE = {
  arbitraryJson: 700,
  wrongTypes: 900,
  rawBytes: 500,
  headersAndContentTypes: 1100,
  nearValid: 1800,
} as const;
const SHAPES: readonly ResponseShape[] = ["a", "b"];
const PLANNED_CASES = SHAPES.length * Object.values(RUNS_PER_SHAPE).reduce((sum, runs) => sum + runs, 0);

/** A property sends hundreds of requests: far more than the suite's 15 s default per test. */
const PROPERTY_TIMEOUT_MS = 120_000;

let casesRun = 0;
afterAll(() => {
  console.log(`fuzz: ${casesRun.toLocaleString("en")} generated cases sent to POST /send (${PLANNED_CASES.toLocaleString("en")} planned)`);
});

// ---------------------------------------------------------------------------------------------
// Requests.
// ---------------------------------------------------------------------------------------------

function baseHeaders(): Record<string, string> {
  return { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
}

function jsonRequest(body: unknown): RawRequest {
  return { body: JSON.stringify(body), headers: baseHeaders() };
}

// ---------------------------------------------------------------------------------------------
// The properties every response must have.
// ---------------------------------------------------------------------------------------------

function parseJson(response: RawResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new Error(`answer ${response.status} is not JSON: ${response.text.slice(0, 200)}`);
  }
}

/** The tracking id of an accepted send's body, or undefined when it carries neither id. */
function trackingIdOf(body: unknown): string | undefined {
  const { message_id: messageId, email_id: emailId } = body as { message_id?: unknown; email_id?: unknown };
  const id = messageId ?? emailId;
  return typeof id === "string" ? id : undefined;
}

interface CheckedResponse {
  response: RawResponse;
  /** The message an accepted send captured; undefined for a rejected one. */
  captured: CapturedMessage | undefined;
}

/**
 * Sends one request and checks what a client can see: a documented response, no 5xx, the error
 * code header, and the outbox grown by exactly one message for a 2xx (none for the replay of an
 * response kept for its Idempotency-Key) and by none otherwise.
 *
 * Each check adds a sentence to a list, and the list is asserted empty once per response: with a
 * dozen `expect` calls for each of 20,000 responses, vitest's assertion bookkeeping was ~11% of a
 * profile of this file, and one assertion per response took the file from 26.1 to 25.4 s of CPU.
 */
async function sendAndCheck(mock: RunningSendMock, agent: http.Agent, request: RawRequest): Promise<CheckedResponse> {
  const countBefore = (await mock.outbox.stats()).count;
  const response = await postRaw(`${mock.url}/send`, request, agent);
  const body = parseJson(response);
  const problems = await contractViolations({ status: response.status, headers: response.headers, body, text: response.text });
  if (response.status >= 500) problems.push("a 5xx answer");
  const countAfter = (await mock.outbox.stats()).count;
  let captured: CapturedMessage | undefined;
  if (response.status >= 400) {
    const code = response.headers["x-sendmock-error-code"];
    if (!(ERROR_CODES as readonly unknown[]).includes(code)) problems.push(`X-Sendmock-Error-Code ${String(code)} is not a documented code`);
    if ("error" in (body as object) && (body as { error: { code: string } }).error.code !== code) problems.push("the body's error code is not the header's");
    if (countAfter !== countBefore) problems.push("a rejected send was captured");
  } else if (response.status !== 200) {
    problems.push("an answer under 400 other than 200");
  } else if (response.headers["idempotency-replayed"] === "true") {
    // A generated Idempotency-Key met again with the same body: the kept response, sent nothing.
    if (countAfter !== countBefore) problems.push("a replayed answer captured a message");
  } else {
    const trackingId = trackingIdOf(body);
    captured = trackingId === undefined ? undefined : await mock.outbox.get(trackingId);
    if (trackingId === undefined) problems.push("an accepted send carries neither message_id nor email_id");
    else if (captured === undefined) problems.push(`the tracking id ${trackingId} of a 2xx names no captured message`);
    if (countAfter !== countBefore + 1) problems.push(`a 2xx grew the outbox by ${countAfter - countBefore}, not 1`);
  }
  // expect only once something is wrong: the same failure, without vitest's bookkeeping (and
  // this message) for each of 20,000 responses to that pass: 1.3 s of a 57 s profile of this file.
  if (problems.length > 0) expect(problems, `what is wrong with answer ${response.status}: ${response.text.slice(0, 300)}`).toEqual([]);
  return { response, captured };
}

/** The whole check of one generated case: its own response, then a valid send right after it. */
async function exerciseCase(mock: RunningSendMock, agent: http.Agent, request: RawRequest): Promise<CheckedResponse> {
  casesRun += 1;
  const result = await sendAndCheck(mock, agent, request);
  const next = await sendAndCheck(mock, agent, jsonRequest(aWelcomeSend()));
  if (next.response.status !== 200) expect(next.response.status, "the server still accepts a valid send after this case").toBe(200);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

const WELCOME_DATA: TemplateData = { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" };

function aWelcomeSend(): SendRequest {
  return { to: "ada@example.com", template_id: "welcome", data: { ...WELCOME_DATA } };
}

/** Pieces that break naive string handling: zero-width, bidi, astral, lone surrogates, controls, markup. */
const AWKWARD_PIECES = [
  "\u200b",
  "\u200c",
  "\u200d",
  "\ufeff",
  "\u202e",
  "\u200f",
  "\u061c",
  "\u{1f600}",
  "\u{10ffff}",
  "\ud800",
  "\udfff",
  "\u0000",
  "\u0007",
  "\r\n",
  "\n",
  "\r",
  "\u2028",
  "\u0085",
  "{name}",
  "{{",
  "}}",
  "{",
  "<script>alert(1)</script>",
  "&amp;",
  '"',
  "\\",
  "'",
  "%00",
  "e\u0301",
  "\ufdfa",
  "עברית",
  "العربية",
  "𝕏",
  "@",
  "a@b",
  "ada@example.com",
  " ",
];

const awkwardString = fc
  .array(fc.oneof(fc.constantFrom(...AWKWARD_PIECES), fc.string({ unit: "binary", maxLength: 6 })), { maxLength: 8 })
  .map((pieces) => pieces.join(""));

/** What a subject or a data value may hold: anything but a line break. */
const awkwardLine = awkwardString.map((text) => text.replace(/[\r\n]/g, ""));

const longString = fc
  .tuple(fc.constantFrom("x", "é", "\u{1f600}", "\u200b", "{name}", "<b>", "\ud800"), fc.integer({ min: 500, max: 20_000 }))
  .map(([piece, times]) => piece.repeat(times));

const anyString = fc.oneof(
  { weight: 4, arbitrary: awkwardString },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: longString },
);

const ODD_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  " ",
  "to ",
  "TO",
  "$ref",
  "a.b",
  "a/b",
  "~1",
  "0",
  "length",
  "\u0000",
  "\u202eto",
  "data",
  "cc",
];
const oddKey = fc.oneof(fc.constantFrom(...ODD_KEYS), awkwardString);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }) },
  { weight: 2, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 0.5, [], {}) },
);

/** Built with Object.fromEntries, so `__proto__` is an own key and JSON.stringify writes it. */
const oddObject = fc.array(fc.tuple(oddKey, anyJson), { maxLength: 6 }).map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

/** Small items only: a huge array of long strings would be a body of hundreds of MB. */
const hugeArray = fc
  .tuple(fc.oneof(fc.jsonValue({ maxDepth: 0 }), fc.constant("ada@example.com")), fc.integer({ min: 200, max: 3_000 }))
  .map(([item, length]) => Array.from({ length }, () => item));

const deepNesting = fc.tuple(fc.integer({ min: 50, max: 2_000 }), fc.boolean()).map(([depth, inArrays]) => {
  let nested: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) nested = inArrays ? [nested] : { a: nested };
  return nested;
});

/** A valid send just over the default body_limit of 1 MB. */
const OVER_BODY_LIMIT: SendRequest = { ...aWelcomeSend(), data: { ...WELCOME_DATA, name: "x".repeat(1_100_000) } };

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: anyJson },
  { weight: 2, arbitrary: oddObject },
  { weight: 1, arbitrary: hugeArray },
  { weight: 1, arbitrary: deepNesting },
);

const anAddress = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("ada@example.com", "grace.hopper+test@mail.example.co.uk", "o'brien@example.ie", "x@example.museum") },
  { weight: 2, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: awkwardString.map((local) => `${local}@example.com`) },
  { weight: 1, arbitrary: awkwardString },
);

const SHIPPED_TEMPLATE_IDS = ["welcome", "password-reset", "order-receipt", "newsletter"] as const;
const SEND_FIELDS = ["to", "template_id", "data", "cc", "bcc", "reply_to", "subject"] as const;
type SendField = (typeof SEND_FIELDS)[number];

// ---------------------------------------------------------------------------------------------
// Near-valid requests: a valid send of a shipped template with one thing changed.
// ---------------------------------------------------------------------------------------------

type Mutation =
  | { kind: "none" }
  | { kind: "set-field"; field: SendField; value: unknown }
  | { kind: "drop-field"; field: SendField }
  | { kind: "add-top-level-key"; key: string; value: unknown }
  | { kind: "set-data-value"; key: string | undefined; value: unknown }
  | { kind: "drop-data-value"; index: number }
  | { kind: "recipients"; field: "cc" | "bcc"; addresses: string[] };

const aMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("set-field" as const),
      field: fc.constantFrom(...SEND_FIELDS),
      value: fc.oneof(anyString, wrongValue, anAddress, awkwardLine),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop-field" as const), field: fc.constantFrom(...SEND_FIELDS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("add-top-level-key" as const), key: oddKey, value: anyJson }) },
  {
    // A value for an existing placeholder (key undefined) or an extra key: most are accepted.
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("set-data-value" as const),
      key: fc.option(oddKey, { nil: undefined }),
      value: fc.oneof(
        { weight: 4, arbitrary: awkwardLine },
        { weight: 2, arbitrary: fc.array(awkwardLine, { maxLength: 5 }) },
        { weight: 1, arbitrary: longString },
        { weight: 1, arbitrary: wrongValue },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop-data-value" as const), index: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("recipients" as const),
      field: fc.constantFrom("cc" as const, "bcc" as const),
      addresses: fc.oneof(
        fc.array(anAddress, { maxLength: 5 }),
        fc.integer({ min: 990, max: 1_010 }).map((count) => Array.from({ length: count }, (_, index) => `r${index}@example.com`)),
      ),
    }),
  },
);

const aValidSend = fc.record({
  templateId: fc.constantFrom(...SHIPPED_TEMPLATE_IDS),
  cc: fc.option(fc.array(fc.constantFrom("grace@example.com", "linus@example.org"), { maxLength: 2 }), { nil: undefined }),
  replyTo: fc.option(fc.constant("support@example.com"), { nil: undefined }),
  subject: fc.option(
    awkwardLine.filter((line) => line.length > 0),
    { nil: undefined },
  ),
});

type GeneratedSend = Record<string, unknown> & { data?: unknown };

function applyMutation(send: GeneratedSend, mutation: Mutation): GeneratedSend {
  const mutated: GeneratedSend = { ...send, data: { ...(send.data as TemplateData) } };
  switch (mutation.kind) {
    case "none":
      return mutated;
    case "set-field":
      mutated[mutation.field] = mutation.value;
      return mutated;
    case "drop-field":
      return Object.fromEntries(Object.entries(mutated).filter(([key]) => key !== mutation.field));
    case "add-top-level-key":
      return Object.fromEntries([...Object.entries(mutated), [mutation.key, mutation.value]]);
    case "set-data-value": {
      const data = mutated.data as Record<string, unknown>;
      const key = mutation.key ?? Object.keys(data)[0] ?? "name";
      mutated.data = Object.fromEntries([...Object.entries(data), [key, mutation.value]]);
      return mutated;
    }
    case "drop-data-value": {
      const entries = Object.entries(mutated.data as Record<string, unknown>);
      mutated.data = Object.fromEntries(entries.filter((_, index) => index !== mutation.index % Math.max(entries.length, 1)));
      return mutated;
    }
    case "recipients":
      mutated[mutation.field] = mutation.addresses;
      return mutated;
  }
}

// ---------------------------------------------------------------------------------------------
// Headers and content types.
// ---------------------------------------------------------------------------------------------

/** Framing and connection headers belong to Node's HTTP parser, not to the app. */
const FRAMING_HEADERS = [
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
  "http2-settings",
];
/** Generated on their own, so that most cases still reach the parser and the contract check. */
const HEADERS_GENERATED_APART = ["content-type", "authorization", "content-encoding"];
const HEADERS_LEFT_OUT = new Set([...FRAMING_HEADERS, ...HEADERS_GENERATED_APART]);

const TOKEN_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~".split("");

const headerName = fc
  .oneof(
    fc.constantFrom(
      "x-sendmock-fault",
      "X-Sendmock-Fault-Status",
      "x-sendmock-fault-delay",
      "X-Sendmock-Fault-Retry-After",
      "accept",
      "accept-charset",
      "accept-encoding",
      "x-http-method-override",
      "x-forwarded-for",
      "x-forwarded-proto",
      "origin",
      "cookie",
      "range",
      "if-none-match",
      "content-language",
      "x-request-id",
      "x-sendmock-warning",
      "idempotency-key",
    ),
    fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), minLength: 1, maxLength: 30 }),
  )
  .filter((name) => !HEADERS_LEFT_OUT.has(name.toLowerCase()));

/** What Node lets a header value hold: tab, visible ASCII, space, and the bytes 0x80-0xff. */
const headerValue = fc.oneof(
  fc.constantFrom(
    "server_error",
    "timeout",
    "disconnect",
    "lost_answer",
    "malformed_response",
    "latency",
    "rate_limit",
    "respond",
    "503",
    "60000",
    "-1",
    "*/*",
    "gzip",
    "DELETE",
  ),
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((code) => String.fromCharCode(code)),
    maxLength: 120,
  }),
);

const extraHeaders = fc
  .array(
    fc.tuple(headerName, fc.oneof({ weight: 4, arbitrary: headerValue }, { weight: 1, arbitrary: fc.array(headerValue, { minLength: 2, maxLength: 3 }) })),
    { maxLength: 6 },
  )
  .map((entries) => Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value])) as Record<string, string | string[]>);

const MEDIA_TYPES = [
  "application/json",
  "APPLICATION/JSON",
  "Application/Json",
  "text/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "application/octet-stream",
  "*/*",
  "application/*",
  "json",
  "application/json/extra",
  "",
];
const CHARSETS = ["utf-8", "UTF-8", '"utf-8"', "Utf-8", "utf8", "latin1", "iso-8859-1", "utf-16", "utf-16le", "utf-32", "us-ascii", "x-unknown", '""', ""];

const parameterName = fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), minLength: 1, maxLength: 8 });

const contentTypeHeader = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MEDIA_TYPES) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...MEDIA_TYPES), fc.constantFrom(...CHARSETS)).map(([type, charset]) => `${type}; charset=${charset}`) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom("application/json", "application/json "), fc.array(fc.tuple(parameterName, headerValue), { maxLength: 3 }))
      .map(([type, parameters]) => [type, ...parameters.map(([name, value]) => `${name}=${value}`)].join("; ")),
  },
  { weight: 1, arbitrary: headerValue },
);

const authorizationHeader = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${API_KEY}`) },
  { weight: 1, arbitrary: fc.constantFrom("Bearer", "Bearer ", "bearer test-key-0001", "Basic dGVzdDp0ZXN0", "Bearer  spaced", "Token x") },
  { weight: 1, arbitrary: headerValue },
);

type BodyEncoding = "identity" | "gzip" | "deflate" | "br" | "gzip-label-on-plain-body" | "gzip-bomb" | "unknown";

/** 5 MB of spaces after a JSON object's opening brace: a few KB on the wire, over body_limit once inflated. */
const GZIP_BOMB = zlib.gzipSync(Buffer.concat([Buffer.from("{"), Buffer.alloc(5_000_000, " ")]));

async function encodeBody(text: string, encoding: BodyEncoding): Promise<{ body: string | Uint8Array; contentEncoding: string | undefined }> {
  switch (encoding) {
    case "identity":
      return { body: text, contentEncoding: undefined };
    case "gzip":
      return { body: await promisify(zlib.gzip)(text), contentEncoding: "gzip" };
    case "deflate":
      return { body: await promisify(zlib.deflate)(text), contentEncoding: "deflate" };
    case "br":
      // Quality 5, not brotli's default 11: the mock decodes either alike, and 11 took 7-14 ms for a 20-30 KB body.
      return { body: await promisify(zlib.brotliCompress)(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }), contentEncoding: "br" };
    case "gzip-label-on-plain-body":
      return { body: text, contentEncoding: "gzip" };
    case "gzip-bomb":
      return { body: GZIP_BOMB, contentEncoding: "gzip" };
    case "unknown":
      return { body: text, contentEncoding: "x-squash" };
  }
}

// ---------------------------------------------------------------------------------------------

describe.each(SHAPES)("POST /send under fuzzing, response shape %s", (shape) => {
  let mock: RunningSendMock;
  let agent: http.Agent;

  beforeAll(async () => {
    mock = await startSendMock({
      port: 0,
      responseShape: shape,
      watchTemplates: false,
      allowFaultHeader: false,
      allowMagicRecipients: false,
      // Every property checks the count of captured messages: none may be dropped.
      capacity: 100_000,
    });
    // One kept-alive socket: each case also proves the connection survives the one before.
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });

  afterAll(async () => {
    agent.destroy();
    await mock.close();
  });

  /** Runs a property and checks, across all its cases, that the outbox grew by the 2xx responses. */
  async function checkProperty<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, toRequest: (value: T) => Promise<RawRequest> | RawRequest): Promise<void> {
    let accepted = 0;
    const countBefore = (await mock.outbox.stats()).count;
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        const { captured } = await exerciseCase(mock, agent, await toRequest(value));
        if (captured !== undefined) accepted += 1;
      }),
      { numRuns },
    );
    // Each case is followed by one valid send, captured too.
    expect((await mock.outbox.stats()).count).toBe(countBefore + accepted + numRuns);
  }

  it(
    "answers any JSON document (scalars, arrays, odd keys, huge arrays, deep nesting) with a documented answer",
    async () => {
      const document = fc.oneof(
        { weight: 12, arbitrary: anyJson },
        { weight: 9, arbitrary: oddObject },
        { weight: 3, arbitrary: hugeArray },
        { weight: 3, arbitrary: deepNesting },
        { weight: 1, arbitrary: fc.constant(OVER_BODY_LIMIT) },
      );
      await checkProperty(document, RUNS_PER_SHAPE.arbitraryJson, jsonRequest);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "answers a send whose every field may have a wrong type, plus odd extra keys, with a documented answer",
    async () => {
      const fieldValue = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof(valid, wrongValue);
      const send = fc.tuple(
        fc.record(
          {
            to: fieldValue(anAddress),
            template_id: fieldValue(fc.constantFrom(...SHIPPED_TEMPLATE_IDS)),
            data: fieldValue(fc.dictionary(oddKey, fc.oneof(anyString, fc.array(anyString, { maxLength: 3 })), { maxKeys: 6 })),
            cc: fieldValue(fc.array(anAddress, { maxLength: 3 })),
            bcc: fieldValue(fc.array(anAddress, { maxLength: 3 })),
            reply_to: fieldValue(anAddress),
            subject: fieldValue(anyString),
          },
          { requiredKeys: [] },
        ),
        fc.option(oddObject, { nil: undefined }),
      );
      await checkProperty(send, RUNS_PER_SHAPE.wrongTypes, ([fields, extra]) => jsonRequest({ ...extra, ...fields }));
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "answers arbitrary bytes, and valid JSON with bytes spliced in or cut short, with a documented answer",
    async () => {
      const validText = JSON.stringify(aWelcomeSend());
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 2_048 }),
        fc.tuple(fc.nat({ max: validText.length }), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([at, inserted]) => {
          const valid = Buffer.from(validText);
          return Buffer.concat([valid.subarray(0, at), inserted, valid.subarray(at)]);
        }),
        fc.nat({ max: validText.length }).map((length) => Buffer.from(validText).subarray(0, length)),
      );
      await checkProperty(bytes, RUNS_PER_SHAPE.rawBytes, (body) => ({ body, headers: baseHeaders() }));
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "answers any extra headers, content type, charset, content encoding and Authorization with a documented answer",
    async () => {
      const headered = fc.record({
        extra: extraHeaders,
        contentType: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 9, arbitrary: contentTypeHeader }),
        authorization: authorizationHeader,
        encoding: fc.constantFrom<BodyEncoding>("identity", "identity", "gzip", "deflate", "br", "gzip-label-on-plain-body", "gzip-bomb", "unknown"),
        mutation: aMutation,
      });
      await checkProperty(headered, RUNS_PER_SHAPE.headersAndContentTypes, async ({ extra, contentType, authorization, encoding, mutation }) => {
        const { body, contentEncoding } = await encodeBody(JSON.stringify(applyMutation({ ...aWelcomeSend() }, mutation)), encoding);
        return {
          body,
          headers: {
            ...extra,
            authorization,
            ...(contentType !== undefined && { "content-type": contentType }),
            ...(contentEncoding !== undefined && { "content-encoding": contentEncoding }),
          },
        };
      });
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "accepts or rejects a valid send with one field changed, and captures what an accepted one said",
    async () => {
      let accepted = 0;
      const countBefore = (await mock.outbox.stats()).count;
      await fc.assert(
        fc.asyncProperty(aValidSend, aMutation, async (valid, mutation) => {
          const template = mock.templates.get(valid.templateId);
          expect(template?.sampleData, `${valid.templateId} has sample_data`).toBeDefined();
          const send: GeneratedSend = {
            to: "ada@example.com",
            template_id: valid.templateId,
            data: { ...template?.sampleData },
            ...(valid.cc !== undefined && { cc: valid.cc }),
            ...(valid.replyTo !== undefined && { reply_to: valid.replyTo }),
            ...(valid.subject !== undefined && { subject: valid.subject }),
          };
          const request = applyMutation(send, mutation);
          const { response, captured } = await exerciseCase(mock, agent, jsonRequest(request));
          if (captured === undefined) return;
          accepted += 1;
          expect(response.status).toBe(200);
          expect(captured.to).toBe(request.to);
          expect(captured.template_id).toBe(request.template_id);
          if (typeof request.subject === "string") expect(captured.subject).toBe(request.subject);
          expect(captured.subject, "a captured subject never holds a line break").not.toMatch(/[\r\n]/);
        }),
        { numRuns: RUNS_PER_SHAPE.nearValid },
      );
      expect((await mock.outbox.stats()).count).toBe(countBefore + accepted + RUNS_PER_SHAPE.nearValid);
      // Most near-valid cases must reach the 2xx path, or the property says little about it.
      expect(accepted).toBeGreaterThan(RUNS_PER_SHAPE.nearValid / 4);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
