// One HTTP response as sendmock holds it anywhere (written, kept, relayed, judged): a status, headers by name, a body.

/** `Body` is what the holder keeps: text by default, or bytes, or a JSON value still to be written. */
export interface HttpResponse<Body = string> {
  readonly status: number;
  /** By lower-case name unless the holder says otherwise. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Body;
}
