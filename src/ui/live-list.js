// A list loaded from the API and kept live by the event stream: answers can come back out of
// order, so only the newest load counts, and items that arrive while one is in flight are
// added after it (the view's `add` skips duplicates).

import { LIST_LIMIT } from "./api.js";
import { keyedNode } from "./dom.js";

export function createLiveList({ load, show, add, showError }) {
  let loadSequence = 0;
  let loading = false;
  let arrivedWhileLoading = [];

  async function reload() {
    const sequence = ++loadSequence;
    loading = true;
    try {
      const loaded = await load();
      if (sequence !== loadSequence) return;
      show(loaded);
      const arrived = arrivedWhileLoading;
      arrivedWhileLoading = [];
      // In arrival order: each one goes on top, so the newest ends first.
      for (const item of arrived) add(item);
    } catch (error) {
      if (sequence !== loadSequence) return;
      showError(error);
    } finally {
      if (sequence === loadSequence) loading = false;
    }
  }

  return {
    reload,
    /** An item of the event stream. */
    arrived(item) {
      if (loading) arrivedWhileLoading.push(item);
      else add(item);
    },
  };
}

/**
 * Puts `item` on top of `items` and its row, marked new, on top of `container`, unless it is there
 * already; keeps the page as light as the first load: at most LIST_LIMIT rows. Answers whether it was added.
 */
export function prependItem({ items, container, item, row }) {
  if (items.some((known) => known.id === item.id)) return false;
  items.unshift(item);
  const node = keyedNode(row(item), item.id);
  node.classList.add("is-new");
  container.prepend(node);
  while (items.length > LIST_LIMIT) {
    items.pop();
    container.lastElementChild?.remove();
  }
  return true;
}
