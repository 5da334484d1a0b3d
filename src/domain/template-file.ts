// Parses one template file's text and builds the checked, compiled template it defines.

import type { TemplateData } from "../wire.js";
import { compileText, findMissingData, type Template } from "./render.js";
import { yaml } from "./yaml.js";

/** The lookup of templates parsed ahead, handed down to each file read. */
export type ParsedAhead = ((source: string) => unknown) | undefined;

const TEMPLATE_KEYS: ReadonlySet<string> = new Set(["subject", "html", "text", "description", "sample_data"]);

type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseTemplateSource(file: string, source: string, parsedAhead: ParsedAhead): Outcome<unknown> {
  if (source.trim() === "") {
    return { ok: false, error: "the file is empty" };
  }
  try {
    if (file.endsWith(".json")) {
      return { ok: true, value: JSON.parse(source) as unknown };
    }
    const ahead = parsedAhead?.(source);
    if (ahead !== undefined) {
      return { ok: true, value: ahead };
    }
    const document = yaml().parseDocument(source);
    const firstError = document.errors[0];
    if (firstError !== undefined) {
      return { ok: false, error: firstLineOf(firstError) };
    }
    return { ok: true, value: document.toJS() as unknown };
  } catch (error) {
    return { ok: false, error: firstLineOf(error) };
  }
}

export function buildTemplate(id: string, file: string, document: unknown): Outcome<Template> {
  if (!isPlainObject(document)) {
    return { ok: false, error: "expected a mapping with subject, html and/or text" };
  }
  const problems: string[] = [];
  const unknownKeys = Object.keys(document).filter((key) => !TEMPLATE_KEYS.has(key));
  for (const key of unknownKeys) {
    problems.push(`unknown key "${key}" (allowed: ${[...TEMPLATE_KEYS].join(", ")})`);
  }
  const subjectSource = readOptionalString(document, "subject", problems);
  const htmlSource = readOptionalString(document, "html", problems);
  const textSource = readOptionalString(document, "text", problems);
  const description = readOptionalString(document, "description", problems);
  const sampleData = readSampleData(document, problems);
  if (!Object.hasOwn(document, "subject")) {
    problems.push("subject is missing");
  }
  if (!Object.hasOwn(document, "html") && !Object.hasOwn(document, "text")) {
    problems.push("needs html or text (or both)");
  }
  if (problems.length > 0 || subjectSource === undefined) {
    return { ok: false, error: problems.join("; ") };
  }
  const template = compileTemplate({ id, file, subjectSource, htmlSource, textSource, description, sampleData });
  if (sampleData !== undefined) {
    const missing = findMissingData(template, sampleData);
    if (missing.length > 0) {
      return { ok: false, error: `sample_data has no value for ${missing.join(", ")}` };
    }
  }
  return { ok: true, value: template };
}

interface TemplateSources {
  id: string;
  file: string;
  subjectSource: string;
  htmlSource: string | undefined;
  textSource: string | undefined;
  description: string | undefined;
  sampleData: TemplateData | undefined;
}

function compileTemplate(sources: TemplateSources): Template {
  const subject = compileText(sources.subjectSource);
  const html = sources.htmlSource === undefined ? undefined : compileText(sources.htmlSource);
  const text = sources.textSource === undefined ? undefined : compileText(sources.textSource);
  const placeholders = [...new Set([...subject.placeholders, ...(html?.placeholders ?? []), ...(text?.placeholders ?? [])])];
  return { ...sources, subject, html, text, placeholders };
}

function readOptionalString(document: Record<string, unknown>, key: string, problems: string[]): string | undefined {
  if (!Object.hasOwn(document, key)) {
    return undefined;
  }
  const value = document[key];
  if (typeof value !== "string") {
    problems.push(`${key} must be a string, not ${describeType(value)}`);
    return undefined;
  }
  return value;
}

function readSampleData(document: Record<string, unknown>, problems: string[]): TemplateData | undefined {
  if (!Object.hasOwn(document, "sample_data")) {
    return undefined;
  }
  const value = document.sample_data;
  if (!isPlainObject(value)) {
    problems.push(`sample_data must be a mapping of placeholder names to values, not ${describeType(value)}`);
    return undefined;
  }
  const badKeys = Object.keys(value).filter((key) => !isDataValue(value[key]));
  if (badKeys.length > 0) {
    problems.push(`sample_data values must be strings or lists of strings; ${badKeys.join(", ")} ${badKeys.length === 1 ? "is" : "are"} not`);
    return undefined;
  }
  // fromEntries defines own properties, so a "__proto__" key stays data instead of replacing the prototype.
  return Object.fromEntries(Object.entries(value)) as TemplateData;
}

function isDataValue(value: unknown): value is string | string[] {
  return typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string"));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "a list";
  }
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/** The first line of an error's message, without the code frame some parsers append. */
export function firstLineOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n", 1)[0] ?? "";
  return firstLine.trim().replace(/:$/, "");
}
