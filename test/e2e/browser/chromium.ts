// Finds and launches Debian's Chromium for the browser tests; outside CI a missing one skips them.

import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

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
