// The abuse section of the bench: RSS and a normal send's p99 while a client sends 900 KB
// values, event streams never read, and a hostile glob is tried (issue 13's attacks).

import http from "node:http";
import net from "node:net";
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

const normalBody = JSON.stringify({ to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://x.example" } });
const bigBody = (to) => JSON.stringify({ to, template_id: "welcome", data: { name: "n".repeat(900_000), company: "Acme", login_url: "https://x.example" } });

/**
 * Runs `attack` while a normal client sends one message every 20 ms and RSS is sampled.
 * @param {string} url
 * @param {number} pid
 * @param {() => Promise<void>} attack
 */
async function under(url, pid, attack) {
  const latencies = [];
  let failed = 0;
  let peakRss = 0;
  let done = false;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memoryOf(pid).rss);
  }, 50);
  const normal = (async () => {
    while (!done) {
      const started = performance.now();
      const status = await call(`${url}/send`, "POST", normalBody);
      latencies.push(performance.now() - started);
      if (status !== 200) failed += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await attack();
  done = true;
  await normal;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, memoryOf(pid).rss);
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Infinity;
  return { normalSends: latencies.length, failed, p99Ms: Math.round(p99 * 10) / 10, peakRssBytes: peakRss };
}

async function bigSends(url, count) {
  for (let index = 0; index < count; index += 4) {
    await Promise.all([0, 1, 2, 3].map((offset) => call(`${url}/send`, "POST", bigBody(`big${index + offset}@example.com`))));
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

/** @returns {Promise<{ lines: string[], targets: { name: string, pass: boolean, detail: string }[], report: Record<string, unknown> }>} */
export async function measureAbuse() {
  const cases = [
    ["300 sends of 900 KB values", (url) => bigSends(url, 300)],
    ["20 event streams never read, 500 large messages", (url) => unreadStreams(url, 20, 500)],
    ["hostile glob +(*a)b and a 70,000-char glob", (url) => hostileGlob(url)],
    ["~800 KB first link, 101 message.clicked by hand", (url) => clickedHugeLink(url)],
  ];
  const results = [];
  for (const [label, attack] of cases) {
    const server = await startServer("sendmock (abuse)", [CLI, "serve", "--port", "0"]);
    try {
      results.push({ label, ...(await under(server.url, server.pid, () => attack(server.url))) });
    } finally {
      await stopServer(server);
    }
  }
  const lines = [
    "abuse (default settings; a normal send every 20 ms alongside):",
    ...results.map(
      (r) =>
        `  ${r.label.padEnd(50)} peak RSS ${(r.peakRssBytes / MB).toFixed(0)} MB, normal send p99 ${r.p99Ms} ms over ${r.normalSends} sends, ${r.failed} failed`,
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
      pass: results.every((r) => r.failed === 0 && r.normalSends > 0),
      detail: results.map((r) => `${r.failed} failed of ${r.normalSends}`).join(", "),
    },
  ];
  return { lines, targets, report: { abuse: results } };
}
