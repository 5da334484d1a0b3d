// Replicas in processes of their own, as in production: each bound holds when requests race
// through them truly at once, and a replica killed (SIGKILL) or stopped (SIGTERM) while it holds
// shared work leaves none of it behind: the lifecycle steps and webhook attempts it had claimed,
// and an Idempotency-Key it was responding, go to the others once its lease runs out (at once when
// it stops cleanly).

import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { idempotencyScope } from "../../../src/domain/idempotency.js";
import { startSendMock, type RunningSendMock } from "../../../src/index.js";
import { serveCli } from "../../support/cli-process.js";
import { aConfigFile } from "../../support/config-files.js";
import { API_KEY, aSendRequest, bearer } from "../../support/helpers.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis } from "../../support/redis.js";
import { aWebhookReceiverForThisTest } from "../../support/webhook-receiver.js";

const skipReason = redisUnavailableReason();
const children: ChildProcessWithoutNullStreams[] = [];
const inProcess: RunningSendMock[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(inProcess.splice(0).map((replica) => replica.close()));
});

afterAll(async () => {
  if (skipReason === undefined) await (await sharedRedis()).stop();
});

/** Mock-clock ms between two events: long, so that only an advance makes steps due. */
const STEP_MS = 60_000;
/** Short, so that a killed replica's work is taken over within the test. */
const LEASE_MS = 500;

interface ReplicaConfig {
  file: string;
  redisUrl: string;
  keyPrefix: string;
}

/** The one config file of every replica of a test: the same Redis and key prefix, as behind a load balancer. */
async function aReplicaConfig(settings: Record<string, unknown>): Promise<ReplicaConfig> {
  const [{ url: redisUrl }, keyPrefix] = [await sharedRedis(), aKeyPrefix()];
  const config = { redis_url: redisUrl, key_prefix: keyPrefix, replica_lease_ms: LEASE_MS, ...settings };
  return { file: await aConfigFile("sendmock.json", JSON.stringify(config)), redisUrl, keyPrefix };
}

/** A replica in a process of its own, so that it can be killed. */
async function aReplicaProcess(config: ReplicaConfig): Promise<{ url: string; child: ChildProcessWithoutNullStreams; exited: Promise<number | null> }> {
  return serveCli(["--port", "0", "--quiet", "--config", config.file], children);
}

/** A replica in the test's process: its outbox and clock are read directly. */
async function aReplicaInProcess(config: ReplicaConfig): Promise<RunningSendMock> {
  const replica = await startSendMock({ port: 0, watchTemplates: false, config: config.file });
  inProcess.push(replica);
  return replica;
}

function send(url: string, to: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body: JSON.stringify(aSendRequest({ to })),
  });
}

describe.skipIf(skipReason !== undefined)("replicas in processes of their own", () => {
  it("keep lifecycle.max_events exact when by-hand events on one message race through both", async () => {
    const maxEvents = 20;
    const config = await aReplicaConfig({ lifecycle: { enabled: false, max_events: maxEvents } });
    const [a, b] = [await aReplicaProcess(config), await aReplicaProcess(config)];
    const { message_id: id } = (await (await send(a.url, "ada@example.com")).json()) as { message_id: string };

    const responses = await Promise.all(
      Array.from({ length: 3 * maxEvents }, (_, index) =>
        fetch(`${(index % 2 === 0 ? a : b).url}/_mock/messages/${id}/events`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ type: "message.opened" }),
        }),
      ),
    );

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(maxEvents);
    expect(statuses.filter((status) => status === 400)).toHaveLength(2 * maxEvents);
    const message = (await (await fetch(`${b.url}/_mock/messages/${id}`)).json()) as { events: unknown[] };
    expect(message.events).toHaveLength(maxEvents);
  });
});

