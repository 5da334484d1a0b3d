// The admin token: kept for the browser tab's session, asked for with a small form (never
// prompt()) the first time a call responds with 401, and again only if the server refuses it.

import { byId } from "./dom.js";

const STORAGE_KEY = "sendmock.adminToken";

// sessionStorage can be unavailable (storage disabled, some private modes): keep a copy here.
let tokenInMemory = null;
// While the form is open, every call that gets a 401 waits for the same response.
let pendingResponse = null;
let resolvePendingResponse = null;
// Once the user cancelled the form, calls fail with 401 instead of reopening it every few
// seconds (the live stream retries); the header button opens it again.
let declined = false;
const changeListeners = new Set();

export function currentToken() {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? tokenInMemory;
  } catch {
    return tokenInMemory;
  }
}

function storeToken(token) {
  tokenInMemory = token;
  try {
    sessionStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Kept in memory only: fine for this tab.
  }
}

/** Calls `listener(token)` whenever the user enters a token; returns the unsubscribe. */
export function onTokenChange(listener) {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

/**
 * A call sent with `rejectedToken` (null: none) got a 401 saying `reason`. Resolves with the
 * token to retry with, or null when the user declined to give one.
 */
export function tokenAfterRejection(rejectedToken, reason) {
  const token = currentToken();
  // Another call already got a new token from the user while this one was in flight.
  if (token !== null && token !== rejectedToken) return Promise.resolve(token);
  showTokenButton();
  if (declined) return Promise.resolve(null);
  return openTokenForm(reason);
}

/** The user asked to enter the token (header button): opens the form whatever happened before. */
export function askForTokenAgain() {
  declined = false;
  return openTokenForm("Enter the admin token this mock was started with.");
}

function openTokenForm(reason) {
  if (pendingResponse) return pendingResponse;
  const dialog = byId("token-dialog");
  const input = byId("token-input");
  byId("token-reason").textContent = reason;
  input.value = "";
  pendingResponse = new Promise((resolve) => {
    resolvePendingResponse = resolve;
  });
  // Escape leaves returnValue as it was, so clear the "saved" of an earlier response.
  dialog.returnValue = "";
  dialog.showModal();
  input.focus();
  return pendingResponse;
}

function settle(token) {
  const resolve = resolvePendingResponse;
  pendingResponse = null;
  resolvePendingResponse = null;
  resolve?.(token);
}

function showTokenButton() {
  byId("token-button").hidden = false;
}

/** Wires the token form and the header button; call once when the page starts. */
export function setUpTokenForm() {
  const dialog = byId("token-dialog");
  const form = byId("token-form");
  const input = byId("token-input");

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === "") {
      input.setCustomValidity("Enter the admin token.");
      input.reportValidity();
      return;
    }
    storeToken(token);
    declined = false;
    dialog.close("saved");
    settle(token);
    for (const listener of changeListeners) listener(token);
  });
  input.addEventListener("input", () => input.setCustomValidity(""));

  byId("token-cancel").addEventListener("click", () => dialog.close("cancelled"));
  // Escape and the cancel button both end here; a saved token was already settled.
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "saved" || !pendingResponse) return;
    declined = true;
    settle(null);
  });
  byId("token-button").addEventListener("click", () => {
    void askForTokenAgain();
  });
}
