// One captured message, in full: headers, the rendered html (sandboxed), the text part, the
// template data, warnings and links.

import { getMessageHtml } from "../api.js";
import { externalLink, h } from "../dom.js";
import { addressList, dataValueText, longTime } from "../format.js";
import { errorText } from "../notice.js";
import { previewFrame } from "../preview-frame.js";

/**
 * The detail of `message` as an article. The html part is fetched from
 * GET /_mock/messages/{id}/html (so the admin token goes with it) and filled in when it
 * arrives. `onClose` is called by the close button.
 */
export function messageDetail(message, { onClose }) {
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
    section("HTML part", htmlPart(message)),
    section("Text part", message.text === null ? empty("no text part") : h("pre", { class: "text-part", "data-testid": "message-text" }, message.text)),
    section("Data", dataTable(message.data)),
    section("Links", linkList(message.links)),
    h("details", { class: "raw-json" }, h("summary", {}, "JSON"), h("pre", {}, JSON.stringify(message, null, 2))),
  );
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
    ["Status", h("span", { class: "badge badge-queued" }, message.status)],
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

function linkList(links) {
  if (links.length === 0) return empty("no links");
  return h(
    "ol",
    { class: "link-list", "data-testid": "message-links" },
    links.map((link) => h("li", {}, externalLink(link))),
  );
}
