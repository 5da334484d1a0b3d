// What every sandbox registry promises, whichever store keeps the names: bounded, shared by whoever holds the same store, forgotten at once.

import { describe, expect, it } from "vitest";
import type { SandboxRegistry } from "../../src/domain/sandboxes.js";

/** Two views of one new, empty registry: two replicas' on a shared store, the same one twice in memory. */
export type MakeSandboxRegistries = () => Promise<[SandboxRegistry, SandboxRegistry]>;

export function describeSandboxRegistryContract(name: string, makeRegistries: MakeSandboxRegistries): void {
  describe(name, () => {
    it("knows each name once it is claimed, sorted, and a name claimed again is still one", async () => {
      const [registry] = await makeRegistries();
      expect(await registry.names()).toEqual([]);

      expect(await registry.claim("worker-2", 10)).toBe(true);
      expect(await registry.claim("worker-1", 10)).toBe(true);
      expect(await registry.claim("worker-2", 10)).toBe(true);

      expect(await registry.names()).toEqual(["worker-1", "worker-2"]);
    });

    it("refuses a new name past the bound, while the names it knows are still claimed", async () => {
      const [registry] = await makeRegistries();
      expect(await registry.claim("a", 2)).toBe(true);
      expect(await registry.claim("b", 2)).toBe(true);

      expect(await registry.claim("c", 2)).toBe(false);
      expect(await registry.claim("a", 2)).toBe(true);
      expect(await registry.names()).toEqual(["a", "b"]);
    });

    it("is one set for both views: a name claimed by one is known to the other and counts toward its bound", async () => {
      const [one, other] = await makeRegistries();
      await one.claim("from-one", 2);
      await other.claim("from-other", 2);

      expect(await other.names()).toEqual(["from-one", "from-other"]);
      expect(await one.claim("third", 2)).toBe(false);
    });

    it("forgets every name on clear, and the bound counts from none again", async () => {
      const [one, other] = await makeRegistries();
      await one.claim("a", 1);

      await other.clear();

      expect(await one.names()).toEqual([]);
      expect(await one.claim("b", 1)).toBe(true);
      expect(await other.names()).toEqual(["b"]);
    });

    it("releases one name for both views, telling each, and the bound counts one fewer", async () => {
      const [one, other] = await makeRegistries();
      const heard: string[] = [];
      const stop = other.onReleased((name) => heard.push(name));
      await one.claim("a", 2);
      await one.claim("b", 2);

      await one.release("a");
      await one.release("never-claimed");

      expect(await other.names()).toEqual(["b"]);
      expect(await other.claim("c", 2)).toBe(true);
      await expect.poll(() => heard).toEqual(["a"]);
      stop();
    });
  });
}
