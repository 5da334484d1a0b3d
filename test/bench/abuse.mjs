// The abuse section of the bench: RSS and a normal send's p99 while a client sends 900 KB
// values, event streams never read, and a hostile glob is tried (issue 13's attacks), and while
// bodies of 60,000 unknown keys are refused; then the webhook engine under issue 28's: many
// webhooks and receivers that hang or are slow, large rendered payloads, and a mixed soak.
// Knobs: BENCH_ABUSE_SOAK_SECONDS (each mixed soak's length, default 60, 0 skips them),
// BENCH_ABUSE_CASES (the ids of the cases to run, comma-separated).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setInterval as every } from "node:timers/promises";
import { CLI, memoryOf, startServer, stopServer } from "./lib/servers.mjs";

const MB = 1024 * 1024;
const RSS_TARGET = 600 * MB;
const P99_TARGET_MS = 100;
const HEADERS = { "Content-Type": "application/json", Authorization: "Bearer bench-key-0001" };
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** POST or GET with a 30 s deadline; resolves with the status, 0 when it failed. */
function call(url, method, body) {
  return new Promise((resolve) => {
    const req = http.request(url, { method, headers: HEADERS, agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("timeout", () => req.destroy());
    req.once("error", () => resolve(0));
    req.end(body);
  });
}

const SOAK_SECONDS = Number(process.env.BENCH_ABUSE_SOAK_SECONDS ?? 60);
const ONLY_CASES = process.env.BENCH_ABUSE_CASES?.split(",").map((id) => id.trim()) ?? null;
/** An advance with receivers that hang responds within webhook_timeout_ms (5 s) and some slack. */
const ADVANCE_TARGET_MS = 6000;

const normalBody = JSON.stringify({ to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://x.example" } });
const bigBody = (to) => JSON.stringify({ to, template_id: "welcome", data: { name: "n".repeat(900_000), company: "Acme", login_url: "https://x.example" } });

/**
 * Runs `attack` while a normal client sends one message every 20 ms and RSS is sampled.
 * @param {string} url
 * @param {number} pid
 * @param {(normalSends: (more: number) => Promise<void>) => Promise<void>} attack
 */
async function under(url, pid, attack) {
  const latencies = [];
  let failed = 0;
  let peakRss = 0;
  let done = false;
  // A server that died has no /proc entry left: its peak so far stands, and the case says it died.
  const sample = () => {
    try {
      peakRss = Math.max(peakRss, memoryOf(pid).rss);
    } catch {
      // gone
    }
  };
  const sampler = setInterval(sample, 50);
  /** @type {{ count: number, resolve: () => void }[]} */
  let waiting = [];
  const normal = (async () => {
    while (!done) {
      const started = performance.now();
      const status = await call(`${url}/send`, "POST", normalBody);
      latencies.push(performance.now() - started);
      if (status !== 200) failed += 1;
      for (const waiter of waiting.filter(({ count }) => latencies.length >= count)) waiter.resolve();
      waiting = waiting.filter(({ count }) => latencies.length < count);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  /** Resolves once the normal client has made `more` sends from now: an attack holds until its effect is sampled. */
  const normalSends = (more) => new Promise((resolve) => waiting.push({ count: latencies.length + more, resolve }));
  await attack(normalSends);
  done = true;
  await normal;
  clearInterval(sampler);
  sample();
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Infinity;
  return { normalSends: latencies.length, failed, p99Ms: Math.round(p99 * 10) / 10, peakRssBytes: peakRss };
}

async function bigSends(url, count) {
  for (let index = 0; index < count; index += 4) {
    await Promise.all([0, 1, 2, 3].map((offset) => call(`${url}/send`, "POST", bigBody(`big${index + offset}@example.com`))));
  }
}

/** Refused sends, four at a time, of 60,000 keys the contract does not know (857 KB): each is a violation to check and word. */
async function manyKeysSends(url, count) {
  const manyKeysBody = JSON.stringify({
    to: "ada@example.com",
    template_id: "welcome",
    data: {},
    ...Object.fromEntries(Array.from({ length: 60_000 }, (_, index) => [`x${index}`, index])),
  });
  for (let index = 0; index < count; index += 4) {
    await Promise.all([0, 1, 2, 3].map(() => call(`${url}/send`, "POST", manyKeysBody)));
  }
}

async function unreadStreams(url, streams, messages) {
  const { port } = new URL(url);
  const sockets = await Promise.all(
    Array.from(
      { length: streams },
      () =>
        new Promise((resolve) => {
          const socket = net.connect(Number(port), "127.0.0.1", () => {
            socket.pause();
            socket.write("GET /_mock/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            resolve(socket);
          });
          socket.on("error", () => undefined);
        }),
    ),
  );
  await bigSends(url, messages);
  for (const socket of sockets) socket.destroy();
}

async function hostileGlob(url) {
  await call(`${url}/_mock/faults`, "POST", JSON.stringify({ fault: "server_error", match: { to: "+(*a)b" } }));
  for (let index = 0; index < 20; index += 1)
    await call(
      `${url}/send`,
      "POST",
      JSON.stringify({ to: `${"a".repeat(28)}@example.com`, template_id: "welcome", data: { name: "A", company: "B", login_url: "https://x.example" } }),
    );
  await call(`${url}/_mock/faults`, "POST", JSON.stringify({ fault: "server_error", match: { to: "a".repeat(70_000) } }));
}

/**
 * Issue 28 row 7: a message whose first link is ~800 KB, then 101 `message.clicked` events by
 * hand (the last one past lifecycle.max_events). Each event used to copy the link.
 */
async function clickedHugeLink(url) {
  const link = `https://x.example/${"l".repeat(800_000)}`;
  const sent = await fetch(`${url}/send`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ to: "clicker@example.com", template_id: "welcome", data: { name: "A", company: "B", login_url: link } }),
  });
  const { message_id: id } = await sent.json();
  for (let index = 0; index < 101; index += 1) {
    await call(`${url}/_mock/messages/${id}/events`, "POST", JSON.stringify({ type: "message.clicked" }));
  }
  return id;
}

/**
 * A webhook receiver in this process that reads each body and throws it away, then responds with 200
 * after `delayMs`, or never (`"hang"`) until it is closed.
 * @param {number | "hang"} delayMs
 */
async function aReceiver(delayMs) {
  let received = 0;
  // Requests open at once, and the most there were: a hung receiver's are the attempts sendmock holds in flight.
  let open = 0;
  let peakOpen = 0;
  /** @type {{ count: number, resolve: (reached: boolean) => void }[]} */
  let waiting = [];
  const server = http.createServer((req, res) => {
    open += 1;
    peakOpen = Math.max(peakOpen, open);
    res.once("close", () => (open -= 1));
    req.resume();
    req.once("end", () => {
      received += 1;
      for (const waiter of waiting.filter(({ count }) => received >= count)) waiter.resolve(true);
      waiting = waiting.filter(({ count }) => received < count);
      if (delayMs === "hang") return;
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    peakOpen: () => peakOpen,
    /**
     * Resolves true once `count` bodies have been received in all, false after `timeoutMs` without.
     * @param {number} count @param {number} timeoutMs
     */
    waitFor: (count, timeoutMs) =>
      received >= count
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            const timer = setTimeout(() => resolve(false), timeoutMs);
            waiting.push({ count, resolve: (reached) => (clearTimeout(timer), resolve(reached)) });
          }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/** The bodies and responses of the inspection API, as JSON; a send's message id. */
async function json(url, method = "GET", body) {
  const response = await fetch(url, { method, headers: HEADERS, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: response.status, body: response.status === 204 ? null : await response.json().catch(() => null) };
}

/** A send whose rendered subject (and html and text) holds `bytes` characters of its name. */
const largeBody = (to, bytes) =>
  JSON.stringify({ to, template_id: "welcome", data: { name: "n".repeat(bytes), company: "Acme", login_url: "https://x.example" } });

async function sendLarge(url, to, bytes) {
  const response = await json(`${url}/send`, "POST", JSON.parse(largeBody(to, bytes)));
  return /** @type {string | undefined} */ (response.body?.message_id);
}

/**
 * How many messages to `recipients` are still queued once none is, or `withinMs` has passed: the
 * lifecycle runs them on by itself, so the count is read again until it reaches 0.
 * @param {string} url @param {string[]} recipients @param {number} withinMs
 */
async function queuedWithin(url, recipients, withinMs) {
  const deadline = Date.now() + withinMs;
  const count = async () => {
    let queued = 0;
    for (const to of recipients) queued += (await json(`${url}/_mock/messages?to=${to}&status=queued&limit=1`)).body?.total ?? 0;
    return queued;
  };
  let queued = await count();
  await atRate(100, async () => {
    if (queued === 0 || Date.now() >= deadline) return false;
    queued = await count();
    return true;
  });
  return queued;
}

/**
 * Calls `step` every `ms` until it returns false: the pace of a scenario whose load is a rate.
 * @param {number} ms @param {() => Promise<boolean> | boolean} step
 */
async function atRate(ms, step) {
  for await (const tick of every(ms, true)) if (!tick || !(await step())) return;
}

/** Milliseconds `POST /_mock/clock` takes to respond to an advance of `ms`. */
async function timedAdvance(url, ms) {
  const started = performance.now();
  const response = await json(`${url}/_mock/clock`, "POST", { advance_ms: ms });
  if (response.status !== 200) throw new Error(`advance answered ${response.status}`);
  return Math.round(performance.now() - started);
}

/**
 * Row 1 of issue 28: 200 webhooks and 25 events by hand on one message of an ~800 KB rendered
 * subject (the heap ran out after 25), until the receiver has every attempt (5,000 posts of 800 KB).
 */
async function manyWebhooksLargeEvents(url, notes, receiver) {
  const before = receiver.received();
  const id = await sendLarge(url, "large@example.com", 800_000);
  let created = 0;
  for (let event = 0; event < 25; event += 1) {
    if ((await json(`${url}/_mock/messages/${id}/events`, "POST", { type: "message.opened" })).status === 201) created += 1;
  }
  const started = performance.now();
  await receiver.waitFor(before + created * 200, 120_000);
  notes.push(
    `${created} events x 200 webhooks: ${receiver.received() - before} posts received in ${Math.round(performance.now() - started)} ms after the last event`,
  );
}

/** Row 1 of issue 28, second part: one receiver that hangs, 45 messages of an ~800 KB subject, ~4,850 events by hand (it died there). */
async function hungReceiverManyEvents(url, notes) {
  let events = 0;
  let refused = 0;
  for (let message = 0; message < 45; message += 1) {
    const id = await sendLarge(url, `hung${message}@example.com`, 800_000);
    for (let event = 0; event < 108; event += 1) {
      const response = await json(`${url}/_mock/messages/${id}/events`, "POST", { type: "message.opened" });
      if (response.status === 201) events += 1;
      else refused += 1;
    }
  }
  notes.push(`${events} events by hand (${refused} refused: the message's max_events, or dropped for room)`);
}

/** Row 2 of issue 28: a receiver that never responds, 3 messages, an advance over all their attempts (120 s one after another), and another client's advance meanwhile. */
async function hungReceiverAdvance(url, notes, receiver) {
  for (let index = 0; index < 3; index += 1) await json(`${url}/send`, "POST", JSON.parse(normalBody));
  const before = receiver.received();
  const first = timedAdvance(url, 120_000);
  // The other client comes once the first advance is under way: its first attempt has reached the receiver.
  await receiver.waitFor(before + 1, 30_000);
  const [advance, other] = await Promise.all([first, timedAdvance(url, 0)]);
  notes.push(`advance 120 s: ${advance} ms, another client's advance_ms 0: ${other} ms`);
  return { advanceMs: Math.max(advance, other) };
}

/** Row 2 of issue 28, second part: a receiver that responds in 100 ms, 20 sends a second for 30 s; what is still queued 2 s later, and an advance_ms 0. */
async function slowReceiverSends(url, notes) {
  const body = { ...JSON.parse(normalBody), to: "slow@example.com" };
  let sent = 0;
  // 20 a second: the rate is the scenario.
  await atRate(50, () => {
    void json(`${url}/send`, "POST", body);
    return (sent += 1) < 600;
  });
  // Of these sends only: the normal client's keep coming.
  const queued = await queuedWithin(url, ["slow@example.com"], 2000);
  const advance = await timedAdvance(url, 0);
  notes.push(`600 sends at 20/s: ${queued} still queued 2 s after, advance_ms 0: ${advance} ms`);
  return { leftBehind: queued, advanceMs: advance };
}

/**
 * Row 3 of issue 28: one webhook, 600 sends of an ~800 KB rendered subject (the deliveries list
 * kept every body: 1.1-1.5 GB), the clock advanced after every 4 so that each message's events
 * (and their attempts) come before it is dropped for room.
 */
async function largeSendsOneWebhook(url, notes) {
  for (let index = 0; index < 600; index += 4) {
    await Promise.all([0, 1, 2, 3].map((offset) => sendLarge(url, `big${index + offset}@example.com`, 800_000)));
    await timedAdvance(url, 2000);
  }
  const listed = (await json(`${url}/_mock/webhooks/deliveries?limit=10000`)).body?.deliveries ?? [];
  notes.push(`600 sends, ${listed.length} attempts listed`);
}

/**
 * Row 16 of issue 28: a mixed soak on a default server with three webhooks (one fast, one that
 * responds in 100 ms, one that hangs): 4 senders with values of up to `maxBytes`, a reader of the
 * messages list, events by hand and clock advances of 0; then what is still queued 3 s after.
 */
async function mixedSoak(url, maxBytes, notes) {
  const until = Date.now() + SOAK_SECONDS * 1000;
  const ids = [];
  let sends = 0;
  const sender = async (worker) => {
    while (Date.now() < until) {
      const bytes = Math.floor(Math.random() * maxBytes);
      const id = await sendLarge(url, `soak${worker}@example.com`, bytes);
      sends += 1;
      if (id !== undefined) ids.push(id);
    }
  };
  // The reader, the events by hand and the advances come at fixed rates: the rates are the scenario.
  /** @param {number} ms @param {() => Promise<unknown>} call */
  const untilTheEnd = (ms, call) => atRate(ms, async () => Date.now() < until && (await call(), true));
  const reader = () => untilTheEnd(100, () => json(`${url}/_mock/messages?limit=20`));
  const byHand = () =>
    untilTheEnd(50, async () => {
      const id = ids[Math.floor(Math.random() * ids.length)];
      if (id !== undefined) await json(`${url}/_mock/messages/${id}/events`, "POST", { type: "message.opened" });
    });
  const advances = () => untilTheEnd(1000, () => timedAdvance(url, 0));
  await Promise.all([0, 1, 2, 3].map(sender).concat([reader(), byHand(), advances()]));
  const queued = await queuedWithin(
    url,
    [0, 1, 2, 3].map((worker) => `soak${worker}@example.com`),
    3000,
  );
  notes.push(`${sends} sends in ${SOAK_SECONDS} s, ${queued} still queued 3 s after`);
  return { leftBehind: queued };
}

/** A config file of webhooks to these URLs, in a folder removed at the end of the section. */
/**
 * 24 sandboxes that each try to keep 1000 `respond` rules of a 90 KB body (2.4 GB once, when max_rules counted per
 * sandbox), then an unscoped list of every rule: max_rules bounds them all together.
 */
async function sandboxRules(url, notes) {
  const rule = { fault: "respond", status: 200, body: "x".repeat(90_000) };
  let kept = 0;
  for (let sandbox = 0; sandbox < 24; sandbox += 1) {
    for (let index = 0; index < 1000; index += 1) {
      const added = await json(`${url}/_mock/faults?sandbox=rules-${sandbox}`, "POST", rule);
      if (added.status !== 201) break;
      kept += 1;
    }
  }
  const listed = await fetch(`${url}/_mock/faults`);
  notes.push(`${kept} rules kept, the unscoped list ${listed.status} of ${((await listed.arrayBuffer()).byteLength / MB).toFixed(0)} MB`);
  return { bound: { name: "fault rules of every sandbox", value: kept, max: 1000 } };
}

/** 30 sandboxes, each with a webhook to a receiver that never answers, 10 sends each: the attempts in flight are bounded together. */
async function sandboxWebhooks(url, notes, receiver) {
  for (let sandbox = 0; sandbox < 30; sandbox += 1) await json(`${url}/_mock/webhooks?sandbox=hooks-${sandbox}`, "POST", { url: receiver.url });
  for (let sandbox = 0; sandbox < 30; sandbox += 1) {
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        fetch(`${url}/send`, {
          method: "POST",
          headers: { ...HEADERS, "X-Sendmock-Sandbox": `hooks-${sandbox}` },
          body: largeBody(`h${index}@example.com`, 10),
        }),
      ),
    );
  }
  // Every event made (each message delivered, its events queued for the hung receiver) and the receiver holding as many
  // attempts as the bound lets go: past this point a leak of the bound would show as more open at once.
  const settled = Date.now() + 60_000;
  while (((await json(`${url}/_mock/messages?status=delivered&limit=1&wait_ms=1000`)).body?.total ?? 0) < 300 && Date.now() < settled);
  const saturated = await receiver.waitFor(32, 60_000);
  if (!saturated) notes.push(`the receiver saw ${receiver.received()} attempts, fewer than the bound`);
  notes.push(`at most ${receiver.peakOpen()} attempts open at once`);
  return { bound: { name: "webhook attempts in flight", value: receiver.peakOpen(), max: 32 } };
}

/** 700 event streams over 7 sandboxes, held for 150 normal sends: max_event_streams bounds them all together. */
async function sandboxStreams(url, notes, normalSends) {
  const { port } = new URL(url);
  const statuses = await Promise.all(
    Array.from(
      { length: 700 },
      (_, index) =>
        new Promise((resolve) => {
          const socket = net.connect(Number(port), "127.0.0.1", () =>
            socket.write(`GET /_mock/events?sandbox=streams-${index % 7} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`),
          );
          socket.once("data", (chunk) => resolve({ socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString())?.[1] ?? 0) }));
          socket.on("error", () => resolve({ socket, status: 0 }));
        }),
    ),
  );
  const opened = statuses.filter(({ status }) => status === 200).length;
  // Held open, as the attack holds them, until the normal client has made 150 sends: they meet a server that follows 100
  // streams, not only the burst of 700 connections (7 sends in the burst alone made a p99 of one sample).
  await normalSends(150);
  for (const { socket } of statuses) socket.destroy();
  notes.push(`${opened} opened, ${statuses.filter(({ status }) => status === 503).length} refused with 503`);
  return { bound: { name: "event streams open", value: opened, max: 100 } };
}

/** 1000 reads of sandboxes nobody uses, then a new sandbox's send: reads take no name, so max_sandboxes stays free. */
async function sandboxReads(url, notes) {
  for (let index = 0; index < 1000; index += 1) await json(`${url}/_mock/clock?sandbox=junk-${index}`);
  const inUse = (await json(`${url}/_mock/sandboxes`)).body?.sandboxes?.length ?? -1;
  const sent = await fetch(`${url}/send`, { method: "POST", headers: { ...HEADERS, "X-Sendmock-Sandbox": "fresh-worker" }, body: normalBody });
  notes.push(`${inUse} names in use after the reads; a new sandbox's send ${sent.status}`);
  return { bound: { name: "names taken by reads", value: sent.status === 200 ? inUse : Infinity, max: 0 } };
}

function configWith(folder, name, urls, extra = "") {
  const file = path.join(folder, `${name}.yaml`);
  writeFileSync(file, `webhooks:\n${urls.map((url) => `  - { url: "${url}" }\n`).join("")}${extra}`);
  return file;
}

/** @returns {Promise<{ lines: string[], targets: { name: string, pass: boolean, detail: string }[], report: Record<string, unknown> }>} */
export async function measureAbuse() {
  const folder = mkdtempSync(path.join(os.tmpdir(), "sendmock-abuse-"));
  // hungCounting: a hung receiver of its own, whose peak of open requests is one case's alone.
  const [fast, slow, hung, hungCounting] = await Promise.all([aReceiver(0), aReceiver(100), aReceiver("hang"), aReceiver("hang")]);
  const plain = () => [];
  const soaks =
    SOAK_SECONDS > 0
      ? [
          [
            "soak",
            `mixed soak ${SOAK_SECONDS} s, values up to 300 KB, 3 webhooks`,
            (url, notes) => mixedSoak(url, 300_000, notes),
            () => [fast.url, slow.url, hung.url],
          ],
          [
            "soak-small",
            `mixed soak ${SOAK_SECONDS} s, small values, 3 webhooks`,
            (url, notes) => mixedSoak(url, 100, notes),
            () => [fast.url, slow.url, hung.url],
          ],
        ]
      : [];
  const cases = [
    ["big", "300 sends of 900 KB values", (url) => bigSends(url, 300), plain],
    ["many-keys", "100 sends of 60,000 unknown keys (857 KB)", (url) => manyKeysSends(url, 100), plain],
    ["streams", "20 event streams never read, 500 large messages", (url) => unreadStreams(url, 20, 500), plain],
    ["glob", "hostile glob +(*a)b and a 70,000-char glob", (url) => hostileGlob(url), plain],
    ["clicked-link", "~800 KB first link, 101 message.clicked by hand", (url) => clickedHugeLink(url), plain],
    [
      "webhooks-200",
      "200 webhooks, 25 events of an 800 KB subject",
      (url, notes) => manyWebhooksLargeEvents(url, notes, fast),
      () => Array.from({ length: 200 }, () => fast.url),
    ],
    ["webhook-hung-events", "a hung receiver, ~4,850 events of 800 KB subjects", hungReceiverManyEvents, () => [hung.url]],
    ["webhook-hung-advance", "a hung receiver, an advance over 3 messages", (url, notes) => hungReceiverAdvance(url, notes, hung), () => [hung.url]],
    ["webhook-slow", "a 100 ms receiver, 20 sends a second for 30 s", slowReceiverSends, () => [slow.url]],
    ["webhook-large-sends", "one webhook, 600 sends of an 800 KB subject", largeSendsOneWebhook, () => [fast.url]],
    ["sandbox-rules", "24 sandboxes x 1000 respond rules of 90 KB", sandboxRules, plain],
    ["sandbox-webhooks", "30 sandboxes' webhooks to a hung receiver", (url, notes) => sandboxWebhooks(url, notes, hungCounting), plain],
    ["sandbox-streams", "700 event streams over 7 sandboxes", sandboxStreams, plain],
    ["sandbox-reads", "1000 reads of unused sandboxes, then a new one", sandboxReads, plain],
    ...soaks,
  ].filter(([id]) => ONLY_CASES === null || ONLY_CASES.includes(id));
  const results = [];
  try {
    for (const [id, label, attack, webhooks] of cases) {
      const urls = webhooks();
      const args = urls.length === 0 ? [] : ["--config", configWith(folder, id, urls)];
      const server = await startServer("sendmock (abuse)", [CLI, "serve", "--port", "0", "--quiet", ...args]);
      try {
        /** @type {string[]} */
        const notes = [];
        let measured = {};
        const run = await under(server.url, server.pid, async (normalSends) => {
          measured = (await attack(server.url, notes, normalSends)) ?? {};
        });
        results.push({ id, label, ...run, ...measured, notes, exited: server.exited() });
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    await Promise.all([fast.close(), slow.close(), hung.close(), hungCounting.close()]);
    rmSync(folder, { recursive: true, force: true });
  }
  const lines = [
    "abuse (default settings; a normal send every 20 ms alongside):",
    ...results.map(
      (r) =>
        `  ${r.label.padEnd(52)} peak RSS ${(r.peakRssBytes / MB).toFixed(0)} MB, normal send p99 ${r.p99Ms} ms over ${r.normalSends} sends, ${r.failed} failed${
          r.notes.length > 0 ? `; ${r.notes.join("; ")}` : ""
        }`,
    ),
  ];
  const targets = [
    {
      name: "abuse: RSS < 600 MB",
      pass: results.every((r) => r.peakRssBytes < RSS_TARGET),
      detail: results.map((r) => `${(r.peakRssBytes / MB).toFixed(0)} MB`).join(", "),
    },
    { name: "abuse: normal send p99 < 100 ms", pass: results.every((r) => r.p99Ms < P99_TARGET_MS), detail: results.map((r) => `${r.p99Ms} ms`).join(", ") },
    {
      name: "abuse: answers throughout",
      pass: results.every((r) => r.failed === 0 && r.normalSends > 0 && !r.exited),
      detail: results.map((r) => `${r.failed} failed of ${r.normalSends}${r.exited ? " (the server died)" : ""}`).join(", "),
    },
    ...results
      .filter((r) => r.advanceMs !== undefined)
      .map((r) => ({ name: `abuse: ${r.label}: advance < ${ADVANCE_TARGET_MS} ms`, pass: r.advanceMs < ADVANCE_TARGET_MS, detail: `${r.advanceMs} ms` })),
    ...results
      .filter((r) => r.bound !== undefined)
      .map((r) => ({ name: `abuse: ${r.label}: ${r.bound.name} <= ${r.bound.max}`, pass: r.bound.value <= r.bound.max, detail: `${r.bound.value}` })),
    ...results
      .filter((r) => r.leftBehind !== undefined)
      .map((r) => ({ name: `abuse: ${r.label}: nothing left queued`, pass: r.leftBehind === 0, detail: `${r.leftBehind} still queued` })),
  ];
  return { lines, targets, report: { abuse: results } };
}
