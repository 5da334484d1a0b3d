// Proxy mode's options (`sendmock proxy`, or `proxy` given to the library), checked and completed.

import { isHttpUrl, withoutCredentials } from "../domain/addresses.js";
import { DEFAULT_MAX_BODY_BYTES, MAX_MAX_BODY_BYTES } from "../bounded-response.js";
import { ConfigError, type OptionsSource } from "./check.js";

export interface ProxyOptions {
  /** The real service's base URL (http or https); requests go to `{target}/send`. */
  target: string;
  /** Respond with 502 contract_violation instead of passing on a response that breaks the contract. */
  strict?: boolean;
  /** How long to wait for the service's response (default 30000). */
  timeoutMs?: number;
  /** The most of the service's response body read, in bytes once decompressed; a longer one is answered 502 (default 1 MB, as `body_limit`). */
  maxBodyBytes?: number;
  /**
   * What both directions are judged by: `published` (default, openapi/service.yaml: what the
   * service's spec publishes), `sendmock` (openapi/send.yaml) or an OpenAPI 3.x file with POST /send.
   */
  contract?: string;
}

export function resolveProxy(proxy: ProxyOptions, optionsSource: OptionsSource): Required<ProxyOptions> {
  if (!isHttpUrl(proxy.target))
    throw new ConfigError(`${optionsSource}: the proxy target must be an http or https URL, got ${JSON.stringify(withoutCredentials(proxy.target))}`);
  const url = new URL(proxy.target);
  // Forwarded, they would go to the service on every send and be printed in the banner, the
  // journal and every 502; the app's own Authorization header is what the proxy passes on.
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      `${optionsSource}: the proxy target must not hold credentials (user:password@); got ${withoutCredentials(proxy.target)}. Leave them out: the proxy passes on your app's Authorization header`,
    );
  }
  const timeoutMs = proxy.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new ConfigError(`${optionsSource}: the proxy timeout must be a whole number of milliseconds >= 1`);
  const maxBodyBytes = proxy.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1 || maxBodyBytes > MAX_MAX_BODY_BYTES)
    throw new ConfigError(`${optionsSource}: the proxy's maxBodyBytes must be a whole number of bytes from 1 to ${MAX_MAX_BODY_BYTES}`);
  const contract = proxy.contract ?? "published";
  if (contract.trim() === "") throw new ConfigError(`${optionsSource}: the proxy contract must be published, sendmock or an OpenAPI file, got ""`);
  return { target: proxy.target.replace(/\/+$/, ""), strict: proxy.strict ?? false, timeoutMs, maxBodyBytes, contract };
}
