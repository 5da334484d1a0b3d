// `mock.faults`, `mock.outcomes` and `mock.webhooks`: rules added as POST /_mock/faults, /_mock/outcomes and /_mock/webhooks add them, checked by the same contract and the same control.

import type { Contract } from "../contract/load.js";
import type { FaultControl } from "../domain/faults.js";
import type { OutcomeControl } from "../domain/outcomes.js";
import type { WebhookControl } from "../domain/webhooks.js";
import { rejectingAsApiError } from "../errors.js";
import { deliveryFilterOf } from "../http/admin/webhooks.js";
import type { RuleControl } from "../http/admin/rule-routes.js";
import { routeCheck } from "./route-checks.js";

/** Fault rules, written as on the wire (`{fault: "server_error", status: 503, times: 1}`): `add`, `list`, `remove`, `clear`. */
export type FaultsHandle = Pick<FaultControl, "add" | "list" | "remove" | "clear">;

/** Outcome rules, deciding what happens to a message after capture (`{outcome: "bounced", times: 1}`): `add`, `list`, `remove`, `clear`. */
export type OutcomesHandle = Pick<OutcomeControl, "add" | "list" | "remove" | "clear">;

/** Webhooks: `add`, `list`, `remove`, `deliveries` (attempts, newest first), `replay`, `onDelivery`. */
export type WebhooksHandle = Pick<WebhookControl, "add" | "list" | "remove" | "deliveries" | "replay" | "onDelivery">;

/** `add`, `list` and `remove` of the rules at `path`, each checked as its route checks it. */
function ruleCalls<Input, Rule>(control: RuleControl<Input, Rule>, contract: Contract, path: string): Required<Omit<RuleControl<Input, Rule>, "clear">> {
  const adding = routeCheck(contract, "post", path);
  const removing = routeCheck(contract, "delete", `${path}/{id}`);
  return {
    // What the domain refuses past the route's check (a parameter its kind does not take, one rule
    // too many) rejects with the ApiError the route responds with.
    add: rejectingAsApiError(async (input: Input) => control.add(adding.check({ body: input }).body as Input)),
    list: () => control.list(),
    remove: async (id) => control.remove(removing.id(id)),
  };
}

export function createFaultsHandle(faults: FaultControl, contract: Contract): FaultsHandle {
  return { ...ruleCalls(faults, contract, "/_mock/faults"), clear: () => faults.clear() };
}

export function createOutcomesHandle(outcomes: OutcomeControl, contract: Contract): OutcomesHandle {
  return { ...ruleCalls(outcomes, contract, "/_mock/outcomes"), clear: () => outcomes.clear() };
}

export function createWebhooksHandle(webhooks: WebhookControl, contract: Contract): WebhooksHandle {
  const listing = routeCheck(contract, "get", "/_mock/webhooks/deliveries", { message_id: "messageId", webhook_id: "webhookId" });
  const replaying = routeCheck(contract, "post", "/_mock/webhooks/deliveries/{id}/replay");
  return {
    ...ruleCalls(webhooks, contract, "/_mock/webhooks"),
    deliveries: async (filter = {}) => webhooks.deliveries(deliveryFilterOf(listing.check({ query: filter }).query)),
    replay: rejectingAsApiError(async (id: string) => webhooks.replay(replaying.id(id))),
    onDelivery: (listener) => webhooks.onDelivery(listener),
  };
}
