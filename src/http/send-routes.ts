// POST /send, the emulated API: every step of the pipeline, validated from openapi/send.yaml.

import { randomUUID } from "node:crypto";
import contentType from "content-type";
import express, { type NextFunction, type Request, type Response } from "express";
import type { OpenAPIV3_1 } from "openapi-types";
import { apiKeyHint, type KeyCheck } from "../domain/api-keys.js";
import type { Journal } from "../domain/journal.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { SendService } from "../domain/send.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { SendRequest } from "../wire.js";
import { requireApiKey } from "./auth.js";
import { successBody, writeError } from "./error-shapes.js";
import { injectFaults, limitRate, type FaultStepDeps } from "./fault-steps.js";
import { sendRecordOf } from "./request-record.js";
import { contractValidator } from "./contract-validator.js";
import { toApiError } from "./validation-errors.js";

export interface SendRoutesDeps extends FaultStepDeps {
  contract: OpenAPIV3_1.Document;
  limiter: RateLimiter;
  keys: KeyCheck;
  settings: SettingsStore;
  sendService: SendService;
  journal: Journal;
  bodyLimitBytes: number;
  statusCodes: Partial<Record<ErrorCode, number>>;
  log: (line: string) => void;
}

export const WARNING_HEADER = "X-Sendmock-Warning";

/** Header values must be printable ASCII; anything else from the request is escaped. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function journalRecorder(journal: Journal) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const record = sendRecordOf(res);
    res.once("close", () => {
      const body = req.body as Partial<Record<string, unknown>> | undefined;
      const field = (name: string): string | null => {
        const value = body?.[name];
        return typeof value === "string" ? value : null;
      };
      void journal.record({
        id: `req_${randomUUID()}`,
        at: new Date().toISOString(),
        method: req.method,
        path: req.path,
        status: res.headersSent ? res.statusCode : 0,
        error_code: (record.errorCode ?? null) as ErrorCode | null,
        error_message: record.errorMessage ?? null,
        violations: [...record.violations],
        fault: record.fault ?? null,
        message_id: record.messageId ?? null,
        duration_ms: Math.round((performance.now() - record.startedAt) * 1000) / 1000,
        api_key_hint: record.apiKey === undefined ? null : apiKeyHint(record.apiKey),
        to: field("to"),
        template_id: field("template_id"),
      });
    });
    next();
  };
}

function requireJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const header = req.get("content-type");
  let type: string | undefined;
  try {
    type = header === undefined ? undefined : contentType.parse(header).type;
  } catch {
    type = undefined;
  }
  if (type === "application/json") {
    next();
    return;
  }
  const found = header === undefined ? "no Content-Type" : `Content-Type ${JSON.stringify(header)}`;
  next(
    new ApiError("unsupported_media_type", `Unsupported media type: the body must be sent as application/json, got ${found}`, {
      violations: [{ path: "/headers/content-type", message: "content-type must be application/json" }],
    }),
  );
}

/** The JSON parser would quietly read an empty body as `{}`. */
function rejectEmptyBody(_req: unknown, _res: unknown, body: Buffer): void {
  if (body.length === 0) throw new ApiError("invalid_json", "Invalid JSON body: expected a JSON object, got an empty body");
}

function requireJsonObject(req: Request, _res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    next();
    return;
  }
  const kind = body === undefined ? "an empty body" : body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
  next(new ApiError("invalid_json", `Invalid JSON body: expected a JSON object, got ${kind}`));
}

export function createSendRoutes(deps: SendRoutesDeps): express.Router {
  const { settings, sendService, log } = deps;
  const router = express.Router();
  const validator = contractValidator(deps.contract);

  router.post(
    "/send",
    journalRecorder(deps.journal),
    requireApiKey(deps.keys),
    limitRate(deps),
    requireJsonContentType,
    express.json({ limit: deps.bodyLimitBytes, strict: false, type: () => true, verify: rejectEmptyBody }),
    requireJsonObject,
    ...validator,
    injectFaults(deps),
    async (req: Request, res: Response) => {
      const record = sendRecordOf(res);
      const request = req.body as SendRequest;
      const current = settings.current();
      const message = await sendService.send(request, {
        apiKeyHint: apiKeyHint(record.apiKey ?? ""),
        strictData: current.strictData,
      });
      record.messageId = message.id;
      if (message.warnings.length > 0) res.set(WARNING_HEADER, headerSafe(message.warnings.join("; ")));
      res.status(200).json(successBody(message.id, message.to, current.responseShape));
    },
  );

  router.all("/send", journalRecorder(deps.journal), (req: Request, res: Response, next: NextFunction) => {
    res.set("Allow", "POST");
    next(new ApiError("method_not_allowed", `Method ${req.method} is not allowed on /send; use POST`));
  });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const apiError = toApiError(error, req.body);
    if (apiError.code === "server_error") log(`sendmock: ${req.method} ${req.path}: ${apiError.message}`);
    const record = sendRecordOf(res);
    record.errorCode = apiError.code;
    record.errorMessage = apiError.message;
    record.violations = apiError.violations;
    writeError(res, apiError, { shape: settings.current().responseShape, statusCodes: deps.statusCodes });
  });

  return router;
}
