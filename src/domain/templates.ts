// Loads the templates folder into a catalog, reports broken files, and reloads it when the folder changes.

import { watch, type FSWatcher } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Template } from "./render.js";
import { buildTemplate, firstLineOf, parseTemplateSource, type ParsedAhead } from "./template-file.js";

/**
 * One template file as the catalog sees it: loaded (`template`) or broken (`error`). While the
 * folder cannot be read, a template loaded before has both: it is still served, and `error`
 * says why it may be out of date.
 */
export interface TemplateEntry {
  readonly id: string;
  readonly file: string;
  readonly template: Template | undefined;
  readonly error: string | undefined;
}

export interface TemplateCatalog {
  /** Absolute path of the folder. */
  readonly folder: string;
  /** A loaded template; broken and unknown ids give undefined. */
  get(id: string): Template | undefined;
  /** Loaded and broken templates, sorted by id. */
  list(): TemplateEntry[];
  /** Calls `listener` after each reload; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /** Stops watching the folder. Safe to call more than once. */
  close(): void;
}

export interface LoadTemplateCatalogOptions {
  /** Reload the folder whenever it changes. */
  watch: boolean;
  /** Receives one line per broken file and per folder problem found while watching. */
  log?: (line: string) => void;
  /**
   * A YAML template's document as parsed ahead of time (the build parses the shipped ones) for
   * exactly the text `source`, or undefined: the text is then parsed here.
   */
  parsedAhead?: (source: string) => unknown;
}

/** The templates folder cannot be used at start-up: missing, not a directory, or unreadable. */
export class TemplateFolderError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TemplateFolderError";
  }
}

const TEMPLATE_EXTENSIONS = [".yaml", ".yml", ".json"] as const;
// Editors save in bursts (truncate, write, rename); one reload per burst is enough.
const RELOAD_DEBOUNCE_MS = 40;
// A deleted or replaced folder cannot be watched; this is how often to try watching it again.
const REWATCH_INTERVAL_MS = 500;

/**
 * Reads every template of `folder`. Broken files are listed with their error and logged, and
 * never fail the load; only an unusable folder does (TemplateFolderError).
 *
 * @example
 * const catalog = await loadTemplateCatalog("fixtures/templates", { watch: true, log: console.error });
 * catalog.get("welcome")?.placeholders; // ["name", "company", "login_url"]
 */
export async function loadTemplateCatalog(folder: string, options: LoadTemplateCatalogOptions): Promise<TemplateCatalog> {
  const absoluteFolder = path.resolve(folder);
  let entries: TemplateEntry[];
  try {
    entries = await readTemplateFolder(absoluteFolder, options.parsedAhead);
  } catch (error) {
    throw new TemplateFolderError(describeFolderProblem(absoluteFolder, error), { cause: error });
  }
  const log = options.log ?? ignoreLine;
  for (const entry of entries) {
    if (entry.error !== undefined) {
      log(brokenFileLine(entry));
    }
  }
  const catalog = new FolderTemplateCatalog(absoluteFolder, entries, log, options.parsedAhead);
  if (options.watch) {
    await catalog.startWatching();
  }
  return catalog;
}

class FolderTemplateCatalog implements TemplateCatalog {
  readonly folder: string;
  readonly #log: (line: string) => void;
  readonly #parsedAhead: ParsedAhead;
  readonly #listeners = new Set<() => void>();
  #entries: readonly TemplateEntry[];
  #templates: ReadonlyMap<string, Template>;
  #watcher: FSWatcher | undefined;
  #watchedFolderIdentity: string | undefined;
  #reloadTimer: NodeJS.Timeout | undefined;
  #rewatchTimer: NodeJS.Timeout | undefined;
  #reloading = false;
  #reloadRequested = false;
  /** Why the folder cannot be read now; undefined while it can. */
  #folderProblem: string | undefined;
  #closed = false;

  constructor(folder: string, entries: readonly TemplateEntry[], log: (line: string) => void, parsedAhead: ParsedAhead) {
    this.folder = folder;
    this.#log = log;
    this.#parsedAhead = parsedAhead;
    this.#entries = entries;
    this.#templates = indexLoadedTemplates(entries);
  }

  get(id: string): Template | undefined {
    return this.#templates.get(id);
  }

