// express-openapi-validator set up the one way sendmock uses it (the inspection API's contract),
// loaded and compiled once per process for each document, in the background, before any request needs it.

import http from "node:http";
import { Duplex } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import contentType from "content-type";
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Contract } from "./load.js";
import { ContractRefusal, type RefusalKind } from "./refusal.js";

type Eov = typeof import("express-openapi-validator");

/**
 * eov and what it loads (ajv's compiler, json-schema-ref-parser, js-yaml, multer: ~110 modules)
 * are loaded with the first document it validates, not with sendmock: POST /send does not use it,
 * and loading it was a third of `import("sendmock")`.
 */
async function loadEov(): Promise<Eov> {
  // Before any middleware is built: eov would otherwise compile the OpenAPI meta-schema for each document.
  await import("./eov-lazy-meta-schema.js");
  return import("express-openapi-validator");
}

let eovLoading: Promise<Eov> | undefined;

/** eov's refusals as sendmock's own, so nothing outside this module needs eov's classes. */
function translatedErrors(eov: Eov): ErrorRequestHandler {
  type EovError = InstanceType<typeof eov.error.BadRequest>;
  const kinds: [new (...args: never[]) => EovError, RefusalKind][] = [
    [eov.error.BadRequest, "bad_request"],
    [eov.error.UnsupportedMediaType, "unsupported_media_type"],
    [eov.error.MethodNotAllowed, "method_not_allowed"],
    [eov.error.NotFound, "not_found"],
  ];
  return (error: unknown, _req, _res, next) => {
    const kind = kinds.find(([type]) => error instanceof type)?.[1];
    const brokenAnswer = error instanceof eov.error.InternalServerError && error.errors.some((item) => item.path.startsWith("/response"));
    if (kind === undefined && !brokenAnswer) {
      next(error);
      return;
    }
    const { errors, message } = error as EovError;
    const issues = errors.map((item) => ({ path: item.path, keyword: (item.errorCode ?? "").replace(".openapi.validation", ""), message: item.message }));
    next(new ContractRefusal(kind ?? "broken_answer", message, issues));
  };
}

/**
 * express-openapi-validator compiles, and keeps for good, one validator per distinct
 * Content-Type value, parameters included: 90 ms and 0.6 MB for each new one, and a `%` in a
 * parameter made it throw. UTF-8 JSON in any spelling is shown to it as one value.
 */
function oneJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const header = req.headers["content-type"];
  try {
    const parsed = header === undefined ? undefined : contentType.parse(header);
    if (parsed?.type === "application/json" && (parsed.parameters.charset ?? "utf-8").toLowerCase() === "utf-8")
      req.headers["content-type"] = "application/json";
  } catch {
    // A header that does not parse is left as it is, for the validator to refuse.
  }
  next();
}

/**
 * One validator per loaded document, for the whole process. Each new validator compiles the
 * OpenAPI meta-schema, the document and then each route's schemas (150-250 ms a mock before this
 * cache); the handlers keep only compiled schemas, and every mock's data goes through
 * `req`/`res`, so mocks built on one document can share them. Keyed by the cached `Contract`
 * object, so an edited document (another object) gets its own.
 */
type Handlers = (RequestHandler | ErrorRequestHandler)[];
const validators = new WeakMap<Contract, Promise<Handlers>>();
const warmUps = new WeakMap<Contract, Promise<void>>();

/**
 * Request and response validation from `contract`. The document was already checked by
 * swagger-parser; security is checked by sendmock's own middleware, which runs first and also
 * refuses `Bearer ` with an empty token; the full email format rejects addresses like `a@b`.
 */
function contractValidator(contract: Contract): Promise<Handlers> {
  let handlers = validators.get(contract);
  if (!handlers) {
    handlers = (eovLoading ??= loadEov()).then((eov): Handlers => [
      oneJsonContentType,
      ...eov.middleware({
        apiSpec: structuredClone(contract.document) as never,
        validateApiSpec: false,
        validateRequests: { allErrors: true },
        validateResponses: true,
        validateSecurity: false,
        ignoreUndocumented: true,
        ajvFormats: { mode: "full" },
      }),
      translatedErrors(eov),
    ]);
    validators.set(contract, handlers);
  }
  return handlers;
}

