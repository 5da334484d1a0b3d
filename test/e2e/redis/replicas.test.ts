// Several sendmock replicas on one Redis behave as one mock: what is sent through one is seen,
// awaited and cleared through any other; fault `times` and the rate limit count across them;
// PATCH /_mock/config and reset through one change every replica; each event reaches a webhook
// once, and a replica that stops leaves its due retries to the others.

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { CLI } from "../../support/cli-process.js";
import { aSendRequest, bearer, expectContract } from "../../support/helpers.js";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { aWebhookReceiverForThisTest } from "../../support/webhook-receiver.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis, startRedisServer, type RedisProcess } from "../../support/redis.js";

const skipReason = redisUnavailableReason();
const replicas: RunningSendMock[] = [];
const ownServers: RedisProcess[] = [];

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((replica) => replica.close()));
  await Promise.all(ownServers.splice(0).map((server) => server.stop()));
});

afterAll(async () => {
  if (skipReason === undefined) await (await sharedRedis()).stop();
});

/** Two replicas on one Redis and one key prefix, as behind a load balancer. */
async function twoReplicas(options: SendMockOptions = {}, redisUrl?: string): Promise<[RunningSendMock, RunningSendMock]> {
  const url = redisUrl ?? (await sharedRedis()).url;
  const shared = { port: 0, watchTemplates: false, redisUrl: url, keyPrefix: aKeyPrefix(), ...options };
  const a = await startSendMock(shared);
  replicas.push(a);
  const b = await startSendMock(shared);
  replicas.push(b);
  return [a, b];
}

function send(replica: RunningSendMock, overrides: Parameters<typeof aSendRequest>[0] = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${replica.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body: JSON.stringify(aSendRequest(overrides)),
  });
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

function patchConfig(replica: RunningSendMock, patch: Record<string, unknown>): Promise<Response> {
  return fetch(`${replica.url}/_mock/config`, { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify(patch) });
}

async function configOf(replica: RunningSendMock): Promise<Record<string, unknown>> {
  return json(await fetch(`${replica.url}/_mock/config`));
}

/** The run-time settings as GET /_mock/config shows them. */
async function settingsOf(replica: RunningSendMock): Promise<Record<string, unknown>> {
  const { response_shape, strict_data, rate_limit } = await configOf(replica);
  return { response_shape, strict_data, rate_limit };
}

/** A replica hears a change made through another a moment later, over pub/sub: wait for it, within a bound. */
async function untilSettingsOf(replica: RunningSendMock, expected: Record<string, unknown>, timeoutMs = 2000): Promise<void> {
  await expect.poll(() => settingsOf(replica), { timeout: timeoutMs, interval: 20 }).toEqual(expected);
}

const startUpSettings = { response_shape: "a", strict_data: false, rate_limit: null };

