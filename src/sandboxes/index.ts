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
  /**
   * The scope of `name` for a read: claimed when its name is in use, else built and kept unclaimed
   * (bounded with the others), so that a read never takes a name, and a wait or an event stream
   * opened before the first send hears it (the send claims the same scope). Shared by replicas, a
   * read claims the name as a write does.
   */
  viewOf(name: string): Promise<SandboxScope>;
  /** The default sandbox's scope and every known one's, the default first, the others by name. */
  all(): Promise<SandboxScope[]>;
  /** The scopes built in this process so far, the default first: for listeners, which attach at once. */
  current(): SandboxScope[];
  /** Calls `listener` with each scope built from now on; returns the unsubscribe. */
  onBuilt(listener: (scope: SandboxScope) => void): () => void;
  /** Every sandbox back to its start-up state, and the named ones' names let go (here and, on a shared registry, on every replica). */
  resetAll(): Promise<void>;
  /**
   * The sandbox `name` (a checked name, not the default's) emptied and its name released, so it
   * counts toward max_sandboxes no more; nothing when it is not known.
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

  /** Closes the scope built here for `name`, and forgets it. */
  const close = (name: string): void => {
    const scope = built.get(name);
    if (scope === undefined) return;
    built.delete(name);
    ready.delete(name);
    unclaimed.delete(name);
    scope
      .then(
        (forgotten) => forgotten.close(),
        () => undefined,
      )
      .catch(() => undefined);
  };
  /**
   * Names a reset or a forget let go of, whose scopes stay built here (alone), oldest first. A send in flight
   * or a long wait may hold such a scope: closed, the send's message would be captured where nobody
   * looks (answered 200, then lost), and the wait would never hear the next capture. Kept, the send
   * claims the name again as it captures (send/pipeline.ts), and the wait hears it. Past
   * max_sandboxes of them, the oldest are closed: at most twice max_sandboxes scopes live.
   */
  const unclaimed = new Set<string>();
  /** The names this process knows to be claimed (alone, a claim is only ever made here). */
  const claimed = new Set<string>();
  const unclaim = (names: Iterable<string>): void => {
    for (const name of names) {
      claimed.delete(name);
      if (!built.has(name)) continue;
      // Shared, the state is in the store, where a send in flight captures all the same and claims the
      // name again; a scope kept would cost every replica a look at its due work each second.
      if (deps.shared) {
        close(name);
        continue;
      }
      unclaimed.delete(name);
      unclaimed.add(name);
    }
    for (const oldest of unclaimed) {
      if (unclaimed.size <= deps.maxSandboxes) break;
      close(oldest);
    }
  };
  // A reset through any replica let the names go: the scopes built here stay, unclaimed, unless a name was claimed again since.
  registry.onCleared(() => {
    registry.names().then(
      (names) => unclaim([...built.keys()].filter((name) => !names.includes(name))),
      () => undefined,
    );
  });
  // A name released through any replica: its scope here stays, unclaimed.
  registry.onReleased((released) => unclaim([released]));
  // A sandbox first used through another replica is built here while someone listens to every sandbox (an unscoped wait, the events stream).
  registry.onClaimed((name) => {
    if (builtListeners.size > 0) builtScope(name).catch(() => undefined);
  });

  const all = async (): Promise<SandboxScope[]> => {
    const names = await registry.names();
    return [defaultScope, ...(await Promise.all(names.map(builtScope)))];
  };

  const scopeOf = async (name: string): Promise<SandboxScope> => {
    if (name === DEFAULT_SANDBOX) return defaultScope;
    // Alone, a name claimed here stays claimed until a reset or a forget here; shared, it is
    // claimed on every use, since a reset through another replica lets the name go there.
    const known = !deps.shared && claimed.has(name) ? ready.get(name) : undefined;
    if (known !== undefined) return known;
    if (!(await registry.claim(name, deps.maxSandboxes))) throw tooManySandboxes(name, deps.maxSandboxes);
    claimed.add(name);
    unclaimed.delete(name);
    return builtScope(name);
  };

  return {
    defaultScope,
    scopeOf,
    async viewOf(name) {
      // Shared, a scope is kept only while its name is claimed (see unclaim): a read claims it, as a write does.
      if (name === DEFAULT_SANDBOX || deps.shared || claimed.has(name)) return scopeOf(name);
      const scope = await builtScope(name);
      if (!claimed.has(name)) unclaim([name]);
      return scope;
    },
    all,
    current: () => [defaultScope, ...ready.values()],
    onBuilt(listener) {
      builtListeners.add(listener);
      return () => builtListeners.delete(listener);
    },
    async resetAll() {
      // The names go first: a send captured from now on claims its name again, and is either
      // emptied by the resets below or, captured after them, kept where every read finds it.
      const names = await registry.names();
      await registry.clear();
      await Promise.all([defaultScope, ...(await Promise.all(names.map(builtScope)))].map((scope) => scope.reset()));
    },
    async forget(name) {
      if (!(await registry.names()).includes(name)) return;
      // Built here if another replica built it: its state is in the shared store all the same. The
      // name goes first, as in resetAll.
      const scope = await builtScope(name);
      await registry.release(name);
      await scope.reset();
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