  list(): TemplateEntry[] {
    const folderProblem = this.#folderProblem;
    if (folderProblem === undefined) {
      return [...this.#entries];
    }
    // Whoever lists the templates (GET /_mock/templates) sees that the folder is gone, not only the log.
    return this.#entries.map((entry) => ({ ...entry, error: entry.error ?? `${folderProblem}; serving the version loaded before` }));
  }

  onChange(listener: () => void): () => void {
    // A wrapper per subscription, so subscribing the same function twice gives two independent subscriptions.
    const subscription = (): void => {
      listener();
    };
    this.#listeners.add(subscription);
    return () => {
      this.#listeners.delete(subscription);
    };
  }

  close(): void {
    this.#closed = true;
    this.#stopWatcher();
    clearTimeout(this.#reloadTimer);
    clearTimeout(this.#rewatchTimer);
    this.#listeners.clear();
  }

  async startWatching(): Promise<void> {
    try {
      const identity = await readFolderIdentity(this.folder);
      if (this.#closed) {
        return;
      }
      // Stopping only now, after the await, means two overlapping calls cannot leave a watcher behind.
      this.#stopWatcher();
      const watcher = watch(this.folder, { persistent: false }, () => {
        this.#scheduleReload();
      });
      watcher.on("error", (error) => {
        this.#onFolderUnavailable(error);
      });
      this.#watcher = watcher;
      this.#watchedFolderIdentity = identity;
    } catch (error) {
      this.#onFolderUnavailable(error);
    }
  }

  #stopWatcher(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#watchedFolderIdentity = undefined;
  }

  #scheduleReload(): void {
    if (this.#closed) {
      return;
    }
    clearTimeout(this.#reloadTimer);
    this.#reloadTimer = setTimeout(() => {
      void this.#reload();
    }, RELOAD_DEBOUNCE_MS);
    this.#reloadTimer.unref();
  }

  // Reloads never overlap: events arriving during one make it run once more afterwards.
  async #reload(): Promise<void> {
    if (this.#reloading) {
      this.#reloadRequested = true;
      return;
    }
    this.#reloading = true;
    try {
      await this.#reloadOnce();
      while (this.#takeReloadRequest()) {
        await this.#reloadOnce();
      }
    } catch (error) {
      this.#log(`templates folder ${this.folder}: reload failed: ${firstLineOf(error)}`);
    } finally {
      this.#reloading = false;
    }
  }

  #takeReloadRequest(): boolean {
    const requested = this.#reloadRequested && !this.#closed;
    this.#reloadRequested = false;
    return requested;
  }

  async #reloadOnce(): Promise<void> {
    let entries: TemplateEntry[];
    let identity: string;
    try {
      identity = await readFolderIdentity(this.folder);
      entries = await readTemplateFolder(this.folder, this.#parsedAhead);
    } catch (error) {
      this.#onFolderUnavailable(error);
      return;
    }
    if (this.#closed) {
      return;
    }
    if (this.#folderProblem !== undefined) {
      this.#folderProblem = undefined;
      this.#log(`templates folder ${this.folder} is available again`);
    }
    this.#logNewlyBroken(entries);
    this.#entries = entries;
    this.#templates = indexLoadedTemplates(entries);
    if (identity !== this.#watchedFolderIdentity) {
      // The folder was replaced (moved away and recreated): the old watcher follows the old folder.
      await this.startWatching();
    }
    this.#notifyListeners();
  }

  #onFolderUnavailable(error: unknown): void {
    if (this.#closed) {
      return;
    }
    this.#stopWatcher();
    const problem = describeFolderProblem(this.folder, error);
    // Retries meet the same problem every REWATCH_INTERVAL_MS: log it once, and again only if it changes.
    if (problem !== this.#folderProblem) {
      this.#folderProblem = problem;
      this.#log(`${problem}; still serving the ${this.#templates.size} template(s) loaded before`);
    }
    clearTimeout(this.#rewatchTimer);
    this.#rewatchTimer = setTimeout(() => {
      void this.#tryRewatch();
    }, REWATCH_INTERVAL_MS);
    this.#rewatchTimer.unref();
  }

  async #tryRewatch(): Promise<void> {
    await this.startWatching();
    if (this.#watcher !== undefined) {
      await this.#reload();
    }
  }

  #logNewlyBroken(entries: readonly TemplateEntry[]): void {
    const previousErrors = new Map(this.#entries.map((entry) => [entry.file, entry.error]));
    for (const entry of entries) {
      if (entry.error !== undefined && previousErrors.get(entry.file) !== entry.error) {
        this.#log(brokenFileLine(entry));
      }
    }
  }

  #notifyListeners(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#log(`templates folder ${this.folder}: a change listener failed: ${firstLineOf(error)}`);
      }
    }
  }
}

