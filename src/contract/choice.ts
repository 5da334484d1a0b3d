// Which contract `check` and `proxy` judge a target by: the one the service's spec publishes,
// sendmock's own stricter one, or any OpenAPI 3.x document with POST /send.

import path from "node:path";
import type { ContractChecker } from "./check.js";
import { loadContract, SEND_CONTRACT, SERVICE_CONTRACT } from "./load.js";

/** `published` (openapi/service.yaml), `sendmock` (openapi/send.yaml), or a file path. */
export type ContractChoice = string;

export const DEFAULT_CONTRACT: ContractChoice = "published";

/** A contract named for people: `published (openapi/service.yaml)`, or the file as given. */
export interface ChosenContract {
  /** What was asked for: `published`, `sendmock` or the file path. */
  choice: ContractChoice;
  /** `published (openapi/service.yaml)`, `sendmock (openapi/send.yaml)` or the file. */
  label: string;
  checker: ContractChecker;
}

function fileOf(choice: ContractChoice): string {
  if (choice === "published") return SERVICE_CONTRACT;
  if (choice === "sendmock") return SEND_CONTRACT;
  return path.resolve(choice);
}

function labelOf(choice: ContractChoice): string {
  if (choice === "published") return "published (openapi/service.yaml)";
  if (choice === "sendmock") return "sendmock (openapi/send.yaml)";
  return choice;
}

/** The checker for a choice; a file that is no OpenAPI 3.x document with POST /send throws a ContractError naming it. */
export async function chooseContract(choice: ContractChoice = DEFAULT_CONTRACT): Promise<ChosenContract> {
  // Loaded here, not with this module: the bin imports DEFAULT_CONTRACT for its flags, and the
  // checker brings swagger-parser and ajv's 2020 draft into every `sendmock serve` start.
  const { createContractChecker } = await import("./check.js");
  return { choice, label: labelOf(choice), checker: await createContractChecker(await loadContract(fileOf(choice))) };
}
