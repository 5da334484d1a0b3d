// Property-based robustness of POST /send against any JSON document and any send with wrong types: a documented response, never a 5xx, every accepted send captured once.
//
// Generated cases per run: 3,200 of the 10,000 the fuzz files send between them (two properties, 1,600 cases per response shape; see
// RUNS_PER_SHAPE in fuzz-run.ts), each followed by a valid send. fast-check draws a fresh seed every
// run and prints it, with the shrunk counterexample, when a property fails; pass it back as
// `fc.assert(..., { seed, path })` to replay (in checkProperty, fuzz-run.ts).

import fc from "fast-check";
import { it } from "vitest";
import type { SendRequest } from "../../../src/index.js";
import { anAddress, anyJson, anyString, aWelcomeSend, deepNesting, hugeArray, oddKey, oddObject, SHIPPED_TEMPLATE_IDS, wrongValue } from "./fuzz-generators.js";
import { WELCOME_DATA } from "../../support/send-calls.js";
import { countedCases, describeFuzzing, jsonRequest, PROPERTY_TIMEOUT_MS, RUNS_PER_SHAPE } from "./fuzz-run.js";

/** A valid send just over the default body_limit of 1 MB. */
const OVER_BODY_LIMIT: SendRequest = { ...aWelcomeSend(), data: { ...WELCOME_DATA, name: "x".repeat(1_100_000) } };

const { exerciseCase } = countedCases(["arbitraryJson", "wrongTypes"]);

describeFuzzing(exerciseCase, ({ checkProperty }) => {
  it(
    "answers any JSON document (scalars, arrays, odd keys, huge arrays, deep nesting) with a documented answer",
    async () => {
      const document = fc.oneof(
        { weight: 12, arbitrary: anyJson },
        { weight: 9, arbitrary: oddObject },
        { weight: 3, arbitrary: hugeArray },
        { weight: 3, arbitrary: deepNesting },
        { weight: 1, arbitrary: fc.constant(OVER_BODY_LIMIT) },
      );
      await checkProperty(document, RUNS_PER_SHAPE.arbitraryJson, jsonRequest);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "answers a send whose every field may have a wrong type, plus odd extra keys, with a documented answer",
    async () => {
      const fieldValue = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof(valid, wrongValue);
      const send = fc.tuple(
        fc.record(
          {
            to: fieldValue(anAddress),
            template_id: fieldValue(fc.constantFrom(...SHIPPED_TEMPLATE_IDS)),
            data: fieldValue(fc.dictionary(oddKey, fc.oneof(anyString, fc.array(anyString, { maxLength: 3 })), { maxKeys: 6 })),
            cc: fieldValue(fc.array(anAddress, { maxLength: 3 })),
            bcc: fieldValue(fc.array(anAddress, { maxLength: 3 })),
            reply_to: fieldValue(anAddress),
            subject: fieldValue(anyString),
          },
          { requiredKeys: [] },
        ),
        fc.option(oddObject, { nil: undefined }),
      );
      await checkProperty(send, RUNS_PER_SHAPE.wrongTypes, ([fields, extra]) => jsonRequest({ ...extra, ...fields }));
    },
    PROPERTY_TIMEOUT_MS,
  );
});
