// What a /_mock call without a sandbox acts on: reads see every sandbox (newest first across them), changes apply to all.

import { cutToBytes, waitForCapture, type Outbox } from "../domain/outbox.js";
import type { Journal, JournalPage } from "../domain/journal.js";
import { checkAdvanceRange, type ClockControl } from "../domain/clock.js";
import type { Lifecycle } from "../domain/lifecycle.js";
import type { CapturedMessage, MessageList } from "../wire.js";
import type { FaultControl } from "../domain/faults.js";
import type { OutcomeControl } from "../domain/outcomes.js";
import { DomainFailure } from "../domain/failure.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import type { WebhookControl } from "../domain/webhooks.js";
import type { Sandboxes } from "./index.js";
import type { SandboxScope } from "./scope.js";
import type { SharedBounds } from "../stores/shared-bounds.js";
import { explainedWait, type WaitExplainer } from "./near-misses.js";

/** The outbox's operations a /_mock call and the events stream use. */
export type OutboxView = Pick<Outbox, "list" | "listSerialized" | "get" | "delete" | "clear" | "waitFor" | "stats" | "onCapture" | "onEvent" | "onClear">;

/** What the sandbox-scoped /_mock routes act on: one sandbox's, or every sandbox's at once. */
export interface ScopeView {
  outbox: OutboxView;
  journal: Pick<Journal, "list" | "clear" | "onRecord">;
  lifecycle: Pick<Lifecycle, "appendNow">;
  clock: ClockControl;
  faults: FaultControl;
  outcomes: OutcomeControl;
  webhooks: WebhookControl;
}

/** `item` naming the sandbox of `scope`; the default sandbox's name none. */
function named<T extends object>(item: T, scope: SandboxScope): T & { sandbox?: string } {
  return scope.name === DEFAULT_SANDBOX ? item : { ...item, sandbox: scope.name };
}

/** Rules without a sandbox: added to the default sandbox (whose rules apply in every sandbox), listed from all, removed and cleared wherever they are. */
function rulesEverywhere<Input, Rule extends object>(
  sandboxes: Sandboxes,
  controlOf: (scope: SandboxScope) => {
    add(input: Input): Promise<Rule>;
    list(): Promise<Rule[]>;
    count(): Promise<number>;
    remove(id: string): Promise<boolean>;
    clear(): Promise<void>;
  },
) {
  return {
    add: (input: Input) => controlOf(sandboxes.defaultScope).add(input),
    async list(): Promise<Rule[]> {
      const lists = await Promise.all((await sandboxes.all()).map(async (scope) => (await controlOf(scope).list()).map((rule) => named(rule, scope))));
      return lists.flat();
    },
    async count(): Promise<number> {
      return (await Promise.all((await sandboxes.all()).map((scope) => controlOf(scope).count()))).reduce((sum, each) => sum + each, 0);
    },
    async remove(id: string): Promise<boolean> {
      const removed = await Promise.all((await sandboxes.all()).map((scope) => controlOf(scope).remove(id)));
      return removed.includes(true);
    },
    async clear(): Promise<void> {
      await Promise.all((await sandboxes.all()).map((scope) => controlOf(scope).clear()));
    },
  };
}

/** Attaches `attach` to every scope built so far and to each built later; the result detaches all. */
function onEverySandbox(sandboxes: Sandboxes, attach: (scope: SandboxScope) => () => void): () => void {
  const detachers = sandboxes.current().map(attach);
  const stopHearing = sandboxes.onBuilt((scope) => detachers.push(attach(scope)));
  return () => {
    stopHearing();
    for (const detach of detachers) detach();
  };
}

const newestFirst = (a: { created_at: string }, b: { created_at: string }): number => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0);

