// sendmock's own input checks (config, and admin.yaml's fault and outcome rules and webhooks) are
// generated at build (ajv standalone code in dist/): a built mock compiles none of them, at start
// or on a request, and each explains a bad value exactly as the check compiled at run time does.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { componentPointer } from "../../src/contract/document-pointers.js";
import type * as Engine from "../../src/contract/engine.js";
import { compiledAtRunTime as documentCompiledAtRunTime } from "../../src/contract/engine.js";
import type * as Load from "../../src/contract/load.js";
import { ADMIN_CONTRACT, readContractNow } from "../../src/contract/load.js";
import type * as SchemaCheck from "../../src/contract/schema-check.js";
import { checkWith, schemaCheckCompiledAtRunTime as compiledAtRunTime } from "../../src/contract/schema-check.js";
import { configSchema } from "../../src/config/schema.js";
import { spyOnSchemaCompiles } from "../support/schema-compiles.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const built = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(ROOT, "dist/contract", file)).href)) as T;
const { schemaCheck: builtAhead, checkWith: builtCheckWith } = await built<typeof SchemaCheck>("schema-check.js");
const { validatorAt: builtValidatorAt } = await built<typeof Engine>("engine.js");
const { readContractNow: builtReadContractNow } = await built<typeof Load>("load.js");

/** admin.yaml's component `name`, checked as the library and a config check a rule: built ahead, and compiled at run time. */
function adminComponent(name: string) {
  const pointer = componentPointer(name);
  return {
    ahead: () => builtCheckWith(() => builtValidatorAt(builtReadContractNow(ADMIN_CONTRACT), pointer, "input")),
    atRunTime: () => checkWith(() => documentCompiledAtRunTime(readContractNow(ADMIN_CONTRACT), pointer, "input")),
  };
}

describe.each([
  {
    name: "config",
    ahead: () => builtAhead(configSchema),
    atRunTime: () => compiledAtRunTime(configSchema),
    values: [
      { port: 4010, rate_limit: { requests: 10, per_seconds: 1 } },
      { port: "x", rate_limit: { requests: 0, per_second: 1 } },
      { api_keys: ["a b"], status_codes: { teapot: 418 } },
      { rate_limit: "fast" },
      { faults: [{ fault: "server_error", match: { to: 5 } }] },
    ],
  },
  { name: "fault rule", ...adminComponent("FaultRuleInput"), values: [{ fault: "server_error" }, { fault: "nope" }, { fault: "latency", ms: -1 }, []] },
  { name: "outcome rule", ...adminComponent("OutcomeRuleInput"), values: [{}, { outcome: "lost" }, { match: 1 }] },
  { name: "webhook", ...adminComponent("WebhookInput"), values: [{ url: "http://127.0.0.1:1/hook" }, { url: 5 }, { url: "http://x", secret: "plain" }] },
])("the $name check built ahead of time", ({ ahead: aheadCheck, atRunTime: runTimeCheck, values }) => {
  it("is loaded from dist/, not compiled", () => {
    const compiles = spyOnSchemaCompiles();
    const check = aheadCheck();
    for (const value of values) check(value);
    expect(compiles).not.toHaveBeenCalled();
    compiles.mockRestore();
  });

  it("explains each value as the run-time compile does", () => {
    const ahead = aheadCheck();
    const atRunTime = runTimeCheck();
    const responses = values.map((value) => [ahead(value), atRunTime(value)]);
    for (const [fromAhead, fromRunTime] of responses) expect(fromAhead).toEqual(fromRunTime);
    expect(responses.map(([problem]) => problem)).toContainEqual(expect.objectContaining({ message: expect.any(String) as string }));
  });
});
