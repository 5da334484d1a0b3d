// Sandboxes on the Redis store are shared by every replica like the rest of the state: a sandbox's messages, clock and rules
// are one whichever replica is asked, its name counts toward max_sandboxes once, and a reset through any forgets them all.

import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis } from "../../support/redis.js";

const skipReason = redisUnavailableReason();
const replicas: RunningSendMock[] = [];

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((replica) => replica.close()));
});

afterAll(async () => {
  if (skipReason === undefined) await (await sharedRedis()).stop();
});

async function twoReplicas(options: SendMockOptions = {}): Promise<[RunningSendMock, RunningSendMock]> {
  const shared = { port: 0, watchTemplates: false, redisUrl: (await sharedRedis()).url, keyPrefix: aKeyPrefix(), ...options };
  const a = await startSendMock(shared);
  replicas.push(a);
  const b = await startSendMock(shared);
  replicas.push(b);
  return [a, b];
}

async function sendIn(replica: RunningSendMock, sandbox: string): Promise<{ status: number; id: string }> {
  const response = await fetch(`${replica.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Sendmock-Sandbox": sandbox, ...bearer() },
    body: JSON.stringify(aSendRequest()),
  });
  return { status: response.status, id: ((await response.json()) as { message_id: string }).message_id };
}

describe.skipIf(skipReason !== undefined)(`sandboxes on replicas${skipReason === undefined ? "" : ` (skipped: ${skipReason})`}`, () => {
  it("show a sandbox's messages through either replica, and a wait on one hears a send through the other", async () => {
    const [a, b] = await twoReplicas();
    const waiting = (await b.sandbox("worker-1")).outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 5000 });
    const sent = await sendIn(a, "worker-1");
    await sendIn(b, "worker-2");

    expect((await waiting).id).toBe(sent.id);
    expect((await (await b.sandbox("worker-1")).outbox.list()).messages.map((message) => message.id)).toEqual([sent.id]);
    const listed = (await (await fetch(`${b.url}/_mock/messages?sandbox=worker-2`)).json()) as { total: number };
    expect(listed.total).toBe(1);
    expect((await a.outbox.list()).total).toBe(0);
  });

  it("move a sandbox's clock for both replicas, and no other sandbox's", async () => {
    const [a, b] = await twoReplicas();
    await (await a.sandbox("worker-1")).clock.advance(60_000);

    await expect.poll(async () => (await b.sandbox("worker-1")).clock.offsetMs(), { timeout: 2000, interval: 10 }).toBe(60_000);
    expect((await b.sandbox("worker-2")).clock.offsetMs()).toBe(0);
    expect(b.clock.offsetMs()).toBe(0);
  });

  it("count each name once toward max_sandboxes across replicas, and a reset through one forgets them for both", async () => {
    const [a, b] = await twoReplicas({ maxSandboxes: 1 });
    expect((await sendIn(a, "worker-1")).status).toBe(200);
    expect((await sendIn(b, "worker-1")).status).toBe(200);
    expect((await sendIn(b, "worker-2")).status).toBe(400);

    await b.reset();

    expect((await sendIn(a, "worker-2")).status).toBe(200);
    // worker-1 was forgotten with its messages: it is a new name again, one past the bound.
    expect((await sendIn(b, "worker-1")).status).toBe(400);
    expect((await (await b.sandbox("worker-2")).outbox.list()).total).toBe(1);
  });

  it("keep a fault rule of one sandbox to that sandbox's sends through every replica", async () => {
    const [a, b] = await twoReplicas();
    await (await a.sandbox("worker-1")).faults.add({ fault: "server_error" });

    expect((await sendIn(b, "worker-1")).status).toBe(500);
    expect((await sendIn(b, "worker-2")).status).toBe(200);
  });
});
