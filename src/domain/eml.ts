// A captured message as an RFC 5322 email (.eml), built by nodemailer's MIME composer.

import MailComposer from "nodemailer/lib/mail-composer";
import addressparser from "nodemailer/lib/addressparser";
import { encodeWord, foldLines } from "nodemailer/lib/mime-funcs";
import MimeNode from "nodemailer/lib/mime-node";
import type { CapturedMessage } from "../wire.js";

/**
 * nodemailer folds a header only at a space and encodes only text that is not ASCII, so an
 * ASCII run without a space longer than a folded line (78 characters, less the field name)
 * would stay one line, past RFC 5322's 998 (§2.1.1). Such text goes out as RFC 2047 encoded
 * words of at most 52 characters, which fold between them and decode back to the same text.
 */
const UNFOLDABLE_RUN = /[^ \t]{60}/;
const MAX_LINE = 998;
const ENCODED_WORD_LENGTH = 52;

/** Why `sender` is not one mailbox (`Name <address>` or a bare address), or undefined when it is. */
export function senderProblem(sender: string): string | undefined {
  const parsed = addressparser(sender);
  const [only] = parsed;
  if (parsed.length !== 1 || only?.address === undefined) return 'must be one mailbox, such as "Ada <ada@example.com>"';
  if (!/^[^@\s]+@[^@\s]+$/.test(only.address)) return `must be one mailbox with an address such as ada@example.com, not ${JSON.stringify(sender)}`;
  // A name nodemailer quotes cannot fold (an encoded word must not be quoted, RFC 2047 §5), so
  // a From line it leaves past 998 characters is refused here rather than written.
  const fromLines = foldLines(`From: ${MimeNode.encodeHeaderValue("From", sender)}`, 76).split("\r\n");
  if (fromLines.some((line) => line.length > MAX_LINE))
    return `must fit a mail header line of ${MAX_LINE} characters (RFC 5322 §2.1.1): put a space in its name`;
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
    subject: foldableText(message.subject),
    date: new Date(message.created_at),
    messageId: `<${message.id}@sendmock.test>`,
    ...(message.text !== null && { text: withCrlf(message.text) }),
    ...(message.html !== null && { html: withCrlf(message.html) }),
  });
  return composer.compile().build();
}

function foldableText(text: string): string {
  return UNFOLDABLE_RUN.test(text) ? encodeWord(text, "Q", ENCODED_WORD_LENGTH) : text;
}

/** A text part's line breaks are CRLF (RFC 2045 §6.7, RFC 2046 §4.1.1); a lone CR or LF counts as one. */
function withCrlf(text: string): string {
  return text.replace(/\r\n|\r|\n/g, "\r\n");
}
