// A list loaded from the API and kept live by the event stream: responses can come back out of
// order, so only the newest load counts, and items (and changes to items) that arrive while one
// is in flight are applied after it, in arrival order (the view's `add` and `update` skip what
// the load already had).

import { LIST_LIMIT } from "./api.js";
import { keyedNode } from "./dom.js";

export function createLiveList({ load, show, add, update = () => {}, showError }) {
  let loadSequence = 0;
  let loading = false;
  // What to apply once the load in flight is shown: additions and updates, in arrival order.
  let arrivedWhileLoading = [];

  function whenLoaded(apply) {
    if (loading) arrivedWhileLoading.push(apply);
    else apply();
  }

  async function reload() {
    const sequence = ++loadSequence;
    loading = true;
    try {
      const loaded = await load();
      if (sequence !== loadSequence) return;
      show(loaded);
      const arrived = arrivedWhileLoading;
      arrivedWhileLoading = [];
      // In arrival order: each new item goes on top, so the newest ends first.
      for (const apply of arrived) apply();
    } catch (error) {
      if (sequence !== loadSequence) return;
      showError(error);
    } finally {
      if (sequence === loadSequence) loading = false;
    }
  }

  return {
    reload,
    /** A new item of the event stream. */
    arrived(item) {
      whenLoaded(() => add(item));
    },
    /** A change to an item the list may hold, from the event stream. */
    changed(change) {
      whenLoaded(() => update(change));
    },
  };
}

/**
 * Puts `item` on top of `items` and its row, marked new, on top of `container`, unless it is there
 * already; keeps the page as light as the first load: at most LIST_LIMIT rows. Returns whether it was added.
 * `version` is the one the view gives syncList, so the next load keeps the row.
 */
export function prependItem({ items, container, item, row, version = (added) => added.id }) {
  if (items.some((known) => known.id === item.id)) return false;
  items.unshift(item);
  const node = keyedNode(row(item), item.id, version(item));
  node.classList.add("is-new");
  container.prepend(node);
  while (items.length > LIST_LIMIT) {
    items.pop();
    container.lastElementChild?.remove();
  }
  return true;
}
