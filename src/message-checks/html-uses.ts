// Which caniemail features one HTML element relies on: itself, its attributes and their values, the kind of link it is, the format of its image.

import type { EmailFeature, FeatureIndex, Lookup } from "./feature-index.js";
import type { HtmlElement } from "./html-scan.js";

/** `.png`, `.jpeg`… at the end of a URL's path, before its query or fragment. */
const EXTENSION = /\.([a-z0-9]{2,5})(?:[?#]|$)/i;
const DATA_URI = /^data:image\/([a-z0-9.+-]+)(;[^,]*)?,/i;

/** The features `element` relies on, each list as the index holds it. */
export function featuresOfElement(element: HtmlElement, index: FeatureIndex): (readonly EmailFeature[])[] {
  const found: (readonly EmailFeature[])[] = [];
  const look = (lookup: Lookup, name: string): void => {
    const features = lookup.get(name);
    if (features !== undefined) found.push(features);
  };
  look(index.elements, element.name);
  for (const [name, value] of Object.entries(element.attributes)) {
    look(index.attributes, name);
    look(index.elementAttributeValues, `${element.name} ${name}=${value.trim().toLowerCase()}`);
  }
  const { href, src } = element.attributes;
  if (element.name === "a" && href !== undefined) {
    if (href.trim().startsWith("#")) look(index.shapeless, "local anchor");
    if (/^\s*mailto:/i.test(href)) look(index.shapeless, "mailto link");
  }
  if (element.name === "meta" && element.attributes.name?.trim().toLowerCase() === "color-scheme") look(index.shapeless, "color-scheme meta");
  if (element.name === "img" && src !== undefined) {
    const dataUri = DATA_URI.exec(src.trim());
    if (dataUri !== null) {
      look(index.imageFormats, (dataUri[1] ?? "").toLowerCase().replace(/\+xml$/, ""));
      if (/;base64/i.test(dataUri[2] ?? "")) look(index.shapeless, "base64 image");
    } else {
      const extension = EXTENSION.exec(src.trim());
      if (extension !== null) look(index.imageFormats, (extension[1] ?? "").toLowerCase());
    }
  }
  return found;
}
