// Steps: the first two of every /send, the local send's and the proxy's relay alike: the Host the mock answers to, and POST.

import { ApiError } from "../errors.js";
import { headerOf, type PipelineBasics, type SendCall } from "./exchange.js";

/** Step: a `Host` the mock answers to (bound to loopback, a loopback name or one of allowed_hosts), else the refusal. */
export function allowHost(call: SendCall, checkHost: PipelineBasics["checkHost"]): void {
  const refusal = checkHost(headerOf(call, "host"));
  if (refusal) throw refusal;
}

/** Step: POST alone; any other method on /send is 405 naming the one allowed. */
export function requirePost(call: SendCall): void {
  if (call.method !== "POST")
    throw new ApiError("method_not_allowed", `Method ${call.method} is not allowed on /send; use POST`, { headers: { Allow: "POST" } });
}
