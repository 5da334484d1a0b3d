// What only the in-memory outbox does: it tells its listeners within the add itself. What every
// outbox promises, whichever store keeps it, is in test/stores/outbox-contract.ts.

import { describe, expect, it } from "vitest";
import { createMemoryOutbox } from "../../src/stores/memory/index.js";
import type { CapturedMessage } from "../../src/wire.js";
import { aMessage } from "../stores/outbox-contract.js";

describe("the in-memory outbox", () => {
  it("settles a wait within the add that captures the match", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    let resolved: CapturedMessage | undefined;
    const waiting = outbox.waitFor({ to: "grace@example.com" }, { timeoutMs: 60_000 }).then((message) => {
      resolved = message;
      return message;
    });

    const match = aMessage({ to: "grace@example.com" });
    await outbox.add(match);

    // No timer has run since the add: only the capture itself can have settled the wait.
    expect(resolved).toEqual(match);
    await expect(waiting).resolves.toEqual(match);
  });

  it("has told every capture listener by the time add resolves", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    const seen: string[] = [];
    outbox.onCapture((message) => seen.push(message.id));

    const message = aMessage();
    await outbox.add(message);

    expect(seen).toEqual([message.id]);
  });

  it("counts the text it searches and its search index against max_bytes, not the JSON alone", async () => {
    const outbox = createMemoryOutbox({ capacity: 10, maxBytes: 70_000 });
    const long = (): CapturedMessage => aMessage({ text: Array.from({ length: 3000 }, (_, index) => `w${String(index)}`).join(" ") });
    const [older, newer] = [long(), long()];
    // The first search builds the index: from then on every capture is filed in it.
    expect((await outbox.list({ q: "w1" })).total).toBe(0);
    await outbox.add(older);
    await outbox.add(newer);

    // Each JSON is about 19 KB: both would fit if only it counted.
    expect(Buffer.byteLength(JSON.stringify(newer))).toBeLessThan(35_000);
    expect((await outbox.stats()).bytes).toBeGreaterThan(2 * Buffer.byteLength(JSON.stringify(newer)));
    expect(await outbox.stats()).toMatchObject({ count: 1, dropped: 1 });
    expect((await outbox.list({ q: "w2999" })).messages.map((message) => message.id)).toEqual([newer.id]);
  });

  it("builds its search index at the first search, counts it from then on, and drops it with a clear", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    const message = aMessage({ text: "Your code is tok_123" });
    await outbox.add(message);
    const jsonBytes = Buffer.byteLength(JSON.stringify(message));
    expect((await outbox.stats()).bytes).toBe(jsonBytes);

    expect((await outbox.list({ q: "TOK_123" })).messages.map((found) => found.id)).toEqual([message.id]);
    expect((await outbox.stats()).bytes).toBeGreaterThan(jsonBytes);

    await outbox.clear();
    await outbox.add(message);
    expect((await outbox.stats()).bytes).toBe(jsonBytes);
    expect(await outbox.waitFor({ q: "tok_123" }, { timeoutMs: 100 })).toMatchObject({ id: message.id });
  });

  it("keeps finding messages by q, newest first, once its capture numbers pass 32 bits", async () => {
    const outbox = createMemoryOutbox({ capacity: 3, firstEntryNumber: 0xffff_fffd });
    const parcels = Array.from({ length: 5 }, (_, index) => aMessage({ subject: `Parcel ${String(index)}`, text: `tracking ${"k".repeat(index + 2)}` }));
    for (const parcel of parcels) await outbox.add(parcel);
    const [, , third, fourth, fifth] = parcels;

    expect((await outbox.list({ q: "parcel" })).messages.map((message) => message.id)).toEqual([fifth?.id, fourth?.id, third?.id]);
    expect((await outbox.list({ q: "kkkkk" })).messages.map((message) => message.id)).toEqual([fifth?.id, fourth?.id]);
    expect((await outbox.list({ q: "parcel 0" })).total).toBe(0);
  });
});
