// Finds and launches Debian's Chromium for the browser tests; outside CI a missing one skips them.

import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

const CHROMIUM = process.env.SENDMOCK_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. In CI they must run. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set SENDMOCK_CHROMIUM)`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI must run them`);
  console.warn(reason);
  return reason;
}

/**
 * A first launch on a fresh machine builds Chromium's profile and font cache; beside the rest of the
 * suite on two busy cores it took over 10 s in CI (the hook's default), while a warm one takes ~1 s.
 */
export const CHROMIUM_LAUNCH_TIMEOUT_MS = 90_000;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: CHROMIUM_LAUNCH_TIMEOUT_MS,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** A page on the mock's inbox, live; every confirm() it asks is answered yes and kept in `dialogs`. */
export async function openInboxPage(
  browser: Browser | undefined,
  mockUrl: string,
  options: { width?: number; height?: number; acceptDownloads?: boolean; beforeLoad?: (page: Page) => Promise<void> } = {},
): Promise<{ page: Page; dialogs: string[] }> {
  if (!browser) throw new Error("Chromium did not launch");
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    acceptDownloads: options.acceptDownloads ?? false,
  });
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
