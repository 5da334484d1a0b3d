// The waivers of `sendmock check` as a team writes them: `--skip-check NAME` and an `--ignore FILE` of
// YAML entries (a check or case, an optional match, a reason); a file that cannot be used is one line
// saying where and why; each waiver counts what it waived, and one that waived nothing shows as stale.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeWaiver, readWaiverFile, skipWaiver, WaiverError, Waivers } from "../../src/check/waivers.js";
import { waiverLines } from "../../src/check/report.js";

const folder = mkdtempSync(path.join(tmpdir(), "sendmock-waivers-"));
let files = 0;
function waiverFile(text: string): string {
  const file = path.join(folder, `waivers-${++files}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** The one line a file that cannot be used is refused with. */
function refusal(text: string): string {
  const file = waiverFile(text);
  try {
    readWaiverFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(WaiverError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    return message.replace(file, "FILE");
  }
  throw new Error("the file was read");
}

describe("a waiver file", () => {
  it("reads each entry's check or case, match and reason, and where it was written", () => {
    const file = waiverFile(
      [
        "# accepted findings",
        "- check: negative_data_rejection",
        "  match:",
        '    request: "not an email address"',
        "    status: 202",
        "  reason: the spec never defines a valid address",
        "- case: invalid-recipient",
        "  match: { pointer: /body/error/code }",
        "  reason: our provider says invalid_email",
      ].join("\n"),
    );
    const waivers = readWaiverFile(file);
    expect(waivers).toEqual([
      {
        kind: "check",
        target: "negative_data_rejection",
        match: { request: "not an email address", status: 202 },
        reason: "the spec never defines a valid address",
        source: `${file}, line 2`,
      },
      {
        kind: "case",
        target: "invalid-recipient",
        match: { pointer: "/body/error/code" },
        reason: "our provider says invalid_email",
        source: `${file}, line 7`,
      },
    ]);
    expect(waivers.map(describeWaiver)).toEqual([
      'negative_data_rejection where the request contains "not an email address" and the status is 202',
      "case invalid-recipient where the pointer is /body/error/code",
    ]);
  });

  it("may be empty", () => {
    expect(readWaiverFile(waiverFile("# nothing waived yet\n"))).toEqual([]);
  });

  it("that is not YAML is refused with the line and column", () => {
    expect(refusal("- check: [\n")).toMatch(/^--ignore FILE, line \d+, column \d+: /);
  });

  it("naming an unknown check says which it probably meant and lists the checks", () => {
    expect(refusal("- check: not_a_servr_error\n  reason: x\n")).toMatch(
      /^--ignore FILE, line 1: unknown check "not_a_servr_error" \(did you mean not_a_server_error\?\); the checks: not_a_server_error, /,
    );
    expect(refusal("- case: invalid-recipent\n  reason: x\n")).toMatch(
      /unknown case "invalid-recipent" \(did you mean invalid-recipient\?\); the cases: missing-to, /,
    );
  });

  it("refuses an entry without a reason, one naming both or neither, a misspelt key and a bad match", () => {
    expect(refusal("- check: not_a_server_error\n")).toBe("--ignore FILE, line 1: check not_a_server_error needs a reason: why the team accepts the finding");
    expect(refusal("- check: not_a_server_error\n  reason: '  '\n")).toContain("needs a reason");
    expect(refusal("- check: not_a_server_error\n  case: missing-to\n  reason: x\n")).toContain("a waiver names one check or one case");
    expect(refusal("- reason: x\n")).toContain("a waiver names one check or one case");
    expect(refusal("- check: not_a_server_error\n  resaon: x\n")).toContain('unknown key "resaon" (did you mean reason?)');
    expect(refusal("- check: not_a_server_error\n  match: { body: x }\n  reason: x\n")).toContain('match: unknown key "body"');
    expect(refusal("- check: not_a_server_error\n  match: { status: 999 }\n  reason: x\n")).toContain("match.status must be an HTTP status");
    expect(refusal("- check: not_a_server_error\n  match: { pointer: body }\n  reason: x\n")).toContain("match.pointer must be a finding's pointer");
  });

  it("must be a list, and is read no further than its bound", () => {
    expect(refusal("check: not_a_server_error\nreason: x\n")).toContain("must be a list of waivers");
    expect(refusal("- just text\n")).toContain("a waiver must be a mapping");
    expect(() => readWaiverFile(path.join(folder, "absent.yaml"))).toThrow(/absent\.yaml: no such file/);
    expect(() => readWaiverFile(folder)).toThrow(/is a folder, not a regular file/);
    expect(refusal(`# ${"x".repeat(1024 * 1024)}\n`)).toMatch(/more than the 1048576 bytes \(1 MB\) a waiver file may hold/);
  });
});

describe("--skip-check", () => {
  it("waives a check or a case whole, and refuses a name that is neither", () => {
    expect(skipWaiver("not_a_server_error")).toMatchObject({ kind: "check", target: "not_a_server_error", match: {} });
    expect(skipWaiver("valid-send")).toMatchObject({ kind: "case", target: "valid-send" });
    expect(() => skipWaiver("not_a_server")).toThrow(/unknown check or case "not_a_server" \(did you mean not_a_server_error\?\)/);
  });
});

describe("a run's waivers", () => {
  const [waiver] = readWaiverFile(waiverFile("- check: negative_data_rejection\n  match: { request: a@b }\n  reason: accepted\n"));

  it("waive only the findings every given field matches, count them, and show the ones that waived nothing as stale", () => {
    if (waiver === undefined) throw new Error("no waiver read");
    const waivers = new Waivers([waiver, skipWaiver("max_response_time")]);
    const finding = { request: '(to: not an email address ("a@b")) POST /send {"to":"a@b"}', pointer: "/status", status: 202 };
    expect(waivers.find("check", "negative_data_rejection", finding)).toBe(waiver);
    expect(waivers.waive("check", "negative_data_rejection", { ...finding, request: "(to missing) POST /send {}" })).toBeUndefined();
    expect(waivers.waive("check", "not_a_server_error", finding)).toBeUndefined();
    expect(waivers.waive("check", "negative_data_rejection", finding)).toBe(waiver);
    expect(waivers.waive("check", "negative_data_rejection", finding)).toBe(waiver);
    const tally = waivers.tally();
    expect(tally.map(({ findings }) => findings)).toEqual([2, 0]);
    expect(waiverLines(tally)).toEqual([
      expect.stringMatching(/^waived: negative_data_rejection where the request contains "a@b" \(.*waivers-\d+\.yaml, line 1\): 2 findings, because accepted$/),
      "stale waiver: max_response_time (--skip-check) waived nothing: remove it",
    ]);
  });
});
