// The command line's log, written with pino: the banner and a line per request on stdout, problems and stop notices on stderr.

import { pino, type DestinationStream, type Logger } from "pino";
import { CHECK_NAMES } from "../contract/named-checks.js";
import sonicBoom from "sonic-boom";
import { printable } from "../domain/printable.js";
import type { InspectionCall, RequestLog } from "../domain/request-log.js";
import type { JournalEntry } from "../wire.js";

export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `quiet`: start, stop and problems only; `verbose`: also every /_mock call. */
export type LogDetail = "quiet" | "normal" | "verbose";

/** What the start banner names; `fields` are its JSON form, `lines` its text form. */
export interface Banner {
  /** `sendmock listening on http://127.0.0.1:4010`: tests and scripts look for the URL in it. */
  title: string;
  lines: readonly (readonly [label: string, value: string])[];
  fields: Readonly<Record<string, unknown>>;
}

export interface CommandLog {
  /** Handed to the mock: a line for each /send (and each /_mock call when verbose). */
  readonly requestLog: RequestLog;
  /** Something that needs a look: a template that broke, a store that failed a response. */
  problem(line: string): void;
  /** Start and stop, shown even with --quiet. */
  notice(line: string): void;
  /** Before the process exits: writes what is buffered, waiting at most half a second for a reader that does not read. */
  flush(): Promise<void>;
  banner(banner: Banner): void;
}

/** The keys of a request line in JSON, and what the text form is made of. */
export interface RequestRecord {
  time: number;
  method: string;
  path: string;
  status: number;
  error_code?: string | null;
  message_id?: string | null;
  to?: string | null;
  template_id?: string | null;
  fault?: string | null;
  duration_ms: number;
  api_key_hint?: string | null;
}

