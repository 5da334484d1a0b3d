// A response from a server sendmock does not control (check's target, the proxy's upstream), read through fetch within a byte bound, and what broke when it broke after answering.

/** What check and the proxy read of a body by default (`--max-body-bytes`): a send API's responses are a few hundred bytes; the proxy's own request bound (`body_limit`) is the same. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** The most `--max-body-bytes` may be: past it one response could hold more than a gigabyte. */
export const MAX_MAX_BODY_BYTES = 1024 * 1024 * 1024;

/**
 * The body's bytes as fetch decodes them (gzip, deflate, br: the decoded bytes are what is
 * counted), or `undefined` once they pass `maxBytes`. Then the rest is never read: the stream is
 * cancelled, which drops the connection. Read whole, 300 MB bodies took a proxy to 4 GB and a
 * 1 MB gzip bomb (1 GB inflated) to 5 GB; now at most `maxBytes` and one chunk are held.
 */
export async function readWithin(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (response.body === null) return Buffer.alloc(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

interface UndiciCause {
  code?: string;
  message?: string;
  /** undici's SocketError says how much the socket had read when it closed. */
  socket?: { bytesRead?: number };
}

function causeOf(error: unknown): UndiciCause | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause !== null && typeof cause === "object" ? cause : undefined;
}

/**
 * Why a server that answered (its status line came, or `status` when the body was being read)
 * gave no whole response, in words such as `answered 200, then broke: the connection closed
 * mid-body (UND_ERR_SOCKET)`; undefined when nothing answered, which the caller words as a server
 * it cannot reach. Told apart, a target that closes mid-body is a failed run, not a usage error.
 */
export function brokenAnswer(error: unknown, status: number | undefined): string | undefined {
  const cause = causeOf(error);
  if (status !== undefined) {
    const name = error instanceof Error ? error.name : "";
    const why =
      name === "TimeoutError"
        ? "its body did not end before the timeout"
        : name === "AbortError"
          ? "cut off"
          : cause?.code === "UND_ERR_SOCKET"
            ? "the connection closed mid-body (UND_ERR_SOCKET)"
            : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
    return `answered ${status}, then broke: ${why}`;
  }
  if (cause?.code === "UND_ERR_HEADERS_OVERFLOW") return "answered, then broke: headers larger than the client reads (UND_ERR_HEADERS_OVERFLOW)";
  if (cause?.code === "UND_ERR_SOCKET" && (cause.socket?.bytesRead ?? 0) > 0) return "answered, then broke: the connection closed mid-answer (UND_ERR_SOCKET)";
  return undefined;
}
