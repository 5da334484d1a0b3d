// The real-mail budget of `check --allow-send`: at most --max-sends sends the target accepts in a run,
// counted as they happen, so that no request that could deliver mail goes once the budget is spent.

/** `--max-sends`' default: a run that would deliver more real mail than this needs to say so. */
export const DEFAULT_MAX_SENDS = 20;

/** What a run spent, as the report says it. */
export interface BudgetUse {
  max: number;
  /** Sends the target accepted (a 2xx), or may have (no whole answer came). */
  used: number;
  /** Requests that would have delivered mail, not sent once the budget was spent. */
  withheld: number;
}

export class SendBudget {
  private used = 0;
  private withheld = 0;

  constructor(private readonly max: number) {}

  /** Whether one more request that may deliver mail may go: the target could accept every one sent, so one is left only while fewer than `max` were accepted. */
  allows(): boolean {
    return this.used < this.max;
  }

  /** Requests that would deliver mail, kept back because the budget is spent. */
  withhold(requests = 1): void {
    this.withheld += requests;
  }

  /**
   * Counts a request that may have delivered mail by its answer: a 2xx was accepted; one with no
   * whole answer (a timeout, a closed socket) may have been, so it counts too; any other status did not send.
   */
  spend(status: number | undefined): void {
    if (status === undefined || (status >= 200 && status <= 299)) this.used += 1;
  }

  use(): BudgetUse {
    return { max: this.max, used: this.used, withheld: this.withheld };
  }
}
