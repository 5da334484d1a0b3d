// Property-based robustness of POST /send against a valid send of a shipped template with one thing changed: accepted or rejected as documented, and an accepted one captured as sent.
//
// Generated cases per run: 3,600 of the 10,000 the fuzz files send between them (one property, 1,800 cases per response shape; see
// RUNS_PER_SHAPE in fuzz-run.ts), each followed by a valid send. fast-check draws a fresh seed every
// run and prints it, with the shrunk counterexample, when a property fails; pass it back as
// `fc.assert(..., { seed, path })` to replay (in the property's own fc.assert below).

import type http from "node:http";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import type { RunningSendMock } from "../../../src/index.js";
import { aMutation, applyMutation, awkwardLine, SHIPPED_TEMPLATE_IDS, type GeneratedSend } from "./fuzz-generators.js";
import { countedCases, describeFuzzing, jsonRequest, PROPERTY_TIMEOUT_MS, RUNS_PER_SHAPE } from "./fuzz-run.js";

const aValidSend = fc.record({
  templateId: fc.constantFrom(...SHIPPED_TEMPLATE_IDS),
  cc: fc.option(fc.array(fc.constantFrom("grace@example.com", "linus@example.org"), { maxLength: 2 }), { nil: undefined }),
  replyTo: fc.option(fc.constant("support@example.com"), { nil: undefined }),
  subject: fc.option(
    awkwardLine.filter((line) => line.length > 0),
    { nil: undefined },
  ),
});

const { exerciseCase } = countedCases(["nearValid"]);

describeFuzzing(exerciseCase, ({ started }) => {
  let mock: RunningSendMock;
  let agent: http.Agent;

  beforeAll(() => {
    ({ mock, agent } = started());
  });

  it(
    "accepts or rejects a valid send with one field changed, and captures what an accepted one said",
    async () => {
      let accepted = 0;
      const countBefore = (await mock.outbox.stats()).count;
      await fc.assert(
        fc.asyncProperty(aValidSend, aMutation, async (valid, mutation) => {
          const template = mock.templates.get(valid.templateId);
          expect(template?.sampleData, `${valid.templateId} has sample_data`).toBeDefined();
          const send: GeneratedSend = {
            to: "ada@example.com",
            template_id: valid.templateId,
            data: { ...template?.sampleData },
            ...(valid.cc !== undefined && { cc: valid.cc }),
            ...(valid.replyTo !== undefined && { reply_to: valid.replyTo }),
            ...(valid.subject !== undefined && { subject: valid.subject }),
          };
          const request = applyMutation(send, mutation);
          const { response, captured } = await exerciseCase(mock, agent, jsonRequest(request));
          if (captured === undefined) return;
          accepted += 1;
          expect(response.status).toBe(200);
          expect(captured.to).toBe(request.to);
          expect(captured.template_id).toBe(request.template_id);
          if (typeof request.subject === "string") expect(captured.subject).toBe(request.subject);
          expect(captured.subject, "a captured subject never holds a line break").not.toMatch(/[\r\n]/);
        }),
        { numRuns: RUNS_PER_SHAPE.nearValid },
      );
      expect((await mock.outbox.stats()).count).toBe(countBefore + accepted + RUNS_PER_SHAPE.nearValid);
      // Most near-valid cases must reach the 2xx path, or the property says little about it.
      expect(accepted).toBeGreaterThan(RUNS_PER_SHAPE.nearValid / 4);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
