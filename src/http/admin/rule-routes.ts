// The CRUD that faults, outcomes and webhooks share: list, add, remove one, clear, written once.

import express from "express";
import { ApiError } from "../../errors.js";
import { routeParam } from "./params.js";

/** The domain's control of one kind of rule; its `add` refuses what the input's schema cannot say. */
export interface RuleControl<Input, Rule> {
  add(input: Input): Promise<Rule>;
  list(): Promise<Rule[]>;
  /** False when no rule has that id. */
  remove(id: string): Promise<boolean>;
  /** Absent for webhooks: the contract documents no way to clear them at once. */
  clear?(): Promise<void>;
}

export interface RuleResource<Input, Rule> {
  /** The collection's path, such as `/_mock/faults`; one rule is at `${path}/:id`. */
  path: string;
  /** The list's key in GET's response, such as `faults`. */
  listKey: string;
  /** What one rule is called in a 404, such as `fault rule`. */
  noun: string;
  control: RuleControl<Input, Rule>;
}

export function createRuleRoutes<Input, Rule>({ path, listKey, noun, control }: RuleResource<Input, Rule>): express.Router {
  const router = express.Router();

  router.get(path, async (_req, res) => {
    res.json({ [listKey]: await control.list() });
  });

  router.post(path, async (req, res) => {
    // checkDocumentedCalls held the body to the operation's schema in admin.yaml (the rule's
    // component, as the library's handle holds a rule to it); `add` checks what a schema cannot say.
    res.status(201).json(await control.add(req.body as Input));
  });

  const clear = control.clear?.bind(control);
  if (clear) {
    router.delete(path, async (_req, res) => {
      await clear();
      res.status(204).end();
    });
  }

  router.delete(`${path}/:id`, async (req, res) => {
    const id = routeParam(req, "id");
    if (!(await control.remove(id))) throw new ApiError("not_found", `No ${noun} with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  return router;
}
