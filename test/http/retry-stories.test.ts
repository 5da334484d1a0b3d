// Two clients a QA engineer would test against the mock: one that honours Retry-After, one with a deadline.

import { afterEach, expect, it, vi } from "vitest";
import { startSendMock, type RunningSendMock, type SendRequest } from "../../src/index.js";
import { aSendRequest, bearer } from "../support/helpers.js";

let mock: RunningSendMock | undefined;

afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

interface Attempt {
  status: number;
  retryAfterSeconds: number | undefined;
}

/** A client that retries 429 and 503 as the service asks, up to `maxAttempts`. */
async function sendHonouringRetryAfter(baseUrl: string, body: SendRequest, maxAttempts: number): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  while (attempts.length < maxAttempts) {
    const response = await fetch(`${baseUrl}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    const retryAfter = response.headers.get("retry-after");
    attempts.push({ status: response.status, retryAfterSeconds: retryAfter === null ? undefined : Number(retryAfter) });
    if (response.status !== 429 && response.status !== 503) break;
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
  }
  return attempts;
}

/** A client that gives up when its own deadline passes. */
async function sendWithDeadline(baseUrl: string, body: SendRequest, deadlineMs: number): Promise<"sent" | "gave up"> {
  try {
    await fetch(`${baseUrl}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(deadlineMs),
    });
    return "sent";
  } catch (error) {
    if (error instanceof DOMException && error.name === "TimeoutError") return "gave up";
    throw error;
  }
}

it("a client that honours Retry-After gets through after two rate-limited attempts", async () => {
  mock = await startSendMock({ port: 0, watchTemplates: false });
  await mock.faults.add({ fault: "rate_limit", times: 2 });

  const started = performance.now();
  const attempts = await sendHonouringRetryAfter(mock.url, aSendRequest(), 5);

  expect(attempts).toEqual([
    { status: 429, retryAfterSeconds: 1 },
    { status: 429, retryAfterSeconds: 1 },
    { status: 200, retryAfterSeconds: undefined },
  ]);
  expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
  expect((await mock.outbox.list()).total).toBe(1);
  expect((await mock.journal.list()).requests.map((entry) => entry.fault)).toEqual([null, "rate_limit", "rate_limit"]);
  expect(await mock.faults.list()).toEqual([]);
});

it("a client with its own deadline gives up on a timeout fault, and nothing is sent", async () => {
  mock = await startSendMock({ port: 0, watchTemplates: false });
  // Held past the test's own timeout: a close that waited for it would fail the test.
  await mock.faults.add({ fault: "timeout", delay_ms: 60_000 });

  expect(await sendWithDeadline(mock.url, aSendRequest(), 300)).toBe("gave up");

  const running = mock;
  await vi.waitFor(async () => {
    expect((await running.journal.list()).requests[0]).toMatchObject({ status: 0, fault: "timeout", message_id: null });
  });
  expect((await running.outbox.list()).total).toBe(0);

  // The abandoned connection must not hold up a graceful close until its fault runs out.
  await running.close();
  mock = undefined;
  expect(
    await fetch(`${running.url}/_mock/health`).then(
      () => "served",
      () => "refused",
    ),
  ).toBe("refused");
});
