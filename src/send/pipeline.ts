// POST /send from top to bottom: a request value in, an outcome out, each step a plain function in the interface's order.

import type { OperationChecks } from "../contract/operation-checks.js";
import type { KeyCheck } from "../domain/api-keys.js";
import { fieldExcerpt } from "../domain/excerpt.js";
import { takingTurns } from "../domain/turns.js";
import type { SendRequest } from "../wire.js";
import { authenticate } from "./authenticate.js";
import { capture } from "./capture.js";
import {
  errorNotes,
  headerOf,
  type SendResponse,
  type KeyClaim,
  type SendOutcome,
  type PipelineBasics,
  type SendCall,
  type SendNotes,
  type SendPipeline,
} from "./exchange.js";
import { decideFault, faultError, type FaultSources } from "./faults.js";
import { checkKeyForm, claimKey, REPLAYED_HEADER } from "./idempotency.js";
import { parseBody, requireJsonMediaType, requireJsonObject } from "./json-body.js";
import { limitRate } from "./rate-limit.js";
import { allowHost, requirePost } from "./request-line.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import { sandboxNameOf, type SendSandbox } from "./sandbox.js";
import { ERROR_CODE_HEADER, errorResponse, JSON_TYPE } from "./shapes.js";

export interface SendPipelineDeps extends FaultSources, PipelineBasics {
  keys: KeyCheck;
  /** The state of the sandbox `name` (a checked name); a new name past max_sandboxes fails with an invalid_request. */
  sandboxOf(name: string): Promise<SendSandbox>;
  /** POST /send's operation in the send contract: the request check. */
  checks: OperationChecks;
}

/**
 * A send whose body is past this size lets other requests go between its steps: before it is
 * parsed, once it is parsed, before the send itself, and before a refusal is worded. Parsing,
 * checking, rendering and capturing a 900 KB value take ~20 ms of the event loop together, and
 * four of them in a row held a small send behind them for ~85 ms (p99) in the bench's abuse
 * section; yielding after the parse and before the send cut that to 71-78 ms (either alone made
 * it worse, 83-108 ms). A refusal of a body of 60,000 unknown keys (857 KB) took ~17 ms to parse,
 * ~14 to check and ~12 to word: with four such sends at a time, a small send every 20 ms waited
 * 181-230 ms (p99) without the yield before the wording, 134-143 ms with it; 90-97 ms with the
 * yield before the parse as well, and 65-70 ms with the unknown keys past a thousand counted,
 * not checked (contract/operation-checks.ts). Large sends then still ran their steps back to
 * back in one turn of the event loop when they yielded together; taking turns, one step a turn,
 * the same hour on a slower host: 28-45 ms instead of 67-99, and four 900 KB sends 25-36 ms
 * instead of 34-49. A small send awaits none of this.
 */
const LARGE_BODY_BYTES = 64 * 1024;

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const INJECTED_MALFORMED_BODY = '{"success": true, "message_id": "msg_';

