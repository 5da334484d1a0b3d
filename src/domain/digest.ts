// SHA-256, the one digest sendmock keeps instead of API keys and tokens, and keys documents by.

import { createHash } from "node:crypto";

/** The digest as bytes (for constant-time comparison), or as text in `encoding`. */
export function sha256(text: string): Buffer;
export function sha256(text: string, encoding: "hex" | "base64"): string;
export function sha256(text: string, encoding?: "hex" | "base64"): Buffer | string {
  const hash = createHash("sha256").update(text);
  return encoding === undefined ? hash.digest() : hash.digest(encoding);
}
