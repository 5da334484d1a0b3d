// `sendmock check <base_url>`: runs the contract battery and the generated requests against any
// implementation of the send API, judged by the contract --contract names; prints a line per case
// and check, a table, the waivers, the real sends and the totals (or, with --dry-run, what it would
// send); exit 0 all passed, 1 a failure or a request left unjudged, 2 usage.

import { writeFile } from "node:fs/promises";
import { type Command, InvalidArgumentError, Option } from "commander";
import { apiKeyHint } from "../domain/api-keys.js";
import { printable } from "../domain/printable.js";
import { finalReport, junitXml, planReport, progressLine, runFailed } from "../check/report.js";
import { DEFAULT_MAX_SENDS } from "../check/budget.js";
import { readWaiverFile, skipWaiver, WaiverError, type Waiver } from "../check/waivers.js";
import type { CheckOptions, ShapeOption } from "../check/run-check.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_INCONCLUSIVE,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_MS,
  DEFAULT_MAX_TIMEOUTS,
  unsendableKey,
  type Pace,
} from "../check/transport.js";
import { MAX_MAX_BODY_BYTES } from "../bounded-response.js";
import { DEFAULT_CONTRACT } from "../contract/choice.js";
import { fail } from "./shared.js";

const USAGE = 2;
const DEFAULT_API_KEY = "sendmock-check-key";

interface CheckFlags {
  apiKey?: string;
  contract: string;
  maxRetries: number;
  maxRetryWait: number;
  rateLimit?: Pace;
  maxInconclusive: number;
  maxBodyBytes: number;
  maxTimeouts: number;
  template: string;
  data?: Record<string, unknown>;
  allowSend?: boolean;
  recipient?: string;
  maxSends?: number;
  dryRun?: boolean;
  skipCheck: string[];
  ignore?: string;
  junit?: string;
  shape: ShapeOption;
  timeout: number;
  generate: number;
  seed?: number;
  maxResponseMs?: number;
  shrinkTimeMs: number;
}

/** More would only make a run longer than any CI job; a typo of 10 extra zeros should fail, not hang. */
const MAX_GENERATE = 1_000_000;

function numberFlag(min: number, max: number, what: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max)
      throw new InvalidArgumentError(`must be a whole number${what === "" ? "" : ` ${what}`}, ${min} to ${max}`);
    return number;
  };
}

function parseData(value: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError("must be a JSON object");
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new InvalidArgumentError("must be a JSON object");
  return data as Record<string, unknown>;
}

/** `--rate-limit 10/s` or `600/m`, as Schemathesis' option reads (per second or per minute). */
function parseRate(value: string): Pace {
  const match = /^(\d+)\/(s|m)$/.exec(value.trim());
  const requests = Number(match?.[1]);
  if (match === null || requests < 1 || requests > 1_000_000)
    throw new InvalidArgumentError("must be N/s or N/m, N a whole number from 1 to 1000000 (such as 5/s or 100/m)");
  return { requests, perMs: match[2] === "s" ? 1000 : 60_000 };
}

function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1) throw new InvalidArgumentError("must be a whole number of milliseconds, at least 1");
  return ms;
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`not a URL: ${JSON.stringify(value)} (expected something like http://127.0.0.1:4010)`, USAGE);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail(`not an http(s) URL: ${value}`, USAGE);
  if (url.search !== "" || url.hash !== "") fail(`the base URL takes no query or fragment: ${value}`, USAGE);
  return url.href.replace(/\/+$/, "");
}

/** The waivers of --skip-check and --ignore, or exit 2 with the one line that says what is wrong. */
function waiversOf(flags: CheckFlags): Waiver[] {
  try {
    return [...flags.skipCheck.map(skipWaiver), ...(flags.ignore === undefined ? [] : readWaiverFile(flags.ignore))];
  } catch (error) {
    if (error instanceof WaiverError) return fail(printable(error.message), USAGE);
    throw error;
  }
}

