// The inbox page for daily QA in real Chromium: the journal's filters and search, the request and response pretty-printed with room, Copy as curl replayed through bash, the clock, the respond fault from the menu, notices that cover nothing and stay dismissed, and a message's checks.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { promisify } from "node:util";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { RunningSendMock } from "../../../src/index.js";
import { aSendRequest, API_KEY, bearer } from "../../support/helpers.js";
import { chromiumMissing } from "./chromium.js";
import { adminGet, inboxSession, send, type InboxOptions } from "./inbox-session.js";

const skipReason = chromiumMissing();
const SCREENSHOTS = "test-results/screenshots";
const CURL = ["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].find((candidate) => existsSync(candidate));

interface JournalEntry {
  path: string;
  status: number;
  request: { body: string; headers: Record<string, string> };
}

/** A page-side view of a box: the tests' tsconfig has no DOM library. */
interface Rect {
  top: number;
  bottom: number;
  left: number;
  right: number;
  width: number;
}

async function sendRaw(mock: RunningSendMock, path: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${mock.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer(), ...headers }, body });
  await response.arrayBuffer();
  return response.status;
}

async function journal(mock: RunningSendMock): Promise<JournalEntry[]> {
  return ((await adminGet(mock, "/_mock/requests")).body as { requests: JournalEntry[] }).requests;
}

const overlaps = (a: Rect | undefined, b: Rect | undefined) =>
  a !== undefined && b !== undefined && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Where each element `locator` matches is drawn. */
function boxesOf(locator: Locator): Promise<Rect[]> {
  return locator.evaluateAll((elements) => elements.map((element) => (element as unknown as { getBoundingClientRect(): Rect }).getBoundingClientRect()));
}

