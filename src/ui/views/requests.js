// The Requests view: the journal of every call to POST /send (newest first, live), filtered by
// status, error code, fault and a text search, with each request's status, error, contract
// violations, injected fault and the message it captured; a request unfolds under its row, the
// full width of the table, to the raw request and response and Copy as curl.

import { LIST_LIMIT, listRequests } from "../api.js";
import { append, byId, h, syncList } from "../dom.js";
import { countText, durationText, preciseTimeOf, statusClass } from "../format.js";
import { createLiveList } from "../live-list.js";
import { errorText } from "../notice.js";
import { hrefFor } from "../router.js";
import { exchangeParts } from "./exchange.js";
import { createRequestFilters } from "./request-filters.js";

/** The table's columns: the unfolded request spans them all. */
const COLUMNS = 8;

export function createRequestsView() {
  const table = byId("request-list");
  const count = byId("request-count");
  const emptyState = byId("request-empty");
  const listError = byId("request-error");

  const state = { entries: [], total: 0 };
  // Entries heard on the event stream since the view loaded: their rows are marked new.
  const arrivedLive = new Set();

  const filters = createRequestFilters({ onChange: render });

  const liveList = createLiveList({
    load: () => listRequests(),
    show: (response) => {
      state.entries = response.requests;
      state.total = response.total;
      listError.textContent = "";
      arrivedLive.clear();
      render();
    },
    add: (entry) => {
      if (state.entries.some((known) => known.id === entry.id)) return;
      arrivedLive.add(entry.id);
      state.entries.unshift(entry);
      state.entries.length = Math.min(state.entries.length, LIST_LIMIT);
      state.total += 1;
      render();
    },
    showError: (error) => {
      listError.textContent = `Cannot load the journal: ${errorText(error)}`;
    },
  });

  function render() {
    filters.offerChoicesFrom(state.entries);
    const shown = state.entries.filter(filters.matches);
    syncList(table, shown, { key: (entry) => entry.id, render: (entry) => requestEntry(entry, arrivedLive.has(entry.id)) });
    count.textContent = countLine(shown.length);
    table.hidden = shown.length === 0;
    emptyState.hidden = shown.length > 0;
    byId("request-empty-none").hidden = state.entries.length > 0;
    byId("request-empty-filtered").hidden = state.entries.length === 0;
  }

  function countLine(shown) {
    if (!filters.active()) return `Showing ${countText(shown, state.total)}`;
    const searched = state.entries.length < state.total ? ` (the latest ${state.entries.length.toLocaleString()} searched)` : "";
    return `${countText(shown, state.total)} match${searched}`;
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

/** One entry: its row, and under it the request and response, folded until asked for and drawn then. */
function requestEntry(entry, isNew) {
  const exchangeId = `exchange-${entry.id}`;
  const exchangeCell = h("td", { colspan: String(COLUMNS), class: "exchange-cell" });
  const exchangeRow = h("tr", { class: "exchange-row", id: exchangeId, "data-testid": "request-exchange", hidden: true }, exchangeCell);
  const toggle = entry.request
    ? h(
        "button",
        {
          type: "button",
          class: "link-button exchange-toggle",
          "aria-expanded": "false",
          "aria-controls": exchangeId,
          "data-testid": "request-exchange-toggle",
          onclick: () => {
            const open = exchangeRow.hidden;
            if (open && exchangeCell.childElementCount === 0) append(exchangeCell, exchangeParts(entry));
            exchangeRow.hidden = !open;
            toggle.setAttribute("aria-expanded", String(open));
          },
        },
        "Request and answer",
      )
    : null;
  const classes = ["request-row", statusClass(entry.status)];
  if (entry.fault !== null) classes.push("is-fault");
  if (isNew) classes.push("is-new");
  const row = h(
    "tr",
    { class: classes.join(" "), "data-testid": "request-row", "data-id": entry.id },
    h("td", { class: "cell-time", "data-label": "Time" }, preciseTimeOf(entry.at)),
    h(
      "td",
      { class: "cell-request", "data-label": "Request" },
      h("code", {}, `${entry.method} ${entry.path}`),
      entry.api_key_hint === null ? null : h("span", { class: "muted block" }, `key …${entry.api_key_hint}`),
      toggle,
    ),
    h("td", { class: "cell-status", "data-label": "Status" }, statusBadge(entry.status)),
    h("td", { class: "cell-error", "data-label": "Error" }, errorDetails(entry)),
    h("td", { class: "cell-to", "data-label": "To" }, orDash(entry.to)),
    h("td", { class: "cell-template", "data-label": "Template" }, entry.template_id === null ? "—" : h("code", {}, entry.template_id)),
    h("td", { class: "cell-duration", "data-label": "Duration" }, durationText(entry.duration_ms)),
    h("td", { class: "cell-message", "data-label": "Message" }, messageLink(entry.message_id)),
  );
  return h("tbody", { class: "request-entry", "data-testid": "request-entry", "data-id": entry.id }, row, exchangeRow);
}

function statusBadge(status) {
  const text = status === 0 ? "no answer" : String(status);
  const title = status === 0 ? "The connection was closed without an answer" : null;
  return h("span", { class: `badge status-badge ${statusClass(status)}`, "data-testid": "request-status", title }, text);
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
  return parts.length === 0 ? "—" : parts;
}

function messageLink(messageId) {
  if (messageId === null) return "—";
  return h("a", { href: hrefFor("messages", messageId), class: "message-link", "data-testid": "request-message-link", title: "Open the message" }, messageId);
}
