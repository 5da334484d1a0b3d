// The `respond` fault's own fields on the Faults view: its headers as `Name: value` lines and its
// body as JSON or text, read into the rule; and how a respond rule reads in the list of rules.

import { byId } from "../dom.js";

/** How much of a rule's body the list shows. */
const BODY_EXCERPT = 80;

/** `Name: value` lines as an object; throws an Error naming the line that is not one. The API checks names and values. */
function headersFrom(text) {
  const headers = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error(`Headers, line ${index + 1}: write it as Name: value.`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The body field as the rule's `body`: undefined when empty, the parsed value for JSON, the text as it is otherwise. */
function bodyFrom(text, kind) {
  if (text === "") return undefined;
  if (kind === "text") return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`The body is not JSON (${error.message}); choose "text" to send it as written.`, { cause: error });
  }
}

/** Adds the respond fields to `rule` (its status is read with the other numbers); throws an Error in words for a field the page can tell is wrong. */
export function addRespondFields(rule) {
  rule.headers = headersFrom(byId("fault-respond-headers").value);
  const kind = document.querySelector('input[name="respond_body_kind"]:checked')?.value ?? "json";
  const body = bodyFrom(byId("fault-respond-body").value, kind);
  if (body !== undefined) rule.body = body;
}

/** A respond rule's headers and body, short, for its row. */
export function respondParameters(rule) {
  const parts = [];
  const names = Object.keys(rule.headers ?? {});
  if (names.length > 0) parts.push(`headers ${names.join(", ")}`);
  if (rule.body !== null) {
    const body = typeof rule.body === "string" ? rule.body : JSON.stringify(rule.body);
    parts.push(`body ${body.length > BODY_EXCERPT ? `${body.slice(0, BODY_EXCERPT)}…` : body}`);
  }
  return parts;
}