describe.skipIf(skipReason !== undefined)("the inbox page for daily QA in Chromium", () => {
  const session = inboxSession();
  let mock: RunningSendMock;
  let page: Page;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  async function openInbox(options?: InboxOptions): Promise<void> {
    ({ mock, page } = await session.openInbox(options));
  }

  const rows = () => page.getByTestId("request-row");

  it("narrows the journal by status, error code and fault, and finds a request by its error message", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "grace@example.com" }));
    expect(await sendRaw(mock, "/send", JSON.stringify(aSendRequest({ to: "not-an-address" })))).toBe(422);
    expect(await sendRaw(mock, "/send", JSON.stringify(aSendRequest({ template_id: "wellcome" })))).toBe(422);
    expect(await sendRaw(mock, "/send", JSON.stringify({ to: 42 }))).toBe(400);
    expect(await sendRaw(mock, "/send", JSON.stringify(aSendRequest()), { "X-Sendmock-Fault": "server_error" })).toBe(500);
    await page.getByRole("tab", { name: "Requests" }).click();
    await expect.poll(() => rows().count()).toBe(5);

    const filters = page.getByRole("search", { name: "Search and filter requests" });
    const optionsOf = async (label: string) => filters.getByLabel(label, { exact: true }).locator("option").allTextContents();
    expect(await optionsOf("Error code")).toEqual(["Any error code", "invalid_recipient", "invalid_template_id", "missing_required_field", "server_error"]);
    expect(await optionsOf("Fault")).toEqual(["With or without a fault", "Any fault", "server_error"]);
    expect(await optionsOf("Status")).toEqual(["Any status", "2xx (accepted)", "4xx (refused)", "5xx (server error)", "No answer", "200", "400", "422", "500"]);

    await filters.getByLabel("Status", { exact: true }).selectOption("4xx");
    await expect.poll(() => rows().count()).toBe(3);
    await filters.getByLabel("Status", { exact: true }).selectOption("422");
    await expect.poll(() => rows().count()).toBe(2);
    await filters.getByLabel("Error code", { exact: true }).selectOption("invalid_template_id");
    await expect.poll(() => rows().allTextContents()).toEqual([expect.stringContaining("wellcome")]);
    expect(await page.getByTestId("request-count").textContent()).toBe("1 of 5 match");

    await page.getByRole("button", { name: "Clear filters" }).filter({ visible: true }).click();
    await expect.poll(() => rows().count()).toBe(5);
    await filters.getByLabel("Fault", { exact: true }).selectOption("*");
    await expect.poll(() => rows().allTextContents()).toEqual([expect.stringContaining("fault: server_error")]);

    await page.getByRole("button", { name: "Clear filters" }).filter({ visible: true }).click();
    await filters.getByRole("searchbox").fill("RECIPIENT EMAIL ADDRESS");
    await expect.poll(() => rows().allTextContents()).toEqual([expect.stringContaining("not-an-address")]);
    // A request arriving while a search is on shows only when it matches.
    await send(mock, aSendRequest({ to: "linus@example.com" }));
    expect(await sendRaw(mock, "/send", JSON.stringify(aSendRequest({ to: "also-not-an-address" })))).toBe(422);
    await expect.poll(() => rows().count()).toBe(2);
    await filters.getByRole("searchbox").fill("nothing-has-this");
    await expect.poll(() => page.getByTestId("request-empty").textContent()).toContain("No request matches these filters.");
  });

  it("unfolds a request under its row, the width of the table, pretty-printed: a header a line, every JSON line whole", async () => {
    await openInbox();
    const body = JSON.stringify(
      aSendRequest({ to: "grace@example.com", data: { name: "Grace", company: "Navy", login_url: "https://app.example.com/welcome-aboard" } }),
    );
    await sendRaw(mock, "/send", body);
    await page.getByRole("tab", { name: "Requests" }).click();
    await page.getByRole("button", { name: "Request and answer" }).click();
    const entry = page.getByTestId("request-entry").first();
    const sent = entry.getByTestId("exchange-request");
    await sent.waitFor();

    const text = (await sent.textContent()) ?? "";
    const [head = "", shownBody = ""] = text.split("\n\n");
    expect(head.split("\n")).toEqual(expect.arrayContaining(["POST /send", "content-type: application/json", "authorization: Bearer …0001"]));
    expect(shownBody).toBe(JSON.stringify(JSON.parse(body), null, 2));
    // Each line is drawn on one line (its boxes share one top): none wraps within a word for want of room.
    const wrapped = await sent.locator(".code-line").evaluateAll((lines) =>
      lines
        .map((line) => line as unknown as { getClientRects(): Iterable<{ top: number }>; textContent: string })
        .filter((line) => new Set([...line.getClientRects()].map((rect) => Math.round(rect.top))).size > 1)
        .map((line) => line.textContent),
    );
    expect(wrapped).toEqual([]);
    const [[table], [request]] = [await boxesOf(page.getByTestId("request-list")), await boxesOf(sent)];
    expect(request?.width).toBeGreaterThan((table?.width ?? Infinity) * 0.9);
    expect(await entry.getByTestId("exchange-response").textContent()).toContain('"success": true');
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-1280-request-unfolded.png`, fullPage: true });
  });

  it("copies a request as a curl command that, run by bash, sends the same request again (sandbox path, quotes and all)", async () => {
    await openInbox();
    const body = JSON.stringify(
      aSendRequest({ data: { name: "Ada O'Brien", company: `"Café" & $HOME \`uname\``, login_url: "https://app.example.com/login" } }),
    );
    expect(await sendRaw(mock, "/sandbox/qa-curl/send", body, { "X-Trace": "it's $1" })).toBe(200);
    await page.getByRole("tab", { name: "Requests" }).click();
    await page.getByRole("button", { name: "Request and answer" }).click();

    // Without the clipboard (refused here on purpose) the command is selected in a box instead.
    await page.evaluate(() => {
      Object.defineProperty((globalThis as unknown as { navigator: object }).navigator, "clipboard", {
        configurable: true,
        value: { writeText: () => Promise.reject(new Error("NotAllowedError")) },
      });
    });
    await page.getByRole("button", { name: "Copy as curl" }).click();
    const box = page.getByRole("textbox", { name: "curl command" });
    await box.waitFor();
    expect(await page.getByTestId("copy-curl-status").textContent()).toContain("did not allow copying");
    const command = await box.inputValue();
    expect(await box.evaluate((element) => (element as unknown as { selectionEnd: number }).selectionEnd)).toBe(command.length);

    // With the clipboard, the same command goes there.
    await page.evaluate(() => {
      const scope = globalThis as unknown as { navigator: object; copied?: string };
      Object.defineProperty(scope.navigator, "clipboard", {
        configurable: true,
        value: { writeText: (text: string) => ((scope.copied = text), Promise.resolve()) },
      });
    });
    await page.getByRole("button", { name: "Copy as curl" }).click();
    await expect.poll(() => page.getByTestId("copy-curl-status").textContent()).toBe("Copied.");
    expect(await page.evaluate(() => (globalThis as unknown as { copied?: string }).copied)).toBe(command);

    expect(command).toContain(`${mock.url}/sandbox/qa-curl/send`);
    expect(command).toContain('-H "Authorization: Bearer $SENDMOCK_API_KEY"');
    expect(command).not.toContain("…0001");
    if (CURL === undefined) {
      expect(command).toContain(`--data-binary '${body.replaceAll("'", `'\\''`)}'`);
      return;
    }
    await promisify(execFile)("bash", ["-c", command], { env: { PATH: process.env.PATH, SENDMOCK_API_KEY: API_KEY } });
    await expect.poll(async () => (await journal(mock)).length).toBe(2);
    const [replayed, original] = await journal(mock);
    expect(replayed?.status).toBe(200);
    expect(replayed?.path).toBe("/sandbox/qa-curl/send");
    expect(replayed?.request.body).toBe(body);
    expect(replayed?.request.body).toBe(original?.request.body);
    expect(replayed?.request.headers).toMatchObject({ "x-trace": "it's $1", authorization: "Bearer …0001", "content-type": "application/json" });
  });

  it("shows the sandbox's clock and moves it: +1 h delivers a queued message in the list, Set advances by the difference and never back", async () => {
    await openInbox({ lifecycle: { stepMs: 600_000 } });
    await page.goto(`${mock.url}/_mock/?sandbox=qa-clock`);
    await page
      .getByTestId("live-status")
      .filter({ hasText: /^live$/ })
      .waitFor();
    await sendRaw(mock, "/sandbox/qa-clock/send", JSON.stringify(aSendRequest({ to: "grace@example.com" })));
    const row = page.getByTestId("message-row");
    await expect.poll(() => row.getByTestId("message-status").textContent()).toBe("queued");
    const clock = page.getByTestId("clock");
    await expect.poll(() => clock.getByTestId("clock-offset").textContent()).toBe("on real time");

    await row.click();
    await page.getByTestId("message-tab-events").click();
    await clock.getByRole("button", { name: "+1 h" }).click();
    await expect.poll(() => row.getByTestId("message-status").textContent()).toBe("delivered");
    await expect.poll(() => page.getByTestId("message-event").count()).toBe(2);
    expect(await clock.getByTestId("clock-offset").textContent()).toBe("1 h 0 min ahead of real time");
    const clockOf = async (query: string) => ((await adminGet(mock, `/_mock/clock${query}`)).body as { offset_ms: number }).offset_ms;
    // Another sandbox's clock stays where it was.
    expect(await clockOf("?sandbox=qa-clock")).toBe(3_600_000);
    expect(await clockOf("")).toBe(0);

    await clock.getByText("Advance by milliseconds, or set a time").click();
    expect(await clock.getByTestId("clock-more").textContent()).toContain("The clock of the sandbox qa-clock.");
    await clock.getByLabel("Advance by").fill("60000");
    await clock.getByRole("button", { name: "Advance", exact: true }).click();
    await expect.poll(() => clockOf("?sandbox=qa-clock")).toBe(3_660_000);
    await expect.poll(() => clock.getByTestId("clock-offset").textContent()).toBe("1 h 1 min ahead of real time");

    // Set: the field starts at the clock's time; two hours on from there is an advance of about two hours.
    const setField = clock.getByLabel("Set to");
    await expect.poll(() => setField.inputValue()).not.toBe("");
    const start = Date.parse((await clock.getByTestId("clock-now").getAttribute("datetime")) ?? "");
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await setField.fill(local(start + 2 * 3_600_000));
    await clock.getByRole("button", { name: "Set", exact: true }).click();
    await expect.poll(() => clockOf("?sandbox=qa-clock")).toBeGreaterThan(3_660_000 + 2 * 3_600_000 - 5_000);
    expect(await clockOf("?sandbox=qa-clock")).toBeLessThan(3_660_000 + 2 * 3_600_000 + 5_000);
    await setField.fill(local(start));
    await clock.getByRole("button", { name: "Set", exact: true }).click();
    await expect.poll(() => clock.getByTestId("clock-error").textContent()).toContain("only moves forward");
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-1280-clock.png` });
  });

  it("offers every fault kind; respond from the menu gives the next send its status, headers and body, and a refusal is told in the API's words", async () => {
    await openInbox();
    await page.getByRole("tab", { name: "Faults" }).click();
    const admin = parse(await readFile("openapi/admin.yaml", "utf8")) as { components: { schemas: { FaultKind: { enum: string[] } } } };
    const form = page.getByTestId("fault-form");
    const menu = form.getByLabel("Fault", { exact: true });
    expect(await menu.locator("option").evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value))).toEqual(
      admin.components.schemas.FaultKind.enum,
    );

    await menu.selectOption("respond");
    const [status, body] = [form.getByLabel(/^Status \(200 to 599\)/), form.getByLabel(/^Body \(empty: none\)/)];
    // The page's own check: a body that is not JSON while JSON is chosen.
    await body.fill("{teapot");
    await form.getByRole("button", { name: "Add fault" }).click();
    await expect.poll(() => page.getByTestId("fault-error").textContent()).toContain("The body is not JSON");
    // The API's check, in its words: no body with a 204.
    await status.fill("204");
    await body.fill('{"teapot": true}');
    await form.getByRole("button", { name: "Add fault" }).click();
    await expect.poll(() => page.getByTestId("fault-error").textContent()).toContain("body is not allowed with status 204");
    expect(await mock.faults.list()).toEqual([]);

    await status.fill("418");
    await form.getByLabel("Headers").fill("Content-Type: application/json\nX-Teapot: short and stout");
    await form.getByLabel("Times").fill("1");
    await form.getByRole("button", { name: "Add fault" }).click();
    await expect.poll(() => page.getByTestId("fault-row").textContent()).toContain("respond");
    expect(await page.getByTestId("fault-error").textContent()).toBe("");
    expect(await page.getByTestId("fault-row").textContent()).toContain("headers Content-Type, X-Teapot");

    const response = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(aSendRequest()),
    });
    expect(response.status).toBe(418);
    expect(response.headers.get("x-teapot")).toBe("short and stout");
    expect(await response.json()).toEqual({ teapot: true });
    // The rule was for one send: the next gets the usual response.
    await send(mock, aSendRequest());
  });

  it("keeps notices in the flow, covering nothing, gone with the view or when dismissed; a dismissed hint stays dismissed", async () => {
    await openInbox({ width: 390, height: 844 });
    await page.goto(`${mock.url}/_mock/?sandbox=qa-notice`);
    await page
      .getByTestId("live-status")
      .filter({ hasText: /^live$/ })
      .waitFor();
    const hint = page.getByTestId("sandbox-base");
    const notice = page.getByTestId("notice");
    expect(await hint.isVisible()).toBe(true);
    expect(overlaps((await boxesOf(hint))[0], (await boxesOf(page.locator("main")))[0])).toBe(false);

    // A notice after an action, on the Requests view: above the view, over none of its rows or an unfolded request's headers.
    await page.getByRole("tab", { name: "Requests" }).click();
    await page.getByRole("button", { name: "Reset mock" }).click();
    await expect.poll(() => notice.isVisible()).toBe(true);
    await sendRaw(mock, "/sandbox/qa-notice/send", JSON.stringify(aSendRequest()));
    await page.getByRole("button", { name: "Request and answer" }).click();
    const [noticeBox] = await boxesOf(notice);
    expect(noticeBox?.width).toBeGreaterThan(0);
    const content = [page.locator("main"), rows(), page.getByTestId("exchange-request")];
    for (const box of (await Promise.all(content.map(boxesOf))).flat()) expect(overlaps(noticeBox, box)).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-390-notice.png` });

    // It goes with the view it spoke of, and on its Dismiss button.
    await page.getByRole("tab", { name: "Faults" }).click();
    expect(await notice.isVisible()).toBe(false);
    await page.getByRole("tab", { name: "Messages" }).click();
    await page.getByRole("button", { name: "Clear messages" }).click();
    await expect.poll(() => notice.isVisible()).toBe(true);
    await page.getByRole("button", { name: "Dismiss this notice" }).click();
    expect(await notice.isVisible()).toBe(false);

    // The hint, dismissed, stays so on every view and after a reload.
    await page.getByRole("button", { name: "Dismiss the base URL hint" }).click();
    for (const view of ["Requests", "Faults", "Templates", "Messages"]) {
      await page.getByRole("tab", { name: view }).click();
      expect(await hint.isVisible()).toBe(false);
    }
    await page.reload();
    await page
      .getByTestId("live-status")
      .filter({ hasText: /^live$/ })
      .waitFor();
    expect(await hint.isVisible()).toBe(false);
  });

  it("shows a message's checks on its Checks tab and their overall status as a badge in the list: a localhost link fails", async () => {
    await openInbox();
    await send(mock, aSendRequest({ to: "grace@example.com" }));
    await send(mock, aSendRequest({ to: "ada@example.com", data: { name: "Ada", company: "Acme", login_url: "http://localhost:3000/login" } }));
    const row = page.getByTestId("message-row").filter({ hasText: "ada@example.com" });
    await expect.poll(() => row.getByTestId("message-checks-badge").getAttribute("data-status")).toBe("fail");
    expect(await row.getByTestId("message-checks-badge").textContent()).toBe("checks: fail");
    const passing = page.getByTestId("message-row").filter({ hasText: "grace@example.com" });
    await expect.poll(() => passing.getByTestId("message-checks-badge").getAttribute("data-status")).not.toBe("fail");

    await row.click();
    await page.getByRole("tablist", { name: "Parts of the message" }).getByRole("tab", { name: "Checks" }).click();
    const linksCheck = page.locator('[data-testid="message-check"][data-name="links"]');
    await linksCheck.waitFor();
    expect(await linksCheck.getAttribute("data-status")).toBe("fail");
    const finding = linksCheck.getByTestId("check-finding").filter({ hasText: "localhost" }).first();
    expect(await finding.getAttribute("data-severity")).toBe("fail");
    expect(await finding.getByTestId("check-finding-url").textContent()).toBe("http://localhost:3000/login");
    expect(await finding.getByTestId("check-finding-place").textContent()).toMatch(/^html:\d+$/);
    expect(await page.getByTestId("message-checks-status").textContent()).toBe("fail");
    const names = await page
      .getByTestId("message-check")
      .evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { name: string } }).dataset.name));
    expect(names).toEqual(expect.arrayContaining(["html_support", "links", "spam", "size", "text_part", "placeholders", "accessibility"]));
    await page.screenshot({ path: `${SCREENSHOTS}/inbox-1280-checks.png` });

    // Online, only to the hosts the mock allows (none here): the page asks, and shows the result.
    await page.getByRole("button", { name: "Check links online" }).click();
    await expect.poll(() => page.getByTestId("check-links-online-status").textContent()).toContain("Links checked online");
    expect(await page.locator('[data-testid="message-check"][data-name="links"]').getAttribute("data-status")).toBe("fail");
  });
});
