// The parts of a CSS selector in caniemail's terms: kinds of selector and combinator, pseudo-classes and pseudo-elements.

import { describe, expect, it } from "vitest";
import { analyzeSelector } from "../../../src/message-checks/css-selectors.js";

const kinds = (selector: string): string[] => [...analyzeSelector(selector).kinds].sort();

describe("analyzeSelector", () => {
  it.each([
    ["p", ["type"]],
    ["*", ["universal"]],
    [".card", ["class"]],
    ["#top", ["id"]],
    ["a[href^='https']", ["attribute", "chaining", "type"]],
    ["p.intro", ["chaining", "class", "type"]],
    ["div p", ["descendant", "type"]],
    ["ul > li", ["child", "type"]],
    ["h1 + p", ["adjacent-sibling", "type"]],
    ["h1 ~ p", ["general-sibling", "type"]],
    ["h1, h2", ["grouping", "type"]],
    ["  .a   .b  ", ["class", "descendant"]],
    ["a:not(.x, .y)", ["type"]],
  ])("%j is made of %j", (selector, expected) => {
    expect(kinds(selector)).toEqual(expected);
  });

  it("tells pseudo-classes from pseudo-elements, old single-colon ones included", () => {
    const parts = analyzeSelector("a:hover, li:nth-child(2n+1)::marker, p:before");
    expect([...parts.pseudoClasses].sort()).toEqual(["hover", "nth-child"]);
    expect([...parts.pseudoElements].sort()).toEqual(["before", "marker"]);
  });

  it("reads an unclosed bracket or string to the end without looping", () => {
    expect(kinds("a[title='x")).toEqual(["attribute", "chaining", "type"]);
    expect(kinds(":not(")).toEqual([]);
  });
});
