// The inbox page's message tools in real Chromium: message tabs, preview widths, search, delete, .eml download and keyboard use.

import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningSendMock } from "../../../src/index.js";
import { aSendRequest } from "../../support/helpers.js";
import { chromiumMissing } from "./chromium.js";
import { adminGet, inboxSession, send, type Box, type InboxOptions, type InPage } from "./inbox-session.js";

const ADMIN_TOKEN = "admin-token-for-the-page-0001";
const skipReason = chromiumMissing();

describe.skipIf(skipReason !== undefined)("the inbox page's message tools in Chromium", () => {
  const session = inboxSession();
  const { openMessage, messageTab, shownPanelText } = session;
  let mock: RunningSendMock;
  let page: Page;
  let dialogs: string[];
  let downloads: string;

  beforeAll(async () => {
    downloads = await mkdtemp(path.join(os.tmpdir(), "sendmock-downloads-"));
  });

  async function openInbox(options?: InboxOptions): Promise<void> {
    ({ mock, page, dialogs } = await session.openInbox(options));
  }

  it("opens a message on tabs: HTML, Text, Source, Request and Events each show their part", async () => {
    await openInbox();
    const id = await send(mock, aSendRequest({ to: "grace@example.com" }));
    await openMessage("grace@example.com");

    expect(await messageTab("HTML").getAttribute("aria-selected")).toBe("true");
    const preview = page.frameLocator('[data-testid="message-preview"]');
    await expect.poll(() => preview.locator("body").textContent()).toContain("Welcome aboard, Ada!");
    expect(await shownPanelText()).toContain("https://app.example.com/login");

    await messageTab("Text").click();
    expect(await messageTab("Text").getAttribute("aria-selected")).toBe("true");
    expect(await page.getByTestId("message-text").textContent()).toContain("Welcome");
    expect(await page.getByTestId("message-preview").isVisible()).toBe(false);

    await messageTab("Source").click();
    const source = JSON.parse((await page.getByTestId("message-source").textContent()) ?? "") as { id: string; to: string; data: object };
    expect(source).toMatchObject({ id, to: "grace@example.com", data: { name: "Ada" } });

    await messageTab("Request").click();
    const request = page.getByTestId("message-request");
    await expect.poll(() => request.getByTestId("exchange-request").textContent()).toContain("POST /send");
    expect(await request.getByTestId("exchange-request").textContent()).toContain('"to": "grace@example.com"');
    expect(await request.getByTestId("exchange-response").textContent()).toContain(`"message_id": "${id}"`);

    await messageTab("Events").click();
    expect(await shownPanelText()).toContain("No events yet: the message is queued.");
    await mock.clock.advance(1000);
    await expect.poll(() => page.getByTestId("message-event").allTextContents()).toContainEqual(expect.stringContaining("message.sent"));
  });

  it("shows the HTML at desktop, tablet (768 px) and phone (375 px) width, and keeps the choice for the next message", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "grace@example.com" }));
    await send(mock, aSendRequest({ to: "linus@example.com" }));
    await openMessage("grace@example.com");
    const frameWidth = () => page.getByTestId("message-preview").evaluate((frame: Box) => frame.getBoundingClientRect().width);
    const paneWidth = await page.getByTestId("message-detail").evaluate((detail: Box) => detail.getBoundingClientRect().width);

    expect(await page.getByLabel("Desktop").isChecked()).toBe(true);
    await expect.poll(frameWidth).toBeGreaterThan(Math.min(768, paneWidth - 10));
    expect(await frameWidth()).toBeCloseTo(paneWidth, -1);

    await page.getByLabel("Tablet (768 px)").check();
    expect(await frameWidth()).toBe(768);
    await page.getByLabel("Phone (375 px)").check();
    expect(await frameWidth()).toBe(375);

    await openMessage("linus@example.com");
    await expect.poll(frameWidth).toBe(375);
    expect(await page.getByLabel("Phone (375 px)").isChecked()).toBe(true);
  });

  it("finds a message by a token only in its data and body, hides the others, and keeps the search for live arrivals", async () => {
    await openInbox();
    const withToken = aSendRequest({ to: "grace@example.com", data: { name: "Grace", company: "Navy", login_url: "https://app.example.com/login?t=tok_123" } });
    await send(mock, withToken);
    await send(mock, aSendRequest({ to: "linus@example.com" }));
    const rows = page.getByTestId("message-row");
    await expect.poll(() => rows.count()).toBe(2);

    await page.getByRole("searchbox", { name: /^Search/ }).fill("TOK_123");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("grace@example.com");
    expect(await page.getByTestId("message-count").textContent()).toBe("Showing 1 of 1");

    // A message captured while the search is on shows only when it matches.
    await send(mock, aSendRequest({ to: "ada@example.com" }));
    await send(mock, { ...withToken, to: "hopper@example.com" });
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("hopper@example.com");

    await page.getByRole("searchbox", { name: /^Search/ }).fill("nothing-has-this");
    await expect.poll(() => page.getByTestId("message-empty").textContent()).toContain("No message matches");
  });

  it("deletes the open message after asking, and the API no longer has it", async () => {
    await openInbox();
    const id = await send(mock, aSendRequest({ to: "grace@example.com" }));
    await send(mock, aSendRequest({ to: "linus@example.com" }));
    await openMessage("grace@example.com");

    await page.getByRole("button", { name: "Delete this message" }).click();
    expect(dialogs).toEqual([expect.stringContaining("Delete the message")]);
    await expect.poll(() => page.getByTestId("message-row").allTextContents()).toEqual([expect.stringContaining("linus@example.com")]);
    expect(await page.getByTestId("message-detail").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.textContent)).toContain("linus@example.com");
    expect((await adminGet(mock, `/_mock/messages/${id}`)).status).toBe(404);
  });

  it("downloads the open message as an .eml file that a mail parser reads back", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "grace@example.com", cc: ["billing@example.com"] }));
    await openMessage("grace@example.com");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download .eml" }).click()]);
    const saved = path.join(downloads, download.suggestedFilename());
    await download.saveAs(saved);
    expect(saved).toMatch(/msg_.+\.eml$/);
    const email = await simpleParser(await readFile(saved));
    expect(email.subject).toBe("Welcome to Analytical Engines, Ada!");
    expect(email.to).toMatchObject({ text: "grace@example.com" });
    expect(email.cc).toMatchObject({ text: "billing@example.com" });
    expect(email.text).toContain("Welcome");
  });

  it("downloads the .eml with the admin token when the mock requires one", async () => {
    await openInbox({ adminToken: ADMIN_TOKEN, token: ADMIN_TOKEN });
    await send(mock, aSendRequest({ to: "grace@example.com" }));
    await openMessage("grace@example.com");
    // A plain link would get a 401: the page fetches the file with the token instead.
    expect((await adminGet(mock, "/_mock/messages/latest/eml")).status).toBe(401);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download .eml" }).click()]);
    const saved = path.join(downloads, `with-token-${download.suggestedFilename()}`);
    await download.saveAs(saved);
    expect((await simpleParser(await readFile(saved))).subject).toBe("Welcome to Analytical Engines, Ada!");
  });

  it("moves through the message list with the arrow keys and opens one with Enter; the message tabs follow the arrow keys", async () => {
    await openInbox();
    for (const to of ["ada@example.com", "grace@example.com", "linus@example.com"]) await send(mock, aSendRequest({ to }));
    const rows = page.getByTestId("message-row");
    await expect.poll(() => rows.count()).toBe(3);
    const focusedText = () => page.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.textContent ?? "");

    await rows.first().focus();
    await page.keyboard.press("ArrowDown");
    expect(await focusedText()).toContain("grace@example.com");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    expect(await focusedText()).toContain("grace@example.com");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("message-detail").getAttribute("data-id")).toBe(await rows.nth(1).getAttribute("data-id"));

    await messageTab("HTML").focus();
    await page.keyboard.press("ArrowRight");
    expect(await messageTab("Text").getAttribute("aria-selected")).toBe("true");
    expect(await focusedText()).toBe("Text");
    await page.keyboard.press("End");
    expect(await messageTab("Checks").getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("ArrowRight");
    expect(await messageTab("HTML").getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("ArrowLeft");
    expect(await focusedText()).toBe("Checks");
    expect(await messageTab("HTML").getAttribute("tabindex")).toBe("-1");
  });
});
