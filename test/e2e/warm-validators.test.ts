// A new mock compiles its POST /send validators while it is built, once per process: no send,
// first or later, accepted or refused, compiles a schema. (An e2e file: vitest gives it a module
// graph of its own, so nothing was compiled before its first mock.) The inspection API's are
// compiled in the background meanwhile: warm-inspection-validators.test.ts.

import { describe, expect, it } from "vitest";
import { warmContractValidator } from "../../src/contract/express-validator.js";
import { ADMIN_CONTRACT, loadContract } from "../../src/contract/load.js";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { closedAfterEach, spyOnSchemaCompiles } from "../support/schema-compiles.js";
import { aSendRequest, bearer } from "../support/helpers.js";

const mocks = closedAfterEach();

/**
 * The inspection API's background warm-up that a started mock began (the same one: it runs once
 * per process), so that what it compiles is not counted against the requests that follow.
 */
async function inspectionApiWarmedUp(): Promise<void> {
  await warmContractValidator(await loadContract(ADMIN_CONTRACT));
}

async function send(mock: RunningSendMock, body: unknown): Promise<number> {
  const answer = await fetch(`${mock.url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: JSON.stringify(body) });
  await answer.text();
  return answer.status;
}

describe("the POST /send validators", () => {
  it("are compiled when the first mock of a process is built, not by its sends", async () => {
    const building = spyOnSchemaCompiles();
    const mock = await startSendMock({ port: 0, watchTemplates: false });
    mocks.push(mock);
    expect(building.mock.calls.length).toBeGreaterThan(0);
    await inspectionApiWarmedUp();
    building.mockRestore();

    const onRequests = spyOnSchemaCompiles();
    expect(await send(mock, aSendRequest())).toBe(200);
    expect(await send(mock, { ...aSendRequest(), to: 42 })).toBe(400);
    expect(await send(mock, aSendRequest({ template_id: "no-such-template" }))).toBe(422);
    expect(onRequests).not.toHaveBeenCalled();
  });

  it("are not compiled again for a later mock of the same process", async () => {
    mocks.push(await startSendMock({ port: 0, watchTemplates: false }));
    await inspectionApiWarmedUp();
    const compiles = spyOnSchemaCompiles();
    const later = await startSendMock({ port: 0, watchTemplates: false, responseShape: "b" });
    mocks.push(later);
    expect(await send(later, aSendRequest())).toBe(200);
    expect(compiles).not.toHaveBeenCalled();
  });
});
