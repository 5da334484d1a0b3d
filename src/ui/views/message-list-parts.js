// What the messages list shows when it is empty, and the text its search looks in.

import { SEND_URL } from "../api.js";
import { h } from "../dom.js";

export function noMessagesYet() {
  const curl = [
    `curl -s -X POST ${SEND_URL} \\`,
    `  -H 'Authorization: Bearer test-key-1234' -H 'Content-Type: application/json' \\`,
    `  -d '{"to": "ada@example.com", "template_id": "welcome",`,
    `       "data": {"name": "Ada", "company": "Acme", "login_url": "https://app.example.com/login"}}'`,
  ].join("\n");
  return [
    h("p", { class: "empty-title" }, "No messages yet — send one with curl:"),
    h("pre", { class: "code-block", "data-testid": "curl-example" }, curl),
    h("p", {}, "It shows up here as soon as the mock captures it."),
  ];
}

/**
 * The text `q` searches, lowercased: the same fields as the API's (searchTextOf in
 * src/domain/outbox.ts), a newline between fields so a search never matches across two.
 */
export function searchTextOf(message) {
  const fields = [message.to, ...message.cc, ...message.bcc, message.reply_to ?? "", message.subject, message.text ?? "", message.html ?? ""];
  for (const value of Object.values(message.data)) fields.push(...(Array.isArray(value) ? value : [String(value)]));
  return fields.join("\n").toLowerCase();
}

export function noMatch() {
  return h("p", { class: "empty-title" }, "No message matches these filters.");
}
