// The requests `sendmock check --generate` draws from send.yaml: without --allow-send none is one
// the contract accepts, with it every valid one goes to --recipient, and the coverage pass breaks each rule.

import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createContractChecker, type ContractChecker } from "../../src/contract/check.js";
import { loadContract, SEND_CONTRACT } from "../../src/contract/load.js";
import { contractAccepts, coverageRequests, requestArbitrary, type GeneratedRequest } from "../../src/check/generate.js";
import { curlCommand } from "../../src/check/run-generated.js";

let contract: ContractChecker;
const inputs = { templateId: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } };

beforeAll(async () => {
  contract = await createContractChecker(await loadContract(SEND_CONTRACT));
});

const addressesOf = (request: GeneratedRequest): unknown[] => {
  const body = JSON.parse(request.body ?? "{}") as Record<string, unknown>;
  return [body.to, ...((body.cc as unknown[] | undefined) ?? []), ...((body.bcc as unknown[] | undefined) ?? []), body.reply_to].filter(
    (value) => value !== undefined,
  );
};

describe("generated requests", () => {
  it("without a recipient, are all ones the contract refuses, and every address in them is at example.invalid", () => {
    const requests = [
      ...coverageRequests(contract.requestSchema, inputs),
      ...fc.sample(requestArbitrary(contract.requestSchema, inputs), { seed: 3, numRuns: 500 }),
    ];
    expect(requests.filter((request) => contractAccepts(contract, request))).toEqual([]);
    for (const request of requests.filter((request) => request.kind !== "negative_body" && request.kind !== "malformed_json" && request.body !== undefined)) {
      for (const address of addressesOf(request)) expect(address).toMatch(/@example\.invalid$/);
    }
  });

  it("with a recipient, include valid sends whose every address is the recipient", () => {
    const withRecipient = { ...inputs, recipient: "qa@example.com" };
    const requests = fc.sample(requestArbitrary(contract.requestSchema, withRecipient), { seed: 5, numRuns: 300 });
    const positives = requests.filter((request) => request.kind === "positive");
    expect(positives.length).toBeGreaterThan(50);
    for (const positive of positives) {
      expect(contractAccepts(contract, positive)).toBe(true);
      expect(new Set(addressesOf(positive))).toEqual(new Set(["qa@example.com"]));
    }
  });

  it("are the same for the same seed", () => {
    const draw = (seed: number) => fc.sample(requestArbitrary(contract.requestSchema, inputs), { seed, numRuns: 20 });
    expect(draw(9)).toEqual(draw(9));
    expect(draw(9)).not.toEqual(draw(10));
  });

  it("cover each field of the request schema with a wrong type, and each required one missing", () => {
    const defects = coverageRequests(contract.requestSchema, inputs).map((request) => request.defect);
    for (const field of ["to", "template_id", "data", "cc", "bcc", "reply_to", "subject"]) expect(defects).toContain(`${field}: a number`);
    expect(defects).toEqual(expect.arrayContaining(["to missing", "template_id missing", "data missing", "no Authorization", "method GET", "malformed JSON"]));
  });
});

describe("the curl line of a failure", () => {
  it("sends the request again, the API key left in $SENDMOCK_API_KEY and quotes escaped for the shell", () => {
    const request: GeneratedRequest = {
      kind: "negative_body",
      defect: "to: a number",
      method: "POST",
      authorization: undefined,
      contentType: "application/json",
      body: `{"to":0,"data":{"name":"O'Hara"}}`,
    };
    expect(curlCommand("http://127.0.0.1:4010", request)).toBe(
      `curl -sS -i -X POST 'http://127.0.0.1:4010/send' -H "Authorization: Bearer $SENDMOCK_API_KEY" -H 'Content-Type: application/json' --data-binary '{"to":0,"data":{"name":"O'\\''Hara"}}'`,
    );
  });
});
