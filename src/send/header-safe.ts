// Text from a request made fit for a response header.

/** Header values must be printable ASCII; anything else from the request is escaped. */
export function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
