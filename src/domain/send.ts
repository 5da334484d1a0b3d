// One valid send request -> the template rendered and the message captured in the outbox.

import { randomUUID } from "node:crypto";
import { ApiError } from "../errors.js";
import type { CapturedMessage, SendRequest } from "../wire.js";
import { extractLinks } from "./links.js";
import type { Outbox } from "./outbox.js";
import { findMissingData, findUnknownData, renderTemplate } from "./render.js";
import type { TemplateCatalog } from "./templates.js";

export interface SendContext {
  apiKeyHint: string;
  /** Reject `data` keys that match no placeholder instead of warning. */
  strictData: boolean;
}

export interface SendService {
  send(request: SendRequest, context: SendContext): Promise<CapturedMessage>;
}

export interface SendServiceDeps {
  catalog: TemplateCatalog;
  outbox: Outbox;
  now?: () => Date;
  newId?: () => string;
}

function dataKeys(names: readonly string[]): string {
  return names.map((name) => `data.${name}`).join(", ");
}

function findTemplate(catalog: TemplateCatalog, templateId: string) {
  const template = catalog.get(templateId);
  if (template) return template;
  const broken = catalog.list().find((entry) => entry.id === templateId && entry.error !== undefined);
  const reason = broken ? `template "${templateId}" failed to load: ${broken.error ?? ""}` : `no template named "${templateId}"`;
  throw new ApiError("invalid_template_id", `Invalid template ID: ${reason}`);
}

export function createSendService(deps: SendServiceDeps): SendService {
  const { catalog, outbox } = deps;
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? (() => `msg_${randomUUID()}`);

  return {
    async send(request, context) {
      const template = findTemplate(catalog, request.template_id);
      const options = { subjectOverride: request.subject };

      const missing = findMissingData(template, request.data, options);
      if (missing.length > 0) {
        throw new ApiError(
          "missing_template_data",
          `Missing template data: template "${template.id}" needs ${dataKeys(missing)}`,
        );
      }
      const unknown = findUnknownData(template, request.data);
      if (unknown.length > 0 && context.strictData) {
        throw new ApiError(
          "unknown_template_data",
          `Unknown template data: ${dataKeys(unknown)} matches no placeholder of template "${template.id}"`,
        );
      }
      const warnings = unknown.map(
        (name) => `unknown_template_data: data.${name} matches no placeholder of template "${template.id}"`,
      );

      const rendered = renderTemplate(template, request.data, options);
      const message: CapturedMessage = {
        id: newId(),
        status: "queued",
        created_at: now().toISOString(),
        to: request.to,
        cc: request.cc ?? [],
        bcc: request.bcc ?? [],
        reply_to: request.reply_to ?? null,
        template_id: template.id,
        subject: rendered.subject,
        html: rendered.html ?? null,
        text: rendered.text ?? null,
        data: request.data,
        warnings,
        links: extractLinks(rendered.html, rendered.text),
        api_key_hint: context.apiKeyHint,
      };
      await outbox.add(message);
      return message;
    },
  };
}