// A value written bare must not be able to split a line or fake a field: anything with space,
// a quote, a backslash or a control or format character (a bidi override too) is quoted.
const BARE_VALUE = /^[^\s"\\\p{C}]+$/u;

function shown(value: string): string {
  return BARE_VALUE.test(value) ? value : printable(JSON.stringify(value));
}

function clockTime(epochMs: number): string {
  const at = new Date(epochMs);
  const two = (value: number): string => String(value).padStart(2, "0");
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, "0")}`;
}

/**
 * `12:03:04.567 POST /send 200 msg_… to=ada@example.com template_id=welcome key=…0001 3.2ms`: the
 * error code in place of the message id for an error, `-` when there is neither; `fault=` when
 * one was injected. The key shows as its hint only.
 */
export function textLineOf(record: RequestRecord): string {
  const parts = [clockTime(record.time), shown(record.method), shown(record.path), String(record.status)];
  if (record.error_code !== undefined) parts.push(shown(record.error_code ?? record.message_id ?? "-"));
  if (record.to != null) parts.push(`to=${shown(record.to)}`);
  if (record.template_id != null) parts.push(`template_id=${shown(record.template_id)}`);
  if (record.fault != null) parts.push(`fault=${shown(record.fault)}`);
  if (record.api_key_hint != null) parts.push(`key=…${shown(record.api_key_hint)}`);
  parts.push(`${record.duration_ms.toFixed(1)}ms`);
  return parts.join(" ");
}

function isRequestRecord(record: Record<string, unknown>): record is Record<string, unknown> & RequestRecord {
  return typeof record.status === "number" && typeof record.method === "string";
}

/**
 * Text is made by a pino destination that formats each record as it is written. Measured per
 * line, 200,000 lines to /dev/null: pino's JSON 4.8 µs, this destination 7.0 µs, pino-pretty
 * (sync) 23 µs: about 6% of a POST /send at 2,700 req/s, past the 5% the log may cost.
 */
function textDestination(sink: DestinationStream): DestinationStream {
  return {
    write(json: string) {
      const record = JSON.parse(json) as Record<string, unknown>;
      sink.write(`${isRequestRecord(record) ? textLineOf(record) : `sendmock: ${String(record.msg)}`}\n`);
    },
  };
}

// sonic-boom is CommonJS, and its types describe the ESM view: the class is the module itself.
const { SonicBoom } = sonicBoom;

/** How much unwritten log a stream may hold while its reader does not read (`--log-buffer`). */
export const DEFAULT_LOG_BUFFER_BYTES = 1024 * 1024;

/** How long a stop waits for the log to be written before the process exits. */
const FLUSH_WAIT_MS = 500;

interface LineSink extends DestinationStream {
  /** Resolves once what was written is out, or after `FLUSH_WAIT_MS` when the reader does not read. */
  flush(): Promise<void>;
}

/**
 * A destination on a file descriptor, written asynchronously into a buffer of at most
 * `maxBufferBytes`. Written synchronously, a parent that spawned `sendmock serve` with a pipe and
 * never read it froze the server after ~400 sends, once the 64 KB pipe was full (measured); now
 * lines past the buffer are dropped and counted, and the count is logged once the reader catches
 * up. A reader that goes away (`sendmock serve | head -1`) silences it rather than stopping the server.
 */
function fileDestination(fd: 1 | 2, maxBufferBytes: number, droppedNotice: (count: number) => string): LineSink {
  const sink = new SonicBoom({ fd, sync: false, maxLength: maxBufferBytes });
  let open = true;
  let dropped = 0;
  sink.on("error", () => {
    open = false;
  });
  sink.on("drop", () => {
    dropped += 1;
  });
  return {
    write(line: string) {
      if (!open) return;
      if (dropped > 0) {
        const count = dropped;
        sink.write(droppedNotice(count));
        // Still no room: the notice waits for the next line, and does not count as a lost line itself.
        dropped = dropped > count ? count : 0;
      }
      sink.write(line);
    },
    flush() {
      if (!open) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, FLUSH_WAIT_MS);
        sink.flush(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** A violation message that names one of `check`'s checks first. */
const NAMED_CHECK = new RegExp(`^(${CHECK_NAMES.join("|")}): `);

function entryRecord(entry: JournalEntry): Omit<RequestRecord, "time"> {
  return {
    method: entry.method,
    path: entry.path,
    status: entry.status,
    error_code: entry.error_code,
    message_id: entry.message_id,
    to: entry.to,
    template_id: entry.template_id,
    fault: entry.fault,
    duration_ms: entry.duration_ms,
    api_key_hint: entry.api_key_hint,
  };
}

/**
 * A 5xx sendmock gave on its own, such as a store that did not respond, is a problem; an injected one is not.
 * Its message may quote a proxy's upstream (its error message, a member name): escaped, so that it cannot retitle the terminal.
 */
function serverErrorLine(entry: JournalEntry): string[] {
  if (entry.status < 500 || entry.fault !== null) return [];
  return [printable(`${entry.method} ${entry.path} answered ${entry.status} ${entry.error_code ?? ""}: ${entry.error_message ?? "no message"}`)];
}

/** The named checks a relayed exchange failed (http/proxy-pipeline.ts), a line each, as `check` names them. */
function namedCheckLines(entry: JournalEntry): string[] {
  return entry.violations
    .filter((violation) => NAMED_CHECK.test(violation.message))
    .map((violation) => printable(`${entry.method} ${entry.path} -> ${entry.status}: ${violation.message}`));
}

export function createCommandLog(options: { format: LogFormat; detail: LogDetail; bufferBytes?: number }): CommandLog {
  const bufferBytes = options.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES;
  const droppedNotice = (count: number): string => {
    const message = `${count} log line(s) dropped: the reader of the log fell more than ${bufferBytes} bytes (--log-buffer) behind`;
    return options.format === "json" ? `${JSON.stringify({ level: 40, time: Date.now(), msg: message })}\n` : `sendmock: ${message}\n`;
  };
  const stdout = fileDestination(1, bufferBytes, droppedNotice);
  const stderr = fileDestination(2, bufferBytes, droppedNotice);
  // pid and hostname say nothing for a local mock; time and level stay, as pino writes them.
  const logger = (destination: DestinationStream): Logger => pino({ base: null }, options.format === "json" ? destination : textDestination(destination));
  const out = logger(stdout);
  const err = logger(stderr);
  const problem = (line: string): void => err.warn(line);
  const quiet = options.detail === "quiet";

  // A text line is made straight from the entry: through pino it was made as JSON, parsed back and
  // made again (~12 of a send's ~150 µs of CPU in a profile of the bench's valid sends).
  const writeRequest =
    options.format === "json"
      ? (entry: JournalEntry) => out.info(entryRecord(entry), `${entry.method} ${entry.path} ${entry.status}`)
      : (entry: JournalEntry) => stdout.write(`${textLineOf({ time: Date.now(), ...entryRecord(entry) })}\n`);
  const requestLog: RequestLog = {
    send(entry) {
      if (!quiet) writeRequest(entry);
      // The named checks a relayed exchange failed, then a 5xx in its own words (the upstream's, through a proxy).
      for (const line of [...namedCheckLines(entry), ...serverErrorLine(entry)]) problem(line);
    },
  };
  if (options.detail === "verbose") {
    requestLog.inspection = (call: InspectionCall) => out.info(call, `${call.method} ${call.path} ${call.status}`);
  }

  return {
    requestLog,
    problem,
    notice: (line) => err.info(line),
    flush: async () => {
      await Promise.all([stdout.flush(), stderr.flush()]);
    },
    banner(banner) {
      if (options.format === "json") {
        out.info(banner.fields, banner.title);
        return;
      }
      const width = Math.max(...banner.lines.map(([label]) => label.length)) + 2;
      stdout.write(`${[banner.title, ...banner.lines.map(([label, value]) => `  ${(label === "" ? "" : `${label}:`).padEnd(width)}${value}`)].join("\n")}\n`);
    },
  };
}
