// The mock's clock on the Messages view: the time of the sandbox shown and how far it is ahead of
// real time, moved forward by a step, by a number of milliseconds, or to a time; what falls due
// happens at once, and the list and timeline follow from the event stream.

import { PAGE_SANDBOX, advanceClock, getClock } from "../api.js";
import { byId } from "../dom.js";
import { errorText } from "../notice.js";

/** The API's limit on one move (ClockAdvance in openapi/admin.yaml): a year. */
const MAX_ADVANCE_MS = 31_536_000_000;
const TICK_MS = 1_000;
/** Lifecycle events mean the clock moved, perhaps from elsewhere: read it again, once for a burst. */
const REREAD_PAUSE_MS = 250;

const clockTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** "3 h 20 min", "1 day 2 h", "45 s": how far the clock is ahead. */
function aheadText(ms) {
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return `${days} ${days === 1 ? "day" : "days"} ${hours % 24} h`;
}

/** `date` as a datetime-local input's value (local time, to the second). */
function localInputValue(date) {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

export function createClockView() {
  const nowElement = byId("clock-now");
  const offsetElement = byId("clock-offset");
  const error = byId("clock-error");
  const setField = byId("clock-set-at");
  const msField = byId("clock-advance-ms");

  // The mock's time minus this browser's, from the last reading: the shown time runs on from it.
  let skewMs = null;
  let offsetMs = 0;
  let rereadTimer;

  const mockNow = () => new Date(Date.now() + skewMs);

  function tick() {
    if (skewMs === null) return;
    const now = mockNow();
    nowElement.textContent = clockTime.format(now);
    nowElement.dateTime = now.toISOString();
  }

  function show(clock) {
    skewMs = Date.parse(clock.now) - Date.now();
    offsetMs = clock.offset_ms;
    offsetElement.textContent = offsetMs === 0 ? "on real time" : `${aheadText(offsetMs)} ahead of real time`;
    offsetElement.dataset.offsetMs = String(offsetMs);
    tick();
  }
  setInterval(tick, TICK_MS);

  async function reload() {
    try {
      show(await getClock());
      error.textContent = "";
    } catch (failure) {
      error.textContent = `Cannot read the clock: ${errorText(failure)}`;
    }
  }

  async function advance(ms) {
    error.textContent = "";
    try {
      show(await advanceClock(ms));
    } catch (failure) {
      // The API's own words: past a year, past the last time a clock can show.
      error.textContent = `Cannot move the clock: ${errorText(failure)}`;
    }
  }

  for (const button of document.querySelectorAll("[data-advance-ms]")) {
    button.addEventListener("click", () => void advance(Number(button.dataset.advanceMs)));
  }

  byId("clock-advance-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const ms = Number(msField.value);
    if (msField.value.trim() === "" || !Number.isInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
      error.textContent = "Advance by a whole number of milliseconds, from 0 to 31,536,000,000 (a year).";
      return;
    }
    void advance(ms);
  });

  byId("clock-set-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const target = Date.parse(setField.value);
    if (Number.isNaN(target)) {
      error.textContent = "Set to: give a date and a time.";
      return;
    }
    // The API only moves the clock forward: setting it is advancing it by the difference.
    const difference = Math.round(target - mockNow().getTime());
    if (difference < 0) {
      error.textContent = `The mock's clock only moves forward: pick a time after ${clockTime.format(mockNow())}.`;
      return;
    }
    void advance(difference);
  });

  // Opening the set form starts it at the clock's time, to be moved on from there.
  byId("clock-more").addEventListener("toggle", (event) => {
    if (event.target.open && skewMs !== null && setField.value === "") setField.value = localInputValue(mockNow());
  });

  byId("clock-scope").textContent =
    PAGE_SANDBOX === null ? "The default sandbox's clock; moving it moves every sandbox's." : `The clock of the sandbox ${PAGE_SANDBOX}.`;

  return {
    reload,
    /** A lifecycle event: the clock has moved, here or elsewhere. */
    clockMoved() {
      clearTimeout(rereadTimer);
      rereadTimer = setTimeout(() => void reload(), REREAD_PAUSE_MS);
    },
  };
}
