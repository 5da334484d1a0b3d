// Requests for `sendmock check --generate`, drawn with fast-check from the contract's request
// schema: valid bodies (positive, to --recipient only) and bodies or HTTP framings that break one
// rule each. `data` is an open map: it gets keys and values of any script whether or not the
// template's placeholders are known.

import fc from "fast-check";
import type { OpenAPIV3_1 } from "openapi-types";
import type { ContractChecker } from "../contract/check.js";
import { parseJson } from "../domain/json.js";

type Schema = OpenAPIV3_1.SchemaObject;

/** Which rule a request breaks, and so which check judges it. */
export type RequestKind = "positive" | "negative_body" | "wrong_content_type" | "malformed_json" | "missing_auth" | "malformed_auth" | "other_method";

export interface GeneratedRequest {
  kind: RequestKind;
  /** The one rule it breaks, in words (`to: a number`, `no Authorization`); `valid` for a positive. */
  defect: string;
  method: string;
  /** `undefined` sends `Bearer <api key>`; `null` sends no Authorization; a string is sent as is. */
  authorization: string | null | undefined;
  /** Absent: no Content-Type and no body. */
  contentType?: string;
  body?: string;
}

export interface GenerationInputs {
  templateId: string;
  /** Placeholder values of the template: their keys are kept, their values generated. */
  data: Record<string, unknown>;
  /** With a recipient, valid requests are generated too, every address in them replaced by it. */
  recipient?: string;
}

/** `.invalid` never resolves (RFC 2606): a server that wrongly accepts a negative request cannot deliver it. */
const UNDELIVERABLE_DOMAIN = "example.invalid";
/** The bearer form sendmock and the security scheme accept; anything else is a malformed Authorization. */
const BEARER = /^Bearer +\S+ *$/i;

const properties = (schema: Schema): Record<string, Schema> => schema.properties ?? {};
const itemsOf = (schema: Schema): Schema | undefined => (schema as { items?: Schema }).items;
const typesOf = (schema: Schema): string[] => (schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]);

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const articles: Record<string, string> = {
  integer: "a number",
  number: "a number",
  boolean: "a boolean",
  null: "null",
  array: "an array",
  object: "an object",
};
const describeValue = (value: unknown): string =>
  typeof value === "string" ? `the string ${JSON.stringify(value)}` : (articles[jsonTypeOf(value)] ?? "a value");

/**
 * Text for string fields: ASCII half the time, any Unicode grapheme the other half (servers break
 * on both); fast-check's graphemes include astral characters and combining sequences.
 */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(fc.string({ unit: "grapheme-ascii", minLength, maxLength }), fc.string({ unit: "grapheme", minLength, maxLength }));
}

/** Whether the schema refuses members it does not name: only then is an unknown field a defect. */
export function refusesUnknownFields(schema: Schema): boolean {
  const closed = schema as { additionalProperties?: unknown; unevaluatedProperties?: unknown };
  return closed.additionalProperties === false || closed.unevaluatedProperties === false;
}

/** A value the schema accepts. Kept short: a failure is shrunk, and short values read better in a curl line. */
function validValue(schema: Schema, address: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (schema.format === "email") return address;
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type } as Schema, address)));
  switch (types[0]) {
    case "array": {
      const items = itemsOf(schema) ?? {};
      return fc.array(validValue(items, address), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    }
    case "object":
      return validObject(schema, address, {});
    default: {
      const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern, "u");
      const strings = text(schema.minLength ?? 0, Math.min(schema.maxLength ?? 24, 24));
      return pattern === undefined ? strings : strings.filter((value) => pattern.test(value));
    }
  }
}

function validObject(schema: Schema, address: fc.Arbitrary<string>, fixed: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const shape = Object.fromEntries(Object.entries(properties(schema)).map(([key, property]) => [key, fixed[key] ?? validValue(property, address)]));
  return fc.record(shape, { requiredKeys: schema.required ?? [] });
}

/** Values of every JSON type but the ones `schema` allows. */
function wrongTypeValue(schema: Schema): fc.Arbitrary<unknown> {
  const allowed = new Set(typesOf(schema).flatMap((type) => (type === "number" ? ["number", "integer"] : [type])));
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ["string", fc.string({ maxLength: 8 })],
    ["integer", fc.integer()],
    ["boolean", fc.boolean()],
    ["null", fc.constant(null)],
    ["array", fc.array(fc.integer(), { maxLength: 2 })],
    ["object", fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 })],
  ];
  return fc.oneof(...candidates.filter(([type]) => !allowed.has(type)).map(([, arbitrary]) => arbitrary));
}

