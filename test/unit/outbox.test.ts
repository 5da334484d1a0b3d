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
});
