// A captured message that can check itself (`email.checks()`), as the library's handle and the sandbox client give it.

import type { MessageChecksView } from "./http/message-checks.js";
import type { CapturedMessage } from "./wire.js";

/** What `GET /_mock/messages/{id}/checks` asks beyond the message: `online` fetches the links on `link_check_hosts`. */
export interface ChecksOptions {
  online?: boolean;
}

/** A captured message the handle gave, which can check itself as `GET /_mock/messages/{id}/checks` does. */
export type CheckableMessage = CapturedMessage & {
  /** The message's named checks (docs/message-checks.md), spam and the online link status included when set up. */
  checks(options?: ChecksOptions): Promise<MessageChecksView>;
};

/** `message` with `checks()` running `check`: not enumerable, so it is no part of the message's JSON or of an equality. */
export function checkable(message: CapturedMessage, check: (options: ChecksOptions) => Promise<MessageChecksView>): CheckableMessage {
  return Object.defineProperty(message, "checks", { value: (options: ChecksOptions = {}) => check(options), enumerable: false }) as CheckableMessage;
}
