// The trigram signature that lets a `q` search skip most messages: it may let a non-match through, never hold a match back.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayContain, signatureOf } from "../../src/domain/text-signature.js";

describe("text signatures", () => {
  it("never rules out a text that holds the query", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (before, query, after) => {
        expect(mayContain(query)(signatureOf(before + query + after))).toBe(true);
      }),
    );
  });

  it("rules out a text that lacks the query's trigrams", () => {
    const signature = signatureOf("<p>welcome to analytical engines, ada!</p>\nada@example.com");

    expect(mayContain("zanzibar7f3k")(signature)).toBe(false);
    expect(mayContain("analytical engines")(signature)).toBe(true);
  });

  it("rules nothing out for a query under three characters", () => {
    expect(mayContain("zq")(signatureOf("abc"))).toBe(true);
  });
});
