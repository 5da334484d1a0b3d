// Waits that run out name their near misses (interface section 19): one WaitTimeoutError from mock.outbox, mock.sandbox()
// and the sandbox client, with the near misses as data, and the same words in GET /_mock/messages' `timed_out`.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { WaitTimeoutError } from "../../src/index.js";
import { sandboxClient } from "../../src/sandbox-client.js";
import type { MessageList, SendRequest } from "../../src/wire.js";
import type { SendMock } from "../../src/mock.js";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

async function send(mock: SendMock, body: SendRequest, headers: Record<string, string> = {}): Promise<number> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...headers })
    .send(body);
  return response.status;
}

/** What a wait rejected with: it must be a WaitTimeoutError. */
async function timeoutOf(waiting: Promise<unknown>): Promise<WaitTimeoutError> {
  const error = await waiting.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WaitTimeoutError);
  return error as WaitTimeoutError;
}

const passwordReset = (to: string): SendRequest => ({
  to,
  template_id: "password-reset",
  data: { name: "Ada", company: "Acme", token: "t0k3n", expires_in: "30 minutes" },
});

describe("a wait that runs out", () => {
  it("in a sandbox, names the match the app sent to the default sandbox, and asks about the sandbox header", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com" }))).toBe(200);
    const [sent] = (await mock.outbox.list()).messages;

    const box = await mock.sandbox("worker-1");
    const error = await timeoutOf(box.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 30 }));

    expect(error.message).toContain('no message with to=ada@example.com in sandbox "worker-1" within 30 ms (0 captured there)');
    expect(error.message).toContain(
      "1 match is in the default sandbox: did the app send the sandbox header (X-Sendmock-Sandbox) or to the sandbox's base URL?",
    );
    expect(error.timeoutMs).toBe(30);
    expect(error.nearMisses.map(({ kind, message_id }) => ({ kind, message_id }))).toEqual([{ kind: "other_sandbox", message_id: sent?.id }]);
    expect(error.nearMisses[0]?.description).toMatch(new RegExp(`^in the default sandbox: ${String(sent?.id)} to=ada@example.com template_id=welcome`));
  });

  it("in the default sandbox, names a match in a named one and says to wait there", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com" }), { "X-Sendmock-Sandbox": "billing" })).toBe(200);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 30 }));
    expect(error.message).toContain('1 match is in sandbox "billing": wait in that sandbox (mock.sandbox("billing"), ?sandbox=billing)');
    expect(error.nearMisses).toMatchObject([{ kind: "other_sandbox", sandbox: "billing" }]);
  });

  it("names the same recipient's message with another template, saying which template was waited for", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, passwordReset("ada@example.com"))).toBe(200);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com", templateId: "welcome" }, { timeoutMs: 30 }));
    expect(error.message).toContain("no message with to=ada@example.com, template_id=welcome in the default sandbox within 30 ms (1 captured there)");
    expect(error.nearMisses).toMatchObject([{ kind: "same_recipient" }]);
    expect(error.nearMisses[0]?.description).toMatch(/^same recipient, template_id "password-reset" \(waited for "welcome"\): msg_/);
  });

  it("names a status not reached yet", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com" }))).toBe(200);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com", status: "delivered" }, { timeoutMs: 30 }));
    expect(error.nearMisses[0]?.description).toMatch(/^same recipient, status queued \(waited for delivered\)/);
  });

  it("names the closest recipients first", async () => {
    const mock = await aMockForThisTest();
    for (const to of ["zed@elsewhere.test", "ada@exampel.com", "grace@example.com"]) expect(await send(mock, aSendRequest({ to }))).toBe(200);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 30 }));
    expect(error.nearMisses.map((miss) => [miss.kind, miss.description.split(":")[0]])).toEqual([
      ["close_recipient", "close recipient ada@exampel.com"],
      ["close_recipient", "close recipient grace@example.com"],
      ["close_recipient", "close recipient zed@elsewhere.test"],
    ]);
  });

  it("with nothing captured, names the sends that were refused", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com", template_id: "wellcome" }))).toBe(422);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 30 }));
    expect(error.nearMisses.map((miss) => miss.kind)).toEqual(["refused"]);
    expect(error.nearMisses[0]?.description).toMatch(/^refused here: 422 invalid_template_id to=ada@example.com template_id=wellcome: /);
  });

  it("with nothing captured or refused, says so", async () => {
    const mock = await aMockForThisTest();
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 30 }));
    expect(error.message).toContain("nothing was captured in the default sandbox, and no send to it was refused");
    expect(error.nearMisses).toEqual([]);
  });

  it("escapes invisible characters in what it prints", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com", subject: "Welcome\u00a0aboard" }))).toBe(200);
    const error = await timeoutOf(mock.outbox.waitFor({ to: "ada@example.com", subject: "nope" }, { timeoutMs: 30 }));
    expect(error.nearMisses[0]?.description).toContain('subject "Welcome\\\\u00a0aboard"');
  });
});

