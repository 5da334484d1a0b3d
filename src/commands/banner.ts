// The start banner of serve and proxy: where the mock is, what it loaded and which rules are in force.

import { isLoopbackHost } from "../domain/addresses.js";
import { rateLimitSettingOf } from "../config/rate-limit.js";
import type { RunningSendMock } from "../mock.js";
import type { FaultRule, RateLimitSettings } from "../wire.js";
import type { Banner } from "./log.js";

/** The rules shown one per line; past them, a count. A banner is read at a glance. */
const FAULT_LINES_SHOWN = 5;

/** The URL as it may be printed: a password in it would otherwise reach the terminal and CI logs. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:/@]*@/, "@");
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}

function rateLimitText(limit: Required<RateLimitSettings> | null): string {
  if (limit === null) return "none";
  return `${limit.requests} requests per ${limit.per_seconds} s per API key, burst ${limit.burst}`;
}

/** `server_error status=503 to=*@example.com times=2`: the rule's kind, then what it was given. */
export function faultRuleText(rule: FaultRule): string {
  const given: [string, string | number | null][] = [
    ["to", rule.match.to],
    ["template_id", rule.match.template_id],
    ["api_key", rule.api_key_hint === null ? null : `…${rule.api_key_hint}`],
    ["status", rule.status],
    ["retry_after_s", rule.retry_after_s],
    ["delay_ms", rule.delay_ms],
    ["times", rule.times],
    ["probability", rule.probability === 1 ? null : rule.probability],
  ];
  return [rule.fault, ...given.filter(([, value]) => value !== null).map(([key, value]) => `${key}=${String(value)}`)].join(" ");
}

function faultLines(rules: readonly FaultRule[]): [string, string][] {
  if (rules.length === 0) return [["faults", "none"]];
  const shown = rules.slice(0, FAULT_LINES_SHOWN).map((rule): [string, string] => ["", faultRuleText(rule)]);
  const more = rules.length > FAULT_LINES_SHOWN ? [["", `… and ${rules.length - FAULT_LINES_SHOWN} more (GET /_mock/faults)`] as [string, string]] : [];
  return [["faults", `${rules.length} rule${rules.length === 1 ? "" : "s"}`], ...shown, ...more];
}

export interface BannerOptions {
  /** `sendmock` or `sendmock proxy`. */
  name: string;
  /** The send line: where POST /send goes. */
  send: string;
  /** The inspection call most worth knowing in this mode. */
  inspect: string;
  /** The config file as given (flag or SENDMOCK_CONFIG), resolved; undefined for none. */
  configFile: string | undefined;
  /** Faults and the rate limiter act in mock mode only; a proxy passes every request on. */
  rulesApply: boolean;
}

export async function bannerOf(mock: RunningSendMock, options: BannerOptions): Promise<Banner> {
  const { config } = mock;
  const templates = mock.templates.list();
  const broken = templates.filter((entry) => entry.error !== undefined).length;
  const loaded = templates.length - broken;
  const store = config.store.kind === "memory" ? "memory" : `redis ${withoutPassword(config.store.url)} (key prefix ${config.store.keyPrefix})`;
  const rateLimit = rateLimitSettingOf(mock.settings.current().rateLimit);
  const rules = options.rulesApply ? await mock.faults.list() : [];

  const lines: [string, string][] = [
    ["send", options.send],
    ["inbox", `${mock.url}/_mock/`],
    ["inspect", options.inspect],
    ["templates", `${loaded} loaded${broken > 0 ? `, ${broken} broken` : ""} from ${config.templates}`],
    ["config", options.configFile ?? "none"],
    ["store", store],
  ];
  if (options.rulesApply) lines.push(["rate limit", rateLimitText(rateLimit)], ...faultLines(rules));
  // Said where it cannot be missed: allow_open_admin is the image's default, and a published port reaches every email.
  const open = config.adminToken === null && !isLoopbackHost(config.host);
  if (open) lines.push(["admin", `open: no admin_token, so whoever reaches ${mock.url} reads every email (docs/security-and-limits.md)`]);
  return {
    title: `${options.name} listening on ${mock.url}`,
    lines,
    fields: {
      url: mock.url,
      send: options.send,
      inbox: `${mock.url}/_mock/`,
      templates: { folder: config.templates, loaded, broken },
      config: options.configFile ?? null,
      admin_open: open,
      store:
        config.store.kind === "memory" ? { kind: "memory" } : { kind: "redis", url: withoutPassword(config.store.url), key_prefix: config.store.keyPrefix },
      ...(options.rulesApply && {
        rate_limit: rateLimit,
        faults: rules.map(faultRuleText),
      }),
    },
  };
}
