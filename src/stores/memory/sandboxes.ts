// The names of the sandboxes in use, in this process.

import type { SandboxRegistry } from "../../domain/sandboxes.js";

export function createMemorySandboxRegistry(): SandboxRegistry {
  const known = new Set<string>();
  const claimedListeners = new Set<(name: string) => void>();
  const clearedListeners = new Set<() => void>();
  const releasedListeners = new Set<(name: string) => void>();
  return {
    claim(name, max) {
      if (known.has(name)) return Promise.resolve(true);
      if (known.size >= max) return Promise.resolve(false);
      known.add(name);
      for (const listener of claimedListeners) listener(name);
      return Promise.resolve(true);
    },
    names: () => Promise.resolve([...known].sort()),
    clear() {
      known.clear();
      for (const listener of clearedListeners) listener();
      return Promise.resolve();
    },
    release(name) {
      if (known.delete(name)) for (const listener of releasedListeners) listener(name);
      return Promise.resolve();
    },
    onClaimed(listener) {
      claimedListeners.add(listener);
      return () => claimedListeners.delete(listener);
    },
    onCleared(listener) {
      clearedListeners.add(listener);
      return () => clearedListeners.delete(listener);
    },
    onReleased(listener) {
      releasedListeners.add(listener);
      return () => releasedListeners.delete(listener);
    },
  };
}
