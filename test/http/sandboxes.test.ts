// Sandboxes (docs/sandboxes.md): which sandbox a send goes to, names checked and bounded, and each sandbox's state
// (messages, journal, rate-limit buckets, idempotency keys, fault and outcome rules, clock) apart from the others'.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { sandboxClient } from "../../src/sandbox-client.js";
import type { SendMock } from "../../src/mock.js";

const SANDBOX_HEADER = "X-Sendmock-Sandbox";

/** What a test reads of an response to POST /send. */
interface SendResult {
  status: number;
  headers: Record<string, string | undefined>;
  body: { message_id: string; error: { code: string; message: string } };
}

async function send(mock: SendMock, body: object = aSendRequest(), headers: Record<string, string> = {}): Promise<SendResult> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...headers })
    .send(body);
  return { status: response.status, headers: response.headers, body: response.body as SendResult["body"] };
}

const ids = async (mock: Pick<SendMock, "outbox">): Promise<string[]> => (await mock.outbox.list()).messages.map((message) => message.id);

describe("a send's sandbox", () => {
  it("is the header's: its message is in that sandbox alone, and names it", async () => {
    const mock = await aMockForThisTest();
    const response = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "worker-1" });
    expect(response.status).toBe(200);

    const box = await mock.sandbox("worker-1");
    const captured = await box.outbox.list();
    expect(captured.messages).toMatchObject([{ id: response.body.message_id, sandbox: "worker-1" }]);
    expect(await ids(await mock.sandbox("worker-2"))).toEqual([]);
    expect((await box.journal.list()).requests).toMatchObject([{ status: 200, sandbox: "worker-1", message_id: response.body.message_id }]);
  });

  it("is the one the recipient names, anyone@NAME.sandbox.sendmock.test, when no header names one", async () => {
    const mock = await aMockForThisTest();
    const response = await send(mock, aSendRequest({ to: "ada@checkout-42.sandbox.sendmock.test" }));
    expect(response.status).toBe(200);

    expect(await ids(await mock.sandbox("checkout-42"))).toEqual([response.body.message_id]);
    // The header wins over the recipient.
    const byHeader = await send(mock, aSendRequest({ to: "ada@checkout-42.sandbox.sendmock.test" }), { [SANDBOX_HEADER]: "other" });
    expect(await ids(await mock.sandbox("other"))).toEqual([byHeader.body.message_id]);
  });

  it("is the default sandbox otherwise, whose messages name none, as before sandboxes", async () => {
    const mock = await aMockForThisTest();
    const response = await send(mock);
    const [message] = (await mock.outbox.list()).messages;
    expect(message?.id).toBe(response.body.message_id);
    expect(message).not.toHaveProperty("sandbox");
  });

  it.each([
    ["an empty name", ""],
    ["a space", "worker 1"],
    ["65 characters", "a".repeat(65)],
    ["a slash", "a/b"],
  ])("refuses a header naming %s with 400 invalid_request, capturing nothing", async (_what, name) => {
    const mock = await aMockForThisTest();
    const response = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: name });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("x-sendmock-sandbox") as unknown });
    expect((await mock.outbox.list()).total).toBe(0);
  });

  it("quotes a header name sent as UTF-8 as it was written, not as the latin1 Node reads it", async () => {
    const mock = await aMockForThisTest();
    // Sent with a body, Node's client writes the header in the body's UTF-8, as curl sends what is typed.
    const response = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "héllo" });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('got "héllo"');
  });

  it("refuses a recipient naming a bad sandbox with 400 invalid_request", async () => {
    const mock = await aMockForThisTest();
    const response = await send(mock, aSendRequest({ to: "ada@a+b.sandbox.sendmock.test" }));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
  });

  // e2e_worker_1 is a good name, and sandboxClient gave it an address the send contract's email format then refused as
  // invalid_recipient: an address's domain holds letters, digits and "-" between dots, so the rule cannot carry it.
  it.each([
    ["a _", "e2e_worker_1", '"_"'],
    ["a label that starts with -", "team.-checkout", '"-"'],
    ["a label that ends with -", "checkout-", '"-"'],
    ["two dots in a row", "team..checkout", "empty"],
  ])(
    "refuses a recipient naming a sandbox whose name has %s with 400 invalid_request saying an address cannot carry it, never invalid_recipient",
    async (_what, name, why) => {
      const mock = await aMockForThisTest();
      const response = await send(mock, aSendRequest({ to: `ada@${name}.sandbox.sendmock.test` }));
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.message).toContain(`The sandbox ${JSON.stringify(name)} cannot be named by an address`);
      expect(response.body.error.message).toContain(why);
      expect(response.body.error.message).toContain(`/sandbox/${name}/send`);
      expect(response.body.error.message).toContain("X-Sendmock-Sandbox");
      expect((await mock.outbox.list()).total).toBe(0);
      // The same name by the header or the base URL is a sandbox like any other.
      expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: name })).status).toBe(200);
      expect((await request(mock.app).post(`/sandbox/${name}/send`).set(bearer()).send(aSendRequest())).status).toBe(200);
    },
  );

  it("takes a name of 64 letters, digits, _, . and -", async () => {
    const mock = await aMockForThisTest();
    const name = `A-z_0.9${"x".repeat(57)}`;
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: name })).status).toBe(200);
    expect((await (await mock.sandbox(name)).outbox.list()).total).toBe(1);
  });
});

