// One captured message: its headers and delivery status, then tabs: the rendered html
// (sandboxed, at desktop, tablet or phone width) and its links, the text part, the source (the
// template data and the captured JSON), the request that captured it (its journal entry), the
// events (the lifecycle timeline and the webhook attempts) and its checks.

import { emlUrl, findRequestOf, getMessageHtml } from "../api.js";
import { externalLink, h, replaceContent } from "../dom.js";
import { addressList, dataValueText, longTime, offsetText, preciseTimeOf, statusBadge } from "../format.js";
import { errorText } from "../notice.js";
import { previewFrame } from "../preview-frame.js";
import { createTabs } from "../tabs.js";
import { exchangeParts } from "./exchange.js";
import { checksPanel } from "./message-checks.js";

/** The tabs of a message, in order; the first is shown when none was chosen yet. */
const MESSAGE_TABS = [
  { key: "html", label: "HTML" },
  { key: "text", label: "Text" },
  { key: "source", label: "Source" },
  { key: "request", label: "Request" },
  { key: "events", label: "Events" },
  { key: "checks", label: "Checks" },
];

/** The preview widths: what an email looks like in a desktop client, on a tablet and on a phone. */
const PREVIEW_WIDTHS = [
  { key: "desktop", label: "Desktop" },
  { key: "tablet", label: "Tablet (768 px)" },
  { key: "phone", label: "Phone (375 px)" },
];

/**
 * The detail of `message` as an article. The html part is fetched from
 * GET /_mock/messages/{id}/html (so the admin token goes with it) and filled in when it
 * arrives. `webhookDeliveries` is the element of its webhook attempts (webhook-deliveries.js),
 * which the caller keeps live. `view` is what the user chose last, kept from one message to the
 * next: `{tab, previewWidth}`, with `onTabChange(key)` and `onPreviewWidthChange(key)` telling
 * the caller. `onClose`, `onDelete` and `onDownload(event)` are the header buttons' actions.
 */
export function messageDetail(message, { onClose, onDelete, onDownload, webhookDeliveries, view, onTabChange, onPreviewWidthChange }) {
  const heading = h("h2", { class: "detail-title", tabindex: "-1", id: "message-detail-title" }, message.subject);
  const content = {
    html: () => [htmlPart(message, view.previewWidth, onPreviewWidthChange), section("Links", linkList(message.links))],
    text: () => (message.text === null ? empty("no text part") : h("pre", { class: "text-part", "data-testid": "message-text", tabindex: "0" }, message.text)),
    source: () => [
      section("Data", dataTable(message.data)),
      section(
        "Captured message (JSON)",
        h("pre", { class: "code-block source-json", "data-testid": "message-source", tabindex: "0" }, JSON.stringify(message, null, 2)),
      ),
    ],
    request: () => requestPart(message),
    // The attempts of each event follow its step in the timeline, so they sit right under it.
    events: () => [section("Events", eventTimeline(message)), section("Webhook deliveries", webhookDeliveries)],
    checks: () => checksPanel(message.id),
  };
  const tabs = createTabs({
    label: "Parts of the message",
    idPrefix: "message",
    tabs: MESSAGE_TABS.map((tab) => ({ ...tab, content: content[tab.key] })),
    selected: view.tab,
    onSelect: onTabChange,
  });
  return h(
    "article",
    { class: "detail", "data-testid": "message-detail", "data-id": message.id, "aria-labelledby": "message-detail-title" },
    h(
      "div",
      { class: "detail-header" },
      heading,
      h(
        "div",
        { class: "detail-actions" },
        h(
          "a",
          {
            href: emlUrl(message.id),
            download: `${message.id}.eml`,
            class: "button-link button-quiet",
            "data-testid": "message-download",
            title: "The message as an email file, for a mail client or a mail parser",
            onclick: onDownload,
          },
          "Download .eml",
        ),
        h(
          "button",
          { type: "button", class: "button-danger", "data-testid": "message-delete", onclick: onDelete, "aria-label": "Delete this message" },
          "Delete",
        ),
        h("button", { type: "button", class: "button-quiet", onclick: onClose, "aria-label": "Close the message (Escape)" }, "Close"),
      ),
    ),
    headerFields(message),
    warningsSection(message.warnings),
    tabs.tablist,
    tabs.panels,
  );
}

/**
 * Brings a drawn detail up to `message` after lifecycle events: its status badge, and the
 * events it lacks at the end of the timeline (events only ever grow at the end). The rest of
 * the detail, the HTML preview above all, is left as it is.
 */
export function showLifecycle(detail, message) {
  detail.querySelector('.fields [data-testid="message-status"]')?.replaceWith(statusBadge(message.status));
  const timeline = detail.querySelector('[data-testid="message-events"]');
  if (!timeline) return;
  for (const event of message.events.slice(timeline.children.length)) timeline.append(eventItem(event, message));
  detail.querySelector('[data-testid="message-events-empty"]')?.toggleAttribute("hidden", message.events.length > 0);
}

/** What the detail pane shows when no message is selected. */
export function noMessageSelected() {
  return h("p", { class: "pane-placeholder" }, "Select a message to see it rendered.");
}

/** What the detail pane shows when the selected message could not be loaded. */
export function messageUnavailable(id, error) {
  const reason = error?.status === 404 ? "It is no longer in the outbox (cleared, reset, or dropped past the capacity)." : errorText(error);
  return h("div", { class: "pane-placeholder", role: "alert" }, h("p", {}, "Cannot show message ", h("code", {}, id), "."), h("p", {}, reason));
}

