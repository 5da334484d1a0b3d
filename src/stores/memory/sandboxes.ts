// The names of the sandboxes in use, in this process.

import type { SandboxRegistry } from "../../domain/sandboxes.js";

export function createMemorySandboxRegistry(): SandboxRegistry {
  const known = new Set<string>();
  return {
    claim(name, max) {
      if (!known.has(name) && known.size >= max) return Promise.resolve(false);
      known.add(name);
      return Promise.resolve(true);
    },
    names: () => Promise.resolve([...known].sort()),
    clear() {
      known.clear();
      return Promise.resolve();
    },
  };
}