describe("max_sandboxes", () => {
  it("refuses a new name past it with 400 invalid_request, still serves the known ones, and a reset forgets them", async () => {
    const mock = await aMockForThisTest({ maxSandboxes: 2 });
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" })).status).toBe(200);
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "two" })).status).toBe(200);

    const refused = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "three" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("max_sandboxes (2)") as unknown });
    await expect(mock.sandbox("three")).rejects.toMatchObject({ code: "invalid_request" });
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" })).status).toBe(200);

    await mock.reset();
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "three" })).status).toBe(200);
    expect(await ids(await mock.sandbox("one"))).toEqual([]);
  });

  it("is checked as a config value", async () => {
    await expect(aMockForThisTest({ maxSandboxes: 0 })).rejects.toThrow("maxSandboxes must be at least 1");
  });
});

describe("inside a sandbox", () => {
  it("the rate limit is a bucket per key per sandbox", async () => {
    const mock = await aMockForThisTest({ rateLimit: { requests: 1, perSeconds: 60 } });
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" })).status).toBe(200);
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" })).status).toBe(429);
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "two" })).status).toBe(200);
    expect((await send(mock, aSendRequest({ to: "ada@three.sandbox.sendmock.test" }))).status).toBe(200);
    expect((await send(mock)).status).toBe(200);
  });

  it("an Idempotency-Key is per key per sandbox: the same key in another sandbox sends again", async () => {
    const mock = await aMockForThisTest();
    const key = { "Idempotency-Key": "order-1042" };
    const first = await send(mock, aSendRequest(), { ...key, [SANDBOX_HEADER]: "one" });
    const replayed = await send(mock, aSendRequest(), { ...key, [SANDBOX_HEADER]: "one" });
    const elsewhere = await send(mock, aSendRequest(), { ...key, [SANDBOX_HEADER]: "two" });

    expect(replayed.headers["idempotency-replayed"]).toBe("true");
    expect(replayed.body.message_id).toBe(first.body.message_id);
    expect(elsewhere.headers["idempotency-replayed"]).toBeUndefined();
    expect(elsewhere.body.message_id).not.toBe(first.body.message_id);
  });

  it("a fault rule fails that sandbox's sends only, and a magic recipient works as anywhere", async () => {
    const mock = await aMockForThisTest();
    const one = await mock.sandbox("one");
    await one.faults.add({ fault: "server_error" });

    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" })).status).toBe(500);
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "two" })).status).toBe(200);
    expect((await send(mock)).status).toBe(200);
    expect(await mock.faults.list()).toEqual([]);
    const magic = await send(mock, aSendRequest({ to: "rate_limit@fault.sendmock.test" }), { [SANDBOX_HEADER]: "two" });
    expect(magic.status).toBe(429);
  });

  it("an outcome rule decides that sandbox's messages only, on that sandbox's clock", async () => {
    const mock = await aMockForThisTest();
    const [one, two] = [await mock.sandbox("one"), await mock.sandbox("two")];
    await one.outcomes.add({ outcome: "bounced" });
    const inOne = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" });
    const inTwo = await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "two" });

    await one.clock.advance(60_000);

    expect((await one.outbox.get(inOne.body.message_id))?.status).toBe("bounced");
    // The other sandbox's clock did not move: its message has not been sent yet.
    expect(two.clock.offsetMs()).toBe(0);
    expect((await two.outbox.get(inTwo.body.message_id))?.status).toBe("queued");
    await two.clock.advance(60_000);
    expect((await two.outbox.get(inTwo.body.message_id))?.status).toBe("delivered");
  });

  it("a sandbox's reset empties it alone", async () => {
    const mock = await aMockForThisTest();
    await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "one" });
    await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "two" });

    await (await mock.sandbox("one")).reset();

    expect(await ids(await mock.sandbox("one"))).toEqual([]);
    expect(await ids(await mock.sandbox("two"))).toHaveLength(1);
  });
});

