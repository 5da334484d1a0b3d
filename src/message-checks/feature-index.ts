// What to look for in a message for each caniemail feature, read off the feature's slug, title and keywords: the data says what exists, a few shapes say how to spot it.

import type { CaniemailData, CaniemailFeature } from "./caniemail-data.js";
import { severityOf, supportByFamily } from "./client-support.js";

/** How well the clients support a feature, and how severe a use of it is (undefined: every client tested supports it). */
export interface SupportJudgement {
  support: Record<string, number>;
  severity: "fail" | "warn" | undefined;
}

/** A feature the HTML can use. */
export class EmailFeature {
  readonly slug: string;
  readonly title: string;
  readonly #data: CaniemailFeature;
  #judgement: SupportJudgement | undefined;

  constructor(data: CaniemailFeature) {
    this.slug = data.slug;
    this.title = data.title.trim();
    this.#data = data;
  }

  /** Worked out on first use: for all 302 features at once it took ~19 ms of a cold first check, where a message uses a few dozen. */
  get judgement(): SupportJudgement {
    if (this.#judgement === undefined) {
      const support = supportByFamily(this.#data);
      this.#judgement = { support, severity: severityOf(support) };
    }
    return this.#judgement;
  }
}

/** The few features no title shape tells how to spot: what each one is. */
const SHAPELESS = {
  "css-comments": "css comment",
  "css-variables": "css variable",
  "css-nesting": "css nesting",
  "html-doctype": "doctype",
  "html-comments": "html comment",
  "html-anchor-links": "local anchor",
  "html-mailto-links": "mailto link",
  "html-meta-color-scheme": "color-scheme meta",
  "image-base64": "base64 image",
} as const satisfies Record<string, string>;
type ShapelessKind = (typeof SHAPELESS)[keyof typeof SHAPELESS];

/** Features whose title names CSS values (`fit-content, min-content`; `system-ui, …`; `initial unit`), not properties. */
const VALUE_TITLES: ReadonlySet<string> = new Set(["css-intrinsic-size", "css-sytem-ui", "css-unit-initial"]);

export interface FeatureIndex {
  readonly properties: Lookup;
  /** `display:flex` */
  readonly propertyValues: Lookup;
  readonly values: Lookup;
  readonly functions: Lookup;
  readonly units: Lookup;
  readonly atRules: Lookup;
  readonly mediaFeatures: Lookup;
  readonly pseudoClasses: Lookup;
  readonly pseudoElements: Lookup;
  readonly selectors: Lookup;
  readonly important: Lookup;
  readonly elements: Lookup;
  readonly attributes: Lookup;
  /** `input type=checkbox` */
  readonly elementAttributeValues: Lookup;
  readonly imageFormats: Lookup;
  readonly shapeless: Lookup;
}

/** Name -> the features it uses; a name may belong to several (`column-gap`: gap, and the column properties). */
export type Lookup = ReadonlyMap<string, readonly EmailFeature[]>;
type LookupName = keyof FeatureIndex;
/** Where a feature is filed: in which lookup, under which names. */
type Placement = readonly [LookupName, readonly string[]];

const LOOKUP_NAMES: readonly LookupName[] = [
  "properties",
  "propertyValues",
  "values",
  "functions",
  "units",
  "atRules",
  "mediaFeatures",
  "pseudoClasses",
  "pseudoElements",
  "selectors",
  "important",
  "elements",
  "attributes",
  "elementAttributeValues",
  "imageFormats",
  "shapeless",
];

const PROPERTY_NAME = /^-?[a-z]+(?:-[a-z]+)*$/;
const WORD = /^[a-z][a-z0-9]*$/;
const LIST_SEPARATOR = /\s*(?:,|&|\band\b)\s*/;

/** The index of every feature the database has, computed once per database (~4 ms). */
export function buildFeatureIndex(database: CaniemailData): FeatureIndex {
  const lookups = Object.fromEntries(LOOKUP_NAMES.map((name) => [name, new Map<string, EmailFeature[]>()])) as Record<LookupName, Map<string, EmailFeature[]>>;
  const imageSuffixes = new Set(database.data.filter((feature) => feature.category === "image").map((feature) => suffixOf(feature.slug, "image-")));
  for (const data of database.data) {
    const feature = new EmailFeature(data);
    for (const [lookupName, names] of placementsOf(data, feature.title, imageSuffixes)) {
      const lookup = lookups[lookupName];
      for (const name of names) lookup.set(name, [...(lookup.get(name) ?? []), feature]);
    }
  }
  return lookups;
}

function placementsOf(data: CaniemailFeature, title: string, imageSuffixes: ReadonlySet<string>): Placement[] {
  const shapeless = (SHAPELESS as Record<string, ShapelessKind | undefined>)[data.slug];
  if (shapeless !== undefined) return [["shapeless", [shapeless]]];
  if (data.category === "css") return cssPlacements(data, title);
  if (data.category === "html") return htmlPlacements(data, title);
  if (data.category === "image") return [["imageFormats", imageExtensions(data, imageSuffixes)]];
  return [];
}

function cssPlacements(data: CaniemailFeature, title: string): Placement[] {
  const { slug } = data;
  if (VALUE_TITLES.has(slug)) return [["values", listOf(title.replace(/ unit$/, ""))]];
  if (slug.startsWith("css-pseudo-class-")) return [["pseudoClasses", [suffixOf(slug, "css-pseudo-class-")]]];
  if (slug.startsWith("css-pseudo-element-")) return [["pseudoElements", [suffixOf(slug, "css-pseudo-element-")]]];
  if (slug.startsWith("css-selector-")) return [["selectors", [suffixOf(slug, "css-selector-")]]];
  const functions = [...title.matchAll(/([a-z-]+)\(\)/g)].map((match) => match[1] ?? "");
  if (functions.length > 0) return [["functions", functions]];
  if (title.startsWith("@")) return atRulePlacements(title);
  if (slug.startsWith("css-unit-")) return [["units", [title.replace(/ unit$/, "")]]];
  const pair = /^([a-z-]+):\s*([a-z-]+)$/.exec(title);
  if (pair !== null) return [["propertyValues", [`${pair[1] ?? ""}:${pair[2] ?? ""}`]]];
  if (title.endsWith(" keyword")) return [["important", [title.replace(/ keyword$/, "")]]];
  return [["properties", propertiesOf(title, data.keywords)]];
}

/** `@media`, `@font-face`; `@media (prefers-color-scheme)`, `@media (hover), @media (any-hover)`: media features. */
function atRulePlacements(title: string): Placement[] {
  return title.split(/\s*,\s*/).flatMap((part): Placement[] => {
    const match = /^@([a-z-]+)(?:\s*\(([a-z-]+)\))?$/.exec(part);
    if (match === null) return [];
    return match[2] === undefined ? [["atRules", [match[1] ?? ""]]] : [["mediaFeatures", [match[2]]]];
  });
}

/**
 * The properties a title names (`margin`, `height property`, `gap, column-gap, row-gap`,
 * `block-size & inline-size`), with its keywords that are longhands of them (`margin-left`); a
 * title that is not a list of properties (`css column properties`) names them in its keywords.
 */
function propertiesOf(title: string, keywords: string | null): string[] {
  const parts = listOf(title.replace(/ (?:CSS property|property|shorthand)$/, ""));
  const named = parts.every((part) => PROPERTY_NAME.test(part)) ? parts : [];
  const longhands = listOf(keywords ?? "").filter(
    (keyword) => PROPERTY_NAME.test(keyword) && (named.length === 0 || named.some((name) => keyword.startsWith(`${name}-`))),
  );
  return [...named, ...longhands];
}

function htmlPlacements(data: CaniemailFeature, title: string): Placement[] {
  const pair = /^<([a-z0-9]+) ([a-z-]+)="([a-z-]+)"> element$/.exec(title);
  if (pair !== null) return [["elementAttributeValues", [`${pair[1] ?? ""} ${pair[2] ?? ""}=${pair[3] ?? ""}`]]];
  const tags = [...title.matchAll(/<([a-z][a-z0-9]*)>/g)].map((match) => match[1] ?? "");
  if (tags.length > 0) {
    // A title naming several elements (`<ul>, <ol> and <dl>`, `<h1> to <h6>`) lists them all, and their items, in its keywords.
    const listed = tags.length > 1 ? listOf(data.keywords ?? "").filter((keyword) => WORD.test(keyword)) : [];
    return [["elements", [...tags, ...listed]]];
  }
  const attributes = /^(.+) attributes?$/.exec(title);
  if (attributes !== null) return [["attributes", listOf(attributes[1] ?? "")]];
  if (WORD.test(title)) return [["elements", [title]]];
  // `HTML5 semantics` (article, aside, …), `Image maps` (map element, area element, usemap attribute): the keywords say.
  return listOf(data.keywords ?? "").flatMap((keyword): Placement[] => {
    const named = /^([a-z][a-z0-9-]*) (element|attribute)$/.exec(keyword);
    if (named !== null) return [[named[2] === "element" ? "elements" : "attributes", [named[1] ?? ""]]];
    return WORD.test(keyword) ? [["elements", [keyword]]] : [];
  });
}

/** `image-jpg` -> jpg and its keyword jpeg; a keyword naming another format (`png` for `image-apng`) is that format's. */
function imageExtensions(data: CaniemailFeature, suffixes: ReadonlySet<string>): string[] {
  const own = suffixOf(data.slug, "image-");
  const others = listOf((data.keywords ?? "").toLowerCase()).filter(
    (keyword) => /^[a-z0-9]{3,4}$/.test(keyword) && keyword !== own && keyword !== "img" && !suffixes.has(keyword),
  );
  return [own, ...others];
}

const suffixOf = (slug: string, prefix: string): string => slug.slice(prefix.length);
const listOf = (text: string): string[] =>
  text
    .split(LIST_SEPARATOR)
    .map((part) => part.trim())
    .filter((part) => part !== "");
