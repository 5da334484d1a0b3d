// The inspection API under /_mock as its tests call it, every response checked against openapi/admin.yaml, and the sends they inspect.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { expect, onTestFinished, vi } from "vitest";
import type { ConfigView, JournalList, MessageList, SendMock, SendRequest } from "../../src/index.js";
import { aSendRequest, API_KEY, bearer, expectContract } from "./helpers.js";
import type { HandleScope } from "../../src/handles/index.js";

export type AdminResponse = request.Response;

/** A temporary templates folder, removed when the test finishes; `files` maps a file name to its content. */
export async function aTemplatesFolder(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-admin-"));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, name), content);
  return folder;
}

/** Checks a response of the inspection API against openapi/admin.yaml and hands it back. */
export async function checked(response: AdminResponse, method: string, contractPath: string): Promise<AdminResponse> {
  const contentType = response.headers["content-type"] ?? "";
  const body: unknown = contentType === "" || contentType.startsWith("application/json") ? response.body : response.text;
  await expectContract({ status: response.status, headers: response.headers, body }, { contract: "admin", method, path: contractPath });
  return response;
}

export function expectAdminError(response: AdminResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["x-sendmock-error-code"]).toBe(code);
  const body = response.body as { success?: unknown; error?: { code?: unknown; message?: unknown } };
  expect(body.success).toBe(false);
  expect(body.error?.code).toBe(code);
  expect(body.error?.message).toBeTypeOf("string");
  expect(String(body.error?.message)).not.toBe("");
}

/** POST /send, checked against the send contract. */
export async function send(mock: SendMock, overrides: Partial<SendRequest> = {}, key = API_KEY): Promise<AdminResponse> {
  const response = await request(mock.app).post("/send").set(bearer(key)).send(aSendRequest(overrides));
  await expectContract(response);
  return response;
}

/** POST /send that must be accepted in shape a; returns the message id. */
export async function sendOk(mock: SendMock, overrides: Partial<SendRequest> = {}, key = API_KEY): Promise<string> {
  const response = await send(mock, overrides, key);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

export const receipt = (overrides: Partial<SendRequest> = {}): Partial<SendRequest> => ({
  to: "grace@example.com",
  template_id: "order-receipt",
  data: { name: "Grace", order_number: "1042", items: ["1 x Compiler", "2 x Moth"], total: "$42.00" },
  ...overrides,
});

export async function listMessages(mock: SendMock, query: Record<string, string | number> = {}): Promise<MessageList> {
  const response = await checked(await request(mock.app).get("/_mock/messages").query(query), "get", "/_mock/messages");
  expect(response.status).toBe(200);
  return response.body as MessageList;
}

export async function getConfig(mock: SendMock): Promise<ConfigView> {
  const response = await checked(await request(mock.app).get("/_mock/config"), "get", "/_mock/config");
  expect(response.status).toBe(200);
  return response.body as ConfigView;
}

export async function patchConfig(mock: SendMock, patch: unknown): Promise<AdminResponse> {
  return checked(
    await request(mock.app)
      .patch("/_mock/config")
      .send(patch as object),
    "patch",
    "/_mock/config",
  );
}

export async function listRequests(mock: SendMock, query: Record<string, number> = {}): Promise<JournalList> {
  const response = await checked(await request(mock.app).get("/_mock/requests").query(query), "get", "/_mock/requests");
  expect(response.status).toBe(200);
  return response.body as JournalList;
}

/**
 * `GET /_mock/messages` with a `wait_ms` in `query`, handed back once the wait listens for captures
 * (the default sandbox's outbox has a listener from it): what is sent from then on is heard.
 */
export async function aListeningWait(
  mock: SendMock,
  scope: HandleScope,
  query: Record<string, string | number>,
): Promise<{ response: Promise<AdminResponse> }> {
  const listening = vi.spyOn(scope.outbox, "onCapture");
  const pending = request(mock.app)
    .get("/_mock/messages")
    .query(query)
    .then((response) => response);
  await vi.waitFor(
    () => {
      expect(listening).toHaveBeenCalled();
    },
    { timeout: 2_000, interval: 2 },
  );
  // Wrapped: an async function's promise would take the response's place and wait for it.
  return { response: pending };
}
