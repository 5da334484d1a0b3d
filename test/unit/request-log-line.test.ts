// The text form of a request log line: what it shows, and that a value can never split or fake a line.

import { describe, expect, it } from "vitest";
import { textLineOf, type RequestRecord } from "../../src/commands/log.js";

const AT = new Date(2026, 10, 22, 9, 5, 7, 42).getTime();

function aRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    time: AT,
    method: "POST",
    path: "/send",
    status: 200,
    error_code: null,
    message_id: "msg_1",
    to: "ada@example.com",
    template_id: "welcome",
    fault: null,
    duration_ms: 3.21,
    api_key_hint: "0001",
    ...overrides,
  };
}

describe("a text request line", () => {
  it("shows the local time, method, path, status, message id, to, template_id, key hint and milliseconds", () => {
    expect(textLineOf(aRecord())).toBe("09:05:07.042 POST /send 200 msg_1 to=ada@example.com template_id=welcome key=…0001 3.2ms");
  });

  it("shows the error code in place of the message id, and the fault when one was injected", () => {
    const line = textLineOf(aRecord({ status: 503, error_code: "server_error", message_id: null, fault: "server_error" }));
    expect(line).toBe("09:05:07.042 POST /send 503 server_error to=ada@example.com template_id=welcome fault=server_error key=…0001 3.2ms");
  });

  it("leaves out what the request did not have, and shows - when there was no answer", () => {
    expect(textLineOf(aRecord({ status: 0, message_id: null, to: null, template_id: null, api_key_hint: null }))).toBe("09:05:07.042 POST /send 0 - 3.2ms");
  });

  it("quotes a value with a space, a quote or a control character, so it cannot split the line or fake a field", () => {
    const line = textLineOf(aRecord({ to: 'a b\n09:00:00.000 POST /send 200 "x" \u202e\u2028' }));
    expect(line).toContain(String.raw`to="a b\n09:00:00.000 POST /send 200 \"x\" \u202e\u2028"`);
    expect(line.split("\n")).toHaveLength(1);
  });

  it("is the line of a /_mock call when there is no error code or message id", () => {
    expect(textLineOf({ time: AT, method: "GET", path: "/_mock/messages", status: 200, duration_ms: 12.34 })).toBe(
      "09:05:07.042 GET /_mock/messages 200 12.3ms",
    );
  });
});
