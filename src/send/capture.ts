// Step: the send itself. The template rendered, the message captured, and the success response with its warnings.

import { apiKeyHint } from "../domain/api-keys.js";
import type { SendService } from "../domain/send.js";
import type { RuntimeSettings } from "../domain/settings.js";
import type { CapturedMessage, SendRequest } from "../wire.js";
import type { SendResponse } from "./exchange.js";
import { headerSafe } from "./header-safe.js";
import { successBody } from "./shapes.js";

export const WARNING_HEADER = "x-sendmock-warning";

/**
 * Clients refuse a response whose header block is too long (Node's limit is 16 KB), and a
 * request may carry thousands of unknown data keys: the header says as much as fits, the
 * captured message keeps every warning.
 */
const WARNING_HEADER_MAX_LENGTH = 1000;

function warningHeaderValue(warnings: readonly string[]): string {
  const full = headerSafe(warnings.join("; "));
  if (full.length <= WARNING_HEADER_MAX_LENGTH) return full;
  const more = ` ... (${warnings.length} warnings in all; the captured message lists every one)`;
  // A cut must not leave half of an escape such as \u00e9 behind.
  const kept = full.slice(0, WARNING_HEADER_MAX_LENGTH - more.length).replace(/\\(u[0-9a-f]{0,3})?$/, "");
  return `${kept}${more}`;
}

/** Renders and captures `request`; the response says it was queued, with any warnings in a header. */
export async function capture(
  request: SendRequest,
  apiKey: string,
  settings: RuntimeSettings,
  sendService: SendService,
): Promise<{ message: CapturedMessage; response: SendResponse }> {
  const message = await sendService.send(request, { apiKey, apiKeyHint: apiKeyHint(apiKey), strictData: settings.strictData });
  const headers: Record<string, string> = {};
  if (message.warnings.length > 0) headers[WARNING_HEADER] = warningHeaderValue(message.warnings);
  return { message, response: { status: 200, headers, body: { json: successBody(message.id, message.to, settings.responseShape) } } };
}