describe("GET /_mock/messages?wait_ms= that runs out", () => {
  it("answers 200 with no messages and `timed_out`: the library's words and near misses for the same wait", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com" }))).toBe(200);
    const library = await timeoutOf((await mock.sandbox("worker-1")).outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 40 }));

    const response = await request(mock.app).get("/_mock/messages").query({ sandbox: "worker-1", to: "ada@example.com", wait_ms: 40 });
    const body = response.body as MessageList;
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ messages: [], total: 0 });
    expect(body.timed_out).toEqual({ message: library.message, waited_ms: 40, near_misses: library.nearMisses });
  });

  it("says a sandbox nothing was sent to is not in use, naming those that are, and where the match went: never a silent empty wait", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest(), { "X-Sendmock-Sandbox": "worker-2" })).toBe(200);
    const response = await request(mock.app).get("/_mock/messages").query({ sandbox: "worker-9", wait_ms: 20 });
    const body = response.body as MessageList;
    expect(body.timed_out?.message).toContain(
      'sandbox "worker-9" is not in use: nothing was sent to it or set up in it since it was last reset or forgotten (in use: worker-2)',
    );
    expect(body.timed_out?.message).toContain('1 match is in sandbox "worker-2": did the app send another sandbox\'s header or base URL?');
    expect(body.timed_out?.near_misses).toMatchObject([{ kind: "other_sandbox", sandbox: "worker-2" }]);
  });

  it("across every sandbox, names the closest recipients of all of them", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@exampel.com" }), { "X-Sendmock-Sandbox": "worker-2" })).toBe(200);
    const response = await request(mock.app).get("/_mock/messages").query({ to: "ada@example.com", wait_ms: 20 });
    const body = response.body as MessageList;
    expect(body.timed_out?.message).toMatch(
      /^no message with to=ada@example.com in any sandbox within 20 ms \(1 captured there\)\nnear misses:\n {2}- close recipient ada@exampel.com: /,
    );
  });

  it("has no `timed_out` when the wait found its match", async () => {
    const mock = await aMockForThisTest();
    expect(await send(mock, aSendRequest({ to: "ada@example.com" }))).toBe(200);
    const body = (await request(mock.app).get("/_mock/messages").query({ to: "ada@example.com", wait_ms: 20 })).body as MessageList;
    expect(body.total).toBe(1);
    expect(body).not.toHaveProperty("timed_out");
  });
});

describe("the sandbox client's wait", () => {
  it("rejects with the same WaitTimeoutError, its near misses as data", async () => {
    const mock = await aRunningMockForThisTest();
    const app = sandboxClient({ url: mock.url, sandbox: "worker-1" });
    // In use, as the handle below makes it: both waits then look at the same scene.
    const box = await mock.sandbox("worker-1");
    // The app forgot its sandbox: its send lands in the default one.
    const sent = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json" },
      body: JSON.stringify(aSendRequest()),
    });
    expect(sent.status).toBe(200);

    const error = await timeoutOf(app.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 40 }));
    const library = await timeoutOf(box.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 40 }));
    expect(error.message).toBe(library.message);
    expect(error.nearMisses).toEqual(library.nearMisses);
    expect(error.timeoutMs).toBe(40);
  });
});
