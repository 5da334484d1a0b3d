// The Requests view's filters: status (a class such as 4xx, or exact), error code, fault and a
// text search, applied in the page to the journal entries it holds; the choices offered are the
// ones those entries have.

import { byId, h, replaceContent } from "../dom.js";

/** Status classes, always offered; exact statuses follow, as the journal holds them. */
const STATUS_CLASSES = [
  { value: "2xx", label: "2xx (accepted)" },
  { value: "4xx", label: "4xx (refused)" },
  { value: "5xx", label: "5xx (server error)" },
  { value: "none", label: "No answer" },
];
/** The fault choice for "any fault at all". */
const ANY_FAULT = "*";

// What a search looks in, lowercased once per entry: bodies can be 64 KB each.
const searchTexts = new WeakMap();

/** The text search looks in the recipient, template, error code and message, message id and request body. */
function searchTextOf(entry) {
  let text = searchTexts.get(entry);
  if (text === undefined) {
    const fields = [entry.to, entry.template_id, entry.error_code, entry.error_message, entry.message_id, entry.request?.body];
    text = fields
      .filter((field) => typeof field === "string")
      .join("\n")
      .toLowerCase();
    searchTexts.set(entry, text);
  }
  return text;
}

function matchesStatus(status, wanted) {
  if (wanted === "") return true;
  if (wanted === "none") return status === 0;
  if (wanted.endsWith("xx")) return Math.floor(status / 100) === Number(wanted[0]);
  return status === Number(wanted);
}

/**
 * Wires the form; `onChange()` is called whenever a filter changes. Returns `matches(entry)`,
 * `active()` and `offerChoicesFrom(entries)`, which fills the selects from what is held.
 */
export function createRequestFilters({ onChange }) {
  const form = byId("request-filters");
  const fields = {
    q: byId("request-q"),
    status: byId("request-status"),
    errorCode: byId("request-error-code"),
    fault: byId("request-fault"),
  };

  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("input", onChange);
  byId("request-filters-clear").addEventListener("click", () => {
    form.reset();
    onChange();
  });

  /** Refills `select` with `first`, then `choices`, keeping the current choice even when no entry has it any more. */
  function offer(select, first, choices) {
    const current = select.value;
    const values = choices.map((choice) => choice.value);
    if (current !== "" && !values.includes(current) && ![...first].some((option) => option.value === current)) {
      choices.push({ value: current, label: current });
    }
    replaceContent(
      select,
      first.map(({ value, label }) => h("option", { value }, label)),
      choices.map(({ value, label }) => h("option", { value }, label)),
    );
    select.value = current;
  }

  const sorted = (values) => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The choices last offered: a select is refilled only when they change, so one the user has
  // open does not close under them at each new request.
  let offered = "";

  return {
    matches(entry) {
      const q = fields.q.value.trim().toLowerCase();
      if (!matchesStatus(entry.status, fields.status.value)) return false;
      if (fields.errorCode.value !== "" && entry.error_code !== fields.errorCode.value) return false;
      const fault = fields.fault.value;
      if (fault === ANY_FAULT ? entry.fault === null : fault !== "" && entry.fault !== fault) return false;
      return q === "" || searchTextOf(entry).includes(q);
    },

    active() {
      return Object.values(fields).some((field) => field.value.trim() !== "");
    },

    offerChoicesFrom(entries) {
      const statuses = sorted(entries.map((entry) => entry.status).filter((status) => status !== 0));
      const codes = sorted(entries.map((entry) => entry.error_code).filter((code) => code !== null));
      const faults = sorted(entries.map((entry) => entry.fault).filter((fault) => fault !== null));
      const choices = JSON.stringify([statuses, codes, faults]);
      if (choices === offered) return;
      offered = choices;
      offer(
        fields.status,
        [{ value: "", label: "Any status" }, ...STATUS_CLASSES],
        statuses.map((status) => ({ value: String(status), label: String(status) })),
      );
      offer(
        fields.errorCode,
        [{ value: "", label: "Any error code" }],
        codes.map((code) => ({ value: code, label: code })),
      );
      offer(
        fields.fault,
        [
          { value: "", label: "With or without a fault" },
          { value: ANY_FAULT, label: "Any fault" },
        ],
        faults.map((fault) => ({ value: fault, label: fault })),
      );
    },
  };
}
