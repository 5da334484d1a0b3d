// Domain objects -> the wire objects of the inspection API.

import path from "node:path";
import type { ResolvedConfig } from "../config/resolve.js";
import type { RateLimitOptions } from "../domain/rate-limiter.js";
import type { KeyCheck } from "../domain/api-keys.js";
import type { OutboxStats } from "../domain/outbox.js";
import type { RuntimeSettings } from "../domain/settings.js";
import type { TemplateEntry } from "../domain/templates.js";
import type { ConfigView, RateLimitSettings, TemplateDetail, TemplateSummary } from "../wire.js";

export function templateSummary(entry: TemplateEntry): TemplateSummary {
  const { template } = entry;
  return {
    id: entry.id,
    // Relative to the templates folder (which is flat), so no absolute path leaks out.
    file: path.basename(entry.file),
    ok: template !== undefined,
    error: entry.error ?? null,
    subject: template?.subjectSource ?? null,
    description: template?.description ?? null,
    placeholders: template ? [...template.placeholders] : [],
    has_html: template?.htmlSource !== undefined,
    has_text: template?.textSource !== undefined,
    sample_data: template?.sampleData ?? null,
  };
}

export function templateDetail(entry: TemplateEntry): TemplateDetail {
  return {
    ...templateSummary(entry),
    html: entry.template?.htmlSource ?? null,
    text: entry.template?.textSource ?? null,
  };
}

export function rateLimitSettings(limit: RateLimitOptions | null): RateLimitSettings | null {
  return limit && { requests: limit.requests, per_seconds: limit.perSeconds, burst: limit.burst ?? limit.requests };
}

export function rateLimitOptions(limit: RateLimitSettings | null): RateLimitOptions | null {
  return limit && { requests: limit.requests, perSeconds: limit.per_seconds, burst: limit.burst ?? limit.requests };
}

export interface ConfigViewSources {
  config: ResolvedConfig;
  settings: RuntimeSettings;
  keys: KeyCheck;
  stats: OutboxStats;
  /** The port actually listened on, once known. */
  port: number;
}

export function configView({ config, settings, keys, stats, port }: ConfigViewSources): ConfigView {
  return {
    host: config.host,
    port,
    templates: config.templates,
    response_shape: settings.responseShape,
    api_keys: keys.hints,
    strict_data: settings.strictData,
    rate_limit: rateLimitSettings(settings.rateLimit),
    capacity: config.capacity,
    body_limit: config.bodyLimit,
    status_codes: config.statusCodes,
    seed: config.seed,
    allow_fault_header: config.allowFaultHeader,
    allow_magic_recipients: config.allowMagicRecipients,
    admin_token_set: config.adminToken !== null,
    cors_origins: config.corsOrigins,
    captured_messages: stats.count,
    dropped_messages: stats.dropped,
    max_bytes: config.maxBytes,
    captured_bytes: stats.bytes,
  };
}
