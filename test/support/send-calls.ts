// POST /send as its tests make it, every response checked against the contract, and what the mock captured and journaled.

import request, { type Response } from "supertest";
import { expect } from "vitest";
import type { CapturedMessage, JournalEntry, SendMock, SendRequest, TemplateData } from "../../src/index.js";
import { bearer, expectContract } from "./helpers.js";

/** POST /send with `body` as JSON and (by default) a valid API key; the response is checked against the contract. */
export async function send(mock: SendMock, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  const response = await request(mock.app)
    .post("/send")
    .set(headers)
    .send(body as object);
  await expectContract(response);
  return response;
}

/**
 * POST /send with `raw` as the exact body text, as a client that builds its own bytes would.
 * `contentType: null` sends no Content-Type header at all.
 */
export async function sendRaw(mock: SendMock, raw: string, options: { contentType: string | null; headers?: Record<string, string> }): Promise<Response> {
  let call = request(mock.app)
    .post("/send")
    .set(options.headers ?? bearer());
  if (options.contentType !== null) call = call.set("Content-Type", options.contentType);
  call = call.send(raw);
  if (options.contentType === null) call = call.unset("Content-Type");
  const response = await call;
  await expectContract(response);
  return response;
}

/**
 * A call that is not POST /send. There is no contract for an unknown path or method, so the
 * error envelope is checked against the error responses of POST /send, the one contract of the API.
 */
export async function callOtherRoute(mock: SendMock, method: "get" | "put" | "delete", route: string): Promise<Response> {
  const response = await request(mock.app)[method](route).set(bearer());
  await expectContract(response);
  return response;
}

/** A send request with `field` left out. */
export function without(body: SendRequest, field: keyof SendRequest): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));
}

/** The tracking id of an accepted send, in either shape. */
export function messageIdOf(response: Response): string {
  const body = response.body as { message_id?: unknown; email_id?: unknown };
  const id = body.message_id ?? body.email_id;
  expect(id, "an accepted send carries message_id or email_id").toBeTypeOf("string");
  return String(id);
}

export async function capturedMessages(mock: SendMock): Promise<CapturedMessage[]> {
  return (await mock.outbox.list()).messages;
}

export async function latestMessage(mock: SendMock): Promise<CapturedMessage> {
  const message = await mock.outbox.get("latest");
  expect(message, "a message was captured").toBeDefined();
  return message as CapturedMessage;
}

/** The journal entry of the last request to /send. */
export async function lastJournalEntry(mock: SendMock): Promise<JournalEntry> {
  const [entry] = (await mock.journal.list({ limit: 1 })).requests;
  expect(entry, "the request is in the journal").toBeDefined();
  return entry as JournalEntry;
}

export const WELCOME_DATA: TemplateData = { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" };
