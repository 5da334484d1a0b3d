"""The errors the sendmock client raises: one type for every failure, one subtype for a wait that ran out."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence


class SendMockError(Exception):
    """Anything that went wrong talking to or starting sendmock, in the server's own words where it gave some.

    `status` and `code` are the HTTP status and the error code of the server's answer
    (`{"success": false, "error": {"code", "message"}}`), `server_message` its message;
    all three are None when the failure happened before an answer (a start, a connection).
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        server_message: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.server_message = server_message

    def __str__(self) -> str:
        return self.message


class WaitTimeout(SendMockError):
    """A wait for a message that ran out, in the server's words; `near_misses` is what came closest, as the server gives it.

    Each near miss is a dict: `kind` (other_sandbox, same_recipient, close_recipient, captured, refused), `description`
    (one line), and `message_id`, `sandbox` or `request_id` where they apply.
    """

    def __init__(self, message: str, near_misses: Sequence[Dict[str, Any]] = ()) -> None:
        super().__init__(message)
        self.near_misses: List[Dict[str, Any]] = [dict(miss) for miss in near_misses]
