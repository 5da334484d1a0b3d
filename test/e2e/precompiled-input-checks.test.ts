// sendmock's own input checks (config, fault and outcome rules, webhooks) are generated at build
// (ajv standalone code in dist/): a built mock compiles none of them, at start or on a request,
// and each explains a bad value exactly as the check compiled at run time does.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type * as SchemaCheck from "../../src/contract/schema-check.js";
import { schemaCheckCompiledAtRunTime as compiledAtRunTime } from "../../src/contract/schema-check.js";
import { configSchema } from "../../src/config.js";
import { FAULT_RULE_SCHEMA } from "../../src/domain/faults.js";
import { OUTCOME_RULE_SCHEMA } from "../../src/domain/outcomes.js";
import { WEBHOOK_INPUT_SCHEMA } from "../../src/domain/webhooks.js";
import { spyOnSchemaCompiles } from "../support/schema-compiles.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { schemaCheck: builtAhead } = (await import(pathToFileURL(path.join(ROOT, "dist/contract/schema-check.js")).href)) as typeof SchemaCheck;

describe.each([
  {
    name: "config",
    schema: configSchema,
    values: [
      { port: 4010, rate_limit: { requests: 10, per_seconds: 1 } },
      { port: "x", rate_limit: { requests: 0, per_second: 1 } },
      { api_keys: ["a b"], status_codes: { teapot: 418 } },
      { rate_limit: "fast" },
      { faults: [{ fault: "server_error", match: { to: 5 } }] },
    ],
  },
  { name: "fault rule", schema: FAULT_RULE_SCHEMA, values: [{ fault: "server_error" }, { fault: "nope" }, { fault: "latency", ms: -1 }, []] },
  { name: "outcome rule", schema: OUTCOME_RULE_SCHEMA, values: [{}, { outcome: "lost" }, { match: 1 }] },
  { name: "webhook", schema: WEBHOOK_INPUT_SCHEMA, values: [{ url: "http://127.0.0.1:1/hook" }, { url: 5 }, { url: "http://x", secret: "plain" }] },
])("the $name check built ahead of time", ({ schema, values }) => {
  it("is loaded from dist/, not compiled", () => {
    const compiles = spyOnSchemaCompiles();
    const check = builtAhead(schema);
    for (const value of values) check(value);
    expect(compiles).not.toHaveBeenCalled();
    compiles.mockRestore();
  });

  it("explains each value as the run-time compile does", () => {
    const ahead = builtAhead(schema);
    const atRunTime = compiledAtRunTime(schema);
    const answers = values.map((value) => [ahead(value), atRunTime(value)]);
    for (const [fromAhead, fromRunTime] of answers) expect(fromAhead).toEqual(fromRunTime);
    expect(answers.map(([problem]) => problem)).toContainEqual(expect.objectContaining({ kind: expect.any(String) as string }));
  });
});
