// What a request log is fed: each request to /send as its journal entry, and each /_mock call when asked.

import type { JournalEntry } from "../wire.js";

/** One call to the inspection API (or the inbox page), as a verbose log shows it. */
export interface InspectionCall {
  method: string;
  /** The path without its query string. */
  path: string;
  /** 0 when the client was gone before a response began. */
  status: number;
  duration_ms: number;
}

/**
 * Where a mock reports its requests. The library leaves it out and stays silent; `sendmock serve`
 * and `sendmock proxy` give one that writes a line per request.
 */
export interface RequestLog {
  /** Each request to /send, any method, once responded or abandoned: the entry the journal records. */
  send(entry: JournalEntry): void;
  /** Each call under /_mock; left out, those calls cost nothing. */
  inspection?(call: InspectionCall): void;
}
