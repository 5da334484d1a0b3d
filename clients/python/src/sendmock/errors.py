"""The errors the sendmock client raises: one type for every failure, one subtype for a wait that ran out."""

from __future__ import annotations

from typing import List, Optional, Sequence


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
    """A wait for a message that ran out; `near_misses` says what was captured instead, one line each."""

    def __init__(self, message: str, near_misses: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.near_misses: List[str] = list(near_misses)
