// Which caniemail features one use of CSS relies on: a declaration's property, value, functions and units; an at-rule and its media features; a rule's selector.

import { analyzeSelector } from "./css-selectors.js";
import type { CssUse } from "./css-scan.js";
import type { EmailFeature, FeatureIndex, Lookup } from "./feature-index.js";

const FUNCTION_CALL = /([a-z-]+)\(/gi;
/** A number and its unit (`16px`, `1.5em`, `50%`), never the digits of a hex colour or of a name. */
const DIMENSION = /(?<![\w.#-])[+-]?(?:\d+\.?\d*|\.\d+)(%|[a-z]+)/gi;
const MEDIA_FEATURE = /\(\s*(-[a-z]+-)?(?:min-|max-)?([a-z-]+)/gi;
const VALUE_TOKEN = /[\s,/]+/;

/** The features `use` relies on, each list as the index holds it. */
export function featuresOfCss(use: CssUse, index: FeatureIndex): (readonly EmailFeature[])[] {
  const found: (readonly EmailFeature[])[] = [];
  const look = (lookup: Lookup, name: string): void => {
    const features = lookup.get(name);
    if (features !== undefined) found.push(features);
  };
  switch (use.kind) {
    case "declaration": {
      look(index.properties, use.property);
      if (use.property.startsWith("--")) look(index.shapeless, "css variable");
      if (use.important) look(index.important, "!important");
      for (const token of use.value.toLowerCase().split(VALUE_TOKEN)) {
        look(index.propertyValues, `${use.property}:${token}`);
        look(index.values, token);
      }
      for (const match of use.value.matchAll(FUNCTION_CALL)) {
        const name = (match[1] ?? "").toLowerCase();
        look(index.functions, name);
        if (name === "var") look(index.shapeless, "css variable");
      }
      for (const match of use.value.matchAll(DIMENSION)) look(index.units, (match[1] ?? "").toLowerCase());
      break;
    }
    case "at-rule":
      look(index.atRules, use.name);
      // `(-webkit-min-device-pixel-ratio: 2)` uses the feature `-webkit-device-pixel-ratio`; `(max-width: 600px)`, `width`.
      if (use.name === "media")
        for (const match of use.params.matchAll(MEDIA_FEATURE)) look(index.mediaFeatures, `${match[1] ?? ""}${match[2] ?? ""}`.toLowerCase());
      break;
    case "rule": {
      const parts = analyzeSelector(use.selector);
      for (const kind of parts.kinds) look(index.selectors, kind);
      for (const name of parts.pseudoClasses) look(index.pseudoClasses, name);
      for (const name of parts.pseudoElements) look(index.pseudoElements, name);
      if (use.nested) look(index.shapeless, "css nesting");
      break;
    }
    case "comment":
      look(index.shapeless, "css comment");
      break;
  }
  return found;
}
