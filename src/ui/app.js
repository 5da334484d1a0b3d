// The inbox page's entry point: builds the views, follows the address, keeps the event
// stream open and routes its events to the views. Each view lives in views/.

import { PAGE_SANDBOX, SANDBOX_BASE_URL, resetMock } from "./api.js";
import { byId } from "./dom.js";
import { startLiveUpdates } from "./live.js";
import { clearNotice, errorText, notify, showHint } from "./notice.js";
import { navigate, onRouteChange } from "./router.js";
import { setUpTabs, showTab } from "./tabs.js";
import { onTokenChange, setUpTokenForm } from "./token.js";
import { createClockView } from "./views/clock.js";
import { createFaultsView } from "./views/faults.js";
import { createMessagesView } from "./views/messages.js";
import { createRequestsView } from "./views/requests.js";
import { createTemplatesView } from "./views/templates.js";

const VIEW_TITLES = { messages: "Messages", requests: "Requests", faults: "Faults", templates: "Templates" };
const LIVE_STATUS_TEXT = {
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  locked: "needs the admin token",
};

setUpTokenForm();

const messagesView = createMessagesView({
  openMessage: (id) => navigate("messages", id),
  closeMessage: () => navigate("messages"),
});
const clockView = createClockView();
const requestsView = createRequestsView();
const faultsView = createFaultsView();
const templatesView = createTemplatesView({
  openTemplate: (id) => navigate("templates", id),
  closeTemplate: () => navigate("templates"),
  onTemplatesLoaded: (templates) => messagesView.setTemplates(templates),
  showMessagesOf: (id) => {
    messagesView.filterByTemplate(id);
    navigate("messages");
  },
});

// ---- views and the address ------------------------------------------------------------------

let currentView = null;
// A tab brings back what was open in its view (the message, the template).
const openItems = { messages: null, templates: null };

setUpTabs({ onSelect: (view) => navigate(view, openItems[view] ?? null) });

onRouteChange(({ view, itemId }) => {
  const entering = view !== currentView;
  // A notice spoke of what was done on the view before: it does not follow to the next one.
  if (entering && currentView !== null) clearNotice();
  currentView = view;
  showTab(view);
  document.title = `${VIEW_TITLES[view]} · sendmock`;
  if (view === "messages") {
    openItems.messages = itemId;
    void messagesView.select(itemId);
  } else if (view === "templates") {
    openItems.templates = itemId;
    if (entering) void templatesView.reload();
    void templatesView.select(itemId);
  } else if (view === "faults" && entering) {
    void faultsView.reload();
  }
});

// ---- loading and reloading --------------------------------------------------------------------

function reloadEverything() {
  void messagesView.reload();
  void clockView.reload();
  void requestsView.reload();
  void templatesView.reload();
  void faultsView.reload();
}

/** After POST /_mock/reset: outbox, journal, faults and run-time settings are all back. */
function afterFullReset() {
  void messagesView.outboxEmptied();
  void clockView.reload();
  void requestsView.reload();
  void faultsView.reload();
}

reloadEverything();
// A new token may open what a 401 kept shut.
onTokenChange(() => {
  reloadEverything();
  void messagesView.recheckSelection();
});

// ---- live updates -----------------------------------------------------------------------------

const liveStatus = byId("live-status");
startLiveUpdates({
  onStatus(state) {
    liveStatus.textContent = LIVE_STATUS_TEXT[state] ?? state;
    liveStatus.dataset.state = state;
  },
  onConnected() {
    // Events sent while the stream was down are lost: catch up from the lists.
    void messagesView.reload();
    void messagesView.catchUpOpenMessage();
    void requestsView.reload();
    void clockView.reload();
  },
  onEvent(type, payload) {
    switch (type) {
      case "message":
        messagesView.messageCaptured(payload);
        break;
      case "event":
        // A lifecycle event: {message_id, status, event}.
        if (typeof payload?.message_id === "string" && typeof payload.event?.type === "string") {
          messagesView.lifecycleEvent(payload);
          clockView.clockMoved();
        }
        break;
      case "delivery":
        // A webhook attempt: a WebhookDelivery.
        if (typeof payload?.message_id === "string" && typeof payload.id === "string") messagesView.deliveryRecorded(payload);
        break;
      case "request":
        requestsView.requestRecorded(payload);
        faultsView.requestRecorded(payload, { visible: currentView === "faults" });
        break;
      case "reset":
        if (payload?.scope === "all") afterFullReset();
        else void messagesView.outboxEmptied();
        break;
      case "dropped":
        // The page fell too far behind (a sleeping tab); the server ends the stream and the
        // reconnect that follows reloads the lists.
        console.warn(`sendmock: ${payload?.reason ?? "the event stream was dropped"}`);
        break;
      default:
        // An event this page does not know yet (a newer server): nothing to do.
        break;
    }
  },
});

// ---- the header's sandbox picker: the page at ?sandbox=NAME shows that sandbox, without it every one ----

byId("sandbox-input").value = PAGE_SANDBOX ?? "";
// The base URL an app's send client is given to send into this sandbox (POST {base}/send), whatever its language:
// a hint until dismissed for this sandbox.
if (PAGE_SANDBOX !== null) {
  byId("sandbox-base-url").textContent = SANDBOX_BASE_URL;
  showHint(byId("sandbox-base"), `sandbox-base.${PAGE_SANDBOX}`);
}
byId("sandbox-picker").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = byId("sandbox-input").value.trim();
  const next = new URL(document.location.href);
  if (name === "") next.searchParams.delete("sandbox");
  else next.searchParams.set("sandbox", name);
  document.location.assign(next.href);
});

// ---- the header's reset button ------------------------------------------------------------------

byId("reset-mock").addEventListener("click", async () => {
  const question =
    PAGE_SANDBOX === null
      ? "Reset the mock to its start-up state? This empties the outbox and the request journal, " +
        "removes the fault rules added since the start and restores the start-up settings."
      : `Reset the sandbox ${PAGE_SANDBOX}? This empties its outbox and request journal and removes its fault rules; the other sandboxes stay as they are.`;
  if (!confirm(question)) return;
  try {
    await resetMock();
    notify(PAGE_SANDBOX === null ? "The mock is back to its start-up state." : `The sandbox ${PAGE_SANDBOX} is empty again.`);
    afterFullReset();
  } catch (error) {
    notify(`Cannot reset the mock: ${errorText(error)}`, "error");
  }
});
