// One captured message, in full: headers and delivery status, the rendered html (sandboxed),
// the text part, the template data, warnings, links, the timeline of lifecycle events and the
// webhook attempts.

import { getMessageHtml } from "../api.js";
import { externalLink, h } from "../dom.js";
import { addressList, dataValueText, longTime, offsetText, preciseTimeOf, statusBadge } from "../format.js";
import { errorText } from "../notice.js";
import { previewFrame } from "../preview-frame.js";

/**
 * The detail of `message` as an article. The html part is fetched from
 * GET /_mock/messages/{id}/html (so the admin token goes with it) and filled in when it
 * arrives. `onClose` is called by the close button; `webhookDeliveries` is the element of
 * its webhook attempts (webhook-deliveries.js), which the caller keeps live.
 */
export function messageDetail(message, { onClose, webhookDeliveries }) {
  const heading = h("h2", { class: "detail-title", tabindex: "-1", id: "message-detail-title" }, message.subject);
  return h(
    "article",
    { class: "detail", "data-testid": "message-detail", "data-id": message.id, "aria-labelledby": "message-detail-title" },
    h(
      "div",
      { class: "detail-header" },
      heading,
      h("button", { type: "button", class: "button-quiet", onclick: onClose, "aria-label": "Close the message (Escape)" }, "Close"),
    ),
    headerFields(message),
    warningsSection(message.warnings),
    // Right below the status it explains, so a step seen live is in view with the badge.
    section("Events", eventTimeline(message)),
    // Each event's attempts follow its step in the timeline, so they sit right under it.
    section("Webhook deliveries", webhookDeliveries),
    section("HTML part", htmlPart(message)),
    section("Text part", message.text === null ? empty("no text part") : h("pre", { class: "text-part", "data-testid": "message-text" }, message.text)),
    section("Data", dataTable(message.data)),
    section("Links", linkList(message.links)),
    h("details", { class: "raw-json" }, h("summary", {}, "JSON"), h("pre", {}, JSON.stringify(message, null, 2))),
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

function htmlPart(message) {
  if (message.html === null) return empty("no HTML part");
  const slot = h("div", { class: "preview-slot" }, h("p", { class: "empty-inline" }, "Loading the HTML…"));
  getMessageHtml(message.id).then(
    (html) => slot.replaceChildren(previewFrame(html, { title: `HTML part of “${message.subject}”`, testId: "message-preview" })),
    (error) => slot.replaceChildren(h("p", { class: "error-text", role: "alert" }, `Cannot load the HTML: ${errorText(error)}`)),
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
