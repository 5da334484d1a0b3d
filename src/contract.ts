// Reads the OpenAPI documents and checks them with swagger-parser before anything serves them.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import YAML from "yaml";

export const SEND_CONTRACT = fileURLToPath(new URL("../openapi/send.yaml", import.meta.url));
export const ADMIN_CONTRACT = fileURLToPath(new URL("../openapi/admin.yaml", import.meta.url));

export interface Contract {
  file: string;
  /** The file as written, for serving it. */
  source: string;
  document: OpenAPIV3_1.Document;
}

/** An OpenAPI document that cannot be used; the message is one line naming the file. */
export class ContractError extends Error {
  override name = "ContractError";
}

/** swagger-parser puts a headline first and the precise problems on the lines below it. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.slice(0, 3).join(" ") || "invalid document";
}

export async function loadContract(file: string): Promise<Contract> {
  let source: string;
  let document: OpenAPIV3_1.Document;
  try {
    source = await readFile(file, "utf8");
    document = YAML.parse(source) as OpenAPIV3_1.Document;
    // validate() dereferences in place, so it gets a copy and the validator gets the original.
    await SwaggerParser.validate(structuredClone(document));
  } catch (error) {
    throw new ContractError(`${file}: ${oneLine(error)}`);
  }
  if (!document.openapi.startsWith("3.1")) {
    throw new ContractError(`${file}: expected an OpenAPI 3.1 document, found openapi: ${document.openapi}`);
  }
  return { file, source, document };
}
