// A `respond` rule's body nests at most max_respond_depth levels: deeper is refused naming the
// field, wherever the rule comes from, and nothing is kept.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { ApiError, type FaultRuleInput, type JsonValue } from "../../src/index.js";
import { aConfigFile, configErrorOf } from "../support/config-files.js";
import { aMockForThisTest, aSendRequest, bearer, sharedMock } from "../support/helpers.js";

/** `depth` arrays (or objects `{"a": ...}`) around a string. */
function nested(depth: number, kind: "arrays" | "objects"): Exclude<JsonValue, null> {
  let value: Exclude<JsonValue, null> = "x";
  for (let level = 0; level < depth; level += 1) value = kind === "arrays" ? [value] : { a: value };
  return value;
}

const DEPTH_WORDS = "body nests deeper than max_respond_depth (100 levels of arrays and objects)";

describe("a respond rule's body", () => {
  const theMock = sharedMock();

  it.each(["arrays", "objects"] as const)(
    "nesting 2000 %s deep is refused by POST /_mock/faults with 400 naming the field; nothing is kept and every call answers",
    async (kind) => {
      const mock = theMock();
      const rule = JSON.stringify({ fault: "respond", status: 200, body: nested(2000, kind) });

      const added = await request(mock.app).post("/_mock/faults").set("Content-Type", "application/json").send(rule);

      expect(added.status).toBe(400);
      expect(added.body).toMatchObject({ error: { code: "invalid_request", message: `Invalid fault rule: ${DEPTH_WORDS}` } });
      const listed = await request(mock.app).get("/_mock/faults");
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ faults: [] });
      expect((await request(mock.app).post("/send").set(bearer()).send(aSendRequest())).status).toBe(200);
    },
  );

  it("nesting 2000 deep is refused by mock.faults.add in the same words, and nothing is kept", async () => {
    const mock = theMock();
    const refusal: unknown = await mock.faults.add({ fault: "respond", status: 200, body: nested(2000, "arrays") }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).message).toBe(`Invalid fault rule: ${DEPTH_WORDS}`);
    expect(await mock.faults.list()).toEqual([]);
  });

  it("nesting 2000 deep in a config file stops the start with one line naming the rule", async () => {
    const rule: FaultRuleInput = { fault: "respond", status: 200, body: nested(2000, "objects") };
    const file = await aConfigFile("sendmock.json", JSON.stringify({ faults: [rule] }));

    expect(configErrorOf(() => resolveConfig({ config: file }))).toBe(`config file ${file}: faults[0]: ${DEPTH_WORDS}`);
  });

  it("is answered exactly as given up to the bound, max_respond_depth being a setting", async () => {
    const mock = await aMockForThisTest({ maxRespondDepth: 3 });
    const refused = await request(mock.app)
      .post("/_mock/faults")
      .send({ fault: "respond", status: 200, body: nested(4, "arrays") });
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      "Invalid fault rule: body nests deeper than max_respond_depth (3 levels of arrays and objects)",
    );

    expect(
      (
        await request(mock.app)
          .post("/_mock/faults")
          .send({ fault: "respond", status: 200, body: nested(3, "arrays") })
      ).status,
    ).toBe(201);
    const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest());
    expect(response.text).toBe(JSON.stringify(nested(3, "arrays")));
  });

  it("nesting as deep as the largest max_respond_depth (1000) is kept, listed and answered", async () => {
    const mock = await aMockForThisTest({ maxRespondDepth: 1000 });
    const body = nested(1000, "objects");

    await mock.faults.add({ fault: "respond", status: 200, body });

    expect((await request(mock.app).get("/_mock/faults")).status).toBe(200);
    const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest());
    expect(response.status).toBe(200);
    expect(response.text).toBe(JSON.stringify(body));
  });
});
