// A wait that ran out, told with its near misses: what the sandbox waited in holds, what the others hold that matches, what was refused.

import type { Journal } from "../domain/journal.js";
import { explainWait } from "../domain/near-misses.js";
import { WaitTimeoutError, type MessageFilter, type Outbox } from "../domain/outbox.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import type { CapturedMessage } from "../wire.js";

/** How far back a near miss is looked for: the newest messages and requests of the sandbox waited in. */
const LOOKED_AT = 200;
/** Matches looked for in each other sandbox. */
const LOOKED_AT_ELSEWHERE = 3;

/** Where a wait waited: a sandbox (its name, outbox and journal), or every sandbox at once (`sandbox` undefined). */
export interface WaitPlace {
  sandbox: string | undefined;
  outbox: Pick<Outbox, "list">;
  journal: Pick<Journal, "list">;
}

/** What the explainer reads of every sandbox: the names in use, and each one's outbox (the default's first). */
export interface SandboxesSeen {
  names(): Promise<string[]>;
  all(): Promise<{ name: string; outbox: Pick<Outbox, "list"> }[]>;
}

/** Turns a wait's WaitTimeoutError into one naming its near misses. */
export type WaitExplainer = (place: WaitPlace, filter: MessageFilter, timedOut: WaitTimeoutError) => Promise<WaitTimeoutError>;

const newestFirst = (a: CapturedMessage, b: CapturedMessage): number => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0);

export function createWaitExplainer(sandboxes: () => SandboxesSeen): WaitExplainer {
  return async (place, filter, timedOut) => {
    try {
      const all = sandboxes();
      const [namesInUse, scopes, here, requests] = await Promise.all([
        all.names(),
        all.all(),
        place.outbox.list({ limit: LOOKED_AT }),
        place.journal.list({ limit: LOOKED_AT }),
      ]);
      const others = place.sandbox === undefined ? [] : scopes.filter((scope) => scope.name !== place.sandbox);
      const elsewhere = (await Promise.all(others.map(async (scope) => (await scope.outbox.list({ ...filter, limit: LOOKED_AT_ELSEWHERE })).messages)))
        .flat()
        .sort(newestFirst);
      const { message, nearMisses } = explainWait({
        filter,
        sandbox: place.sandbox,
        timeoutMs: timedOut.timeoutMs,
        inUse: place.sandbox === undefined || place.sandbox === DEFAULT_SANDBOX || namesInUse.includes(place.sandbox),
        namesInUse,
        captured: here.total,
        here: here.messages,
        elsewhere,
        requests: requests.requests,
      });
      return new WaitTimeoutError(message, timedOut.timeoutMs, nearMisses);
    } catch (error) {
      // The wait's own outcome stays the error: why the near misses are missing is one line of it.
      return new WaitTimeoutError(
        `${timedOut.message}\n(near misses unavailable: ${error instanceof Error ? error.message : String(error)})`,
        timedOut.timeoutMs,
      );
    }
  };
}

/** `waiting`, rejecting with the explained error when it ran out. */
export async function explainedWait(
  waiting: Promise<CapturedMessage>,
  explain: (timedOut: WaitTimeoutError) => Promise<WaitTimeoutError>,
): Promise<CapturedMessage> {
  try {
    return await waiting;
  } catch (error) {
    throw error instanceof WaitTimeoutError ? await explain(error) : error;
  }
}
