// The OpenAPI documents are read and checked once per process and per content: the same bytes
// give the same loaded contract, edited bytes are checked again.

import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_CONTRACT, ContractError, loadContract, SEND_CONTRACT } from "../../src/contract/load.js";

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function aCopyOfTheSendContract(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-contract-"));
  folders.push(folder);
  const file = path.join(folder, "send.yaml");
  await copyFile(SEND_CONTRACT, file);
  return file;
}

describe("loadContract", () => {
  it("answers the same loaded contract for the same document, however often it is asked", async () => {
    const [first, second] = await Promise.all([loadContract(SEND_CONTRACT), loadContract(SEND_CONTRACT)]);
    expect(second).toBe(first);
    expect(await loadContract(SEND_CONTRACT)).toBe(first);
    expect(await loadContract(ADMIN_CONTRACT)).not.toBe(first);
  });

  it("loads an edited document afresh, and reports an edit that breaks it", async () => {
    const file = await aCopyOfTheSendContract();
    const original = await loadContract(file);

    await writeFile(file, `${original.source}\n# an edit\n`);
    const edited = await loadContract(file);
    expect(edited).not.toBe(original);
    expect(edited.source.endsWith("# an edit\n")).toBe(true);

    await writeFile(file, "openapi: 3.1.0\ninfo: { title: broken }\npaths: {}\n");
    await expect(loadContract(file)).rejects.toThrow(ContractError);
    await expect(loadContract(file)).rejects.toThrow(file);

    await writeFile(file, original.source);
    expect(await loadContract(file)).toBe(original);
  });
});
