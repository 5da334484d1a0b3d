// Property-based robustness of POST /send against arbitrary bytes and any headers, content type, charset, encoding and Authorization: a documented response, never a 5xx.
//
// Generated cases per run: 3,200 of the 10,000 the fuzz files send between them (two properties, 1,600 cases per response shape; see
// RUNS_PER_SHAPE in fuzz-run.ts), each followed by a valid send. fast-check draws a fresh seed every
// run and prints it, with the shrunk counterexample, when a property fails; pass it back as
// `fc.assert(..., { seed, path })` to replay (in checkProperty, fuzz-run.ts).

import { promisify } from "node:util";
import zlib from "node:zlib";
import fc from "fast-check";
import { it } from "vitest";
import { API_KEY } from "../../support/helpers.js";
import { aMutation, applyMutation, aWelcomeSend } from "./fuzz-generators.js";
import { baseHeaders, countedCases, describeFuzzing, PROPERTY_TIMEOUT_MS, RUNS_PER_SHAPE } from "./fuzz-run.js";

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

const { exerciseCase } = countedCases(["rawBytes", "headersAndContentTypes"]);

describeFuzzing(exerciseCase, ({ checkProperty }) => {
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
});
