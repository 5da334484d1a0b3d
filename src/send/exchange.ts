// What one request to /send is (a plain value read off the socket) and what the pipeline makes of it (an outcome).

import type { HttpResponse } from "../response.js";
import type { IncomingHttpHeaders } from "node:http";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import type { SettingsStore } from "../domain/settings.js";
import type { ApiError, ErrorCode, Violation } from "../errors.js";

/** A request to /send as the pipeline sees it: no socket, no framework, nothing to mutate. */
export interface SendCall {
  readonly method: string;
  /** The path without its query, as the journal shows it. */
  readonly path: string;
  /** The NAME of a sandbox base URL's path, `/sandbox/NAME/send`, as written (checked by the sandbox step); undefined for `/send`. */
  readonly pathSandbox?: string;
  /** Parsed as `name=value` pairs: a value is a string, or a list of strings for a repeated name. */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** By lower-case name, as Node gives them. */
  readonly headers: IncomingHttpHeaders;
  /** Name, value, name, value... as received: the journal keeps repeated headers Node would fold away. */
  readonly rawHeaders: readonly string[];
  /** The body's bytes after any Content-Encoding; undefined when none was sent or it could not be read. */
  readonly body: Buffer | undefined;
  /** Why the body could not be read (over body_limit, undecodable): refused at the JSON step, in its turn. */
  readonly bodyProblem: unknown;
  /** Whether the request came with a body (Content-Length or Transfer-Encoding), read or not. */
  readonly hadBody: boolean;
  /** Wall-clock arrival (epoch ms): the journal's `at`. */
  readonly arrivedAt: number;
  /** `performance.now()` at arrival, for the journal's `duration_ms`. */
  readonly startedAt: number;
}

/** A response to write: a JSON value (held to the contract by the writer) or bytes as they are. */
// The headers are the response's own; the writer adds Content-Length, the Content-Type of a JSON body and the ones every response carries.
export type SendResponse = HttpResponse<{ readonly json: unknown } | { readonly bytes: string | Uint8Array }>;

/**
 * How the writer holds a response to the send contract: `enforce` sends a server_error instead of
 * a response that breaks it (a bug in sendmock), `record` sends it as it is and journals how it
 * departs (a `respond` fault), `none` sends it untouched (a replay, a proxied response, a fault's
 * broken body).
 */
export type Judgement = "enforce" | "record" | "none";

/** What the journal says of a request beyond its bytes, as far as the pipeline got. */
export interface SendNotes {
  apiKey?: string;
  /** `to` and `template_id` of the body when it parsed and they are strings. */
  to?: string;
  templateId?: string;
  fault?: string;
  messageId?: string;
  /** The error the response stands for; for a proxied error, what the service's response said. */
  error?: { code?: string; message?: string; violations: readonly Violation[] };
  /** How the request and the response depart from the contract (proxy). */
  violations?: readonly Violation[];
  /** True when the response is the one kept for the request's Idempotency-Key, sent again. */
  idempotentReplay?: boolean;
  /** The sandbox the request went to, once chosen. */
  sandbox?: string;
}

/** An Idempotency-Key this request claimed: the writer keeps its response, or lets the key go. */
export interface KeyClaim {
  readonly scope: string;
  readonly fingerprint: string;
}

/** Where the writer journals a request and keeps its response: its sandbox's journal and keys. */
export interface WriterState {
  readonly journal: Pick<Journal, "record">;
  readonly idempotency: Pick<IdempotencyStore, "keep" | "release">;
}

interface SendOutcomeBase {
  readonly notes: SendNotes;
  readonly claim?: KeyClaim;
  /** The sandbox's state, once the request's sandbox is known; the writer's own (the default sandbox's) before. */
  readonly sandbox?: WriterState;
}

/**
 * What became of a request to /send: a response to write; a response kept but never sent
 * (`lost_answer`); or no response at all, the connection cut at once (`disconnect`) or held for
 * `holdMs` then closed (`timeout`). Not a message's delivery outcome (wire.ts' `Outcome`).
 */
export type SendOutcome =
  | (SendOutcomeBase & { readonly kind: "response"; readonly response: SendResponse; readonly judge: Judgement })
  | (SendOutcomeBase & { readonly kind: "lost"; readonly response: SendResponse })
  | (SendOutcomeBase & { readonly kind: "disconnect" })
  | (SendOutcomeBase & { readonly kind: "hold"; readonly holdMs: number });

/** A pipeline of /send, the local send's or the proxy's relay: a call in, its outcome out; told when the client goes away, if the edge watches it. */
export type SendPipeline = (call: SendCall, clientGone?: AbortSignal) => Promise<SendOutcome>;

/** A request header by lower-case name; a repeated one joined with ", ". */
export function headerOf(call: SendCall, name: string): string | undefined {
  const value = call.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** What both pipelines of /send (the local send, the proxy's relay) are given to respond in the mock's words. */
export interface PipelineBasics {
  settings: SettingsStore;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** Turns whatever a step threw into the ApiError a client reads (`body` for the words that quote it). */
  toApiError: (error: unknown, body: unknown) => ApiError;
  /** Why the request's `Host` is refused (a loopback bind serves loopback names), or undefined. */
  checkHost: (host: string | undefined) => ApiError | undefined;
}

/** The notes of an error response. */
export function errorNotes(notes: SendNotes, error: ApiError): SendNotes {
  return { ...notes, error: { code: error.code, message: error.message, violations: error.violations } };
}
