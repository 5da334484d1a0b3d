// `sendmock lint`'s work: every template of a folder rendered with its sample_data as a send renders it, and the message checks run on each.

import { findMissingData, renderTemplate, type Template } from "../domain/render.js";
import { loadTemplateCatalog, TemplateFolderError } from "../domain/templates.js";
import { checkMessageTimed, type MessageCheckName, type MessageChecks, type MessageContent } from "../message-checks/index.js";

export interface LintedTemplate {
  id: string;
  /** The message it renders to with its sample_data: what the `spam` check sends to spamd. */
  rendered: MessageContent;
  /** Absolute path of its file. */
  file: string;
  checks: MessageChecks;
  /** How long each check took. */
  durationsMs: Map<MessageCheckName, number>;
  /** Rendering and every check. */
  durationMs: number;
}

/** The folder or a template in it cannot be linted: a usage error, said in one line. */
export class LintUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LintUsageError";
  }
}

/** Every template of `folder`, rendered and checked, sorted by id; a LintUsageError when the folder or any template cannot be. */
export async function lintTemplates(folder: string): Promise<LintedTemplate[]> {
  const catalog = await loadTemplateCatalog(folder, { watch: false }).catch((error: unknown) => {
    throw error instanceof TemplateFolderError ? new LintUsageError(error.message) : error;
  });
  const entries = catalog.list();
  catalog.close();
  if (entries.length === 0) throw new LintUsageError(`templates folder ${catalog.folder} holds no template (a <template_id>.yaml, .yml or .json file)`);
  const broken = entries.filter((entry) => entry.template === undefined);
  const [first] = broken;
  if (first !== undefined) {
    const more = broken.length === 1 ? "" : ` (and ${broken.length - 1} more broken)`;
    throw new LintUsageError(`template ${first.file} cannot be loaded: ${first.error ?? "broken"}${more}`);
  }
  return entries.flatMap((entry) => (entry.template === undefined ? [] : [lintTemplate(entry.template)]));
}

/** One template rendered with its sample_data, through the same steps as a send: missing data refused, then render. */
export function lintTemplate(template: Template): LintedTemplate {
  const started = performance.now();
  const data = template.sampleData ?? {};
  const missing = findMissingData(template, data);
  if (missing.length > 0) {
    throw new LintUsageError(
      `template ${template.file} cannot be rendered: it has no sample_data, and needs values for ${missing.join(", ")} (lint renders each template with its sample_data)`,
    );
  }
  const output = renderTemplate(template, data);
  const rendered = { subject: output.subject, html: output.html ?? null, text: output.text ?? null };
  const { result, durationsMs } = checkMessageTimed(rendered);
  return { id: template.id, rendered, file: template.file, checks: result, durationsMs, durationMs: performance.now() - started };
}
