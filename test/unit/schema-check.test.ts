// sendmock's own input schemas (config, fault and outcome rules, webhooks) are valid JSON Schema:
// checked here once, since the checks compiled at start no longer check them against the meta-schema.

import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config.js";
import { FAULT_RULE_SCHEMA } from "../../src/domain/faults.js";
import { OUTCOME_RULE_SCHEMA } from "../../src/domain/outcomes.js";
import { WEBHOOK_INPUT_SCHEMA } from "../../src/domain/webhooks.js";

describe("sendmock's input schemas", () => {
  it.each([
    ["the config", configSchema],
    ["a fault rule", FAULT_RULE_SCHEMA],
    ["an outcome rule", OUTCOME_RULE_SCHEMA],
    ["a webhook", WEBHOOK_INPUT_SCHEMA],
  ])("%s schema fits the JSON Schema meta-schema", (_name, schema) => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
  });
});
