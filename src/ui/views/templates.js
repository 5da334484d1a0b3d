// The Templates view: every template file as loaded now (a broken one with its error), and
// a preview of the selected one rendered from its sample_data.

import { listTemplates, previewTemplate } from "../api.js";
import { byId, h, replaceContent, syncList } from "../dom.js";
import { dataValueText, withInlineCode } from "../format.js";
import { errorText } from "../notice.js";
import { previewFrame } from "../preview-frame.js";

/**
 * `openTemplate(id)` / `closeTemplate()` change the address; `onTemplatesLoaded(list)` lets
 * the Messages view fill its template filter; `showMessagesOf(id)` filters the messages.
 */
export function createTemplatesView({ openTemplate, closeTemplate, onTemplatesLoaded, showMessagesOf }) {
  const list = byId("template-list");
  const folder = byId("template-folder");
  const emptyState = byId("template-empty");
  const listError = byId("template-error");
  const detailPane = byId("template-pane");

  const state = { templates: [], selectedId: null, loadSequence: 0, previewSequence: 0 };

  async function reload() {
    const sequence = ++state.loadSequence;
    try {
      const response = await listTemplates();
      if (sequence !== state.loadSequence) return;
      const selectedBefore = JSON.stringify(state.templates.find((template) => template.id === state.selectedId));
      state.templates = response.templates;
      listError.textContent = "";
      folder.textContent = response.folder;
      // Edits to the folder apply without a restart: redraw a card when its file changed.
      syncList(list, state.templates, { key: (template) => template.id, version: JSON.stringify, render: templateCard });
      markSelectedCard();
      list.hidden = state.templates.length === 0;
      emptyState.hidden = state.templates.length > 0;
      onTemplatesLoaded(state.templates);
      const selectedNow = JSON.stringify(state.templates.find((template) => template.id === state.selectedId));
      if (state.selectedId !== null && selectedNow !== selectedBefore) await select(state.selectedId, { refresh: true });
    } catch (error) {
      if (sequence === state.loadSequence) listError.textContent = `Cannot load the templates: ${errorText(error)}`;
    }
  }

  function templateCard(template) {
    const selected = template.id === state.selectedId;
    return h(
      "li",
      { class: `template-card${template.ok ? "" : " is-broken"}`, "data-testid": "template-row", "data-id": template.id },
      h(
        "h3",
        { class: "template-name" },
        h(
          "button",
          {
            type: "button",
            class: "link-button",
            "aria-current": selected ? "true" : false,
            "aria-label": `Preview ${template.id}`,
            onclick: () => openTemplate(template.id),
          },
          template.id,
        ),
        template.ok ? h("span", { class: "badge status-2xx" }, "ok") : h("span", { class: "badge status-5xx", "data-testid": "template-broken" }, "error"),
      ),
      template.description === null ? null : h("p", { class: "template-description" }, withInlineCode(template.description)),
      template.ok ? null : h("p", { class: "error-text", "data-testid": "template-error" }, template.error),
      template.subject === null ? null : h("p", {}, h("span", { class: "muted" }, "Subject: "), template.subject),
      template.placeholders.length === 0
        ? null
        : h(
            "p",
            { class: "placeholders" },
            h("span", { class: "muted" }, "Placeholders: "),
            template.placeholders.map((name) => h("code", { class: "chip" }, `{${name}}`)),
          ),
      h("p", { class: "muted small" }, template.file, partsText(template)),
    );
  }

  function markSelectedCard() {
    for (const button of list.querySelectorAll(".template-name button")) {
      const card = button.closest(".template-card");
      if (card.dataset.id === state.selectedId) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  }

  /** Shows the template `id` (null: none) and its preview. */
  async function select(id, { refresh = false } = {}) {
    const previous = state.selectedId;
    const isNewSelection = id !== previous;
    state.selectedId = id;
    markSelectedCard();
    if (id === null) {
      replaceContent(detailPane, h("p", { class: "pane-placeholder" }, "Select a template to preview it with its sample data."));
      if (previous !== null && (detailPane.contains(document.activeElement) || document.activeElement === document.body)) {
        list.querySelector(`.template-card[data-id="${CSS.escape(previous)}"] button`)?.focus();
      }
      return;
    }
    if (!isNewSelection && !refresh) return;
    const sequence = ++state.previewSequence;
    const template = state.templates.find((candidate) => candidate.id === id);
    if (!template) {
      // Loaded before the list (a reload on #/templates/<id>) or the file is gone.
      if (state.templates.length > 0) {
        replaceContent(detailPane, h("p", { class: "pane-placeholder", role: "alert" }, "No template ", h("code", {}, id), " in the folder."));
      }
      return;
    }
    const heading = h("h2", { class: "detail-title", tabindex: "-1" }, template.id);
    const previewSlot = h("div", { class: "preview-slot" });
    replaceContent(
      detailPane,
      h(
        "article",
        { class: "detail", "data-testid": "template-detail", "data-id": template.id },
        h(
          "div",
          { class: "detail-header" },
          heading,
          h("button", { type: "button", class: "button-quiet", onclick: closeTemplate, "aria-label": "Close the preview (Escape)" }, "Close"),
        ),
        template.description === null ? null : h("p", {}, withInlineCode(template.description)),
        template.ok
          ? h("p", {}, h("button", { type: "button", class: "button-small", onclick: () => showMessagesOf(template.id) }, "Show its messages"))
          : null,
        previewSlot,
      ),
    );
    if (isNewSelection) heading.focus();

    if (!template.ok) {
      replaceContent(previewSlot, section("Load error", h("pre", { class: "error-block", "data-testid": "template-detail-error" }, template.error)));
      return;
    }
    if (template.sample_data === null) {
      replaceContent(
        previewSlot,
        h("p", { class: "empty-inline" }, "No preview: this template has no sample_data. Add one to its file to see it rendered here."),
      );
      return;
    }
    replaceContent(previewSlot, h("p", { class: "empty-inline" }, "Rendering the preview…"));
    try {
      const preview = await previewTemplate(id);
      if (sequence !== state.previewSequence) return;
      replaceContent(previewSlot, previewSections(template, preview));
    } catch (error) {
      if (sequence !== state.previewSequence) return;
      replaceContent(previewSlot, h("p", { class: "error-text", role: "alert" }, `No preview: ${errorText(error)}`));
    }
  }

  // Escape closes the preview, unless it is meant for a form field.
  byId("panel-templates").addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || state.selectedId === null) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    event.preventDefault();
    closeTemplate();
  });

  return { reload, select };
}

