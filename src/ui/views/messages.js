// The Messages view: the search box and filters, the list of captured messages (newest first,
// live, each with its delivery status and checks badge) and the detail of the selected one, its events timeline
// live too; a message can be deleted or downloaded from there.

import { clearMessages, deleteMessage, getMessage, getMessageEml, listMessages } from "../api.js";
import { byId, h, keyedNode, replaceContent, syncList } from "../dom.js";
import { countText, shortTime, statusBadge } from "../format.js";
import { applyEvent } from "../lifecycle.js";
import { createLiveList, prependItem } from "../live-list.js";
import { errorText, notify } from "../notice.js";
import { currentToken } from "../token.js";
import { checksBadgeSlot } from "./message-checks.js";
import { messageDetail, messageUnavailable, noMessageSelected, showLifecycle } from "./message-detail.js";
import { noMatch, noMessagesYet, searchTextOf } from "./message-list-parts.js";
import { createWebhookDeliveries } from "./webhook-deliveries.js";

const TYPING_PAUSE_MS = 300;

/** A row is redrawn when its message's status changes (syncList keeps it otherwise). */
const rowVersion = (message) => `${message.id} ${message.status}`;

/**
 * `openMessage(id)` / `closeMessage()` change the address (the router then calls select()),
 * so opening a message is one path whether it comes from a row, a link or the back button.
 */
