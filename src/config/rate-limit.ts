// rate_limit between its two spellings, each way once: the setting (snake_case, as a config file,
// the admin API and the banner's fields write it) and the domain's RateLimitOptions.

import type { RateLimitOptions } from "../domain/rate-limiter.js";
import type { RateLimitSettings } from "../wire.js";

/** The setting as the rate limiter takes it, `burst` filled in (the bucket holds `requests` when it is left out). */
export function rateLimitOptionsOf(setting: RateLimitSettings | null): Required<RateLimitOptions> | null {
  return setting && { requests: setting.requests, perSeconds: setting.per_seconds, burst: setting.burst ?? setting.requests };
}

/** The limit in force as a setting, `burst` always said: what `GET /_mock/config` and the start banner show. */
export function rateLimitSettingOf(limit: RateLimitOptions | null): Required<RateLimitSettings> | null {
  return limit && { requests: limit.requests, per_seconds: limit.perSeconds, burst: limit.burst ?? limit.requests };
}
