// The Requests view: the journal of every call to POST /send (newest first, live), with
// its status, error, contract violations, injected fault, the message it captured, and the
// raw request and response (as text nodes only: both are whatever a client or a fault sent).

import { listRequests } from "../api.js";
import { byId, h, syncList } from "../dom.js";
import { countText, durationText, preciseTimeOf, statusClass } from "../format.js";
import { createLiveList, prependItem } from "../live-list.js";
import { errorText } from "../notice.js";
import { hrefFor } from "../router.js";

export function createRequestsView() {
  const table = byId("request-list");
  const rowsBody = byId("request-rows");
  const count = byId("request-count");
  const emptyState = byId("request-empty");
  const listError = byId("request-error");

  const state = { entries: [], total: 0 };

  const liveList = createLiveList({
    load: () => listRequests(),
    show: (response) => {
      state.entries = response.requests;
      state.total = response.total;
      listError.textContent = "";
      syncList(rowsBody, state.entries, { key: (entry) => entry.id, render: requestRow });
      renderCountAndEmptyState();
    },
    add: (entry) => addEntry(entry),
    showError: (error) => {
      listError.textContent = `Cannot load the journal: ${errorText(error)}`;
    },
  });

  function renderCountAndEmptyState() {
    count.textContent = `Showing ${countText(state.entries.length, state.total)}`;
    const isEmpty = state.entries.length === 0;
    table.hidden = isEmpty;
    emptyState.hidden = !isEmpty;
  }

  function addEntry(entry) {
    if (!prependItem({ items: state.entries, container: rowsBody, item: entry, row: requestRow })) return;
    state.total += 1;
    renderCountAndEmptyState();
  }

  return {
    reload: () => liveList.reload(),
    /** A `request` event of the stream. */
    requestRecorded(entry) {
      liveList.arrived(entry);
    },
  };
}

const orDash = (value) => (value === null || value === "" ? "—" : value);

function requestRow(entry) {
  const classes = ["request-row", statusClass(entry.status)];
  if (entry.fault !== null) classes.push("is-fault");
  return h(
    "tr",
    { class: classes.join(" "), "data-testid": "request-row", "data-id": entry.id },
    h("td", { class: "cell-time", "data-label": "Time" }, preciseTimeOf(entry.at)),
    h(
      "td",
      { class: "cell-request", "data-label": "Request" },
      h("code", {}, `${entry.method} ${entry.path}`),
      entry.api_key_hint === null ? null : h("span", { class: "muted block" }, `key …${entry.api_key_hint}`),
    ),
    h("td", { class: "cell-status", "data-label": "Status" }, statusBadge(entry.status)),
    h("td", { class: "cell-error", "data-label": "Error" }, errorDetails(entry)),
    h("td", { class: "cell-to", "data-label": "To" }, orDash(entry.to)),
    h("td", { class: "cell-template", "data-label": "Template" }, entry.template_id === null ? "—" : h("code", {}, entry.template_id)),
    h("td", { class: "cell-duration", "data-label": "Duration" }, durationText(entry.duration_ms)),
    h("td", { class: "cell-message", "data-label": "Message" }, messageLink(entry.message_id)),
  );
}

function statusBadge(status) {
  const text = status === 0 ? "no answer" : String(status);
  const title = status === 0 ? "The connection was closed without an answer" : null;
  return h("span", { class: `badge status-badge ${statusClass(status)}`, "data-testid": "request-status", title }, text);
}

/** `name: value` lines, then a blank line and the body: how the message looked on the wire. */
function httpText(firstLine, headers, body) {
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [firstLine, ...headerLines, "", body].join("\n");
}

function cutNote(truncated) {
  return truncated ? h("p", { class: "muted" }, "Only the start of the body is kept (journal_body_bytes, 64 KB by default).") : null;
}

/** The request as received and the response as sent, as blocks of text (also the Request tab of a message). */
export function exchangeParts(entry) {
  if (!entry.request) return [h("p", { class: "muted" }, "The journal kept no copy of this request.")];
  const { request, response } = entry;
  const requestBody = request.body ?? "(a body was sent but could not be read)";
  const responsePart =
    response === null
      ? h(
          "p",
          { class: "muted", "data-testid": "exchange-no-answer" },
          entry.client_gone ? "None: the client left before its answer." : "None: the connection was closed without one.",
        )
      : [
          h(
            "pre",
            { class: "code-block exchange-text", "data-testid": "exchange-response", tabindex: "0" },
            httpText(`HTTP ${response.status}`, response.headers, response.body),
          ),
          cutNote(response.body_truncated),
        ];
  return [
    h("h4", {}, "Request"),
    h(
      "pre",
      { class: "code-block exchange-text", "data-testid": "exchange-request", tabindex: "0" },
      httpText(`${entry.method} ${entry.path}`, request.headers, requestBody),
    ),
    cutNote(request.body_truncated),
    h("h4", {}, "Answer"),
    responsePart,
  ];
}

/** The request and the response, folded away until asked for. */
function exchangeDetails(entry) {
  if (!entry.request) return null;
  return h("details", { class: "exchange", "data-testid": "request-exchange" }, h("summary", {}, "Request and answer"), exchangeParts(entry));
}

function errorDetails(entry) {
  const parts = [];
  if (entry.fault !== null) {
    parts.push(h("span", { class: "badge badge-fault", "data-testid": "request-fault" }, `fault: ${entry.fault}`));
  }
  if (entry.client_gone) {
    parts.push(
      h(
        "span",
        { class: "badge badge-fault", "data-testid": "request-client-gone", title: "The client closed the connection before its answer" },
        "client gone",
      ),
    );
  }
  if (entry.error_code !== null) parts.push(h("code", { class: "error-code" }, entry.error_code));
  if (entry.error_message !== null) parts.push(h("p", { class: "error-message" }, entry.error_message));
  if (entry.violations.length > 0) {
    parts.push(
      h(
        "ul",
        { class: "violations", "aria-label": "Contract violations" },
        entry.violations.map((violation) => h("li", {}, h("code", { class: "pointer" }, violation.path || "/"), " ", violation.message)),
      ),
    );
  }
  const exchange = exchangeDetails(entry);
  if (parts.length === 0) parts.push("—");
  return exchange === null ? parts : [...parts, exchange];
}

function messageLink(messageId) {
  if (messageId === null) return "—";
  return h("a", { href: hrefFor("messages", messageId), class: "message-link", "data-testid": "request-message-link", title: "Open the message" }, messageId);
}
