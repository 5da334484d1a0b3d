// Captured messages: add, filter, fetch, delete, clear, wait for a match; bounded by a capacity.

import type { CapturedMessage, MessageEvent, MessageList, MessageStatus, NearMiss } from "../wire.js";
import { printable } from "./printable.js";

export interface MessageFilter {
  /** Exact recipient (`to`), case-insensitive. */
  to?: string;
  /** Any of to, cc or bcc, case-insensitive. */
  recipient?: string;
  templateId?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
  /** Messages created at or after this time. */
  since?: Date | string;
  /** Messages whose latest state is this (`queued`, `delivered`, `bounced`…). */
  status?: MessageStatus;
  /** Case-insensitive text found in to, cc, bcc, reply_to, subject, text, html or a value of data. */
  q?: string;
  /** At most this many (newest first); `total` still counts every match. */
  limit?: number;
}

/** A page of messages, each as the JSON text it is stored as. */
export interface SerializedMessageList {
  messages: string[];
  total: number;
  /** True when the page stopped at `maxPageBytes` before `limit`. */
  truncated: boolean;
}

/** An event appended to a message that is still kept. */
export interface RecordedEvent {
  /**
   * The message as it is now, read only when asked: most events need no more than that they
   * were recorded, and reading a 900 KB message twice per send was ~14% of a large send's CPU.
   */
  message(): CapturedMessage;
  /** The messages dropped for room: an event grows its message, and the kept messages stay within `maxBytes`. */
  dropped: string[];
}

/** What bounds an outbox: messages kept, bytes kept, bytes in one page. */
export interface OutboxLimits {
  capacity: number;
  /** The JSON of kept messages, in UTF-8 bytes, with what a store keeps to search them; past it the oldest go (the newest always stays). No bound when left out. */
  maxBytes?: number;
  /** One page of a list, in bytes: V8 cannot build a string past 512 MB. No bound when left out. */
  maxPageBytes?: number;
}

/** The newest-first texts that fit in `maxBytes` (the first always does); whether some were left out. */
export function cutToBytes(texts: readonly string[], maxBytes: number): { kept: string[]; truncated: boolean } {
  const kept: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    bytes += Buffer.byteLength(text);
    if (kept.length > 0 && bytes > maxBytes) return { kept, truncated: true };
    kept.push(text);
  }
  return { kept, truncated: false };
}

export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface OutboxStats {
  count: number;
  /** The bound on messages kept, shared by every sandbox's outbox. */
  capacity: number;
  /** UTF-8 bytes of the kept messages' JSON, with whatever a store keeps to search them (bounded by `maxBytes` alike). */
  bytes: number;
  /** The bound on their bytes, shared by every sandbox's outbox. */
  maxBytes: number;
  /** Messages of this outbox dropped because the bounds were reached (by count or by bytes), whichever sandbox's message took the room. */
  dropped: number;
}

/**
 * Where accepted messages go. Every call is asynchronous so that a store shared by several
 * replicas can stand in for the in-memory one.
 */
