// Webhook attempts under way in this process: at most `concurrency` made at once, one webhook's
// beyond its share only while another share of places stays free, the attempts of one lane (a
// message's events to one webhook) one after another in the order they came, and a group's (a
// message's) attempts dropped together.

export interface PoolJob {
  /** Jobs of one lane run one at a time, in the order they were added: a receiver hears a message's events in order. */
  lane: string;
  /** The webhook it posts to: see `DeliveryPoolOptions.share`. */
  webhook: string;
  /** What the job belongs to (a message's id): `dropGroups` ends a group's jobs at once. */
  group: string;
  /** When it fell due on the mock's clock. */
  dueAtMs: number;
  /** Makes the attempt. `signal` aborts when the job is dropped, with the reason as a string. */
  run(signal: AbortSignal): Promise<void>;
}

export interface DeliveryPool {
  /** Queues a job in its lane; resolves once it has run or was dropped. */
  add(job: PoolJob): Promise<void>;
  /** How many more jobs could start now: places left once the jobs that wait only for a place have theirs. */
  room(): number;
  /** Jobs waiting or running. */
  size(): number;
  /** The ends of the jobs due by `dueByMs` that are still waiting or running. */
  pendingDueBy(dueByMs: number): Promise<void>[];
  /** How many jobs have ended (run or dropped) so far, for `endedAfter`. */
  ended(): number;
  /** Resolves once more than `count` jobs have ended. */
  endedAfter(count: number): Promise<void>;
  /** Drops the waiting jobs of these groups and aborts their running ones with `reason`. */
  dropGroups(groups: readonly string[], reason: string): void;
  /** Drops every waiting job and aborts every running one with `reason`. */
  dropAll(reason: string): void;
}

interface Entry {
  job: PoolJob;
  number: number;
  controller: AbortController;
  started: boolean;
  done: Promise<void>;
  finish: () => void;
}

export interface DeliveryPoolOptions {
  concurrency: number;
  /**
   * One webhook's jobs may run this many at once, and more only while more than this many places
   * stay free: a receiver that hangs leaves the other webhooks room, a lone webhook uses the rest.
   */
  share: number;
  /** Called when a job ended and its place is free: more jobs may be handed in. */
  onRoom?: () => void;
}

