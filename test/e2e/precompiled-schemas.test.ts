// The checks of the shipped documents a mock uses (captured message, webhook payload, POST /send's
// request and responses) are generated at build (ajv standalone code in dist/) and respond exactly as
// the checks compiled at run time do.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { componentPointer, operationPointer, requestBodyOf, responseBodiesOf } from "../../src/contract/document-pointers.js";
import type * as Engine from "../../src/contract/engine.js";
import type * as Load from "../../src/contract/load.js";
import { aMessage } from "../stores/outbox-contract.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const fromDist = <Module>(file: string): Promise<Module> => import(pathToFileURL(path.join(ROOT, "dist", file)).href) as Promise<Module>;
const { validatorAt: schemaValidator, compiledAtRunTime } = await fromDist<typeof Engine>("contract/engine.js");
const { ADMIN_CONTRACT, loadContract, SEND_CONTRACT } = await fromDist<typeof Load>("contract/load.js");

const A_MESSAGE = aMessage();
const sendContract = await loadContract(SEND_CONTRACT);
/** The contract's own example of a webhook delivery. */
const A_PAYLOAD = (sendContract.document.components?.schemas?.WebhookPayload?.examples as Record<string, unknown>[])[0];
const SEND = operationPointer("/send", "post");
const A_SEND = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada" } };
const AN_ERROR = { success: false, error: { code: "invalid_request", message: "Invalid request" } };

describe.each([
  {
    schema: componentPointer("CapturedMessage"),
    file: ADMIN_CONTRACT,
    values: [A_MESSAGE, { ...A_MESSAGE, status: "lost", created_at: "yesterday" }, { ...A_MESSAGE, to: ["not an address"] }, {}, null, "text"],
  },
  {
    schema: componentPointer("WebhookPayload"),
    file: SEND_CONTRACT,
    values: [A_PAYLOAD, { ...A_PAYLOAD, type: "message.lost" }, { ...A_PAYLOAD, timestamp: "yesterday", data: { to: 42 } }, {}, []],
  },
  {
    schema: requestBodyOf(sendContract.document, SEND)?.pointer ?? "(no request body)",
    file: SEND_CONTRACT,
    values: [A_SEND, { ...A_SEND, to: "a@b", cc: [1], extra: true }, { ...A_SEND, data: { name: ["x", 2] }, subject: "two\nlines" }, {}, []],
  },
  {
    schema: ((response) => (response?.kind === "json" ? response.pointer : "(no 4XX JSON body)"))(responseBodiesOf(sendContract.document, SEND).get("4XX")),
    file: SEND_CONTRACT,
    values: [AN_ERROR, { status: "error", message: "no" }, { success: false, error: { code: 42 } }, { success: true }, "text"],
  },
])("the $schema check built ahead of time", ({ schema, file, values }) => {
  it("is the one dist/ loads, not compiled at start", async () => {
    const validate = schemaValidator(await loadContract(file), schema);
    // ajv attaches its compilation environment to what it compiles at run time; standalone code has none.
    expect(validate).not.toHaveProperty("schemaEnv");
  });

  it("accepts and refuses what the run-time compile does, with the same errors", async () => {
    const contract = await loadContract(file);
    const ahead = schemaValidator(contract, schema);
    const atRunTime = compiledAtRunTime(contract, schema);
    expect(atRunTime).toHaveProperty("schemaEnv");
    const responses = values.map((value) => [ahead(value), ahead.errors, atRunTime(value), atRunTime.errors]);
    for (const [aheadValid, aheadErrors, runTimeValid, runTimeErrors] of responses) {
      expect(aheadValid).toBe(runTimeValid);
      expect(aheadErrors).toEqual(runTimeErrors);
    }
    expect(responses.map(([valid]) => valid)).toContain(true);
    expect(responses.map(([valid]) => valid)).toContain(false);
  });
});
