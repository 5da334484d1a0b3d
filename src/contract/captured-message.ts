// The inspection API writes stored messages as they are, without its response check
// seeing them; each is checked against openapi/admin.yaml once, when it is captured, instead.
// The check is compiled once per process for each document (contract/engine.ts).

import { componentCheck } from "./engine.js";
import type { Contract } from "./load.js";
import type { Outbox } from "../domain/outbox.js";
import { ApiError } from "../errors.js";
import type { CapturedMessage } from "../wire.js";

/** `outbox`, refusing any message that `GET /_mock/messages` could not respond with. */
export function withCapturedMessageCheck(outbox: Outbox, adminContract: Contract): Outbox {
  // Compiled with the mock, not at its first capture: no request pays for it.
  const violationsIn = componentCheck(adminContract, "CapturedMessage");

  const check = (message: CapturedMessage): ApiError | undefined => {
    const { id } = message;
    const violations = violationsIn(message);
    if (violations.length === 0) return undefined;
    const described = violations
      .map((violation) => `${violation.path || "/"} ${violation.message} (expected ${violation.expected}, actual ${violation.actual})`)
      .join("; ");
    return new ApiError(
      "server_error",
      `sendmock built message ${id} outside openapi/admin.yaml #/components/schemas/CapturedMessage: ${described}. It was not captured; please report this.`,
    );
  };

  return {
    add: (message) => {
      const refusal = check(message);
      return refusal ? Promise.reject(refusal) : outbox.add(message);
    },
    recordEvent: (id, event, status, maxEvents) => outbox.recordEvent(id, event, status, maxEvents),
    list: (filter) => outbox.list(filter),
    listSerialized: (filter) => outbox.listSerialized(filter),
    get: (id) => outbox.get(id),
    delete: (id) => outbox.delete(id),
    clear: () => outbox.clear(),
    waitFor: (filter, options) => outbox.waitFor(filter, options),
    stats: () => outbox.stats(),
    onCapture: (listener) => outbox.onCapture(listener),
    onEvent: (listener) => outbox.onEvent(listener),
    onClear: (listener) => outbox.onClear(listener),
    onDropped: (listener) => outbox.onDropped(listener),
  };
}
