// Webhook attempts under way in this process, every sandbox's in one pool: at most `concurrency` made at once, one webhook's
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

/**
 * One mock's pool: every sandbox's delivering takes a part of it, so that `concurrency` bounds the
 * attempts of all sandboxes together (30 sandboxes once held 30 times 24 attempts open to one
 * receiver that never answered).
 */
export interface DeliveryPool {
  /** A part for one delivering: its own jobs, drops and waits; the places and each webhook's share are the whole pool's. */
  part(options?: PoolPartOptions): PoolPart;
  /** Jobs waiting or running, of every part. */
  size(): number;
}

export interface PoolPartOptions {
  /** Called when a place is free and this part found none the last time it asked (`room` was 0): it may hand in more. */
  onRoom?: () => void;
  /** Its jobs waiting outside the pool for their time or a place (a delivering's due attempts), counted by `pendingEverywhere`. */
  waiting?: () => Promise<number>;
}

export interface PoolPart {
  /** Queues a job in its lane; resolves once it has run or was dropped. */
  add(job: PoolJob): Promise<void>;
  /** How many more jobs could start now, in the whole pool: places left once the jobs that wait only for a place have theirs. */
  room(): number;
  /** Jobs of every part waiting or running, and those waiting outside the pool for each part (`waiting`). */
  pendingEverywhere(): Promise<number>;
  /** The ends of this part's jobs due by `dueByMs` that are still waiting or running. */
  pendingDueBy(dueByMs: number): Promise<void>[];
  /** How many jobs of any part have ended (run or dropped) so far, for `endedAfter`: each end frees a place. */
  ended(): number;
  /** Resolves once more than `count` jobs of any part have ended. */
  endedAfter(count: number): Promise<void>;
  /** Drops this part's waiting jobs of these groups and aborts its running ones with `reason`. */
  dropGroups(groups: readonly string[], reason: string): void;
  /** Drops every waiting job of this part and aborts every running one with `reason`. */
  dropAll(reason: string): void;
  /** Takes the part out of the pool: it is woken no more, and its `waiting` counts no more (its jobs are dropped first with `dropAll`). */
  leave(): void;
}

interface Part {
  options: PoolPartOptions;
  /** Its jobs not ended, in the order they were added (a Map keeps insertion order). */
  unended: Map<number, Entry>;
  /** Its lanes (by key), to drop them all without a scan of the others'. */
  lanes: Set<string>;
  /** When it last handed in a job: the parts waiting for room are woken least recently served first. */
  servedAt: number;
}

interface Entry {
  job: PoolJob;
  part: Part;
  /** Its lane's key and its group's key: the part's own, so that two parts never share a lane. */
  lane: string;
  group: string;
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
   * A webhook is one by its id whatever part its jobs come from: one added without a sandbox hears
   * every sandbox, and has one share.
   */
  share: number;
}

