// The Faults view: the fault rules in force (remove one, remove all), the form that adds
// one, and the run-time settings (response shape, strict data, rate limit) via PATCH /_mock/config.

import { addFault, clearFaults, getConfig, listFaults, removeFault, updateConfig } from "../api.js";
import { byId, h, replaceContent, syncList } from "../dom.js";
import { errorText, notify } from "../notice.js";
import { addRespondFields, respondParameters } from "./respond-fields.js";

/** The fields that only some kinds take: a parameter that does not apply is refused by the API. */
const KIND_SPECIFIC_FIELDS = {
  "fault-status": ["server_error"],
  "fault-delay-ms": ["latency", "timeout"],
  "fault-retry-after-s": ["rate_limit", "server_error"],
  "fault-respond-status": ["respond"],
  "fault-respond-headers": ["respond"],
  "fault-respond-body-kind": ["respond"],
  "fault-respond-body": ["respond"],
};
const DEFAULT_DELAY_MS = { latency: "1000", timeout: "30000" };
/** A rate_limit always carries Retry-After; a server_error only when one is given. */
const DEFAULT_RETRY_AFTER = { rate_limit: "default 1", server_error: "none" };
const RELOAD_PAUSE_MS = 250;

/** The rate limit's fields and their bounds (RateLimitSettings in openapi/admin.yaml), checked before sending. */
const RATE_LIMIT_FIELDS = [
  {
    id: "rate-limit-requests",
    key: "requests",
    min: 1,
    max: 1_000_000,
    whole: true,
    required: true,
    words: "Requests must be a whole number from 1 to 1,000,000.",
  },
  {
    id: "rate-limit-per-seconds",
    key: "per_seconds",
    min: 0.001,
    max: 86_400,
    whole: false,
    required: true,
    words: "Per must be a number of seconds from 0.001 (a millisecond) to 86,400 (a day).",
  },
  {
    id: "rate-limit-burst",
    key: "burst",
    min: 1,
    max: 1_000_000,
    whole: true,
    required: false,
    words: "Burst must be a whole number from 1 to 1,000,000, or left empty.",
  },
];

/**
 * On each submit of `form`: what `read` makes of its fields, handed to `act`; a field `read`
 * refuses (it throws) is explained in `errorElement` instead, and nothing is sent.
 */
function onReadSubmit(form, errorElement, read, act) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorElement.textContent = "";
    let value;
    try {
      value = read();
    } catch (error) {
      errorElement.textContent = error.message;
      return;
    }
    await act(value);
  });
}

