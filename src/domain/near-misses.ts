// What a wait that ran out says about what came closest (WireMock prints near misses for every unmatched request): matches in
// other sandboxes, the same recipient with another template or subject, the closest recipients, sends that were refused.

import { distance } from "fastest-levenshtein";
import type { CapturedMessage, JournalEntry, NearMiss } from "../wire.js";
import { DEFAULT_SANDBOX } from "./sandboxes.js";
import { describeWanted, matchesMessage, type MessageFilter } from "./outbox.js";
import { printable } from "./printable.js";

/** At most this many near misses of one kind, and in all: a timeout message a person reads at a glance. */
const SHOWN_PER_KIND = 3;
const SHOWN_IN_ALL = 10;

/** What a wait looked at when it ran out. */
export interface WaitScene {
  filter: MessageFilter;
  /** The sandbox waited in; undefined for a wait across every sandbox. */
  sandbox: string | undefined;
  timeoutMs: number;
  /** Whether that sandbox is in use (sent to or set up since its last reset); true for the default one and for every sandbox. */
  inUse: boolean;
  /** The sandboxes in use, by name (the default's aside). */
  namesInUse: readonly string[];
  /** How many messages the sandbox waited in holds. */
  captured: number;
  /** The newest messages of the sandbox waited in, newest first. */
  here: readonly CapturedMessage[];
  /** Messages matching the whole filter in the other sandboxes, newest first (each names its sandbox, the default's none). */
  elsewhere: readonly CapturedMessage[];
  /** The newest requests to /send in the sandbox waited in, newest first. */
  requests: readonly JournalEntry[];
}

/** The words of a wait that ran out and its near misses as data. */
export interface WaitExplained {
  message: string;
  nearMisses: NearMiss[];
}

const quoted = (text: string): string => JSON.stringify(printable(text));

const shownValue = (value: Date | string): string => (value instanceof Date ? value.toISOString() : printable(value));

function whereOf(sandbox: string | undefined): string {
  return sandbox === undefined || sandbox === DEFAULT_SANDBOX ? "the default sandbox" : `sandbox ${quoted(sandbox)}`;
}

function summary(message: CapturedMessage): string {
  return `${message.id} to=${printable(message.to)} template_id=${printable(message.template_id)} subject=${quoted(message.subject)} status=${message.status}`;
}

/** How `message` departs from what the filter asked beyond its recipient, one phrase per field. */
function departures(filter: MessageFilter, message: CapturedMessage): string[] {
  const phrases: string[] = [];
  if (filter.templateId !== undefined && message.template_id !== filter.templateId)
    phrases.push(`template_id ${quoted(message.template_id)} (waited for ${quoted(filter.templateId)})`);
  if (filter.subject !== undefined && !matchesMessage({ subject: filter.subject })(message))
    phrases.push(`subject ${quoted(message.subject)} (waited for one containing ${quoted(filter.subject)})`);
  if (filter.status !== undefined && message.status !== filter.status) phrases.push(`status ${message.status} (waited for ${filter.status})`);
  if (filter.since !== undefined && !matchesMessage({ since: filter.since })(message))
    phrases.push(`created ${message.created_at} (waited for since ${shownValue(filter.since)})`);
  if (filter.q !== undefined && !matchesMessage({ q: filter.q })(message)) phrases.push(`no text ${quoted(filter.q)}`);
  return phrases;
}

function sameAddress(one: string, other: string): boolean {
  return one.toLowerCase() === other.toLowerCase();
}

/** The other sandboxes' matches: the app sent without its sandbox, or to another one. */
function inOtherSandboxes(scene: WaitScene): { hint: string | undefined; misses: NearMiss[] } {
  const { elsewhere, sandbox } = scene;
  if (sandbox === undefined || elsewhere.length === 0) return { hint: undefined, misses: [] };
  const counts = new Map<string, number>();
  for (const message of elsewhere) counts.set(message.sandbox ?? DEFAULT_SANDBOX, (counts.get(message.sandbox ?? DEFAULT_SANDBOX) ?? 0) + 1);
  const hints = [...counts].map(([where, count]) => {
    const matches = `${String(count)} ${count === 1 ? "match is" : "matches are"} in ${whereOf(where)}`;
    if (where === DEFAULT_SANDBOX) return `${matches}: did the app send the sandbox header (X-Sendmock-Sandbox) or to the sandbox's base URL?`;
    if (sandbox === DEFAULT_SANDBOX) return `${matches}: wait in that sandbox (mock.sandbox(${quoted(where)}), ?sandbox=${where})`;
    return `${matches}: did the app send another sandbox's header or base URL?`;
  });
  const misses = elsewhere.slice(0, SHOWN_PER_KIND).map((message): NearMiss => ({
    kind: "other_sandbox",
    description: `in ${whereOf(message.sandbox)}: ${summary(message)}`,
    message_id: message.id,
    ...(message.sandbox !== undefined && { sandbox: message.sandbox }),
  }));
  return { hint: hints.join("; "), misses };
}

