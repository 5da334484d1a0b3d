// The inbox page's sandbox picker in real Chromium: /_mock/?sandbox=NAME lists that sandbox's messages alone, live,
// and the picker moves the page to another sandbox or back to every sandbox.

import type { Page } from "playwright-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { chromiumForThisDescribe, chromiumMissing, openInboxPage } from "./chromium.js";

const skipReason = chromiumMissing();

async function sendIn(mock: RunningSendMock, sandbox: string, to: string): Promise<void> {
  const response = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Sendmock-Sandbox": sandbox, ...bearer() },
    body: JSON.stringify(aSendRequest({ to })),
  });
  expect(response.status).toBe(200);
}

async function waitLive(page: Page): Promise<void> {
  await page
    .getByTestId("live-status")
    .filter({ hasText: /^live$/i })
    .waitFor();
}

describe.skipIf(skipReason !== undefined)("the inbox page's sandbox picker in Chromium", () => {
  const browser = chromiumForThisDescribe();
  let mock: RunningSendMock;
  let page: Page;

  beforeEach(async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    ({ page } = await openInboxPage(browser(), mock.url));
  });

  afterEach(async () => {
    await mock.close();
  });

  it("lists one sandbox's messages at ?sandbox=NAME, live, and the picker moves between sandboxes and back to all", async () => {
    await sendIn(mock, "one", "ada@example.com");
    await sendIn(mock, "two", "grace@example.com");
    const rows = page.getByTestId("message-row");
    await expect.poll(() => rows.count()).toBe(2);

    await page.goto(`${mock.url}/_mock/?sandbox=one`);
    await waitLive(page);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("ada@example.com");
    expect(await page.getByTestId("sandbox-input").inputValue()).toBe("one");
    // The base URL it shows sends into this sandbox, with no header.
    const baseUrl = await page.getByTestId("sandbox-base-url").textContent();
    expect(baseUrl).toBe(`${mock.url}/sandbox/one`);
    const viaBase = await fetch(`${baseUrl}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(aSendRequest({ to: "base-url@example.com" })),
    });
    expect(viaBase.status).toBe(200);
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("base-url@example.com");

    // Live: a send into this sandbox shows, one into another does not.
    await sendIn(mock, "two", "linus@example.com");
    await sendIn(mock, "one", "alan@example.com");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.getByTestId("message-list").textContent()).not.toContain("linus@example.com");

    await page.getByTestId("sandbox-input").fill("two");
    await page.getByTestId("sandbox-input").press("Enter");
    await page.waitForURL((url) => url.searchParams.get("sandbox") === "two");
    await waitLive(page);
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("linus@example.com");

    await page.getByTestId("sandbox-input").fill("");
    await page.getByTestId("sandbox-input").press("Enter");
    await page.waitForURL((url) => url.pathname === "/_mock/" && !url.searchParams.has("sandbox"));
    await waitLive(page);
    await expect.poll(() => rows.count()).toBe(5);
    expect(await page.getByTestId("sandbox-base").isHidden()).toBe(true);
  });
});
