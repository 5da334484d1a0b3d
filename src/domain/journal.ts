// The request journal: every request to the send API and its outcome, newest first, bounded.

import type { JournalEntry } from "../wire.js";

/** A page of the journal; `truncated` is true when it stopped at `maxPageBytes` before `limit`. */
export interface JournalPage {
  requests: JournalEntry[];
  total: number;
  truncated: boolean;
}

/** Asynchronous, like the outbox, so a shared store can stand in for the in-memory one. */
export interface Journal {
  record(entry: JournalEntry): Promise<void>;
  list(options?: { limit?: number }): Promise<JournalPage>;
  clear(): Promise<void>;
  /** Calls `listener` for every entry recorded from now on; returns the unsubscribe. */
  onRecord(listener: (entry: JournalEntry) => void): () => void;
}

/** What bounds a journal: entries kept, bytes kept, bytes in one page. */
export interface JournalLimits {
  capacity: number;
  /** The JSON of kept entries, in UTF-8 bytes; no bound when left out. */
  maxBytes?: number;
  /** One page of a list, in bytes; no bound when left out. */
  maxPageBytes?: number;
}
