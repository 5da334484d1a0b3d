// Folds the event stream's `event` events ({message_id, status, event}) into the messages the
// page already holds, so a status and a timeline move on without refetching the message.

/**
 * Appends `event` to `message.events` and takes its `status`, unless the message holds that
 * event already (a list loaded while the event was on its way may include it). Returns whether
 * the message changed.
 *
 * Events only ever grow at the end (at most `lifecycle.max_events`), so an event not held yet is
 * newer than every one held: the timeline stays oldest first and the status is the latest.
 * Two events are the same when every field is: lifecycle steps never share a time, and two
 * identical events added by hand in the same millisecond would look the same on the wire too.
 */
export function applyEvent(message, { status, event }) {
  if (message.events.some((known) => sameEvent(known, event))) return false;
  message.events.push(event);
  message.status = status;
  return true;
}

function sameEvent(a, b) {
  return a.type === b.type && a.at === b.at && a.bounce_type === b.bounce_type && a.link === b.link;
}
