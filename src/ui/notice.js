// Short feedback after an action ("Outbox cleared", "Cannot reach the mock"), in a live
// region so screen readers announce it too.

import { byId } from "./dom.js";

const SHOW_MS = 6_000;
let hideTimer;

/** Shows `message` for a few seconds; `kind` "error" makes it stand out. */
export function notify(message, kind = "info") {
  const area = byId("notice");
  area.textContent = message;
  area.dataset.kind = kind;
  clearTimeout(hideTimer);
  // Emptied rather than hidden: a live region must stay in the page to be announced, and
  // the stylesheet collapses it while it is empty.
  hideTimer = setTimeout(() => {
    area.textContent = "";
  }, SHOW_MS);
}

/** The message to show for a failed call (an ApiError or anything thrown). */
export function errorText(error) {
  if (error && typeof error.message === "string" && error.message !== "") return error.message;
  return "Something went wrong.";
}
