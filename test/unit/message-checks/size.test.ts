// size: the HTML's bytes against Gmail's clipping at 102 KB.

import { describe, expect, it } from "vitest";
import { checkMessage, GMAIL_CLIP_BYTES, type MessageCheck } from "../../../src/message-checks/index.js";

function size(html: string | null): MessageCheck {
  const check = checkMessage({ subject: "Hi", html, text: "Hi" }).checks.find((candidate) => candidate.name === "size");
  if (check === undefined) throw new Error("no size check");
  return check;
}

const bodyOf = (bytes: number): string => `<p>${"x".repeat(bytes - 7)}</p>`;

describe("size", () => {
  it("fails a 120 KB body, which Gmail clips", () => {
    const check = size(bodyOf(120 * 1024));
    expect(check).toMatchObject({ status: "fail", findings: [expect.objectContaining({ severity: "fail", part: "html" })] });
    expect(check.summary).toBe("120.0 KB of HTML against Gmail's clipping at 102.0 KB");
  });

  it("passes exactly 102 KB, warns within 10% of it, passes below", () => {
    expect(GMAIL_CLIP_BYTES).toBe(102 * 1024);
    expect(size(bodyOf(GMAIL_CLIP_BYTES)).status).toBe("warn");
    expect(size(bodyOf(GMAIL_CLIP_BYTES + 1)).status).toBe("fail");
    expect(size(bodyOf(Math.floor(GMAIL_CLIP_BYTES * 0.9) + 1)).status).toBe("warn");
    expect(size(bodyOf(Math.floor(GMAIL_CLIP_BYTES * 0.9))).status).toBe("pass");
  });

  it("counts bytes as UTF-8, not characters", () => {
    // 40,000 euro signs: 40,000 characters, 120,000 bytes.
    expect(size("€".repeat(40_000)).status).toBe("fail");
  });

  it("passes a message without an HTML part", () => {
    expect(size(null)).toMatchObject({ status: "pass", findings: [] });
  });
});
