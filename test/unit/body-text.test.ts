// bodyText: what the journal keeps of a body, at most 64 KB as stored, cut between characters.

import { describe, expect, it } from "vitest";
import { bodyText, boundedViolation } from "../../src/domain/excerpt.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");
/** What `text` takes in the journal's JSON, without its quotes. */
const storedBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text)) - 2;

describe("bodyText", () => {
  it("keeps a body that fits whole", () => {
    expect(bodyText(bytes('{"to":"ada@example.com"}'), 100)).toEqual({ text: '{"to":"ada@example.com"}', truncated: false });
    expect(bodyText(bytes(""), 100)).toEqual({ text: "", truncated: false });
  });

  it("keeps the start of a longer body and says it is cut", () => {
    expect(bodyText(bytes("abcdefgh"), 5)).toEqual({ text: "abcde", truncated: true });
  });

  it("cuts between characters, never inside one", () => {
    // é is 2 bytes, 😀 is 4: a cut by bytes at 5 would fall inside the second é or the emoji.
    expect(bodyText(bytes("aééé"), 4)).toEqual({ text: "aé", truncated: true });
    expect(bodyText(bytes("ab😀"), 5)).toEqual({ text: "ab", truncated: true });
    expect(bodyText(bytes("ab😀"), 6)).toEqual({ text: "ab😀", truncated: false });
  });

  it("counts a character JSON escapes as its escape, so the stored entry stays within the bound", () => {
    const controls = bodyText(bytes("\u0001".repeat(1000)), 600);
    expect(controls).toEqual({ text: "\u0001".repeat(100), truncated: true });
    expect(storedBytes(controls.text)).toBe(600);
    expect(bodyText(bytes('"'.repeat(10)), 10)).toEqual({ text: '"'.repeat(5), truncated: true });
    expect(bodyText(bytes("\n".repeat(10)), 10)).toEqual({ text: "\n".repeat(5), truncated: true });
  });

  it("keeps whole a body whose escapes fit the bound exactly, and cuts one a byte over", () => {
    expect(bodyText(bytes(`${'"'.repeat(5)}é😀`), 16)).toEqual({ text: `${'"'.repeat(5)}é😀`, truncated: false });
    expect(bodyText(bytes(`${'"'.repeat(5)}é😀`), 15)).toEqual({ text: `${'"'.repeat(5)}é`, truncated: true });
    const large = `${"x".repeat(20_000)}\u0001`;
    expect(bodyText(bytes(large), 20_006)).toEqual({ text: large, truncated: false });
    expect(bodyText(bytes(large), 20_005)).toEqual({ text: "x".repeat(20_000), truncated: true });
  });

  it("reads bytes that are not UTF-8 as U+FFFD, and keeps a byte order mark", () => {
    expect(bodyText(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), 100)).toEqual({ text: "{\ufffd(}", truncated: false });
    expect(bodyText(bytes("\ufeff{}"), 100)).toEqual({ text: "\ufeff{}", truncated: false });
  });
});

describe("boundedViolation", () => {
  it("leaves a usual violation as it is", () => {
    expect(boundedViolation({ path: "/cc/1", message: "cc[1] is not a valid email address" })).toEqual({
      path: "/cc/1",
      message: "cc[1] is not a valid email address",
    });
  });

  it("cuts a path or message past 512 bytes of JSON, marking the cut", () => {
    const { path, message } = boundedViolation({ path: `/${"\u0001".repeat(300)}`, message: `${"\u0001".repeat(300)} is not a known field` });
    expect(path).toBe(`/${"\u0001".repeat(84)}…`);
    expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThanOrEqual(512 + 2);
    expect(message.endsWith("…")).toBe(true);
  });
});
