// /_mock/webhooks: the webhooks (the rule CRUD, less clear), their deliveries and replays.

import express from "express";
import type { DeliveryFilter, WebhookControl } from "../../domain/webhooks.js";
import { queryNumber, queryString, routeParam, type Query } from "./params.js";
import { createRuleRoutes } from "./rule-routes.js";

export interface WebhookRoutesDeps {
  /** Checks what WebhookInput cannot say (the URL, the secret) before a webhook is kept. */
  webhooks: Pick<WebhookControl, "add" | "list" | "remove" | "deliveries" | "replay">;
}

/** The attempts a query of GET /_mock/webhooks/deliveries asks for, once the contract took it. */
export function deliveryFilterOf(query: Query): DeliveryFilter {
  return { messageId: queryString(query, "message_id"), webhookId: queryString(query, "webhook_id"), limit: queryNumber(query, "limit") };
}

export function createWebhookRoutes(deps: WebhookRoutesDeps): express.Router {
  const { webhooks } = deps;
  const router = express.Router();

  // GET /_mock/webhooks/deliveries is matched by no rule route (only DELETE takes an id), so
  // the order of the two does not matter.
  router.use(createRuleRoutes({ path: "/_mock/webhooks", listKey: "webhooks", noun: "webhook", control: webhooks }));

  router.get("/_mock/webhooks/deliveries", async (req, res) => {
    const deliveries = await webhooks.deliveries(deliveryFilterOf(req.query));
    res.json({ deliveries });
  });

  router.post("/_mock/webhooks/deliveries/:id/replay", async (req, res) => {
    res.status(201).json(await webhooks.replay(routeParam(req, "id")));
  });

  return router;
}
