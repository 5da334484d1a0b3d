// What the inbox message tools' files share: Chromium for the file, a mock and the inbox page open on it for each test, and what their tests ask of the page and of the API.

import type { Page } from "playwright-core";
import { afterEach, expect } from "vitest";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { bearer } from "../../support/helpers.js";
import { chromiumForThisDescribe, openInboxPage } from "./chromium.js";

/** What a client app does: a plain HTTP call, as curl would make it. */
export async function send(mock: RunningSendMock, body: object): Promise<string> {
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
export async function adminGet(mock: RunningSendMock, pathname: string, token?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${mock.url}${pathname}`, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** The few browser objects the page-side functions below use (the tests' tsconfig has no DOM library). */
export interface Box {
  getBoundingClientRect(): { width: number };
  scrollWidth: number;
  clientWidth: number;
}
export interface InPage {
  document: { documentElement: Box; activeElement: { textContent: string | null } | null };
  sessionStorage: { setItem(key: string, value: string): void };
  axe: { run(context: unknown): Promise<{ violations: AxeViolation[] }> };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** What overflowing() touches in the page (the tests' tsconfig has no DOM library). */
interface Shown extends Box {
  id: string;
  placeholder: string;
  getClientRects(): { length: number };
}
interface InPageLayout {
  document: {
    querySelectorAll(selector: string): Iterable<Shown>;
    createElement(tag: "canvas"): { getContext(kind: "2d"): { font: string; measureText(text: string): { width: number } } };
  };
  getComputedStyle(element: Shown): { font: string; paddingLeft: string; paddingRight: string };
}

/** The page's main containers: none may scroll sideways or run over (the HTML preview's slot and the empty inbox's curl example scroll on purpose, and are not listed). */
const MAIN_CONTAINERS = [
  "main",
  ".notice",
  ".panel",
  ".pane",
  ".card",
  ".clock",
  ".filters",
  ".empty-state",
  ".table-scroll",
  ".journal",
  ".exchange-text",
  ".detail",
  ".tab-panel",
  ".check-list",
  ".fault-form",
];

/**
 * What runs over its box on the page as shown: a main container whose content is wider than it,
 * and an input whose example text (placeholder) is cut off; each named with its sizes.
 */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate((selectors) => {
    const scope = globalThis as unknown as InPageLayout;
    const { document } = scope;
    const problems: string[] = [];
    for (const selector of selectors) {
      for (const element of document.querySelectorAll(selector)) {
        if (element.getClientRects().length > 0 && element.scrollWidth > element.clientWidth)
          problems.push(`${selector}#${element.id}: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    const ruler = document.createElement("canvas").getContext("2d");
    for (const input of document.querySelectorAll("input[placeholder]")) {
      if (input.getClientRects().length === 0) continue;
      const style = scope.getComputedStyle(input);
      ruler.font = style.font;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (ruler.measureText(input.placeholder).width > room) problems.push(`the example in #${input.id}, "${input.placeholder}", is cut off`);
    }
    return problems;
  }, MAIN_CONTAINERS);
}

export type InboxOptions = SendMockOptions & { width?: number; height?: number; token?: string };

/**
 * Registers the hooks of the enclosing describe (Chromium launched once, each test's mock closed
 * after it) and returns openInbox and the page helpers, which work on the page openInbox opened last.
 */
export function inboxSession() {
  const browser = chromiumForThisDescribe();
  let mock: RunningSendMock;
  let page: Page;
  let dialogs: string[];

  afterEach(async () => {
    await mock.close();
  });

  /** A mock and the inbox page open on it, live; confirm() questions are accepted and kept. */
  async function openInbox({ width = 1280, height = 800, token, ...options }: InboxOptions = {}) {
    mock = await startSendMock({ port: 0, watchTemplates: false, ...options });
    ({ page, dialogs } = await openInboxPage(browser(), mock.url, {
      width,
      height,
      acceptDownloads: true,
      // The page keeps the admin token for the tab's session, as after the user typed it once.
      ...(token !== undefined && {
        beforeLoad: (newPage: Page) =>
          newPage.addInitScript((value) => (globalThis as unknown as InPage).sessionStorage.setItem("sendmock.adminToken", value), token),
      }),
    }));
    return { mock, page, dialogs };
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

  return { openInbox, openMessage, messageTab, sidewaysScroll, shownPanelText };
}
