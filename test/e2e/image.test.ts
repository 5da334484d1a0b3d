// The image (npm run build:image, exported by scripts/export-image.mjs before the suite): what it
// holds and what it leaves out, its config, and its entrypoint run from its file system with chroot
// as its user, with its environment, as a container would (no container can start on these machines).

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IMAGE_CONFIG, IMAGE_ROOT, imageMissing } from "../support/built-artifacts.js";
import { ROOT, watched, type CliRun } from "../support/cli-process.js";
import { aSendRequest, bearer } from "../support/helpers.js";

const skipReason = imageMissing();

interface ImageConfig {
  User: string;
  ExposedPorts: Record<string, unknown>;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  Labels: Record<string, string>;
}

const config = (): ImageConfig => (JSON.parse(readFileSync(IMAGE_CONFIG, "utf8")) as { config: ImageConfig }).config;
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
/** 150 MB, as container tools count them (10^6 bytes). */
const MAX_BYTES = 150_000_000;

/** Every path in the image, relative to its root, with `/`. */
function pathsIn(folder: string, prefix = ""): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${prefix}/${entry.name}`;
    return entry.isDirectory() ? [relative, ...pathsIn(path.join(folder, entry.name), relative)] : [relative];
  });
}

function bytesIn(folder: string): number {
  return readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const entryPath = path.join(folder, entry.name);
    return sum + (entry.isDirectory() ? bytesIn(entryPath) : lstatSync(entryPath).size);
  }, 0);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The entrypoint running: the same as a CLI run of the package. */
type Entrypoint = CliRun;

const running: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** The image's environment as `KEY=value` pairs, with `overrides` on top. */
function imageEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(config().Env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
  return { ...env, ...overrides };
}

/**
 * The entrypoint and command, run in the image's root as its user with its environment. With
 * `templates`, that folder is bind-mounted at /templates in a mount namespace of the process's
 * own (the host's shell only sets it up, then execs chroot), as `-v folder:/templates` would.
 */
function startEntrypoint(env: Record<string, string>, templates?: string): Entrypoint {
  const command = [...config().Entrypoint, ...config().Cmd];
  const chroot = ["chroot", `--userspec=${config().User}`, IMAGE_ROOT, ...command];
  const child =
    templates === undefined
      ? spawn(chroot[0] ?? "chroot", chroot.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] })
      : spawn(
          "unshare",
          [
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind "$1" "$2/templates" && shift 2 && exec "$@"',
            "sh",
            templates,
            IMAGE_ROOT,
            ...chroot,
          ],
          { env, stdio: ["pipe", "pipe", "pipe"] },
        );
  return watched(child, running);
}

/** Resolves once it says it listens; the URL it prints names 0.0.0.0, so the test reaches it on 127.0.0.1. */
async function listening(entrypoint: Entrypoint, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    entrypoint.child.stdout.on("data", () => {
      if (entrypoint.stdout().includes("listening on")) resolve();
    });
    void entrypoint.exited.then((code) => reject(new Error(`exited with ${String(code)}: ${entrypoint.stderr()}`)));
  });
  return `http://127.0.0.1:${port}`;
}

