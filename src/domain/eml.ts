// A captured message as an RFC 5322 email (.eml), built by nodemailer's MIME composer.

import MailComposer from "nodemailer/lib/mail-composer";
import addressparser from "nodemailer/lib/addressparser";
import type { CapturedMessage } from "../wire.js";

export const DEFAULT_SENDER = "sendmock <no-reply@sendmock.test>";

/** Why `sender` is not one mailbox (`Name <address>` or a bare address), or undefined when it is. */
export function senderProblem(sender: string): string | undefined {
  const parsed = addressparser(sender);
  const [only] = parsed;
  if (parsed.length !== 1 || only?.address === undefined) return 'must be one mailbox, such as "Ada <ada@example.com>"';
  if (!/^[^@\s]+@[^@\s]+$/.test(only.address)) return `must be one mailbox with an address such as ada@example.com, not ${JSON.stringify(sender)}`;
  return undefined;
}

/**
 * The message as a mail client would receive it: only the parts it has (text and HTML under
 * multipart/alternative), its visible recipients and never its bcc, which a receiver never sees.
 */
export function messageToEml(message: CapturedMessage, sender: string): Promise<Buffer> {
  const composer = new MailComposer({
    from: sender,
    to: message.to,
    cc: message.cc,
    ...(message.reply_to !== null && { replyTo: message.reply_to }),
    subject: message.subject,
    date: new Date(message.created_at),
    messageId: `<${message.id}@sendmock.test>`,
    ...(message.text !== null && { text: message.text }),
    ...(message.html !== null && { html: message.html }),
  });
  return composer.compile().build();
}
