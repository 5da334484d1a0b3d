// The two contracts as written: the send API's at /openapi.yaml, this API's at /_mock/openapi.yaml.

import express from "express";

export interface DocumentRoutesDeps {
  sendContractSource: string;
  adminContractSource: string;
}

export function createDocumentRoutes(deps: DocumentRoutesDeps): express.Router {
  const router = express.Router();
  router.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(deps.sendContractSource);
  });
  router.get("/_mock/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(deps.adminContractSource);
  });
  return router;
}
