// What each worker file does in its own sandbox of the one server: exact counts, its fault rule, its clock and reset,
// while the other worker does the same at the same time.

import { expect } from "vitest";
import { sandboxClient } from "sendmock/testing";

const url = process.env.SENDMOCK_URL ?? "";
/**
 * Where each worker checks in once its sends are in: a sandbox neither resets, so its count only
 * grows, and a worker goes on once both checked in, its own sends and the other's done at once.
 */
const RENDEZVOUS = sandboxClient({ url, sandbox: "rendezvous" });

async function send(headers: Record<string, string>, to: string, base = url): Promise<number> {
  const response = await fetch(`${base}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer worker-key", "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ to, template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
  });
  return response.status;
}

export async function runWorker(sends: number): Promise<void> {
  const box = sandboxClient({ url });
  for (let sent = 0; sent < sends; sent += 1) expect(await send(box.headers, `ada-${sent}@example.com`)).toBe(200);

  // Both workers' sends are in before either reads: the other's are there, and not in this sandbox. The
  // other worker may start well after this one on a busy machine: the wait is long, and ends once it checked in.
  expect(await send(RENDEZVOUS.headers, `${box.sandbox}@example.com`)).toBe(200);
  await expect.poll(async () => (await RENDEZVOUS.outbox.list()).total, { timeout: 45_000 }).toBe(2);
  expect((await box.outbox.list()).total).toBe(sends);
  expect((await box.journal.list()).total).toBe(sends);

  // A fault rule of this sandbox fails its sends only, and the recipient rule lands in it too.
  await box.faults.add({ fault: "server_error", times: 1 });
  expect(await send({}, box.address("grace"))).toBe(500);
  expect(await send({}, box.address("grace"))).toBe(200);
  expect((await box.outbox.waitFor({ to: box.address("grace") })).sandbox).toBe(box.sandbox);

  // Its clock delivers its messages; its reset empties it alone.
  await box.clock.advance(60_000);
  expect((await box.outbox.list({ status: "delivered" })).total).toBe(sends + 1);
  await box.reset();
  expect((await box.outbox.list()).total).toBe(0);

  // Its base URL sends into it with no header, as an app in any language would be configured.
  expect(await send({}, "linus@example.com", box.baseUrl)).toBe(200);
  expect((await box.outbox.list()).messages.map((message) => message.to)).toEqual(["linus@example.com"]);

  // Forgotten, its name no longer counts: the server lists it no more.
  await box.forget();
  const inUse = (await (await fetch(`${url}/_mock/sandboxes`)).json()) as { sandboxes: string[] };
  expect(inUse.sandboxes).not.toContain(box.sandbox);
}