/** Strings that are not email addresses, the usual mistakes first. */
const notAnAddress = fc.oneof(
  fc.constantFrom("not-an-address", "a@b", "@example.invalid", "a@", "a b@example.invalid", "a@@example.invalid", "a@example..invalid", ""),
  fc.string({ maxLength: 12 }).filter((value) => !value.includes("@")),
);

interface Mutation {
  defect: string;
  apply(body: Record<string, unknown>): unknown;
}

const setting = (key: string, value: unknown) => (body: Record<string, unknown>) => ({ ...body, [key]: value });

/** One broken rule of the request schema each: types, required, unknown fields, formats, bounds, array items, `data` values. */
function mutations(schema: Schema, dataKeys: readonly string[]): fc.Arbitrary<Mutation> {
  const fields = properties(schema);
  const names = Object.keys(fields);
  const choices: fc.Arbitrary<Mutation>[] = [
    fc.constantFrom(...(schema.required ?? []).map((key) => ({ defect: `${key} missing`, apply: (body: Record<string, unknown>) => omit(body, key) }))),
    fc.oneof(
      ...names.map((key) => wrongTypeValue(fields[key] as Schema).map((value) => ({ defect: `${key}: ${describeValue(value)}`, apply: setting(key, value) }))),
    ),
    fc.tuple(wrongTypeValue({ type: ["string", "array"] }), fc.constantFrom(...dataKeys, "zzz")).map(([value, key]) => ({
      defect: `data.${key}: ${describeValue(value)}`,
      apply: (body) => ({ ...body, data: { ...objectOrEmpty(body.data), [key]: value } }),
    })),
    fc.constant<Mutation>({
      defect: "data: an array item that is a number",
      apply: (body) => ({ ...body, data: { ...objectOrEmpty(body.data), zzz: ["a", 1] } }),
    }),
    fc
      .oneof(fc.array(fc.integer(), { maxLength: 2 }), fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null))
      .map((value) => ({ defect: `the body is ${describeValue(value)}, not an object`, apply: () => value })),
  ];
  if (refusesUnknownFields(schema)) {
    choices.push(
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }))
        .filter(([key]) => !names.includes(key))
        .map(([key, value]) => ({ defect: `unknown field ${JSON.stringify(key)}`, apply: setting(key, value) })),
    );
  }
  for (const [key, field] of Object.entries(fields)) {
    if (field.format === "email") {
      choices.push(notAnAddress.map((value) => ({ defect: `${key}: not an email address (${JSON.stringify(value)})`, apply: setting(key, value) })));
    }
    const items = itemsOf(field);
    if (items?.format === "email") {
      choices.push(
        fc
          .oneof(notAnAddress, fc.integer())
          .map((value) => ({ defect: `${key}: an item that is not an email address (${JSON.stringify(value)})`, apply: setting(key, [value]) })),
      );
    }
    const bounds = boundMutations(key, field);
    if (bounds.length > 0) choices.push(fc.constantFrom(...bounds));
  }
  return fc.oneof(...choices);
}

/** One value of each JSON type, for the coverage pass. */
const ONE_OF_EACH_TYPE: [string, unknown][] = [
  ["string", "x"],
  ["integer", 0],
  ["boolean", true],
  ["null", null],
  ["array", []],
  ["object", {}],
];

/** Each rule of the request schema broken once, with the plainest value that breaks it (Schemathesis' coverage phase). */
function coverageMutations(schema: Schema, dataKeys: readonly string[]): Mutation[] {
  const fields = properties(schema);
  const list: Mutation[] = (schema.required ?? []).map((key) => ({ defect: `${key} missing`, apply: (body: Record<string, unknown>) => omit(body, key) }));
  for (const [key, field] of Object.entries(fields)) {
    const allowed = new Set(typesOf(field));
    for (const [type, value] of ONE_OF_EACH_TYPE) {
      if (!allowed.has(type)) list.push({ defect: `${key}: ${describeValue(value)}`, apply: setting(key, value) });
    }
    if (field.format === "email") list.push({ defect: `${key}: not an email address ("not-an-address")`, apply: setting(key, "not-an-address") });
    if (itemsOf(field)?.format === "email") list.push({ defect: `${key}: an item that is not an email address (1)`, apply: setting(key, [1]) });
    list.push(...boundMutations(key, field));
  }
  if (refusesUnknownFields(schema)) list.push({ defect: `unknown field "zzz"`, apply: setting("zzz", 1) });
  for (const [, value] of ONE_OF_EACH_TYPE.filter(([type]) => type !== "string" && type !== "array")) {
    const key = dataKeys[0] ?? "zzz";
    list.push({ defect: `data.${key}: ${describeValue(value)}`, apply: (body) => ({ ...body, data: { ...objectOrEmpty(body.data), [key]: value } }) });
  }
  for (const [type, value] of ONE_OF_EACH_TYPE.filter(([type]) => type !== "object")) {
    list.push({ defect: `the body is ${type === "string" ? "a string" : describeValue(value)}, not an object`, apply: () => value });
  }
  return list;
}

