// Reads the OpenAPI documents and checks them with swagger-parser before anything serves them,
// once per process and per document content.

import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import type { OpenAPIV3_1 } from "openapi-types";
import { sha256 } from "../domain/digest.js";
import { yaml } from "../domain/yaml.js";
import { packagePath } from "../package-root.js";
import { builtAhead, builtFile } from "./built-ahead.js";

export const SEND_CONTRACT = packagePath("openapi", "send.yaml");
export const ADMIN_CONTRACT = packagePath("openapi", "admin.yaml");
/** The send API as the real service's spec publishes it: what `check` and `proxy` judge by default. */
export const SERVICE_CONTRACT = packagePath("openapi", "service.yaml");

/**
 * The documents swagger-parser passed when the package was built, parsed, by the digest of
 * their bytes. Checking and parsing a document costs ~250 ms; the same bytes need not be
 * checked again at every start (nor by each test worker running from src/), while an edited
 * document (another digest) is checked in full.
 */
const CHECKED_CONTRACTS_FILE = "checked-contracts.json";

export interface Contract {
  file: string;
  /** sha256 of `source`: what the process-wide caches of compiled validators are keyed by. */
  digest: string;
  /** The file as written, for serving it. */
  source: string;
  document: OpenAPIV3_1.Document;
}

/** An OpenAPI document that cannot be used; the message is one line naming the file. */
export class ContractError extends Error {
  override name = "ContractError";
}

/** swagger-parser puts a headline first and the precise problems on the lines below it. */
function firstLinesOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.slice(0, 3).join(" ") || "invalid document";
}

async function validateDocument(document: OpenAPIV3_1.Document): Promise<void> {
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  // validate() dereferences in place, so it gets a copy and the validator gets the original.
  await SwaggerParser.validate(structuredClone(document));
}

/**
 * Loaded documents by file and digest, for the whole process. Checking a document costs
 * 170-700 ms and every mock of a test suite reads the same two; the cache holds immutable
 * documents only (a mock's state is never in it), and an edited file has a new digest, so it is
 * checked again. A failed check is not kept: the next mock reports it afresh.
 */
const loaded = new Map<string, Promise<Contract>>();

async function checkedContract(file: string, source: string, digest: string): Promise<Contract> {
  let document: OpenAPIV3_1.Document;
  try {
    const checked = builtAhead(CHECKED_CONTRACTS_FILE, digest) as OpenAPIV3_1.Document | undefined;
    document = checked ?? (yaml().parse(source) as OpenAPIV3_1.Document);
    if (!checked) await validateDocument(document);
  } catch (error) {
    throw new ContractError(`${file}: ${firstLinesOf(error)}`, { cause: error });
  }
  // `check --contract FILE` takes any OpenAPI 3.x document; a Swagger 2.0 one has no `openapi` member.
  const version: unknown = (document as { openapi?: unknown }).openapi;
  if (typeof version !== "string" || !/^3\.[01]\./.test(version)) {
    throw new ContractError(
      `${file}: expected an OpenAPI 3.0 or 3.1 document, found ${typeof version === "string" ? `openapi: ${version}` : "no openapi version"}`,
    );
  }
  return contractOf(file, source, digest, document);
}

/**
 * Documents parsed, by digest and file: one object for the same bytes, whether read at once or
 * loaded and checked, as the engine's compiled validators are kept by it.
 */
const parsed = new Map<string, Contract>();

function contractOf(file: string, source: string, digest: string, document: OpenAPIV3_1.Document): Contract {
  const key = `${digest} ${file}`;
  let contract = parsed.get(key);
  if (!contract) {
    contract = Object.freeze({ file, digest, source, document });
    parsed.set(key, contract);
  }
  return contract;
}

/**
 * The document in `file` read at once, for a check that cannot wait for loadContract: a config's
 * rules, held to admin.yaml's schemas while the config is resolved. Parsed (as the build checked
 * it, when it did), not checked here: loadContract checks it before anything serves it.
 */
export function readContractNow(file: string): Contract {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    throw new ContractError(`${file}: ${firstLinesOf(error)}`, { cause: error });
  }
  const digest = sha256(source, "hex");
  const known = parsed.get(`${digest} ${file}`);
  if (known) return known;
  let document: OpenAPIV3_1.Document;
  try {
    document = (builtAhead(CHECKED_CONTRACTS_FILE, digest) as OpenAPIV3_1.Document | undefined) ?? (yaml().parse(source) as OpenAPIV3_1.Document);
  } catch (error) {
    throw new ContractError(`${file}: ${firstLinesOf(error)}`, { cause: error });
  }
  return contractOf(file, source, digest, document);
}

/** The document in `file`, checked; the same object for the same bytes, however often it is asked for. */
export async function loadContract(file: string): Promise<Contract> {
  let source: string;
  try {
    source = await readFile(file, "utf8");
  } catch (error) {
    throw new ContractError(`${file}: ${firstLinesOf(error)}`, { cause: error });
  }
  const digest = sha256(source, "hex");
  const key = `${digest} ${file}`;
  let contract = loaded.get(key);
  if (!contract) {
    contract = checkedContract(file, source, digest);
    loaded.set(key, contract);
    contract.catch(() => loaded.delete(key));
  }
  return contract;
}

/** Run by the build: checks the shipped documents and records their digests for later starts. */
export async function recordCheckedContracts(): Promise<void> {
  const contracts = await Promise.all(
    [SEND_CONTRACT, ADMIN_CONTRACT, SERVICE_CONTRACT].map(async (file) => {
      const source = await readFile(file, "utf8");
      const document = yaml().parse(source) as OpenAPIV3_1.Document;
      await validateDocument(document).catch((error: unknown) => {
        throw new ContractError(`${file}: ${firstLinesOf(error)}`, { cause: error });
      });
      return [sha256(source, "hex"), document] as const;
    }),
  );
  await writeFile(builtFile(CHECKED_CONTRACTS_FILE), `${JSON.stringify(Object.fromEntries(contracts))}\n`);
}