/** Messages to the recipient waited for that miss on another field, and the recipients closest to it. */
function aroundTheRecipient(scene: WaitScene, recipient: string): NearMiss[] {
  const { filter, here } = scene;
  const misses: NearMiss[] = [];
  const same = here.filter((message) => [message.to, ...message.cc, ...message.bcc].some((address) => sameAddress(address, recipient)));
  for (const message of same.slice(0, SHOWN_PER_KIND)) {
    const phrases = departures(filter, message);
    misses.push({
      kind: "same_recipient",
      description: `same recipient, ${phrases.length > 0 ? phrases.join(", ") : "not matching the rest"}: ${summary(message)}`,
      message_id: message.id,
    });
  }
  // The closest addresses first, each once (its newest message): a typo in the test or in the app.
  const others = new Map<string, CapturedMessage>();
  for (const message of here) if (!sameAddress(message.to, recipient) && !others.has(message.to.toLowerCase())) others.set(message.to.toLowerCase(), message);
  const wanted = recipient.toLowerCase();
  const closest = [...others]
    .map(([address, message]) => ({ message, score: distance(wanted, address) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, SHOWN_PER_KIND);
  for (const { message } of closest)
    misses.push({ kind: "close_recipient", description: `close recipient ${printable(message.to)}: ${summary(message)}`, message_id: message.id });
  return misses;
}

/** Without a recipient to go by: the newest messages here, each with how it departs from the filter. */
function capturedHere(scene: WaitScene): NearMiss[] {
  return scene.here.slice(0, SHOWN_PER_KIND).map((message): NearMiss => {
    const phrases = departures(scene.filter, message);
    return {
      kind: "captured",
      description: `captured here${phrases.length > 0 ? `, ${phrases.join(", ")}` : ""}: ${summary(message)}`,
      message_id: message.id,
    };
  });
}

/** Sends refused here: what the app sent did not get in. */
function refusedHere(scene: WaitScene): NearMiss[] {
  return scene.requests
    .filter((entry) => entry.status >= 400)
    .slice(0, SHOWN_PER_KIND)
    .map((entry): NearMiss => {
      const why = entry.error_code ?? entry.fault ?? "refused";
      const words = entry.error_message === null ? "" : `: ${printable(entry.error_message)}`;
      return {
        kind: "refused",
        description: `refused here: ${String(entry.status)} ${why} to=${entry.to === null ? "(none)" : printable(entry.to)} template_id=${entry.template_id === null ? "(none)" : printable(entry.template_id)}${words}`,
        request_id: entry.id,
      };
    });
}

/** The words of a wait that ran out: what it waited for, where, the near misses, and what probably went wrong. */
export function explainWait(scene: WaitScene): WaitExplained {
  const { filter, sandbox } = scene;
  const where = sandbox === undefined ? "any sandbox" : whereOf(sandbox);
  const lines = [`no ${describeWanted(filter)} in ${where} within ${String(scene.timeoutMs)} ms (${String(scene.captured)} captured there)`];
  if (sandbox !== undefined && !scene.inUse) {
    const shown = scene.namesInUse.slice(0, 5).join(", ");
    const more = scene.namesInUse.length > 5 ? ` and ${String(scene.namesInUse.length - 5)} more` : "";
    lines.push(
      `sandbox ${quoted(sandbox)} is not in use: nothing was sent to it or set up in it since it was last reset or forgotten (${shown === "" ? "no sandbox is in use" : `in use: ${shown}${more}`})`,
    );
  }
  const other = inOtherSandboxes(scene);
  if (other.hint !== undefined) lines.push(other.hint);
  const recipient = filter.to ?? filter.recipient;
  const nearMisses = [...other.misses, ...(recipient === undefined ? capturedHere(scene) : aroundTheRecipient(scene, recipient))];
  if (scene.here.length === 0) {
    const refused = refusedHere(scene);
    nearMisses.push(...refused);
    if (refused.length === 0 && scene.inUse) lines.push(`nothing was captured in ${where}, and no send to it was refused`);
  }
  const shown = nearMisses.slice(0, SHOWN_IN_ALL);
  if (shown.length > 0) lines.push(`near misses:\n${shown.map((miss) => `  - ${miss.description}`).join("\n")}`);
  return { message: lines.join("\n"), nearMisses: shown };
}
