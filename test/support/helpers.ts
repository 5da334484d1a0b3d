// Builders and assertions shared by the tests: requests, mocks, and the contract check of responses.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, beforeEach, expect, onTestFinished } from "vitest";
import YAML from "yaml";
import { explained, inOneLine } from "../../src/contract/explained.js";
import { violationsFrom } from "../../src/contract/violations.js";
import { createSendMock, startSendMock, type RunningSendMock, type SendMock, type SendMockOptions, type SendRequest } from "../../src/index.js";
import type { HandleScope } from "../../src/handles/index.js";
import { createSendMockAndScope } from "../../src/mock.js";

export const SHIPPED_TEMPLATES = fileURLToPath(new URL("../../fixtures/templates", import.meta.url));
export const API_KEY = "test-key-0001";

/** A valid send of the shipped `welcome` template; override any field. */
export function aSendRequest(overrides: Partial<SendRequest> = {}): SendRequest {
  return {
    to: "ada@example.com",
    template_id: "welcome",
    data: { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" },
    ...overrides,
  };
}

export function bearer(key = API_KEY): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** A mock on the shipped templates, not listening, without a template watcher. */
export function aMock(options: SendMockOptions = {}): Promise<SendMock> {
  return createSendMock({ watchTemplates: false, ...options });
}

/** A mock listening on a free port, not watching its templates; the caller closes it. */
export function aRunningMock(options: SendMockOptions = {}): Promise<RunningSendMock> {
  return startSendMock({ port: 0, watchTemplates: false, ...options });
}

/** A mock closed when the current test finishes (for tests whose options differ from their neighbours'). */
export async function aMockForThisTest(options: SendMockOptions = {}): Promise<SendMock> {
  const mock = await aMock(options);
  onTestFinished(() => mock.close());
  return mock;
}

/** A mock closed when the current test finishes, with the scope its handles act on: for a test that puts messages in the outbox as a send does. */
export async function aMockAndScopeForThisTest(options: SendMockOptions = {}): Promise<{ mock: SendMock; scope: HandleScope }> {
  const built = await createSendMockAndScope({ watchTemplates: false, ...options });
  onTestFinished(() => built.mock.close());
  return built;
}

/** A running mock closed when the current test finishes. */
export async function aRunningMockForThisTest(options: SendMockOptions = {}): Promise<RunningSendMock> {
  const mock = await aRunningMock(options);
  onTestFinished(() => mock.close());
  return mock;
}

/** One mock for the tests of the enclosing describe, made by `build`: built once, reset before each test, closed at the end. */
export function sharedMockBuiltBy<M extends SendMock>(build: () => Promise<M>): () => M {
  let mock: M | undefined;
  beforeAll(async () => {
    mock = await build();
  });
  beforeEach(async () => {
    await mock?.reset();
  });
  afterAll(async () => {
    await mock?.close();
  });
  return () => {
    if (mock === undefined) throw new Error("the shared mock was not built");
    return mock;
  };
}

/**
 * One mock on the shipped templates for the tests of the enclosing describe, reset before each
 * test (outbox, journal, faults, rate limiter, settings). For tests that only send, read and
 * PATCH settings; a test that waits, spies, changes templates or other options builds its own.
 */
export function sharedMock(options: SendMockOptions = {}): () => SendMock {
  return sharedMockBuiltBy(() => aMock(options));
}

type ContractName = "send" | "admin";

/** Which operation a response is checked against: POST /send of the send contract unless told. */
interface ContractPlace {
  contract?: ContractName;
  method?: string;
  path?: string;
}

interface ResponseCheck {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The raw body, which is what a non-JSON response is checked by. */
  text?: string;
}

/**
 * The oracle's own validators, compiled from the documents as swagger-parser dereferences them, not
 * the engine's: a judge that shares the engine's compiling would pass what the engine gets wrong.
 * Only the words of a failure are the engine's (its one translator), so a test says what broke
 * the way sendmock would.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv, { mode: "full" });

/** A failed validation in the engine's words: `/message_id message_id is required; /to must match format "email"`. */
function failureWords(validate: ValidateFunction, value: unknown): string {
  return inOneLine(violationsFrom(validate.errors ?? [], value).map((violation) => explained(violation, value, "")));
}

async function loadDereferenced(name: ContractName): Promise<OpenAPIV3_1.Document> {
  const file = fileURLToPath(new URL(`../../openapi/${name}.yaml`, import.meta.url));
  return (await SwaggerParser.dereference(YAML.parse(readFileSync(file, "utf8")) as OpenAPIV3_1.Document)) as OpenAPIV3_1.Document;
}

const documents = new Map<ContractName, Promise<OpenAPIV3_1.Document>>();
const validators = new Map<object, ValidateFunction>();

function compiled(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

function responseFor(operation: OpenAPIV3_1.OperationObject, status: number): OpenAPIV3_1.ResponseObject | undefined {
  const responses = operation.responses ?? {};
  const found = responses[String(status)] ?? responses[`${String(status)[0] ?? ""}XX`] ?? responses.default;
  return found as OpenAPIV3_1.ResponseObject | undefined;
}

/**
 * What in a response breaks the contract for `method path`, one sentence each; empty when it is
 * one the contract allows: a documented status, a body matching its schema, documented headers
 * matching theirs, and for an error the `X-Sendmock-Error-Code` header. The validator in the app
 * cannot check the error bodies it writes itself.
 */
export async function contractViolations(response: ResponseCheck, where: ContractPlace = {}): Promise<string[]> {
  const name = where.contract ?? "send";
  let document = documents.get(name);
  if (!document) {
    document = loadDereferenced(name);
    documents.set(name, document);
  }
  const path = where.path ?? "/send";
  const method = (where.method ?? "post").toLowerCase();
  const pathItem = (await document).paths?.[path] as Record<string, unknown> | undefined;
  const operation = pathItem?.[method] as OpenAPIV3_1.OperationObject | undefined;
  if (operation === undefined) return [`${method} ${path} is not in the ${name} contract`];
  const documented = responseFor(operation, response.status);
  if (documented === undefined) return [`status ${response.status} is not documented for ${method} ${path}`];
  if (response.status === 204) return [];
  const contentType = String(response.headers["content-type"] ?? "").split(";")[0] ?? "";
  const media = documented.content?.[contentType];
  if (media === undefined) return [`${contentType} is not documented for ${response.status}`];
  const violations: string[] = [];
  if (media.schema) {
    const validate = compiled(media.schema);
    const body = contentType.endsWith("json") ? response.body : (response.text ?? response.body);
    if (!validate(body)) violations.push(`body does not match the contract: ${failureWords(validate, body)}\n${JSON.stringify(body)}`);
  }
  violations.push(...headerViolations(response, documented));
  if (response.status >= 400 && typeof response.headers["x-sendmock-error-code"] !== "string") {
    violations.push("an error answer lacks X-Sendmock-Error-Code");
  }
  return violations;
}

/** Asserts that a response is one the contract allows for `method path` (see contractViolations). */
export async function expectContract(response: ResponseCheck, where: ContractPlace = {}): Promise<void> {
  expect(await contractViolations(response, where), `what breaks the contract in the ${response.status} answer`).toEqual([]);
}

/** A header's text as the value its schema describes: an integer header must be written as one. */
function headerValue(text: string, schema: { type?: unknown }): unknown {
  if (schema.type === "integer" || schema.type === "number") return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  return text;
}

/**
 * Every header the contract documents for this response that is missing though required, or
 * present and off its schema: the app's validator looks at bodies only, so a
 * `RateLimit-Reset: NaN` or `1e+308` would otherwise pass.
 */
function headerViolations(response: ResponseCheck, documented: OpenAPIV3_1.ResponseObject): string[] {
  const violations: string[] = [];
  for (const [name, header] of Object.entries(documented.headers ?? {}) as [string, OpenAPIV3_1.HeaderObject][]) {
    const raw = response.headers[name.toLowerCase()];
    if (raw === undefined) {
      if (header.required === true) violations.push(`${name} is required for ${response.status}`);
      continue;
    }
    const schema = (header.schema ?? {}) as { type?: unknown };
    const validate = compiled(schema);
    const value = headerValue(String(raw), schema);
    if (!validate(value)) {
      violations.push(`header ${name}: ${JSON.stringify(raw)} does not match the contract: ${failureWords(validate, value)}`);
    }
  }
  return violations;
}

/** The error code of a response in either shape, read from the header every error carries. */
export function errorCodeOf(response: ResponseCheck): string | undefined {
  const code = response.headers["x-sendmock-error-code"];
  return typeof code === "string" ? code : undefined;
}
