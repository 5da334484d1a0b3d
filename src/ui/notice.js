// Short feedback after an action ("Outbox cleared", "Cannot reach the mock") and standing hints
// (the sandbox's base URL): both sit in the page's flow under the view tabs, so they push the
// view down rather than cover it, and both can be dismissed.

import { byId } from "./dom.js";

const SHOW_MS = 6_000;
let hideTimer;

function noticeText() {
  return byId("notice-text");
}

/** Shows `message` for a few seconds; `kind` "error" makes it stand out. */
export function notify(message, kind = "info") {
  noticeText().textContent = message;
  byId("notice").dataset.kind = kind;
  clearTimeout(hideTimer);
  hideTimer = setTimeout(clearNotice, SHOW_MS);
}

/**
 * Takes the notice away: after its time, when dismissed, and when another view is shown (it
 * spoke of what was done on the view before). Emptied rather than hidden: a live region must stay
 * in the page to be announced, and the stylesheet collapses it while it is empty.
 */
export function clearNotice() {
  clearTimeout(hideTimer);
  noticeText().textContent = "";
}

byId("notice-dismiss").addEventListener("click", clearNotice);

/** The message to show for a failed call (an ApiError or anything thrown). */
export function errorText(error) {
  if (error && typeof error.message === "string" && error.message !== "") return error.message;
  return "Something went wrong.";
}

// ---- hints: shown until dismissed, and not again in this browser -------------------------------

const HINT_PREFIX = "sendmock.dismissed.";

function wasDismissed(key) {
  try {
    return localStorage.getItem(HINT_PREFIX + key) !== null;
  } catch {
    return false; // storage disabled: the hint shows, and its button still hides it for now
  }
}

/**
 * Shows the hint `element` unless it was dismissed before under `key`; its button
 * `[data-dismiss]` hides it and remembers that in localStorage, so a reload or another view
 * does not bring it back.
 */
export function showHint(element, key) {
  element.hidden = wasDismissed(key);
  element.querySelector("[data-dismiss]").addEventListener("click", () => {
    element.hidden = true;
    try {
      localStorage.setItem(HINT_PREFIX + key, new Date().toISOString());
    } catch {
      // Not remembered past this page: nothing else to do.
    }
  });
}
