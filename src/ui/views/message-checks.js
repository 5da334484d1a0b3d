// What is inside a message (GET /_mock/messages/{id}/checks): the Checks tab of an open message,
// each named check with its status, summary and findings, and the overall badge of each row of
// the list, fetched when the row comes into view.

import { getMessageChecks } from "../api.js";
import { h, replaceContent } from "../dom.js";
import { withInlineCode } from "../format.js";
import { errorText } from "../notice.js";

/** How each check is called on the page, in the order the API gives them. */
const CHECK_TITLES = {
  html_support: "HTML and CSS support",
  links: "Links",
  spam: "Spam score",
  size: "Size",
  text_part: "Text part",
  placeholders: "Placeholders",
  accessibility: "Accessibility",
};
const STATUS_TONES = { pass: "ok", warn: "warn", fail: "bad", off: "info", error: "bad" };

/** A message's checks never change (a message is not edited): one fetch each, shared by its badge and its tab. */
const fetched = new Map();
const KEEP_AT_MOST = 1_000;
/** Badges fetch a few at a time: a list of 200 rows must not send 200 calls at once. */
const AT_ONCE = 3;
let inFlight = 0;
const waiting = [];

function checksOf(id) {
  let result = fetched.get(id);
  if (result === undefined) {
    result = new Promise((resolve) => waiting.push({ id, resolve }));
    fetched.set(id, result);
    if (fetched.size > KEEP_AT_MOST) fetched.delete(fetched.keys().next().value);
    startWaiting();
  }
  return result;
}

function startWaiting() {
  while (inFlight < AT_ONCE && waiting.length > 0) {
    const { id, resolve } = waiting.shift();
    inFlight += 1;
    getMessageChecks(id)
      .then(
        (checks) => resolve({ checks }),
        (error) => {
          // A failure is not kept: the tab, or the row drawn again, asks once more.
          fetched.delete(id);
          resolve({ error });
        },
      )
      .finally(() => {
        inFlight -= 1;
        startWaiting();
      });
  }
}

function statusBadgeOf(status, testId, text = status) {
  return h("span", { class: `badge badge-status tone-${STATUS_TONES[status] ?? "info"}`, "data-testid": testId, "data-status": status }, text);
}

// ---- the badge of a row ---------------------------------------------------------------------------

const slotsSeen = new IntersectionObserver((entries) => {
  for (const { target, isIntersecting } of entries) {
    // A row drawn again (its status changed) leaves its old slot: stop watching it.
    if (!target.isConnected) slotsSeen.unobserve(target);
    if (!isIntersecting) continue;
    slotsSeen.unobserve(target);
    void fillSlot(target);
  }
});

async function fillSlot(slot) {
  const { checks } = await checksOf(slot.dataset.messageId);
  // A list whose checks cannot be had (an older mock, a message gone) shows no badge rather than an error.
  if (checks === undefined) return;
  replaceContent(slot, statusBadgeOf(checks.status, "message-checks-badge", `checks: ${checks.status}`));
}

/** The place of message `id`'s checks badge in its row: filled once the row is in view. */
export function checksBadgeSlot(id) {
  const slot = h("span", { class: "checks-slot", "data-message-id": id });
  slotsSeen.observe(slot);
  return slot;
}

// ---- the tab ----------------------------------------------------------------------------------------

/** The Checks tab of message `id`: loads, then shows the checks; "Check links online" asks again with `online`. */
export function checksPanel(id) {
  const panel = h("div", { class: "checks", "data-testid": "message-checks" }, h("p", { class: "empty-inline" }, "Checking the message…"));
  const show = (checks) => replaceContent(panel, checksView(checks, checkOnline));
  const showError = (error) => {
    const reason = error?.status === 404 ? "It is no longer in the outbox, or this mock has no checks." : errorText(error);
    replaceContent(panel, h("p", { class: "error-text", role: "alert" }, `Cannot check the message: ${reason}`));
  };

  async function checkOnline(button, status) {
    button.disabled = true;
    status.textContent = "Checking the links online…";
    try {
      show(await getMessageChecks(id, { online: true }));
      panel.querySelector('[data-testid="check-links-online-status"]').textContent = "Links checked online, on the hosts the mock allows (link_check_hosts).";
    } catch (error) {
      button.disabled = false;
      status.textContent = `Cannot check the links online: ${errorText(error)}`;
    }
  }

  void checksOf(id).then(({ checks, error }) => (checks === undefined ? showError(error) : show(checks)));
  return panel;
}

function checksView(checks, checkOnline) {
  const status = h("span", { class: "muted", role: "status", "data-testid": "check-links-online-status" });
  const button = h(
    "button",
    { type: "button", class: "button-small", "data-testid": "check-links-online", onclick: () => void checkOnline(button, status) },
    "Check links online",
  );
  return [
    h("div", { class: "checks-head" }, h("p", { class: "checks-overall" }, "Overall: ", statusBadgeOf(checks.status, "message-checks-status")), button, status),
    h(
      "ol",
      { class: "check-list", "aria-label": "Checks" },
      checks.checks.map((check) => checkItem(check)),
    ),
  ];
}

function checkItem(check) {
  const more = check.findings_total - check.findings.length;
  return h(
    "li",
    { class: `check check-${check.status}`, "data-testid": "message-check", "data-name": check.name, "data-status": check.status },
    h("h4", { class: "check-title" }, CHECK_TITLES[check.name] ?? check.name, " ", statusBadgeOf(check.status, "message-check-status")),
    h(
      "p",
      { class: "check-summary" },
      withInlineCode(check.summary),
      check.score === undefined ? null : ` (score ${check.score}${check.threshold === undefined ? "" : `, spam from ${check.threshold}`})`,
    ),
    check.findings.length === 0
      ? null
      : h(
          "ul",
          { class: "findings" },
          check.findings.map((finding) => findingItem(finding)),
        ),
    more > 0 ? h("p", { class: "muted small" }, `and ${more.toLocaleString()} more`) : null,
  );
}

function findingItem(finding) {
  const place = finding.part === undefined ? null : finding.line === undefined ? finding.part : `${finding.part}:${finding.line}`;
  return h(
    "li",
    { class: "finding", "data-testid": "check-finding", "data-severity": finding.severity },
    h("span", { class: `finding-severity tone-${STATUS_TONES[finding.severity]}` }, finding.severity),
    " ",
    finding.message,
    place === null ? null : [" ", h("code", { class: "finding-place", "data-testid": "check-finding-place" }, place)],
    finding.element === undefined ? null : h("code", { class: "finding-element block" }, finding.element),
    finding.url === undefined ? null : h("span", { class: "link-text block", "data-testid": "check-finding-url" }, finding.url),
    finding.support === undefined ? null : supportList(finding.support),
  );
}

/** How many of each client family's platforms support the feature. */
function supportList(support) {
  return h(
    "ul",
    { class: "support-list", "aria-label": "Support per email client" },
    Object.entries(support).map(([client, percent]) => h("li", { class: "chip" }, `${client} ${Math.round(percent)}%`)),
  );
}
