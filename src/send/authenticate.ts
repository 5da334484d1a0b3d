// Step: the API key of `Authorization: Bearer <key>`, refused when missing, malformed or not configured.

import { type KeyCheck } from "../domain/api-keys.js";
import { ApiError } from "../errors.js";

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of `Bearer <token>`, or undefined when the header is absent or malformed. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? "")?.[1];
}

/** The request's API key, once `keys` accepts it. */
export function authenticate(authorization: string | undefined, keys: KeyCheck): string {
  const key = bearerToken(authorization);
  if (key === undefined) {
    throw new ApiError("missing_api_key", "Missing API key: send the header Authorization: Bearer <API_KEY>", {
      violations: [{ path: "/headers/authorization", message: "authorization must be Bearer <API_KEY>" }],
    });
  }
  if (!keys.accepts(key)) throw new ApiError("invalid_api_key", "Invalid API key: the key is not one of the configured api_keys");
  return key;
}
