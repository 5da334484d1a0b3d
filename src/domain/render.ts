// Compiles template text into literal and placeholder segments and renders them with request data.

import type { TemplateData } from "../wire.js";

export type Segment = { readonly kind: "literal"; readonly text: string } | { readonly kind: "placeholder"; readonly name: string };

export interface CompiledText {
  readonly segments: readonly Segment[];
  /** Distinct placeholder names, in order of first appearance. */
  readonly placeholders: readonly string[];
}

/** A template file, compiled: what the catalog serves and rendering works on. */
export interface Template {
  readonly id: string;
  /** Absolute path of the file it came from. */
  readonly file: string;
  readonly subject: CompiledText;
  readonly html: CompiledText | undefined;
  readonly text: CompiledText | undefined;
  readonly subjectSource: string;
  readonly htmlSource: string | undefined;
  readonly textSource: string | undefined;
  readonly description: string | undefined;
  readonly sampleData: TemplateData | undefined;
  /** Every placeholder, in order of first appearance: subject, then html, then text. */
  readonly placeholders: readonly string[];
}

export interface RenderedEmail {
  subject: string;
  html: string | undefined;
  text: string | undefined;
}

export interface RenderOptions {
  /** The request's own subject: used verbatim instead of the template's. */
  subjectOverride?: string | undefined;
}

/** A placeholder as written, `{name}`, its name captured: the message checks look for one left in a rendered email. */
export const PLACEHOLDER_SOURCE = String.raw`\{([A-Za-z_][A-Za-z0-9_]*)\}`;
// Alternatives are tried left to right, so `{{name}}` is read as `{{`, `name`, `}}` and never as a placeholder.
const BRACE_TOKEN = new RegExp(String.raw`\{\{|\}\}|${PLACEHOLDER_SOURCE}`, "g");

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const HTML_SPECIAL = /[&<>"']/;
const HTML_SPECIAL_GLOBAL = /[&<>"']/g;

/**
 * Parses template text once into segments, so rendering is a plain concatenation that never
 * re-reads inserted values.
 *
 * @example compileText("Hi {name} {{literal}}").placeholders // ["name"]
 */
export function compileText(source: string): CompiledText {
  const segments: Segment[] = [];
  const placeholders: string[] = [];
  let literal = "";
  let consumedUpTo = 0;
  for (const match of source.matchAll(BRACE_TOKEN)) {
    literal += source.slice(consumedUpTo, match.index);
    consumedUpTo = match.index + match[0].length;
    const name = match[1];
    if (name === undefined) {
      literal += match[0].charAt(0);
      continue;
    }
    if (literal !== "") {
      segments.push({ kind: "literal", text: literal });
      literal = "";
    }
    segments.push({ kind: "placeholder", name });
    if (!placeholders.includes(name)) {
      placeholders.push(name);
    }
  }
  literal += source.slice(consumedUpTo);
  if (literal !== "") {
    segments.push({ kind: "literal", text: literal });
  }
  return { segments, placeholders };
}

/**
 * Renders subject, html and text of a template. Missing values render as empty strings:
 * callers reject incomplete data with `findMissingData` first.
 */
export function renderTemplate(template: Template, data: TemplateData, options: RenderOptions = {}): RenderedEmail {
  return {
    subject: options.subjectOverride ?? renderText(template.subject, data, formatSubjectValue),
    html: template.html === undefined ? undefined : renderText(template.html, data, formatHtml),
    text: template.text === undefined ? undefined : renderText(template.text, data, formatPlain),
  };
}

/** Placeholder names (in order) the rendering needs but `data` lacks (own keys only). */
export function findMissingData(template: Template, data: TemplateData, options: RenderOptions = {}): string[] {
  const needed = options.subjectOverride === undefined ? template.placeholders : bodyPlaceholders(template);
  return needed.filter((name) => !Object.hasOwn(data, name));
}

/** Keys of `data` that match no placeholder of the template (subject, html or text). */
export function findUnknownData(template: Template, data: TemplateData): string[] {
  return Object.keys(data).filter((key) => !template.placeholders.includes(key));
}

export function escapeHtml(value: string): string {
  // Most values hold nothing to escape; skipping the replace keeps the hot path allocation-free.
  if (!HTML_SPECIAL.test(value)) {
    return value;
  }
  return value.replace(HTML_SPECIAL_GLOBAL, (character) => HTML_ESCAPES[character] ?? character);
}

type FormatValue = (value: string | string[]) => string;

function renderText(compiled: CompiledText, data: TemplateData, format: FormatValue): string {
  let rendered = "";
  for (const segment of compiled.segments) {
    if (segment.kind === "literal") {
      rendered += segment.text;
    } else if (Object.hasOwn(data, segment.name)) {
      const value = data[segment.name];
      rendered += value === undefined ? "" : format(value);
    }
  }
  return rendered;
}

function formatPlain(value: string | string[]): string {
  return typeof value === "string" ? value : value.join(", ");
}

const LINE_BREAKS = /[\r\n]+/g;

/**
 * A subject is one mail header line: a CR or LF from `data` would split it (header injection),
 * so each run of them becomes one space, as a mail client folds a header. A request's own
 * `subject` with a line break is refused by the contract instead.
 */
function formatSubjectValue(value: string | string[]): string {
  return formatPlain(value).replace(LINE_BREAKS, " ");
}

/** Keys of `data` the template's subject uses whose value holds a line break (folded to a space when rendered). */
export function findSubjectLineBreaks(template: Template, data: TemplateData, options: RenderOptions = {}): string[] {
  if (options.subjectOverride !== undefined) return [];
  return template.subject.placeholders.filter((name) => Object.hasOwn(data, name) && /[\r\n]/.test(formatPlain(data[name] ?? "")));
}

function formatHtml(value: string | string[]): string {
  return typeof value === "string" ? escapeHtml(value) : value.map(escapeHtml).join(", ");
}

function bodyPlaceholders(template: Template): string[] {
  const names = [...(template.html?.placeholders ?? [])];
  for (const name of template.text?.placeholders ?? []) {
    if (!names.includes(name)) {
      names.push(name);
    }
  }
  return names;
}
