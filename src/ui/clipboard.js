// A "Copy" button for a text: the clipboard when the browser allows it, else a box the text is
// selected in, ready for the user's own copy.

import { h } from "./dom.js";

/**
 * `label` the button's text, `text()` gives what to copy when clicked (so a button drawn in a long
 * list costs nothing until used), `name` says what it is ("curl command") for the fallback box.
 * Returns the button, its status line and the fallback box, to be placed together.
 */
export function copyButton({ label, testId, name, text }) {
  const status = h("span", { class: "copy-status muted", role: "status", "data-testid": `${testId}-status` });
  const fallback = h("textarea", {
    class: "copy-fallback code-block",
    "data-testid": `${testId}-text`,
    readonly: true,
    rows: "6",
    spellcheck: "false",
    "aria-label": name,
    hidden: true,
  });
  const button = h(
    "button",
    {
      type: "button",
      class: "button-small",
      "data-testid": testId,
      onclick: async () => {
        const value = text();
        try {
          // Missing outside a secure context, refused without the permission: both land below.
          await navigator.clipboard.writeText(value);
          fallback.hidden = true;
          status.textContent = "Copied.";
        } catch {
          fallback.value = value;
          fallback.hidden = false;
          fallback.focus();
          fallback.select();
          status.textContent = `The browser did not allow copying: the ${name} is selected below, copy it from there.`;
        }
      },
    },
    label,
  );
  return { button, status, fallback };
}