describe.skipIf(skipReason !== undefined)("the image", () => {
  it("holds the executable, the libraries it loads, its user and the templates: no shell, package manager or node", () => {
    const paths = pathsIn(IMAGE_ROOT);
    const allowed = [
      /^\/sendmock$/,
      /^\/etc(\/(passwd|group|nsswitch\.conf))?$/,
      /^\/lib(64)?(\/|$)/,
      /^\/templates(\/|$)/,
      /^\/tmp$/,
      /^\/var(\/cache(\/sendmock(\/|$)|$)|$)/,
    ];
    expect(paths.filter((entry) => !allowed.some((pattern) => pattern.test(entry)))).toEqual([]);
    const names = paths.map((entry) => path.posix.basename(entry));
    for (const tool of ["sh", "bash", "dash", "busybox", "apt", "apt-get", "dpkg", "node", "nodejs"]) expect(names).not.toContain(tool);
    expect(paths.filter((entry) => entry.startsWith("/lib") && !/\.so(\.\d+)*$/.test(entry) && !statSync(path.join(IMAGE_ROOT, entry)).isDirectory())).toEqual(
      [],
    );
  });

  it("is at most 150 MB", () => {
    expect(bytesIn(IMAGE_ROOT)).toBeLessThanOrEqual(MAX_BYTES);
  });

  it("runs /sendmock serve as a user that is not root, on 0.0.0.0:4010, with the shipped templates at /templates", () => {
    const image = config();
    expect(image.User.split(":")[0]).toMatch(/^[1-9]\d*$/);
    expect(readFileSync(path.join(IMAGE_ROOT, "etc", "passwd"), "utf8")).toMatch(new RegExp(`^\\w+:x:${image.User.split(":")[0] ?? ""}:`, "m"));
    expect(Object.keys(image.ExposedPorts)).toEqual(["4010/tcp"]);
    expect(image.Entrypoint).toEqual(["/sendmock"]);
    expect(image.Cmd).toEqual(["serve"]);
    expect(image.Env).toEqual(
      expect.arrayContaining(["SENDMOCK_HOST=0.0.0.0", "SENDMOCK_PORT=4010", "SENDMOCK_TEMPLATES=/templates", "SENDMOCK_ALLOW_OPEN_ADMIN=true"]),
    );
    expect(image.Labels).toMatchObject({ "org.opencontainers.image.title": "sendmock", "org.opencontainers.image.version": VERSION });
    expect(readdirSync(path.join(IMAGE_ROOT, "templates")).sort()).toEqual(readdirSync(path.join(ROOT, "fixtures", "templates")).sort());
    // Sticky and writable by all, as /tmp is: the executable's fallback for its files.
    expect(statSync(path.join(IMAGE_ROOT, "tmp")).mode & 0o7777).toBe(0o1777);
  });

  it("serves a send on 0.0.0.0 from its entrypoint as its user, writing nothing to its file system", async () => {
    const port = await freePort();
    const entrypoint = startEntrypoint(imageEnv({ SENDMOCK_PORT: String(port) }));
    const url = await listening(entrypoint, port);
    expect(entrypoint.stdout()).toContain(`listening on http://0.0.0.0:${port}`);
    expect(entrypoint.stdout()).toMatch(/templates: +4 loaded from \/templates/);
    const response = await fetch(`${url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(aSendRequest()),
    });
    expect(response.status).toBe(200);
    const latest = (await (await fetch(`${url}/_mock/messages/latest`)).json()) as { subject: string };
    expect(latest.subject).toBe("Welcome to Analytical Engines, Ada!");
    expect((await fetch(`${url}/_mock/`)).status).toBe(200);
    // The package's files were written out when the image was built: a read-only root would do.
    expect(readdirSync(path.join(IMAGE_ROOT, "tmp"))).toEqual([]);
    entrypoint.child.kill("SIGTERM");
    expect(await entrypoint.exited).toBe(0);
  });

  it("renders the templates of a folder mounted at /templates instead of the shipped ones", async () => {
    const templates = await mkdtemp(path.join(os.tmpdir(), "sendmock-image-templates-"));
    try {
      await writeFile(path.join(templates, "ping.yaml"), "subject: Ping {who}\ntext: Hello {who}\n");
      // Readable by the image's user, as a mounted folder must be.
      chmodSync(templates, 0o755);
      chmodSync(path.join(templates, "ping.yaml"), 0o644);
      const port = await freePort();
      const entrypoint = startEntrypoint(imageEnv({ SENDMOCK_PORT: String(port) }), templates);
      const url = await listening(entrypoint, port);
      const send = (body: unknown) =>
        fetch(`${url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: JSON.stringify(body) });
      expect((await send({ to: "ada@example.com", template_id: "ping", data: { who: "Ada" } })).status).toBe(200);
      const latest = (await (await fetch(`${url}/_mock/messages/latest`)).json()) as { subject: string };
      expect(latest.subject).toBe("Ping Ada");
      expect((await send(aSendRequest())).status).not.toBe(200);
    } finally {
      await rm(templates, { recursive: true, force: true });
    }
  });

  it("refuses a bad setting in the environment with one clear line and a failed exit", async () => {
    const entrypoint = startEntrypoint(imageEnv({ SENDMOCK_PORT: String(await freePort()), SENDMOCK_RESPONSE_SHAPE: "z" }));
    const code = await entrypoint.exited;
    expect(code).not.toBe(0);
    const lines = entrypoint.stderr().trimEnd().split("\n");
    expect(lines, entrypoint.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/^sendmock: .*(SENDMOCK_RESPONSE_SHAPE|response_shape)/);
  });
});