export function createDeliveryPool(options: DeliveryPoolOptions): DeliveryPool {
  const { concurrency, share } = options;
  /** Each lane's jobs in order; the first is running or waiting for a place. */
  const lanes = new Map<string, Entry[]>();
  /** The lanes of each group, to drop a group without a scan. */
  const groups = new Map<string, Set<string>>();
  /**
   * Per webhook, the lanes whose first job waits for a place, in the order they became ready. The
   * Map's order is the turn: a webhook that got a place goes to the back.
   */
  const ready = new Map<string, string[]>();
  const runningOf = new Map<string, number>();
  /** Jobs not ended, in the order they were added (a Map keeps insertion order). */
  const unended = new Map<number, Entry>();
  let running = 0;
  let added = 0;
  let endedCount = 0;
  let endWaiters: (() => void)[] = [];

  const mayStart = (webhook: string): boolean => (runningOf.get(webhook) ?? 0) < share || concurrency - running > share;

  function forgetLane(lane: string, group: string): void {
    lanes.delete(lane);
    const ofGroup = groups.get(group);
    ofGroup?.delete(lane);
    if (ofGroup?.size === 0) groups.delete(group);
  }

  function makeReady(lane: string, webhook: string): void {
    const queue = ready.get(webhook);
    if (queue === undefined) ready.set(webhook, [lane]);
    else queue.push(lane);
  }

  /** Takes a job out of its lane and tells whoever waits for it; the lane's next job becomes ready. */
  function end(entry: Entry): void {
    const { lane, group } = entry.job;
    const queue = lanes.get(lane);
    const index = queue?.indexOf(entry) ?? -1;
    if (queue !== undefined && index >= 0) {
      queue.splice(index, 1);
      const next = queue[0];
      if (next === undefined) forgetLane(lane, group);
      else if (index === 0) makeReady(lane, next.job.webhook);
    }
    unended.delete(entry.number);
    endedCount += 1;
    entry.finish();
    const waiters = endWaiters;
    endWaiters = [];
    for (const wake of waiters) wake();
  }

  function start(entry: Entry): void {
    const { webhook } = entry.job;
    entry.started = true;
    running += 1;
    runningOf.set(webhook, (runningOf.get(webhook) ?? 0) + 1);
    // Errors are the job's own to report: a failed attempt is recorded by it, not here.
    entry.job
      .run(entry.controller.signal)
      .catch(() => undefined)
      .finally(() => {
        running -= 1;
        const left = (runningOf.get(webhook) ?? 1) - 1;
        if (left === 0) runningOf.delete(webhook);
        else runningOf.set(webhook, left);
        end(entry);
        pump();
        options.onRoom?.();
      })
      .catch(() => undefined);
  }

  /** Starts what may start, one webhook's turn after another's. */
  function pump(): void {
    let progressed = true;
    while (progressed && running < concurrency) {
      progressed = false;
      for (const [webhook, queue] of [...ready]) {
        if (running >= concurrency) return;
        if (!mayStart(webhook)) continue;
        const lane = queue.shift();
        ready.delete(webhook);
        if (queue.length > 0) ready.set(webhook, queue);
        progressed = true;
        const first = lane === undefined ? undefined : lanes.get(lane)?.[0];
        if (first !== undefined && !first.started) start(first);
      }
    }
  }

  function drop(lane: string, reason: string): void {
    for (const entry of [...(lanes.get(lane) ?? [])]) {
      if (entry.started) entry.controller.abort(reason);
      else end(entry);
    }
  }

  /** After drops: once each, the lanes that still have a job waiting for a place. */
  function keepReadyLanes(): void {
    for (const [webhook, queue] of [...ready]) {
      const still = [...new Set(queue)].filter((lane) => lanes.get(lane)?.[0]?.started === false);
      if (still.length === 0) ready.delete(webhook);
      else ready.set(webhook, still);
    }
  }

  return {
    add(job) {
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      added += 1;
      const entry: Entry = { job, number: added, controller: new AbortController(), started: false, done, finish };
      unended.set(entry.number, entry);
      const queue = lanes.get(job.lane);
      if (queue !== undefined) {
        queue.push(entry);
        return done;
      }
      lanes.set(job.lane, [entry]);
      const ofGroup = groups.get(job.group) ?? new Set<string>();
      ofGroup.add(job.lane);
      groups.set(job.group, ofGroup);
      makeReady(job.lane, job.webhook);
      pump();
      return done;
    },
    room() {
      // Jobs that wait only for a place take it first; those held by their webhook's share do not count.
      let waiting = 0;
      for (const [webhook, queue] of ready) waiting += Math.min(queue.length, Math.max(0, share - (runningOf.get(webhook) ?? 0)));
      return Math.max(0, concurrency - running - waiting);
    },
    size: () => unended.size,
    pendingDueBy(dueByMs) {
      const ends: Promise<void>[] = [];
      for (const entry of unended.values()) if (entry.job.dueAtMs <= dueByMs) ends.push(entry.done);
      return ends;
    },
    ended: () => endedCount,
    endedAfter(count) {
      if (endedCount > count) return Promise.resolve();
      return new Promise((resolve) => endWaiters.push(resolve));
    },
    dropGroups(dropped, reason) {
      for (const group of dropped) for (const lane of [...(groups.get(group) ?? [])]) drop(lane, reason);
      keepReadyLanes();
    },
    dropAll(reason) {
      for (const lane of [...lanes.keys()]) drop(lane, reason);
      keepReadyLanes();
    },
  };
}
