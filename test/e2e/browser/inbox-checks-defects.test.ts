// The Checks tab in real Chromium finds a planted defect of each kind (test/support/planted-defects, and the shipped welcome
// template's data), the spammy one scored by a real spamd: each message's badge says fail and its tab names the failing check.

import { cp, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../support/cli-process.js";
import { aSendRequest, SHIPPED_TEMPLATES } from "../../support/helpers.js";
import { spamdMissing, startSpamd, type SpamdProcess } from "../../support/spamd.js";
import { chromiumMissing } from "./chromium.js";
import { inboxSession, send } from "./inbox-session.js";

const skipReason = chromiumMissing() ?? spamdMissing();
const welcome = (to: string, data: Record<string, string>) => aSendRequest({ to, data: { ...aSendRequest().data, ...data } });
const planted = (to: string, templateId: string) => ({ to, template_id: templateId, data: { name: "Ada" } });

/** Each defect: the recipient that names it, the send that plants it, the check that must fail. */
const DEFECTS = [
  ["css@example.com", planted("css@example.com", "flex-card"), "html_support"],
  ["localhost@example.com", welcome("localhost@example.com", { login_url: "http://localhost:3000/login" }), "links"],
  ["placeholder@example.com", welcome("placeholder@example.com", { name: "{first_name}" }), "placeholders"],
  ["alt@example.com", planted("alt@example.com", "logo-no-alt"), "accessibility"],
  ["big@example.com", welcome("big@example.com", { company: "Acme ".repeat(24 * 1024) }), "size"],
  ["text@example.com", planted("text@example.com", "html-only"), "text_part"],
  ["spam@example.com", planted("spam@example.com", "prize"), "spam"],
] as const;

describe.skipIf(skipReason !== undefined)("the Checks tab finds a planted defect of each kind", () => {
  const session = inboxSession();
  let spamd: SpamdProcess;
  let templates = "";
  beforeAll(async () => {
    spamd = await startSpamd();
    templates = await mkdtemp(path.join(os.tmpdir(), "sendmock-defects-"));
    await cp(SHIPPED_TEMPLATES, templates, { recursive: true });
    await cp(path.join(ROOT, "test/support/planted-defects"), templates, { recursive: true });
  }, 70_000);
  afterAll(() => spamd.stop());

  it("badges each message fail and shows its failing check on the tab", async () => {
    // Bounds far past what a loaded machine needs: the page asks for three rows' checks at a time, and spamd may take up to
    // spamd_timeout_ms on each when the machine is busy (two full-suite runs beside other work saw the last row wait > 90 s).
    const { mock, page } = await session.openInbox({ templates, spamd: spamd.address, spamdTimeoutMs: 60_000 });
    for (const [, body] of DEFECTS) await send(mock, body);
    for (const [to, , check] of DEFECTS) {
      const row = page.getByTestId("message-row").filter({ hasText: to });
      // A row's badge is fetched once the row is in view, as a person scrolls to it: the first sends may sit below the fold.
      await row.scrollIntoViewIfNeeded();
      await expect.poll(() => row.getByTestId("message-checks-badge").getAttribute("data-status"), { timeout: 300_000 }).toBe("fail");
      await row.click();
      await page.getByRole("tablist", { name: "Parts of the message" }).getByRole("tab", { name: "Checks" }).click();
      const shown = page.locator(`[data-testid="message-check"][data-name="${check}"]`);
      await shown.waitFor({ timeout: 90_000 });
      await expect.poll(() => shown.getAttribute("data-status"), { timeout: 90_000 }).toBe("fail");
      expect(await shown.getByTestId("check-finding").count()).toBeGreaterThan(0);
    }
  }, 600_000);
});
