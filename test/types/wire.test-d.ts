// src/wire.ts held to the OpenAPI documents: each wire type equals the type openapi-typescript
// generates from its schema (src/generated/, kept up to date by test/e2e/generated-types.test.ts),
// so a type and its schema cannot disagree; and the settings the admin API takes, as the config
// declares them. Run by the `types` project (vitest's typecheck).

import { expectTypeOf, test } from "vitest";
import type { components as AdminApi } from "../../src/generated/admin-schemas.js";
import type { components as SendApi } from "../../src/generated/send-api.js";
import type { SETTINGS } from "../../src/config/declaration.js";
import type * as Wire from "../../src/wire.js";

type Send = SendApi["schemas"];
type Admin = AdminApi["schemas"];

test("the send API's bodies", () => {
  expectTypeOf<Wire.SendRequest>().toEqualTypeOf<Send["SendRequest"]>();
  expectTypeOf<Wire.TemplateData>().toEqualTypeOf<Send["TemplateData"]>();
  expectTypeOf<Wire.SendSuccessA>().toEqualTypeOf<Send["SendSuccessA"]>();
  expectTypeOf<Wire.SendSuccessB>().toEqualTypeOf<Send["SendSuccessB"]>();
  expectTypeOf<Wire.SendErrorA>().toEqualTypeOf<Send["ErrorResponseA"]>();
  expectTypeOf<Wire.SendErrorB>().toEqualTypeOf<Send["ErrorResponseB"]>();
  expectTypeOf<Wire.ErrorCode>().toEqualTypeOf<Send["ErrorCode"]>();
  // One type for the three payloads the schema tells apart (a bounce's bounce_type, a click's link).
  expectTypeOf<Send["WebhookPayload"]>().toExtend<Wire.WebhookPayload>();
  expectTypeOf<keyof Wire.WebhookPayload>().toEqualTypeOf<keyof Send["WebhookPayload"]>();
});

test("the inspection API's bodies", () => {
  expectTypeOf<Wire.FaultKind>().toEqualTypeOf<Admin["FaultKind"]>();
  // A respond rule's body is any JSON value to the schema (`body: {}`); the types say which JSON.
  expectTypeOf<Omit<Wire.FaultRuleInput, "body">>().toEqualTypeOf<Omit<Admin["FaultRuleInput"], "body">>();
  expectTypeOf<Omit<Wire.FaultRule, "body">>().toEqualTypeOf<Omit<Admin["FaultRule"], "body">>();
  expectTypeOf<keyof Wire.FaultList>().toEqualTypeOf<keyof Admin["FaultList"]>();
  expectTypeOf<Wire.Outcome>().toEqualTypeOf<Admin["Outcome"]>();
  expectTypeOf<Wire.OutcomeRuleInput>().toEqualTypeOf<Admin["OutcomeRuleInput"]>();
  expectTypeOf<Wire.OutcomeRule>().toEqualTypeOf<Admin["OutcomeRule"]>();
  expectTypeOf<Wire.OutcomeList>().toEqualTypeOf<Admin["OutcomeList"]>();
  expectTypeOf<Wire.MessageStatus>().toEqualTypeOf<Admin["MessageStatus"]>();
  expectTypeOf<Wire.MessageEventType>().toEqualTypeOf<Admin["MessageEventType"]>();
  expectTypeOf<Wire.MessageEvent>().toEqualTypeOf<Admin["MessageEvent"]>();
  expectTypeOf<Wire.EventInput>().toEqualTypeOf<Admin["EventInput"]>();
  expectTypeOf<Wire.WebhookInput>().toEqualTypeOf<Admin["WebhookInput"]>();
  expectTypeOf<Wire.Webhook>().toEqualTypeOf<Admin["Webhook"]>();
  expectTypeOf<Wire.WebhookList>().toEqualTypeOf<Admin["WebhookList"]>();
  expectTypeOf<Wire.WebhookDelivery>().toEqualTypeOf<Admin["WebhookDelivery"]>();
  expectTypeOf<Wire.WebhookDeliveryList>().toEqualTypeOf<Admin["WebhookDeliveryList"]>();
  expectTypeOf<Wire.ClockView>().toEqualTypeOf<Admin["ClockView"]>();
  expectTypeOf<Wire.SandboxList>().toEqualTypeOf<Admin["SandboxList"]>();
  expectTypeOf<Wire.ClockAdvance>().toEqualTypeOf<Admin["ClockAdvance"]>();
  expectTypeOf<Wire.CapturedMessage>().toEqualTypeOf<Admin["CapturedMessage"]>();
  expectTypeOf<Wire.MessageList>().toEqualTypeOf<Admin["MessageList"]>();
  // Only a violation's path and message go on the wire; the rest is for the words of each audience.
  expectTypeOf<Pick<Wire.Violation, "path" | "message">>().toEqualTypeOf<Admin["Violation"]>();
  type JournalViolations = "violations" | "response_violations";
  expectTypeOf<Omit<Wire.JournalEntry, JournalViolations>>().toEqualTypeOf<Omit<Admin["JournalEntry"], JournalViolations>>();
  expectTypeOf<keyof Wire.JournalEntry>().toEqualTypeOf<keyof Admin["JournalEntry"]>();
  expectTypeOf<Wire.JournalRequest>().toEqualTypeOf<Admin["JournalRequest"]>();
  expectTypeOf<Wire.JournalResponse>().toEqualTypeOf<Admin["JournalResponse"]>();
  expectTypeOf<keyof Wire.JournalList>().toEqualTypeOf<keyof Admin["JournalList"]>();
  expectTypeOf<Wire.TemplateSummary>().toEqualTypeOf<Admin["TemplateSummary"]>();
  expectTypeOf<Wire.TemplateDetail>().toEqualTypeOf<Admin["TemplateDetail"]>();
  expectTypeOf<Wire.TemplateList>().toEqualTypeOf<Admin["TemplateList"]>();
  expectTypeOf<Wire.ResponseShape>().toEqualTypeOf<Admin["ResponseShape"]>();
  expectTypeOf<Wire.RateLimitSettings>().toEqualTypeOf<Admin["RateLimitSettings"]>();
  // status_codes: the schema takes any key (a code it does not know is refused in words); the type names the codes.
  expectTypeOf<Omit<Wire.ConfigView, "status_codes">>().toEqualTypeOf<Omit<Admin["ConfigView"], "status_codes">>();
  expectTypeOf<Wire.ConfigView["status_codes"]>().toExtend<Admin["ConfigView"]["status_codes"]>();
  expectTypeOf<Wire.ConfigPatch>().toEqualTypeOf<Admin["ConfigPatch"]>();
});

test("the settings the admin API takes, as the config declares them", () => {
  // A declared key's value type (snake_case, as a file writes it), which config/resolve.ts reads as the wire's.
  type Declared<Key extends keyof typeof SETTINGS> = Exclude<(typeof SETTINGS)[Key]["value"], undefined>;
  expectTypeOf<Declared<"rate_limit">>().toEqualTypeOf<Wire.RateLimitSettings | null>();
  expectTypeOf<Declared<"response_shape">>().toEqualTypeOf<Wire.ResponseShape>();
  expectTypeOf<Declared<"strict_data">>().toEqualTypeOf<NonNullable<Wire.ConfigPatch["strict_data"]>>();
});
