// The lifecycle tests' calls: a send that must be accepted, admin calls checked against openapi/admin.yaml, a message, and moving the clock.

import request, { type Response } from "supertest";
import { expect } from "vitest";
import type { CapturedMessage, SendMock, SendRequest } from "../../src/index.js";
import { aSendRequest, bearer, expectContract } from "./helpers.js";

/** A step long enough that real time never moves a message on while a test looks at it. */
export const STEP_MS = 60_000;

export async function send(mock: SendMock, overrides: Partial<SendRequest> = {}, key?: string): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer(key)).send(aSendRequest(overrides));
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

export async function admin(mock: SendMock, method: "get" | "post" | "delete", path: string, body?: object): Promise<Response> {
  const call = request(mock.app)[method](path);
  const response = body === undefined ? await call : await call.send(body);
  await expectContract(response, {
    contract: "admin",
    method,
    path: path.split("?")[0]?.replace(/msg_[^/]+|latest|out_[^/]+/, (id) => (id.startsWith("out_") ? "{id}" : "{id}")),
  });
  return response;
}

export async function messageOf(mock: SendMock, id: string): Promise<CapturedMessage> {
  const response = await admin(mock, "get", `/_mock/messages/${id}`);
  return response.body as CapturedMessage;
}

export async function advance(mock: SendMock, ms: number): Promise<Response> {
  return admin(mock, "post", "/_mock/clock", { advance_ms: ms });
}

export const typesOf = (message: CapturedMessage): string[] => message.events.map((event) => event.type);
