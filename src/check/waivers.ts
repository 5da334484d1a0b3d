// Findings a team accepts without a contract of its own: `--skip-check NAME` and `--ignore FILE`
// (YAML: a check or case, an optional match, a required reason). Each waiver counts what it waived,
// so the report shows every one, and one that waived nothing as stale.

import { closestKey } from "../domain/suggestion.js";
import { yaml, yamlProblem } from "../domain/yaml.js";
import { FileReadError, readBounded } from "../read-bounded.js";
import { CASES, IDEMPOTENCY_CASE } from "./cases.js";
import { CHECK_NAMES } from "../contract/named-checks.js";

/** Every field given must hold for a finding to be waived. */
export interface WaiverMatch {
  /** Text the request contains, as the report shows it: `(defect) METHOD /send body`. */
  request?: string;
  /** The finding's pointer, exactly: `/status`, `/body/error/code`. */
  pointer?: string;
  /** The answer's status. */
  status?: number;
}

export interface Waiver {
  kind: "check" | "case";
  /** The named check, or the case's id. */
  target: string;
  match: WaiverMatch;
  reason: string;
  /** Where it was written: `--skip-check`, `waivers.yaml, line 4`. */
  source: string;
}

/** One finding as a waiver sees it. */
export interface Finding {
  request: string;
  pointer: string;
  status?: number;
}

/** A waiver that cannot be used: one line saying where and why (the command exits 2). */
export class WaiverError extends Error {
  override name = "WaiverError";
}

/** A file of waivers is a page of YAML, not data: a megabyte is thousands of them. */
export const MAX_WAIVER_FILE_BYTES = 1024 * 1024;

const CASE_IDS: readonly string[] = [...CASES.map((testCase) => testCase.id), IDEMPOTENCY_CASE.id];
const ENTRY_KEYS = ["check", "case", "match", "reason"];
const MATCH_KEYS = ["request", "pointer", "status"];

const meant = (value: string, known: readonly string[]): string => {
  const close = closestKey(value, known);
  return close === undefined ? "" : ` (did you mean ${close}?)`;
};

/** The known check or case `target` names, else why not. */
function knownTarget(kind: Waiver["kind"], target: string): string | undefined {
  const known: readonly string[] = kind === "check" ? CHECK_NAMES : CASE_IDS;
  if (known.includes(target)) return undefined;
  return `unknown ${kind} ${JSON.stringify(target)}${meant(target, known)}; the ${kind === "check" ? "checks" : "cases"}: ${known.join(", ")}`;
}

