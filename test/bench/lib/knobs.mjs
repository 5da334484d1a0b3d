// The bench's knobs, read once from the environment (see run.mjs), the figures and request
// bodies its sections share, and its log line on stderr.

export const DURATION = positiveNumber("BENCH_DURATION", 10);
export const RUNS = Math.round(positiveNumber("BENCH_RUNS", 3));
export const WARMUP = nonNegativeNumber("BENCH_WARMUP", 1);
export const STRICT = process.env.BENCH_STRICT === "1";
export const SOAK_SECONDS = nonNegativeNumber("BENCH_SOAK_SECONDS", 60);
export const CONNECTIONS = 50;
export const LIST_FILL = 10_000;
/** The default lifecycle (delivered: two events, step_ms 1000) takes a send's last event this long after it. */
export const LIFECYCLE_SPAN_MS = 2000;
export const MB = 1024 * 1024;

const API_KEY = "bench-key-0001";
export const VALID_BODY = JSON.stringify({
  to: "ada@example.com",
  template_id: "welcome",
  data: { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" },
});
export const INVALID_BODY = JSON.stringify({ ...JSON.parse(VALID_BODY), to: "not-an-address" });
export const SEND_HEADERS = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

/** @param {string} name @param {number} fallback */
function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number > 0, got ${JSON.stringify(raw)}`);
  return value;
}

/** @param {string} name @param {number} fallback */
function nonNegativeNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * @param {string} name
 * @param {string[]} sections the sections that can run alone
 * @returns {string | undefined} undefined: run everything
 */
export function onlySection(name, sections) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  if (!sections.includes(raw)) throw new Error(`${name} must be one of ${sections.join(", ")}, got ${JSON.stringify(raw)}`);
  return raw;
}

/** @param {string} line */
export function log(line) {
  process.stderr.write(`bench: ${line}\n`);
}