describe.skipIf(skipReason !== undefined)("two replicas on one Redis", () => {
  it("answers an Idempotency-Key sent through A and then B with one message: B replays A's answer", async () => {
    const [a, b] = await twoReplicas();
    const first = await send(a, {}, { "Idempotency-Key": "welcome-ada" });
    const firstBody = await first.text();
    const again = await send(b, {}, { "Idempotency-Key": "welcome-ada" });

    expect(again.status).toBe(200);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    expect((await b.outbox.list()).total).toBe(1);
  });

  it("never captures twice when one Idempotency-Key reaches both replicas at once", async () => {
    const [a, b] = await twoReplicas();
    // Both held a moment by latency, so that the second arrives while the first is in flight.
    const slow = { "Idempotency-Key": "race-1", "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "200" };
    const responses = await Promise.all([send(a, {}, slow), send(b, {}, slow)]);
    const statuses = responses.map((response) => response.status).sort();

    expect([
      [200, 409],
      [200, 200],
    ]).toContainEqual(statuses);
    expect((await a.outbox.list()).total).toBe(1);
  });

  it("shows a message sent through A when listed, fetched or awaited through B", async () => {
    const [a, b] = await twoReplicas();
    const waiting = fetch(`${b.url}/_mock/messages?to=shared@example.com&wait_ms=5000`);
    const sent = await json(await send(a, { to: "shared@example.com" }));

    const waited = await json(await waiting);
    expect(waited.total).toBe(1);
    expect((waited.messages as { id: string }[])[0]?.id).toBe(sent.message_id);
    const fetched = await json(await fetch(`${b.url}/_mock/messages/${String(sent.message_id)}`));
    expect(fetched).toMatchObject({ id: sent.message_id, to: "shared@example.com", template_id: "welcome" });
    expect((await b.outbox.waitFor({ to: "shared@example.com" }, { timeoutMs: 1000 })).id).toBe(sent.message_id);
    expect(await a.outbox.stats()).toEqual(await b.outbox.stats());
  });

  it("resolves a library waitFor on B as soon as A captures", async () => {
    const [a, b] = await twoReplicas();
    const waiting = b.outbox.waitFor({ to: "later@example.com" }, { timeoutMs: 5000 });
    const sent = await json(await send(a, { to: "later@example.com" }));
    expect((await waiting).id).toBe(sent.message_id);
  });

  it("streams a message captured by A to an event stream open on B", async () => {
    const [a, b] = await twoReplicas();
    const controller = new AbortController();
    const stream = await fetch(`${b.url}/_mock/events`, { signal: controller.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    const sent = await json(await send(a, { to: "streamed@example.com" }));
    let seen = "";
    while (!seen.includes(String(sent.message_id))) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    controller.abort();
    expect(seen).toContain("event: message");
    expect(seen).toContain(String(sent.message_id));
  });

  it("fires a fault {times: 3} added on A exactly 3 times under concurrent load spread over A and B", async () => {
    const [a, b] = await twoReplicas();
    const added = await fetch(`${a.url}/_mock/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ fault: "server_error", times: 3 }),
    });
    expect(added.status).toBe(201);

    const responses = await Promise.all(Array.from({ length: 40 }, (_, index) => send(index % 2 === 0 ? a : b)));
    const statuses = responses.map((response) => response.status);

    expect(statuses.filter((status) => status === 500)).toHaveLength(3);
    expect(statuses.filter((status) => status === 200)).toHaveLength(37);
    expect(await json(await fetch(`${b.url}/_mock/faults`))).toEqual({ faults: [] });
  });

  it("admits exactly N sends per window across both replicas", async () => {
    const [a, b] = await twoReplicas({ rateLimit: { requests: 5, perSeconds: 60 } });
    const responses = await Promise.all(Array.from({ length: 20 }, (_, index) => send(index % 2 === 0 ? a : b)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const refused = responses.find((response) => response.status === 429);
    expect(refused?.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("runs each lifecycle step once whichever replicas run due work, on one shared clock", async () => {
    const stepMs = 60_000;
    const [a, b] = await twoReplicas({ lifecycle: { stepMs } });
    const ids = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => String((await json(await send(index % 2 === 0 ? a : b, { to: `r${index}@example.com` }))).message_id)),
    );

    // Both replicas advance at once, so both run the due steps at the same time.
    await Promise.all([a.clock.advance(stepMs), b.clock.advance(stepMs)]);

    for (const id of ids) {
      const message = await json(await fetch(`${a.url}/_mock/messages/${id}`));
      expect((message.events as { type: string }[]).map((event) => event.type)).toEqual(["message.sent", "message.delivered"]);
      expect(message.status).toBe("delivered");
    }
    const clockOnA = await json(await fetch(`${a.url}/_mock/clock`));
    expect(clockOnA.offset_ms).toBe(2 * stepMs);
    await expect.poll(() => b.clock.offsetMs()).toBe(2 * stepMs);

    expect((await fetch(`${b.url}/_mock/reset`, { method: "POST" })).status).toBe(204);
    await expect.poll(() => a.clock.offsetMs()).toBe(0);
  });

  it("delivers each event to a webhook once, signed with the one shared secret, when both replicas run due work", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const stepMs = 60_000;
    const [a, b] = await twoReplicas({ lifecycle: { stepMs }, webhooks: [{ url: receiver.url }] });
    for (let index = 0; index < 10; index += 1) await send(index % 2 === 0 ? a : b, { to: `hook${index}@example.com` });

    await Promise.all([a.clock.advance(stepMs), b.clock.advance(stepMs)]);
    await Promise.all([a.clock.advance(stepMs), b.clock.advance(stepMs)]);

    const ids = receiver.received.map((delivery) => String(delivery.headers["webhook-id"]));
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    const [webhook] = await b.webhooks.list();
    expect(await a.webhooks.list()).toEqual([webhook]);
    const verifier = new StandardWebhook(webhook?.secret ?? "");
    for (const { body, headers } of receiver.received) expect(() => verifier.verify(body, headers as Record<string, string>)).not.toThrow();
    expect(await a.webhooks.deliveries()).toHaveLength(20);
  });

  it("leaves the due retries of a replica that stopped to the other", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500);
    const stepMs = 60_000;
    const [a, b] = await twoReplicas({ lifecycle: { stepMs }, webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    await send(a, { to: "retried@example.com" });
    // Only A runs due work: the first attempt fails there and its retry waits in Redis.
    await a.clock.advance(stepMs);
    expect(receiver.received).toHaveLength(1);
    replicas.splice(replicas.indexOf(a), 1);
    await a.close();

    await b.clock.advance(1000);

    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.headers["webhook-id"]).toBe(receiver.received[0]?.headers["webhook-id"]);
    expect((await b.webhooks.deliveries()).map((delivery) => [delivery.attempt, delivery.status])).toEqual([
      [2, 200],
      [1, 500],
    ]);
  });

  it("clears A's messages, journal and faults when B is reset", async () => {
    const [a, b] = await twoReplicas();
    await send(a);
    await a.faults.add({ fault: "latency", delay_ms: 1 });
    expect((await a.outbox.stats()).count).toBe(1);

    expect((await fetch(`${b.url}/_mock/reset`, { method: "POST" })).status).toBe(204);

    expect(await json(await fetch(`${a.url}/_mock/messages`))).toEqual({ messages: [], total: 0 });
    expect(((await json(await fetch(`${a.url}/_mock/requests`))).requests as unknown[]).length).toBe(0);
    expect(await a.faults.list()).toEqual([]);
  });

  it("finishes the sends in flight when a replica closes: each one answered 200 is stored, none answered 503", async () => {
    const [a, b] = await twoReplicas();
    replicas.splice(replicas.indexOf(a), 1);
    const sends = Array.from({ length: 100 }, (_, index) =>
      send(a, { to: `inflight-${index}@example.com` }).then(
        async (response) => ({ status: response.status, id: response.status === 200 ? String((await json(response)).message_id) : undefined }),
        () => ({ status: 0, id: undefined }),
      ),
    );
    await Promise.race(sends);
    await a.close();
    const outcomes = await Promise.all(sends);

    const accepted = outcomes.filter((outcome) => outcome.status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 0)).toEqual([]);
    for (const { id } of accepted) expect(await b.outbox.get(String(id))).toMatchObject({ id });
  });

  it("shares PATCH /_mock/config: a rate limit set through B limits sends through both, a shape set through A shapes B's errors, a reset restores both", async () => {
    const [a, b] = await twoReplicas();
    const threePerMinute = { requests: 3, per_seconds: 60 };
    // GET /_mock/config shows the bucket size, which is `requests` when no burst is given.
    const threePerMinuteShown = { ...threePerMinute, burst: 3 };

    const limited = await patchConfig(b, { rate_limit: threePerMinute });
    expect(limited.status).toBe(200);
    expect(await json(limited)).toMatchObject({ rate_limit: threePerMinuteShown });
    await untilSettingsOf(a, { ...startUpSettings, rate_limit: threePerMinuteShown });
    const statuses: number[] = [];
    for (let index = 0; index < 10; index += 1) statuses.push((await send(index % 2 === 0 ? a : b)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);

    expect((await patchConfig(a, { response_shape: "b" })).status).toBe(200);
    const shared = { response_shape: "b", strict_data: false, rate_limit: threePerMinuteShown };
    await untilSettingsOf(b, shared);
    expect(await settingsOf(a)).toEqual(shared);
    const refused = await send(b, { template_id: "no-such-template" });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toEqual({ status: "error", message: expect.any(String) as string });

    expect((await fetch(`${a.url}/_mock/reset`, { method: "POST" })).status).toBe(204);
    expect(await settingsOf(a)).toEqual(startUpSettings);
    await untilSettingsOf(b, startUpSettings);
    const unknownTemplate = await send(b, { template_id: "no-such-template" });
    expect(unknownTemplate.status).toBe(422);
    expect(await json(unknownTemplate)).toMatchObject({ success: false, error: { code: "invalid_template_id" } });
  });

  it("gives a replica started later the settings PATCHed before it started, over its own config", async () => {
    const keyPrefix = aKeyPrefix();
    const [a] = await twoReplicas({ keyPrefix });
    await patchConfig(a, { response_shape: "b" });

    const later = await startSendMock({ port: 0, watchTemplates: false, redisUrl: (await sharedRedis()).url, keyPrefix, strictData: true });
    replicas.push(later);

    expect(await settingsOf(later)).toEqual({ response_shape: "b", strict_data: true, rate_limit: null });
  });

  it("keeps two environments on one Redis apart by key prefix", async () => {
    const [a] = await twoReplicas();
    const [other] = await twoReplicas();
    await send(a, { to: "mine@example.com" });
    expect((await other.outbox.list()).total).toBe(0);
  });
});

describe.skipIf(redisUnavailableReason({ needsOwnServer: true }) !== undefined)("when Redis goes away", () => {
  it("refuses to start with one line naming the store", async () => {
    const server = await startRedisServer();
    await server.stop();
    const starting = startSendMock({ port: 0, watchTemplates: false, redisUrl: server.url });
    await expect(starting).rejects.toThrow(`redis store at ${server.url} is unreachable`);
  });

  it("stops `sendmock serve` with exit code 1 and one line naming the store", async () => {
    const server = await startRedisServer();
    await server.stop();
    const failed = await promisify(execFile)(process.execPath, [CLI, "serve", "--port", "0"], { env: { ...process.env, SENDMOCK_REDIS_URL: server.url } }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stdout: string; stderr: string },
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr).toBe(`sendmock: redis store at ${server.url} is unreachable: connect ECONNREFUSED 127.0.0.1:${server.port}\n`);
  });

  it("answers 503 server_error naming the store while it is down, accepts nothing, and recovers when it returns", async () => {
    const server = await startRedisServer();
    ownServers.push(server);
    const [a] = await twoReplicas({}, server.url);
    expect((await send(a)).status).toBe(200);

    await server.stop();
    const refused = await send(a, { to: "lost@example.com" });
    const body = await json(refused);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("x-sendmock-error-code")).toBe("server_error");
    expect(JSON.stringify(body)).toContain(`redis store at ${server.url}`);
    await expectContract({ status: refused.status, headers: Object.fromEntries(refused.headers), body });
    const listing = await fetch(`${a.url}/_mock/messages`);
    expect(listing.status).toBe(503);

    await server.start();
    await expect.poll(async () => (await send(a, { to: "back@example.com" })).status, { timeout: 5000, interval: 100 }).toBe(200);
    const kept = await a.outbox.list();
    expect(kept.messages.map((message) => message.to)).not.toContain("lost@example.com");
  });

  it("refuses PATCH /_mock/config with 503 naming the store while it is down, keeps the last known settings, and takes Redis's when it returns", async () => {
    const server = await startRedisServer();
    ownServers.push(server);
    const [a, b] = await twoReplicas({}, server.url);
    await patchConfig(a, { response_shape: "b" });
    await untilSettingsOf(b, { ...startUpSettings, response_shape: "b" });

    await server.stop();
    const refused = await patchConfig(b, { strict_data: true });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("x-sendmock-error-code")).toBe("server_error");
    expect(JSON.stringify(await json(refused))).toContain(`redis store at ${server.url}`);
    const sendRefused = await send(b);
    expect(sendRefused.status).toBe(503);
    expect(await json(sendRefused)).toEqual({ status: "error", message: expect.stringContaining(`redis store at ${server.url}`) as string });

    // Back without persistence: the change is gone from Redis, so each replica goes back to its
    // start-up settings once it has reconnected (the client retries up to a second apart).
    await server.start();
    await untilSettingsOf(a, startUpSettings, 5000);
    await untilSettingsOf(b, startUpSettings, 5000);
  });
});
