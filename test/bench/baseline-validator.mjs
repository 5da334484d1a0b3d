// Baseline A, the ceiling of the chosen stack: express 5 + express-openapi-validator on
// openapi/send.yaml, set up the way sendmock sets it up (requests and responses validated,
// full formats, security not checked by the validator), responding to POST /send with a fixed
// valid shape-a body. Everything sendmock does beyond this costs throughput against it.
// Usage: node test/bench/baseline-validator.mjs [port]   (prints `baseline-validator listening on URL`)

import { fileURLToPath } from "node:url";
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";

const SPEC = fileURLToPath(new URL("../../openapi/send.yaml", import.meta.url));
const BODY = { success: true, message_id: "msg_0f8fad5b-d9cb-469f-a165-70867728950e", status: "queued" };
const port = Number(process.argv[2] ?? 0);

const app = express();
app.use(express.json());
app.use(
  OpenApiValidator.middleware({
    apiSpec: SPEC,
    validateApiSpec: false,
    validateRequests: { allErrors: true },
    validateResponses: true,
    validateSecurity: false,
    ignoreUndocumented: true,
    ajvFormats: { mode: "full" },
  }),
);
app.post("/send", (_req, res) => {
  res.json(BODY);
});
app.use(
  /** @type {import("express").ErrorRequestHandler} */
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- express tells error handlers by their four parameters
  (error, _req, res, _next) => {
    const status = typeof error.status === "number" ? error.status : 500;
    res.status(status).json({ success: false, error: { code: status === 400 ? "invalid_request" : "server_error", message: String(error.message) } });
  },
);

const server = app.listen(port, "127.0.0.1", (error) => {
  if (error) {
    process.stderr.write(`baseline-validator: ${error.message}\n`);
    process.exit(1);
  }
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  process.stdout.write(`baseline-validator listening on http://127.0.0.1:${address.port}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
