// One captured message as the memory outbox keeps it: its JSON text, split into a head rebuilt on each event and a rest stored off the heap.

import type { CapturedMessage, MessageStatus } from "../../wire.js";
import type { MatchKeys, SearchableKeys } from "../../domain/outbox.js";
import { TextArena, TextSpan } from "./text-arena.js";

/**
 * A captured message is kept as its JSON text: one flat text weighs a fraction of the object
 * graph, a list response writes it without serializing again, and every reader gets its own copy,
 * so no caller can change what was captured. The text is kept in two parts: its short head (id,
 * status, events), rebuilt when an event is recorded instead of parsing and serializing the whole
 * message again (two events per send by default; the round trip was ~3% of a send's CPU in a
 * profile), and the rest, which never changes, as UTF-8 bytes off V8's heap (text-arena.ts).
 *
 * Memory, at 100k captured welcome emails (1.9 KB of JSON each) with the journal already off the
 * heap: kept as one string per message (and `rest` a slice of it), with the keys spread into an
 * object literal, the outbox took ~3.1 KB of live heap a message, 1.9 KB of them the text and
 * ~0.5 KB a map of its own for every entry (V8 gave up sharing the literal's shape). V8 lets its
 * heap grow to a few times the live heap before it collects (~2.6 times then, ~4 once the live
 * heap was small), and RSS follows. A class keeps one shape for all entries, and the rest off the
 * heap counts once. An entry is the span of that rest (its chunk and range, `text()` reads it)
 * with the rest of what it keeps: a span object of its own took 56 B of heap more a message.
 * Now the whole server holds 58 MB of live heap at 100k messages (~0.6 KB each, with the journal),
 * and the bench's RSS is ~605 MB against its 650 MB target.
 */
export class Entry extends TextSpan implements SearchableKeys {
  readonly to: string;
  readonly recipients: string[];
  readonly templateId: string;
  readonly subject: string;
  readonly createdAtMs: number;
  status: MessageStatus;
  /** Empty until the outbox is searched. */
  searchText = "";
  readonly id: string;
  /** Its place in capture order, under which the word index files it. */
  number: number;
  /** The events as a JSON array. */
  eventsJson: string;
  /** How many events that array holds, for `maxEvents`. */
  eventCount: number;
  /** UTF-8 bytes of the head (`headOf`). */
  headBytes = 0;
  /** Its JSON's UTF-8 bytes, and once the outbox was searched the heap bytes of its search text. */
  bytes = 0;

  /** `rest`: where everything after the events, `,"created_at":…}`, was stored. */
  constructor(message: CapturedMessage, number: number, keys: MatchKeys, rest: TextSpan) {
    super(rest.chunk, rest.start, rest.end);
    this.to = keys.to;
    this.recipients = keys.recipients;
    this.templateId = keys.templateId;
    this.subject = keys.subject;
    this.createdAtMs = keys.createdAtMs;
    this.status = message.status;
    this.id = message.id;
    this.number = number;
    this.eventsJson = JSON.stringify(message.events);
    this.eventCount = message.events.length;
  }
}

/** The part of the JSON before `rest`: the id, the status and the events. */
export function headOf(entry: Entry): string {
  return `{"id":${JSON.stringify(entry.id)},"status":${JSON.stringify(entry.status)},"events":${entry.eventsJson}`;
}

/** What `rest` holds: the JSON after the events. */
function restOf(message: CapturedMessage): string {
  // The send service builds messages with these three fields first, so the rest is the end of
  // their JSON as it is; serializing the rest as an object of its own instead cost twice as much
  // in a profile. Any other order is still kept right.
  const json = JSON.stringify(message);
  const head = `{"id":${JSON.stringify(message.id)},"status":${JSON.stringify(message.status)},"events":${JSON.stringify(message.events)}`;
  if (json.startsWith(head)) return json.slice(head.length);
  const others = Object.fromEntries(Object.entries(message).filter(([key]) => key !== "id" && key !== "status" && key !== "events"));
  // Never `{}`: a captured message always has fields beyond these three.
  return `,${JSON.stringify(others).slice(1)}`;
}

export function entryOf(message: CapturedMessage, number: number, keys: MatchKeys, texts: TextArena): Entry {
  const rest = restOf(message);
  const entry = new Entry(message, number, keys, texts.store(rest, Buffer.byteLength(rest)));
  // Counted in two parts: joined, a large message would be copied whole only to be measured.
  entry.headBytes = Buffer.byteLength(headOf(entry));
  entry.bytes = entry.headBytes + entry.byteLength;
  return entry;
}

export function jsonOf(entry: Entry): string {
  return `${headOf(entry)}${entry.text()}`;
}

export function messageOf(entry: Entry): CapturedMessage {
  return JSON.parse(jsonOf(entry)) as CapturedMessage;
}
