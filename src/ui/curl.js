// A journal entry as a curl command that sends the same request again, quoted for a POSIX shell.

import { SERVICE_ROOT } from "./api.js";

/**
 * Headers curl must not be given as they were: it computes the framing ones itself, the body is
 * journaled decoded (so its encoding no longer applies), a compressed response would print as bytes,
 * and the masked cookie holds nothing to send.
 */
const LEFT_OUT = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "content-encoding",
  "accept-encoding",
  "cookie",
  "proxy-authorization",
]);
/** The journal masks these to their last characters: the command takes the key from the shell instead. */
const KEY_HEADERS = new Set(["authorization", "x-api-key"]);
/** `Bearer …3f9a`: the scheme survives the mask. */
const AUTH_SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) /;

/** The variable the command reads the API key from. */
export const KEY_VARIABLE = "SENDMOCK_API_KEY";

/** Characters no POSIX shell reads as anything but themselves, outside quotes (zsh expands a leading `=`). */
const PLAIN_WORD = /^[A-Za-z0-9_./:@%+,-][A-Za-z0-9_./:@%+=,-]*$/;

/** `text` as one word for sh, bash or zsh: as it is when plain, else in single quotes, each quote inside closed, escaped and reopened. */
export function shellQuote(text) {
  if (PLAIN_WORD.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Why `entry` cannot be replayed from the journal, or null when it can: the body must have been
 * kept whole, and a shell word cannot carry a NUL character.
 */
export function notReplayable(entry) {
  if (!entry.request) return "The journal kept no copy of this request.";
  if (entry.request.body === null) return "The body was sent but not read (too large, or cut off), so there is nothing to send again.";
  if (entry.request.body_truncated) return "The journal kept only the start of the body (journal_body_bytes), so the command would send another request.";
  if (entry.request.body.includes("\u0000")) return "The body holds a NUL character, which a shell argument cannot carry.";
  return null;
}

/** The header as curl's -H argument: a masked key becomes the shell variable, in double quotes so it expands. */
function headerArgument(name, value) {
  if (!KEY_HEADERS.has(name)) return `-H ${shellQuote(`${name}: ${value}`)}`;
  const scheme = name === "authorization" ? (AUTH_SCHEME.exec(value)?.[1] ?? "Bearer") : null;
  return `-H "${name === "authorization" ? "Authorization" : "X-Api-Key"}: ${scheme === null ? "" : `${scheme} `}$${KEY_VARIABLE}"`;
}

/**
 * The command for a replayable entry (see notReplayable): method, the URL with the path as sent
 * (a sandbox's `/sandbox/NAME/send` included), each header but the left-out ones, and the body
 * exactly as received.
 */
export function curlCommand(entry) {
  const url = new URL(`.${entry.path}`, SERVICE_ROOT).href;
  const parts = [`curl -sS -X ${shellQuote(entry.method)} ${shellQuote(url)}`];
  for (const [name, value] of Object.entries(entry.request.headers)) {
    if (!LEFT_OUT.has(name)) parts.push(headerArgument(name, value));
  }
  if (entry.request.body !== "") parts.push(`--data-binary ${shellQuote(entry.request.body)}`);
  return parts.join(" \\\n  ");
}
