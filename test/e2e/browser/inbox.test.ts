// The inbox page in real Chromium: live list, rendered preview, events timeline, webhook attempts, journal, faults panel, inert XSS.

import { copyFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock } from "../../../src/index.js";
import { aSendRequest, bearer, SHIPPED_TEMPLATES } from "../../support/helpers.js";
import { aWebhookReceiverForThisTest } from "../../support/webhook-receiver.js";
import { chromiumForThisDescribe, chromiumMissing, openInboxPage } from "./chromium.js";

const SCREENSHOTS = "test-results/screenshots";
const skipReason = chromiumMissing();

/** What a client app does: a plain HTTP call, as curl would make it. */
async function send(mock: RunningSendMock, body: object, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.skipIf(skipReason !== undefined)("the inbox page in Chromium", () => {
  const browser = chromiumForThisDescribe();
  let mock: RunningSendMock;
  let page: Page;
  let dialogs: string[];

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  beforeEach(async () => {
    // The shipped templates plus one whose own HTML carries script, for the sandbox to stop.
    const templates = await mkdtemp(path.join(os.tmpdir(), "sendmock-browser-"));
    for (const id of ["welcome", "order-receipt"]) await copyFile(path.join(SHIPPED_TEMPLATES, `${id}.yaml`), path.join(templates, `${id}.yaml`));
    await writeFile(
      path.join(templates, "scripted.yaml"),
      [
        "subject: Scripted {name}",
        "html: |",
        "  <p>Hello {name}</p><script>parent.__xss = 3; alert('template script')</script>",
        "  <img src=x onerror=\"parent.__xss = 4; alert('template onerror')\">",
        "sample_data: { name: Eve }",
      ].join("\n"),
    );
    mock = await startSendMock({ port: 0, watchTemplates: false, templates });
    ({ page, dialogs } = await openInboxPage(browser(), mock.url));
  });

  afterEach(async () => {
    await mock.close();
  });

  it("shows a message sent by a client without a reload, and its rendered preview when opened", async () => {
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-empty.png` });
    expect(await send(mock, aSendRequest({ to: "grace@example.com" }))).toBe(200);
    expect(
      await send(mock, {
        to: "linus@example.com",
        template_id: "order-receipt",
        cc: ["billing@example.com"],
        data: { name: "Linus", order_number: "1042", items: ["1 x Compiler", "2 x Moth"], total: "$42.00" },
      }),
    ).toBe(200);

    const rows = page.getByTestId("message-row");
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.first().textContent()).toContain("linus@example.com");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-list.png` });

    await rows.filter({ hasText: "grace@example.com" }).click();
    const detail = page.getByTestId("message-detail");
    await expect.poll(() => detail.textContent()).toContain("Welcome to Analytical Engines, Ada!");
    const preview = page.frameLocator('[data-testid="message-preview"]');
    await expect.poll(() => preview.locator("body").textContent()).toContain("Welcome aboard, Ada!");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-message.png` });
  });

  it("follows a bouncing message live: the timeline gains each event and the badges turn bounced, without a reload", async () => {
    await page.evaluate(() => {
      (globalThis as unknown as { __samePage?: boolean }).__samePage = true;
    });
    expect(await send(mock, aSendRequest({ to: "bounced@outcome.sendmock.test" }))).toBe(200);
    const row = page.getByTestId("message-row").filter({ hasText: "bounced@outcome.sendmock.test" });
    await expect.poll(() => row.getByTestId("message-status").textContent()).toBe("queued");
    await row.click();
    await page.getByTestId("message-tab-events").click();

    const detail = page.getByTestId("message-detail");
    const timeline = detail.getByRole("list", { name: "Delivery events, oldest first" });
    const events = timeline.getByRole("listitem");
    await expect.poll(() => detail.getByTestId("message-status").textContent()).toBe("queued");
    expect(await events.count()).toBe(0);
    expect(await detail.getByTestId("message-events-empty").textContent()).toContain("queued");

    // The mock's clock, as a test or QA would move it: one lifecycle step (1 s) at a time.
    const advance = async (ms: number) => {
      const response = await fetch(`${mock.url}/_mock/clock`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ advance_ms: ms }),
      });
      expect(response.status).toBe(200);
    };
    await advance(1000);
    await expect.poll(() => events.allTextContents()).toEqual([expect.stringContaining("message.sent")]);
    await expect.poll(() => detail.getByTestId("message-status").textContent()).toBe("sent");
    expect(await detail.getByTestId("message-events-empty").isHidden()).toBe(true);

    await advance(1000);
    await expect.poll(() => events.count()).toBe(2);
    const [sent, bounced] = await events.allTextContents();
    expect(sent).toContain("message.sent");
    expect(sent).toContain("+1 s after capture");
    expect(bounced).toContain("message.bounced");
    expect(bounced).toContain("bounce type: hard");
    expect(bounced).toContain("+2 s after capture");
    await expect.poll(() => detail.getByTestId("message-status").textContent()).toBe("bounced");
    await expect.poll(() => row.getByTestId("message-status").textContent()).toBe("bounced");

    expect(await page.evaluate(() => (globalThis as unknown as { __samePage?: boolean }).__samePage)).toBe(true);
    await timeline.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-events.png` });
  });

  it("shows a clicked event's link as text, and moves on the list row of a message that is not open", async () => {
    // Markup that would turn into a bold element if the page parsed the link as HTML.
    const hostileLink = "https://example.com/?q=&lt;b&gt;bold&lt;/b&gt;";
    expect(await send(mock, aSendRequest({ to: "clicked@outcome.sendmock.test", data: { name: "Ada", company: "Acme", login_url: hostileLink } }))).toBe(200);
    expect(await send(mock, aSendRequest({ to: "grace@example.com" }))).toBe(200);
    await page.getByTestId("message-row").filter({ hasText: "clicked@outcome.sendmock.test" }).click();
    await page.getByTestId("message-tab-events").click();
    await mock.clock.advance(4000);

    const detail = page.getByTestId("message-detail");
    const clicked = detail.getByTestId("message-event").filter({ hasText: "message.clicked" });
    await expect.poll(() => clicked.textContent()).toContain(`link: ${hostileLink}`);
    expect(await clicked.getByRole("link").getAttribute("href")).toBe(hostileLink);
    expect(await clicked.locator("b").count()).toBe(0);
    expect(await detail.getByTestId("message-status").textContent()).toBe("clicked");
    const graceRow = page.getByTestId("message-row").filter({ hasText: "grace@example.com" });
    await expect.poll(() => graceRow.getByTestId("message-status").textContent()).toBe("delivered");
  });

  it("catches up on the events it missed while the event stream was down", async () => {
    expect(await send(mock, aSendRequest({ to: "bounced@outcome.sendmock.test" }))).toBe(200);
    // The page comes back without its event stream: every attempt to open it fails, as when a
    // proxy in between drops it, while the rest of the API responds.
    await page.route("**/_mock/events", (route) => route.abort());
    await page.reload();
    await page.getByTestId("message-row").click();
    await page.getByTestId("message-tab-events").click();
    const detail = page.getByTestId("message-detail");
    await expect.poll(() => detail.getByTestId("message-status").textContent()).toBe("queued");
    expect(await page.getByTestId("live-status").textContent()).not.toBe("live");

    await mock.clock.advance(2000);
    await page.unroute("**/_mock/events");
    await page
      .getByTestId("live-status")
      .filter({ hasText: /^live$/i })
      .waitFor();

    await expect
      .poll(() => detail.getByTestId("message-event").allTextContents())
      .toEqual([expect.stringContaining("message.sent"), expect.stringContaining("message.bounced")]);
    expect(await detail.getByTestId("message-status").textContent()).toBe("bounced");
  });

  it("lists each webhook attempt of the open message live, a failure then its retry, and replays one", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500, 200);
    // Markup in the URL's query: the URL is kept as it is posted to, percent-encoded, and the page shows it as text.
    const { url: hostileUrl } = await mock.webhooks.add({ url: `${receiver.url}?tag=<img src=x onerror="window.__xss=5">`, events: ["message.sent"] });
    expect(await send(mock, aSendRequest({ to: "delivered@outcome.sendmock.test" }))).toBe(200);
    await page.getByTestId("message-row").click();
    await page.getByTestId("message-tab-events").click();
    const detail = page.getByTestId("message-detail");
    const attempts = detail.getByRole("list", { name: "Webhook attempts, newest first" }).getByRole("listitem");
    await expect.poll(() => detail.getByTestId("webhook-deliveries-empty").textContent()).toContain("No webhook attempts");

    // The receiver responds with 500: the attempt says so, with the time of its retry.
    await mock.clock.advance(1000);
    // The mock's clock also runs in real time: on a busy machine the retry may already be listed
    // above it, so the failure is read as the oldest attempt.
    await expect.poll(() => attempts.count()).toBeGreaterThanOrEqual(1);
    const failed = attempts.last();
    expect(await failed.getByTestId("webhook-delivery-status").textContent()).toBe("500");
    const failedText = await failed.textContent();
    expect(failedText).toContain("message.sent");
    expect(failedText).toContain(hostileUrl);
    expect(failedText).toContain("attempt 1");
    expect(failedText).toContain("the receiver answered 500");
    expect(failedText).toMatch(/\d+(\.\d)? ms/);
    expect(await failed.getByTestId("webhook-delivery-retry").textContent()).toMatch(/^retry at \d/);
    expect(await detail.getByTestId("webhook-deliveries-empty").isHidden()).toBe(true);

    // The retry falls due one second later and succeeds; it goes on top.
    await mock.clock.advance(1000);
    await expect.poll(() => attempts.count()).toBe(2);
    expect(await attempts.first().getByTestId("webhook-delivery-status").textContent()).toBe("200");
    expect(await attempts.first().textContent()).toContain("attempt 2");
    expect(await attempts.first().getByTestId("webhook-delivery-retry").count()).toBe(0);

    await attempts.first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-webhook-deliveries.png` });

    await detail.getByRole("button", { name: `Replay message.sent to ${hostileUrl} (attempt 2)` }).click();
    await expect.poll(() => attempts.count()).toBe(3);
    expect(await attempts.first().textContent()).toContain("attempt 3");
    expect(await attempts.first().getByTestId("webhook-delivery-status").textContent()).toBe("200");
    expect(receiver.received).toHaveLength(3);

    expect(await detail.locator("[data-testid=webhook-deliveries] img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it("lists a rejected request in the journal with its reason", async () => {
    expect(await send(mock, aSendRequest({ to: "not-an-address" }))).toBe(422);
    await page.getByTestId("tab-requests").click();
    const row = page.getByTestId("request-row").first();
    await expect.poll(() => row.textContent()).toContain("invalid_recipient");
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("422");
    expect(text).toContain("/to");

    await row.getByRole("button", { name: "Request and answer" }).click();
    const entry = page.getByTestId("request-entry").first();
    const sent = (await entry.getByTestId("exchange-request").textContent()) ?? "";
    expect(sent).toContain("POST /send");
    expect(sent).toContain("authorization: Bearer …0001");
    expect(sent).toContain('"to": "not-an-address"');
    const responded = (await entry.getByTestId("exchange-response").textContent()) ?? "";
    expect(responded).toContain("HTTP 422");
    expect(responded).toContain("x-sendmock-error-code: invalid_recipient");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-requests.png` });
  });

  it("shows on the Requests view which placeholder a misspelt data key was meant for", async () => {
    const { login_url: loginUrl, ...data } = aSendRequest().data;
    expect(await send(mock, aSendRequest({ data: { ...data, loginurl: loginUrl ?? "" } }))).toBe(422);
    await page.getByTestId("tab-requests").click();
    const row = page.getByTestId("request-row").first();
    await expect.poll(() => row.textContent()).toContain("missing_template_data");
    expect(await row.locator(".error-message").textContent()).toBe(
      'Missing template data: template "welcome" needs data.login_url (did you mean data.login_url for data.loginurl?)',
    );
  });

  it("adds a fault from the panel that makes the next send fail", async () => {
    await page.getByTestId("tab-faults").click();
    const form = page.getByTestId("fault-form");
    await form.getByLabel(/fault/i).first().selectOption("server_error");
    await form.getByLabel(/times/i).fill("1");
    await form.getByRole("button", { name: /add/i }).click();
    await expect.poll(() => page.getByTestId("fault-row").count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-faults.png` });

    expect(await send(mock, aSendRequest())).toBe(500);
    expect(await send(mock, aSendRequest())).toBe(200);
    await expect.poll(() => page.getByTestId("fault-row").count()).toBe(0);
  });

  it("switches the response shape from the panel", async () => {
    await page.getByTestId("tab-faults").click();
    await page.getByTestId("shape-b").check();
    await expect.poll(() => mock.settings.current().responseShape).toBe("b");
  });

  it("keeps script in every field inert", async () => {
    const payload = `<img src=x onerror="window.__xss=1;alert('xss')"><script>window.__xss=2;alert('xss')</script>"'`;
    const hostile = {
      to: "eve@example.com",
      cc: ["mallory@example.com"],
      reply_to: "eve@example.com",
      template_id: "welcome",
      subject: `Hi ${payload}`,
      data: { name: payload, company: payload, login_url: `javascript:alert('xss')`, [`k${payload}`]: payload },
    };
    expect(await send(mock, hostile)).toBe(200);
    expect(await send(mock, { ...hostile, template_id: payload })).toBe(422);
    expect(await send(mock, { ...hostile, to: payload })).toBe(422);
    expect(await send(mock, { to: "eve@example.com", template_id: "scripted", data: { name: payload } })).toBe(200);

    await expect.poll(() => page.getByTestId("message-row").count()).toBe(2);
    await page.getByTestId("message-row").filter({ hasText: "Scripted" }).click();
    const preview = page.frameLocator('[data-testid="message-preview"]');
    await expect.poll(() => preview.locator("body").textContent()).toContain("Hello");
    expect(await preview.locator("script").count()).toBe(1);
    await page.getByTestId("message-row").filter({ hasText: "Hi <img" }).click();
    await expect.poll(() => page.getByTestId("message-detail").textContent()).toContain("<script>");
    await preview.locator("body").waitFor();
    await page.getByTestId("tab-requests").click();
    await expect.poll(() => page.getByTestId("request-row").count()).toBe(4);
    for (const summary of await page.getByText("Request and answer").all()) await summary.click();
    await expect.poll(() => page.getByTestId("exchange-request").first().textContent()).toContain("<script>");
    await page.getByTestId("tab-templates").click();
    await page.getByTestId("tab-messages").click();
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-xss.png` });

    const ran = await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss);
    expect(ran).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(await page.getByTestId("message-preview").getAttribute("sandbox")).toBe("");
  });
});