export function createFaultsView() {
  const table = byId("fault-list");
  const rowsBody = byId("fault-rows");
  const emptyState = byId("fault-empty");
  const listError = byId("fault-error-list");
  const removeAllButton = byId("fault-remove-all");
  const form = byId("fault-form");
  const formError = byId("fault-form-error");
  const kindField = byId("fault-kind");
  const shapeRadios = { a: byId("shape-a"), b: byId("shape-b") };
  const settingsSummary = byId("settings-summary");
  const strictData = byId("strict-data");
  const rateLimitForm = byId("rate-limit-form");
  const rateLimitEnabled = byId("rate-limit-enabled");
  const rateLimitError = byId("rate-limit-error");

  let loadSequence = 0;
  let reloadTimer;

  // ---- the rules -------------------------------------------------------------------------

  async function reloadRules() {
    const sequence = ++loadSequence;
    try {
      const { faults } = await listFaults();
      if (sequence !== loadSequence) return;
      listError.textContent = "";
      // A rule's `times` counts down: redraw a row when anything in it changed.
      syncList(rowsBody, faults, { key: (rule) => rule.id, version: JSON.stringify, render: (rule) => ruleRow(rule, removeRule) });
      table.hidden = faults.length === 0;
      emptyState.hidden = faults.length > 0;
      removeAllButton.disabled = faults.length === 0;
    } catch (error) {
      if (sequence === loadSequence) listError.textContent = `Cannot load the fault rules: ${errorText(error)}`;
    }
  }

  async function removeRule(rule) {
    try {
      await removeFault(rule.id);
      notify(`Removed the ${rule.fault} rule.`);
    } catch (error) {
      // 404: it ran out of `times` meanwhile; the reload shows the truth either way.
      if (error?.status !== 404) notify(`Cannot remove the rule: ${errorText(error)}`, "error");
    }
    await reloadRules();
    // The removed row took the focus with it: keep the keyboard user in the list.
    if (!table.contains(document.activeElement)) {
      (rowsBody.querySelector("button") ?? byId("fault-kind")).focus();
    }
  }

  removeAllButton.addEventListener("click", async () => {
    try {
      await clearFaults();
      notify("Removed every fault rule.");
    } catch (error) {
      notify(`Cannot remove the rules: ${errorText(error)}`, "error");
    }
    await reloadRules();
  });

  // ---- the form --------------------------------------------------------------------------

  function showFieldsForKind() {
    const kind = kindField.value;
    for (const [id, kinds] of Object.entries(KIND_SPECIFIC_FIELDS)) {
      const control = byId(id);
      const applies = kinds.includes(kind);
      // Disabled as well as hidden, so a value typed for another kind is never sent.
      control.disabled = !applies;
      control.closest(".form-field").hidden = !applies;
    }
    byId("fault-delay-ms").placeholder = `default ${DEFAULT_DELAY_MS[kind] ?? "1000"}`;
    byId("fault-retry-after-s").placeholder = DEFAULT_RETRY_AFTER[kind] ?? "default 1";
  }
  kindField.addEventListener("change", showFieldsForKind);
  showFieldsForKind();

  /** The rule to post, with only the filled fields; throws an Error naming a bad field. */
  function ruleFromForm() {
    const rule = { fault: kindField.value };
    const match = {};
    for (const [id, key] of [
      ["fault-match-to", "to"],
      ["fault-match-template-id", "template_id"],
      ["fault-match-api-key", "api_key"],
    ]) {
      const value = byId(id).value.trim();
      if (value !== "") match[key] = value;
    }
    if (Object.keys(match).length > 0) rule.match = match;

    for (const [id, key, label] of [
      ["fault-times", "times", "Times"],
      ["fault-probability", "probability", "Probability"],
      ["fault-status", "status", "Status"],
      ["fault-respond-status", "status", "Status"],
      ["fault-delay-ms", "delay_ms", "Delay"],
      ["fault-retry-after-s", "retry_after_s", "Retry-After"],
    ]) {
      const control = byId(id);
      if (control.disabled) continue;
      // A number field reads "" for text it cannot parse: say so rather than drop it.
      if (control.validity?.badInput) throw new Error(`${label} must be a number.`);
      if (control.value.trim() !== "") rule[key] = Number(control.value);
    }
    if (rule.fault === "respond") addRespondFields(rule);
    return rule;
  }

  onReadSubmit(form, formError, ruleFromForm, async (rule) => {
    const submit = byId("fault-submit");
    submit.disabled = true;
    try {
      const added = await addFault(rule);
      notify(`Added a ${added.fault} rule.`);
      // Start the next rule from the same kind, with the other fields cleared.
      const kind = kindField.value;
      form.reset();
      kindField.value = kind;
      showFieldsForKind();
      await reloadRules();
    } catch (error) {
      // The API's own message names the field at fault (400 invalid_request).
      formError.textContent = errorText(error);
    } finally {
      submit.disabled = false;
    }
  });

  // ---- settings ----------------------------------------------------------------------------

  // True while the rate-limit form holds edits not yet applied: settings that arrive meanwhile
  // (the response to the strict-data switch, the view's reload) must not put the saved rate limit
  // back over what is being typed. That race disabled the fields under a user's (and a test's)
  // hands when the strict-data response came late.
  let rateLimitEdited = false;
  for (const type of ["input", "change"]) rateLimitForm.addEventListener(type, () => (rateLimitEdited = true));

  function showConfig(config) {
    shapeRadios.a.checked = config.response_shape === "a";
    shapeRadios.b.checked = config.response_shape === "b";
    strictData.checked = config.strict_data;
    if (!rateLimitEdited) {
      rateLimitEnabled.checked = config.rate_limit !== null;
      for (const field of RATE_LIMIT_FIELDS) {
        const value = config.rate_limit?.[field.key];
        byId(field.id).value = value === undefined || value === null ? "" : String(value);
      }
      showRateLimitFields();
    }
    replaceContent(settingsSummary, settingsRows(config));
  }

  /**
   * Applies one change of settings. A switch that failed is set back by reloading the settings;
   * the rate-limit form, once saved, shows what was saved, and when it failed keeps what was
   * typed, so it can be corrected.
   */
  async function changeConfig(change, success, showError) {
    const fromRateLimitForm = Object.hasOwn(change, "rate_limit");
    try {
      const config = await updateConfig(change);
      if (fromRateLimitForm) rateLimitEdited = false;
      showConfig(config);
      notify(success);
    } catch (error) {
      showError(errorText(error));
      if (!fromRateLimitForm) await reloadConfig();
    }
  }

  function showRateLimitFields() {
    for (const field of RATE_LIMIT_FIELDS) byId(field.id).disabled = !rateLimitEnabled.checked;
  }
  rateLimitEnabled.addEventListener("change", showRateLimitFields);

  /** The rate_limit to send, or throws an Error that says in words which field is wrong and why. */
  function rateLimitFromForm() {
    if (!rateLimitEnabled.checked) return null;
    const limit = {};
    for (const field of RATE_LIMIT_FIELDS) {
      const control = byId(field.id);
      const text = control.value.trim();
      // A number field reads "" for text it cannot parse: that is a wrong value, not an empty one.
      if (text === "" && !control.validity.badInput) {
        if (field.required) throw new Error(field.words);
        continue;
      }
      const value = Number(text);
      if (text === "" || !Number.isFinite(value) || value < field.min || value > field.max || (field.whole && !Number.isInteger(value))) {
        throw new Error(field.words);
      }
      limit[field.key] = value;
    }
    return limit;
  }

  strictData.addEventListener("change", () => {
    const on = strictData.checked;
    void changeConfig({ strict_data: on }, on ? "Strict data is on: unknown data keys are refused." : "Strict data is off.", (reason) =>
      notify(`Cannot change strict data: ${reason}`, "error"),
    );
  });

  onReadSubmit(rateLimitForm, rateLimitError, rateLimitFromForm, async (limit) => {
    const success = limit === null ? "No rate limit now." : `Rate limit: ${limit.requests} per ${limit.per_seconds} s.`;
    await changeConfig({ rate_limit: limit }, success, (reason) => {
      rateLimitError.textContent = reason;
    });
  });

  async function reloadConfig() {
    try {
      showConfig(await getConfig());
    } catch (error) {
      replaceContent(settingsSummary, h("p", { class: "error-text" }, `Cannot load the settings: ${errorText(error)}`));
    }
  }

  for (const [shape, radio] of Object.entries(shapeRadios)) {
    radio.addEventListener("change", async () => {
      if (!radio.checked) return;
      await changeConfig({ response_shape: shape }, `POST /send now answers in shape ${shape}.`, (reason) =>
        notify(`Cannot change the response shape: ${reason}`, "error"),
      );
    });
  }

  return {
    /** Called when the view is shown, after a reset and when the token changes. */
    async reload() {
      // A view shown anew shows the saved settings, unless an edit starts before they arrive.
      rateLimitEdited = false;
      await Promise.all([reloadRules(), reloadConfig()]);
    },
    /** A `request` event: a rule may have counted down or run out. */
    requestRecorded(entry, { visible }) {
      if (entry.fault === null || !visible) return;
      clearTimeout(reloadTimer);
      reloadTimer = setTimeout(() => void reloadRules(), RELOAD_PAUSE_MS);
    },
  };
}

