// capacity and max_bytes held by every sandbox's outbox and journal together (docs/sandboxes.md#bounds): one bound per kind of item, whichever store keeps them.

/** What one kind of item (captured messages, journal entries) may take across every sandbox. */
export interface BoundLimits {
  capacity: number;
  /** UTF-8 bytes, as each store counts its items. */
  maxBytes: number;
}

/** What one kind of item takes now across every sandbox. */
export interface BoundUsage {
  count: number;
  bytes: number;
}

/**
 * The bounds every sandbox's outbox and journal charge their items to. Past one, the oldest item
 * across all sandboxes goes first (by capture order), the newest always stays: one busy sandbox
 * cannot make the mock hold more than a quiet one would, and the room goes to what came last.
 * A store charges its items as it adds them, in the same step (on Redis, the same script).
 */
export interface SharedBounds {
  readonly messages: BoundLimits;
  readonly journal: BoundLimits;
  /** What every sandbox keeps now, together. */
  usage(): Promise<{ messages: BoundUsage; journal: BoundUsage }>;
}
