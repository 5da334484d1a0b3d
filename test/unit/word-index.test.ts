// The word index behind `q`: it may offer a text that does not hold the query, never leave out one that does, and gives its memory back.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WordIndex } from "../../src/domain/word-index.js";

/** Short texts, often the same ones and made of few pieces, so that words repeat and lists grow long and shrink again. */
const aText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(fc.constantFrom("ab", "ba", "7", " ", "-", "ü", "\u{1f600}", "_", "a\ud800"), { maxLength: 10 }).map((pieces) => pieces.join("")),
  fc.constantFrom("order 1042", "aaaaaa", "abab ab-ab", "grüße ω \u{1f600}", "a-very-long-word-of-more-than-thirteen"),
);

describe("the word index", () => {
  it("offers every text that holds the query among its candidates", () => {
    fc.assert(
      fc.property(fc.array(aText, { minLength: 1, maxLength: 20 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 12 }), (texts, which, start, length) => {
        const index = new WordIndex();
        texts.forEach((text, number) => index.add(number, text));
        const source = texts[which % texts.length] ?? "";
        const from = start % (source.length + 1);
        const query = source.slice(from, from + length);
        const candidates = index.candidates(query);

        const offered = [...(candidates ?? [])];
        texts.forEach((text, number) => {
          if (candidates !== undefined && text.includes(query)) expect(offered).toContain(number);
        });
      }),
    );
  });

  it("offers the texts with a word that holds the query's longest run, oldest first, once each", () => {
    const index = new WordIndex();
    ["order 1042 shipped", "welcome aboard", "your order 1042, order 1042"].forEach((text, number) => index.add(number, text));

    expect([...(index.candidates("order 1042") ?? [])]).toEqual([0, 2]);
    expect([...(index.candidates("rde") ?? [])]).toEqual([0, 2]);
    expect([...(index.candidates("welcome zanzibar") ?? [])]).toEqual([]);
    expect([...(index.candidates(" board") ?? [])]).toEqual([]);
  });

  it("leaves a query without two letters or digits in a row to a scan", () => {
    const index = new WordIndex();
    index.add(0, "a@b.c");

    expect(index.candidates("@b.")).toBeUndefined();
  });

  it("holds no bytes once every text is taken out again, in any order", () => {
    fc.assert(
      fc.property(fc.array(aText, { maxLength: 60 }), fc.func(fc.integer()), (texts, order) => {
        const index = new WordIndex();
        texts.forEach((text, number) => index.add(number, text));
        const numbers = texts.map((_, number) => number).sort((left, right) => order(left) - order(right));
        for (const number of numbers) index.remove(number, texts[number] ?? "");

        expect(index.bytes).toBe(0);
        for (const text of texts) expect([...(index.candidates(text) ?? [])]).toEqual([]);
      }),
    );
  });
});
