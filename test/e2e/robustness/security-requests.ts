// What the security files share: a send over fetch, and a response read for assertions and expectContract.

import { aSendRequest, bearer } from "../../support/helpers.js";

export async function postSend(url: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(options.key), ...options.headers },
    body: JSON.stringify(options.body ?? aSendRequest()),
  });
}

/** Status, headers and the body as text and (when it is JSON) parsed, for assertions and expectContract. */
export async function readResponse(response: Response) {
  const text = await response.text();
  const headers = Object.fromEntries(response.headers);
  const body: unknown = headers["content-type"]?.includes("json") ? JSON.parse(text) : text;
  return { status: response.status, headers, body, text };
}
