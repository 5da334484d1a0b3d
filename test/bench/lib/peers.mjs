// The bench's peers that are not dependencies of the package (Prism, WireMock): installed on first use into a cache folder, then started from it.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, ROOT, startCommand } from "./servers.mjs";

/**
 * Where peers are installed: BENCH_PEERS_DIR, else `$XDG_CACHE_HOME/sendmock-bench-peers`
 * (`~/.cache/…`). Not under node_modules/: `npm ci` empties it, and in a git worktree it is
 * often a link to another checkout's, which the bench must not write into.
 */
export const PEERS_DIR = process.env.BENCH_PEERS_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "sendmock-bench-peers");

// Pinned, so that a figure names what it measured and a later run measures the same thing.
// Prism 5.15 and later need Node 24; 5.14.2 is the newest that runs on the Node 20 the package supports.
const PRISM = { name: "@stoplight/prism-cli", version: "5.14.2", entry: "node_modules/@stoplight/prism-cli/dist/index.js" };
// The npm package bundles WireMock's standalone jar and needs only `java` (17 here).
const WIREMOCK = { name: "wiremock", version: "3.13.2", entry: "node_modules/wiremock/build" };
const INSTALL_TIMEOUT_MS = 5 * 60_000;

/**
 * @typedef {object} PeerPackage
 * @property {string} name
 * @property {string} version
 * @property {string} entry a file or folder the install must leave, relative to the peer's folder
 */

/**
 * The peer's folder, installed there on first use: `npm install --prefix <folder> --no-save …`,
 * one folder per package and version (a second `--no-save` install into one prefix removes the
 * first package as extraneous). Resolves with the folder, or rejects with why it could not be had.
 * @param {PeerPackage} peer
 * @param {(line: string) => void} log
 */
async function installed(peer, log) {
  const folder = path.join(PEERS_DIR, `${peer.name.replace("/", "+")}@${peer.version}`);
  if (existsSync(path.join(folder, peer.entry))) return folder;
  mkdirSync(folder, { recursive: true });
  log(`installing ${peer.name}@${peer.version} into ${folder} (once; later runs reuse it)`);
  const args = ["install", "--prefix", folder, "--no-save", "--no-audit", "--no-fund", `${peer.name}@${peer.version}`];
  // From the peer's folder, so that nothing of the project's own npm setup applies.
  const child = spawn("npm", args, { cwd: folder, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => (stderr = (stderr + chunk).slice(-2000)));
  const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
  const code = await new Promise((resolve) => {
    child.once("error", (error) => {
      stderr += error.message;
      resolve(-1);
    });
    child.once("exit", resolve);
  });
  clearTimeout(timer);
  if (code === 0 && existsSync(path.join(folder, peer.entry))) return folder;
  // A half install would pass the check above next time only by chance: start afresh then.
  rmSync(folder, { recursive: true, force: true });
  // npm's first error lines say what failed (a code, the request); its last ones are generic advice.
  const why = stderr
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("npm error"))
    .slice(0, 2)
    .join(" ")
    .slice(0, 200);
  throw new Error(`npm install ${peer.name}@${peer.version} failed (exit ${String(code)})${why ? `: ${why}` : ""}`);
}

/**
 * WireMock's stubs: a 422 for a `to` that is not an address, matched on the body (JSONPath), and
 * the shape-a success for any other POST /send. Both stubs are tried on every request, the 422
 * one first, so a valid send pays for reading its body as sendmock's does.
 */
const WIREMOCK_MAPPINGS = {
  mappings: [
    {
      priority: 1,
      request: {
        method: "POST",
        url: "/send",
        bodyPatterns: [{ matchesJsonPath: { expression: "$.to", doesNotMatch: "^[^@\\s]+@[^@\\s]+$" } }],
      },
      response: {
        status: 422,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ success: false, error: { code: "invalid_recipient", message: "Invalid recipient email address in to" } }),
      },
    },
    {
      priority: 2,
      request: { method: "POST", url: "/send" },
      response: {
        status: 200,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ success: true, message_id: "msg_0f8fad5b-d9cb-469f-a165-70867728950e", status: "queued" }),
      },
    },
  ],
};

/**
 * @typedef {object} Peer
 * @property {string} id
 * @property {string} version what was measured, e.g. "@stoplight/prism-cli@5.14.2"
 * @property {() => Promise<import("./servers.mjs").Server>} start
 */

/**
 * Installs (when needed) Prism and WireMock, before any load runs so that an install never
 * shares the machine with a measurement. Each entry is a peer ready to start, or why it is not.
 * @param {string} tempDir the bench's temp folder (WireMock's mappings go there)
 * @param {(line: string) => void} log
 * @returns {Promise<{ prism: Peer | { notMeasured: string }, wiremock: Peer | { notMeasured: string } }>}
 */
export async function preparePeers(tempDir, log) {
  /** @type {{ prism: Peer | { notMeasured: string }, wiremock: Peer | { notMeasured: string } }} */
  const peers = { prism: { notMeasured: "" }, wiremock: { notMeasured: "" } };
  try {
    const folder = await installed(PRISM, log);
    peers.prism = {
      id: "prism",
      version: `${PRISM.name}@${PRISM.version}`,
      start: async () => {
        const port = /** @type {number} */ (await freePort());
        // `mock -v error` on the same document sendmock serves: requests validated, responses drawn from its examples.
        return startCommand(
          "prism",
          process.execPath,
          [path.join(folder, PRISM.entry), "mock", "-h", "127.0.0.1", "-p", String(port), "-v", "error", path.join(ROOT, "openapi/send.yaml")],
          { port, readyPath: "/" },
        );
      },
    };
  } catch (error) {
    peers.prism = { notMeasured: error instanceof Error ? error.message : String(error) };
  }
  try {
    const folder = await installed(WIREMOCK, log);
    const jar = readdirSync(path.join(folder, WIREMOCK.entry)).find((file) => file.endsWith(".jar"));
    if (jar === undefined) throw new Error(`no jar in ${path.join(folder, WIREMOCK.entry)}`);
    const java = await new Promise((resolve) => {
      const probe = spawn("java", ["-version"], { stdio: "ignore" });
      probe.once("error", () => resolve(false));
      probe.once("exit", (code) => resolve(code === 0));
    });
    if (!java) throw new Error("`java -version` failed: WireMock needs a Java runtime (apt-get install openjdk-17-jre-headless)");
    const root = path.join(tempDir, "wiremock");
    mkdirSync(path.join(root, "mappings"), { recursive: true });
    writeFileSync(path.join(root, "mappings/send.json"), JSON.stringify(WIREMOCK_MAPPINGS, null, 2));
    peers.wiremock = {
      id: "wiremock",
      version: `${WIREMOCK.name}@${WIREMOCK.version}`,
      start: async () => {
        const port = /** @type {number} */ (await freePort());
        // The jar the package bundles, started as its own bin would (`java -jar`) but without the
        // node wrapper in between, which would leave java running when the wrapper is killed.
        // WireMock's defaults otherwise: its request journal stays on, as sendmock's journal does.
        return startCommand(
          "wiremock",
          "java",
          ["-jar", path.join(folder, WIREMOCK.entry, jar), "--port", String(port), "--bind-address", "127.0.0.1", "--root-dir", root, "--disable-banner"],
          { port, readyPath: "/__admin/health" },
        );
      },
    };
  } catch (error) {
    peers.wiremock = { notMeasured: error instanceof Error ? error.message : String(error) };
  }
  return peers;
}