/** The newest of the messages each scope has under `id` (`latest` in each is that scope's newest), with the scope that holds it. */
async function findMessage(scopes: readonly SandboxScope[], id: string): Promise<{ scope: SandboxScope; message: CapturedMessage } | undefined> {
  const found = await Promise.all(scopes.map(async (scope) => ({ scope, message: await scope.outbox.get(id) })));
  const held = found.filter((entry): entry is { scope: SandboxScope; message: CapturedMessage } => entry.message !== undefined);
  return held.sort((a, b) => newestFirst(a.message, b.message))[0];
}

/** Throws, naming the sandbox, when any of these sandboxes' clocks cannot move `ms` forward. */
function checkAdvanceEverywhere(scopes: readonly SandboxScope[], ms: number): void {
  // A bad advance_ms is the same in every sandbox: said once, as a scoped advance says it.
  checkAdvanceRange(ms);
  for (const scope of scopes) {
    try {
      scope.clock.checkAdvance(ms);
    } catch (error) {
      // Alone, the default sandbox's clock is the mock's: its refusal in its own words, as before sandboxes.
      if (!(error instanceof DomainFailure) || scopes.length === 1) throw error;
      const whose = scope.name === DEFAULT_SANDBOX ? "the default sandbox" : `sandbox ${JSON.stringify(scope.name)}`;
      throw new DomainFailure(error.code, `The clock of ${whose} cannot move: ${error.message}; no sandbox's clock was moved`);
    }
  }
}

