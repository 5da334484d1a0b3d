// `sendmock lint` through the real CLI: the shipped templates pass, a planted defect of each kind fails its check, the JUnit file, and the usage errors.

import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli-process.js";
import { expectedSeverity } from "../support/caniemail.js";
import { PYTHON } from "../support/python.js";

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

async function lint(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(["lint", ...args], running);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A template file's text: YAML with every string a JSON string, which YAML reads as it is. */
const templateYaml = (template: { subject: string; html?: string; text?: string; sample_data?: Record<string, string> }): string =>
  Object.entries(template)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join("\n");

const TEXT = "Hello Ada,\n\nYour account is ready.";
const page = (body: string): string => `<html lang="en"><body>\n${body}\n</body></html>`;

/** One template per kind of defect, each failing that check and no other. */
const PLANTED: Record<string, { check: string; file: string }> = {
  "unsupported-css": {
    check: "html_support",
    file: templateYaml({ subject: "Sale", html: page('<div style="position: fixed; top: 0">Sale now on</div>'), text: TEXT }),
  },
  "unrendered-placeholder": {
    check: "placeholders",
    file: templateYaml({ subject: "Hi {name}", html: page("<p>Hello {name}</p>"), text: "Hello {name}", sample_data: { name: "{first_name}" } }),
  },
  "localhost-link": {
    check: "links",
    file: templateYaml({
      subject: "Log in",
      html: page('<p><a href="{login_url}">Log in to your account</a></p>'),
      text: "Log in: {login_url}",
      sample_data: { login_url: "http://localhost:3000/login" },
    }),
  },
  "image-without-alt": {
    check: "accessibility",
    file: templateYaml({ subject: "Logo", html: page('<img src="https://cdn.example.com/logo.png">'), text: TEXT }),
  },
  "too-big": { check: "size", file: templateYaml({ subject: "Big", html: page(`<p>${"All the news. ".repeat(9000)}</p>`), text: TEXT }) },
  "no-text-part": { check: "text_part", file: templateYaml({ subject: "HTML only", html: page("<p>Hello</p>") }) },
};

let work = "";
let planted = "";

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "sendmock-lint-"));
  planted = path.join(work, "planted");
  await mkdir(planted);
  for (const [id, { file }] of Object.entries(PLANTED)) await writeFile(path.join(planted, `${id}.yaml`), file);
  for (const folder of ["empty", "broken", "unrenderable"]) await mkdir(path.join(work, folder));
  await writeFile(path.join(work, "broken", "bad.yaml"), "html: <p>no subject</p>\n");
  await writeFile(path.join(work, "unrenderable", "greeting.yaml"), templateYaml({ subject: "Hi {name}", text: "Hello {name}" }));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The status line of each check of a template, from the text lint prints. */
function checkStatuses(stdout: string, id: string): Record<string, string> {
  const block = stdout.slice(stdout.indexOf(`\n${id} (`) + 1).split("\n\n")[0] ?? "";
  return Object.fromEntries([...block.matchAll(/^ {2}(\w+) +(\w+) {2}/gm)].map((match) => [match[2] ?? "", match[1] ?? ""]));
}

