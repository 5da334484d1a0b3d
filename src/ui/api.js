// The inspection API (openapi/admin.yaml), the only thing this page talks to.
//
// Every call carries the admin token when there is one; a 401 asks the user for the token
// (token.js) and retries with it.

import { currentToken, tokenAfterRejection } from "./token.js";

// The page is served at /_mock/, so the API is next to it. Resolving against the page (not
// the origin root) keeps it working behind a proxy that adds a path prefix.
const API_ROOT = new URL("./", document.baseURI);

/** Where the emulated send API is (`/send` lives there); a journal entry's path is under it. */
export const SERVICE_ROOT = new URL("../", API_ROOT);

/**
 * The sandbox the page shows (`/_mock/?sandbox=NAME`), or null for every sandbox. Each call of a
 * resource a sandbox scopes carries it; the others (templates, config) are the mock's.
 */
export const PAGE_SANDBOX = new URL(document.location.href).searchParams.get("sandbox") || null;
const SCOPED_RESOURCES = new Set(["messages", "requests", "events", "faults", "outcomes", "webhooks", "clock", "reset"]);

/** The base URL an app's send client is given to send into the sandbox shown (the mock's root without one). */
export const SANDBOX_BASE_URL =
  PAGE_SANDBOX === null ? SERVICE_ROOT.href.replace(/\/$/, "") : new URL(`sandbox/${encodeURIComponent(PAGE_SANDBOX)}`, SERVICE_ROOT).href;

/** Where `POST /send` is for the sandbox shown, for the curl example of the empty inbox. */
export const SEND_URL = `${SANDBOX_BASE_URL}/send`;

/** The most rows a list asks for. */
export const LIST_LIMIT = 200;

/** A call that failed: `status` is 0 when the mock could not be reached. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

function urlFor(path, query = {}) {
  const url = new URL(path, API_ROOT);
  if (PAGE_SANDBOX !== null && SCOPED_RESOURCES.has(path.split("/")[0])) url.searchParams.set("sandbox", PAGE_SANDBOX);
  for (const [name, value] of Object.entries(query)) {
    // An empty query parameter is a 400 for the API: leave unset filters out altogether.
    if (value === undefined || value === null || value === "") continue;
    url.searchParams.set(name, String(value));
  }
  return url;
}

/** The API's error envelope `{success: false, error: {code, message}}`, or what we can tell. */
async function errorFrom(response) {
  const fallbackCode = response.headers.get("X-Sendmock-Error-Code") ?? "http_error";
  const fallbackMessage = `${response.status} ${response.statusText || "error"}`.trim();
  try {
    const body = await response.json();
    const { code, message } = body?.error ?? {};
    return new ApiError(
      response.status,
      typeof code === "string" ? code : fallbackCode,
      typeof message === "string" && message !== "" ? message : fallbackMessage,
    );
  } catch {
    return new ApiError(response.status, fallbackCode, fallbackMessage);
  }
}

/**
 * Sends one call and returns the Response when it succeeded (2xx). Throws an ApiError for an
 * error response, for a network failure (status 0), and for a 401 the user gave no token for.
 */
async function send(method, path, { query, body, accept = "application/json", signal } = {}) {
  const url = urlFor(path, query);
  for (;;) {
    const token = currentToken();
    const headers = { Accept: accept };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";

    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache: "no-store",
        credentials: "same-origin",
      });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      throw new ApiError(0, "network_error", "Cannot reach the mock. Is it still running?");
    }

    if (response.ok) return response;
    const error = await errorFrom(response);
    if (response.status !== 401) throw error;
    const nextToken = await tokenAfterRejection(token, error.message);
    if (nextToken === null) throw error;
  }
}

async function json(method, path, options) {
  const response = await send(method, path, options);
  return response.json();
}

const pathOf = (...segments) => segments.map(encodeURIComponent).join("/");

// One function per call of openapi/admin.yaml that the page uses.

/** `filters`: {q, to, recipient, template_id, subject}; empty ones are left out. */
export const listMessages = (filters = {}) => json("GET", "messages", { query: { ...filters, limit: LIST_LIMIT } });
export const getMessage = (id) => json("GET", pathOf("messages", id));
export const getMessageHtml = async (id) => (await send("GET", pathOf("messages", id, "html"), { accept: "text/html" })).text();
export const deleteMessage = (id) => send("DELETE", pathOf("messages", id));
export const clearMessages = () => send("DELETE", "messages");

/** Where a message's .eml file is: a plain link downloads it when no admin token is needed. */
export const emlUrl = (id) => urlFor(pathOf("messages", id, "eml")).href;
/** The .eml file as a Blob, fetched with the admin token (a link cannot carry it). */
export const getMessageEml = async (id) => (await send("GET", pathOf("messages", id, "eml"), { accept: "message/rfc822" })).blob();

export const listRequests = (limit = LIST_LIMIT) => json("GET", "requests", { query: { limit } });

/** The most journal entries one call may ask for (openapi/admin.yaml). */
const JOURNAL_LIMIT_MAX = 10_000;

/**
 * The journal entry of the request that captured message `messageId`, or null when the journal
 * no longer holds it. The journal has no message filter: the latest entries are asked for first
 * (a message looked at is most often a recent one), the whole journal only when it is not there.
 * Retries of an idempotent send name the same message: the oldest entry is the one that captured it.
 */
export async function findRequestOf(messageId) {
  const capturing = (requests) => requests.findLast((entry) => entry.message_id === messageId) ?? null;
  const recent = await listRequests();
  const found = capturing(recent.requests);
  if (found !== null || recent.total <= recent.requests.length) return found;
  return capturing((await listRequests(JOURNAL_LIMIT_MAX)).requests);
}

/** The checks of message `id` (html_support, links, ...); `online` also asks each link's host, where the mock allows it. */
export const getMessageChecks = (id, { online = false } = {}) =>
  json("GET", pathOf("messages", id, "checks"), { query: { online: online ? "true" : undefined } });

/** The clock of the sandbox shown (without one, the default sandbox's): `{now, offset_ms}`. */
export const getClock = () => json("GET", "clock");
/** Moves the clock forward (without a sandbox, every sandbox's); responds with the clock after the move. */
export const advanceClock = (ms) => json("POST", "clock", { body: { advance_ms: ms } });

export const listTemplates = () => json("GET", "templates");
export const previewTemplate = (id) => json("GET", pathOf("templates", id, "preview"));

export const getConfig = () => json("GET", "config");
/** `change`: any of {response_shape, strict_data, rate_limit} (null removes the limit). */
export const updateConfig = (change) => json("PATCH", "config", { body: change });

export const listFaults = () => json("GET", "faults");
export const addFault = (rule) => json("POST", "faults", { body: rule });
export const removeFault = (id) => send("DELETE", pathOf("faults", id));
export const clearFaults = () => send("DELETE", "faults");

export const listWebhooks = () => json("GET", "webhooks");
/** Attempts at delivering the events of message `messageId`, newest first. */
export const listWebhookDeliveries = (messageId) => json("GET", pathOf("webhooks", "deliveries"), { query: { message_id: messageId, limit: LIST_LIMIT } });
export const replayWebhookDelivery = (id) => json("POST", pathOf("webhooks", "deliveries", id, "replay"));

export const resetMock = () => send("POST", "reset");

/** Opens the event stream; the caller reads `response.body` and aborts with `signal`. */
export const openEventStream = (signal) => send("GET", "events", { accept: "text/event-stream", signal });
