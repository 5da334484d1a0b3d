// One cold process, timed from the inside: `import("sendmock")`, the first mock (start, one
// POST /send, close), then LATER_MOCKS more mocks the same way. Prints one JSON line.
// Usage: node test/bench/startup-in-process.mjs [laterMocks]   (run by test/bench/startup.mjs)

const LATER_MOCKS = Number(process.argv[2] ?? 10);
const BODY = JSON.stringify({
  to: "ada@example.com",
  template_id: "welcome",
  data: { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" },
});
const HEADERS = { authorization: "Bearer bench-key-0001", "content-type": "application/json" };

const importStarted = performance.now();
// The package's own name, resolved through its exports as a user's import is: dist/lib/index.mjs.
const { startSendMock } = await import("sendmock");
const importMs = performance.now() - importStarted;

/** Start a listening mock, respond to one send (checked to be a 200), close it: milliseconds for each step. */
async function oneMock() {
  const began = performance.now();
  const mock = await startSendMock({ port: 0, watchTemplates: false });
  const started = performance.now();
  const response = await fetch(`${mock.url}/send`, { method: "POST", headers: HEADERS, body: BODY });
  await response.text();
  if (response.status !== 200) throw new Error(`POST /send answered ${response.status}`);
  const sent = performance.now();
  await mock.close();
  const closed = performance.now();
  return { startMs: started - began, sendMs: sent - started, closeMs: closed - sent, totalMs: closed - began };
}

const first = await oneMock();
const later = [];
for (let i = 0; i < LATER_MOCKS; i += 1) later.push(await oneMock());
process.stdout.write(`${JSON.stringify({ importMs, first, later })}\n`);
