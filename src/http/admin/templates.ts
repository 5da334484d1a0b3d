// /_mock/templates: the templates folder as loaded, one template's detail, its preview with sample_data.

import express, { type Request } from "express";
import { renderTemplate } from "../../domain/render.js";
import type { TemplateCatalog } from "../../domain/templates.js";
import { ApiError } from "../../errors.js";
import { templateDetail, templateSummary } from "../views.js";
import { routeParam } from "./params.js";

export interface TemplateRoutesDeps {
  catalog: Pick<TemplateCatalog, "folder" | "list">;
}

export function createTemplateRoutes(deps: TemplateRoutesDeps): express.Router {
  const { catalog } = deps;
  const router = express.Router();

  router.get("/_mock/templates", (_req, res) => {
    res.json({ folder: catalog.folder, templates: catalog.list().map(templateSummary) });
  });

  const findTemplate = (req: Request) => {
    const id = routeParam(req, "id");
    const entry = catalog.list().find((candidate) => candidate.id === id);
    if (!entry) throw new ApiError("not_found", `No template ${JSON.stringify(id)} in ${catalog.folder}`);
    return entry;
  };

  router.get("/_mock/templates/:id", (req, res) => {
    res.json(templateDetail(findTemplate(req)));
  });

  router.get("/_mock/templates/:id/preview", (req, res) => {
    const entry = findTemplate(req);
    const { template } = entry;
    if (!template) throw new ApiError("not_found", `Template ${entry.id} failed to load: ${entry.error ?? ""}`);
    if (!template.sampleData) throw new ApiError("not_found", `Template ${entry.id} has no sample_data to preview with`);
    const rendered = renderTemplate(template, template.sampleData);
    res.json({ subject: rendered.subject, html: rendered.html ?? null, text: rendered.text ?? null });
  });

  return router;
}
