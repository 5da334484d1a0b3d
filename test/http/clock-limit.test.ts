// The mock's clock stays where the API can still write its time: an advance past year 9999 is refused.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { ApiError, type SendMock } from "../../src/index.js";
import { aMockForThisTest, aSendRequest, bearer, expectContract } from "../support/helpers.js";

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** The latest the clock may show: RFC 3339 years end at 9999, and a day is kept for what is scheduled ahead of it. */
const LATEST = "9999-12-30T23:59:59.999Z";

/** Years from now to year 10000, and some: far more advances than the clock may take. */
const MORE_ADVANCES_THAN_LEFT = 10_000 - new Date().getUTCFullYear() + 10;

/** Advances the library's clock (the mock's, or a sandbox's) a year at a time until it refuses; returns the refusal. */
async function advanceUntilRefused(mock: Pick<SendMock, "clock" | "app">): Promise<ApiError> {
  for (let advances = 0; advances < MORE_ADVANCES_THAN_LEFT; advances += 1) {
    const refusal: unknown = await mock.clock.advance(YEAR_MS).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refusal !== undefined) {
      expect(refusal).toBeInstanceOf(ApiError);
      return refusal as ApiError;
    }
  }
  const clock = await request(mock.app).get("/_mock/clock");
  const sent = await request(mock.app).post("/send").set(bearer()).send(aSendRequest());
  throw new Error(
    `${MORE_ADVANCES_THAN_LEFT} advances of a year were all taken: the clock is at ${mock.clock.now().getUTCFullYear()}, GET /_mock/clock answers ${clock.status}, POST /send ${sent.status} ${sent.text.slice(0, 120)}`,
  );
}

describe("the end of the mock's clock", () => {
  it("refuses the advance that would pass it, over HTTP and in the library, naming it, and every call still answers", async () => {
    const mock = await aMockForThisTest();

    const refusal = await advanceUntilRefused(mock);
    const offsetMs = mock.clock.offsetMs();
    const response = await request(mock.app).post("/_mock/clock").send({ advance_ms: YEAR_MS });

    expect(refusal.code).toBe("invalid_request");
    expect(refusal.message).toContain(LATEST);
    expect(response.status).toBe(400);
    // The same words, but for how much is left, which real time shortens between the two calls.
    const words = (message: string): string => message.replace(/\d+ ms more/, "N ms more");
    const { error } = response.body as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_request");
    expect(words(error.message)).toBe(words(refusal.message));
    expect(mock.clock.offsetMs()).toBe(offsetMs);
    expect(mock.clock.now().getTime()).toBeLessThanOrEqual(Date.parse(LATEST));
    expect(mock.clock.now().getTime()).toBeGreaterThan(Date.parse(LATEST) - YEAR_MS - 60_000);

    const clock = await request(mock.app).get("/_mock/clock");
    expect(clock.status).toBe(200);
    await expectContract(clock, { contract: "admin", method: "get", path: "/_mock/clock" });
    const sent = await request(mock.app).post("/send").set(bearer()).send(aSendRequest());
    expect(sent.status).toBe(200);
    expect((await request(mock.app).get("/_mock/messages/latest")).status).toBe(200);
  });

  it("takes an advance within what is left, and refuses one past it", async () => {
    const mock = await aMockForThisTest();
    const { message } = await advanceUntilRefused(mock);
    const leftMs = Number(/at most (\d+) ms more/.exec(message)?.[1]);
    expect(leftMs).toBeGreaterThan(0);

    // Real time moves on between the two calls: what was left a moment ago is a little too much now.
    const withinIt = await request(mock.app)
      .post("/_mock/clock")
      .send({ advance_ms: Math.max(0, leftMs - 60_000) });
    expect(withinIt.status).toBe(200);
    expect((await request(mock.app).post("/_mock/clock").send({ advance_ms: 60_001 })).status).toBe(400);
  });
});

describe("an advance without a sandbox", () => {
  it("moves no sandbox's clock when one of them cannot move, naming that sandbox", async () => {
    const mock = await aMockForThisTest();
    const far = await mock.sandbox("far");
    // Within a minute of the end: 30 s left, fewer as real time goes on.
    const leftMs = Number(/at most (\d+) ms more/.exec((await advanceUntilRefused({ app: mock.app, clock: far.clock })).message)?.[1]);
    await far.clock.advance(leftMs - 30_000);
    const [one, two] = [await mock.sandbox("one"), await mock.sandbox("two")];
    const offsets = (): number[] => [mock.clock.offsetMs(), one.clock.offsetMs(), two.clock.offsetMs(), far.clock.offsetMs()];
    const before = offsets();

    const response = await request(mock.app).post("/_mock/clock").send({ advance_ms: 60_000 });

    expect(response.status).toBe(400);
    expect(offsets()).toEqual(before);
    const { error } = response.body as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain('sandbox "far"');
    expect(error.message).toContain(LATEST);
    expect(error.message).toContain("no sandbox's clock was moved");
  });

  it("moves every sandbox's clock, the default one's included, when each can move", async () => {
    const mock = await aMockForThisTest();
    const [one, two] = [await mock.sandbox("one"), await mock.sandbox("two")];

    expect((await request(mock.app).post("/_mock/clock").send({ advance_ms: 60_000 })).status).toBe(200);

    expect([mock.clock.offsetMs(), one.clock.offsetMs(), two.clock.offsetMs()]).toEqual([60_000, 60_000, 60_000]);
  });
});
