// Turns wire values into short, readable text (times, statuses, data values).

import { h } from "./dom.js";

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const dayAndTime = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const dayOnly = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const fullDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
// The journal is read to debug timing (latency faults, retries), so it keeps milliseconds.
const preciseTime = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 3,
});

function parse(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

function isToday(date) {
  return date.toDateString() === new Date().toDateString();
}

/** A `<time>` element: short local text, the exact ISO value in `datetime` and the tooltip. */
function timeElement(iso, text) {
  return h("time", { datetime: iso, title: iso }, text);
}

/** For lists: the time of day when it is today, else the day and the time. */
export function shortTime(iso) {
  const date = parse(iso);
  if (!date) return h("span", {}, String(iso));
  return timeElement(iso, isToday(date) ? timeOfDay.format(date) : dayAndTime.format(date));
}

/** For a detail view: the full local date and time. */
export function longTime(iso) {
  const date = parse(iso);
  if (!date) return h("span", {}, String(iso));
  return timeElement(iso, fullDateTime.format(date));
}

/** For the journal: the time of day with milliseconds (and the day when it is not today). */
export function preciseTimeOf(iso) {
  const date = parse(iso);
  if (!date) return h("span", {}, String(iso));
  const clock = preciseTime.format(date);
  return timeElement(iso, isToday(date) ? clock : `${dayOnly.format(date)}, ${clock}`);
}

// How each delivery status reads at a glance; an unknown one (a newer server) looks neutral.
const STATUS_TONES = {
  queued: "info",
  sent: "info",
  deferred: "warn",
  delivered: "ok",
  opened: "ok",
  clicked: "ok",
  bounced: "bad",
  complained: "bad",
};

/** A message's delivery status as a coloured badge. */
export function statusBadge(status) {
  const tone = STATUS_TONES[status] ?? "info";
  return h("span", { class: `badge badge-status tone-${tone}`, "data-testid": "message-status", "data-status": status }, status);
}

/** The CSS class for an HTTP status: 2xx, 3xx, 4xx, 5xx, or 0 when no response was sent. */
export function statusClass(status) {
  if (status === 0) return "status-none";
  const family = Math.floor(status / 100);
  return family >= 2 && family <= 5 ? `status-${family}xx` : "status-other";
}

/** A template data value as the template renders it: arrays joined with ", ". */
export function dataValueText(value) {
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** A list of addresses, or an em dash when there is none. */
export function addressList(addresses) {
  return addresses.length > 0 ? addresses.join(", ") : "—";
}

/** Milliseconds, rounded for reading ("1.3 ms", "2,004 ms"). */
export function durationText(ms) {
  const rounded = ms < 10 ? Math.round(ms * 10) / 10 : Math.round(ms);
  return `${rounded.toLocaleString()} ms`;
}

/** How long after `startIso` `iso` is, for a timeline: "+800 ms", "+2 s", "+1.5 s", "+3 min 20 s", "+2 h 5 min". */
export function offsetText(startIso, iso) {
  const ms = Date.parse(iso) - Date.parse(startIso);
  if (!Number.isFinite(ms)) return "";
  const sign = ms < 0 ? "−" : "+";
  const size = Math.abs(ms);
  if (size < 1_000) return `${sign}${Math.round(size)} ms`;
  const seconds = size / 1_000;
  if (seconds < 60) return `${sign}${Math.round(seconds * 10) / 10} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${sign}${minutes} min ${Math.floor(seconds % 60)} s`;
  return `${sign}${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "12 of 340". */
export function countText(shown, total) {
  return `${shown.toLocaleString()} of ${total.toLocaleString()}`;
}

/**
 * A template's description as nodes: each `backticked` part as code, the rest as text (a
 * description is written by whoever wrote the template file, so nothing in it is markup). A
 * backtick without its pair stays a character.
 */
export function withInlineCode(text) {
  const nodes = [];
  let rest = 0;
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    nodes.push(text.slice(rest, match.index), h("code", {}, match[1]));
    rest = match.index + match[0].length;
  }
  nodes.push(text.slice(rest));
  return nodes.filter((node) => node !== "");
}
