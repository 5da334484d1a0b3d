// Builds DOM nodes from data without ever parsing a string as HTML.
//
// Everything the page shows came from a request someone sent to the mock (subjects,
// addresses, data, error messages...), so it is hostile by default: text only ever goes
// in as text nodes, attributes only through setAttribute, and links only after their
// scheme was checked. The one place HTML is rendered is the sandboxed preview iframe
// (preview-frame.js).

/** Attribute names h() refuses: they would let a string run code or load something. */
const FORBIDDEN_ATTRIBUTES = new Set(["srcdoc", "src", "style", "formaction", "action"]);

/**
 * Creates an element: `h("li", { class: "row", "data-id": id, onclick: fn }, "text", child)`.
 * - a function under an `on…` name becomes an event listener (never an inline handler);
 * - `true` sets an empty boolean attribute, `false`, `null` and `undefined` leave it out;
 * - `href` must be a fragment (`#…`) or an http(s) URL, else it is left out;
 * - children may be strings, numbers, nodes, arrays of them, or null/false (skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    setAttributeSafely(element, name, value);
  }
  append(element, children);
  return element;
}

function setAttributeSafely(element, name, value) {
  if (name.startsWith("on")) {
    if (typeof value !== "function") throw new TypeError(`h(): ${name} must be a function`);
    element.addEventListener(name.slice(2).toLowerCase(), value);
    return;
  }
  if (FORBIDDEN_ATTRIBUTES.has(name.toLowerCase())) throw new TypeError(`h(): refusing to set ${name}`);
  if (value === false || value === null || value === undefined) return;
  if (name === "href") {
    const href = String(value);
    if (!href.startsWith("#") && safeHttpUrl(href) === null) return;
    element.setAttribute("href", href);
    return;
  }
  element.setAttribute(name, value === true ? "" : String(value));
}

/** Appends children (strings become text nodes); arrays are flattened, null/false skipped. */
export function append(parent, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces every child of `parent` with `children` (same rules as append). */
export function replaceContent(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

// What each rendered list item was drawn from, so an unchanged item keeps its node.
const renderedVersion = new WeakMap();

/**
 * Makes `container`'s children show `items`, in order: an item whose `key` and `version`
 * are unchanged keeps its DOM node, others are drawn with `render(item)`. Children that were
 * not drawn from an item (a table's caption and head) stay first, as they are.
 *
 * Lists are refetched often (on every reconnect of the event stream, after a reset, when a
 * view is shown): redrawing every row would lose the focus, the scroll position, and a
 * click that lands while its row is being replaced.
 */
export function syncList(container, items, { key, render, version = key }) {
  const previous = new Map();
  for (const child of container.children) {
    const drawn = renderedVersion.get(child);
    if (drawn) previous.set(drawn.key, { node: child, version: drawn.version });
  }
  let cursor = firstItemNode(container);
  for (const item of items) {
    const itemKey = key(item);
    const itemVersion = version(item);
    const known = previous.get(itemKey);
    let node;
    if (known && known.version === itemVersion) {
      node = known.node;
      previous.delete(itemKey);
    } else {
      node = keyedNode(render(item), itemKey, itemVersion);
    }
    if (node === cursor) cursor = cursor.nextElementSibling;
    else container.insertBefore(node, cursor);
  }
  // Whatever is left (gone, or redrawn) is after the last item now.
  for (const { node } of previous.values()) node.remove();
}

/** The first child of `container` drawn from an item, or null: where the list's items start. */
function firstItemNode(container) {
  let node = container.firstElementChild;
  while (node !== null && !renderedVersion.has(node)) node = node.nextElementSibling;
  return node;
}

/** Marks a node drawn outside syncList (such as a row added live) so syncList can keep it. */
export function keyedNode(node, key, version = key) {
  renderedVersion.set(node, { key, version });
  return node;
}

/** The URL when `value` is an absolute http: or https: URL, else null (javascript:, data:, ...). */
export function safeHttpUrl(value) {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A URL shown as text, and a real link only when its scheme is http(s); the link opens in a
 * new tab and tells the target nothing about this page.
 */
export function externalLink(url) {
  if (safeHttpUrl(url) === null) return h("span", { class: "link-text" }, url);
  return h("a", { href: url, target: "_blank", rel: "noreferrer noopener", class: "link-text" }, url);
}

/** Looks up an element the page's HTML must contain; a missing one is a bug worth a loud error. */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html lacks #${id}`);
  return element;
}
