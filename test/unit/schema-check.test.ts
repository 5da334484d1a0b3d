// sendmock's own input schemas (config, fault and outcome rules, webhooks) are valid JSON Schema:
// checked here once, since the checks compiled at start no longer check them against the meta-schema.

import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { ADMIN_CONTRACT, readContractNow } from "../../src/contract/load.js";

/** The rules' schemas are admin.yaml's components (their `$ref`s point within the document). */
const adminSchema = (name: string): object => readContractNow(ADMIN_CONTRACT).document.components?.schemas?.[name] ?? {};

describe("sendmock's input schemas", () => {
  it.each([
    ["the config", configSchema],
    ["a fault rule", adminSchema("FaultRuleInput")],
    ["an outcome rule", adminSchema("OutcomeRuleInput")],
    ["a webhook", adminSchema("WebhookInput")],
  ])("%s schema fits the JSON Schema meta-schema", (_name, schema) => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
  });
});
