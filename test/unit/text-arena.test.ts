// The text arena behind the memory stores: every text stored reads back whole, across chunk ends, in any script, large or small.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TextArena } from "../../src/stores/memory/text-arena.js";

const store = (arena: TextArena, text: string) => arena.store(text, Buffer.byteLength(text));

describe("the text arena", () => {
  it("gives back each text as it was stored, with its UTF-8 length", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.string({ unit: "grapheme", maxLength: 200 }), fc.constantFrom("grüße ω \u{1f600}", "…0001")), { maxLength: 50 }),
        (texts) => {
          const arena = new TextArena();
          const spans = texts.map((text) => store(arena, text));
          spans.forEach((span, index) => {
            expect(span.text()).toBe(texts[index]);
            expect(span.byteLength).toBe(Buffer.byteLength(texts[index] ?? ""));
          });
        },
      ),
    );
  });

  it("keeps texts whole where a chunk ends, and a large text in a buffer of its own", () => {
    const arena = new TextArena();
    // ~1.9 KB texts, a message's size: 300 of them fill two 256 KB chunks and start a third.
    const texts = Array.from({ length: 300 }, (_, index) => `${String(index)}:${"é".repeat(600)}${"x".repeat(700)}`);
    const large = "L".repeat(100_000);
    const spans = [...texts, large, ...texts].map((text) => store(arena, text));
    expect(spans.map((span) => span.text())).toEqual([...texts, large, ...texts]);
    expect(new Set(spans.map((span) => span.chunk)).size).toBeGreaterThan(2);
    expect(spans[300]?.chunk.byteLength).toBe(100_000);
  });

  it("starts a new chunk after a reset, leaving what was stored readable", () => {
    const arena = new TextArena();
    const before = store(arena, "before");
    arena.reset();
    const after = store(arena, "after");
    expect(after.chunk).not.toBe(before.chunk);
    expect([before.text(), after.text()]).toEqual(["before", "after"]);
  });
});
