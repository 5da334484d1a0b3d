// The one table of faults in docs/errors-and-faults.md: each row's effect, by each way in it names (request header, magic recipient, rule).

import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/load.js";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { ROOT } from "../support/cli-process.js";
import { FIRST_SEND, sendHeaders, SLOW } from "../support/docs/pages.js";

let mock: RunningSendMock;

beforeAll(async () => {
  mock = await startSendMock({ port: 0, watchTemplates: false });
}, 30_000);

afterAll(() => mock.close());

/** The values the table's S, R and D stand for, and what its `{...}` and B stand for in a respond rule. */
const TABLE_VALUES: Record<string, string> = { S: "503", R: "7", D: "50", "{...}": '{"X-Note": "from the table"}', B: '"a custom answer"' };

interface FaultRow {
  fault: string;
  effect: string;
  header: string;
  recipient: string;
  rule: string;
}

function faultRows(): FaultRow[] {
  const text = readFileSync(path.join(ROOT, "docs/errors-and-faults.md"), "utf8");
  const table = text.slice(text.indexOf("| fault | effect | by request header | by magic recipient | by rule |"));
  return table
    .split("\n")
    .slice(2)
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [fault = "", effect = "", header = "", recipient = "", rule = ""] = line.slice(2, -2).split(" | ");
      return { fault: fault.replaceAll("`", ""), effect, header, recipient, rule };
    });
}

/** The S, R and D a cell uses, replaced by their values. */
function withValues(cell: string): { text: string; uses: Set<string> } {
  const uses = new Set<string>();
  const text = cell.replace(/\{\.\.\.\}|\b[SRDB]\b/g, (name) => {
    uses.add(name);
    return TABLE_VALUES[name] ?? name;
  });
  return { text, uses };
}

interface Responded {
  status?: number;
  headers?: Headers;
  body?: string;
  ms: number;
}

async function sendTo(headers: Record<string, string>, to = FIRST_SEND.to): Promise<Responded> {
  const started = performance.now();
  try {
    const response = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { ...sendHeaders(), ...headers },
      body: JSON.stringify({ ...FIRST_SEND, to }),
    });
    return { status: response.status, headers: response.headers, body: await response.text(), ms: performance.now() - started };
  } catch {
    return { ms: performance.now() - started }; // the connection closed with no response
  }
}

/** What the row's effect says happens, held against one response; `uses` are the values the way in gave. */
async function expectEffect(row: FaultRow, responded: Responded, uses: Set<string>, capturedBefore: number, way: string): Promise<void> {
  const where = `${row.fault} ${way}: ${JSON.stringify({ status: responded.status, body: responded.body?.slice(0, 200) })}`;
  const error = /^(\d{3}|S) `(\w+)`/.exec(row.effect);
  if (error) {
    expect(responded.status, where).toBe(Number(error[1] === "S" ? TABLE_VALUES.S : error[1]));
    expect(responded.headers?.get("x-sendmock-error-code"), where).toBe(error[2]);
    // "with `Retry-After: R` (default 1)" always has one; "with R, also `Retry-After: R`" only when R is given.
    const optional = row.effect.includes("with R, also `Retry-After: R`");
    if (uses.has("R")) expect(responded.headers?.get("retry-after"), where).toBe(TABLE_VALUES.R);
    else if (row.effect.includes("`Retry-After: R`")) expect(responded.headers?.get("retry-after"), where).toBe(optional ? null : "1");
  } else if (row.effect.startsWith("waits D ms")) {
    expect(responded.status, where).toBe(200);
    expect(responded.ms, where).toBeGreaterThanOrEqual(Number(TABLE_VALUES.D) - 5);
  } else if (row.effect.startsWith("no response")) {
    expect(responded.status, where).toBeUndefined();
    if (row.effect.includes("for D ms")) expect(responded.ms, where).toBeGreaterThanOrEqual(Number(TABLE_VALUES.D) - 5);
    const captured = (await mock.outbox.list()).total - capturedBefore;
    expect(captured, where).toBe(row.effect.includes("the message is captured") ? 1 : 0);
  } else if (row.effect.startsWith("200 with a body that is not valid JSON")) {
    expect(responded.status, where).toBe(200);
    expect(() => JSON.parse(responded.body ?? "") as unknown, where).toThrow();
  } else if (row.effect.startsWith("the rule's `status`, `headers` and `body`")) {
    expect(responded.status, where).toBe(Number(TABLE_VALUES.S));
    expect(responded.headers?.get("x-note"), where).toBe("from the table");
    expect(responded.body, where).toBe("a custom answer");
  } else {
    throw new Error(`${row.fault}: no way to check the effect "${row.effect}"`);
  }
}

async function checkFaultRow(row: FaultRow): Promise<void> {
  const refused = (cell: string): boolean => cell.startsWith("no: 400 `invalid_request`");
  // By request header: every `Name: value` of the cell.
  await mock.reset();
  const header = withValues(row.header);
  const headers = Object.fromEntries([...header.text.matchAll(/`([\w-]+): ([^`]+)`/g)].map((match) => [match[1] ?? "", match[2] ?? ""]));
  if (refused(row.header)) headers["X-Sendmock-Fault"] = row.fault;
  let before = (await mock.outbox.list()).total;
  const byHeader = await sendTo(headers);
  if (refused(row.header))
    expect([byHeader.status, byHeader.headers?.get("x-sendmock-error-code")], `${row.fault} by header`).toEqual([400, "invalid_request"]);
  else await expectEffect(row, byHeader, header.uses, before, "by header");
  // By magic recipient: each address of the cell.
  const addresses = refused(row.recipient)
    ? [`${row.fault}@fault.sendmock.test`]
    : [...row.recipient.matchAll(/`([^`]+@fault\.sendmock\.test)`/g)].map((match) => match[1] ?? "");
  expect(addresses.length, `${row.fault}: its magic recipients`).toBeGreaterThan(0);
  for (const address of addresses) {
    await mock.reset();
    const recipient = withValues(address);
    before = (await mock.outbox.list()).total;
    const byRecipient = await sendTo({}, recipient.text);
    if (refused(row.recipient))
      expect([byRecipient.status, byRecipient.headers?.get("x-sendmock-error-code")], `${row.fault} by ${address}`).toEqual([400, "invalid_request"]);
    else await expectEffect(row, byRecipient, recipient.uses, before, `by ${address}`);
  }
  // By rule: the cell's JSON, once.
  await mock.reset();
  const rule = withValues(/`(\{.*\})`/.exec(row.rule)?.[1] ?? "");
  const added = await fetch(`${mock.url}/_mock/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...(JSON.parse(rule.text) as object), times: 1 }),
  });
  expect(added.status, `${row.fault} rule ${rule.text}: ${await added.clone().text()}`).toBe(201);
  before = (await mock.outbox.list()).total;
  await expectEffect(row, await sendTo({}), rule.uses, before, "by rule");
}

describe("docs/errors-and-faults.md, its table of faults", () => {
  it("has a row for every fault kind sendmock knows", async () => {
    const contract = await loadContract(path.join(ROOT, "openapi/admin.yaml"));
    const schema: unknown = contract.document.components?.schemas?.FaultKind;
    const kinds = (schema as { enum?: string[] } | undefined)?.enum ?? [];
    expect(
      faultRows()
        .map((row) => row.fault)
        .sort(),
    ).toEqual([...kinds].sort());
  });

  for (const row of faultRows()) {
    it(`does what its ${row.fault} row says, by header, by magic recipient and by rule`, () => checkFaultRow(row), SLOW.timeout);
  }
});
