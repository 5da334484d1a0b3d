// `npm run lint:cycles`: fails when the modules of src/ import each other in a cycle, type-only
// imports included. Every relative specifier of src/**/*.ts is resolved to its file; the graph's
// strongly connected components (Tarjan) larger than one module, or a module importing itself, are cycles.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sources(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

const files = sources(SRC);
const graph = new Map(
  files.map((file) => {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].map((match) => path.resolve(path.dirname(file), (match[1] ?? match[2]).replace(/\.js$/, ".ts")));
    return [file, [...new Set(targets)].filter((target) => files.includes(target))];
  }),
);

let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(node) {
  index.set(node, counter);
  low.set(node, counter);
  counter += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node)) {
    if (!index.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
  }
  if (low.get(node) !== index.get(node)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== node);
  if (component.length > 1 || graph.get(node).includes(node)) cycles.push(component);
}
for (const file of files) if (!index.has(file)) connect(file);

const name = (file) => path.relative(SRC, file);
if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map(name).sort().join(" <-> ")}`);
  process.exit(1);
}
console.log(`no import cycle among ${files.length} modules of src/`);
