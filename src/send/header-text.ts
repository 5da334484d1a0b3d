// A request header's value as its client wrote it: Node reads a header's bytes as latin1, so UTF-8 text arrives garbled.

import { isUtf8 } from "node:buffer";

/** `value`'s bytes read as UTF-8 when they are UTF-8 (`hÃ©llo` is `héllo`), else `value` itself; ASCII is unchanged. */
export function headerText(value: string): string {
  if (!/[\u0080-\uffff]/.test(value)) return value;
  const bytes = Buffer.from(value, "latin1");
  return isUtf8(bytes) ? bytes.toString("utf8") : value;
}
