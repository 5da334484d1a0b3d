// The CPU one request log line costs `sendmock serve`, measured alone: BENCH_ONLY=log runs it as a child
// whose stdout (the log) the bench reads and drops, as a terminal would read it. Argument: text or json.

import { createCommandLog } from "../../dist/commands/log.js";

const LINES = 100_000;
const WARMUP_LINES = 10_000;
const format = process.argv[2] === "json" ? "json" : "text";
const { requestLog } = createCommandLog({ format, detail: "normal" });

/** @param {number} index */
const entryOf = (index) => ({
  id: `req_${index}`,
  at: new Date().toISOString(),
  method: "POST",
  path: "/send",
  status: 200,
  error_code: null,
  error_message: null,
  violations: [],
  fault: null,
  message_id: `msg_00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
  duration_ms: 3.217,
  api_key_hint: "0001",
  to: "ada@example.com",
  template_id: "welcome",
});

for (let index = 0; index < WARMUP_LINES; index += 1) requestLog.send(entryOf(index));
// The entries are built before the clock starts: the server builds them for its journal anyway.
const entries = Array.from({ length: LINES }, (_, index) => entryOf(index));
const before = process.cpuUsage();
for (const entry of entries) requestLog.send(entry);
const used = process.cpuUsage(before);
process.stderr.write(`${JSON.stringify({ format, lines: LINES, cpuUsPerLine: (used.user + used.system) / LINES })}\n`);