describe("magic recipients in a sandbox", () => {
  it("a fault's local part at a sandbox's address is that fault, in that sandbox", async () => {
    const mock = await aMockForThisTest();
    const failed = await send(mock, aSendRequest({ to: "server_error+503@worker-1.sandbox.sendmock.test" }));

    expect(failed.status).toBe(503);
    expect((await (await mock.sandbox("worker-1")).journal.list()).requests).toMatchObject([{ status: 503, fault: "server_error" }]);
    expect((await mock.journal.list()).total).toBe(0);
  });

  it("an outcome's local part at a sandbox's address is that outcome, on that sandbox's clock", async () => {
    const mock = await aMockForThisTest();
    const sent = await send(mock, aSendRequest({ to: "bounced+signup-42@worker-1.sandbox.sendmock.test" }));
    const box = await mock.sandbox("worker-1");

    await box.clock.advance(60_000);

    expect(await box.outbox.get(sent.body.message_id)).toMatchObject({ status: "bounced", to: "bounced+signup-42@worker-1.sandbox.sendmock.test" });
  });

  it("any other local part at a sandbox's address is an ordinary recipient, delivered", async () => {
    const mock = await aMockForThisTest();
    const sent = await send(mock, aSendRequest({ to: "timeouts-are-fine@worker-1.sandbox.sendmock.test" }));
    const box = await mock.sandbox("worker-1");

    await box.clock.advance(60_000);

    expect(sent.status).toBe(200);
    expect((await box.outbox.get(sent.body.message_id))?.status).toBe("delivered");
  });

  it("the header with a magic recipient's address works as it does without sandboxes", async () => {
    const mock = await aMockForThisTest();
    const sent = await send(mock, aSendRequest({ to: "complained@outcome.sendmock.test" }), { [SANDBOX_HEADER]: "worker-2" });
    const box = await mock.sandbox("worker-2");

    await box.clock.advance(60_000);

    expect((await box.outbox.get(sent.body.message_id))?.status).toBe("complained");
  });
});

describe("the name default", () => {
  // It is the default sandbox's: its rules and webhooks apply in every sandbox, so a client that could name it would
  // fail another worker's sends or hear its events.
  it.each([
    ["the header", { headers: { [SANDBOX_HEADER]: "default" } }],
    ["the base URL", { path: "/sandbox/default/send" }],
    ["the recipient", { to: "ada@default.sandbox.sendmock.test" }],
  ])("is refused in %s with 400 invalid_request saying it is reserved, capturing nothing", async (_where, how) => {
    const mock = await aMockForThisTest();
    const response = await request(mock.app)
      .post("path" in how ? how.path : "/send")
      .set({ ...bearer(), ...("headers" in how ? how.headers : {}) })
      .send(aSendRequest("to" in how ? { to: how.to } : {}));
    expect(response.status).toBe(400);
    expect((response.body as SendResult["body"]).error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("reserved") as unknown });
    expect((await mock.outbox.list()).total).toBe(0);
  });

  it("is refused as a /_mock call's sandbox, so no rule added there reaches every sandbox", async () => {
    const mock = await aMockForThisTest();
    const added = await request(mock.app).post("/_mock/faults?sandbox=default").send({ fault: "server_error" });
    expect(added.status).toBe(400);
    expect((added.body as SendResult["body"]).error.message).toContain("reserved");
    const byHeader = await request(mock.app).get("/_mock/messages").set(SANDBOX_HEADER, "default");
    expect(byHeader.status).toBe(400);
    expect(await mock.faults.list()).toEqual([]);
    expect((await send(mock, aSendRequest(), { [SANDBOX_HEADER]: "worker-2" })).status).toBe(200);
  });

  it("is refused by mock.sandbox(), whose default sandbox is mock itself", async () => {
    const mock = await aMockForThisTest();
    await expect(mock.sandbox("default")).rejects.toMatchObject({ code: "invalid_request" });
  });
});

describe("sandboxClient's address", () => {
  it("is a sandbox address that sends into the sandbox, for a name an address can carry", async () => {
    const mock = await aRunningMockForThisTest();
    const box = sandboxClient({ url: mock.url, sandbox: "team.e2e-worker-1" });
    expect(box.address("ada")).toBe("ada@team.e2e-worker-1.sandbox.sendmock.test");

    expect((await send(mock, aSendRequest({ to: box.address("ada") }))).status).toBe(200);
    expect((await box.outbox.list()).total).toBe(1);
  });

  it("throws for a name an address cannot carry, pointing to the base URL and the header", () => {
    const box = sandboxClient({ url: "http://127.0.0.1:4010", sandbox: "e2e_worker_1" });
    expect(() => box.address("ada")).toThrow(
      'sendmock: the sandbox "e2e_worker_1" cannot be named by an address: an address\'s domain allows no "_"; send to its baseUrl (http://127.0.0.1:4010/sandbox/e2e_worker_1) or with its headers (X-Sendmock-Sandbox) instead, or name the sandbox without "_"',
    );
  });
});