describe("sendmock lint", () => {
  it("passes the shipped templates: exit 0, each template and check on its lines", async () => {
    const run = await lint([]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    for (const id of ["newsletter", "order-receipt", "password-reset", "welcome"]) {
      const statuses = checkStatuses(`\n${run.stdout}`, id);
      expect(Object.keys(statuses)).toEqual(["html_support", "links", "size", "text_part", "placeholders", "accessibility"]);
      expect(Object.values(statuses)).not.toContain("fail");
    }
    expect(run.stdout).toMatch(/\n4 templates linted: 0 failed, \d+ with warnings, \d+ passed\n$/);
  });

  it("fails a planted defect of each kind, naming its check and where it is, and exits 1", async () => {
    expect(expectedSeverity("css-position"), "the data says position is unsupported by a major client").toBe("fail");
    const run = await lint(["--templates", planted]);
    expect(run.code).toBe(1);
    for (const [id, { check }] of Object.entries(PLANTED)) {
      const statuses = checkStatuses(`\n${run.stdout}`, id);
      expect(statuses[check], `${id}: ${check}`).toBe("fail");
      expect(
        Object.entries(statuses).filter(([, status]) => status === "fail"),
        `${id} fails ${check} alone`,
      ).toEqual([[check, "fail"]]);
    }
    expect(run.stdout).toContain("html:2  position: no support in Gmail");
    expect(run.stdout).toContain("html:2  http://localhost:3000/login: its host localhost is the recipient's own machine");
    expect(run.stdout).toContain("subject:1  {first_name} left unrendered in the subject");
    expect(run.stdout).toMatch(/html:2 {2}an image without alt/);
    expect(run.stdout).toContain("6 templates linted: 6 failed");
  });

  it("writes JUnit that parses: a suite per template, a case per check, a failure per failed check, with real times", async () => {
    const junit = path.join(work, "lint.xml");
    const run = await lint(["--templates", planted, "--junit", junit]);
    expect(run.code).toBe(1);
    const read = spawnSync(
      PYTHON,
      [
        "-c",
        "import json, sys, xml.etree.ElementTree as ET\n" +
          "root = ET.parse(sys.argv[1]).getroot()\n" +
          "print(json.dumps({'tag': root.tag, 'failures': root.get('failures'), 'suites': [{'name': s.get('name'), 'time': float(s.get('time')), 'cases': [{'name': c.get('name'), 'time': float(c.get('time')), 'failure': c.find('failure') is not None} for c in s.findall('testcase')]} for s in root.findall('testsuite')]}))",
        junit,
      ],
      { encoding: "utf8" },
    );
    expect(read.stderr).toBe("");
    const parsed = JSON.parse(read.stdout) as {
      tag: string;
      failures: string;
      suites: { name: string; time: number; cases: { name: string; time: number; failure: boolean }[] }[];
    };
    expect(parsed.tag).toBe("testsuites");
    expect(parsed.failures).toBe("6");
    expect(parsed.suites.map((suite) => suite.name).sort()).toEqual(Object.keys(PLANTED).sort());
    for (const suite of parsed.suites) {
      expect(suite.cases.map((testcase) => testcase.name)).toEqual(["html_support", "links", "size", "text_part", "placeholders", "accessibility"]);
      expect(suite.cases.filter((testcase) => testcase.failure).map((testcase) => testcase.name)).toEqual([PLANTED[suite.name]?.check]);
      expect(suite.time).toBeGreaterThan(0);
      expect(suite.cases.every((testcase) => testcase.time >= 0)).toBe(true);
    }
    expect(await readFile(junit, "utf8")).toContain('<failure message="position: no support in Gmail');
  });

  it.each([
    ["an unknown folder", (): string[] => ["--templates", path.join(work, "nowhere")], /^sendmock: templates folder .*nowhere does not exist\n$/],
    ["a folder with no template", (): string[] => ["--templates", path.join(work, "empty")], /^sendmock: templates folder .*holds no template/],
    [
      "a template that cannot be loaded",
      (): string[] => ["--templates", path.join(work, "broken")],
      /^sendmock: template .*bad\.yaml cannot be loaded: subject is missing\n$/,
    ],
    [
      "a template that cannot be rendered",
      (): string[] => ["--templates", path.join(work, "unrenderable")],
      /^sendmock: template .*greeting\.yaml cannot be rendered: it has no sample_data, and needs values for name/,
    ],
    ["an unknown flag", (): string[] => ["--template", planted], /unknown option '--template'/],
  ])("exits 2 with one line for %s", async (_what, args, line) => {
    const run = await lint(args());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(line);
    if (!/unknown option/.test(run.stderr)) expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
