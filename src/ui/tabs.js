// The view tabs (Messages, Requests, Faults, Templates), following the WAI-ARIA tabs pattern:
// the selected tab is in the tab order, arrow keys, Home and End move between tabs.

import { byId } from "./dom.js";
import { VIEWS } from "./router.js";

const tabOf = (view) => byId(`tab-${view}`);
const panelOf = (view) => byId(`panel-${view}`);

/** Wires clicks and keys; `onSelect(view)` is called when the user picks a tab. */
export function setUpTabs({ onSelect }) {
  for (const view of VIEWS) {
    const tab = tabOf(view);
    tab.addEventListener("click", () => onSelect(view));
    tab.addEventListener("keydown", (event) => {
      const index = VIEWS.indexOf(view);
      const target = {
        ArrowRight: VIEWS[(index + 1) % VIEWS.length],
        ArrowLeft: VIEWS[(index - 1 + VIEWS.length) % VIEWS.length],
        Home: VIEWS[0],
        End: VIEWS[VIEWS.length - 1],
      }[event.key];
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
