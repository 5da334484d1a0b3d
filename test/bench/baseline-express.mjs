// Baseline C, the inspection API's floor: express 5 (the framework /_mock runs on, issue 30 §2)
// with one GET route and a 15-byte JSON answer, set up as sendmock's app is (no ETag, no
// X-Powered-By). No list, no store: what any inspection call costs before it does anything.
// Usage: node test/bench/baseline-express.mjs [port]   (prints `baseline-express listening on URL`)

import express from "express";

const port = Number(process.argv[2] ?? 0);
const app = express();
app.disable("x-powered-by");
app.disable("etag");
app.get("/_mock/health", (_req, res) => {
  res.json({ status: "ok" });
});

const server = app.listen(port, "127.0.0.1", () => {
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  process.stdout.write(`baseline-express listening on http://127.0.0.1:${address.port}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
