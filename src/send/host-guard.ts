// Step: a mock bound to loopback serves only loopback names and allowed_hosts in `Host` (no DNS rebinding).

import { isLoopbackHost } from "../domain/addresses.js";
import { ApiError } from "../errors.js";

export interface HostGuard {
  boundToLoopback: boolean;
  allowedHosts: readonly string[];
}

function hostnameOf(hostHeader: string): string {
  // "[::1]:4010" -> "[::1]", "localhost:4010" -> "localhost"
  return hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : (hostHeader.split(":")[0] ?? "");
}

/**
 * Why `Host` is refused, or undefined: with a loopback bind, a page whose own name resolves to
 * 127.0.0.1 sends its own name, and is refused.
 */
export function createHostCheck(guard: HostGuard): (hostHeader: string | undefined) => ApiError | undefined {
  const allowed = new Set(guard.allowedHosts.map((host) => host.toLowerCase()));
  return (hostHeader) => {
    if (!guard.boundToLoopback) return undefined;
    const hostname = hostnameOf(hostHeader ?? "").toLowerCase();
    if (isLoopbackHost(hostname) || allowed.has(hostname)) return undefined;
    return new ApiError(
      "invalid_request",
      `Host ${JSON.stringify(hostname)} is not allowed: a sendmock bound to loopback answers loopback names (127.0.0.1, localhost) and the names in allowed_hosts`,
      { status: 403 },
    );
  };
}
