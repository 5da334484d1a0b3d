// An error no step expected (a bug in sendmock) is logged once with its stack and cause, and the client still gets a 500 in the configured shape.

import type { IncomingMessage, ServerResponse } from "node:http";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { loadContract, SEND_CONTRACT } from "../../src/contract/load.js";
import { operationChecks } from "../../src/contract/operation-checks.js";
import { createKeyCheck } from "../../src/domain/api-keys.js";
import type { SendService } from "../../src/domain/send.js";
import { ApiError } from "../../src/errors.js";
import { createSendEdge } from "../../src/http/send-edge.js";
import { createSendRoute } from "../../src/http/send-route.js";
import { createSendWriter } from "../../src/http/send-writer.js";
import { createErrorTranslator, describeUnexpected } from "../../src/http/unexpected.js";
import { toApiError } from "../../src/http/validation-errors.js";
import { createSendPipeline } from "../../src/send/pipeline.js";
import { openStores } from "../../src/stores/index.js";
import { DEFAULT_SANDBOX } from "../../src/domain/sandboxes.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { aSendRequest, bearer } from "../support/helpers.js";

const checks = operationChecks(await loadContract(SEND_CONTRACT), "/send", "post");

/** POST /send through the real pipeline and writer, with a send service that fails as `fail` says. */
async function sendmockWhoseSend(fail: () => never, shape: "a" | "b" = "a") {
  const logged: string[] = [];
  const translate = createErrorTranslator((error) => logged.push(describeUnexpected(error)));
  const config = resolveConfig({ responseShape: shape }, "options");
  const stores = await openStores(config);
  const sandbox = await stores.openScope(DEFAULT_SANDBOX);
  const broken: SendService = { send: () => Promise.resolve().then(fail), captureRelayed: () => Promise.resolve().then(fail) };
  const shutdown = new AbortController().signal;
  const route = createSendRoute({
    edge: createSendEdge({ watchClient: false, sandboxPaths: false, bodyLimitBytes: 1024 * 1024, corsOrigins: [] }),
    pipeline: createSendPipeline({
      keys: createKeyCheck(null),
      sandboxOf: (name) =>
        Promise.resolve({
          name,
          limiter: sandbox.limiter,
          idempotency: sandbox.idempotency,
          faultPlan: sandbox.faults,
          sendService: broken,
          journal: sandbox.journal,
        }),
      settings: stores.settings,
      checks,
      statusCodes: {},
      toApiError: translate,
      checkHost: () => undefined,
      allowFaultHeader: true,
      allowMagicRecipients: true,
      shutdown,
    }),
    writer: createSendWriter({
      checks,
      responseChecker: () => Promise.reject(new Error("no respond fault here")),
      idempotency: sandbox.idempotency,
      journal: sandbox.journal,
      journalBodyBytes: 1024,
      settings: stores.settings,
      statusCodes: {},
      toApiError: translate,
      shutdown,
    }),
    reportUnexpected: (error) => logged.push(describeUnexpected(error)),
  });
  return { logged, stores, sandbox, serve: (req: IncomingMessage, res: ServerResponse) => route.handle(req, res) };
}

describe("an unexpected error in POST /send", () => {
  it("is logged once with its stack, and answered 500 server_error in shape a", async () => {
    const { logged, stores, sandbox, serve } = await sendmockWhoseSend(() => {
      throw new TypeError("the renderer tripped");
    });
    const response = await request(serve).post("/send").set(bearer()).send(aSendRequest());
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ success: false, error: { code: "server_error", message: "Internal error in sendmock: the renderer tripped" } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^sendmock: unexpected error \(a bug in sendmock; please report it\): TypeError: the renderer tripped\n +at /);
    // The journal has it too, as every request.
    expect((await sandbox.journal.list({ limit: 1 })).requests[0]).toMatchObject({ status: 500, error_code: "server_error" });
    await stores.close();
  });

  it("is answered in shape b when the send API answers in shape b", async () => {
    const { logged, stores, serve } = await sendmockWhoseSend(() => {
      throw new RangeError("out of range");
    }, "b");
    const response = await request(serve).post("/send").set(bearer()).send(aSendRequest());
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ status: "error", message: "Internal error in sendmock: out of range" });
    expect(logged).toHaveLength(1);
    await stores.close();
  });

  it("is not logged when it is a refusal of the request (an ApiError)", async () => {
    const { logged, stores, serve } = await sendmockWhoseSend(() => {
      throw new ApiError("invalid_template_id", "Invalid template ID: no template named x");
    });
    const response = await request(serve).post("/send").set(bearer()).send(aSendRequest());
    expect(response.status).toBe(422);
    expect(logged).toEqual([]);
    await stores.close();
  });
});

describe("ApiError", () => {
  it("keeps what it wraps as its cause", () => {
    const bug = new TypeError("x is undefined");
    const wrapped = toApiError(bug, undefined);
    expect(wrapped.code).toBe("server_error");
    expect(wrapped.cause).toBe(bug);
  });
});