async function check(baseUrlArgument: string, flags: CheckFlags): Promise<void> {
  const baseUrl = parseBaseUrl(baseUrlArgument);
  if (flags.allowSend === true && (flags.recipient === undefined || flags.recipient === "")) {
    fail("--allow-send needs --recipient ADDR: every request that can deliver mail is sent only there", USAGE);
  }
  if (flags.maxSends !== undefined && flags.allowSend !== true)
    fail("--max-sends caps the real mail of --allow-send: without --allow-send nothing that could deliver is sent", USAGE);
  if (flags.maxSends === 0)
    fail("--max-sends 0 with --allow-send would send no real mail: drop --allow-send to check without sending, or allow at least 1", USAGE);
  const waivers = waiversOf(flags);
  if (flags.recipient !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(flags.recipient))
    fail(`--recipient is not an email address: ${printable(flags.recipient)}`, USAGE);
  const fromEnv = process.env.SENDMOCK_API_KEY;
  const apiKey = flags.apiKey ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : DEFAULT_API_KEY);
  const unsendable = unsendableKey(apiKey);
  // Only the last 4 characters of a key are ever printed, a malformed one's too.
  if (unsendable !== undefined) {
    const flag = flags.apiKey === undefined ? "$SENDMOCK_API_KEY" : "--api-key";
    fail(`${flag} …${printable(apiKeyHint(apiKey))} holds a character an Authorization header cannot carry (${unsendable}): pass the key alone`, USAGE);
  }

  // Written with the first result, so that a target that cannot be reached leaves only the one stderr line.
  // Imported here, not with the CLI: the battery brings swagger-parser, 4 % of `sendmock serve`'s CPU to its first response.
  const [{ planCheck, runCheck, UnreachableError }, { ContractError }] = await Promise.all([import("../check/run-check.js"), import("../contract/load.js")]);
  let header = "";
  const options: CheckOptions = {
    baseUrl,
    apiKey,
    contract: flags.contract,
    maxRetries: flags.maxRetries,
    maxRetryWaitMs: flags.maxRetryWait * 1000,
    pace: flags.rateLimit,
    maxInconclusive: flags.maxInconclusive,
    maxBodyBytes: flags.maxBodyBytes,
    maxTimeouts: flags.maxTimeouts,
    templateId: flags.template,
    data: flags.data,
    allowSend: flags.allowSend,
    recipient: flags.recipient,
    maxSends: flags.maxSends,
    waivers,
    shape: flags.shape,
    timeoutMs: flags.timeout,
    generate: flags.generate,
    seed: flags.seed,
    maxResponseMs: flags.maxResponseMs,
    shrinkTimeLimitMs: flags.shrinkTimeMs,
    onContract: (label) => {
      const sending = flags.allowSend === true ? `, sending to ${flags.recipient ?? ""}, at most ${flags.maxSends ?? DEFAULT_MAX_SENDS} real sends` : "";
      header = `${printable(`sendmock check ${baseUrl}/send against the contract ${label} (API key …${apiKeyHint(apiKey)}, shape ${flags.shape}${sending})`)}\n\n`;
    },
    onGeneration: ({ seed, coverage, random }) => {
      process.stdout.write(`\n${coverage} + ${random} requests generated from the contract (coverage, then random), seed ${seed} (replay: --seed ${seed})\n`);
    },
    onGeneratedProgress: progressBar(),
    onResult: (result) => {
      process.stdout.write(header + progressLine(result));
      header = "";
    },
  };
  const refused = (error: unknown): never => {
    if (error instanceof ContractError) return fail(`--contract: ${printable(error.message)}`, USAGE);
    return fail(
      printable(error instanceof UnreachableError ? error.message : `check failed: ${error instanceof Error ? error.message : String(error)}`),
      USAGE,
    );
  };
  if (flags.dryRun === true) {
    const plan = await planCheck(options).catch(refused);
    process.stdout.write(header + planReport(plan));
    return;
  }
  const report = await runCheck(options).catch(refused);

  process.stdout.write(finalReport(report));
  if (flags.junit !== undefined) {
    await writeFile(flags.junit, junitXml(report, baseUrl)).catch((error: unknown) =>
      fail(`cannot write --junit ${flags.junit ?? ""}: ${(error as Error).message}`, USAGE),
    );
  }
  process.exitCode = runFailed(report) ? 1 : 0;
}

/**
 * A progress line on stderr while the generated requests run, when a person is watching: not when
 * stderr is a pipe or a file, nor in CI, where a log would fill with carriage returns.
 */
function progressBar(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY || (process.env.CI ?? "") !== "") return undefined;
  let shown = -1;
  return (done, total) => {
    const percent = Math.floor((done * 100) / total);
    if (percent === shown && done !== total) return;
    shown = percent;
    const width = 30;
    const filled = Math.round((done * width) / total);
    process.stderr.write(done === total ? "\r\u001b[K" : `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} generated requests`);
  };
}