function section(title, content) {
  return h("section", { class: "detail-section" }, h("h3", {}, title), content);
}

function empty(text) {
  return h("p", { class: "empty-inline" }, text);
}

function headerFields(message) {
  const rows = [
    ["To", message.to],
    ["Cc", addressList(message.cc)],
    ["Bcc", addressList(message.bcc)],
    ["Reply-To", message.reply_to ?? "—"],
    ["Template", h("code", {}, message.template_id)],
    ["Created", longTime(message.created_at)],
    ["Status", statusBadge(message.status)],
    ["API key", `…${message.api_key_hint}`],
    ["ID", h("code", {}, message.id)],
  ];
  return h(
    "dl",
    { class: "fields" },
    rows.map(([name, value]) => h("div", { class: "field" }, h("dt", {}, name), h("dd", {}, value))),
  );
}

function warningsSection(warnings) {
  if (warnings.length === 0) return null;
  return h(
    "section",
    { class: "detail-section warnings", "data-testid": "message-warnings" },
    h("h3", {}, warnings.length === 1 ? "Warning" : `Warnings (${warnings.length})`),
    h(
      "ul",
      {},
      warnings.map((warning) => h("li", {}, warning)),
    ),
  );
}

function htmlPart(message, previewWidth, onPreviewWidthChange) {
  if (message.html === null) return empty("no HTML part");
  const slot = h("div", { class: "preview-slot", "data-width": previewWidth }, h("p", { class: "empty-inline" }, "Loading the HTML…"));
  const widthSwitch = h(
    "fieldset",
    { class: "width-switch", "data-testid": "preview-width" },
    h("legend", { class: "visually-hidden" }, "Preview width"),
    PREVIEW_WIDTHS.map(({ key, label }) =>
      h(
        "label",
        { class: "width-option" },
        h("input", {
          type: "radio",
          name: "preview-width",
          value: key,
          "data-testid": `preview-width-${key}`,
          checked: key === previewWidth,
          onchange: () => {
            slot.dataset.width = key;
            onPreviewWidthChange(key);
          },
        }),
        label,
      ),
    ),
  );
  getMessageHtml(message.id).then(
    (html) => slot.replaceChildren(previewFrame(html, { title: `HTML part of “${message.subject}”`, testId: "message-preview" })),
    (error) => slot.replaceChildren(h("p", { class: "error-text", role: "alert" }, `Cannot load the HTML: ${errorText(error)}`)),
  );
  return [widthSwitch, slot];
}

/** The journal entry of the request that captured the message: the request as received, the response as sent. */
function requestPart(message) {
  const slot = h(
    "div",
    { class: "request-slot", "data-testid": "message-request" },
    h("p", { class: "empty-inline" }, "Looking for the request in the journal…"),
  );
  findRequestOf(message.id).then(
    (entry) =>
      replaceContent(
        slot,
        entry === null
          ? h("p", { class: "empty-inline" }, "The journal no longer holds this request (it keeps the latest ones only).")
          : [h("p", { class: "muted" }, preciseTimeOf(entry.at), ` · ${entry.method} ${entry.path} · answered ${entry.status}`), exchangeParts(entry)],
      ),
    (error) => replaceContent(slot, h("p", { class: "error-text", role: "alert" }, `Cannot load the request: ${errorText(error)}`)),
  );
  return slot;
}

function dataTable(data) {
  const entries = Object.entries(data);
  if (entries.length === 0) return empty("no data");
  return h(
    "table",
    { class: "data-table", "data-testid": "message-data" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Key"), h("th", { scope: "col" }, "Value"))),
    h(
      "tbody",
      {},
      entries.map(([key, value]) => h("tr", {}, h("th", { scope: "row" }, h("code", {}, key)), h("td", {}, dataValueText(value)))),
    ),
  );
}

/**
 * The lifecycle events, oldest first, each with its time on the mock's clock and how long after
 * the capture it came. A polite live region: events added while the message is open are read out.
 */
function eventTimeline(message) {
  return [
    h("p", { class: "empty-inline", "data-testid": "message-events-empty", hidden: message.events.length > 0 }, "No events yet: the message is queued."),
    h(
      "ol",
      { class: "event-timeline", "data-testid": "message-events", "aria-label": "Delivery events, oldest first", "aria-live": "polite" },
      message.events.map((event) => eventItem(event, message)),
    ),
  ];
}

function eventItem(event, message) {
  const offset = offsetText(message.created_at, event.at);
  return h(
    "li",
    { class: "timeline-item", "data-testid": "message-event", "data-type": event.type },
    h("code", { class: "timeline-type" }, event.type),
    h("span", { class: "timeline-time" }, preciseTimeOf(event.at), offset === "" ? null : h("span", { class: "muted" }, ` (${offset} after capture)`)),
    event.bounce_type === undefined ? null : h("span", { class: "timeline-detail" }, "bounce type: ", h("strong", {}, event.bounce_type)),
    event.link === undefined ? null : h("span", { class: "timeline-detail" }, "link: ", event.link === null ? "none" : externalLink(event.link)),
  );
}

function linkList(links) {
  if (links.length === 0) return empty("no links");
  return h(
    "ol",
    { class: "link-list", "data-testid": "message-links" },
    links.map((link) => h("li", {}, externalLink(link))),
  );
}
