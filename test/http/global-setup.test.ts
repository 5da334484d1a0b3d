// sendmockGlobalSetup, the one sendmock per test run that sendmock/vitest/global-setup and sendmock/jest/global-setup start:
// its settings from the environment as `serve` reads them, its URL published, the teardown, and a run that brings its own server.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { sendmockGlobalSetup } from "../../src/testing.js";
import { aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

afterEach(async () => {
  // A test that failed before its teardown must not leave the next one a server to find.
  await sendmockGlobalSetup().teardown();
  vi.unstubAllEnvs();
});

async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/_mock/health`).then(
    (response) => response.ok,
    () => false,
  );
}

async function configOf(url: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${url}/_mock/config`)).json()) as Record<string, unknown>;
}

/** A port nothing listens on: one the system handed out and took back. */
async function aFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What vitest hands a global setup: `provide`, recorded. */
function aVitestProject(): { provided: Map<string, unknown>; provide(key: string, value: unknown): void } {
  const provided = new Map<string, unknown>();
  return { provided, provide: (key, value) => provided.set(key, value) };
}

describe("sendmockGlobalSetup", () => {
  it("starts a sendmock on a free port with the shipped templates, publishes it as SENDMOCK_URL and vitest's sendmockUrl, and the teardown stops it", async () => {
    vi.stubEnv("SENDMOCK_URL", undefined);
    const project = aVitestProject();
    const teardown = await sendmockGlobalSetup().setup(project);
    const url = process.env.SENDMOCK_URL ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe("http://127.0.0.1:4010");
    expect(project.provided).toEqual(new Map([["sendmockUrl", url]]));
    const sent = await fetch(`${url}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json" },
      body: JSON.stringify(aSendRequest()),
    });
    expect(sent.status).toBe(200);

    await teardown();
    expect(await answers(url)).toBe(false);
    expect(process.env.SENDMOCK_URL).toBeUndefined();
  });

  it("reads the settings from the environment as `sendmock serve` does: SENDMOCK_PORT, SENDMOCK_TEMPLATES, SENDMOCK_<KEY>, SENDMOCK_CONFIG", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-global-setup-"));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const templates = path.join(folder, "emails");
    await mkdir(templates);
    await writeFile(path.join(templates, "hello.yaml"), 'subject: "Hello {{name}}"\ntext: "Hi {{name}}"\n');
    await writeFile(path.join(folder, "sendmock.yaml"), "capacity: 7\n");
    vi.stubEnv("SENDMOCK_URL", undefined);
    vi.stubEnv("SENDMOCK_TEMPLATES", templates);
    vi.stubEnv("SENDMOCK_RESPONSE_SHAPE", "b");
    vi.stubEnv("SENDMOCK_CONFIG", path.join(folder, "sendmock.yaml"));
    const port = await aFreePort();
    vi.stubEnv("SENDMOCK_PORT", String(port));
    await sendmockGlobalSetup().setup();
    expect(process.env.SENDMOCK_URL).toBe(`http://127.0.0.1:${port}`);
    const config = await configOf(process.env.SENDMOCK_URL ?? "");
    expect(config).toMatchObject({ templates, response_shape: "b", capacity: 7 });
  });

  it("takes options in code over the environment, as serve takes its flags", async () => {
    vi.stubEnv("SENDMOCK_URL", undefined);
    vi.stubEnv("SENDMOCK_RESPONSE_SHAPE", "b");
    await sendmockGlobalSetup({ responseShape: "a", capacity: 9 }).setup();
    expect(await configOf(process.env.SENDMOCK_URL ?? "")).toMatchObject({ response_shape: "a", capacity: 9 });
  });

  it("refuses a bad variable, naming it, and starts nothing", async () => {
    vi.stubEnv("SENDMOCK_URL", undefined);
    vi.stubEnv("SENDMOCK_CAPACITY", "lots");
    await expect(sendmockGlobalSetup().setup()).rejects.toThrow(/SENDMOCK_CAPACITY/);
    expect(process.env.SENDMOCK_URL).toBeUndefined();
  });

  it("starts nothing when SENDMOCK_URL names a sendmock already (one for a whole CI job), provides that one, and its teardown leaves it running", async () => {
    const ciServer = await aRunningMockForThisTest();
    vi.stubEnv("SENDMOCK_URL", ciServer.url);
    const project = aVitestProject();
    const teardown = await sendmockGlobalSetup().setup(project);
    expect(process.env.SENDMOCK_URL).toBe(ciServer.url);
    expect(project.provided.get("sendmockUrl")).toBe(ciServer.url);
    await teardown();
    expect(process.env.SENDMOCK_URL).toBe(ciServer.url);
    expect(await answers(ciServer.url)).toBe(true);
  });

  it("is stopped by the teardown of another copy, as jest's global teardown module stops what its global setup module started", async () => {
    vi.stubEnv("SENDMOCK_URL", undefined);
    await sendmockGlobalSetup().setup();
    const url = process.env.SENDMOCK_URL ?? "";
    expect(await answers(url)).toBe(true);
    await sendmockGlobalSetup().teardown();
    expect(await answers(url)).toBe(false);
  });
});
