// Run by `npm run build` after tsc: bundles the bin (dist/cli.js and everything it loads,
// express and the other dependencies included) into dist/bin/, so that `sendmock serve` starts
// without resolving and reading some 280 modules (179 of them CommonJS) one by one.
// Usage: node scripts/bundle-bin.mjs
//
// Measured spawn -> first 200 on POST /send, 9 interleaved starts each on this 2-core machine:
// dist/cli.js 329 ms median, the bundle 223 ms. A profile of dist/cli.js showed a third of its
// start in module resolution and CommonJS loading. Minifying as well measured no faster (217 ms),
// and would make stack traces unreadable. The library is bundled apart (tsdown.config.ts, into
// dist/lib/), most of its dependencies left for its users' test runners to load their own way.
//
// Lazy imports stay lazy: rolldown puts each in its own chunk (Redis, `check`, the mock itself
// for commands that never start one).

import { rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = path.join(ROOT, "dist", "bin");

await rm(OUT, { recursive: true, force: true });
await build({
  input: { sendmock: path.join(ROOT, "dist", "cli.js") },
  platform: "node",
  logLevel: "warn",
  output: { dir: OUT, format: "esm", chunkFileNames: "[name]-[hash].js" },
});
