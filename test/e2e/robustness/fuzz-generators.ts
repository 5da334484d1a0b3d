// The generators the fuzz files share: awkward strings and keys, any JSON, wrong values, addresses, and a valid send with one thing changed.

import fc from "fast-check";
import type { SendRequest, TemplateData } from "../../../src/index.js";
import { WELCOME_DATA } from "../../support/send-calls.js";

export function aWelcomeSend(): SendRequest {
  return { to: "ada@example.com", template_id: "welcome", data: { ...WELCOME_DATA } };
}

/** Pieces that break naive string handling: zero-width, bidi, astral, lone surrogates, controls, markup. */
const AWKWARD_PIECES = [
  "\u200b",
  "\u200c",
  "\u200d",
  "\ufeff",
  "\u202e",
  "\u200f",
  "\u061c",
  "\u{1f600}",
  "\u{10ffff}",
  "\ud800",
  "\udfff",
  "\u0000",
  "\u0007",
  "\r\n",
  "\n",
  "\r",
  "\u2028",
  "\u0085",
  "{name}",
  "{{",
  "}}",
  "{",
  "<script>alert(1)</script>",
  "&amp;",
  '"',
  "\\",
  "'",
  "%00",
  "e\u0301",
  "\ufdfa",
  "עברית",
  "العربية",
  "𝕏",
  "@",
  "a@b",
  "ada@example.com",
  " ",
];

const awkwardString = fc
  .array(fc.oneof(fc.constantFrom(...AWKWARD_PIECES), fc.string({ unit: "binary", maxLength: 6 })), { maxLength: 8 })
  .map((pieces) => pieces.join(""));

/** What a subject or a data value may hold: anything but a line break. */
export const awkwardLine = awkwardString.map((text) => text.replace(/[\r\n]/g, ""));

const longString = fc
  .tuple(fc.constantFrom("x", "é", "\u{1f600}", "\u200b", "{name}", "<b>", "\ud800"), fc.integer({ min: 500, max: 20_000 }))
  .map(([piece, times]) => piece.repeat(times));

export const anyString = fc.oneof(
  { weight: 4, arbitrary: awkwardString },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: longString },
);

const ODD_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  " ",
  "to ",
  "TO",
  "$ref",
  "a.b",
  "a/b",
  "~1",
  "0",
  "length",
  "\u0000",
  "\u202eto",
  "data",
  "cc",
];
export const oddKey = fc.oneof(fc.constantFrom(...ODD_KEYS), awkwardString);

export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }) },
  { weight: 2, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 0.5, [], {}) },
);

/** Built with Object.fromEntries, so `__proto__` is an own key and JSON.stringify writes it. */
export const oddObject = fc.array(fc.tuple(oddKey, anyJson), { maxLength: 6 }).map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

/** Small items only: a huge array of long strings would be a body of hundreds of MB. */
export const hugeArray = fc
  .tuple(fc.oneof(fc.jsonValue({ maxDepth: 0 }), fc.constant("ada@example.com")), fc.integer({ min: 200, max: 3_000 }))
  .map(([item, length]) => Array.from({ length }, () => item));

export const deepNesting = fc.tuple(fc.integer({ min: 50, max: 2_000 }), fc.boolean()).map(([depth, inArrays]) => {
  let nested: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) nested = inArrays ? [nested] : { a: nested };
  return nested;
});

export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: anyJson },
  { weight: 2, arbitrary: oddObject },
  { weight: 1, arbitrary: hugeArray },
  { weight: 1, arbitrary: deepNesting },
);

export const anAddress = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("ada@example.com", "grace.hopper+test@mail.example.co.uk", "o'brien@example.ie", "x@example.museum") },
  { weight: 2, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: awkwardString.map((local) => `${local}@example.com`) },
  { weight: 1, arbitrary: awkwardString },
);

export const SHIPPED_TEMPLATE_IDS = ["welcome", "password-reset", "order-receipt", "newsletter"] as const;
const SEND_FIELDS = ["to", "template_id", "data", "cc", "bcc", "reply_to", "subject"] as const;
type SendField = (typeof SEND_FIELDS)[number];

// ---------------------------------------------------------------------------------------------
// Near-valid requests: a valid send of a shipped template with one thing changed.
// ---------------------------------------------------------------------------------------------

type Mutation =
  | { kind: "none" }
  | { kind: "set-field"; field: SendField; value: unknown }
  | { kind: "drop-field"; field: SendField }
  | { kind: "add-top-level-key"; key: string; value: unknown }
  | { kind: "set-data-value"; key: string | undefined; value: unknown }
  | { kind: "drop-data-value"; index: number }
  | { kind: "recipients"; field: "cc" | "bcc"; addresses: string[] };

export const aMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("set-field" as const),
      field: fc.constantFrom(...SEND_FIELDS),
      value: fc.oneof(anyString, wrongValue, anAddress, awkwardLine),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop-field" as const), field: fc.constantFrom(...SEND_FIELDS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("add-top-level-key" as const), key: oddKey, value: anyJson }) },
  {
    // A value for an existing placeholder (key undefined) or an extra key: most are accepted.
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("set-data-value" as const),
      key: fc.option(oddKey, { nil: undefined }),
      value: fc.oneof(
        { weight: 4, arbitrary: awkwardLine },
        { weight: 2, arbitrary: fc.array(awkwardLine, { maxLength: 5 }) },
        { weight: 1, arbitrary: longString },
        { weight: 1, arbitrary: wrongValue },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop-data-value" as const), index: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("recipients" as const),
      field: fc.constantFrom("cc" as const, "bcc" as const),
      addresses: fc.oneof(
        fc.array(anAddress, { maxLength: 5 }),
        fc.integer({ min: 990, max: 1_010 }).map((count) => Array.from({ length: count }, (_, index) => `r${index}@example.com`)),
      ),
    }),
  },
);

export type GeneratedSend = Record<string, unknown> & { data?: unknown };

export function applyMutation(send: GeneratedSend, mutation: Mutation): GeneratedSend {
  const mutated: GeneratedSend = { ...send, data: { ...(send.data as TemplateData) } };
  switch (mutation.kind) {
    case "none":
      return mutated;
    case "set-field":
      mutated[mutation.field] = mutation.value;
      return mutated;
    case "drop-field":
      return Object.fromEntries(Object.entries(mutated).filter(([key]) => key !== mutation.field));
    case "add-top-level-key":
      return Object.fromEntries([...Object.entries(mutated), [mutation.key, mutation.value]]);
    case "set-data-value": {
      const data = mutated.data as Record<string, unknown>;
      const key = mutation.key ?? Object.keys(data)[0] ?? "name";
      mutated.data = Object.fromEntries([...Object.entries(data), [key, mutation.value]]);
      return mutated;
    }
    case "drop-data-value": {
      const entries = Object.entries(mutated.data as Record<string, unknown>);
      mutated.data = Object.fromEntries(entries.filter((_, index) => index !== mutation.index % Math.max(entries.length, 1)));
      return mutated;
    }
    case "recipients":
      mutated[mutation.field] = mutation.addresses;
      return mutated;
  }
}
