// Sandboxes on the Redis store are shared by every replica like the rest of the state: a sandbox's messages, clock and rules
// are one whichever replica is asked, its name counts toward max_sandboxes once, and a reset through any forgets them all.

import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it, type TestContext } from "vitest";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { aHoldingReceiverForThisTest } from "../../support/webhook-receiver.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis, startRedisServer } from "../../support/redis.js";

const skipReason = redisUnavailableReason();
const ownServerSkip = skipReason ?? redisUnavailableReason({ needsOwnServer: true });
const replicas: RunningSendMock[] = [];

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((replica) => replica.close()));
});

/**
 * How a test's replicas are closed: by the afterEach above, or, for a test that runs beside another
 * (concurrent), by its own onTestFinished, as the afterEach would close the other's too.
 */
type Closing = TestContext["onTestFinished"] | undefined;

function closedAfterTheTest(replica: RunningSendMock, onTestFinished: Closing): RunningSendMock {
  if (onTestFinished === undefined) replicas.push(replica);
  else onTestFinished(() => replica.close());
  return replica;
}

afterAll(async () => {
  if (skipReason === undefined) await (await sharedRedis()).stop();
});

async function twoReplicas(options: SendMockOptions = {}): Promise<[RunningSendMock, RunningSendMock]> {
  const shared = { port: 0, watchTemplates: false, redisUrl: (await sharedRedis()).url, keyPrefix: aKeyPrefix(), ...options };
  return twoReplicasOn(shared);
}

