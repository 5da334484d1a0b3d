// What a CSS selector is made of, in caniemail's terms: its kinds of selector and combinator, its pseudo-classes and pseudo-elements; one linear pass, no recursion.

/** The kinds of selector the database has a feature for, each `css-selector-<kind>`. */
export type SelectorKind =
  "adjacent-sibling" | "attribute" | "chaining" | "child" | "class" | "descendant" | "general-sibling" | "grouping" | "id" | "type" | "universal";

export interface SelectorParts {
  kinds: Set<SelectorKind>;
  pseudoClasses: Set<string>;
  pseudoElements: Set<string>;
}

/** Written with one colon by old style sheets, these are still pseudo-elements. */
const LEGACY_PSEUDO_ELEMENTS: ReadonlySet<string> = new Set(["before", "after", "first-line", "first-letter"]);
const COMBINATORS: Readonly<Record<string, SelectorKind>> = { ">": "child", "+": "adjacent-sibling", "~": "general-sibling" };
const NAME_CHAR = /[\w-]/;

/**
 * The parts of `selector` (a rule's whole selector list). Arguments in parentheses (`:not(.a)`)
 * are skipped, not read as selectors of their own.
 *
 * @example analyzeSelector("ul > li.item, a:hover").kinds // child, type, class, chaining, grouping
 */
export function analyzeSelector(selector: string): SelectorParts {
  const parts: SelectorParts = { kinds: new Set(), pseudoClasses: new Set(), pseudoElements: new Set() };
  /** Simple selectors (type, class, id, attribute) in the compound being read. */
  let simples = 0;
  let inCompound = false;
  let spaceAfterCompound = false;
  let at = 0;
  const startSimple = (kind: SelectorKind | undefined): void => {
    if (spaceAfterCompound) parts.kinds.add("descendant");
    spaceAfterCompound = false;
    inCompound = true;
    if (kind === undefined) return;
    parts.kinds.add(kind);
    if (kind !== "universal" && ++simples === 2) parts.kinds.add("chaining");
  };
  const endCompound = (): void => {
    inCompound = false;
    spaceAfterCompound = false;
    simples = 0;
  };
  /** Whitespace: a descendant combinator if a compound came before and another follows. */
  const space = (): void => {
    if (inCompound) spaceAfterCompound = true;
    inCompound = false;
    simples = 0;
  };
  while (at < selector.length) {
    const char = selector.charAt(at);
    if (/\s/.test(char)) {
      space();
      at += 1;
    } else if (char === ",") {
      parts.kinds.add("grouping");
      endCompound();
      at += 1;
    } else if (COMBINATORS[char] !== undefined) {
      parts.kinds.add(COMBINATORS[char]);
      endCompound();
      at += 1;
    } else if (char === "." || char === "#") {
      startSimple(char === "." ? "class" : "id");
      at = skipName(selector, at + 1);
    } else if (char === "[") {
      startSimple("attribute");
      at = skipBracketed(selector, at, "[", "]");
    } else if (char === "*") {
      startSimple("universal");
      at += 1;
    } else if (char === ":") {
      startSimple(undefined);
      const element = selector.charAt(at + 1) === ":";
      const nameStart = at + (element ? 2 : 1);
      at = skipName(selector, nameStart);
      const name = selector.slice(nameStart, at).toLowerCase();
      if (element || LEGACY_PSEUDO_ELEMENTS.has(name)) parts.pseudoElements.add(name);
      else parts.pseudoClasses.add(name);
      if (selector.charAt(at) === "(") at = skipBracketed(selector, at, "(", ")");
    } else if (NAME_CHAR.test(char) || char === "\\") {
      startSimple("type");
      at = skipName(selector, at);
    } else {
      at += 1;
    }
  }
  return parts;
}

/** Past an identifier (escapes included) starting at `at`. */
function skipName(text: string, at: number): number {
  let end = at;
  while (end < text.length) {
    const char = text.charAt(end);
    if (char === "\\") end += 2;
    else if (NAME_CHAR.test(char) || char.charCodeAt(0) > 0x7f) end += 1;
    else break;
  }
  return end;
}

/** Past the bracket opened at `at` and what it holds: nested brackets counted, quoted text skipped. */
function skipBracketed(text: string, at: number, open: string, close: string): number {
  let depth = 0;
  let quote = "";
  for (let end = at; end < text.length; end += 1) {
    const char = text.charAt(end);
    if (quote !== "") {
      if (char === "\\") end += 1;
      else if (char === quote) quote = "";
    } else if (char === '"' || char === "'") quote = char;
    else if (char === open) depth += 1;
    else if (char === close && --depth === 0) return end + 1;
  }
  return text.length;
}