/** Reads and checks every template file; throws only when the folder itself cannot be read. */
async function readTemplateFolder(folder: string, parsedAhead: ParsedAhead): Promise<TemplateEntry[]> {
  const dirents = await readdir(folder, { withFileTypes: true });
  const filesById = new Map<string, string[]>();
  for (const dirent of dirents) {
    const id = templateIdOf(dirent.name);
    if (id === undefined || !(dirent.isFile() || dirent.isSymbolicLink())) {
      continue;
    }
    const files = filesById.get(id) ?? [];
    files.push(path.join(folder, dirent.name));
    filesById.set(id, files);
  }
  const entries = await Promise.all([...filesById].map(([id, files]) => readTemplateGroup(id, files, parsedAhead)));
  return entries.filter((entry) => entry !== undefined).sort((a, b) => compareStrings(a.id, b.id));
}

async function readTemplateGroup(id: string, files: readonly string[], parsedAhead: ParsedAhead): Promise<TemplateEntry | undefined> {
  const [onlyFile, ...otherFiles] = files;
  if (onlyFile === undefined || otherFiles.length > 0) {
    return duplicateEntry(id, files);
  }
  return readTemplateFile(id, onlyFile, parsedAhead);
}

function templateIdOf(fileName: string): string | undefined {
  if (fileName.startsWith(".")) {
    return undefined;
  }
  const extension = TEMPLATE_EXTENSIONS.find((candidate) => fileName.endsWith(candidate));
  return extension === undefined ? undefined : fileName.slice(0, -extension.length);
}

function duplicateEntry(id: string, files: readonly string[]): TemplateEntry {
  const sorted = [...files].sort(compareStrings);
  const names = sorted.map((file) => path.basename(file)).join(" and ");
  return {
    id,
    file: sorted[0] ?? "",
    template: undefined,
    error: `template id "${id}" is defined by ${names}; keep only one of them`,
  };
}

/** Undefined when the file vanished between listing the folder and reading it. */
async function readTemplateFile(id: string, file: string, parsedAhead: ParsedAhead): Promise<TemplateEntry | undefined> {
  let source: string;
  try {
    source = await readFile(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return undefined;
    }
    return { id, file, template: undefined, error: `cannot be read: ${firstLineOf(error)}` };
  }
  const parsed = parseTemplateSource(file, source, parsedAhead);
  if (!parsed.ok) {
    return { id, file, template: undefined, error: parsed.error };
  }
  const checked = buildTemplate(id, file, parsed.value);
  return checked.ok ? { id, file, template: checked.value, error: undefined } : { id, file, template: undefined, error: checked.error };
}

function indexLoadedTemplates(entries: readonly TemplateEntry[]): ReadonlyMap<string, Template> {
  const templates = new Map<string, Template>();
  for (const entry of entries) {
    if (entry.template !== undefined) {
      templates.set(entry.id, entry.template);
    }
  }
  return templates;
}

async function readFolderIdentity(folder: string): Promise<string> {
  const stats = await stat(folder);
  if (!stats.isDirectory()) {
    throw Object.assign(new Error(`${folder} is not a directory`), { code: "ENOTDIR" });
  }
  return `${stats.dev}:${stats.ino}`;
}

function describeFolderProblem(folder: string, error: unknown): string {
  switch (errorCode(error)) {
    case "ENOENT":
      return `templates folder ${folder} does not exist`;
    case "ENOTDIR":
      return `templates folder ${folder} is not a directory`;
    case "EACCES":
    case "EPERM":
      return `templates folder ${folder} cannot be read: permission denied`;
    default:
      return `templates folder ${folder} cannot be used: ${firstLineOf(error)}`;
  }
}

function brokenFileLine(entry: TemplateEntry): string {
  return `template ${entry.file}: ${entry.error ?? "broken"}`;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}

function ignoreLine(): void {
  // Without a log function, problems are still visible through list().
}