export function createSendPipeline(deps: SendPipelineDeps): SendPipeline {
  const { settings, statusCodes } = deps;
  const nextTurn = takingTurns();

  /** The sandbox a refused request names, when it names one that can be used; undefined for the default one. */
  const namedSandbox = async (call: SendCall, body: unknown): Promise<SendSandbox | undefined> => {
    try {
      const name = sandboxNameOf(call, body);
      return name === DEFAULT_SANDBOX ? undefined : await deps.sandboxOf(name);
    } catch {
      return undefined;
    }
  };

  return async function respondToSend(call: SendCall): Promise<SendOutcome> {
    const large = (call.body?.length ?? 0) > LARGE_BODY_BYTES;
    if (large) await nextTurn();
    const current = settings.current();
    const writing = { shape: current.responseShape, statusCodes };
    // Parsed on arrival, so the journal names `to` and `template_id` of a request refused before the JSON step.
    const body = parseBody(call);
    const value = body.ok ? body.value : undefined;
    let notes: SendNotes = { to: fieldExcerpt(value, "to"), templateId: fieldExcerpt(value, "template_id") };
    // What every response from the rate limiter on carries, and the key this request holds.
    let headers: Record<string, string> = {};
    let claim: KeyClaim | undefined;
    // Known from the sandbox step on: where the writer journals, and keeps the response for its key.
    let sandbox: SendSandbox | undefined;

    // Past the host check, a refusal before the sandbox step (a wrong method, a missing key) is journaled in the sandbox the request names.
    let hostAllowed = false;

    try {
      allowHost(call, deps.checkHost);
      hostAllowed = true;
      requirePost(call);
      if (large) await nextTurn();
      const apiKey = authenticate(headerOf(call, "authorization"), deps.keys);
      notes = { ...notes, apiKey };
      sandbox = await deps.sandboxOf(sandboxNameOf(call, value));
      notes = { ...notes, sandbox: sandbox.name };
      const rate = await limitRate(apiKey, current.rateLimit, sandbox.limiter);
      headers = rate.headers;
      if (rate.refusal) throw rate.refusal;
      const contentType = headerOf(call, "content-type");
      requireJsonMediaType(contentType);
      const request = requireJsonObject(body);
      const key = headerOf(call, "idempotency-key");
      checkKeyForm(key);
      const refusal = deps.checks.request({
        query: call.query,
        params: NO_PARAMS,
        headers: call.headers,
        contentType,
        body: request,
      });
      if (refusal) throw refusal;
      // The contract holds from here on: the body is a SendRequest.
      const send = request as unknown as SendRequest;

      if (key !== undefined) {
        const use = await claimKey(key, apiKey, request, sandbox.idempotency);
        if ("replay" in use) {
          const kept = use.replay;
          const replayed: SendResponse = {
            status: kept.status,
            headers: { ...headers, ...kept.headers, [REPLAYED_HEADER]: "true" },
            body: { bytes: kept.body },
          };
          const code = kept.headers[ERROR_CODE_HEADER];
          // Sent as it went out the first time: it was judged then.
          return {
            kind: "response",
            response: replayed,
            judge: "none",
            sandbox,
            notes: { ...notes, idempotentReplay: true, messageId: kept.messageId ?? undefined, ...(code !== undefined && { error: { code, violations: [] } }) },
          };
        }
        claim = use.claimed;
      }

      const target = { to: send.to, templateId: send.template_id, apiKey };
      const { delayed, fault } = await decideFault(call, target, sandbox.faultPlan, deps);
      if (delayed) notes = { ...notes, fault: "latency" };
      if (fault !== undefined) notes = { ...notes, fault: fault.kind };
      if (fault !== undefined && fault.kind !== "lost_answer") {
        switch (fault.kind) {
          case "disconnect":
            return { kind: "disconnect", notes, claim, sandbox };
          case "timeout":
            return { kind: "hold", holdMs: fault.delayMs, notes, claim, sandbox };
          case "malformed_response":
            // Past the response check: the point is a body no JSON parser accepts.
            return {
              kind: "response",
              response: { status: 200, headers: { ...headers, "content-type": JSON_TYPE }, body: { bytes: INJECTED_MALFORMED_BODY } },
              judge: "none",
              notes,
              claim,
              sandbox,
            };
          case "respond": {
            // chosenFault gives every respond its response; without one the client would wait forever.
            if (!fault.response) throw new Error("a respond fault without its answer");
            const given = fault.response;
            const own: Record<string, string> = { ...headers };
            for (const [name, text] of Object.entries(given.headers)) own[name.toLowerCase()] = text;
            // Written exactly as the rule gives it, and judged by the writer: what departs goes to the journal.
            return {
              kind: "response",
              response: { status: given.status, headers: own, body: { bytes: given.body ?? "" } },
              judge: "record",
              notes,
              claim,
              sandbox,
            };
          }
          default:
            throw faultError(fault, target, statusCodes);
        }
      }

      if (large) await nextTurn();
      // A reset or a forget may have let the sandbox's name go while this send waited (a latency
      // fault, a slow store): claimed again, the message is captured where every read finds it.
      if (sandbox.name !== DEFAULT_SANDBOX) sandbox = await deps.sandboxOf(sandbox.name);
      const { message, response } = await capture(send, apiKey, current, sandbox.sendService);
      notes = { ...notes, messageId: message.id };
      const sent: SendResponse = { ...response, headers: { ...headers, ...response.headers } };
      // Sent, then the response lost on the way: kept, so a retry with the same key gets it.
      if (fault?.kind === "lost_answer") return { kind: "lost", response: sent, notes, claim, sandbox };
      return { kind: "response", response: sent, judge: "enforce", notes, claim, sandbox };
    } catch (thrown) {
      if (large) await nextTurn();
      // The app that forgot its API key is told in its sandbox, where its test looks (setupSandbox's judgment); a name
      // that breaks the rule, or one past max_sandboxes, leaves the refusal in the default sandbox's journal.
      if (sandbox === undefined && hostAllowed) {
        sandbox = await namedSandbox(call, value);
        if (sandbox !== undefined) notes = { ...notes, sandbox: sandbox.name };
      }
      const error = deps.toApiError(thrown, value);
      return { kind: "response", response: errorResponse(error, writing, headers), judge: "enforce", notes: errorNotes(notes, error), claim, sandbox };
    }
  };
}