/** `--skip-check NAME`: every finding of that check or case waived, its reason the flag itself. */
export function skipWaiver(name: string): Waiver {
  if ((CHECK_NAMES as readonly string[]).includes(name)) return { kind: "check", target: name, match: {}, reason: "--skip-check", source: "--skip-check" };
  if (CASE_IDS.includes(name)) return { kind: "case", target: name, match: {}, reason: "--skip-check", source: "--skip-check" };
  const known = [...CHECK_NAMES, ...CASE_IDS];
  throw new WaiverError(`--skip-check: unknown check or case ${JSON.stringify(name)}${meant(name, known)}; the checks and cases: ${known.join(", ")}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function unknownKey(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const stray = Object.keys(record).find((key) => !keys.includes(key));
  return stray === undefined ? undefined : `unknown key ${JSON.stringify(stray)}${meant(stray, keys)}`;
}

function readMatch(value: unknown): WaiverMatch | string {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) return "match must be a mapping of request, pointer or status";
  const stray = unknownKey(value, MATCH_KEYS);
  if (stray !== undefined) return `match: ${stray}; a match takes ${MATCH_KEYS.join(", ")}`;
  const { request, pointer, status } = value;
  if (request !== undefined && (typeof request !== "string" || request === "")) return "match.request must be text the request contains";
  if (pointer !== undefined && (typeof pointer !== "string" || !(pointer === "" || pointer.startsWith("/"))))
    return "match.pointer must be a finding's pointer, such as /body/message_id or /status";
  if (status !== undefined && (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599))
    return "match.status must be an HTTP status, 100 to 599";
  return {
    ...(request === undefined ? {} : { request }),
    ...(pointer === undefined ? {} : { pointer }),
    ...(status === undefined ? {} : { status }),
  };
}

/** One entry of the file, or why it cannot be one. */
function readEntry(entry: unknown): Omit<Waiver, "source"> | string {
  if (!isRecord(entry)) return "a waiver must be a mapping: check (or case), match, reason";
  const stray = unknownKey(entry, ENTRY_KEYS);
  if (stray !== undefined) return `${stray}; a waiver takes ${ENTRY_KEYS.join(", ")}`;
  if ((entry.check === undefined) === (entry.case === undefined)) return "a waiver names one check or one case: check: NAME or case: ID";
  const kind = entry.check === undefined ? "case" : "check";
  const target = entry[kind];
  if (typeof target !== "string") return `${kind} must be a name`;
  const unknown = knownTarget(kind, target);
  if (unknown !== undefined) return unknown;
  const match = readMatch(entry.match);
  if (typeof match === "string") return match;
  const reason = entry.reason;
  if (typeof reason !== "string" || reason.trim() === "") return `${kind} ${target} needs a reason: why the team accepts the finding`;
  return { kind, target, match, reason: reason.trim() };
}

/** The waivers of `--ignore FILE`, or a WaiverError of one line (`--ignore w.yaml, line 4: unknown check …`). */
export function readWaiverFile(file: string): Waiver[] {
  const what = `--ignore ${file}`;
  let text: string;
  try {
    text = readBounded(file, what, MAX_WAIVER_FILE_BYTES, `the ${MAX_WAIVER_FILE_BYTES} bytes (1 MB) a waiver file may hold`);
  } catch (error) {
    throw error instanceof FileReadError ? new WaiverError(error.message, { cause: error }) : error;
  }
  const { parseDocument, LineCounter, YAMLParseError, isSeq } = yaml();
  const lines = new LineCounter();
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  } catch (error) {
    if (error instanceof RangeError) throw new WaiverError(`${what}: nests too deep to read`, { cause: error });
    throw error;
  }
  const [parseError] = document.errors;
  if (parseError !== undefined) throw new WaiverError(`${what}${parseError instanceof YAMLParseError ? yamlProblem(parseError) : `: ${parseError.message}`}`);
  const entries: unknown = document.toJS({ maxAliasCount: 100 });
  if (entries === null || entries === undefined) return [];
  if (!Array.isArray(entries) || !isSeq(document.contents))
    throw new WaiverError(`${what}: must be a list of waivers, each "- check: NAME" (or "case: ID"), an optional "match:" and a "reason:"`);
  const items = document.contents.items;
  return entries.map((entry, index) => {
    const offset = (items[index] as { range?: [number, number, number] } | undefined)?.range?.[0];
    const source = offset === undefined ? `${what}, entry ${index + 1}` : `${what}, line ${lines.linePos(offset).line}`;
    const read = readEntry(entry);
    if (typeof read === "string") throw new WaiverError(`${source}: ${read}`);
    return { ...read, source: source.replace(/^--ignore /, "") };
  });
}

/** `negative_data_rejection where the request contains "a@b"`, as the report names a waiver. */
export function describeWaiver(waiver: Waiver): string {
  const { request, pointer, status } = waiver.match;
  const where = [
    ...(request === undefined ? [] : [`the request contains ${JSON.stringify(request)}`]),
    ...(pointer === undefined ? [] : [`the pointer is ${pointer}`]),
    ...(status === undefined ? [] : [`the status is ${status}`]),
  ];
  return `${waiver.kind === "case" ? "case " : ""}${waiver.target}${where.length === 0 ? "" : ` where ${where.join(" and ")}`}`;
}

function matches(waiver: Waiver, finding: Finding): boolean {
  const { request, pointer, status } = waiver.match;
  return (
    (request === undefined || finding.request.includes(request)) &&
    (pointer === undefined || finding.pointer === pointer) &&
    (status === undefined || finding.status === status)
  );
}

/** A run's waivers and what each waived. */
export class Waivers {
  private readonly waived = new Map<Waiver, number>();

  constructor(readonly list: readonly Waiver[] = []) {}

  /** The waiver that accepts this finding of a check or case, without counting it (for shrinking's tries). */
  find(kind: Waiver["kind"], target: string, finding: Finding): Waiver | undefined {
    return this.list.find((waiver) => waiver.kind === kind && waiver.target === target && matches(waiver, finding));
  }

  /** The waiver that accepts this finding, counted as waived by it. */
  waive(kind: Waiver["kind"], target: string, finding: Finding): Waiver | undefined {
    const waiver = this.find(kind, target, finding);
    if (waiver !== undefined) this.waived.set(waiver, (this.waived.get(waiver) ?? 0) + 1);
    return waiver;
  }

  /** Every waiver with the findings it waived; 0 is a stale one. */
  tally(): { waiver: Waiver; findings: number }[] {
    return this.list.map((waiver) => ({ waiver, findings: this.waived.get(waiver) ?? 0 }));
  }
}
