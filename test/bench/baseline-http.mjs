// Baseline B, the machine's ceiling: a bare node:http server that reads and parses a JSON
// body and responds to POST /send with a fixed shape-a success body. No framework, no validation.
// Usage: node test/bench/baseline-http.mjs [port]   (prints `baseline-http listening on URL`)

import http from "node:http";

const BODY = JSON.stringify({ success: true, message_id: "msg_0f8fad5b-d9cb-469f-a165-70867728950e", status: "queued" });
const port = Number(process.argv[2] ?? 0);

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/send") {
    res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"not_found"}');
    return;
  }
  /** @type {Buffer[]} */
  const chunks = [];
  req.on("data", (/** @type {Buffer} */ chunk) => chunks.push(chunk));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "Content-Type": "application/json" }).end('{"error":"invalid_json"}');
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(BODY) }).end(BODY);
  });
});

server.listen(port, "127.0.0.1", () => {
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  process.stdout.write(`baseline-http listening on http://127.0.0.1:${address.port}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
