// A message as the checks read it: its HTML parsed and its parts' line indexes made once, on first use, and shared by every check of one run.

import { parseHtml, type ParsedHtml } from "./html-scan.js";
import { LineIndex } from "./lines.js";
import type { MessageContent } from "./types.js";

export type PartName = "subject" | "html" | "text";

export class MessageView {
  readonly message: MessageContent;
  #html: ParsedHtml | undefined;
  readonly #lines = new Map<PartName, LineIndex>();

  constructor(message: MessageContent) {
    this.message = message;
  }

  /** The HTML parsed (empty when there is no HTML part). */
  get html(): ParsedHtml {
    this.#html ??= parseHtml(this.message.html ?? "");
    return this.#html;
  }

  /** The 1-based line of `offset` in `part`. */
  lineOf(part: PartName, offset: number): number {
    let lines = this.#lines.get(part);
    if (lines === undefined) {
      lines = new LineIndex(this.message[part] ?? "");
      this.#lines.set(part, lines);
    }
    return lines.lineOf(offset);
  }
}
