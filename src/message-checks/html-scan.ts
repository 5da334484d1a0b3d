// One pass of htmlparser2's streaming tokenizer over a message's HTML: its elements with where each starts, its style sheets, its links' text, its comments and doctype.

import { createRequire } from "node:module";
import type * as Htmlparser2 from "htmlparser2";

const require = createRequire(import.meta.url);

/**
 * htmlparser2, loaded when a message is first checked rather than with sendmock: importing it
 * took ~28 ms (its entity tables and DOM helpers come with it), as long as the rest of the checks'
 * modules together, and a mock that is never asked for checks needs none of it.
 */
const htmlparser2 = (): typeof Htmlparser2 => require("htmlparser2") as typeof Htmlparser2;

export interface HtmlElement {
  /** Lower-cased. */
  name: string;
  /** Lower-cased names; values with their entities decoded. */
  attributes: Record<string, string>;
  /** Offset of its `<` in the HTML. */
  start: number;
  /** Offset of the `>` that ends its start tag. */
  end: number;
}

export interface HtmlAnchor {
  element: HtmlElement;
  /** Its text and the `alt` of its images, whitespace collapsed, cut to MAX_ANCHOR_TEXT characters. */
  text: string;
}

export interface ParsedHtml {
  /** Every element written in the HTML, in order; those only implied by the markup are not. */
  elements: HtmlElement[];
  /** Each `<style>` element's text and the offset it starts at. */
  styleSheets: { css: string; start: number }[];
  anchors: HtmlAnchor[];
  /** Offset of each comment. */
  comments: number[];
  /** Offset of `<!doctype …>`, when there is one. */
  doctype: number | undefined;
}

/** A link's text is kept only as far as the accessibility check needs to judge it: 100k links of long text stay small. */
const MAX_ANCHOR_TEXT = 200;
/** Their text is not content: a script's, and a style sheet's (kept apart). */
const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(["script", "style"]);

/**
 * The HTML, read by htmlparser2's tokenizer as a browser reads broken markup (unclosed and stray
 * tags tolerated, entities decoded, script and style text taken as raw text). Not its Parser:
 * that one keeps the open elements with Array.unshift and finds a closing tag's element with
 * indexOf, so nesting costs it quadratic time: 100,000 nested elements took 340 ms and 200,000
 * 1.8 s, where the tokenizer alone is linear (checks need no tree: an element's own start tag,
 * the text inside a link, a style sheet's text).
 */
export function parseHtml(html: string): ParsedHtml {
  const parsed: ParsedHtml = { elements: [], styleSheets: [], anchors: [], comments: [], doctype: undefined };
  const openAnchors: HtmlAnchor[] = [];
  let rawText: string | undefined;
  let tag: HtmlElement | undefined;
  let attribute = "";
  let value = "";
  const addAnchorText = (text: string): void => {
    const anchor = openAnchors[openAnchors.length - 1];
    if (anchor !== undefined && anchor.text.length < MAX_ANCHOR_TEXT) anchor.text += text.slice(0, MAX_ANCHOR_TEXT);
  };
  const closeAnchor = (): void => {
    const anchor = openAnchors.pop();
    if (anchor !== undefined) parsed.anchors.push({ element: anchor.element, text: anchor.text.replace(/\s+/g, " ").trim().slice(0, MAX_ANCHOR_TEXT) });
  };
  const endStartTag = (end: number): void => {
    if (tag === undefined) return;
    const element = { ...tag, end };
    tag = undefined;
    parsed.elements.push(element);
    if (RAW_TEXT_ELEMENTS.has(element.name)) rawText = element.name;
    if (element.name === "a") openAnchors.push({ element, text: "" });
    if (element.name === "img") addAnchorText(` ${element.attributes.alt ?? ""} `);
  };
  const tokenizer = new (htmlparser2().Tokenizer)(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        // Attributes go on an object without a prototype: an attribute named `__proto__` is one more attribute.
        tag = { name: html.slice(start, end).toLowerCase(), attributes: Object.create(null) as Record<string, string>, start: start - 1, end };
      },
      onattribname(start, end) {
        attribute = html.slice(start, end).toLowerCase();
        value = "";
      },
      onattribdata(start, end) {
        value += html.slice(start, end);
      },
      onattribentity(codePoint) {
        value += String.fromCodePoint(codePoint);
      },
      onattribend() {
        // The first of two attributes of one name counts, as in a browser.
        if (tag !== undefined && !(attribute in tag.attributes)) tag.attributes[attribute] = value;
      },
      onopentagend: endStartTag,
      onselfclosingtag: endStartTag,
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        if (name === rawText) rawText = undefined;
        if (name === "a") closeAnchor();
      },
      ontext(start, end) {
        if (rawText === undefined) addAnchorText(html.slice(start, end));
        if (rawText !== "style") return;
        const last = parsed.styleSheets[parsed.styleSheets.length - 1];
        // A style sheet's text may come in pieces; they are one sheet when they follow each other.
        if (last !== undefined && last.start + last.css.length === start) last.css += html.slice(start, end);
        else parsed.styleSheets.push({ css: html.slice(start, end), start });
      },
      ontextentity(codePoint) {
        if (rawText === undefined) addAnchorText(String.fromCodePoint(codePoint));
      },
      oncomment(start) {
        parsed.comments.push(start - "<!--".length);
      },
      ondeclaration(start, end) {
        if (parsed.doctype === undefined && /^doctype\b/i.test(html.slice(start, end))) parsed.doctype = start - "<!".length;
      },
      onend() {
        while (openAnchors.length > 0) closeAnchor();
      },
      oncdata() {
        // CDATA is not HTML content.
      },
      onprocessinginstruction() {
        // `<?xml …?>` says nothing a check asks about.
      },
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return parsed;
}

/** Where `element`'s attribute `name` is written in `html` (its start tag's start when it cannot be told). */
export function attributeOffset(html: string, element: HtmlElement, name: string): number {
  const tag = html.slice(element.start, element.end + 1);
  const match = new RegExp(`\\s${name.replace(/[^\w-]/g, "\\$&")}\\s*=`, "i").exec(tag);
  return element.start + (match === null ? 0 : match.index + 1);
}