function section(title, ...content) {
  return h("section", { class: "detail-section" }, h("h3", {}, title), content);
}

function partsText(template) {
  if (!template.ok) return "";
  const parts = [template.has_html && "html", template.has_text && "text"].filter(Boolean);
  return ` · ${parts.join(" + ")}`;
}

function previewSections(template, preview) {
  return [
    section("Subject", h("p", { class: "preview-subject", "data-testid": "template-preview-subject" }, preview.subject)),
    section(
      "HTML part",
      preview.html === null
        ? h("p", { class: "empty-inline" }, "no HTML part")
        : previewFrame(preview.html, { title: `Preview of template ${template.id}`, testId: "template-preview" }),
    ),
    section(
      "Text part",
      preview.text === null
        ? h("p", { class: "empty-inline" }, "no text part")
        : h("pre", { class: "text-part", "data-testid": "template-preview-text" }, preview.text),
    ),
    section(
      "Sample data",
      h(
        "table",
        { class: "data-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Key"), h("th", { scope: "col" }, "Value"))),
        h(
          "tbody",
          {},
          Object.entries(template.sample_data).map(([key, value]) =>
            h("tr", {}, h("th", { scope: "row" }, h("code", {}, key)), h("td", {}, dataValueText(value))),
          ),
        ),
      ),
    ),
  ];
}
