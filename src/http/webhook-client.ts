// The HTTP client of webhook deliveries: node's fetch, cut off after the timeout, the answer's
// body discarded unread, so a receiver that streams forever costs nothing.

import type { PostResult, WebhookPost } from "../domain/webhook-delivery.js";

/** `connect ECONNREFUSED 127.0.0.1:9`: fetch hides the reason in the cause of "fetch failed". */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { cause } = error as Error & { cause?: unknown };
  return cause instanceof Error ? cause.message : error.message;
}

export const postWebhook: WebhookPost = async ({ url, headers, body, timeoutMs }): Promise<PostResult> => {
  try {
    // A redirect is an answer like any other non-2xx: receivers are to be called at their URL.
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return { error: `no answer within ${timeoutMs} ms (webhook_timeout_ms)` };
    return { error: `could not reach the receiver: ${reasonOf(error)}` };
  }
};