export function createDeliveryPool(options: DeliveryPoolOptions): DeliveryPool {
  const { concurrency, share } = options;
  /** Each lane's jobs in order (by the lane's key); the first is running or waiting for a place. */
  const lanes = new Map<string, Entry[]>();
  /** The lanes of each group (by the group's key), to drop a group without a scan. */
  const groups = new Map<string, Set<string>>();
  /**
   * Per webhook, the lanes whose first job waits for a place, in the order they became ready. The
   * Map's order is the turn: a webhook that got a place goes to the back.
   */
  const ready = new Map<string, string[]>();
  const runningOf = new Map<string, number>();
  const parts = new Set<Part>();
  /** The parts that found no room the last time they asked. */
  const starved = new Set<Part>();
  let running = 0;
  let unended = 0;
  let added = 0;
  let endedCount = 0;
  let endWaiters: (() => void)[] = [];
  let partCount = 0;

  const mayStart = (webhook: string): boolean => (runningOf.get(webhook) ?? 0) < share || concurrency - running > share;

  function forgetLane(entry: Entry): void {
    lanes.delete(entry.lane);
    entry.part.lanes.delete(entry.lane);
    const ofGroup = groups.get(entry.group);
    ofGroup?.delete(entry.lane);
    if (ofGroup?.size === 0) groups.delete(entry.group);
  }

  function makeReady(lane: string, webhook: string): void {
    const queue = ready.get(webhook);
    if (queue === undefined) ready.set(webhook, [lane]);
    else queue.push(lane);
  }

  /** Takes a job out of its lane and tells whoever waits for it; the lane's next job becomes ready. */
  function end(entry: Entry): void {
    const queue = lanes.get(entry.lane);
    const index = queue?.indexOf(entry) ?? -1;
    if (queue !== undefined && index >= 0) {
      queue.splice(index, 1);
      const next = queue[0];
      if (next === undefined) forgetLane(entry);
      else if (index === 0) makeReady(entry.lane, next.job.webhook);
    }
    entry.part.unended.delete(entry.number);
    unended -= 1;
    endedCount += 1;
    entry.finish();
    const waiters = endWaiters;
    endWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Wakes the parts that found no room, the one served least recently first: the first to ask
   * takes what is free, so a busy sandbox's backlog does not keep a quiet one's attempts waiting.
   */
  function wakeStarved(): void {
    if (starved.size === 0) return;
    const waking = [...starved].sort((a, b) => a.servedAt - b.servedAt);
    starved.clear();
    for (const part of waking) part.options.onRoom?.();
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
        wakeStarved();
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

  function room(): number {
    // Jobs that wait only for a place take it first; those held by their webhook's share do not count.
    let waiting = 0;
    for (const [webhook, queue] of ready) waiting += Math.min(queue.length, Math.max(0, share - (runningOf.get(webhook) ?? 0)));
    return Math.max(0, concurrency - running - waiting);
  }

  function partOf(partOptions: PoolPartOptions): PoolPart {
    partCount += 1;
    const part: Part = { options: partOptions, unended: new Map(), lanes: new Set(), servedAt: 0 };
    parts.add(part);
    // Keys of its own: two parts' lanes and groups never mix, even for the same message.
    const prefix = `${partCount}/`;
    return {
      add(job) {
        let finish: () => void = () => undefined;
        const done = new Promise<void>((resolve) => (finish = resolve));
        added += 1;
        part.servedAt = added;
        const entry: Entry = {
          job,
          part,
          lane: prefix + job.lane,
          group: prefix + job.group,
          number: added,
          controller: new AbortController(),
          started: false,
          done,
          finish,
        };
        part.unended.set(entry.number, entry);
        unended += 1;
        const queue = lanes.get(entry.lane);
        if (queue !== undefined) {
          queue.push(entry);
          return done;
        }
        lanes.set(entry.lane, [entry]);
        part.lanes.add(entry.lane);
        const ofGroup = groups.get(entry.group) ?? new Set<string>();
        ofGroup.add(entry.lane);
        groups.set(entry.group, ofGroup);
        makeReady(entry.lane, job.webhook);
        pump();
        return done;
      },
      room() {
        const free = room();
        if (free <= 0 && parts.has(part)) starved.add(part);
        return free;
      },
      async pendingEverywhere() {
        const outside = await Promise.all([...parts].map((each) => each.options.waiting?.() ?? Promise.resolve(0)));
        return outside.reduce((sum, count) => sum + count, unended);
      },
      pendingDueBy(dueByMs) {
        const ends: Promise<void>[] = [];
        for (const entry of part.unended.values()) if (entry.job.dueAtMs <= dueByMs) ends.push(entry.done);
        return ends;
      },
      ended: () => endedCount,
      endedAfter(count) {
        if (endedCount > count) return Promise.resolve();
        return new Promise((resolve) => endWaiters.push(resolve));
      },
      dropGroups(dropped, reason) {
        for (const group of dropped) for (const lane of [...(groups.get(prefix + group) ?? [])]) drop(lane, reason);
        keepReadyLanes();
      },
      dropAll(reason) {
        for (const lane of [...part.lanes]) drop(lane, reason);
        keepReadyLanes();
      },
      leave() {
        parts.delete(part);
        starved.delete(part);
      },
    };
  }

  return {
    part: (partOptions = {}) => partOf(partOptions),
    size: () => unended,
  };
}