/** Values just past a field's bounds: empty below minLength, one character over maxLength, one item over maxItems, a line break against the subject's pattern. */
function boundMutations(key: string, field: Schema): Mutation[] {
  const list: Mutation[] = [];
  if (field.maxItems !== undefined) {
    const tooMany = Array.from({ length: field.maxItems + 1 }, (_, index) => `a${index}@${UNDELIVERABLE_DOMAIN}`);
    list.push({ defect: `${key}: more than ${field.maxItems} items`, apply: setting(key, tooMany) });
  }
  if (field.minLength !== undefined && field.minLength > 0) list.push({ defect: `${key}: empty`, apply: setting(key, "") });
  if (field.maxLength !== undefined) {
    const tooLong = field.format === "email" ? `${"a".repeat(field.maxLength)}@${UNDELIVERABLE_DOMAIN}` : "a".repeat(field.maxLength + 1);
    list.push({ defect: `${key}: longer than ${field.maxLength} characters`, apply: setting(key, tooLong) });
  }
  if (field.pattern !== undefined) list.push({ defect: `${key}: a line break, against ${field.pattern}`, apply: setting(key, "a\nb") });
  return list;
}

function omit(body: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([name]) => name !== key));
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const JSON_TYPE = "application/json";
const WRONG_CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "application/xml", "text/html", "application/octet-stream"];
const MALFORMED_AUTHORIZATIONS = ["Basic c2VuZG1vY2s6Y2hlY2s=", "Bearer", "Token sendmock-check", "Digest username=check"];
const OTHER_METHODS = ["GET", "PUT", "PATCH", "DELETE"];

function otherMethod(method: string, valid: Record<string, unknown>): GeneratedRequest {
  // fetch sends no body with GET; a DELETE is sent bare too, as clients do.
  return method === "GET" || method === "DELETE"
    ? { kind: "other_method", defect: `method ${method}`, method, authorization: undefined }
    : request("other_method", `method ${method}`, valid, { method });
}

function request(kind: RequestKind, defect: string, body: unknown, framing: Partial<GeneratedRequest> = {}): GeneratedRequest {
  return { kind, defect, method: "POST", authorization: undefined, contentType: JSON_TYPE, body: JSON.stringify(body), ...framing };
}

/**
 * Every request `sendmock check` may generate for these inputs: without a recipient only ones the
 * contract refuses; with one, valid sends to it as well.
 */
