// The sandboxes of one mock (docs/sandboxes.md): the default one, and each named one's scope built on first use,
// its name claimed in the registry (bounded by max_sandboxes, shared by replicas on Redis).

import { DEFAULT_SANDBOX, tooManySandboxes, type SandboxRegistry } from "../domain/sandboxes.js";
import type { SandboxScope } from "./scope.js";

export interface SandboxesDeps {
  registry: SandboxRegistry;
  maxSandboxes: number;
  /** The scope of the sandbox a send names none: built with the mock. */
  defaultScope: SandboxScope;
  /** Whether other replicas share the registry: a reset through one of them forgets names this one still holds. */
  shared: boolean;
  /** Opens the stores of `name` and builds its scope: once per name in this process, until a reset forgets it. */
  build(name: string): Promise<SandboxScope>;
}

export interface Sandboxes {
  readonly defaultScope: SandboxScope;
  /**
   * The scope of `name` (a checked name), claimed in the registry first: a new name past
   * max_sandboxes is an `invalid_request` DomainFailure.
   */
  scopeOf(name: string): Promise<SandboxScope>;
  /** The default sandbox's scope and every known one's, the default first, the others by name. */
  all(): Promise<SandboxScope[]>;
  /** The scopes built in this process so far, the default first: for listeners, which attach at once. */
  current(): SandboxScope[];
  /** Calls `listener` with each scope built from now on; returns the unsubscribe. */
  onBuilt(listener: (scope: SandboxScope) => void): () => void;
  /** Every sandbox back to its start-up state, and the named ones forgotten (their scopes closed, here and, on a shared registry, on every replica). */
  resetAll(): Promise<void>;
  /**
   * The sandbox `name` (a checked name, not the default's) emptied and its name released, so it
   * counts toward max_sandboxes no more; nothing when it is not known. Its scope is closed here
   * and, on a shared registry, on every replica.
   */
  forget(name: string): Promise<void>;
  /** The names in use (the default's aside), sorted. */
  names(): Promise<string[]>;
  /** Stops every scope's scheduler and webhook delivering. */
  stop(): void;
}

export function createSandboxes(deps: SandboxesDeps): Sandboxes {
  const { registry, defaultScope } = deps;
  // The scopes built in this process, by name. Another replica's sandbox is built here on first use.
  const built = new Map<string, Promise<SandboxScope>>();
  // The same scopes once built, for what needs them at once.
  const ready = new Map<string, SandboxScope>();
  const builtListeners = new Set<(scope: SandboxScope) => void>();

  const builtScope = (name: string): Promise<SandboxScope> => {
    let scope = built.get(name);
    if (scope === undefined) {
      scope = deps.build(name);
      built.set(name, scope);
      scope.then(
        (done) => {
          ready.set(name, done);
          for (const listener of builtListeners) listener(done);
        },
        // A build that failed (a store down) is tried again by the next call.
        () => built.delete(name),
      );
    }
    return scope;
  };

  /** Closes the scopes built here whose names are no longer known (`keep` says which are). */
  const forgetBuilt = (keep: (name: string) => boolean): void => {
    for (const [name, scope] of built) {
      if (keep(name)) continue;
      built.delete(name);
      ready.delete(name);
      scope
        .then(
          (forgotten) => forgotten.close(),
          () => undefined,
        )
        .catch(() => undefined);
    }
  };
  // A reset through another replica forgot the names: their scopes here go too, unless a name was claimed again since.
  registry.onCleared(() => {
    registry.names().then(
      (names) => forgetBuilt((name) => names.includes(name)),
      () => undefined,
    );
  });
  // A name released through any replica: its scope here goes too.
  registry.onReleased((released) => forgetBuilt((name) => name !== released));
  // A sandbox first used through another replica is built here while someone listens to every sandbox (an unscoped wait, the events stream).
  registry.onClaimed((name) => {
    if (builtListeners.size > 0) builtScope(name).catch(() => undefined);
  });

  const all = async (): Promise<SandboxScope[]> => {
    const names = await registry.names();
    return [defaultScope, ...(await Promise.all(names.map(builtScope)))];
  };

  return {
    defaultScope,
    async scopeOf(name) {
      if (name === DEFAULT_SANDBOX) return defaultScope;
      // Alone, a name built here is claimed (a reset here forgets both); shared, it is claimed on
      // every use, since a reset through another replica forgets the name there.
      const known = deps.shared ? undefined : ready.get(name);
      if (known !== undefined) return known;
      if (!(await registry.claim(name, deps.maxSandboxes))) throw tooManySandboxes(name, deps.maxSandboxes);
      return builtScope(name);
    },
    all,
    current: () => [defaultScope, ...ready.values()],
    onBuilt(listener) {
      builtListeners.add(listener);
      return () => builtListeners.delete(listener);
    },
    async resetAll() {
      const scopes = await all();
      await Promise.all(scopes.map((scope) => scope.reset()));
      await registry.clear();
      forgetBuilt(() => false);
    },
    async forget(name) {
      if (!(await registry.names()).includes(name)) return;
      // Built here if another replica built it: its state is in the shared store all the same.
      await (await builtScope(name)).reset();
      await registry.release(name);
      forgetBuilt((kept) => kept !== name);
    },
    names: () => registry.names(),
    stop() {
      defaultScope.stop();
      for (const scope of built.values())
        void scope.then(
          (built) => built.stop(),
          () => undefined,
        );
    },
  };
}
