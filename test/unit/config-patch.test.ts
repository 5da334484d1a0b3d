// The settings PATCH /_mock/config may change are held by admin.yaml's ConfigPatch to the bounds the config declares for them.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SETTINGS } from "../../src/config/declaration.js";
import { DECLARED_SETTINGS } from "../../src/config/schema.js";

type Schema = Record<string, unknown>;

const ROOT = path.resolve(import.meta.dirname, "../..");
const { components } = parse(readFileSync(path.join(ROOT, "openapi/admin.yaml"), "utf8")) as { components: { schemas: Record<string, Schema> } };

/** What a value must be, without the words about it: descriptions, titles and examples dropped, `$ref`s followed. */
function bounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bounds);
  if (schema === null || typeof schema !== "object") return schema;
  const { $ref: ref } = schema as { $ref?: string };
  if (ref !== undefined) return bounds(components.schemas[ref.replace("#/components/schemas/", "")]);
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !["description", "title", "examples"].includes(key))
      .map(([key, inner]) => [key, key === "required" ? [...(inner as string[])].sort() : bounds(inner)]),
  );
}

/** A schema that takes null or a value: the branch of the value. */
function valueBranch(schema: unknown): unknown {
  const { anyOf, oneOf } = schema as { anyOf?: Schema[]; oneOf?: Schema[] };
  return (anyOf ?? oneOf ?? []).find((branch) => (bounds(branch) as Schema).type !== "null");
}

describe("admin.yaml's ConfigPatch", () => {
  const patch = components.schemas.ConfigPatch as { properties: Record<string, unknown> };

  it("names the settings that may change at run time, each shown by GET /_mock/config as running", () => {
    const running = DECLARED_SETTINGS.flatMap(([key, declaration]) => (declaration.view === "running" ? [key] : []));
    expect(Object.keys(patch.properties).sort()).toEqual(running.sort());
  });

  it("takes the response shape and strict data as the config does", () => {
    // The contract also says its values are strings, which the config's enum of strings says by itself.
    expect((bounds(patch.properties.response_shape) as Schema).enum).toEqual((bounds(SETTINGS.response_shape.schema) as Schema).enum);
    expect(bounds(patch.properties.strict_data)).toEqual(bounds(SETTINGS.strict_data.schema));
  });

  it("bounds a rate limit as the config does", () => {
    expect(bounds(valueBranch(patch.properties.rate_limit))).toEqual(bounds(valueBranch(SETTINGS.rate_limit.schema)));
  });
});