export interface Outbox {
  /** Resolves with the ids of the messages dropped to make room for it (past `capacity` or `maxBytes`). */
  add(message: CapturedMessage): Promise<{ dropped: string[] }>;
  /**
   * Appends a lifecycle event and sets the status; undefined when the message is gone, or when
   * it already has `maxEvents` events (counted in the same step as the append, so that appends
   * racing through several replicas never pass it).
   */
  recordEvent(id: string, event: MessageEvent, status: MessageStatus, maxEvents?: number): Promise<RecordedEvent | undefined>;
  list(filter?: MessageFilter): Promise<MessageList>;
  /** `list` without parsing: a response can write the stored text as it is. */
  listSerialized(filter?: MessageFilter): Promise<SerializedMessageList>;
  /** One message by id; `latest` is the newest. */
  get(id: string): Promise<CapturedMessage | undefined>;
  /** Deletes one message by id (`latest` is the newest); resolves with the id deleted, or undefined when there was none. */
  delete(id: string): Promise<string | undefined>;
  clear(): Promise<void>;
  /** Resolves with the newest match, waiting for one to be captured or to reach the filter's `status`; rejects after `timeoutMs`. */
  waitFor(filter?: MessageFilter, options?: WaitOptions): Promise<CapturedMessage>;
  stats(): Promise<OutboxStats>;
  /** Calls `listener` for every message captured from now on; returns the unsubscribe. */
  onCapture(listener: (message: CapturedMessage) => void): () => void;
  /** Calls `listener` for every lifecycle event recorded from now on, with the message as it is after it; returns the unsubscribe. */
  onEvent(listener: (message: CapturedMessage, event: MessageEvent) => void): () => void;
  /** Calls `listener` after every `clear`; returns the unsubscribe. */
  onClear(listener: () => void): () => void;
  /**
   * Calls `listener` with the ids of messages dropped for the room another sandbox's message
   * took (the bounds are shared, docs/sandboxes.md#bounds); those an add or an event of this
   * outbox drops are in its result instead. Returns the unsubscribe.
   */
  onDropped(listener: (ids: string[]) => void): () => void;
}

/**
 * A wait for a message that ran out, from every handle (`mock.outbox`, `mock.sandbox(name).outbox`, the sandbox
 * client): its message names what was waited for and what came closest; `nearMisses` is the same as data.
 */
export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
  /** How long the wait was, in ms. */
  readonly timeoutMs: number;
  /** What came closest, most telling first: matches in other sandboxes, the same recipient, the closest recipients, refused sends. */
  readonly nearMisses: readonly NearMiss[];

  constructor(message: string, timeoutMs: number, nearMisses: readonly NearMiss[] = []) {
    super(message);
    this.timeoutMs = timeoutMs;
    this.nearMisses = nearMisses;
  }
}

export const DEFAULT_WAIT_MS = 5000;

/** What a filter compares, computed once when a message is captured rather than on every list. */
export interface MatchKeys {
  to: string;
  recipients: string[];
  templateId: string;
  subject: string;
  createdAtMs: number;
  status: MessageStatus;
}

export function matchKeysOf(message: CapturedMessage): MatchKeys {
  const to = message.to.toLowerCase();
  return {
    to,
    recipients: [to, ...message.cc.map((address) => address.toLowerCase()), ...message.bcc.map((address) => address.toLowerCase())],
    templateId: message.template_id,
    subject: message.subject.toLowerCase(),
    createdAtMs: Date.parse(message.created_at),
    status: message.status,
  };
}

/**
 * What `q` searches, lowercased once. Fields are joined by a newline so that a search never
 * matches across two of them (`q` with a newline in it matches nothing that way either).
 */
export function searchTextOf(message: CapturedMessage): string {
  const fields = [message.to, ...message.cc, ...message.bcc, message.reply_to ?? "", message.subject, message.text ?? "", message.html ?? ""];
  for (const value of Object.values(message.data)) fields.push(...(typeof value === "string" ? [value] : value));
  return fields.join("\n").toLowerCase();
}

/** Whether a message's `searchTextOf` holds `q`, or undefined when there is no `q`. */
export function textSearch(q: string | undefined): ((searchText: string) => boolean) | undefined {
  if (q === undefined || q === "") return undefined;
  const wanted = q.toLowerCase();
  return (searchText) => searchText.includes(wanted);
}

/**
 * Compiles what a filter asks beyond `to` into one predicate, or undefined when it asks
 * nothing more: `to` is served by the per-recipient index, so such a list needs no scan.
 */
