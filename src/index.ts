// The public API of the sendmock package: start a mock in tests, and the wire types.

import type { CheckOptions, CheckPlan, CheckReport, CheckResult, PlannedRequest } from "./check/run-check.js";

export { createSendMock, startSendMock, type RunningSendMock, type SendMock } from "./mock.js";
export { ConfigError } from "./config/check.js";
export type { LifecycleOptions } from "./config/schema.js";
export type { SendMockOptions } from "./config/resolve.js";
export type { RateLimitOptions } from "./domain/rate-limiter.js";
export { ContractError } from "./contract/load.js";
export { ApiError, DEFAULT_ERROR_STATUS, ERROR_CODES } from "./errors.js";
export type {
  ClockHandle,
  FaultsHandle,
  JournalHandle,
  OutboxHandle,
  OutcomesHandle,
  SendMockHandles,
  SettingsHandle,
  TemplatesHandle,
  WebhooksHandle,
} from "./handles/index.js";
export type { SendMockConfig } from "./handles/settings.js";
export { WaitTimeoutError, type MessageFilter, type OutboxStats, type WaitOptions } from "./domain/outbox.js";
export type { DeliveryFilter } from "./domain/webhooks.js";
export type { InspectionCall, RequestLog } from "./domain/request-log.js";
export type * from "./wire.js";
export type { paths as SendApiPaths, components as SendApiComponents } from "./generated/send-api.js";
export type { CheckOptions, CheckPlan, CheckReport, CheckResult, PlannedRequest };
export type { Waiver, WaiverMatch } from "./check/waivers.js";

/**
 * `sendmock check` as a function. Its battery (swagger-parser, fast-check and what they pull in)
 * is loaded at the first call, not with the library: a test suite that only mocks paid ~20% of
 * `import("sendmock")` for it.
 */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  const { runCheck: run } = await import("./check/run-check.js");
  return run(options);
}

/** `sendmock check --dry-run` as a function: every request `runCheck` with these options would send, in order, sending nothing. */
export async function planCheck(options: CheckOptions): Promise<CheckPlan> {
  const { planCheck: plan } = await import("./check/run-check.js");
  return plan(options);
}
