// The inspection API's validators are compiled in the background once a mock is handed out (so
// they do not hold its first POST /send up), and no /_mock request compiles one: an early one
// waits for that warm-up. (An e2e file: a module graph of its own, nothing compiled before.)

import { describe, expect, it } from "vitest";
import { startSendMock } from "../../src/index.js";
import { closedAfterEach, spyOnSchemaCompiles } from "../support/schema-compiles.js";

const mocks = closedAfterEach();

describe("the inspection API's validators", () => {
  it("are compiled once a mock is handed out, an inspection request that comes earlier waiting for them", async () => {
    const mock = await startSendMock({ port: 0, watchTemplates: false });
    mocks.push(mock);
    // Sent at once, before the warm-up could end: answered after it, and validated.
    const early = await fetch(`${mock.url}/_mock/faults`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ status: "x" }),
    });
    expect(early.status).toBe(400);
    await early.text();

    const onRequests = spyOnSchemaCompiles();
    for (const inspection of ["/_mock/messages", "/_mock/faults", "/_mock/config", "/_mock/webhooks", "/_mock/clock", "/_mock/templates"]) {
      const answer = await fetch(`${mock.url}${inspection}`);
      await answer.text();
      expect(answer.status, inspection).toBe(200);
    }
    expect(onRequests).not.toHaveBeenCalled();
  });
});