async function twoReplicasOn(shared: SendMockOptions, onTestFinished?: Closing): Promise<[RunningSendMock, RunningSendMock]> {
  const a = closedAfterTheTest(await startSendMock(shared), onTestFinished);
  const b = closedAfterTheTest(await startSendMock(shared), onTestFinished);
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

  it("keep a send answered 200 through one replica while a reset through the other is under way: listed by every read, then emptied by the next reset", async () => {
    const [a, b] = await twoReplicas();
    const answered = fetch(`${b.url}/sandbox/worker-1/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "1000", ...bearer() },
      body: JSON.stringify(aSendRequest()),
    });
    // Its sandbox is chosen (the name in use) before the latency holds it.
    await expect
      .poll(async (): Promise<unknown> => (await fetch(`${a.url}/_mock/sandboxes`)).json(), { timeout: 10_000, interval: 5 })
      .toMatchObject({ sandboxes: ["worker-1"] });
    await a.reset();

    const response = await answered;
    expect(response.status).toBe(200);
    const { message_id: id } = (await response.json()) as { message_id: string };
    // Not a ghost: every read through either replica finds it, and counts it.
    const everyMessage = async (replica: RunningSendMock) =>
      (await (await fetch(`${replica.url}/_mock/messages`)).json()) as { total: number; messages: { id: string }[] };
    expect((await everyMessage(a)).messages.map((message) => message.id)).toEqual([id]);
    expect((await everyMessage(b)).total).toBe(1);
    expect((await (await a.sandbox("worker-1")).outbox.list()).total).toBe(1);
    expect((await fetch(`${a.url}/_mock/messages/${id}`)).status).toBe(200);

    await a.reset();
    expect((await everyMessage(b)).total).toBe(0);
    expect((await (await b.sandbox("worker-1")).outbox.list()).total).toBe(0);
  });

  // This test and the next run side by side (concurrent): each waits for most of its ~2 s on the
  // replicas' looks at due work, once a second (this file alone, 2 runs each: 6.0 s -> 3.9 s).
  // Not beside a test on the shared Redis: this one's MONITOR connection, opened while another
  // test's commands flowed, failed in ioredis ("Command queue state error"); the next test's
  // Redis is its own.
  it(
    "let go of a forgotten sandbox on every replica: once a reset through one forgets its name, neither watches its due work",
    { concurrent: true },
    async ({ expect, onTestFinished }) => {
      const keyPrefix = aKeyPrefix();
      const [a, b] = await twoReplicasOn({ port: 0, watchTemplates: false, redisUrl: (await sharedRedis()).url, keyPrefix }, onTestFinished);
      expect((await sendIn(b, "worker-1")).status).toBe(200);
      const monitor = await new Redis((await sharedRedis()).url).monitor();
      // Each replica looks at the due work of every sandbox it built once a second, in one script naming their keys.
      const looks: boolean[] = [];
      monitor.on("monitor", (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === "evalsha" && args.includes(`${keyPrefix}due`))
          looks.push(args.some((arg) => arg.startsWith(`${keyPrefix}sandbox:worker-1:`)));
      });
      try {
        await expect.poll(() => looks.includes(true), { timeout: 5000, interval: 10 }).toBe(true);

        await a.reset();
        const sinceReset = looks.length;

        // The replicas' looks alternate: two in a row without the sandbox's keys, and neither replica watches it.
        await expect
          .poll(() => looks.slice(sinceReset).some((withIt, index, after) => !withIt && after[index + 1] === false), { timeout: 8000, interval: 20 })
          .toBe(true);
        // Used again, the name is claimed and its scope built again, shared as before.
        expect((await sendIn(b, "worker-1")).status).toBe(200);
        expect((await (await a.sandbox("worker-1")).outbox.list()).total).toBe(1);
      } finally {
        monitor.disconnect();
      }
    },
  );

  // On a Redis of its own: the shared one's connections and patterns come and go with the other files' tests.
  it.skipIf(ownServerSkip !== undefined)(
    "hold no connection, subscription or polling of their own while idle: a replica looks at every sandbox's due work in one call a second",
    { concurrent: true },
    async ({ expect, onTestFinished }) => {
      const keyPrefix = aKeyPrefix();
      const server = await startRedisServer();
      onTestFinished(() => server.stop());
      const replica = closedAfterTheTest(
        await startSendMock({ port: 0, watchTemplates: false, redisUrl: server.url, keyPrefix, maxSandboxes: 500 }),
        onTestFinished,
      );
      const redis = new Redis(server.url);
      const connections = async (): Promise<number> => ((await redis.client("LIST")) as string).trim().split("\n").length;
      const subscriptions = async (): Promise<number> =>
        ((await redis.pubsub("CHANNELS", `${keyPrefix}*`)) as string[]).length + Number(await redis.pubsub("NUMPAT"));
      try {
        const [connectionsBefore, subscriptionsBefore] = [await connections(), await subscriptions()];
        for (let index = 0; index < 200; index += 1) await replica.sandbox(`idle-${index}`);
        expect([await connections(), await subscriptions()]).toEqual([connectionsBefore, subscriptionsBefore]);

        const monitor = await redis.duplicate().monitor();
        // The commands the replica sends (a script's own commands aside) from one look at the due work to the next.
        const between: number[] = [0];
        monitor.on("monitor", (_time: string, args: string[], source: string) => {
          if (source === "lua" || !args.some((arg) => arg.startsWith(keyPrefix))) return;
          if (args[0]?.toLowerCase() === "evalsha" && args.includes(`${keyPrefix}sandbox:idle-199:due`)) between.push(0);
          else between[between.length - 1] = (between.at(-1) ?? 0) + 1;
        });
        try {
          await expect.poll(() => between.length, { timeout: 5000, interval: 20 }).toBeGreaterThanOrEqual(3);
          // Between two looks, the lease's renewal at most: nothing per sandbox.
          expect(between[1]).toBeLessThan(5);
        } finally {
          monitor.disconnect();
        }
      } finally {
        redis.disconnect();
      }
    },
  );

  it("tell an event stream without a sandbox on one replica of a message sent through another into a sandbox new since it opened", async () => {
    const [a, b] = await twoReplicas();
    const controller = new AbortController();
    const stream = await fetch(`${b.url}/_mock/events`, { signal: controller.signal });
    const reader = stream.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
    try {
      const sent = await sendIn(a, "brand-new");
      let told = "";
      while (!told.includes(sent.id)) {
        const { value, done } = await reader.read();
        if (done) break;
        told += value;
      }
      expect(told).toContain(`"sandbox":"brand-new"`);
    } finally {
      controller.abort();
    }
  });

  it("make at most webhook_concurrency webhook attempts at once on a replica, every sandbox's together", async () => {
    const receiver = await aHoldingReceiverForThisTest();
    const replica = await startSendMock({
      port: 0,
      watchTemplates: false,
      redisUrl: (await sharedRedis()).url,
      keyPrefix: aKeyPrefix(),
      lifecycle: { stepMs: 60_000 },
      webhookConcurrency: 4,
      webhookTimeoutMs: 60_000,
    });
    replicas.push(replica);
    const names = Array.from({ length: 8 }, (_, index) => `worker-${index + 1}`);
    const boxes = await Promise.all(names.map((name) => replica.sandbox(name)));
    for (const [index, box] of boxes.entries()) {
      await box.webhooks.add({ url: receiver.url, events: ["message.sent"] });
      expect((await sendIn(replica, names[index] ?? "")).status).toBe(200);
    }

    const advances = boxes.map((box) => box.clock.advance(60_000));
    await receiver.releaseOneByOne(names.length);
    await Promise.all(advances);

    expect(receiver.received()).toBe(names.length);
    expect(receiver.peak()).toBeLessThanOrEqual(4);
  });

  it("keep a fault rule of one sandbox to that sandbox's sends through every replica", async () => {
    const [a, b] = await twoReplicas();
    await (await a.sandbox("worker-1")).faults.add({ fault: "server_error" });

    expect((await sendIn(b, "worker-1")).status).toBe(500);
    expect((await sendIn(b, "worker-2")).status).toBe(200);
  });
});