describe.skipIf(skipReason !== undefined)("a replica that goes while it holds shared work", () => {
  it.each(["SIGKILL", "SIGTERM"] as const)(
    "leaves no lifecycle step undone and no event undelivered when %s ends it in the middle of the due work it claimed",
    async (signal) => {
      const receiver = await aWebhookReceiverForThisTest();
      // No grace: a stop cuts the advance it was running, as a rolling restart with a short grace does.
      const config = await aReplicaConfig({ lifecycle: { step_ms: STEP_MS }, webhooks: [{ url: receiver.url }], shutdown_grace_ms: 0 });
      const a = await aReplicaProcess(config);
      const b = await aReplicaInProcess(config);
      const count = 60;
      const ids = await Promise.all(
        Array.from(
          { length: count },
          async (_, index) => ((await (await send(a.url, `crash${index}@example.com`)).json()) as { message_id: string }).message_id,
        ),
      );

      // A runs the steps that fall due; it goes once it has delivered a few of their events.
      const advancing = fetch(`${a.url}/_mock/clock`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ advance_ms: STEP_MS }),
      }).catch(() => undefined);
      await expect.poll(() => receiver.received.length, { timeout: 10_000, interval: 2 }).toBeGreaterThanOrEqual(5);
      a.child.kill(signal);
      await a.exited;
      await advancing;

      // B looks for due work every second, and takes over what A held once A's lease is gone.
      await expect.poll(async () => (await b.outbox.list({ status: "sent" })).total, { timeout: 8000, interval: 50 }).toBe(count);
      await b.clock.advance(STEP_MS);

      const delivered = await b.outbox.list({ status: "delivered", limit: count });
      expect(delivered.total).toBe(count);
      const types = delivered.messages.map((message) => message.events.map((event) => event.type));
      for (const typesOfOne of types) expect(typesOfOne.filter((type, index) => type !== typesOfOne[index - 1])).toEqual(["message.sent", "message.delivered"]);
      const deliveredEvents = new Set(receiver.received.map(({ payload }) => `${payload.data.message_id} ${payload.type}`));
      expect([...deliveredEvents].sort()).toEqual(ids.flatMap((id) => [`${id} message.delivered`, `${id} message.sent`]).sort());
      // Only what A was running when it went may run twice (a step whose event was recorded, an
      // attempt posted, before A could mark it done): A runs one lifecycle step at a time, and at
      // most webhook_concurrency (32) webhook attempts side by side.
      expect(types.flat().length - 2 * count).toBeLessThanOrEqual(1);
      expect(receiver.received.length - 2 * count).toBeLessThanOrEqual(32);
    },
  );

  it("lets a retry through another replica take an Idempotency-Key whose replica was killed while answering it", async () => {
    const config = await aReplicaConfig({});
    const a = await aReplicaProcess(config);
    const b = await aReplicaInProcess(config);
    const key = "welcome-ada";
    // Held by latency on A, after A claimed the key and before it captures anything.
    const first = send(a.url, "ada@example.com", { "Idempotency-Key": key, "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "60000" }).catch(
      () => undefined,
    );
    const redis = new Redis(config.redisUrl);
    try {
      const entry = `${config.keyPrefix}idempotency:${idempotencyScope(API_KEY, key)}`;
      await expect.poll(() => redis.exists(entry), { timeout: 5000, interval: 10 }).toBe(1);
    } finally {
      redis.disconnect();
    }
    expect((await send(b.url, "ada@example.com", { "Idempotency-Key": key })).status).toBe(409);

    a.child.kill("SIGKILL");
    await a.exited;
    await first;

    // The retries a client makes: 409 while A's lease runs out, then B responds to it.
    await expect.poll(async () => (await send(b.url, "ada@example.com", { "Idempotency-Key": key })).status, { timeout: 5000, interval: 50 }).toBe(200);
    const again = await send(b.url, "ada@example.com", { "Idempotency-Key": key });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    const { messages } = await b.outbox.list();
    expect(messages.map((message) => message.id)).toEqual([((await again.json()) as { message_id: string }).message_id]);
  });
});
