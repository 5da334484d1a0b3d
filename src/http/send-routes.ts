// POST /send, the emulated API: every step of the pipeline, validated from openapi/send.yaml.

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
import { successBody } from "./error-shapes.js";
import { injectFaults, limitRate, type FaultStepDeps } from "./fault-steps.js";
import { sendRecordOf } from "./request-record.js";
import { headerSafe, journalRecorder, rejectOtherMethods, sendErrorHandler } from "./send-recording.js";
import { contractValidator } from "./contract-validator.js";

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
  const { settings, sendService } = deps;
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

  router.all("/send", ...rejectOtherMethods(deps.journal));
  router.use(sendErrorHandler(deps));

  return router;
}
