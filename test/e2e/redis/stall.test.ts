// A Redis that stops responding without closing its socket (paused, swapping, overloaded):
// requests respond with 503 naming the store after redis_timeout_ms instead of hanging, and recover.

import { afterEach, describe, expect, it } from "vitest";
import { startSendMock, type RunningSendMock } from "../../../src/index.js";
import { aSendRequest, bearer } from "../../support/helpers.js";
import { aKeyPrefix, redisUnavailableReason, startRedisServer, type RedisProcess } from "../../support/redis.js";

const skipReason = redisUnavailableReason({ needsOwnServer: true });
let mock: RunningSendMock | undefined;
let server: RedisProcess | undefined;

afterEach(async () => {
  server?.resume();
  await mock?.close();
  await server?.stop();
  mock = undefined;
  server = undefined;
});

function send(url: string): Promise<Response> {
  return fetch(`${url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: JSON.stringify(aSendRequest()) });
}

describe.skipIf(skipReason !== undefined)("a stalled Redis", () => {
  it("makes POST /send and GET /_mock/messages answer 503 server_error naming the store, then recovers on SIGCONT", async () => {
    server = await startRedisServer();
    mock = await startSendMock({ port: 0, watchTemplates: false, redisUrl: server.url, keyPrefix: aKeyPrefix(), redisTimeoutMs: 300 });
    expect((await send(mock.url)).status).toBe(200);

    server.pause();
    // Without the deadline both calls wait as long as the pause; the test's own timeout would fail them.
    const [sent, listed] = await Promise.all([send(mock.url), fetch(`${mock.url}/_mock/messages`)]);
    for (const response of [sent, listed]) {
      expect(response.status).toBe(503);
      expect(response.headers.get("x-sendmock-error-code")).toBe("server_error");
      expect(await response.text()).toContain(`redis store at ${server.url} is unreachable: no answer within redis_timeout_ms (300 ms)`);
    }

    server.resume();
    const recovered = await send(mock.url);
    expect(recovered.status).toBe(200);
    const list = (await (await fetch(`${mock.url}/_mock/messages`)).json()) as { messages: { id: string }[] };
    expect(list.messages.map((message) => message.id)).toContain(((await recovered.json()) as { message_id: string }).message_id);
  });
});
