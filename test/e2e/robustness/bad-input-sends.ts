// What the bad-input files share: POST /send with exact bytes on a kept-alive socket, every response held to the contract, and the checks of what the client is told and what is captured.

import http from "node:http";
import { afterAll, expect } from "vitest";
import type { CapturedMessage, ErrorCode, RunningSendMock } from "../../../src/index.js";
import { aSendRequest, API_KEY, errorCodeOf, expectContract } from "../../support/helpers.js";
import { postRaw, type RawResponse } from "./post-raw.js";

/** The welcome template's placeholders as plain strings: a test copies them into a Record<string, string>, which send-calls' TemplateData does not fit. */
export const WELCOME_DATA = { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" };
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface ReadResponse extends RawResponse {
  body: unknown;
}

interface RawSendOptions {
  /** `null` sends no Content-Type at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** sendRaw and sendJson over one kept-alive socket for the file, destroyed after it, and expectStillServing, which sends with them. */
export function rawSends(): {
  sendRaw: (mock: RunningSendMock, body: string | Buffer, options?: RawSendOptions) => Promise<ReadResponse>;
  sendJson: (mock: RunningSendMock, body: unknown, options?: RawSendOptions) => Promise<ReadResponse>;
  expectStillServing: (mock: RunningSendMock) => Promise<void>;
} {
  const agent = new http.Agent({ keepAlive: true });
  afterAll(() => agent.destroy());

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

  /** What must hold after every hostile request: the server still takes a plain valid send. */
  async function expectStillServing(mock: RunningSendMock): Promise<void> {
    const response = await sendJson(mock, aSendRequest());
    expect(response.status).toBe(200);
  }

  return { sendRaw, sendJson, expectStillServing };
}

export function errorMessageOf(response: ReadResponse): string {
  const body = response.body as { error?: { message?: unknown }; message?: unknown };
  const message = body.error?.message ?? body.message;
  expect(message, "an error answer carries a message").toBeTypeOf("string");
  return String(message);
}

/** Status, X-Sendmock-Error-Code, the exact shape-a envelope, and what the message names. */
export function expectRejected(response: ReadResponse, expected: { status: number; code: ErrorCode; says: string | RegExp }): void {
  expect(response.status).toBe(expected.status);
  expect(errorCodeOf(response)).toBe(expected.code);
  const message = errorMessageOf(response);
  expect(response.body).toEqual({ success: false, error: { code: expected.code, message } });
  expect(message).toMatch(expected.says);
}

export async function expectNothingCaptured(mock: RunningSendMock): Promise<void> {
  expect((await mock.outbox.stats()).count).toBe(0);
}

export async function capturedMessageOf(mock: RunningSendMock, response: ReadResponse): Promise<CapturedMessage> {
  expect(response.status, response.text).toBe(200);
  const { message_id: messageId } = response.body as { message_id: string };
  const message = await mock.outbox.get(messageId);
  expect(message, "the accepted send was captured").toBeDefined();
  return message as CapturedMessage;
}

export function expectPrototypeClean(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
}