export function createMessagesView({ openMessage, closeMessage }) {
  const form = byId("message-filters");
  const fields = {
    to: byId("filter-to"),
    recipient: byId("filter-recipient"),
    template_id: byId("filter-template"),
    subject: byId("filter-subject"),
    q: byId("filter-q"),
  };
  const list = byId("message-list");
  const count = byId("message-count");
  const emptyState = byId("message-empty");
  const listError = byId("message-error");
  const detailPane = byId("message-pane");

  const state = {
    filters: {},
    messages: [],
    total: 0,
    selectedId: null,
    // The message drawn in the detail pane, and the lifecycle events heard for the selected
    // message since it was selected: applied when its detail is drawn, so an event heard while
    // it loads is not lost (at most `lifecycle.max_events` of them).
    shownMessage: null,
    selectedMessageEvents: [],
    // The webhook attempts of the shown message, kept live from the event stream.
    shownDeliveries: null,
    // Responses can come back out of order: only the newest detail request counts.
    detailSequence: 0,
    firstSelection: true,
    // The tab and preview width chosen last: the next message opens on them, as in a mail client.
    detailView: { tab: "html", previewWidth: "desktop" },
  };

  // ---- filters -------------------------------------------------------------------------

  function readFilters() {
    return {
      to: fields.to.value.trim(),
      recipient: fields.recipient.value.trim(),
      template_id: fields.template_id.value,
      subject: fields.subject.value,
      q: fields.q.value,
    };
  }

  function hasFilters(filters) {
    return Object.values(filters).some((value) => value !== "");
  }

  /** The same test the API applies (see matchesFilter in src/domain/outbox.ts). */
  function matchesFilters(message, filters) {
    const lower = (text) => text.toLowerCase();
    if (filters.to && lower(message.to) !== lower(filters.to)) return false;
    if (filters.recipient) {
      const wanted = lower(filters.recipient);
      if (![message.to, ...message.cc, ...message.bcc].some((address) => lower(address) === wanted)) return false;
    }
    if (filters.template_id && message.template_id !== filters.template_id) return false;
    if (filters.subject && !lower(message.subject).includes(lower(filters.subject))) return false;
    if (filters.q && !searchTextOf(message).includes(lower(filters.q))) return false;
    return true;
  }

  let typingTimer;
  const applyFilters = () => {
    clearTimeout(typingTimer);
    void reload();
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    applyFilters();
  });
  form.addEventListener("input", (event) => {
    if (event.target === fields.template_id) return; // handled by "change", at once
    clearTimeout(typingTimer);
    typingTimer = setTimeout(applyFilters, TYPING_PAUSE_MS);
  });
  fields.template_id.addEventListener("change", applyFilters);
  byId("clear-filters").addEventListener("click", () => {
    form.reset();
    applyFilters();
  });

  // ---- the list ------------------------------------------------------------------------

  const liveList = createLiveList({
    load: async () => {
      const filters = readFilters();
      return { filters, response: await listMessages(filters) };
    },
    show: ({ filters, response }) => {
      state.filters = filters;
      state.messages = response.messages;
      state.total = response.total;
      listError.textContent = "";
      renderList();
    },
    add: (message) => addMessage(message),
    update: (change) => updateRowStatus(change),
    showError: (error) => {
      listError.textContent = `Cannot load the messages: ${errorText(error)}`;
    },
  });
  const reload = () => liveList.reload();

  function renderList() {
    syncList(list, state.messages, { key: (message) => message.id, version: rowVersion, render: messageRow });
    markSelectedRow();
    renderCountAndEmptyState();
  }

  function renderCountAndEmptyState() {
    count.textContent = `Showing ${countText(state.messages.length, state.total)}`;
    const isEmpty = state.messages.length === 0;
    list.hidden = isEmpty;
    emptyState.hidden = !isEmpty;
    if (isEmpty) replaceContent(emptyState, hasFilters(state.filters) ? noMatch() : noMessagesYet());
  }

  function messageRow(message) {
    return h(
      "li",
      {},
      h(
        "button",
        {
          type: "button",
          class: "message-row",
          "data-testid": "message-row",
          "data-id": message.id,
          "aria-current": message.id === state.selectedId ? "true" : false,
          onclick: () => openMessage(message.id),
        },
        h("span", { class: "row-to" }, message.to),
        h("span", { class: "row-time" }, shortTime(message.created_at)),
        h("span", { class: "row-subject" }, message.subject),
        h("span", { class: "row-meta" }, h("code", { class: "row-template" }, message.template_id), statusBadge(message.status), checksBadgeSlot(message.id)),
      ),
    );
  }

  /** A message captured now: shown at the top when it matches the filters in force. */
  function addMessage(message) {
    if (!matchesFilters(message, state.filters)) return;
    if (!prependItem({ items: state.messages, container: list, item: message, row: messageRow, version: rowVersion })) return;
    state.total += 1;
    renderCountAndEmptyState();
  }

  /** A lifecycle event of a listed message: its row's badge shows the new status. */
  function updateRowStatus(change) {
    const message = state.messages.find((listed) => listed.id === change.message_id);
    if (!message) return;
    applyEvent(message, change);
    const row = rowFor(message.id);
    const badge = row?.querySelector('[data-testid="message-status"]');
    // The open message may be this very object, already moved on by updateOpenMessage.
    if (!row || !badge || badge.dataset.status === message.status) return;
    badge.replaceWith(statusBadge(message.status));
    keyedNode(row.parentElement, message.id, rowVersion(message));
  }

  function rows() {
    return [...list.querySelectorAll(".message-row")];
  }

  function rowFor(id) {
    return rows().find((row) => row.dataset.id === id) ?? null;
  }

  // Arrow keys move between rows; Enter and Space open one (they are buttons).
  list.addEventListener("keydown", (event) => {
    const all = rows();
    const index = all.indexOf(document.activeElement);
    if (index === -1) return;
    const target = { ArrowDown: all[index + 1], ArrowUp: all[index - 1], Home: all[0], End: all.at(-1) }[event.key];
    if (!target) return;
    event.preventDefault();
    target.focus();
  });

  byId("clear-messages").addEventListener("click", async () => {
    if (!confirm("Delete every captured message? The request journal is kept.")) return;
    try {
      await clearMessages();
      notify("Outbox cleared.");
      await reload();
    } catch (error) {
      notify(`Cannot clear the messages: ${errorText(error)}`, "error");
    }
  });

  // ---- the detail ------------------------------------------------------------------------

  function markSelectedRow() {
    for (const row of rows()) {
      if (row.dataset.id === state.selectedId) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    }
  }

  function showDetail(message, { focus }) {
    for (const change of state.selectedMessageEvents) applyEvent(message, change);
    state.shownMessage = message;
    state.shownDeliveries = createWebhookDeliveries(message.id);
    replaceContent(
      detailPane,
      messageDetail(message, {
        onClose: closeMessage,
        onDelete: () => void deleteShown(message),
        onDownload: (event) => downloadWithToken(event, message),
        webhookDeliveries: state.shownDeliveries.element,
        view: state.detailView,
        onTabChange: (tab) => {
          state.detailView.tab = tab;
        },
        onPreviewWidthChange: (width) => {
          state.detailView.previewWidth = width;
        },
      }),
    );
    if (focus) byId("message-detail-title").focus();
  }

  async function deleteShown(message) {
    if (!confirm(`Delete the message “${message.subject}” to ${message.to}?`)) return;
    try {
      await deleteMessage(message.id);
      notify("Message deleted.");
    } catch (error) {
      // 404: it went meanwhile (cleared, dropped past the capacity): the list shows that either way.
      if (error?.status !== 404) {
        notify(`Cannot delete the message: ${errorText(error)}`, "error");
        return;
      }
    }
    const index = forget(message.id);
    closeMessage();
    // The focus was on the Delete button, now gone: keep a keyboard user in the list, where the message was.
    const remaining = rows();
    (remaining[Math.min(index, remaining.length - 1)] ?? fields.q).focus();
  }

  /** Takes a message that is gone out of the list at once, without waiting for a reload; returns where it was. */
  function forget(id) {
    const index = state.messages.findIndex((listed) => listed.id === id);
    if (index === -1) return 0;
    state.messages.splice(index, 1);
    state.total = Math.max(0, state.total - 1);
    renderList();
    return index;
  }

  /**
   * The download link works as it is without an admin token; with one, the file is fetched with
   * the token (a link cannot send it) and handed to the browser as a file of its own.
   */
  function downloadWithToken(event, message) {
    if (currentToken() === null) return;
    event.preventDefault();
    getMessageEml(message.id).then(
      (eml) => {
        const file = URL.createObjectURL(eml);
        const link = document.createElement("a");
        link.href = file;
        link.download = `${message.id}.eml`;
        link.click();
        // The browser has read the file once the click is handled; the URL only holds memory.
        setTimeout(() => URL.revokeObjectURL(file), 0);
      },
      (error) => notify(`Cannot download the message: ${errorText(error)}`, "error"),
    );
  }

  /** A lifecycle event of the selected message: its status and timeline move on in place. */
  function updateOpenMessage(change) {
    if (change.message_id !== state.selectedId) return;
    state.selectedMessageEvents.push(change);
    const shown = state.shownMessage;
    if (shown?.id !== change.message_id) return; // still loading: showDetail applies it
    applyEvent(shown, change);
    const detail = detailPane.querySelector('[data-testid="message-detail"]');
    if (detail) showLifecycle(detail, shown);
  }

  /** Shows the message `id` (null: none), from the list when it is there, else from the API. */
  async function select(id, { refresh = false } = {}) {
    const previous = state.selectedId;
    const isNewSelection = id !== previous;
    // Opening a message (not reloading the page on one) takes the focus to it, which also
    // scrolls it into view when the layout is one column.
    const focus = isNewSelection && !state.firstSelection;
    state.firstSelection = false;
    state.selectedId = id;
    if (isNewSelection) {
      state.shownMessage = null;
      state.shownDeliveries = null;
      state.selectedMessageEvents = [];
    }
    markSelectedRow();
    const sequence = ++state.detailSequence;

    if (id === null) {
      replaceContent(detailPane, noMessageSelected());
      // Give the focus back to the row the detail was opened from.
      if (previous !== null && (detailPane.contains(document.activeElement) || document.activeElement === document.body)) {
        rowFor(previous)?.focus();
      }
      return;
    }
    if (!isNewSelection && !refresh) return;

    const listed = refresh ? undefined : state.messages.find((message) => message.id === id);
    if (listed) {
      showDetail(listed, { focus });
      return;
    }
    if (isNewSelection) replaceContent(detailPane, h("p", { class: "pane-placeholder" }, "Loading…"));
    try {
      const message = await getMessage(id);
      if (sequence === state.detailSequence) showDetail(message, { focus });
    } catch (error) {
      if (sequence !== state.detailSequence) return;
      replaceContent(detailPane, messageUnavailable(id, error));
    }
  }

  /** Fetches the open message again: it may be gone, or a call for it may have failed. */
  async function recheckSelection() {
    if (state.selectedId !== null) await select(state.selectedId, { refresh: true });
  }

  /**
   * After the event stream reconnects: the events it missed while it was down move the open
   * message's status and timeline on, without redrawing the rest of the detail.
   */
  async function catchUpOpenMessage() {
    const shown = state.shownMessage;
    if (shown === null) return;
    void state.shownDeliveries?.reload();
    let fresh;
    try {
      fresh = await getMessage(shown.id);
    } catch (error) {
      if (state.shownMessage === shown) replaceContent(detailPane, messageUnavailable(shown.id, error));
      return;
    }
    if (state.shownMessage !== shown || fresh.events.length <= shown.events.length) return;
    shown.events = fresh.events;
    shown.status = fresh.status;
    const detail = detailPane.querySelector('[data-testid="message-detail"]');
    if (detail) showLifecycle(detail, shown);
  }

  // Escape closes the open message, unless it is meant for a form field (a search box clears).
  byId("panel-messages").addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || state.selectedId === null) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    event.preventDefault();
    closeMessage();
  });

  // ---- what app.js calls ------------------------------------------------------------------

  return {
    reload,
    select,

    /** A `message` event of the stream. */
    messageCaptured(message) {
      liveList.arrived(message);
    },

    /** An `event` event of the stream: `{message_id, status, event}`. */
    lifecycleEvent(change) {
      liveList.changed(change);
      updateOpenMessage(change);
    },

    /** A `delivery` event of the stream: a webhook attempt, shown when its message is open. */
    deliveryRecorded(delivery) {
      state.shownDeliveries?.add(delivery);
    },

    /** A `reset` event (either scope empties the outbox): reload, and recheck the open message. */
    async outboxEmptied() {
      await reload();
      await recheckSelection();
    },

    recheckSelection,
    catchUpOpenMessage,

    /** Shows only the messages of template `id` (from the Templates view). */
    filterByTemplate(id) {
      form.reset();
      if (![...fields.template_id.options].some((option) => option.value === id)) {
        fields.template_id.append(h("option", { value: id }, id));
      }
      fields.template_id.value = id;
      applyFilters();
    },

    /** Fills the template filter from GET /_mock/templates, keeping the current choice. */
    setTemplates(templates) {
      const picker = fields.template_id;
      const current = picker.value;
      const ids = templates.map((template) => template.id);
      if (current !== "" && !ids.includes(current)) ids.push(current);
      replaceContent(
        picker,
        h("option", { value: "" }, "Any template"),
        ids.map((id) => h("option", { value: id }, id)),
      );
      picker.value = current;
    },
  };
}