/** `bounds`: what every sandbox's outbox charges together, read for the count and bytes of all. */
export function everySandboxView(sandboxes: Sandboxes, bounds: SharedBounds, maxPageBytes: number, explainWait: WaitExplainer): ScopeView {
  const { defaultScope } = sandboxes;

  const list: Outbox["list"] = async (filter = {}) => {
    const scopes = await sandboxes.all();
    if (scopes.length === 1) return defaultScope.outbox.list(filter);
    const pages = await Promise.all(scopes.map((scope) => scope.outbox.list(filter)));
    const messages = pages
      .flatMap((page) => page.messages)
      .sort(newestFirst)
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
    const page: MessageList = { messages, total: pages.reduce((sum, each) => sum + each.total, 0) };
    return pages.some((each) => each.truncated === true) ? { ...page, truncated: true } : page;
  };

  const outbox: OutboxView = {
    list,
    async listSerialized(filter = {}) {
      if ((await sandboxes.all()).length === 1) return defaultScope.outbox.listSerialized(filter);
      const page = await list(filter);
      const { kept, truncated } = cutToBytes(
        page.messages.map((message) => JSON.stringify(message)),
        maxPageBytes,
      );
      return { messages: kept, total: page.total, truncated: truncated || page.truncated === true };
    },
    async get(id) {
      return (await findMessage(await sandboxes.all(), id))?.message;
    },
    async delete(id) {
      const found = await findMessage(await sandboxes.all(), id);
      return found === undefined ? undefined : found.scope.outbox.delete(found.message.id);
    },
    async clear() {
      await Promise.all((await sandboxes.all()).map((scope) => scope.outbox.clear()));
    },
    waitFor(filter = {}, options = {}) {
      // Every sandbox's captures, those of a sandbox first used during the wait included (on Redis, through another replica too).
      const waiting = waitForCapture({
        filter,
        options,
        subscribe: (listener) =>
          onEverySandbox(sandboxes, (scope) => {
            const stopCaptures = scope.outbox.onCapture(listener);
            const stopEvents = scope.outbox.onEvent((message) => listener(message));
            return () => {
              stopCaptures();
              stopEvents();
            };
          }),
        findNow: async () => (await list({ ...filter, limit: 1 })).messages[0],
        count: async () => (await outbox.stats()).count,
      });
      return explainedWait(waiting, (timedOut) => explainWait({ sandbox: undefined, outbox, journal }, filter, timedOut));
    },
    async stats() {
      const scopes = await sandboxes.all();
      if (scopes.length === 1) return defaultScope.outbox.stats();
      const [all, usage] = await Promise.all([Promise.all(scopes.map((scope) => scope.outbox.stats())), bounds.usage()]);
      // The bounds count every sandbox's messages together: the same figures as the sum, read at once.
      return { ...bounds.messages, ...usage.messages, dropped: all.reduce((sum, each) => sum + each.dropped, 0) };
    },
    onCapture: (listener) => onEverySandbox(sandboxes, (scope) => scope.outbox.onCapture(listener)),
    onEvent: (listener) => onEverySandbox(sandboxes, (scope) => scope.outbox.onEvent(listener)),
    onClear: (listener) => onEverySandbox(sandboxes, (scope) => scope.outbox.onClear(listener)),
  };

  const journal: ScopeView["journal"] = {
    async list(options = {}) {
      const scopes = await sandboxes.all();
      if (scopes.length === 1) return defaultScope.journal.list(options);
      const pages = await Promise.all(scopes.map((scope) => scope.journal.list(options)));
      const requests = pages
        .flatMap((page) => page.requests)
        .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
        .slice(0, options.limit ?? Number.POSITIVE_INFINITY);
      const page: JournalPage = { requests, total: pages.reduce((sum, each) => sum + each.total, 0), truncated: pages.some((each) => each.truncated) };
      return page;
    },
    async clear() {
      await Promise.all((await sandboxes.all()).map((scope) => scope.journal.clear()));
    },
    onRecord: (listener) => onEverySandbox(sandboxes, (scope) => scope.journal.onRecord(listener)),
  };

  const webhooks: WebhookControl = {
    ...rulesEverywhere(sandboxes, (scope) => ({
      ...scope.webhooks,
      count: async () => (await scope.webhooks.list()).length,
      clear: () => Promise.resolve(),
    })),
    async deliveries(filter = {}) {
      const lists = await Promise.all(
        (await sandboxes.all()).map(async (scope) => (await scope.webhooks.deliveries(filter)).map((delivery) => named(delivery, scope))),
      );
      return lists
        .flat()
        .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
        .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
    },
    async replay(id) {
      // The sandbox whose log holds the attempt replays it; none does: the default sandbox refuses it in its words.
      for (const scope of await sandboxes.all()) {
        if ((await scope.webhooks.deliveries({})).some((delivery) => delivery.id === id)) return scope.webhooks.replay(id);
      }
      return defaultScope.webhooks.replay(id);
    },
    onDelivery: (listener) => onEverySandbox(sandboxes, (scope) => scope.webhooks.onDelivery(listener)),
  };

  return {
    outbox,
    journal,
    faults: {
      ...rulesEverywhere(sandboxes, (scope) => scope.faults),
      bytes: async () => (await Promise.all((await sandboxes.all()).map((scope) => scope.faults.bytes()))).reduce((sum, each) => sum + each, 0),
    },
    outcomes: rulesEverywhere(sandboxes, (scope) => scope.outcomes),
    webhooks,
    lifecycle: {
      async appendNow(messageId, type) {
        const found = await findMessage(await sandboxes.all(), messageId);
        // Not found anywhere: the default sandbox's lifecycle refuses it in its words.
        return (found?.scope ?? defaultScope).lifecycle.appendNow(found?.message.id ?? messageId, type);
      },
    },
    clock: {
      now: () => defaultScope.clock.now(),
      offsetMs: () => defaultScope.clock.offsetMs(),
      // Every sandbox's clock moves, or none: each is asked first, and one that cannot move refuses the whole advance (moving
      // two sandboxes' clocks and then refusing left the mock half-advanced). The default sandbox's time is returned.
      async advance(ms) {
        const scopes = await sandboxes.all();
        checkAdvanceEverywhere(scopes, ms);
        await Promise.all(scopes.slice(1).map((scope) => scope.clock.advance(ms)));
        return defaultScope.clock.advance(ms);
      },
      checkAdvance: (ms) => {
        checkAdvanceEverywhere(sandboxes.current(), ms);
      },
    },
  };
}
