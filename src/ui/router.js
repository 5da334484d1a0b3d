// The page's address: `#/<view>` or `#/<view>/<item id>` (a message, a template), so a
// selection survives a reload and the back button steps through what was opened.

export const VIEWS = ["messages", "requests", "faults", "templates"];
const DEFAULT_VIEW = "messages";

/** The route in the address bar: {view, itemId} (itemId null when nothing is selected). */
export function currentRoute() {
  return parseHash(location.hash);
}

function parseHash(hash) {
  // Other fragments (such as the skip link's #main) are not routes.
  if (!hash.startsWith("#/")) return null;
  const [view = "", ...rest] = hash.slice(2).split("/");
  if (!VIEWS.includes(view)) return { view: DEFAULT_VIEW, itemId: null };
  return { view, itemId: decodedId(rest.join("/")) };
}

function decodedId(encodedId) {
  if (encodedId === "") return null;
  try {
    return decodeURIComponent(encodedId);
  } catch {
    return null; // a malformed %-escape typed by hand
  }
}

/** The fragment for a route, for links and navigate(). */
export function hrefFor(view, itemId = null) {
  return itemId === null ? `#/${view}` : `#/${view}/${encodeURIComponent(itemId)}`;
}

let routeListener = null;
// The fragment whose route was last shown: navigate() shows a route at once, and the
// hashchange event that follows (a task later) must not show it twice.
let shownHash = null;

function showCurrentRoute() {
  const route = currentRoute();
  if (!route || location.hash === shownHash) return;
  shownHash = location.hash;
  routeListener?.(route);
}

/** Goes to a route: a history entry (so Back returns), shown before this call returns. */
export function navigate(view, itemId = null) {
  const href = hrefFor(view, itemId);
  if (location.hash !== href) location.hash = href;
  showCurrentRoute();
}

/** Calls `listener(route)` now and on every change of route (fragments that are no route are skipped). */
export function onRouteChange(listener) {
  routeListener = listener;
  window.addEventListener("hashchange", showCurrentRoute);
  if (currentRoute() === null) {
    history.replaceState(null, "", hrefFor(DEFAULT_VIEW));
  }
  showCurrentRoute();
}
