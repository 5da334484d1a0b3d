// The webhook attempts of one open message, newest first: each attempt's event, webhook, number,
// response (or that it is still waiting), duration and time, with a Replay button; attempts heard on
// the event stream join live, or take the place of the waiting one they ended.

import { listWebhookDeliveries, listWebhooks, replayWebhookDelivery } from "../api.js";
import { h, syncList } from "../dom.js";
import { durationText, preciseTimeOf, statusClass } from "../format.js";
import { errorText, notify } from "../notice.js";

/**
 * The list for message `messageId`. `element` goes in the detail; `add(delivery)` takes an
 * attempt from the event stream; `reload()` fetches them all again (after a reconnect, when the
 * stream may have missed some). Loads once when made.
 */
export function createWebhookDeliveries(messageId) {
  // Newest first, as the API lists them. An attempt heard live while a fetch is on its way is
  // kept when the fetch's response does not have it yet.
  let deliveries = [];
  // Webhook id → url; an attempt whose webhook is not known yet (added since) shows its id.
  let webhookUrls = new Map();
  let loaded = false;

  const note = h("p", { class: "empty-inline", "data-testid": "webhook-deliveries-empty" }, "Loading the webhook attempts…");
  const list = h("ol", {
    class: "delivery-list",
    "data-testid": "webhook-deliveries",
    "aria-label": "Webhook attempts, newest first",
    "aria-live": "polite",
  });

  function draw() {
    note.hidden = loaded && deliveries.length > 0;
    if (loaded && deliveries.length === 0) note.textContent = "No webhook attempts: no webhook takes this message's events yet.";
    syncList(list, deliveries, {
      key: (delivery) => delivery.id,
      // An attempt changes once, when it ends; its webhook's url may become known later.
      version: (delivery) => `${delivery.id} ${delivery.status} ${delivery.error} ${webhookUrls.has(delivery.webhook_id)}`,
      render: deliveryItem,
    });
  }

  function deliveryItem(delivery) {
    const webhook = webhookUrls.get(delivery.webhook_id) ?? delivery.webhook_id;
    const waiting = delivery.status === null && delivery.error === null;
    const failed = delivery.status === null || delivery.status < 200 || delivery.status >= 300;
    return h(
      "li",
      { class: "delivery-item", "data-testid": "webhook-delivery", "data-id": delivery.id, "data-status": delivery.status ?? "none" },
      h("code", { class: "timeline-type" }, delivery.event_type),
      h("span", { class: "delivery-webhook link-text" }, webhook),
      h("span", { class: "delivery-attempt" }, `attempt ${delivery.attempt}`),
      h(
        "span",
        { class: `badge status-badge ${statusClass(delivery.status ?? 0)}`, "data-testid": "webhook-delivery-status" },
        waiting ? "waiting" : delivery.status === null ? "no answer" : String(delivery.status),
      ),
      failed && delivery.error !== null ? h("span", { class: "delivery-error" }, delivery.error) : null,
      h("span", { class: "timeline-time" }, preciseTimeOf(delivery.at), h("span", { class: "muted" }, ` · ${durationText(delivery.duration_ms)}`)),
      delivery.next_attempt_at === null
        ? null
        : h("span", { class: "timeline-detail", "data-testid": "webhook-delivery-retry" }, "retry at ", preciseTimeOf(delivery.next_attempt_at)),
      h(
        "button",
        {
          type: "button",
          class: "button-quiet button-small delivery-replay",
          "aria-label": `Replay ${delivery.event_type} to ${webhook} (attempt ${delivery.attempt})`,
          onclick: (event) => replay(delivery, event.currentTarget),
        },
        "Replay",
      ),
    );
  }

  async function replay(delivery, button) {
    button.disabled = true;
    try {
      // The new attempt also comes over the event stream; add() keeps one of the two.
      add(await replayWebhookDelivery(delivery.id));
    } catch (error) {
      notify(`Cannot replay the webhook: ${errorText(error)}`, "error");
    } finally {
      button.disabled = false;
    }
  }

  async function refreshWebhooks() {
    const { webhooks } = await listWebhooks();
    webhookUrls = new Map(webhooks.map((webhook) => [webhook.id, webhook.url]));
  }

  function add(delivery) {
    if (delivery.message_id !== messageId) return;
    // An attempt that ended takes the place of its waiting self; the same attempt twice (the replay's response and the stream) stays one.
    const known = deliveries.findIndex((other) => other.id === delivery.id);
    if (known >= 0) deliveries = deliveries.map((other, index) => (index === known ? delivery : other));
    else deliveries = [delivery, ...deliveries];
    draw();
    if (!webhookUrls.has(delivery.webhook_id)) refreshWebhooks().then(draw, () => undefined);
  }

  async function reload() {
    try {
      const [{ deliveries: fetched }] = await Promise.all([listWebhookDeliveries(messageId), refreshWebhooks()]);
      const fetchedIds = new Set(fetched.map((delivery) => delivery.id));
      deliveries = [...deliveries.filter((delivery) => !fetchedIds.has(delivery.id)), ...fetched];
      loaded = true;
      draw();
    } catch (error) {
      note.hidden = false;
      note.textContent = `Cannot load the webhook attempts: ${errorText(error)}`;
    }
  }

  void reload();
  return { element: [note, list], add, reload };
}
