// The inbox page's settings and layout in real Chromium: editable settings, no sideways overflow or cut-off example at 390 px, template descriptions, an axe-core accessibility check and the docs' screenshots.

import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningSendMock } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { chromiumMissing } from "./chromium.js";
import { adminGet, inboxSession, overflowing, send, type Box, type InboxOptions, type InPage } from "./inbox-session.js";

const skipReason = chromiumMissing();
const SCREENSHOTS = "test-results/screenshots";
const AXE_SOURCE_FILE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

describe.skipIf(skipReason !== undefined)("the inbox page's message tools in Chromium", () => {
  const session = inboxSession();
  const { openMessage, messageTab, sidewaysScroll } = session;
  let mock: RunningSendMock;
  let page: Page;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  async function openInbox(options?: InboxOptions): Promise<void> {
    ({ mock, page } = await session.openInbox(options));
  }

  it("changes strict data and the rate limit from the page, and says in words what is wrong with a bad value", async () => {
    await openInbox();
    await page.getByRole("tab", { name: "Faults" }).click();
    const config = async () => (await adminGet(mock, "/_mock/config")).body as { strict_data: boolean; rate_limit: object | null };

    await page.getByLabel(/^Strict data/).check();
    await expect.poll(async () => (await config()).strict_data).toBe(true);

    await page.getByLabel(/^Limit the rate/).check();
    await page.getByRole("spinbutton", { name: "Requests" }).fill("5");
    await page.getByLabel(/^Per/).fill("0");
    await page.getByRole("button", { name: "Apply rate limit" }).click();
    expect(await page.getByTestId("rate-limit-error").textContent()).toBe("Per must be a number of seconds from 0.001 (a millisecond) to 86,400 (a day).");
    expect((await config()).rate_limit).toBeNull();

    await page.getByLabel(/^Per/).fill("1");
    await page.getByLabel(/^Burst/).fill("10");
    await page.getByRole("button", { name: "Apply rate limit" }).click();
    await expect.poll(async () => (await config()).rate_limit).toEqual({ requests: 5, per_seconds: 1, burst: 10 });
    expect(await page.getByTestId("rate-limit-error").textContent()).toBe("");
    await expect.poll(() => page.getByTestId("settings-summary").textContent()).toContain("5 per 1 s, burst 10");

    await page.getByLabel(/^Limit the rate/).uncheck();
    expect(await page.getByRole("spinbutton", { name: "Requests" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Apply rate limit" }).click();
    await expect.poll(async () => (await config()).rate_limit).toBeNull();
  });

  it("keeps a rate limit being typed when the answer to the strict-data switch comes after it", async () => {
    await openInbox();
    await page.getByRole("tab", { name: "Faults" }).click();
    await page.getByTestId("settings-summary").getByText("Strict data").waitFor();
    // The server takes the switch at once; its response reaches the page only once the rate limit is being typed.
    let releaseResponse = (): void => undefined;
    const responseHeld = new Promise<void>((resolve) => (releaseResponse = resolve));
    await page.route("**/_mock/config", async (route) => {
      if (route.request().method() !== "PATCH" || !(route.request().postData() ?? "").includes("strict_data")) return route.continue();
      const response = await route.fetch();
      await responseHeld;
      return route.fulfill({ response });
    });

    await page.getByLabel(/^Strict data/).check();
    await expect.poll(async () => ((await adminGet(mock, "/_mock/config")).body as { strict_data: boolean }).strict_data).toBe(true);
    await page.getByLabel(/^Limit the rate/).check();
    await page.getByRole("spinbutton", { name: "Requests" }).fill("5");
    releaseResponse();

    await expect.poll(() => page.getByTestId("settings-summary").textContent()).toContain("Strict dataon");
    expect(await page.getByLabel(/^Limit the rate/).isChecked()).toBe(true);
    expect(await page.getByRole("spinbutton", { name: "Requests" }).inputValue()).toBe("5");
    expect(await page.getByRole("spinbutton", { name: "Requests" }).isDisabled()).toBe(false);
  });

  it("never scrolls sideways at 390 px wide, nor runs over a box or cuts an example off, on any view and any tab of a message", async () => {
    await openInbox({ width: 390, height: 844 });
    await send(mock, aSendRequest({ to: "a-rather-long-address.for-a-narrow-screen@example.com" }));
    expect((await fetch(`${mock.url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: "{}" })).status).toBe(400);
    const overflow = () =>
      page.evaluate(() => {
        const { documentElement } = (globalThis as unknown as InPage).document;
        return { scrollWidth: documentElement.scrollWidth, clientWidth: documentElement.clientWidth };
      });
    const fits = async (where: string) => {
      const { scrollWidth, clientWidth } = await overflow();
      expect(scrollWidth, `${where}: scrollWidth ${scrollWidth} > clientWidth ${clientWidth}`).toBeLessThanOrEqual(clientWidth);
      expect(await overflowing(page), where).toEqual([]);
    };

    // Nor inside a tab bar: every tab is in view, none cut off behind a scroll of its own.
    const tabBarWidths = (name: string) =>
      page.getByRole("tablist", { name }).evaluate((bar: Box) => ({ scrollWidth: bar.scrollWidth, clientWidth: bar.clientWidth }));

    await page.getByTestId("message-row").waitFor();
    await page.getByText("Advance by milliseconds, or set a time").click();
    await fits("the message list, with the clock's forms open");
    const views = await tabBarWidths("Views");
    expect(views.scrollWidth).toBeLessThanOrEqual(views.clientWidth);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-list.png`, fullPage: true });
    await page.getByTestId("message-row").click();
    for (const tab of ["HTML", "Text", "Source", "Request", "Events", "Checks"]) {
      await messageTab(tab).click();
      if (tab === "Request") await page.getByTestId("message-request").getByTestId("exchange-request").waitFor();
      if (tab === "Checks") await page.getByTestId("message-check").first().waitFor();
      await fits(`the ${tab} tab of a message`);
    }
    await page.getByTestId("message-detail").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-checks.png`, fullPage: true });
    const parts = await tabBarWidths("Parts of the message");
    expect(parts.scrollWidth).toBeLessThanOrEqual(parts.clientWidth);
    await messageTab("HTML").click();
    for (const width of ["Tablet (768 px)", "Phone (375 px)"]) {
      await page.getByLabel(width).check();
      await fits(`the HTML at ${width}`);
    }
    await page.getByTestId("message-detail").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-message.png`, fullPage: true });
    for (const view of ["Requests", "Faults", "Templates"]) {
      await page.getByRole("tab", { name: view }).click();
      await page.getByRole("tabpanel", { name: view }).waitFor();
      await fits(`the ${view} view`);
    }
    // The fault form with respond's fields, and the fault rules' empty state with its example address.
    await page.getByRole("tab", { name: "Faults" }).click();
    await page.getByTestId("fault-form").getByLabel("Fault", { exact: true }).selectOption("respond");
    await fits("the Faults view with the respond fields");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-faults-respond.png`, fullPage: true });
    // An unfolded request, with the curl command in its box where the clipboard is refused.
    await page.getByRole("tab", { name: "Requests" }).click();
    await page.evaluate(() => {
      Object.defineProperty((globalThis as unknown as { navigator: object }).navigator, "clipboard", { configurable: true, value: undefined });
    });
    for (const toggle of await page.getByRole("button", { name: "Request and answer" }).all()) await toggle.click();
    await page.getByRole("button", { name: "Copy as curl" }).first().click();
    await page.getByRole("textbox", { name: "curl command" }).waitFor();
    await fits("the Requests view, unfolded");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-requests-unfolded.png`, fullPage: true });
  });

  it("shows every request and fault rule whole at 390 px: each row a card, nothing in a sideways scroll, Remove in reach", async () => {
    await openInbox({ width: 390, height: 844 });
    await send(mock, aSendRequest({ to: "a-rather-long-address.for-a-narrow-screen@example.com" }));
    const headers = { "Content-Type": "application/json", ...bearer() };
    expect((await fetch(`${mock.url}/send`, { method: "POST", headers, body: JSON.stringify({ to: 42 }) })).status).toBe(400);
    const faulted = { method: "POST", headers: { ...headers, "X-Sendmock-Fault": "server_error" }, body: JSON.stringify(aSendRequest()) };
    expect((await fetch(`${mock.url}/send`, faulted)).status).toBe(500);
    await mock.faults.add({ fault: "server_error", status: 503, match: { to: "*@a-long-domain-for-a-narrow-screen.example.com" } });
    await mock.faults.add({ fault: "latency", delay_ms: 2000, times: 3 });

    // Every part of `row` lies inside the 390 px of the screen: none cut off or scrolled out of it.
    const outside = async (row: Locator, parts: string): Promise<string[]> => {
      const boxes = await row.locator(parts).evaluateAll((elements) =>
        elements.map((element) => {
          const { left, right } = (element as unknown as { getBoundingClientRect(): { left: number; right: number } }).getBoundingClientRect();
          return { text: (element as unknown as { textContent: string | null }).textContent ?? "", left, right };
        }),
      );
      return boxes.filter(({ left, right }) => left < 0 || right > 390).map(({ text, left, right }) => `${text.slice(0, 40)}: ${left}-${right}`);
    };

    await page.getByRole("tab", { name: "Requests" }).click();
    await expect.poll(() => page.getByTestId("request-row").count()).toBe(3);
    for (const row of await page.getByTestId("request-row").all()) expect(await outside(row, "td, td *")).toEqual([]);
    expect(await page.getByTestId("request-row").getByTestId("request-fault").count()).toBe(1);
    expect(await sidewaysScroll("request-list")).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-requests.png`, fullPage: true });

    await page.getByRole("tab", { name: "Faults" }).click();
    await expect.poll(() => page.getByTestId("fault-row").count()).toBe(2);
    for (const row of await page.getByTestId("fault-row").all()) expect(await outside(row, "td, td *")).toEqual([]);
    expect(await sidewaysScroll("fault-list")).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-faults.png`, fullPage: true });
    await page
      .getByTestId("fault-row")
      .first()
      .getByRole("button", { name: /^Remove the server_error rule/ })
      .click();
    await expect.poll(async () => (await mock.faults.list()).map((rule) => rule.fault)).toEqual(["latency"]);
  });

  it("keeps the fault: pill of a request apart from its error code at 1280 px", async () => {
    await openInbox();
    const faulted = {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sendmock-Fault": "server_error", ...bearer() },
      body: JSON.stringify(aSendRequest()),
    };
    expect((await fetch(`${mock.url}/send`, faulted)).status).toBe(500);
    await page.getByRole("tab", { name: "Requests" }).click();
    const row = page.getByTestId("request-row").first();
    const pill = await row.getByTestId("request-fault").boundingBox();
    const code = await row.locator(".error-code").boundingBox();

    if (pill === null || code === null) throw new Error("the pill or the error code is not shown");
    const apart = code.y >= pill.y + pill.height || code.x >= pill.x + pill.width + 4;
    expect(apart, `pill ${JSON.stringify(pill)}, code ${JSON.stringify(code)}`).toBe(true);
    await row.screenshot({ path: `${SCREENSHOTS}/inbox-1280-request-fault.png` });
  });

  it("shows a template description's `backticks` as code, and its other characters as text", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-descriptions-"));
    await writeFile(
      path.join(folder, "note.yaml"),
      'description: "Fill `name` and `items`; <b>not bold</b> & `<i>` stays text; a lone ` too"\nsubject: Hi {name}\ntext: "{items}"\n',
    );
    await openInbox({ templates: folder });
    await page.getByRole("tab", { name: "Templates" }).click();
    const card = page.locator(".template-card").filter({ hasText: "note" });
    const description = card.locator(".template-description");
    await description.waitFor();

    expect(await description.locator("code").allTextContents()).toEqual(["name", "items", "<i>"]);
    expect(await description.locator("b, i").count()).toBe(0);
    expect(await description.textContent()).toBe("Fill name and items; <b>not bold</b> & <i> stays text; a lone ` too");
    await card.getByRole("button", { name: "Preview note" }).click();
    expect(await page.getByTestId("template-detail").locator("p code").allTextContents()).toEqual(["name", "items", "<i>"]);
  });

  it("has no serious or critical accessibility violation (axe-core) on the list and clock, each message tab, requests unfolded, faults and templates", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "grace@example.com", cc: ["billing@example.com"] }));
    await mock.faults.add({ fault: "server_error", times: 2 });
    // axe-core runs in the page itself, injected the way devtools would (the page's CSP allows no inline script).
    await page.evaluate(await readFile(AXE_SOURCE_FILE, "utf8"));
    const problems = async (where: string): Promise<string[]> => {
      const violations = await page.evaluate(async () => {
        const { axe, document } = globalThis as unknown as InPage;
        return (await axe.run(document)).violations;
      });
      return violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map(
          (violation) =>
            `${where}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
        );
    };

    const found: string[] = [];
    await page.getByTestId("message-row").waitFor();
    found.push(...(await problems("the message list")));
    await page.getByTestId("message-row").getByTestId("message-checks-badge").waitFor();
    await page.getByText("Advance by milliseconds, or set a time").click();
    await page.getByTestId("message-row").click();
    await page.frameLocator('[data-testid="message-preview"]').locator("body").waitFor();
    for (const tab of ["HTML", "Text", "Source", "Request", "Events", "Checks"]) {
      await messageTab(tab).click();
      if (tab === "Request") await page.getByTestId("message-request").getByTestId("exchange-request").waitFor();
      if (tab === "Checks") await page.getByTestId("message-check").first().waitFor();
      found.push(...(await problems(`the ${tab} tab of a message`)));
    }
    for (const view of ["Requests", "Faults", "Templates"]) {
      await page.getByRole("tab", { name: view }).click();
      await page.getByRole("tabpanel", { name: view }).waitFor();
      if (view === "Requests") {
        await page.getByRole("button", { name: "Request and answer" }).first().click();
        await page.getByTestId("request-status-filter").selectOption("2xx");
      }
      if (view === "Faults") await page.getByTestId("fault-form").getByLabel("Fault", { exact: true }).selectOption("respond");
      if (view === "Templates") await page.getByTestId("template-list").locator("button").first().click();
      found.push(...(await problems(`the ${view} view`)));
    }
    expect(found).toEqual([]);
  });

  it("looks right at 1280 px: the list beside an open message (screenshots for docs/inbox.md)", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "ada@example.com" }));
    await send(mock, {
      to: "linus@example.com",
      template_id: "order-receipt",
      cc: ["billing@example.com"],
      data: { name: "Linus", order_number: "1042", items: ["1 x Compiler", "2 x Moth"], total: "$42.00" },
    });
    await send(mock, aSendRequest({ to: "grace@example.com", data: { name: "Grace", company: "Navy", login_url: "https://app.example.com/login" } }));
    await expect.poll(() => page.getByTestId("message-row").count()).toBe(3);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-1280-list.png` });
    await openMessage("linus@example.com");
    await expect.poll(() => page.frameLocator('[data-testid="message-preview"]').locator("body").textContent()).toContain("1042");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-1280-message.png` });
    expect(await page.getByTestId("message-detail").textContent()).toContain("billing@example.com");
  });
});
