// `mock.templates`: the templates folder as loaded, read as GET /_mock/templates reads it, an id checked as it checks one.

import type { Contract } from "../contract/load.js";
import type { TemplateCatalog } from "../domain/templates.js";
import { routeCheck } from "./route-checks.js";

/** The templates folder: `folder`, `get(id)`, `list()`, `onChange(listener)`, `close()` (stops watching it). */
export type TemplatesHandle = Pick<TemplateCatalog, "folder" | "get" | "list" | "onChange" | "close">;

export function createTemplatesHandle(catalog: TemplateCatalog, contract: Contract): TemplatesHandle {
  const reading = routeCheck(contract, "get", "/_mock/templates/{id}");
  return {
    folder: catalog.folder,
    get: (id) => catalog.get(reading.id(id)),
    list: () => catalog.list(),
    onChange: (listener) => catalog.onChange(listener),
    close: () => {
      catalog.close();
    },
  };
}
