// `mock.clock`: the mock's time, moved forward as POST /_mock/clock moves it, the step checked as it checks it.

import type { Contract } from "../contract/load.js";
import type { ClockControl } from "../domain/clock.js";
import { rejectingAsApiError } from "../errors.js";
import type { ClockAdvance } from "../wire.js";
import { routeCheck } from "./route-checks.js";

/** The mock's clock: `now()`, `offsetMs()`, `advance(ms)`, which runs what falls due before it resolves. */
export type ClockHandle = Pick<ClockControl, "now" | "offsetMs" | "advance">;

export function createClockHandle(clock: ClockControl, contract: Contract): ClockHandle {
  const advancing = routeCheck(contract, "post", "/_mock/clock");
  return {
    now: () => clock.now(),
    offsetMs: () => clock.offsetMs(),
    // An advance past the latest time the clock can show is the domain's refusal: the route's ApiError.
    advance: rejectingAsApiError(async (ms: number) => clock.advance((advancing.check({ body: { advance_ms: ms } }).body as ClockAdvance).advance_ms)),
  };
}
