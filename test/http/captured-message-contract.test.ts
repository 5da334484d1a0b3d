// Messages are written by the inspection API as stored, so each is checked against
// openapi/admin.yaml when it is captured: a message the contract forbids is never kept.

import { describe, expect, it } from "vitest";
import { ADMIN_CONTRACT, loadContract } from "../../src/contract.js";
import { createMemoryOutbox } from "../../src/domain/outbox.js";
import { ApiError } from "../../src/errors.js";
import { withCapturedMessageCheck } from "../../src/http/captured-message-contract.js";
import type { CapturedMessage } from "../../src/wire.js";

const A_MESSAGE: CapturedMessage = {
  id: "msg_0f8fad5b-d9cb-469f-a165-70867728950e",
  status: "queued",
  created_at: "2025-03-14T09:00:00.000Z",
  to: "ada@example.com",
  cc: [],
  bcc: [],
  reply_to: null,
  template_id: "welcome",
  subject: "Welcome to Acme, Ada!",
  html: "<p>Hi Ada</p>",
  text: "Hi Ada",
  data: { name: "Ada" },
  warnings: [],
  links: [],
  api_key_hint: "0001",
};

async function aCheckedOutbox() {
  const { document } = await loadContract(ADMIN_CONTRACT);
  return withCapturedMessageCheck(createMemoryOutbox({ capacity: 10 }), document);
}

describe("capturing against openapi/admin.yaml", () => {
  it("keeps a message the contract allows", async () => {
    const outbox = await aCheckedOutbox();
    await outbox.add(A_MESSAGE);
    expect(await outbox.get(A_MESSAGE.id)).toEqual(A_MESSAGE);
  });

  it("refuses a message the contract forbids with a server_error naming each field, and keeps nothing", async () => {
    const outbox = await aCheckedOutbox();
    const broken = { ...A_MESSAGE, status: "sent", created_at: "yesterday" } as unknown as CapturedMessage;

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
