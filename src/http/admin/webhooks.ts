// /_mock/webhooks: the webhooks (the rule CRUD, less clear), their deliveries and replays.

import express from "express";
import type { WebhookControl } from "../../domain/webhooks.js";
import { queryNumber, queryString, routeParam } from "./params.js";
import { createRuleRoutes } from "./rule-routes.js";

export interface WebhookRoutesDeps {
  /** Checks a webhook (schema, URL, secret) before it is kept. */
  webhooks: Pick<WebhookControl, "add" | "list" | "remove" | "deliveries" | "replay">;
}

export function createWebhookRoutes(deps: WebhookRoutesDeps): express.Router {
  const { webhooks } = deps;
  const router = express.Router();

  // GET /_mock/webhooks/deliveries is matched by no rule route (only DELETE takes an id), so
  // the order of the two does not matter.
  router.use(createRuleRoutes({ path: "/_mock/webhooks", listKey: "webhooks", noun: "webhook", control: webhooks }));

  router.get("/_mock/webhooks/deliveries", async (req, res) => {
    const deliveries = await webhooks.deliveries({
      messageId: queryString(req, "message_id"),
      webhookId: queryString(req, "webhook_id"),
      limit: queryNumber(req, "limit"),
    });
    res.json({ deliveries });
  });

  router.post("/_mock/webhooks/deliveries/:id/replay", async (req, res) => {
    res.status(201).json(await webhooks.replay(routeParam(req, "id")));
  });

  return router;
}
