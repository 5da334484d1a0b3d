// The one place HTML from the mock is rendered as HTML: an email's html part, inside an
// iframe that is sandboxed with no permission at all.
//
// sandbox="" (no allow-scripts, no allow-same-origin) means: no script runs, the document
// gets an opaque origin (so it cannot read this page, its storage or the admin token), no
// form is submitted, no popup opens, and the top page cannot be navigated. The document is
// given through the `srcdoc` property, never through markup, so nothing in it is parsed by
// this page. A srcdoc document also inherits this page's Content-Security-Policy, so it
// loads nothing from the network either.

import { h } from "./dom.js";

/** A sandboxed iframe showing `html`; `title` names it for screen readers. */
export function previewFrame(html, { title, testId }) {
  const frame = h("iframe", {
    class: "preview-frame",
    sandbox: "",
    referrerpolicy: "no-referrer",
    title,
    "data-testid": testId,
  });
  // The sandbox attribute is already set, so the document is sandboxed from its first load.
  frame.srcdoc = html;
  return frame;
}