export function predicateBeyondTo(filter: MessageFilter): ((keys: MatchKeys) => boolean) | undefined {
  const recipient = filter.recipient?.toLowerCase();
  const subject = filter.subject?.toLowerCase();
  const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
  const { templateId, status } = filter;
  if (recipient === undefined && subject === undefined && since === undefined && templateId === undefined && status === undefined) return undefined;
  return (keys) =>
    (recipient === undefined || keys.recipients.includes(recipient)) &&
    (templateId === undefined || keys.templateId === templateId) &&
    (subject === undefined || keys.subject.includes(subject)) &&
    (since === undefined || keys.createdAtMs >= since) &&
    (status === undefined || keys.status === status);
}

/** The keys of a message together with the text `q` searches. */
export interface SearchableKeys extends MatchKeys {
  searchText: string;
}

/** `predicateBeyondTo` with `q` as well, over keys that carry their search text. */
export function searchablePredicate(filter: MessageFilter): ((keys: SearchableKeys) => boolean) | undefined {
  const rest = predicateBeyondTo(filter);
  const text = textSearch(filter.q);
  if (text === undefined) return rest;
  return (keys) => (rest === undefined || rest(keys)) && text(keys.searchText);
}

export function matchesFilter(filter: MessageFilter): (keys: SearchableKeys) => boolean {
  const to = filter.to?.toLowerCase();
  const rest = searchablePredicate(filter);
  return (keys) => (to === undefined || keys.to === to) && (rest === undefined || rest(keys));
}

/** `matchesFilter` for a whole message; its search text is built only when the filter has a `q`. */
export function matchesMessage(filter: MessageFilter): (message: CapturedMessage) => boolean {
  const predicate = matchesFilter(filter);
  const searches = textSearch(filter.q) !== undefined;
  return (message) => predicate({ ...matchKeysOf(message), searchText: searches ? searchTextOf(message) : "" });
}

/** A filter field as the HTTP API names it (`template_id`), so the library and GET /_mock/messages say the same words. */
const WIRE_NAMES: Record<string, string> = { templateId: "template_id" };

/** `message with to=ada@example.com, template_id=welcome`, or `message` for an empty filter; every invisible character escaped. */
export function describeWanted(filter: MessageFilter): string {
  const parts = Object.entries(filter).filter(([key, value]) => key !== "limit" && value !== undefined);
  const shown = (value: unknown): string => (value instanceof Date ? value.toISOString() : printable(String(value)));
  return parts.length === 0 ? "message" : `message with ${parts.map(([key, value]) => `${WIRE_NAMES[key] ?? key}=${shown(value)}`).join(", ")}`;
}

/**
 * Resolves with the newest message matching `filter`, already captured or captured (or moved
 * to the filter's status) within the timeout. It listens before it looks, so a capture between
 * the two is never missed, whatever the store's latency.
 */
export function waitForCapture(parts: {
  filter: MessageFilter;
  options: WaitOptions;
  /** Hears every capture and every lifecycle event (with the message as it is after it). */
  subscribe: (listener: (message: CapturedMessage) => void) => () => void;
  findNow: () => Promise<CapturedMessage | undefined>;
  count: () => Promise<number>;
}): Promise<CapturedMessage> {
  const { filter, options } = parts;
  const predicate = matchesMessage(filter);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  return new Promise<CapturedMessage>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      options.signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const onAbort = (): void => {
      finish(() => {
        reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error("wait aborted"));
      });
    };
    const timer = setTimeout(() => {
      void parts
        .count()
        .then(
          (count) => `${count} captured`,
          () => "count unknown",
        )
        .then((counted) => {
          finish(() => {
            reject(new WaitTimeoutError(`no ${describeWanted(filter)} was captured within ${timeoutMs} ms (${counted})`, timeoutMs));
          });
        });
    }, timeoutMs);
    const unsubscribe = parts.subscribe((message) => {
      if (predicate(message))
        finish(() => {
          resolve(message);
        });
    });
    if (options.signal?.aborted === true) {
      onAbort();
      return;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    parts.findNow().then(
      (found) => {
        if (found)
          finish(() => {
            resolve(found);
          });
      },
      (error: unknown) => {
        finish(() => {
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      },
    );
  });
}