export function requestArbitrary(requestSchema: Schema, inputs: GenerationInputs): fc.Arbitrary<GeneratedRequest> {
  const dataSchema = properties(requestSchema).data ?? {};
  const valueSchema = (typeof dataSchema.additionalProperties === "object" ? dataSchema.additionalProperties : { type: "string" }) as Schema;
  const dataKeys = Object.keys(inputs.data);
  const dataValue = validValue(valueSchema, fc.constant(""));
  const known = fc.record(Object.fromEntries(dataKeys.map((key) => [key, dataValue])));
  // Keys no template is known to have: a request that breaks another rule carries them anyway, to
  // reach a parser or renderer that breaks on them; a valid send carries them only when no
  // placeholder is known, as the spec wants every key to name one.
  const open = fc.dictionary(text(1, 12), dataValue, { maxKeys: 3, noNullPrototype: true });
  const withOpenKeys = fc.tuple(open, known).map(([extra, fixed]) => ({ ...extra, ...fixed }));
  const body = (address: fc.Arbitrary<string>, data: fc.Arbitrary<Record<string, unknown>>) =>
    validObject(requestSchema, address, { template_id: fc.constant(inputs.templateId), data });
  const undeliverable = fc.stringMatching(/^[a-z0-9]{1,10}$/).map((local) => `${local}@${UNDELIVERABLE_DOMAIN}`);
  const harmless = body(undeliverable, withOpenKeys);

  const negatives: fc.WeightedArbitrary<GeneratedRequest>[] = [
    {
      weight: 8,
      arbitrary: fc
        .tuple(harmless, mutations(requestSchema, dataKeys))
        .map(([valid, mutation]) => request("negative_body", mutation.defect, mutation.apply(valid))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(harmless, fc.constantFrom(...WRONG_CONTENT_TYPES))
        .map(([valid, contentType]) => request("wrong_content_type", `Content-Type: ${contentType}`, valid, { contentType })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(harmless, fc.nat(), fc.constantFrom("", "{", ",", "'", "}")).map(([valid, cut, junk]) => {
        const json = JSON.stringify(valid);
        const broken = json.slice(0, 1 + (cut % json.length)) + junk;
        return request("malformed_json", "malformed JSON", undefined, { body: parseJson(broken).ok ? `${broken}{` : broken });
      }),
    },
    { weight: 1, arbitrary: harmless.map((valid) => request("missing_auth", "no Authorization", valid, { authorization: null })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(harmless, fc.constantFrom(...MALFORMED_AUTHORIZATIONS))
        .map(([valid, authorization]) => request("malformed_auth", `Authorization: ${authorization}`, valid, { authorization })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(harmless, fc.constantFrom(...OTHER_METHODS)).map(([valid, method]) => otherMethod(method, valid)),
    },
  ];
  if (inputs.recipient === undefined) return fc.oneof(...negatives);
  const positive = body(fc.constant(inputs.recipient), dataKeys.length > 0 ? known : open).map((valid) => request("positive", "valid", valid));
  return fc.oneof({ weight: 6, arbitrary: positive }, ...negatives);
}

/**
 * The coverage pass, run before the random requests: every rule of the schema and of the HTTP
 * framing broken once, on the smallest valid body; with a recipient, also the smallest and the
 * fullest valid send to it. Random draws alone find a rare mistake (a number as `to`) only by luck.
 */
export function coverageRequests(requestSchema: Schema, inputs: GenerationInputs): GeneratedRequest[] {
  const smallest = { to: `sendmock-check@${UNDELIVERABLE_DOMAIN}`, template_id: inputs.templateId, data: inputs.data };
  const list: GeneratedRequest[] = [
    ...coverageMutations(requestSchema, Object.keys(inputs.data)).map((mutation) => request("negative_body", mutation.defect, mutation.apply(smallest))),
    ...WRONG_CONTENT_TYPES.map((contentType) => request("wrong_content_type", `Content-Type: ${contentType}`, smallest, { contentType })),
    request("malformed_json", "malformed JSON", undefined, { body: JSON.stringify(smallest).slice(0, -1) }),
    request("missing_auth", "no Authorization", smallest, { authorization: null }),
    ...MALFORMED_AUTHORIZATIONS.map((authorization) => request("malformed_auth", `Authorization: ${authorization}`, smallest, { authorization })),
    ...OTHER_METHODS.map((method) => otherMethod(method, smallest)),
  ];
  if (inputs.recipient === undefined) return list;
  const to = inputs.recipient;
  const fullest = { ...smallest, to, cc: [to], bcc: [to], reply_to: to, subject: "sendmock check" };
  // Success-path bugs live where real mail is rendered: a given subject, text past ASCII in the subject
  // and in every placeholder. These three come first, so that a --max-sends budget of a few still reaches them.
  const unicode = { ...smallest, to, subject: NON_ASCII, data: Object.fromEntries(Object.keys(inputs.data).map((key) => [key, NON_ASCII])) };
  return [
    request("positive", "valid", { ...smallest, to }),
    request("positive", "valid, every optional field", fullest),
    request("positive", "valid, the subject and every value past ASCII", unicode),
    ...list,
  ];
}

/** Text past ASCII that renderers and mail headers break on: Latin accents, a no-break space, CJK, an astral emoji. */
const NON_ASCII = "Zoë\u00a0Ünïcødé 日本 ✉️ 😀";

/**
 * Whether the contract accepts the request as a send: POST, a Bearer key, JSON, a body its schema
 * accepts. A negative request that turns out accepted is never sent (it might deliver mail).
 */
export function contractAccepts(checker: ContractChecker, generated: GeneratedRequest): boolean {
  if (generated.method !== "POST" || generated.body === undefined) return false;
  if (generated.authorization !== undefined && (generated.authorization === null || !BEARER.test(generated.authorization))) return false;
  if (generated.contentType?.split(";")[0]?.trim().toLowerCase() !== JSON_TYPE) return false;
  const json = parseJson(generated.body);
  return json.ok && checker.checkRequest(json.value).length === 0;
}
