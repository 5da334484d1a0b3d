// One request to /send as received and its response as sent, pretty-printed (a header a line, a
// JSON body indented), with Copy as curl: the Requests view's unfolded entry and a message's
// Request tab. Everything in it came from a client or a fault, so it goes in as text only.

import { copyButton } from "../clipboard.js";
import { curlCommand, KEY_VARIABLE, notReplayable } from "../curl.js";
import { h } from "../dom.js";

/**
 * `text` indented two spaces a level when it is JSON, else unchanged. Strings, numbers and key order
 * are kept as written (a parse and stringify would turn `1.50` into `1.5` and merge repeated keys,
 * hiding what the client really sent); only the whitespace between tokens changes.
 */
export function indentedJson(text) {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = "";
  let depth = 0;
  const newline = () => `\n${"  ".repeat(depth)}`;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(at, end + 1);
      at = end;
    } else if (char === "{" || char === "[") {
      const close = char === "{" ? "}" : "]";
      let next = at + 1;
      while (" \t\r\n".includes(text[next])) next += 1;
      if (text[next] === close) {
        out += char + close;
        at = next;
      } else {
        depth += 1;
        out += char + newline();
      }
    } else if (char === "}" || char === "]") {
      depth -= 1;
      out += newline() + char;
    } else if (char === ",") {
      out += `,${newline()}`;
    } else if (char === ":") {
      out += ": ";
    } else if (!" \t\r\n".includes(char)) {
      out += char;
    }
  }
  return out;
}

/**
 * A block of lines, each its own element: a line too long for the width wraps inside its box
 * (at a space first, within a word only when it must), and a test can tell a wrapped line from two.
 */
function linesBlock(lines, testId) {
  const children = [];
  for (const [index, line] of lines.entries()) {
    if (index > 0) children.push("\n");
    children.push(h("span", { class: "code-line" }, line));
  }
  return h("pre", { class: "code-block exchange-text", "data-testid": testId, tabindex: "0" }, children);
}

/** The first line, the headers one a line, a blank line and the body, as the message looked on the wire. */
function httpBlock(firstLine, headers, body, testId) {
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return linesBlock([firstLine, ...headerLines, "", ...indentedJson(body).split("\n")], testId);
}

function cutNote(truncated) {
  return truncated ? h("p", { class: "muted" }, "Only the start of the body is kept (journal_body_bytes, 64 KB by default).") : null;
}

/** Copy as curl, or why this entry cannot be sent again. */
function curlTools(entry) {
  const reason = notReplayable(entry);
  if (reason !== null) return h("p", { class: "muted", "data-testid": "copy-curl-unavailable" }, `No curl command: ${reason}`);
  const { button, status, fallback } = copyButton({ label: "Copy as curl", testId: "copy-curl", name: "curl command", text: () => curlCommand(entry) });
  return h(
    "div",
    { class: "curl-tools" },
    h("div", { class: "curl-row" }, button, status),
    h("p", { class: "muted small" }, "It sends the same request again; set ", h("code", {}, KEY_VARIABLE), " to the API key first."),
    fallback,
  );
}

/** The request and the response, each the full width of where they are placed. */
export function exchangeParts(entry) {
  if (!entry.request) return [h("p", { class: "muted" }, "The journal kept no copy of this request.")];
  const { request, response } = entry;
  const requestBody = request.body ?? "(a body was sent but could not be read)";
  const responsePart =
    response === null
      ? h(
          "p",
          { class: "muted", "data-testid": "exchange-no-answer" },
          entry.client_gone ? "None: the client left before its answer." : "None: the connection was closed without one.",
        )
      : [httpBlock(`HTTP ${response.status}`, response.headers, response.body, "exchange-response"), cutNote(response.body_truncated)];
  return [
    curlTools(entry),
    h("h4", {}, "Request"),
    httpBlock(`${entry.method} ${entry.path}`, request.headers, requestBody, "exchange-request"),
    cutNote(request.body_truncated),
    h("h4", {}, "Answer"),
    responsePart,
  ];
}
