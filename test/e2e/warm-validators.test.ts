// No request, to POST /send or the inspection API, accepted or refused, compiles a schema: the
// contracts' checks and sendmock's input checks are built ahead (dist/, which a run from src/
// finds too), else compiled when the first mock of a process is built, once.

import { describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { closedAfterEach, spyOnSchemaCompiles } from "../support/schema-compiles.js";
import { aSendRequest, bearer } from "../support/helpers.js";

const mocks = closedAfterEach();

async function send(mock: RunningSendMock, body: unknown): Promise<number> {
  const response = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

async function inspect(mock: RunningSendMock, path: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(`${mock.url}${path}`, init);
  await response.text();
  return response.status;
}

const json = { "Content-Type": "application/json" };

describe("the checks of a mock", () => {
  it("compile nothing for the requests of the first mock of a process, to either API", async () => {
    const compiles = spyOnSchemaCompiles();
    const mock = await startSendMock({ port: 0, watchTemplates: false });
    mocks.push(mock);
    compiles.mockClear();

    expect(await send(mock, aSendRequest())).toBe(200);
    expect(await send(mock, { ...aSendRequest(), to: 42 })).toBe(400);
    expect(await send(mock, aSendRequest({ template_id: "no-such-template" }))).toBe(422);
    expect(await inspect(mock, "/_mock/messages?limit=2")).toBe(200);
    expect(await inspect(mock, "/_mock/messages?limit=abc")).toBe(400);
    expect(await inspect(mock, "/_mock/faults", { method: "POST", headers: json, body: JSON.stringify({ fault: "server_error" }) })).toBe(201);
    expect(await inspect(mock, "/_mock/faults", { method: "POST", headers: json, body: JSON.stringify({ fault: "nope" }) })).toBe(400);
    expect(await inspect(mock, "/_mock/config", { method: "PATCH", headers: json, body: JSON.stringify({ response_shape: "c" }) })).toBe(400);
    expect(compiles).not.toHaveBeenCalled();
  });

  it("compile nothing for a later mock of the same process", async () => {
    mocks.push(await startSendMock({ port: 0, watchTemplates: false }));
    const compiles = spyOnSchemaCompiles();
    const later = await startSendMock({ port: 0, watchTemplates: false, responseShape: "b" });
    mocks.push(later);
    expect(await send(later, aSendRequest())).toBe(200);
    expect(await inspect(later, "/_mock/messages")).toBe(200);
    expect(compiles).not.toHaveBeenCalled();
  });
});
