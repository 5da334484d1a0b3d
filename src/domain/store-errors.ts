// The one failure a shared store adds: it cannot be reached. Callers respond with 503 naming it.

export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";

  /** @param store what to name in messages, e.g. `redis store at redis://10.0.0.5:6379` */
  constructor(
    readonly store: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`${store} is unreachable: ${reason}`, options);
  }
}
