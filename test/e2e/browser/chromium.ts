// Finds and launches Debian's Chromium for the browser tests; outside CI a missing one skips them.

import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

/**
 * Debian's headless shell first (package chromium-headless-shell): the same Chromium, built
 * without the browser's own UI layer. The browser tests cost Chromium 11.7-12.7 s of CPU in it,
 * against 19.9-20.4 s in the full browser (package chromium), which they fall back to; all
 * processes summed, two runs each.
 */
const CANDIDATES = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"];
const CHROMIUM = process.env.SENDMOCK_CHROMIUM ?? CANDIDATES.find((candidate) => existsSync(candidate));

/** Why the browser tests cannot run here, or undefined when they can. In CI they must run. */
export function chromiumMissing(): string | undefined {
  if (CHROMIUM !== undefined && existsSync(CHROMIUM)) return undefined;
  const where = CHROMIUM ?? CANDIDATES.join(" or ");
  const reason = `browser tests skipped: no Chromium at ${where} (apt-get install chromium-headless-shell, or set SENDMOCK_CHROMIUM)`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI must run them`);
  console.warn(reason);
  return reason;
}

/** Where Chromium is, for a child process that launches its own. */
export function chromiumPath(): string {
  if (CHROMIUM === undefined) throw new Error(`no Chromium at ${CANDIDATES.join(" or ")}`);
  return CHROMIUM;
}

/**
 * A first launch on a fresh machine builds Chromium's profile and font cache; beside the rest of the
 * suite on two busy cores it took over 10 s in CI (the hook's default), while a warm one takes ~1 s.
 */
export const CHROMIUM_LAUNCH_TIMEOUT_MS = 90_000;

export function launchChromium(): Promise<Browser> {
  if (CHROMIUM === undefined) throw new Error(`no Chromium at ${CANDIDATES.join(" or ")}`);
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: CHROMIUM_LAUNCH_TIMEOUT_MS,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      // No spare renderer started ahead, and the message preview's sandboxed frame in the page's
      // own process: half as many renderer processes, ~10% less of Chromium's CPU. The sandbox
      // attribute still applies; only the process it runs in changes.
      "--disable-features=IsolateSandboxedIframes,SpareRendererForSitePerProcess",
      "--disable-site-isolation-trials",
    ],
  });
}

/**
 * Registers the enclosing describe's hooks: Chromium launched once before its tests and closed
 * after them. The getter gives the browser, undefined when the launch failed, so that the closing
 * hook does not hide that failure behind its own.
 */
export function chromiumForThisDescribe(): () => Browser | undefined {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, CHROMIUM_LAUNCH_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser;
}

interface OpenPage {
  page: Page;
  acceptDownloads: boolean;
  /** False once a script was added to run before each load: a later test must not inherit it. */
  reusable: boolean;
}

/**
 * Each browser's last page, opened again by the next test: a fresh page (a new context and
 * renderer process) cost Chromium ~0.7 s of CPU, navigating an open one ~0.3 s (measured by
 * summing its processes' CPU over 8 opens), and the browser tests open 20. Each test's mock
 * listens on a port of its own, so every test starts the page on another origin: no script
 * state, storage or event stream carries over from the test before.
 */
const openPages = new WeakMap<Browser, OpenPage>();

async function pageFor(browser: Browser, viewport: { width: number; height: number }, acceptDownloads: boolean, fresh: boolean): Promise<Page> {
  const open = openPages.get(browser);
  if (open && open.reusable && !fresh && open.acceptDownloads === acceptDownloads && !open.page.isClosed()) {
    open.page.removeAllListeners("dialog");
    await open.page.unrouteAll();
    await open.page.setViewportSize(viewport);
    return open.page;
  }
  if (open && !open.page.isClosed()) await open.page.close();
  const page = await browser.newPage({ viewport, acceptDownloads });
  openPages.set(browser, { page, acceptDownloads, reusable: !fresh });
  return page;
}

/**
 * A page on the mock's inbox, live; every confirm() it asks is accepted and kept in `dialogs`.
 * The browser's page of the test before is reused (see openPages) unless `beforeLoad` is given,
 * which gets a page of its own. The browser closes its pages when it closes.
 */
export async function openInboxPage(
  browser: Browser | undefined,
  mockUrl: string,
  options: { width?: number; height?: number; acceptDownloads?: boolean; beforeLoad?: (page: Page) => Promise<unknown> } = {},
): Promise<{ page: Page; dialogs: string[] }> {
  if (!browser) throw new Error("Chromium did not launch");
  const viewport = { width: options.width ?? 1280, height: options.height ?? 800 };
  const page = await pageFor(browser, viewport, options.acceptDownloads ?? false, options.beforeLoad !== undefined);
  await options.beforeLoad?.(page);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await page.goto(`${mockUrl}/_mock/`);
  await page
    .getByTestId("live-status")
    .filter({ hasText: /^live$/i })
    .waitFor();
  return { page, dialogs };
}
