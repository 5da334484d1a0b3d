// Finds the http(s) links of a rendered email, so tests can follow them.

import { decodeHTML } from "entities";

const HTML_URL = /https?:\/\/[^\s"'<>]+/gi;
const TEXT_URL = /https?:\/\/\S+/gi;
// An entity such as &gt; or &quot; may hide a character that ends the URL once decoded.
const URL_END_IN_DECODED_HTML = /[\s"'<>]/;
const TRAILING_PUNCTUATION = ".,;:!?)]'\"";
const CLOSING_TO_OPENING: Readonly<Record<string, string>> = { ")": "(", "]": "[" };

/**
 * Every distinct http(s) URL of the html, in order, then those found only in the text.
 *
 * @example extractLinks('<a href="https://a.test/?x=1&amp;y=2">go</a>', "https://b.test.") // ["https://a.test/?x=1&y=2", "https://b.test"]
 */
export function extractLinks(html: string | undefined, text: string | undefined): string[] {
  const links = new Set<string>();
  for (const match of (html ?? "").matchAll(HTML_URL)) {
    const decoded = cutAtUrlEnd(decodeHTML(match[0]));
    // A quoted attribute value ends where its quote does; in running text, "see https://x.test." ends a sentence.
    const inAttribute = isAttributeStart(html?.charAt(match.index - 1) ?? "");
    addLink(links, inAttribute ? decoded : trimTrailingPunctuation(decoded));
  }
  for (const { url } of findTextUrls(text ?? "")) {
    addLink(links, url);
  }
  return [...links];
}

/** Each http(s) URL of plain text, where it starts, sentence punctuation after it left out. */
export function findTextUrls(text: string): { url: string; index: number }[] {
  return [...text.matchAll(TEXT_URL)].map((match) => ({ url: trimTrailingPunctuation(match[0]), index: match.index }));
}

function addLink(links: Set<string>, url: string): void {
  if (/^https?:\/\/./i.test(url)) {
    links.add(url);
  }
}

function isAttributeStart(character: string): boolean {
  return character === '"' || character === "'" || character === "=";
}

function cutAtUrlEnd(url: string): string {
  const end = url.search(URL_END_IN_DECODED_HTML);
  return end === -1 ? url : url.slice(0, end);
}

/** Drops sentence punctuation after a URL, keeping a closing bracket the URL itself opened (as in wiki/Foo_(bar)). */
function trimTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0) {
    const last = url.charAt(end - 1);
    if (!TRAILING_PUNCTUATION.includes(last)) {
      break;
    }
    const opening = CLOSING_TO_OPENING[last];
    if (opening !== undefined && countOf(url.slice(0, end), opening) >= countOf(url.slice(0, end), last)) {
      break;
    }
    end -= 1;
  }
  return url.slice(0, end);
}

function countOf(haystack: string, character: string): number {
  let count = 0;
  for (const candidate of haystack) {
    if (candidate === character) {
      count += 1;
    }
  }
  return count;
}
