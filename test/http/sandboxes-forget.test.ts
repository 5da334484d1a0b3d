// Forgetting a sandbox (docs/sandboxes.md#forgetting-a-sandbox): `DELETE /_mock/sandboxes/NAME` empties it and releases its
// name, so a fixture that gives every test a sandbox of its own never meets max_sandboxes.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import type { SendMock } from "../../src/mock.js";

const sendInto = (mock: SendMock, sandbox: string, body: object = aSendRequest()) =>
  request(mock.app).post(`/sandbox/${sandbox}/send`).set(bearer()).send(body);

describe("the sandboxes in use", () => {
  it("are listed by name, sorted, with their bound, the default sandbox aside", async () => {
    const mock = await aMockForThisTest({ maxSandboxes: 5 });
    await sendInto(mock, "worker-2");
    await sendInto(mock, "worker-1");
    await request(mock.app).post("/send").set(bearer()).send(aSendRequest());

    const response = await request(mock.app).get("/_mock/sandboxes");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ sandboxes: ["worker-1", "worker-2"], max_sandboxes: 5 });
  });
});

describe("forgetting a sandbox", () => {
  it("empties it, releases its name and leaves the others as they were", async () => {
    const mock = await aMockForThisTest();
    await sendInto(mock, "done");
    await sendInto(mock, "kept");
    await request(mock.app).post("/_mock/faults?sandbox=done").send({ fault: "server_error" });

    const response = await request(mock.app).delete("/_mock/sandboxes/done");
    expect(response.status).toBe(204);

    expect((await request(mock.app).get("/_mock/sandboxes")).body).toMatchObject({ sandboxes: ["kept"] });
    expect((await request(mock.app).get("/_mock/messages")).body).toMatchObject({ total: 1, messages: [{ sandbox: "kept" }] });
    expect((await request(mock.app).get("/_mock/faults")).body).toEqual({ faults: [] });
    // The name used again is a new, empty sandbox.
    expect((await sendInto(mock, "done")).status).toBe(200);
    expect((await request(mock.app).get("/_mock/messages?sandbox=done")).body).toMatchObject({ total: 1 });
  });

  it("lets any number of sandboxes come and go under max_sandboxes, one at a time", async () => {
    const mock = await aMockForThisTest({ maxSandboxes: 3 });
    for (let test = 0; test < 20; test += 1) {
      expect((await sendInto(mock, `test-${test}`)).status).toBe(200);
      expect((await request(mock.app).get(`/_mock/messages?sandbox=test-${test}`)).body).toMatchObject({ total: 1 });
      expect((await request(mock.app).delete(`/_mock/sandboxes/test-${test}`)).status).toBe(204);
    }
    expect((await request(mock.app).get("/_mock/sandboxes")).body).toEqual({ sandboxes: [], max_sandboxes: 3 });
  });

  it("is 204 for a name not in use, which is forgotten already", async () => {
    const mock = await aMockForThisTest();
    expect((await request(mock.app).delete("/_mock/sandboxes/never-used")).status).toBe(204);
  });

  it.each([
    ["the default sandbox", "default", "never forgotten"],
    ["a name that breaks the rule", "a%20b", "params.name must match pattern"],
  ])("refuses %s with 400 invalid_request", async (_what, name, words) => {
    const mock = await aMockForThisTest();
    const response = await request(mock.app).delete(`/_mock/sandboxes/${name}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: "invalid_request", message: expect.stringContaining(words) as unknown } });
  });
});