/**
 * The validator of `contract` for an app that must not wait for it to start: it is built and
 * warmed only once `warmContractValidator(contract)` is called (a mock calls it once it listens)
 * or when the first request arrives, whichever comes first, and a request that comes before the
 * warm-up ends waits for it rather than compiling anything itself. For the inspection API, whose
 * loading and preprocessing by eov held the first POST /send up when done at build.
 */
export function deferredContractValidator(contract: Contract): RequestHandler {
  let warmed: express.Router | undefined;
  return (req, res, next) => {
    if (warmed) {
      warmed(req, res, next);
      return;
    }
    warmContractValidator(contract)
      .then(() => contractValidator(contract))
      .then((handlers) => {
        warmed ??= express.Router().use(handlers);
        warmed(req, res, next);
      }, next);
  };
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

/** A request run through `handler` in memory, with no socket or port; resolves once it is answered. */
function runInMemory(handler: express.Express, request: { method: string; url: string; json: string | undefined }): Promise<void> {
  return new Promise((resolve) => {
    const socket = new Duplex({
      read() {
        // Nothing more arrives: the body is pushed below.
      },
      write(_chunk, _encoding, done) {
        done();
      },
    });
    const req = new http.IncomingMessage(socket as never);
    req.method = request.method;
    req.url = request.url;
    const { json } = request;
    req.headers = json === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(json)) };
    if (json !== undefined) req.push(json);
    req.push(null);
    const res = new http.ServerResponse(req);
    res.assignSocket(socket as never);
    // Which of the two comes depends on how the answer was written: either means it is done.
    res.once("finish", () => resolve());
    res.once("close", () => resolve());
    handler(req, res);
  });
}

/**
 * Compiles what express-openapi-validator would otherwise compile on the first request to each
 * operation of `contract` (about 100 ms for POST /send), by sending every documented operation
 * through the shared validator, in memory: the first requests then cost what later ones do.
 * Once per process and document; the answers are thrown away (a placeholder `{}` that the
 * validator may refuse).
 */
export function warmContractValidator(contract: Contract): Promise<void> {
  let warming = warmUps.get(contract);
  if (!warming) {
    warming = warm(contract);
    warmUps.set(contract, warming);
  }
  return warming;
}

async function warm(contract: Contract): Promise<void> {
  // Started in the background, it lets what is already waiting (a first request) go first.
  await nextTurn();
  const handlers = await contractValidator(contract);
  const app = express();
  app.use(express.json(), ...handlers, (_req: Request, res: Response) => {
    res.status(200).json({});
  });
  const answerRefusal: ErrorRequestHandler = (_error, _req, res, next) => {
    if (res.headersSent) next();
    else res.status(500).end();
  };
  app.use(answerRefusal);
  for (const [path, item] of Object.entries(contract.document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, OpenAPIV3_1.OperationObject | undefined> | undefined)?.[method];
      if (operation === undefined) continue;
      const url = path.replace(/\{[^}]+\}/g, "warm-up");
      // The response validators are built only for a request the request validator let through:
      // the documented example is one.
      const media = (operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content["application/json"];
      const firstExample = Object.values(media?.examples ?? {})[0];
      const example: unknown = media?.example ?? (firstExample !== undefined && "value" in firstExample ? firstExample.value : undefined);
      const json = media === undefined ? undefined : JSON.stringify(example ?? {});
      // The validator keys what it compiled by method, route and Content-Type (all JSON is shown
      // to it as plain application/json).
      // One operation per turn of the event loop (10-25 ms each): a request that arrives while
      // this runs in the background waits for one operation, not for all of them.
      await nextTurn();
      await runInMemory(app, { method: method.toUpperCase(), url, json });
    }
  }
}
