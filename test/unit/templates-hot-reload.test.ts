// Hot-reloading a templates folder: edited, added, deleted, renamed and broken files, change
// listeners, the folder going and coming back, and close.

import { mkdir, rename, rm, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it, expect, vi } from "vitest";
import { entryOf, templateFolders, WELCOME_YAML } from "./template-folders.js";

const RELOAD_TIMEOUT = { timeout: 5_000, interval: 20 };

const { aTemplatesFolder, load } = templateFolders();

describe("hot reload", () => {
  it("applies an edited file", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(folder, { watch: true });

    await writeFile(path.join(folder, "welcome.yaml"), "subject: Edited {name}\ntext: t\n");
    await vi.waitFor(() => {
      expect(catalog.get("welcome")?.subjectSource).toBe("Edited {name}");
    }, RELOAD_TIMEOUT);
  });

  it("adds a new file and removes a deleted one", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML, "old.yaml": "subject: old\ntext: t\n" });
    const { catalog } = await load(folder, { watch: true });

    await writeFile(path.join(folder, "fresh.json"), `{"subject": "fresh", "html": "<p>new</p>"}`);
    await unlink(path.join(folder, "old.yaml"));
    await vi.waitFor(() => {
      expect(catalog.list().map((entry) => entry.id)).toEqual(["fresh", "welcome"]);
    }, RELOAD_TIMEOUT);
    expect(catalog.get("old")).toBeUndefined();
    expect(catalog.get("fresh")?.htmlSource).toBe("<p>new</p>");
  });

  it("follows a renamed file to its new id", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(folder, { watch: true });

    await rename(path.join(folder, "welcome.yaml"), path.join(folder, "hello.yml"));
    await vi.waitFor(() => {
      expect(catalog.get("hello")?.file).toBe(path.join(folder, "hello.yml"));
    }, RELOAD_TIMEOUT);
    expect(catalog.get("welcome")).toBeUndefined();
  });

  it("logs a file once when it breaks and keeps serving the others", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML, "other.yaml": "subject: o\ntext: t\n" });
    const { catalog, logLines } = await load(folder, { watch: true });

    await writeFile(path.join(folder, "other.yaml"), "subject: o\nhtml: [\n");
    await vi.waitFor(() => {
      expect(entryOf(catalog, "other").error).toBeDefined();
    }, RELOAD_TIMEOUT);
    expect(catalog.get("welcome")).toBeDefined();

    await writeFile(path.join(folder, "welcome.yaml"), "subject: Still fine\ntext: t\n");
    await vi.waitFor(() => {
      expect(catalog.get("welcome")?.subjectSource).toBe("Still fine");
    }, RELOAD_TIMEOUT);
    expect(logLines.filter((line) => line.startsWith(`template ${path.join(folder, "other.yaml")}: `))).toHaveLength(1);
  });

  it("calls onChange listeners after the new templates are in place, until they unsubscribe", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(folder, { watch: true });
    const subjectsSeen: (string | undefined)[] = [];
    const unsubscribe = catalog.onChange(() => subjectsSeen.push(catalog.get("welcome")?.subjectSource));

    await writeFile(path.join(folder, "welcome.yaml"), "subject: Second\ntext: t\n");
    await vi.waitFor(() => {
      expect(subjectsSeen).toContain("Second");
    }, RELOAD_TIMEOUT);

    unsubscribe();
    const callsBefore = subjectsSeen.length;
    await writeFile(path.join(folder, "welcome.yaml"), "subject: Third\ntext: t\n");
    await vi.waitFor(() => {
      expect(catalog.get("welcome")?.subjectSource).toBe("Third");
    }, RELOAD_TIMEOUT);
    expect(subjectsSeen).toHaveLength(callsBefore);
  });

  it("survives a listener that throws and still calls the others", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog, logLines } = await load(folder, { watch: true });
    catalog.onChange(() => {
      throw new Error("listener bug");
    });
    let calls = 0;
    catalog.onChange(() => (calls += 1));

    await writeFile(path.join(folder, "welcome.yaml"), "subject: Changed\ntext: t\n");
    await vi.waitFor(() => {
      expect(calls).toBeGreaterThan(0);
    }, RELOAD_TIMEOUT);
    expect(logLines.some((line) => line.includes("listener bug"))).toBe(true);
  });

  it("keeps serving loaded templates when the folder disappears, and picks it up when it comes back", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog, logLines } = await load(folder, { watch: true });

    await rm(folder, { recursive: true, force: true });
    await vi.waitFor(() => {
      expect(logLines).toContain(`templates folder ${folder} does not exist; still serving the 1 template(s) loaded before`);
    }, RELOAD_TIMEOUT);
    expect(catalog.get("welcome")?.subjectSource).toBe("Welcome {name}");
    expect(catalog.list()).toEqual([
      expect.objectContaining({
        id: "welcome",
        template: catalog.get("welcome"),
        error: `templates folder ${folder} does not exist; serving the version loaded before`,
      }),
    ]);

    await mkdir(folder);
    await writeFile(path.join(folder, "back.yaml"), "subject: back\ntext: t\n");
    await vi.waitFor(() => {
      expect(catalog.get("back")).toBeDefined();
    }, RELOAD_TIMEOUT);
    expect(catalog.get("welcome")).toBeUndefined();
    expect(entryOf(catalog, "back").error).toBeUndefined();
    expect(logLines).toContain(`templates folder ${folder} is available again`);
  });

  it("keeps a file that was broken before the folder disappeared broken, with its own error", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML, "broken.yaml": "subject: no body\n" });
    const { catalog, logLines } = await load(folder, { watch: true });

    await rm(folder, { recursive: true, force: true });
    await vi.waitFor(() => {
      expect(logLines).toContain(`templates folder ${folder} does not exist; still serving the 1 template(s) loaded before`);
    }, RELOAD_TIMEOUT);
    expect(entryOf(catalog, "broken")).toMatchObject({ template: undefined, error: "needs html or text (or both)" });
  });

  it("stops reloading after close, and close can be called twice", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(folder, { watch: true });
    // A catalog still open on the same folder: once it has reloaded, the closed one would have too.
    const { catalog: witness } = await load(folder, { watch: true });
    let changes = 0;
    catalog.onChange(() => (changes += 1));
    catalog.close();
    catalog.close();

    await writeFile(path.join(folder, "welcome.yaml"), "subject: After close\ntext: t\n");
    await vi.waitFor(() => expect(witness.get("welcome")?.subjectSource).toBe("After close"), RELOAD_TIMEOUT);
    witness.close();
    expect(catalog.get("welcome")?.subjectSource).toBe("Welcome {name}");
    expect(changes).toBe(0);
  });
});
