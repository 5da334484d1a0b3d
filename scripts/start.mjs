// `npm start`: runs `sendmock serve` from the built bin (dist/bin/, see scripts/bundle-bin.mjs),
// rebuilding first only when the TypeScript sources changed since the last build
// (scripts/build-if-stale.mjs). The CLI is imported into this process rather than spawned: a
// second Node start would cost another ~50 ms.

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfStale } from "./build-if-stale.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const BIN = path.join(ROOT, "dist", "bin", "sendmock.js");

buildIfStale();
process.argv = [process.argv[0] ?? process.execPath, BIN, "serve", ...process.argv.slice(2)];
await import(pathToFileURL(BIN).href);
