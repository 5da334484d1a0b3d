// Tabs following the WAI-ARIA tabs pattern (the selected tab is in the tab order; arrow keys,
// Home and End move between tabs): the view tabs of index.html, and the tabs built for a message.

import { append, byId, h } from "./dom.js";
import { VIEWS } from "./router.js";

/** The tab index that `key` moves to from `index` among `count` tabs, or undefined for another key. */
function tabIndexFor(key, index, count) {
  return { ArrowRight: (index + 1) % count, ArrowLeft: (index - 1 + count) % count, Home: 0, End: count - 1 }[key];
}

const tabOf = (view) => byId(`tab-${view}`);
const panelOf = (view) => byId(`panel-${view}`);

/** Wires clicks and keys of the view tabs; `onSelect(view)` is called when the user picks a tab. */
export function setUpTabs({ onSelect }) {
  for (const view of VIEWS) {
    const tab = tabOf(view);
    tab.addEventListener("click", () => onSelect(view));
    tab.addEventListener("keydown", (event) => {
      const target = VIEWS[tabIndexFor(event.key, VIEWS.indexOf(view), VIEWS.length)];
      if (!target) return;
      event.preventDefault();
      onSelect(target);
      tabOf(target).focus();
    });
  }
}

/** Shows `view`'s panel and marks its tab selected. */
export function showTab(view) {
  for (const candidate of VIEWS) {
    const selected = candidate === view;
    const tab = tabOf(candidate);
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    panelOf(candidate).hidden = !selected;
  }
}

/**
 * A tab list and its panels built in code: `tabs` is `[{key, label, content}]`, `content` a
 * function called the first time its tab is shown (a panel nobody opens costs nothing).
 * `idPrefix` makes the ids unique on the page (they are the test ids too); `onSelect(key)` hears
 * every change of tab.
 * Returns `{tablist, panels, select(key)}`.
 */
export function createTabs({ label, idPrefix, tabs, selected, onSelect = () => {} }) {
  const keys = tabs.map((tab) => tab.key);
  const tabButtons = new Map();
  const panels = new Map();
  const filled = new Set();

  for (const { key, label: tabLabel } of tabs) {
    const tabId = `${idPrefix}-tab-${key}`;
    const panelId = `${idPrefix}-panel-${key}`;
    const button = h(
      "button",
      {
        type: "button",
        role: "tab",
        id: tabId,
        "aria-controls": panelId,
        "data-testid": tabId,
        onclick: () => select(key),
        onkeydown: (event) => {
          const target = keys[tabIndexFor(event.key, keys.indexOf(key), keys.length)];
          if (target === undefined) return;
          event.preventDefault();
          select(target);
          tabButtons.get(target).focus();
        },
      },
      tabLabel,
    );
    tabButtons.set(key, button);
    panels.set(key, h("div", { role: "tabpanel", id: panelId, "aria-labelledby": tabId, class: "tab-panel", "data-testid": panelId }));
  }

  function select(key) {
    const chosen = keys.includes(key) ? key : keys[0];
    for (const candidate of keys) {
      const isChosen = candidate === chosen;
      const button = tabButtons.get(candidate);
      button.setAttribute("aria-selected", String(isChosen));
      button.tabIndex = isChosen ? 0 : -1;
      panels.get(candidate).hidden = !isChosen;
    }
    if (!filled.has(chosen)) {
      filled.add(chosen);
      append(panels.get(chosen), tabs.find((tab) => tab.key === chosen).content());
    }
    onSelect(chosen);
  }

  const tablist = h("div", { role: "tablist", "aria-label": label, class: "inner-tabs" }, [...tabButtons.values()]);
  select(selected);
  return { tablist, panels: [...panels.values()], select };
}
