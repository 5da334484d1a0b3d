// One valid send request -> the template rendered and the message captured in the outbox; in
// proxy mode, one the real service accepted -> captured, rendered locally when a template can.

import { randomUUID } from "node:crypto";
import { DomainFailure } from "./failure.js";
import type { CapturedMessage, SendRequest } from "../wire.js";
import type { Lifecycle } from "./lifecycle.js";
import { extractLinks } from "./links.js";
import type { Outbox } from "./outbox.js";
import { findMissingData, findSubjectLineBreaks, findUnknownData, renderTemplate, type RenderedEmail } from "./render.js";
import { closestKey } from "./suggestion.js";
import type { TemplateCatalog } from "./templates.js";

export interface SendContext {
  /** Matched by outcome rules that name a key; never kept. */
  apiKey?: string;
  apiKeyHint: string;
  /** Reject `data` keys that match no placeholder instead of warning. */
  strictData: boolean;
}

/** What the proxy knows of a request the real service accepted: it may break the contract. */
export interface RelayedSend {
  request: SendRequest;
  /** The id the real service gave the message. */
  id: string;
  apiKeyHint: string;
  /** Whether the request keeps to the contract: only then may a local template render it. */
  requestOk: boolean;
}

export interface SendService {
  send(request: SendRequest, context: SendContext): Promise<CapturedMessage>;
  /** Captures a message the real service accepted, rendered by the local template when it can render it. */
  captureRelayed(relayed: RelayedSend): Promise<CapturedMessage>;
}

export interface SendServiceDeps {
  catalog: TemplateCatalog;
  outbox: Outbox;
  /** What happens to a message after capture; none in proxy mode, where the real service decides. */
  lifecycle?: Lifecycle;
  /** The mock's clock: `created_at` and the lifecycle's events share it. */
  now?: () => Date;
  newId?: () => string;
  /** The sandbox the messages are captured in, written on each; absent for the default sandbox, whose messages name none. */
  sandbox?: string;
}

function dataKeys(names: readonly string[]): string {
  return names.map((name) => `data.${name}`).join(", ");
}

/**
 * ` (did you mean data.login_url for data.loginurl?)` for each of `given` close to one of `wanted`
 * (a misspelt key beside the placeholder it was meant for); "" when none is.
 */
function meantKeys(given: readonly string[], wanted: readonly string[]): string {
  const meant = given.flatMap((name) => {
    const close = closestKey(name, wanted);
    return close === undefined ? [] : [`data.${close} for data.${name}`];
  });
  return meant.length === 0 ? "" : ` (did you mean ${meant.join(", ")}?)`;
}

function findTemplate(catalog: TemplateCatalog, templateId: string) {
  const template = catalog.get(templateId);
  if (template) return template;
  const broken = catalog.list().find((entry) => entry.id === templateId && entry.error !== undefined);
  const reason = broken ? `template "${templateId}" failed to load: ${broken.error ?? ""}` : `no template named "${templateId}"`;
  throw new DomainFailure("invalid_template_id", `Invalid template ID: ${reason}`);
}

/** The captured form of `request`; `content` is what rendering (or the lack of it) gave. */
function capturedMessage(
  request: SendRequest,
  parts: { id: string; createdAt: Date; apiKeyHint: string; content: RenderedEmail; warnings: string[]; sandbox: string | undefined },
): CapturedMessage {
  const { content } = parts;
  return {
    id: parts.id,
    status: "queued",
    events: [],
    created_at: parts.createdAt.toISOString(),
    to: request.to,
    cc: request.cc ?? [],
    bcc: request.bcc ?? [],
    reply_to: request.reply_to ?? null,
    template_id: request.template_id,
    subject: content.subject,
    html: content.html ?? null,
    text: content.text ?? null,
    data: request.data,
    warnings: parts.warnings,
    links: extractLinks(content.html, content.text),
    api_key_hint: parts.apiKeyHint,
    ...(parts.sandbox !== undefined && { sandbox: parts.sandbox }),
  };
}

export function createSendService(deps: SendServiceDeps): SendService {
  const { catalog, outbox, lifecycle } = deps;
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? (() => `msg_${randomUUID()}`);

  /** The template rendered with the request's data, or the DomainFailure that says why it cannot be. */
  function render(request: SendRequest, strictData: boolean): { content: RenderedEmail; warnings: string[] } {
    const template = findTemplate(catalog, request.template_id);
    const options = { subjectOverride: request.subject };

    const missing = findMissingData(template, request.data, options);
    const unknown = findUnknownData(template, request.data);
    if (missing.length > 0) {
      throw new DomainFailure(
        "missing_template_data",
        `Missing template data: template "${template.id}" needs ${dataKeys(missing)}${meantKeys(unknown, missing)}`,
      );
    }
    const placeholders = template.placeholders;
    if (unknown.length > 0 && strictData) {
      throw new DomainFailure(
        "unknown_template_data",
        `Unknown template data: ${dataKeys(unknown)} matches no placeholder of template "${template.id}"${meantKeys(unknown, placeholders)}`,
      );
    }
    const warnings = unknown.map(
      (name) => `unknown_template_data: data.${name} matches no placeholder of template "${template.id}"${meantKeys([name], placeholders)}`,
    );
    for (const name of findSubjectLineBreaks(template, request.data, options)) {
      warnings.push(`subject_line_break: data.${name} holds a line break, which the subject shows as a space (a subject is one header line)`);
    }
    return { content: renderTemplate(template, request.data, options), warnings };
  }

  /** What the proxy captures when no local template renders the message: the request as sent, and why. */
  function relayedAsSent(relayed: RelayedSend): { content: RenderedEmail; warnings: string[] } {
    const { request, requestOk } = relayed;
    const templateId = request.template_id;
    const asSent = { subject: request.subject ?? "", html: undefined, text: undefined };
    if (!catalog.get(templateId)) return { content: asSent, warnings: [`rendered by the upstream service; no local template ${templateId}`] };
    if (!requestOk) {
      return {
        content: asSent,
        warnings: [`rendered by the upstream service; the request breaks the contract, so the local template ${templateId} was not used`],
      };
    }
    try {
      return render(request, false);
    } catch (error) {
      if (!(error instanceof DomainFailure)) throw error;
      return { content: asSent, warnings: [`rendered by the upstream service; the local template ${templateId} could not render it: ${error.message}`] };
    }
  }

  return {
    async send(request, context) {
      const { content, warnings } = render(request, context.strictData);
      const decided = await lifecycle?.outcomeFor({ to: request.to, templateId: request.template_id, apiKey: context.apiKey ?? "" });
      if (decided?.warning !== undefined) warnings.push(decided.warning);
      const message = capturedMessage(request, { id: newId(), createdAt: now(), apiKeyHint: context.apiKeyHint, content, warnings, sandbox: deps.sandbox });
      // Its first step is scheduled beside the capture, not after it: on a shared store the two
      // go out in one write, one round trip. A step whose message was never captured finds it
      // gone and ends there.
      const [{ dropped }] = await Promise.all([outbox.add(message), lifecycle && decided ? lifecycle.start(message, decided.outcome) : undefined]);
      if (lifecycle && decided) await lifecycle.forget(dropped);
      return message;
    },

    async captureRelayed(relayed) {
      const { content, warnings } = relayedAsSent(relayed);
      const message = capturedMessage(relayed.request, {
        id: relayed.id,
        createdAt: now(),
        apiKeyHint: relayed.apiKeyHint,
        content,
        warnings,
        sandbox: deps.sandbox,
      });
      await outbox.add(message);
      return message;
    },
  };
}
