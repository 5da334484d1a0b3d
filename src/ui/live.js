// Keeps the event stream (GET /_mock/events) open: reconnects with a backoff when it ends or
// fails, notices a silent dead connection, and waits for a token when the mock wants one.

import { ApiError, openEventStream } from "./api.js";
import { readEventStream } from "./sse.js";
import { onTokenChange } from "./token.js";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;
// The server sends a heartbeat every 15 s; three missed ones mean the connection is gone
// even if the socket never said so (a laptop that slept, a proxy that dropped it).
const SILENCE_LIMIT_MS = 45_000;

/**
 * Starts the stream. Callbacks:
 * - `onEvent(type, payload)`: a parsed event ("message", "request", "event", "delivery", "reset") with its JSON;
 * - `onConnected()`: the stream is open; events may have been missed before, so refetch;
 * - `onStatus(state)`: "connecting", "live", "reconnecting", "locked" (needs the admin token).
 */
export function startLiveUpdates({ onEvent, onConnected, onStatus }) {
  let retryMs = FIRST_RETRY_MS;
  // The server's `retry:` suggestion: the first delay after a stream that was open ends.
  let serverRetryMs = FIRST_RETRY_MS;
  let wasLive = false;

  const handleEvent = ({ type, data }) => {
    let payload;
    try {
      payload = JSON.parse(data);
    } catch {
      console.warn(`sendmock: ignoring a ${type} event whose data is not JSON`);
      return;
    }
    onEvent(type, payload);
  };

  async function connectOnce() {
    const connection = new AbortController();
    let watchdog;
    const restartWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => connection.abort(), SILENCE_LIMIT_MS);
    };
    try {
      // The watchdog starts with the response: before it, the call may be waiting for the
      // user to type the admin token, which takes as long as it takes.
      const response = await openEventStream(connection.signal);
      restartWatchdog();
      onStatus("live");
      wasLive = true;
      onConnected();
      await readEventStream(response, {
        onEvent: handleEvent,
        onRetry: (ms) => {
          serverRetryMs = Math.max(ms, 250);
        },
        onActivity: restartWatchdog,
      });
    } finally {
      clearTimeout(watchdog);
      connection.abort();
    }
  }

  async function run() {
    onStatus("connecting");
    for (;;) {
      wasLive = false;
      try {
        await connectOnce();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          // The user declined to give the token: wait until they enter one.
          onStatus("locked");
          await nextTokenChange();
          retryMs = FIRST_RETRY_MS;
          onStatus("connecting");
          continue;
        }
        // Anything else (network down, server stopped, watchdog): retry below.
      }
      onStatus("reconnecting");
      if (wasLive) retryMs = serverRetryMs;
      await delay(retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  }

  void run();
}

function nextTokenChange() {
  return new Promise((resolve) => {
    const unsubscribe = onTokenChange(() => {
      unsubscribe();
      resolve();
    });
  });
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