export function registerCheck(program: Command): void {
  program
    .command("check")
    .description("run the contract battery and requests generated from the contract against any implementation of the send API, judging every answer by it")
    .argument("<base_url>", "base URL of the implementation (POST <base_url>/send is checked)")
    .option("--api-key <key>", `API key sent as Bearer (default: $SENDMOCK_API_KEY, else "${DEFAULT_API_KEY}", which any default sendmock accepts)`)
    .option(
      "--contract <contract>",
      "what the target is judged by: published (openapi/service.yaml, what the service's spec publishes), sendmock (openapi/send.yaml, sendmock's own stricter contract) or an OpenAPI 3.x file with POST /send",
      DEFAULT_CONTRACT,
    )
    .option("--template <id>", "an existing template for the cases", "welcome")
    .option("--data <json>", "placeholder values for --template (default: its sample_data on a sendmock, else {})", parseData)
    .option("--allow-send", "also run the case that delivers a real email (only to --recipient)")
    .option("--recipient <addr>", "the only address a real email may go to (required with --allow-send)")
    .option(
      "--max-sends <n>",
      `with --allow-send: at most this many sends the target accepts in the run; a request that could deliver mail is not sent once they are used (default ${DEFAULT_MAX_SENDS})`,
      numberFlag(0, 1_000_000, "of sends"),
    )
    .option("--dry-run", "print every request the run would send, as curl lines, and send nothing")
    .option(
      "--skip-check <name>",
      "waive every finding of this named check or case (repeatable); shown in the report and the JUnit file",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option("--ignore <file>", "waive the findings this YAML file lists, each with a check or case, an optional match and a reason")
    .option("--junit <file>", "write the results as JUnit XML")
    .addOption(new Option("--shape <shape>", "response shape required of every answer").choices(["a", "b", "any"]).default("any"))
    .option("--timeout <ms>", "per-request timeout in milliseconds", parseTimeout, 10_000)
    .option(
      "--generate <n>",
      "requests to generate from the contract and judge with the named checks (0: none)",
      numberFlag(0, MAX_GENERATE, "of requests"),
      100,
    )
    .option("--seed <s>", "seed of the generated requests: the same seed replays a run (default: random, printed)", numberFlag(0, 2 ** 31 - 1, ""))
    .option("--max-response-ms <ms>", "fail max_response_time on any answer slower than this", numberFlag(1, 3_600_000, "of milliseconds"))
    .option("--rate-limit <rate>", "pace the whole run: at most N requests a second (N/s) or a minute (N/m)", parseRate)
    .option(
      "--max-retries <n>",
      "how often a 429 is waited out (its Retry-After, 1 s when absent) and the request sent again",
      numberFlag(0, 100, ""),
      DEFAULT_MAX_RETRIES,
    )
    .option(
      "--max-retry-wait <seconds>",
      "the longest Retry-After to wait for; a longer one leaves the request rate limited at once",
      numberFlag(0, 86_400, "of seconds"),
      DEFAULT_MAX_RETRY_WAIT_MS / 1000,
    )
    .option(
      "--max-inconclusive <n>",
      "after this many requests in a row without a judgeable answer (rate limited, key refused), send no more (0: never stop)",
      numberFlag(0, 1_000_000, ""),
      DEFAULT_MAX_INCONCLUSIVE,
    )
    .option(
      "--max-body-bytes <n>",
      "the most of an answer's body read, in bytes once decompressed; a longer one fails its case or check and its connection is dropped",
      numberFlag(1, MAX_MAX_BODY_BYTES, "of bytes"),
      DEFAULT_MAX_BODY_BYTES,
    )
    .option(
      "--max-timeouts <n>",
      "after this many requests in a row without an answer within --timeout, the target stopped answering: send no more (0: never stop)",
      numberFlag(0, 1_000_000, ""),
      DEFAULT_MAX_TIMEOUTS,
    )
    .option("--shrink-time-ms <ms>", "how long shrinking one failing check may take", numberFlag(0, 3_600_000, "of milliseconds"), 30_000)
    // Usage errors (a bad flag value, a missing argument) exit 2, like the checks above.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE))
    .action(check);
}
