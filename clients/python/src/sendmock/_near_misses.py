"""What a wait that ran out reports: the messages that came closest to what it waited for, one short line each."""

from __future__ import annotations

import difflib
from typing import Any, Callable, Dict, List, Mapping, Optional

# Reads one page of `GET /_mock/messages` (or `/_mock/requests`) with these query parameters, scoped or not.
Lister = Callable[[Mapping[str, Any], bool], List[Dict[str, Any]]]

_SHOWN_PER_KIND = 3


def describe_wanted(criteria: Mapping[str, Any]) -> str:
    given = [f"{key}={value!r}" for key, value in criteria.items() if value is not None]
    return "message with " + " ".join(given) if given else "message at all"


def near_misses(
    criteria: Mapping[str, Any],
    sandbox: Optional[str],
    list_messages: Lister,
    list_requests: Lister,
) -> List[str]:
    """Lines naming what was captured instead: elsewhere, to the same recipient, to similar recipients."""
    lines: List[str] = []
    to = criteria.get("to")
    template_id = criteria.get("template_id")

    if sandbox is not None:
        # The app forgot its sandbox: the message is there, in another one (or in the default one).
        elsewhere = [m for m in list_messages(dict(criteria, limit=20), False) if m.get("sandbox") != sandbox]
        for message in elsewhere[:_SHOWN_PER_KIND]:
            where = f"sandbox {message['sandbox']!r}" if message.get("sandbox") else "the default sandbox"
            lines.append(f"in {where}, not this one (did the app send without this sandbox?): {_summary(message)}")

    here = list_messages({"limit": 100}, True)
    if to is not None:
        same_recipient = [m for m in here if _same_address(m.get("to"), to)]
        if template_id is not None:
            for message in [m for m in same_recipient if m.get("template_id") != template_id][:_SHOWN_PER_KIND]:
                lines.append(f"same recipient, another template: {_summary(message)}")
        elif same_recipient:
            for message in same_recipient[:_SHOWN_PER_KIND]:
                lines.append(f"same recipient, not matching the rest: {_summary(message)}")
        others = sorted({str(m.get("to")) for m in here if not _same_address(m.get("to"), to)})
        closest = difflib.get_close_matches(str(to), others, n=_SHOWN_PER_KIND, cutoff=0.0)
        if closest:
            lines.append("closest recipients here: " + ", ".join(closest))
    elif here:
        for message in here[:_SHOWN_PER_KIND]:
            lines.append(f"captured here: {_summary(message)}")

    if not here:
        refused = [entry for entry in list_requests({"limit": 20}, True) if int(entry.get("status") or 0) >= 300]
        for entry in refused[:_SHOWN_PER_KIND]:
            lines.append(
                f"refused here: {entry.get('status')} {entry.get('error_code') or entry.get('fault') or ''}"
                f" to={entry.get('to')!r} template_id={entry.get('template_id')!r}: {entry.get('error_message') or ''}".rstrip(": ")
            )
        if not refused:
            lines.append("nothing was captured in this scope, and no send to it was refused")
    return lines


def _same_address(one: Any, other: Any) -> bool:
    return isinstance(one, str) and isinstance(other, str) and one.lower() == other.lower()


def _summary(message: Mapping[str, Any]) -> str:
    return f"to={message.get('to')!r} template_id={message.get('template_id')!r} subject={message.get('subject')!r}"
