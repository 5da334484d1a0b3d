// The inbox page's Mailpit-level tools in real Chromium: message tabs, preview widths, search, delete, .eml download,
// editable settings, no sideways overflow at 390 px, keyboard use, and an axe-core accessibility check.

import { readFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { CHROMIUM_LAUNCH_TIMEOUT_MS, chromiumMissing, launchChromium, openInboxPage } from "./chromium.js";

const SCREENSHOTS = "test-results/screenshots";
const ADMIN_TOKEN = "admin-token-for-the-page-0001";
const AXE_SOURCE_FILE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const skipReason = chromiumMissing();

/** What a client app does: a plain HTTP call, as curl would make it. */
async function send(mock: RunningSendMock, body: object): Promise<string> {
  const response = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(body),
  });
  const sent = (await response.json()) as { message_id?: string };
  expect(response.status).toBe(200);
  return sent.message_id ?? "";
}

/** What a test or QA reads back from the inspection API. */
async function adminGet(mock: RunningSendMock, pathname: string, token?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${mock.url}${pathname}`, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** The few browser objects the page-side functions below use (the tests' tsconfig has no DOM library). */
interface Box {
  getBoundingClientRect(): { width: number };
  scrollWidth: number;
  clientWidth: number;
}
interface InPage {
  document: { documentElement: Box; activeElement: { textContent: string | null } | null };
  sessionStorage: { setItem(key: string, value: string): void };
  axe: { run(context: unknown): Promise<{ violations: AxeViolation[] }> };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(skipReason !== undefined)("the inbox page's message tools in Chromium", () => {
  // Undefined when the launch failed, so afterAll does not hide that failure behind its own.
  let browser: Browser | undefined;
  let mock: RunningSendMock;
  let page: Page;
  let dialogs: string[];
  let downloads: string;

  beforeAll(async () => {
    browser = await launchChromium();
    await mkdir(SCREENSHOTS, { recursive: true });
    downloads = await mkdtemp(path.join(os.tmpdir(), "sendmock-downloads-"));
  }, CHROMIUM_LAUNCH_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(async () => {
    await mock.close();
  });

  /** A mock and the inbox page open on it, live; confirm() questions are accepted and kept. */
  async function openInbox({ width = 1280, height = 800, token, ...options }: SendMockOptions & { width?: number; height?: number; token?: string } = {}) {
    mock = await startSendMock({ port: 0, watchTemplates: false, ...options });
    ({ page, dialogs } = await openInboxPage(browser, mock.url, {
      width,
      height,
      acceptDownloads: true,
      // The page keeps the admin token for the tab's session, as after the user typed it once.
      ...(token !== undefined && {
        beforeLoad: (newPage: Page) =>
          newPage.addInitScript((value) => (globalThis as unknown as InPage).sessionStorage.setItem("sendmock.adminToken", value), token),
      }),
    }));
  }

  async function openMessage(to: string) {
    await page.getByTestId("message-row").filter({ hasText: to }).click();
    await page.getByTestId("message-detail").waitFor();
  }

  const messageTab = (name: string) => page.getByRole("tablist", { name: "Parts of the message" }).getByRole("tab", { name, exact: true });

  /** Whether the element `testId`, or the box it sits in, scrolls sideways. */
  async function sidewaysScroll(testId: string): Promise<boolean> {
    return page.getByTestId(testId).evaluate((element) => {
      for (let at = element as unknown as (Box & { parentElement: unknown }) | null; at !== null; at = at.parentElement as typeof at) {
        if (at.scrollWidth > at.clientWidth) return true;
      }
      return false;
    });
  }

  async function shownPanelText(): Promise<string> {
    return (await page.getByRole("tabpanel").filter({ visible: true }).last().textContent()) ?? "";
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
    expect(await request.getByTestId("exchange-request").textContent()).toContain('"to":"grace@example.com"');
    expect(await request.getByTestId("exchange-response").textContent()).toContain(`"message_id":"${id}"`);

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
    expect(await messageTab("Events").getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("ArrowRight");
    expect(await messageTab("HTML").getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("ArrowLeft");
    expect(await focusedText()).toBe("Events");
    expect(await messageTab("HTML").getAttribute("tabindex")).toBe("-1");
  });

  it("never scrolls sideways at 390 px wide, on any view and any tab of a message", async () => {
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
    };

    // Nor inside a tab bar: every tab is in view, none cut off behind a scroll of its own.
    const tabBarWidths = (name: string) =>
      page.getByRole("tablist", { name }).evaluate((bar: Box) => ({ scrollWidth: bar.scrollWidth, clientWidth: bar.clientWidth }));

    await page.getByTestId("message-row").waitFor();
    await fits("the message list");
    const views = await tabBarWidths("Views");
    expect(views.scrollWidth).toBeLessThanOrEqual(views.clientWidth);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-list.png`, fullPage: true });
    await page.getByTestId("message-row").click();
    for (const tab of ["HTML", "Text", "Source", "Request", "Events"]) {
      await messageTab(tab).click();
      await fits(`the ${tab} tab of a message`);
    }
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

  it("has no serious or critical accessibility violation (axe-core) on the list, each message tab, requests, faults and templates", async () => {
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
    await page.getByTestId("message-row").click();
    await page.frameLocator('[data-testid="message-preview"]').locator("body").waitFor();
    for (const tab of ["HTML", "Text", "Source", "Request", "Events"]) {
      await messageTab(tab).click();
      if (tab === "Request") await page.getByTestId("message-request").getByTestId("exchange-request").waitFor();
      found.push(...(await problems(`the ${tab} tab of a message`)));
    }
    for (const view of ["Requests", "Faults", "Templates"]) {
      await page.getByRole("tab", { name: view }).click();
      await page.getByRole("tabpanel", { name: view }).waitFor();
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