function ruleRow(rule, onRemove) {
  return h(
    "tr",
    { class: "fault-row", "data-testid": "fault-row", "data-id": rule.id },
    h("td", { "data-label": "Fault" }, h("span", { class: "badge badge-fault" }, rule.fault)),
    h("td", { "data-label": "Match" }, matchText(rule)),
    h("td", { class: "numeric", "data-label": "Times left" }, rule.times === null ? h("span", { title: "until removed" }, "∞") : String(rule.times)),
    h("td", { class: "numeric", "data-label": "Probability" }, `${Math.round(rule.probability * 1000) / 10}%`),
    h("td", { "data-label": "Parameters" }, parametersText(rule)),
    h("td", { "data-label": "Source" }, rule.source),
    h(
      "td",
      { class: "cell-actions" },
      h(
        "button",
        {
          type: "button",
          class: "button-small",
          "data-testid": "fault-remove",
          "aria-label": `Remove the ${rule.fault} rule ${rule.id}`,
          onclick: () => onRemove(rule),
        },
        "Remove",
      ),
    ),
  );
}

function matchText(rule) {
  const parts = [];
  if (rule.match.to !== null) parts.push(h("span", { class: "block" }, "to ", h("code", {}, rule.match.to)));
  if (rule.match.template_id !== null) parts.push(h("span", { class: "block" }, "template ", h("code", {}, rule.match.template_id)));
  if (rule.api_key_hint !== null) parts.push(h("span", { class: "block" }, "API key …", h("code", {}, rule.api_key_hint)));
  return parts.length > 0 ? parts : h("span", { class: "muted" }, "any send");
}

function parametersText(rule) {
  const parts = [];
  if (rule.status !== null) parts.push(`status ${rule.status}`);
  if (rule.delay_ms !== null) parts.push(`delay ${rule.delay_ms.toLocaleString()} ms`);
  if (rule.retry_after_s !== null) parts.push(`Retry-After ${rule.retry_after_s} s`);
  if (rule.fault === "respond") parts.push(...respondParameters(rule));
  return parts.length > 0 ? parts.join(", ") : "—";
}

function settingsRows(config) {
  const rateLimit = config.rate_limit
    ? `${config.rate_limit.requests} per ${config.rate_limit.per_seconds} s, burst ${config.rate_limit.burst ?? config.rate_limit.requests}`
    : "none";
  const rows = [
    ["Strict data", config.strict_data ? "on" : "off"],
    ["Rate limit", rateLimit],
    ["Outbox", `${config.captured_messages.toLocaleString()} of ${config.capacity.toLocaleString()} kept, ${config.dropped_messages.toLocaleString()} dropped`],
    ["API keys", config.api_keys === null ? "any non-empty key" : config.api_keys.map((hint) => `…${hint}`).join(", ")],
    ["Fault header", config.allow_fault_header ? "honoured" : "ignored"],
    ["Magic recipients", config.allow_magic_recipients ? "honoured" : "ignored"],
    ["Seed", config.seed === null ? "random" : String(config.seed)],
    ["Admin token", config.admin_token_set ? "required" : "not set"],
  ];
  return h(
    "dl",
    { class: "fields" },
    rows.map(([name, value]) => h("div", { class: "field" }, h("dt", {}, name), h("dd", {}, value))),
  );
}
