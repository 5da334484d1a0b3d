// What a mock keeps stays bounded by bytes: large messages, large rejected values, large pages.

import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigView, JournalList, SendMock, SendMockOptions } from "../../src/index.js";
import { aMock, aSendRequest, bearer, expectContract } from "../support/helpers.js";

const mocks: SendMock[] = [];

afterEach(async () => {
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
});

async function aTrackedMock(options: SendMockOptions = {}): Promise<SendMock> {
  const mock = await aMock(options);
  mocks.push(mock);
  return mock;
}

const bigName = "n".repeat(900_000);

describe("max_bytes", () => {
  it("drops the oldest messages past max_bytes and counts them in GET /_mock/config", async () => {
    const mock = await aTrackedMock({ maxBytes: "8mb" });
    for (let index = 0; index < 10; index += 1) {
      const response = await request(mock.app)
        .post("/send")
        .set(bearer())
        .send(aSendRequest({ data: { name: bigName, company: "Acme", login_url: "https://x.example" } }));
      expect(response.status).toBe(200);
    }

    const config = await request(mock.app).get("/_mock/config");
    await expectContract(config, { contract: "admin", method: "get", path: "/_mock/config" });
    const view = config.body as ConfigView;
    expect(view.max_bytes).toBe(8 * 1024 * 1024);
    expect(view.dropped_messages).toBeGreaterThan(0);
    expect(view.captured_messages + view.dropped_messages).toBe(10);
    expect(view.captured_bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it("cuts a list page at max_page_bytes and says so with truncated: true instead of failing", async () => {
    const mock = await aTrackedMock({ maxPageBytes: "1mb" });
    for (let index = 0; index < 3; index += 1) {
      await request(mock.app)
        .post("/send")
        .set(bearer())
        .send(aSendRequest({ data: { name: "n".repeat(300_000), company: "Acme", login_url: "https://x.example" } }));
    }

    const page = await request(mock.app).get("/_mock/messages");
    await expectContract(page, { contract: "admin", method: "get", path: "/_mock/messages" });
    expect(page.body).toMatchObject({ total: 3, truncated: true });
    expect((page.body as { messages: unknown[] }).messages.length).toBeLessThan(3);
  });
});

describe("values a rejected request sent", () => {
  it("are cut to 256 characters with a marker in the error answer and the journal: a 0.9 MB field name", async () => {
    const mock = await aTrackedMock();
    const field = "f".repeat(900_000);
    const response = await request(mock.app)
      .post("/send")
      .set(bearer())
      .send({ ...aSendRequest(), [field]: 1 });

    await expectContract(response);
    expect(response.status).toBe(400);
    expect(response.text.length).toBeLessThan(8_000);
    expect(response.text).toContain("…[899744 more characters]");
    const journal = await request(mock.app).get("/_mock/requests");
    const [entry] = (journal.body as JournalList).requests;
    // The request's body is kept apart, as its first 64 KB: everything else stays small.
    expect(entry?.request).toMatchObject({ body_truncated: true });
    expect(JSON.stringify({ ...entry, request: null }).length).toBeLessThan(16_000);
  });

  it("leave a journal entry well below 200 KB, whatever the body and headers: 1 MB of control characters, 14 KB of headers", async () => {
    const mock = await aTrackedMock();
    const response = await request(mock.app)
      .post("/send")
      .set({ ...bearer(), "Content-Type": "text/plain", "X-Padding": "\t".repeat(14_000) })
      .send("\u0001".repeat(1_000_000));
    expect(response.status).toBe(415);

    const journal = await request(mock.app).get("/_mock/requests");
    const [entry] = (journal.body as JournalList).requests;
    expect(entry?.request.body_truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(entry))).toBeLessThan(120_000);
  });

  it("leave a journal entry below 160 KB when every violation quotes a field name of control characters", async () => {
    const mock = await aTrackedMock();
    const body: Record<string, unknown> = { ...aSendRequest() };
    for (let index = 0; index < 60; index += 1) body[`${"\u0001".repeat(300)}${String(index)}`] = "\u0001".repeat(1000);
    const response = await request(mock.app)
      .post("/send")
      .set({ ...bearer(), "X-Padding": "\t".repeat(14_000) })
      .send(body);
    expect(response.status).toBe(400);

    const [entry] = ((await request(mock.app).get("/_mock/requests")).body as JournalList).requests;
    expect(entry?.violations).toHaveLength(50);
    expect(entry?.violations[0]?.message).toMatch(/…$/);
    expect(Buffer.byteLength(JSON.stringify(entry))).toBeLessThan(160_000);
  });

  it("keep a 0.8 MB `to` in the journal as an excerpt", async () => {
    const mock = await aTrackedMock();
    const to = `${"a".repeat(800_000)}@example.com`;
    const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest({ to }));
    expect(response.status).toBe(422);
    expect(response.text.length).toBeLessThan(8_000);

    const [entry] = ((await request(mock.app).get("/_mock/requests")).body as JournalList).requests;
    expect(entry?.to).toBe(`${"a".repeat(256)}…[${String(to.length - 256)} more characters]`);
  });
});
