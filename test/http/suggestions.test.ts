// A misspelt key or value gets the same "did you mean" wherever it is written: the config file,
// the library's options and handles, and the inspection API.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { FaultRuleInput, OutcomeRuleInput, SendRequest, WebhookInput } from "../../src/index.js";
import { aConfigFile, configErrorOf } from "../support/config-files.js";
import { aMockForThisTest, aSendRequest, bearer, sharedMock } from "../support/helpers.js";

const theMock = sharedMock();

/** The message of an admin call's 400. */
async function httpRefusal(method: "post" | "patch", path: string, body: object): Promise<string> {
  const response = await request(theMock().app)[method](path).send(body);
  expect(response.status).toBe(400);
  return (response.body as { error: { message: string } }).error.message;
}

/** The message a library call rejects with. */
async function libraryRefusal(call: () => Promise<unknown>): Promise<string> {
  const error: unknown = await call().then(
    () => new Error("accepted"),
    (refusal: unknown) => refusal,
  );
  return (error as Error).message;
}

/** The message of a send refused for the fault it asked for. */
async function sendRefusal(headers: Record<string, string>, body: SendRequest): Promise<string> {
  const response = await request(theMock().app).post("/send").set(bearer()).set(headers).send(body);
  expect(response.status).toBe(400);
  return (response.body as { error: { message: string } }).error.message;
}

async function fileRefusal(yaml: string): Promise<string> {
  const file = await aConfigFile("sendmock.yaml", yaml);
  return configErrorOf(() => resolveConfig({ config: file }));
}

describe("a misspelt key or value", () => {
  it.each<[string, string, () => Promise<string>[]]>([
    [
      "a fault kind",
      "server_error",
      () => [
        fileRefusal("faults: [{ fault: server_eror }]"),
        httpRefusal("post", "/_mock/faults", { fault: "server_eror" }),
        libraryRefusal(() => theMock().faults.add({ fault: "server_eror" } as unknown as FaultRuleInput)),
        sendRefusal({ "X-Sendmock-Fault": "server_eror" }, aSendRequest()),
        sendRefusal({}, aSendRequest({ to: "server_eror@fault.sendmock.test" })),
      ],
    ],
    [
      "a fault rule's parameter",
      "delay_ms",
      () => [
        fileRefusal("faults: [{ fault: latency, delay: 500 }]"),
        httpRefusal("post", "/_mock/faults", { fault: "latency", delay: 500 }),
        libraryRefusal(() => theMock().faults.add({ fault: "latency", delay: 500 } as unknown as FaultRuleInput)),
      ],
    ],
    [
      "a key of a rule's match",
      "to",
      () => [
        fileRefusal("faults: [{ fault: latency, match: { too: a@example.com } }]"),
        httpRefusal("post", "/_mock/faults", { fault: "latency", match: { too: "a@example.com" } }),
        httpRefusal("post", "/_mock/outcomes", { outcome: "bounced", match: { too: "a@example.com" } }),
      ],
    ],
    [
      "an outcome rule's key",
      "times",
      () => [
        fileRefusal("outcome_rules: [{ outcome: bounced, time: 1 }]"),
        httpRefusal("post", "/_mock/outcomes", { outcome: "bounced", time: 1 }),
        libraryRefusal(() => theMock().outcomes.add({ outcome: "bounced", time: 1 } as unknown as OutcomeRuleInput)),
      ],
    ],
    [
      "an outcome",
      "bounced",
      () => [
        fileRefusal("outcome_rules: [{ outcome: bounce }]"),
        fileRefusal("lifecycle: { default_outcome: bounce }"),
        httpRefusal("post", "/_mock/outcomes", { outcome: "bounce" }),
        libraryRefusal(() => theMock().outcomes.add({ outcome: "bounce" } as unknown as OutcomeRuleInput)),
      ],
    ],
    [
      "a webhook's key",
      "events",
      () => [
        fileRefusal("webhooks: [{ url: http://127.0.0.1:9/, event: [message.sent] }]"),
        httpRefusal("post", "/_mock/webhooks", { url: "http://127.0.0.1:9/", event: ["message.sent"] }),
        libraryRefusal(() => theMock().webhooks.add({ url: "http://127.0.0.1:9/", event: ["message.sent"] } as unknown as WebhookInput)),
      ],
    ],
    [
      "a webhook's event type",
      "message.bounced",
      () => [
        fileRefusal("webhooks: [{ url: http://127.0.0.1:9/, events: [message.bouncd] }]"),
        httpRefusal("post", "/_mock/webhooks", { url: "http://127.0.0.1:9/", events: ["message.bouncd"] }),
        libraryRefusal(() => theMock().webhooks.add({ url: "http://127.0.0.1:9/", events: ["message.bouncd"] } as unknown as WebhookInput)),
      ],
    ],
    ["an error code of status_codes", "server_error", () => [fileRefusal("status_codes: { server_eror: 503 }")]],
    ["a top-level key of the config", "capacity", () => [fileRefusal("capacty: 5")]],
    ["a run-time setting", "response_shape", () => [httpRefusal("patch", "/_mock/config", { response_shap: "b" }), fileRefusal("response_shap: b")]],
  ])("%s is answered with the key or value it was meant to be, everywhere", async (_label, meant, refusals) => {
    for (const message of await Promise.all(refusals())) expect(message).toContain(`(did you mean ${meant}?)`);
  });

  it("in the library, names the camelCase key it was meant to be", async () => {
    expect(await libraryRefusal(() => theMock().settings.update({ responseShap: "b" } as never))).toBe(
      "Invalid request: responseShap is not a known field (did you mean responseShape?)",
    );
  });
});

describe("a misspelt data key", () => {
  const welcome = { name: "Ada", company: "Acme" };
  /** The words of a send of the welcome template with `data`, refused. */
  const refusalOf = async (data: Record<string, string>, app = theMock().app): Promise<string> => {
    const response = await request(app).post("/send").set(bearer()).send(aSendRequest({ data }));
    expect(response.status).toBe(422);
    return (response.body as { error: { message: string } }).error.message;
  };

  it("refused for the placeholder it left out, says which key was meant", async () => {
    expect(await refusalOf({ ...welcome, loginurl: "https://app.example.com/login" })).toBe(
      'Missing template data: template "welcome" needs data.login_url (did you mean data.login_url for data.loginurl?)',
    );
  });

  it("beside every placeholder, accepted with a warning that says which key was meant; with strict_data, refused saying the same", async () => {
    const data = { ...welcome, login_url: "https://app.example.com/login", compnay: "Acme" };
    const accepted = await request(theMock().app).post("/send").set(bearer()).send(aSendRequest({ data }));
    expect(accepted.status).toBe(200);
    expect(accepted.headers["x-sendmock-warning"]).toBe(
      'unknown_template_data: data.compnay matches no placeholder of template "welcome" (did you mean data.company for data.compnay?)',
    );

    const strict = await aMockForThisTest({ strictData: true });
    expect(await refusalOf(data, strict.app)).toBe(
      'Unknown template data: data.compnay matches no placeholder of template "welcome" (did you mean data.company for data.compnay?)',
    );
  });

  it("says nothing more when no placeholder is close", async () => {
    expect(await refusalOf({ ...welcome, colour: "blue" })).toBe('Missing template data: template "welcome" needs data.login_url');
  });
});
