// `npm start`: runs `sendmock serve` from the built bin (dist/bin/, see scripts/bundle-bin.mjs),
// rebuilding first only when the TypeScript sources changed since the last build
// (scripts/build-if-stale.mjs). The CLI is imported into this process rather than spawned: a
// second Node start would cost another ~50 ms.
//
// package.json runs it as `exec node scripts/start.mjs`: npm runs a script in `sh -c`, and passes
// SIGTERM and SIGINT to that shell only. Debian's sh (dash) dies of SIGTERM, leaving node to
// notice its parent gone (src/commands/shared.ts), but keeps SIGINT and waits for node, which
// never hears of it. With exec, node is the shell: npm's signals reach it, and it stops at once.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfStale } from "./build-if-stale.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

// The bin as package.json names it, so that this and `npx sendmock` run the same file.
const BIN = path.join(ROOT, JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).bin.sendmock);

buildIfStale();
process.argv = [process.argv[0] ?? process.execPath, BIN, "serve", ...process.argv.slice(2)];
await import(pathToFileURL(BIN).href);
