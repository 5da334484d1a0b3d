// Domain objects -> the wire objects of the inspection API.

import path from "node:path";
import type { ViewRule } from "../config/declaration.js";
import type { ResolvedConfig } from "../config/resolve.js";
import { DECLARED_SETTINGS, snakeToCamel, type SettingKey } from "../config/schema.js";
import type { KeyCheck } from "../domain/api-keys.js";
import type { OutboxStats } from "../domain/outbox.js";
import type { RuntimeSettings } from "../domain/settings.js";
import type { TemplateEntry } from "../domain/templates.js";
import type { ConfigPatch, ConfigView, TemplateDetail, TemplateSummary } from "../wire.js";
import { settingsViewOf } from "./settings-change.js";

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

export interface ConfigViewSources {
  config: ResolvedConfig;
  settings: RuntimeSettings;
  keys: KeyCheck;
  stats: OutboxStats;
  /** The port actually listened on, once known. */
  port: number;
}

/** A declared key's entry in the view, by the declaration's rule: its wire name and the value shown. */
function viewEntry(key: SettingKey, rule: ViewRule, { config, settings, keys, port }: ConfigViewSources): [string, unknown] {
  const name = snakeToCamel(key);
  switch (rule) {
    case "configured":
      return [key, config[name as keyof ResolvedConfig]];
    case "running":
      return [key, settingsViewOf(settings)[key as keyof ConfigPatch]];
    case "hints":
      return [key, keys.hints];
    case "whether set":
      return [`${key}_set`, config[name as keyof ResolvedConfig] !== null];
    case "listening":
      return [key, port];
  }
}

/** `GET /_mock/config`: the keys the declaration shows, then the outbox's counts beside its limits. */
export function configView(sources: ConfigViewSources): ConfigView {
  const declared = DECLARED_SETTINGS.flatMap(([key, { view }]) => (view === undefined ? [] : [viewEntry(key, view, sources)]));
  const { stats } = sources;
  return {
    ...(Object.fromEntries(declared) as Omit<ConfigView, "captured_messages" | "dropped_messages" | "captured_bytes">),
    captured_messages: stats.count,
    dropped_messages: stats.dropped,
    captured_bytes: stats.bytes,
  };
}
