// The library's `requestLog` option: each /send reported as its journal entry, each /_mock call only when asked.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { InspectionCall, JournalEntry } from "../../src/index.js";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

describe("requestLog", () => {
  it("receives each /send request, any method, as the entry the journal records", async () => {
    const sends: JournalEntry[] = [];
    const mock = await aMockForThisTest({ requestLog: { send: (entry) => sends.push(entry) } });

    await request(mock.app).post("/send").set(bearer()).send(aSendRequest()).expect(200);
    await request(mock.app).post("/send").set(bearer()).set("X-Sendmock-Fault", "server_error").set("X-Sendmock-Fault-Status", "503").send(aSendRequest());
    await request(mock.app).get("/send").expect(405);
    await request(mock.app).get("/_mock/messages").expect(200);

    await expect.poll(() => sends.length).toBe(3);
    const journal = (await mock.journal.list()).requests;
    expect(sends).toEqual([...journal].reverse());
    expect(sends.map((entry) => [entry.method, entry.status, entry.error_code, entry.fault])).toEqual([
      ["POST", 200, null, null],
      ["POST", 503, "server_error", "server_error"],
      ["GET", 405, "method_not_allowed", null],
    ]);
  });

  it("receives each /_mock call, with its status and time, when it has an inspection method", async () => {
    const calls: InspectionCall[] = [];
    const mock = await aMockForThisTest({ requestLog: { send: () => undefined, inspection: (call) => calls.push(call) } });

    await request(mock.app).get("/_mock/messages?limit=1").expect(200);
    await request(mock.app).get("/_mock/messages/nope").expect(404);
    await request(mock.app).post("/send").set(bearer()).send(aSendRequest()).expect(200);

    await expect.poll(() => calls.length).toBe(2);
    expect(calls.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: "GET", path: "/_mock/messages", status: 200 },
      { method: "GET", path: "/_mock/messages/nope", status: 404 },
    ]);
    expect(calls[0]?.duration_ms).toBeGreaterThanOrEqual(0);
  });
});
