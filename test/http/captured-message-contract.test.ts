// Messages are written by the inspection API as stored, so each is checked against
// openapi/admin.yaml when it is captured: a message the contract forbids is never kept.

import { describe, expect, it } from "vitest";
import { ADMIN_CONTRACT, loadContract } from "../../src/contract/load.js";
import { createMemoryOutbox } from "../../src/stores/memory/index.js";
import { ApiError } from "../../src/errors.js";
import { withCapturedMessageCheck } from "../../src/contract/captured-message.js";
import type { CapturedMessage } from "../../src/wire.js";
import { aMessage } from "../stores/outbox-contract.js";

const A_MESSAGE = aMessage();

async function aCheckedOutbox() {
  const contract = await loadContract(ADMIN_CONTRACT);
  return withCapturedMessageCheck(createMemoryOutbox({ capacity: 10 }), contract);
}

describe("capturing against openapi/admin.yaml", () => {
  it("keeps a message the contract allows", async () => {
    const outbox = await aCheckedOutbox();
    await outbox.add(A_MESSAGE);
    expect(await outbox.get(A_MESSAGE.id)).toEqual(A_MESSAGE);
  });

  it("refuses a message the contract forbids with a server_error naming each field, and keeps nothing", async () => {
    const outbox = await aCheckedOutbox();
    const broken = { ...A_MESSAGE, status: "lost", created_at: "yesterday" } as unknown as CapturedMessage;

    const refusal: unknown = await outbox.add(broken).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ApiError);
    const apiError = refusal as ApiError;
    expect(apiError.code).toBe("server_error");
    expect(apiError.message).toContain(`message ${A_MESSAGE.id} outside openapi/admin.yaml`);
    expect(apiError.message).toContain("/status");
    expect(apiError.message).toContain("/created_at");
    expect(await outbox.stats()).toMatchObject({ count: 0 });
  });
});
