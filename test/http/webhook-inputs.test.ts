// What a webhook may be given: a secret that Standard Webhooks libraries can use (the
// `standardwebhooks` package is the judge, not sendmock), and a URL stored as the one posted to,
// never holding a credential.

import { randomBytes } from "node:crypto";
import request from "supertest";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { SendMock, Webhook, WebhookInput } from "../../src/index.js";
import { aConfigFile, configErrorOf } from "../support/config-files.js";
import { aMockForThisTest, aSendRequest, bearer, sharedMock } from "../support/helpers.js";
import { aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

const STEP_MS = 60_000;
const secretOf = (bytes: number): string => `whsec_${randomBytes(bytes).toString("base64")}`;

/** Whether the standardwebhooks package takes the secret at all. */
function libraryTakes(secret: string): boolean {
  try {
    new StandardWebhook(secret);
    return true;
  } catch {
    return false;
  }
}

/** The bytes of the key after `whsec_`, as Node reads base64 (leniently). */
const keyBytes = (secret: string): number => Buffer.from(secret.slice("whsec_".length), "base64").length;

async function refusalOf(mock: SendMock, input: WebhookInput): Promise<string> {
  const response = await request(mock.app).post("/_mock/webhooks").send(input);
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ error: { code: "invalid_request" } });
  return (response.body as { error: { message: string } }).error.message;
}

async function libraryRefusalOf(mock: SendMock, input: WebhookInput): Promise<string> {
  const error: unknown = await mock.webhooks.add(input).then(
    () => new Error("accepted"),
    (refusal: unknown) => refusal,
  );
  return (error as Error).message;
}

async function fileRefusalOf(input: WebhookInput): Promise<string> {
  const file = await aConfigFile("sendmock.json", JSON.stringify({ webhooks: [input] }));
  return configErrorOf(() => resolveConfig({ config: file }));
}

describe("a webhook secret", () => {
  const theMock = sharedMock();

  it.each([
    ["one character of base64", "whsec_a"],
    ["padding with nothing before it", "whsec_A=="],
    ["one +", "whsec_+"],
    ["base64 cut short", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS"],
    ["padding in the middle", "whsec_MfKQ9r8G=KYqrTwjUPD8ILPZIo2LaLaSw"],
    ["16 bytes, fewer than the specification's 24", secretOf(16)],
    ["65 bytes, more than the specification's 64", secretOf(65)],
  ])("of %s is refused in the API, the library and the config file", async (_label, secret) => {
    const input = { url: "http://127.0.0.1:9/hooks", secret };
    // The judge: what a receiver's library cannot use, or what the specification rules out.
    expect(!libraryTakes(secret) || keyBytes(secret) < 24 || keyBytes(secret) > 64).toBe(true);

    for (const message of [await refusalOf(theMock(), input), await libraryRefusalOf(theMock(), input), await fileRefusalOf(input)]) {
      expect(message).toContain("secret must be");
      expect(message).toContain("24 to 64 bytes");
    }
    expect(await theMock().webhooks.list()).toEqual([]);
  });

  it("of 24, 25, 32 and 64 bytes is taken, and what is signed with it passes the standardwebhooks library", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const secrets = [secretOf(24), secretOf(25), secretOf(32), secretOf(64)];
    const mock = await aMockForThisTest({
      lifecycle: { stepMs: STEP_MS },
      webhooks: secrets.map((secret) => ({ url: receiver.url, secret, events: ["message.sent"] })),
    });

    await request(mock.app).post("/send").set(bearer()).send(aSendRequest()).expect(200);
    await mock.clock.advance(STEP_MS);

    expect(receiver.received).toHaveLength(secrets.length);
    const verifiedBy = secrets.map((secret) =>
      receiver.received.filter(({ body, headers }) => {
        try {
          new StandardWebhook(secret).verify(body, headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      }),
    );
    expect(verifiedBy.map((verified) => verified.length)).toEqual([1, 1, 1, 1]);
  });
});

describe("a webhook URL", () => {
  const theMock = sharedMock();

  it("holding credentials is refused, and the password is shown nowhere", async () => {
    const input = { url: "http://ada:hunter2@127.0.0.1:9/hooks" };

    for (const message of [await refusalOf(theMock(), input), await libraryRefusalOf(theMock(), input), await fileRefusalOf(input)]) {
      expect(message).toContain("url must not hold credentials");
      expect(message).not.toContain("hunter2");
      expect(message).not.toContain("ada");
    }
    expect(await theMock().webhooks.list()).toEqual([]);
  });

  it.each([
    ["a space before it", " http://127.0.0.1:9/hooks"],
    ["a line break after it", "http://127.0.0.1:9/hooks\n"],
    ["a tab inside it", "http://127.0.0.1:9/ho\toks"],
  ])("with %s is refused: the URL parser would drop it", async (_label, url) => {
    expect(await refusalOf(theMock(), { url })).toContain("url must not begin or end with a space, nor hold control characters");
    expect(await theMock().webhooks.list()).toEqual([]);
  });

  it.each(["file:///etc/passwd", "ftp://ada:hunter2@127.0.0.1/x", "ws://127.0.0.1:9/", "javascript:alert(1)"])(
    "that is not http(s), %s, is still refused, without the password",
    async (url) => {
      const message = await refusalOf(theMock(), { url });
      expect(message).toContain("url must be an http or https URL");
      expect(message).not.toContain("hunter2");
    },
  );

  it("written another way than it is posted to is kept as the URL posted to, and delivered there", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const port = new URL(receiver.url).port;
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS } });

    const added = await request(mock.app)
      .post("/_mock/webhooks")
      .send({ url: `http:/127.0.0.1:${port}/webhooks/../webhooks/email`, events: ["message.sent"] });
    const other = await mock.webhooks.add({ url: `HTTP://LOCALHOST:${port}`, events: ["message.sent"] });
    const spaced = await mock.webhooks.add({ url: `http://127.0.0.1:${port}/my hooks?tag=<b>`, events: ["message.sent"] });

    expect(added.status).toBe(201);
    expect((added.body as Webhook).url).toBe(receiver.url);
    expect(other.url).toBe(`http://localhost:${port}/`);
    expect(spaced.url).toBe(`http://127.0.0.1:${port}/my%20hooks?tag=%3Cb%3E`);
    expect((await mock.webhooks.list()).map((webhook) => webhook.url)).toEqual([receiver.url, other.url, spaced.url]);
    await request(mock.app).post("/send").set(bearer()).send(aSendRequest()).expect(200);
    await mock.clock.advance(STEP_MS);
    expect(receiver.received.map((delivery) => delivery.payload.type)).toEqual(["message.sent", "message.sent", "message.sent"]);
  });
});
