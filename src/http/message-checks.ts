// GET /_mock/messages/{id}/checks: the named checks of a captured message, the pure ones with the two that reach out, a
// SpamAssassin spamd's score and, only when asked, the status of links on the hosts the settings allow.

import type { ResolvedConfig } from "../config/resolve.js";
import { messageToEml } from "../domain/eml.js";
import { printable } from "../domain/printable.js";
import {
  checkMessage,
  including,
  worstStatus,
  type MessageFinding,
  type MessageCheck,
  type MessageChecks,
  type MessageContent,
} from "../message-checks/index.js";
import type { CapturedMessage } from "../wire.js";
import { askSpamd } from "./spamd-client.js";

export type ChecksConfig = Pick<ResolvedConfig, "sender" | "spamd" | "spamdTimeoutMs" | "linkCheckHosts" | "linkCheckTimeoutMs" | "maxLinkChecks">;

/** The checks of one message, as the route answers them. */
export type MessageChecksView = MessageChecks & { message_id: string };

const HOW_TO_TURN_ON =
  "not checked: set `spamd` to the host:port of a SpamAssassin spamd (`--spamd 127.0.0.1:783`, SENDMOCK_SPAMD, or `spamd:` in the config file; docs/message-checks.md)";

/** A message rendered from a template, never sent (sendmock lint), as a captured one: what its .eml is made of. */
export function unsentMessage(id: string, content: MessageContent): CapturedMessage {
  return {
    id,
    status: "queued",
    events: [],
    created_at: new Date().toISOString(),
    to: "lint@sendmock.test",
    cc: [],
    bcc: [],
    reply_to: null,
    template_id: id,
    ...content,
    data: {},
    warnings: [],
    links: [],
    api_key_hint: "",
  };
}

/** The `spam` check: spamd's score against its threshold, each rule that added points a finding. */
export async function spamCheck(
  message: CapturedMessage,
  config: Pick<ChecksConfig, "sender" | "spamd" | "spamdTimeoutMs">,
): Promise<MessageCheck & { score?: number; threshold?: number }> {
  if (config.spamd === null) return { name: "spam", status: "off", summary: HOW_TO_TURN_ON, findings: [], findings_total: 0 };
  try {
    const eml = await messageToEml(message, config.sender);
    const report = await askSpamd(config.spamd, eml.toString("utf8"), config.spamdTimeoutMs);
    const findings: MessageFinding[] = report.rules
      .filter((rule) => rule.score > 0)
      .map((rule) => ({ severity: report.isSpam ? "fail" : "warn", message: `${rule.score.toFixed(1)} ${rule.name}: ${printable(rule.description)}` }));
    const status = report.isSpam ? "fail" : report.score >= report.threshold / 2 ? "warn" : "pass";
    const verdict = report.isSpam ? "spam" : "not spam";
    return {
      name: "spam",
      status,
      summary: `${verdict}: ${report.score.toFixed(1)} points, ${report.threshold.toFixed(1)} required (SpamAssassin)`,
      findings,
      findings_total: findings.length,
      score: report.score,
      threshold: report.threshold,
    };
  } catch (error) {
    return { name: "spam", status: "error", summary: error instanceof Error ? error.message : String(error), findings: [], findings_total: 0 };
  }
}

/** One link's status, fetched without following a redirect: a link the settings allow, and nothing else. */
async function linkStatus(url: string, timeoutMs: number): Promise<MessageFinding | undefined> {
  try {
    const response = await fetch(url, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.status < 400) return undefined;
    return { severity: "fail", message: `${String(response.status)} from ${printable(url)}`, part: "html", url };
  } catch (error) {
    const why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${String(timeoutMs)} ms (link_check_timeout_ms)` : "not reachable";
    return { severity: "fail", message: `${printable(url)}: ${why}`, part: "html", url };
  }
}

/** `links` with the online status of the message's links on `link_check_hosts`, at most `max_link_checks` of them, fetched side by side. */
async function withOnlineStatus(links: MessageCheck, message: CapturedMessage, config: ChecksConfig): Promise<MessageCheck> {
  const allowed = new Set(config.linkCheckHosts.map((host) => host.toLowerCase()));
  const onAllowedHost = message.links.filter((link) => {
    try {
      return allowed.has(new URL(link).hostname.toLowerCase());
    } catch {
      return false;
    }
  });
  const fetched = onAllowedHost.slice(0, config.maxLinkChecks);
  const failed = (await Promise.all(fetched.map((link) => linkStatus(link, config.linkCheckTimeoutMs)))).filter((finding) => finding !== undefined);
  const notFetched = message.links.length - fetched.length;
  const online = `${String(fetched.length)} fetched online, ${String(failed.length)} failed${notFetched > 0 ? `; ${String(notFetched)} not fetched (not on link_check_hosts, or past max_link_checks)` : ""}`;
  return {
    ...links,
    status: failed.length > 0 ? "fail" : links.status,
    summary: `${links.summary}; ${online}`,
    findings: [...failed, ...links.findings],
    findings_total: links.findings_total + failed.length,
  };
}

/** Every named check of `message`; `online` fetches the links on `link_check_hosts`. */
export async function checksOf(message: CapturedMessage, config: ChecksConfig, online: boolean): Promise<MessageChecksView> {
  const offline = checkMessage({ subject: message.subject, html: message.html, text: message.text });
  const { checks } = including(offline, await spamCheck(message, config));
  const withOnline = await Promise.all(
    checks.map((check) => (online && check.name === "links" ? withOnlineStatus(check, message, config) : Promise.resolve(check))),
  );
  return { message_id: message.id, status: worstStatus(withOnline), checks: withOnline };
}
