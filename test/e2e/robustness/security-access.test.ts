// Who can reach the mock: the address it binds (loopback unless an admin token guards it) and the admin token on every call of the inspection API.

import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { ConfigError, startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { aRunningMockForThisTest, aRunningMock, bearer, expectContract, sharedMockBuiltBy } from "../../support/helpers.js";
import { postSend, readResponse } from "./security-requests.js";

const ADMIN_TOKEN = "admin-token-7c1e";

/** One running mock for the tests of the enclosing describe: started once, reset before each test, closed at the end. */
function aSharedRunningMock(options: SendMockOptions): () => RunningSendMock {
  return sharedMockBuiltBy(() => aRunningMock(options));
}

/** The non-loopback IPv4 addresses of this machine, which a server bound to loopback must not respond on. */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && entry.family === "IPv4")
    .map((entry) => entry.address);
}

async function canConnect(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
}

describe("the address it listens on", () => {
  // The CLI's printed http://127.0.0.1:... line is covered by test/e2e/cli.test.ts, the refusal of
  // 0.0.0.0 by the CLI and by resolveConfig in test/e2e/cli.test.ts and test/unit/config.test.ts.

  it("is 127.0.0.1 by default, unreachable from the machine's other addresses", async () => {
    const mock = await aRunningMockForThisTest();

    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await canConnect(`${mock.url}/_mock/health`)).toBe(true);
    for (const address of externalAddresses()) {
      expect(await canConnect(`http://${address}:${mock.port}/_mock/health`), address).toBe(false);
    }
  });

  it("is refused beyond loopback without admin_token, with one line saying why", async () => {
    const refused = startSendMock({ port: 0, host: "0.0.0.0", watchTemplates: false });

    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/^refusing to listen on 0\.0\.0\.0 without admin_token: [^\n]+$/);
  });

  it("may be every interface with admin_token, and then the inspection API answers only with the token", async () => {
    const mock = await aRunningMockForThisTest({ host: "0.0.0.0", adminToken: ADMIN_TOKEN });
    const onLoopback = `http://127.0.0.1:${mock.port}`;

    expect(mock.url).toBe(`http://0.0.0.0:${mock.port}`);
    expect((await fetch(`${onLoopback}/_mock/messages`)).status).toBe(401);
    expect((await fetch(`${onLoopback}/_mock/messages`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
    for (const address of externalAddresses()) {
      expect((await fetch(`http://${address}:${mock.port}/_mock/messages`)).status, address).toBe(401);
    }
  });
});

// ---------------------------------------------------------------------------------------------

interface AdminCall {
  method: string;
  /** As in openapi/admin.yaml, `{id}` included. */
  contractPath: string;
}

const ADMIN_METHODS = ["get", "post", "patch", "put", "delete"] as const;

/** Every operation of the inspection API, read from its contract so a new one is covered too. */
function adminCalls(): AdminCall[] {
  const file = fileURLToPath(new URL("../../../openapi/admin.yaml", import.meta.url));
  const contract = YAML.parse(readFileSync(file, "utf8")) as { paths: Record<string, Partial<Record<string, unknown>>> };
  return (
    Object.entries(contract.paths)
      // The inbox page loads without the token (test/http/events.test.ts), and asks for it.
      .filter(([contractPath]) => contractPath.startsWith("/_mock/") && contractPath !== "/_mock/")
      .flatMap(([contractPath, item]) => ADMIN_METHODS.filter((method) => item[method] !== undefined).map((method) => ({ method, contractPath })))
  );
}

/** A request body each call accepts, where it needs one. */
const BODIES: Record<string, unknown> = {
  "patch /_mock/config": { strict_data: true },
  "post /_mock/faults": { fault: "latency", delay_ms: 1 },
  "post /_mock/outcomes": { outcome: "bounced", times: 1 },
  "post /_mock/clock": { advance_ms: 0 },
  "post /_mock/messages/{id}/events": { type: "message.sent" },
  "post /_mock/webhooks": { url: "http://127.0.0.1:9/hooks" },
};

/** The ids a call's path may name. */
interface CallIds {
  faultId: string;
  outcomeId: string;
  webhookId: string;
  deliveryId: string;
}

/** The id a call's path names: a rule of its kind, a webhook or one of its deliveries, a template, else the newest message. */
function idFor(contractPath: string, ids: CallIds): string {
  if (contractPath.startsWith("/_mock/faults")) return ids.faultId;
  if (contractPath.startsWith("/_mock/outcomes")) return ids.outcomeId;
  if (contractPath.startsWith("/_mock/webhooks/deliveries")) return ids.deliveryId;
  if (contractPath.startsWith("/_mock/webhooks")) return ids.webhookId;
  return contractPath.startsWith("/_mock/templates") ? "welcome" : "latest";
}

async function callAdmin(mock: RunningSendMock, call: AdminCall, ids: CallIds, authorization: string | undefined) {
  const body = BODIES[`${call.method} ${call.contractPath}`];
  const controller = new AbortController();
  // A sandbox's name: DELETE /_mock/sandboxes/{name} forgets one, known or not.
  const path = call.contractPath.replace("{id}", idFor(call.contractPath, ids)).replace("{name}", "a-sandbox");
  const response = await fetch(`${mock.url}${path}`, {
    method: call.method.toUpperCase(),
    headers: { ...(authorization !== undefined && { Authorization: authorization }), ...(body !== undefined && { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: controller.signal,
  });
  // The event stream stays open: its status and headers are the response.
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    controller.abort();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: "", text: "" };
  }
  return readResponse(response);
}

/** A webhook (the only one) and an attempt to deliver an event of the newest message to it, refused by a closed port. */
async function aWebhookWithADelivery(mock: RunningSendMock): Promise<{ webhookId: string; deliveryId: string }> {
  for (const webhook of await mock.webhooks.list()) await mock.webhooks.remove(webhook.id);
  const webhook = await mock.webhooks.add({ url: "http://127.0.0.1:9/hooks", events: ["message.complained"] });
  const appended = await fetch(`${mock.url}/_mock/messages/latest/events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "message.complained" }),
  });
  expect(appended.status).toBe(201);
  await mock.clock.advance(0);
  const [delivery] = await mock.webhooks.deliveries({ webhookId: webhook.id });
  return { webhookId: webhook.id, deliveryId: delivery?.id ?? "" };
}

describe("with admin_token, the inspection API", () => {
  // test/http/admin-access.test.ts checks a list of calls without a token and with a wrong one of the
  // same length; these take every call of the contract, and the tokens a careless compare lets through or trips on.
  // Every test here adds its own rule and sends its own messages, all of which reset clears.
  const shared = aSharedRunningMock({ adminToken: ADMIN_TOKEN });
  const calls = adminCalls();
  const refusals = [
    ["no Authorization header", undefined, "missing_api_key"],
    ["an empty Bearer", "Bearer ", "missing_api_key"],
    ["another scheme with the right token", `Basic ${ADMIN_TOKEN}`, "missing_api_key"],
    ["a wrong token of the same length", `Bearer ${ADMIN_TOKEN.slice(0, -1)}X`, "invalid_api_key"],
    ["the token without its last character", `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, "invalid_api_key"],
    ["the token with a character more", `Bearer ${ADMIN_TOKEN}0`, "invalid_api_key"],
    ["a much longer token", `Bearer ${ADMIN_TOKEN.repeat(40)}`, "invalid_api_key"],
    ["an API key", "Bearer test-key-0001", "invalid_api_key"],
  ] as const;

  it("covers the calls of the contract", () => {
    expect(calls.length).toBeGreaterThanOrEqual(15);
    expect(calls).toContainEqual({ method: "get", contractPath: "/_mock/events" });
    expect(calls).toContainEqual({ method: "delete", contractPath: "/_mock/faults/{id}" });
  });

  it.each(refusals)("answers every call with %s 401 in the contract's shape", async (_case, authorization, code) => {
    const mock = shared();
    const { id: faultId } = await mock.faults.add({ fault: "latency", delay_ms: 1 });
    const { id: outcomeId } = await mock.outcomes.add({ outcome: "bounced" });
    const before = await mock.faults.list();

    for (const call of calls) {
      const response = await callAdmin(mock, call, { faultId, outcomeId, webhookId: "wh_0", deliveryId: "whd_0" }, authorization);
      const where = `${call.method} ${call.contractPath}`;
      expect(response.status, where).toBe(401);
      expect(response.headers["x-sendmock-error-code"], where).toBe(code);
      expect(response.body, where).toEqual({ success: false, error: { code, message: expect.stringMatching(/admin token/i) as unknown } });
      await expectContract(response, { contract: "admin", method: call.method, path: call.contractPath });
    }
    // Nothing was done on the refused calls' behalf.
    expect(await mock.faults.list()).toEqual(before);
  });

  it("answers every call that carries the token", async () => {
    const mock = shared();

    for (const call of calls) {
      // DELETE and reset empty the outbox and the rules, so each call starts from a message and a rule.
      expect((await postSend(mock.url)).status).toBe(200);
      const { id: faultId } = await mock.faults.add({ fault: "latency", delay_ms: 1 });
      const { id: outcomeId } = await mock.outcomes.add({ outcome: "bounced" });
      const { webhookId, deliveryId } = await aWebhookWithADelivery(mock);
      const response = await callAdmin(mock, call, { faultId, outcomeId, webhookId, deliveryId }, `Bearer ${ADMIN_TOKEN}`);
      expect(response.status, `${call.method} ${call.contractPath}: ${response.text}`).toBeLessThan(300);
    }
  });
});

// ---------------------------------------------------------------------------------------------
