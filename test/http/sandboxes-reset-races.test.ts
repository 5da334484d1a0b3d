// A reset or a forget while a sandbox is in use (docs/sandboxes.md#resets-while-a-sandbox-is-in-use): a send answered 200
// is never lost, a wait hears the send that follows, and a read never takes a sandbox's name.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { SendMock } from "../../src/mock.js";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

interface Listed {
  total: number;
  messages: { id: string; to: string; sandbox?: string }[];
}

const inUse = async (mock: SendMock): Promise<string[]> => ((await request(mock.app).get("/_mock/sandboxes")).body as { sandboxes: string[] }).sandboxes;
const listed = async (mock: SendMock, query: Record<string, string> = {}): Promise<Listed> =>
  (await request(mock.app).get("/_mock/messages").query(query)).body as Listed;

/** A send into `sandbox` held by a latency fault for `delayMs`, once its sandbox is chosen (its name then in use). */
async function aHeldSend(mock: SendMock, sandbox: string, delayMs: number) {
  const answered = request(mock.app)
    .post(`/sandbox/${sandbox}/send`)
    .set({ ...bearer(), "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": String(delayMs) })
    .send(aSendRequest({ to: "held@example.com" }))
    .then((response) => response);
  await expect.poll(() => inUse(mock), { timeout: 10_000, interval: 5 }).toContain(sandbox);
  // In an object: a promise returned as it is would be awaited by the caller's await of this function.
  return { answered };
}

describe("an unscoped reset while a send into a sandbox is in flight", () => {
  it("keeps the message it answered 200 for: listed in its sandbox and by every read, journaled, its name in use again", async () => {
    const mock = await aMockForThisTest();
    const { answered } = await aHeldSend(mock, "worker-1", 1000);
    // The name is in use, and the latency holds the send: the reset happens meanwhile.
    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);

    const response = await answered;
    expect(response.status).toBe(200);
    const id = (response.body as { message_id: string }).message_id;
    expect((await listed(mock, { sandbox: "worker-1" })).messages.map((message) => message.id)).toEqual([id]);
    expect((await listed(mock)).messages).toMatchObject([{ id, sandbox: "worker-1" }]);
    expect((await request(mock.app).get(`/_mock/messages/${id}`)).status).toBe(200);
    expect(((await request(mock.app).get("/_mock/requests?sandbox=worker-1")).body as { total: number }).total).toBe(1);
    expect(await inUse(mock)).toEqual(["worker-1"]);

    // Not a ghost: the next reset empties it like any other.
    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);
    expect((await listed(mock)).total).toBe(0);
  });

  it("keeps it too when the sandbox is forgotten meanwhile", async () => {
    const mock = await aMockForThisTest();
    const { answered } = await aHeldSend(mock, "worker-2", 1000);
    expect((await request(mock.app).delete("/_mock/sandboxes/worker-2")).status).toBe(204);

    const response = await answered;
    expect(response.status).toBe(200);
    expect((await listed(mock, { sandbox: "worker-2" })).total).toBe(1);
    expect(await inUse(mock)).toEqual(["worker-2"]);
  });
});

describe("a scoped wait across an unscoped reset", () => {
  it("answers with the matching send that follows the reset, not after its whole wait", async () => {
    const mock = await aMockForThisTest();
    expect((await request(mock.app).post("/sandbox/worker-3/send").set(bearer()).send(aSendRequest())).status).toBe(200);
    const waiting = request(mock.app)
      .get("/_mock/messages")
      .query({ sandbox: "worker-3", to: "late@example.com", wait_ms: 30_000 })
      .then((response) => response);
    // The wait is open once a health call behind it has been answered.
    expect((await request(mock.app).get("/_mock/health")).status).toBe(200);

    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);
    expect(
      (
        await request(mock.app)
          .post("/sandbox/worker-3/send")
          .set(bearer())
          .send(aSendRequest({ to: "late@example.com" }))
      ).status,
    ).toBe(200);

    // A wait that had waited out its 30 s would answer an empty list: the message says it heard the send.
    const answer = await waiting;
    expect((answer.body as Listed).messages).toMatchObject([{ to: "late@example.com", sandbox: "worker-3" }]);
  }, 40_000);
});

describe("reads of a sandbox", () => {
  it("never take its name: any number of them leave max_sandboxes free for the sends", async () => {
    const mock = await aMockForThisTest({ maxSandboxes: 3 });
    for (let index = 0; index < 20; index += 1) {
      expect((await request(mock.app).get(`/_mock/clock?sandbox=junk-${index}`)).status).toBe(200);
      expect((await listed(mock, { sandbox: `junk-${index}` })).total).toBe(0);
    }
    expect(await inUse(mock)).toEqual([]);
    for (const worker of ["w1", "w2", "w3"])
      expect((await request(mock.app).post(`/sandbox/${worker}/send`).set(bearer()).send(aSendRequest())).status).toBe(200);
    expect(await inUse(mock)).toEqual(["w1", "w2", "w3"]);
  });

  it("a wait opened before a sandbox's first send hears that send", async () => {
    const mock = await aMockForThisTest();
    const waiting = request(mock.app)
      .get("/_mock/messages")
      .query({ sandbox: "fresh", wait_ms: 30_000 })
      .then((response) => response);
    expect((await request(mock.app).get("/_mock/health")).status).toBe(200);
    expect(await inUse(mock)).toEqual([]);

    expect((await request(mock.app).post("/sandbox/fresh/send").set(bearer()).send(aSendRequest())).status).toBe(200);

    expect(((await waiting).body as Listed).total).toBe(1);
  }, 40_000);
});
