// The HTTP client of webhook deliveries: node's http and https, cut off by its caller's signal
// (the timeout), the response's body never read, so a receiver that streams forever costs nothing.

import http from "node:http";
import https from "node:https";
import type { PostResult, WebhookPost } from "../domain/webhook-delivery.js";

/**
 * Not fetch: its body goes through a web stream that copies it, and sending an 800 KB payload to
 * 200 webhooks spent a tenth of the server's time there, holding normal sends (bench, abuse).
 */
export const postWebhook: WebhookPost = ({ url, headers, body, signal }) =>
  new Promise<PostResult>((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ error: `could not reach the receiver: ${url} is not a URL` });
      return;
    }
    const client = target.protocol === "https:" ? https : http;
    // A redirect is a response like any other non-2xx: receivers are to be called at their URL (node's http never follows one).
    const request = client.request(target, { method: "POST", headers: { ...headers, "content-length": String(body.length) }, signal }, (response) => {
      resolve({ status: response.statusCode ?? 0 });
      // Unread: whatever the receiver streams is dropped with the connection.
      response.destroy();
    });
    request.once("error", (error: Error & { code?: string }) => {
      // Cut off: the caller knows why (its timeout, or the attempt was dropped) and says so.
      resolve(signal.aborted ? { error: "cut off" } : { error: `could not reach the receiver: ${error.message}` });
    });
    request.end(body);
  });
