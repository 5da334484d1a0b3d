// /_mock/messages: the captured messages, found, waited for, deleted, given events, shown as HTML or .eml.

import express, { type Request } from "express";
import { messageToEml } from "../../domain/eml.js";
import type { Lifecycle } from "../../domain/lifecycle.js";
import { WaitTimeoutError, type MessageFilter, type Outbox } from "../../domain/outbox.js";
import { ApiError } from "../../errors.js";
import { checksOf, type ChecksConfig } from "../message-checks.js";
import type { EventInput, MessageStatus, WaitTimedOut } from "../../wire.js";
import { queryFlag, queryNumber, queryString, routeParam, type Query } from "./params.js";

export interface MessageRoutesDeps {
  outbox: Pick<Outbox, "listSerialized" | "waitFor" | "clear" | "get" | "delete">;
  lifecycle: Pick<Lifecycle, "appendNow">;
  /** The sender written into a message's .eml; what the checks of a message reach (spamd, the hosts whose links may be fetched). */
  config: ChecksConfig;
  /** Aborted when the server closes, so long waits end with it. */
  shutdown: AbortSignal;
}

/** The rendered HTML may come from anywhere: inline styles and inline images, no script, no network. */
const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/** The filter a query of GET /_mock/messages asks for, once the contract took it. */
export function messageFilterOf(query: Query): MessageFilter {
  return {
    to: queryString(query, "to"),
    recipient: queryString(query, "recipient"),
    templateId: queryString(query, "template_id"),
    subject: queryString(query, "subject"),
    since: queryString(query, "since"),
    // The contract's enum has checked it.
    status: queryString(query, "status") as MessageStatus | undefined,
    q: queryString(query, "q"),
    limit: queryNumber(query, "limit"),
  };
}

/** Resolves when `signal` aborts; a closed client or a stopping server ends a long wait early. */
function abortSignalFor(req: Request, shutdown: AbortSignal): AbortSignal {
  const clientGone = new AbortController();
  req.once("close", () => clientGone.abort(new Error("client closed the request")));
  return AbortSignal.any([clientGone.signal, shutdown]);
}

export function createMessageRoutes(deps: MessageRoutesDeps): express.Router {
  const { outbox, shutdown } = deps;
  const router = express.Router();

  router.get("/_mock/messages", async (req, res) => {
    const filter = messageFilterOf(req.query);
    const waitMs = queryNumber(req.query, "wait_ms") ?? 0;
    let found = await outbox.listSerialized(filter);
    let timedOut: WaitTimedOut | undefined;
    if (found.total === 0 && waitMs > 0) {
      try {
        await outbox.waitFor(filter, { timeoutMs: waitMs, signal: abortSignalFor(req, shutdown) });
        found = await outbox.listSerialized(filter);
      } catch (error) {
        // The same words as the library's WaitTimeoutError for the same wait.
        if (error instanceof WaitTimeoutError) timedOut = { message: error.message, waited_ms: error.timeoutMs, near_misses: [...error.nearMisses] };
        else if (!req.destroyed && !shutdown.aborted) throw error;
      }
    }
    // Written as stored: serializing and validating 50 full messages on every call was most of
    // this route's cost. Each message was checked against admin.yaml when it was captured.
    const rest = `${found.truncated ? ',"truncated":true' : ""}${timedOut === undefined ? "" : `,"timed_out":${JSON.stringify(timedOut)}`}`;
    res.type("application/json").send(`{"messages":[${found.messages.join(",")}],"total":${String(found.total)}${rest}}`);
  });

  router.delete("/_mock/messages", async (_req, res) => {
    await outbox.clear();
    res.status(204).end();
  });

  const findMessage = async (req: Request) => {
    const id = routeParam(req, "id");
    const message = await outbox.get(id);
    if (!message) throw new ApiError("not_found", `No captured message with id ${JSON.stringify(id)}`);
    return message;
  };

  router.get("/_mock/messages/:id", async (req, res) => {
    res.json(await findMessage(req));
  });

  router.delete("/_mock/messages/:id", async (req, res) => {
    const id = routeParam(req, "id");
    if ((await outbox.delete(id)) === undefined) throw new ApiError("not_found", `No captured message with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  router.post("/_mock/messages/:id/events", async (req, res) => {
    // The contract has checked the body: an EventInput, whose type is one of the event types.
    const { type } = req.body as EventInput;
    res.status(201).json(await deps.lifecycle.appendNow(routeParam(req, "id"), type));
  });

  router.get("/_mock/messages/:id/html", async (req, res) => {
    const message = await findMessage(req);
    if (message.html === null) throw new ApiError("not_found", `Message ${message.id} has no HTML part (template ${message.template_id} is text only)`);
    res.set("Content-Security-Policy", PREVIEW_CSP);
    res.set("X-Content-Type-Options", "nosniff");
    res.type("text/html").send(message.html);
  });

  router.get("/_mock/messages/:id/checks", async (req, res) => {
    const message = await findMessage(req);
    res.json(await checksOf(message, deps.config, queryFlag(req.query, "online")));
  });

  router.get("/_mock/messages/:id/eml", async (req, res) => {
    const message = await findMessage(req);
    const eml = await messageToEml(message, deps.config.sender);
    // Quoted as the interface writes it (express leaves a token unquoted); a message id is
    // the mock's own `msg_<uuid>`, so it holds no quote or line break to escape.
    res.set("Content-Disposition", `attachment; filename="${message.id}.eml"`);
    res.type("message/rfc822").send(eml);
  });

  return router;
}
