// The templates folders the templates tests load: written to a temp folder of their own, loaded
// with the log kept, and removed (and the catalog closed) after each test.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { loadTemplateCatalog, type TemplateCatalog, type TemplateEntry } from "../../src/domain/templates.js";

export const WELCOME_YAML = `subject: Welcome {name}
html: <p>Hello {name} from {company}</p>
text: Hello {name} from {company}
description: Greets a new user
sample_data:
  name: Ada
  company: Acme
`;

/** What a file's tests write and load templates folders with. */
export interface TemplateFolders {
  /** What a test made, undone newest first after it. */
  readonly cleanups: (() => Promise<void> | void)[];
  /** A new temp folder holding `files` (name to content). */
  readonly aTemplatesFolder: (files: Record<string, string>) => Promise<string>;
  /** The folder's catalog, and the lines it logged. */
  readonly load: (folder: string, options?: { watch: boolean }) => Promise<{ catalog: TemplateCatalog; logLines: string[] }>;
}

/** Called once at a test file's top level: its hook undoes, after each of the file's tests, what that test made. */
export function templateFolders(): TemplateFolders {
  const cleanups: (() => Promise<void> | void)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup();
    }
  });

  async function aTemplatesFolder(files: Record<string, string>): Promise<string> {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-templates-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    for (const [name, content] of Object.entries(files)) {
      await writeFile(path.join(folder, name), content);
    }
    return folder;
  }

  async function load(folder: string, options: { watch: boolean } = { watch: false }): Promise<{ catalog: TemplateCatalog; logLines: string[] }> {
    const logLines: string[] = [];
    const catalog = await loadTemplateCatalog(folder, { ...options, log: (line) => logLines.push(line) });
    cleanups.push(() => {
      catalog.close();
    });
    return { catalog, logLines };
  }

  return { cleanups, aTemplatesFolder, load };
}

export function entryOf(catalog: TemplateCatalog, id: string): TemplateEntry {
  const entry = catalog.list().find((candidate) => candidate.id === id);
  if (entry === undefined) {
    throw new Error(
      `no entry ${id} in ${catalog
        .list()
        .map((listed) => listed.id)
        .join(", ")}`,
    );
  }
  return entry;
}

export function errorOf(catalog: TemplateCatalog, id: string): string {
  return entryOf(catalog, id).error ?? "(no error)";
}
