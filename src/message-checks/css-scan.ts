// Every use a style sheet or a style attribute makes of CSS (declarations, at-rules, rules, comments), read with PostCSS's fault-tolerant parser and walked without recursion.

import { createRequire } from "node:module";
import type { ChildNode } from "postcss";
import type SafeParse from "postcss-safe-parser";

const require = createRequire(import.meta.url);

/** PostCSS's safe parser, loaded when CSS is first read rather than with sendmock: importing it took ~18 ms. */
const safeParse = (css: string): ReturnType<typeof SafeParse> => (require("postcss-safe-parser") as typeof SafeParse)(css);

interface Located {
  /** 1-based line in the CSS text. */
  line: number;
  /** The declaration, rule or at-rule as written, for an excerpt. */
  source: string;
}

export type CssUse =
  | (Located & { kind: "declaration"; property: string; value: string; important: boolean })
  | (Located & { kind: "at-rule"; name: string; params: string })
  | (Located & { kind: "rule"; selector: string; nested: boolean })
  | (Located & { kind: "comment" });

/**
 * The uses of CSS in `css`, in order. The parser never throws (an unclosed block is closed, a
 * stray brace dropped) and builds its tree without recursion: 100,000 nested blocks parse in
 * ~130 ms here. Its own walk() recurses, so the tree is walked with a stack of our own.
 */
export function scanCss(css: string): CssUse[] {
  const uses: CssUse[] = [];
  const pending: ChildNode[] = [];
  const pushChildren = (children: readonly ChildNode[]): void => {
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index] as ChildNode);
  };
  pushChildren(safeParse(css).nodes as ChildNode[]);
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const use = useOf(node);
    if (use !== undefined) uses.push(use);
    if (node.type === "rule" || node.type === "atrule") pushChildren(node.nodes ?? []);
  }
  return uses;
}

function useOf(node: ChildNode): CssUse | undefined {
  const line = node.source?.start?.line ?? 1;
  switch (node.type) {
    case "decl":
      return {
        kind: "declaration",
        property: node.prop.toLowerCase(),
        value: node.value,
        important: node.important === true,
        line,
        source: `${node.prop}: ${node.value}${node.important ? " !important" : ""}`,
      };
    case "atrule":
      return { kind: "at-rule", name: node.name.toLowerCase(), params: node.params, line, source: `@${node.name} ${node.params}` };
    case "rule":
      // Inside @keyframes, `from` and `50%` are keyframe selectors, not selectors of elements.
      if (node.parent?.type === "atrule" && /keyframes$/i.test((node.parent as { name?: string }).name ?? "")) return undefined;
      return { kind: "rule", selector: node.selector, nested: node.parent?.type === "rule", line, source: node.selector };
    case "comment":
      return { kind: "comment", line, source: `/* ${node.text} */` };
  }
}
