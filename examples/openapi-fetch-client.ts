// A client made by someone else's tools, talking to sendmock: openapi-fetch, typed by the types
// openapi-typescript generated from openapi/send.yaml. Nothing here knows about sendmock: point
// `baseUrl` at the real service and the same code sends for real.
//
// In your app: `npm install -D sendmock openapi-fetch`, then import the types from "sendmock"
// (this example sits in sendmock's repository, so it imports them from the source).
import createClient from "openapi-fetch";
import type { SendApiComponents, SendApiPaths } from "../src/index.js";

type Schemas = SendApiComponents["schemas"];
export type SendRequest = Schemas["SendRequest"];

/** A typed client of the send API: paths, bodies and responses come from the contract. */
export function createSendClient(baseUrl: string) {
  return createClient<SendApiPaths>({ baseUrl });
}

export type SendClient = ReturnType<typeof createSendClient>;

/** Sends one email and tells how it went, in either of the service's response shapes. */
export async function sendEmail(client: SendClient, apiKey: string, request: SendRequest) {
  const { data, error, response } = await client.POST("/send", {
    headers: { Authorization: `Bearer ${apiKey}` },
    body: request,
  });
  if (error !== undefined) {
    // `error` is the contract's error union: shape a ({success: false, error: {code, message}})
    // or shape b ({status: "error", message}).
    const message = "error" in error ? error.error.message : error.message;
    return { ok: false as const, status: response.status, message, error };
  }
  // `data` is the success union: shape a carries `message_id`, shape b `email_id`.
  const messageId = "message_id" in data ? data.message_id : data.email_id;
  return { ok: true as const, status: response.status, messageId, data };
}
