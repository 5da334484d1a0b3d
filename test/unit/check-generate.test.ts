// The requests `sendmock check --generate` draws from a contract: without --allow-send none is one
// the contract accepts, with it every valid one goes to --recipient, the coverage pass breaks each
// rule, and `data` is an open map filled with any script whether or not placeholders are known.

import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createContractChecker, type ContractChecker } from "../../src/contract/check.js";
import { loadContract, SEND_CONTRACT, SERVICE_CONTRACT } from "../../src/contract/load.js";
import { contractAccepts, coverageRequests, requestArbitrary, type GeneratedRequest } from "../../src/check/generate.js";
import { curlCommand } from "../../src/check/run-generated.js";

let contract: ContractChecker;
let published: ContractChecker;
const inputs = { templateId: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } };

beforeAll(async () => {
  contract = await createContractChecker(await loadContract(SEND_CONTRACT));
  published = await createContractChecker(await loadContract(SERVICE_CONTRACT));
});

/** The body's `data` object, or `{}` (no body, malformed JSON, a body that is no object). */
const dataOf = (request: GeneratedRequest): Record<string, unknown> => {
  let data: unknown;
  try {
    data = (JSON.parse(request.body ?? "{}") as { data?: unknown } | null)?.data;
  } catch {
    return {};
  }
  return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
};

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

describe("generated data, with no placeholder known (no --data, a target that is not sendmock)", () => {
  const noPlaceholders = { templateId: "welcome", data: {} };

  it("has keys and values, strings and arrays of strings, in ASCII and in any Unicode: astral and combining characters among them", () => {
    const requests = fc
      .sample(requestArbitrary(published.requestSchema, noPlaceholders), { seed: 11, numRuns: 400 })
      .filter((request) => request.body !== undefined);
    const members = requests.flatMap((request) => Object.entries(dataOf(request)));
    const texts = members
      .flatMap(([key, value]): unknown[] => [key, ...(Array.isArray(value) ? (value as unknown[]) : [value])])
      .filter((text): text is string => typeof text === "string");
    expect(members.length).toBeGreaterThan(100);
    expect(members.some(([, value]) => Array.isArray(value))).toBe(true);
    expect(texts.some((text) => /^[\x20-\x7e]+$/.test(text))).toBe(true);
    expect(texts.some((text) => /[\u{10000}-\u{10FFFF}]/u.test(text))).toBe(true);
    expect(texts.some((text) => /\p{M}/u.test(text))).toBe(true);
  });

  it("with a recipient, valid sends carry such data too, and the contract accepts them", () => {
    const requests = fc.sample(requestArbitrary(published.requestSchema, { ...noPlaceholders, recipient: "qa@example.com" }), { seed: 12, numRuns: 200 });
    const positives = requests.filter((request) => request.kind === "positive");
    expect(positives.some((request) => Object.keys(dataOf(request)).length > 0)).toBe(true);
    for (const positive of positives) expect(contractAccepts(published, positive)).toBe(true);
  });

  it("with placeholders known, valid sends keep to them", () => {
    const requests = fc.sample(requestArbitrary(contract.requestSchema, { ...inputs, recipient: "qa@example.com" }), { seed: 13, numRuns: 200 });
    for (const positive of requests.filter((request) => request.kind === "positive")) {
      expect(Object.keys(dataOf(positive)).sort()).toEqual(Object.keys(inputs.data).sort());
    }
  });
});

describe("what the contract refuses decides what is generated", () => {
  it("an unknown field is a defect under sendmock's contract only: the published one never says it is refused", () => {
    const defects = (checker: ContractChecker) => [
      ...coverageRequests(checker.requestSchema, inputs).map((request) => request.defect),
      ...fc.sample(requestArbitrary(checker.requestSchema, inputs), { seed: 4, numRuns: 400 }).map((request) => request.defect),
    ];
    expect(defects(contract).some((defect) => defect.startsWith("unknown field"))).toBe(true);
    expect(defects(published).filter((defect) => defect.startsWith("unknown field"))).toEqual([]);
    // No length limit is published either.
    expect(defects(published).filter((defect) => /longer than|more than \d+ items|empty$/.test(defect))).toEqual([]);
    expect(coverageRequests(published.requestSchema, inputs).filter((request) => contractAccepts(published, request))).toEqual([]);
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
