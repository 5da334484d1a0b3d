// What each of the three files of test/e2e/per-file-sandboxes.test.ts does in its sandbox, for vitest and jest alike:
// read what the sandbox holds, and leave messages, a fault rule and a clock advance behind for whichever file comes next.

/** The sandbox's messages, journal entries, fault rules and clock offset. */
async function contentsOf(sandbox) {
  const [messages, journal, faults, clock] = await Promise.all([sandbox.outbox.list(), sandbox.journal.list(), sandbox.faults.list(), sandbox.clock.now()]);
  return { messages: messages.total, requests: journal.total, faultRules: faults.length, clockOffsetMs: clock.offset_ms };
}

async function send(url, to) {
  const response = await fetch(`${url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({ to, template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
  });
  if (response.status !== 200) throw new Error(`the send to ${to} was answered ${response.status}: ${await response.text()}`);
}

/** Two sends (one through the base URL, one to the sandbox's address), a fault rule with uses left and a clock an hour ahead; then what the sandbox holds. */
async function leaveThingsBehind(sandbox) {
  await send(sandbox.baseUrl, "ada@example.com");
  await send(sandbox.url, sandbox.address("grace"));
  await sandbox.faults.add({ fault: "server_error", times: 5 });
  await sandbox.clock.advance(3_600_000);
  return contentsOf(sandbox);
}

module.exports = { contentsOf, leaveThingsBehind };
