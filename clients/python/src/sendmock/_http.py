"""The HTTP calls to sendmock's inspection API (`/_mock`), turning every failed answer into a SendMockError."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional

from .errors import SendMockError

# A mock is reached directly: an HTTP_PROXY meant for the internet must not swallow calls to 127.0.0.1.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

DEFAULT_CALL_TIMEOUT_S = 10.0


class AdminApi:
    """Calls to one sendmock's `/_mock` API, with its admin token when it has one."""

    def __init__(self, base_url: str, admin_token: Optional[str] = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.admin_token = admin_token

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[Any] = None,
        timeout: float = DEFAULT_CALL_TIMEOUT_S,
    ) -> Any:
        """Makes the call and returns its parsed JSON answer (None for an empty one, such as a 204)."""
        target = path + _query_string(query)
        headers: Dict[str, str] = {"Accept": "application/json"}
        if self.admin_token is not None:
            headers["Authorization"] = f"Bearer {self.admin_token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base_url + target, data=data, headers=headers, method=method)
        try:
            with _OPENER.open(request, timeout=timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as answer:
            raise _error_of_answer(answer, method, target) from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as failure:
            reason = getattr(failure, "reason", failure)
            raise SendMockError(f"cannot reach sendmock at {self.base_url} ({method} {target}): {reason}") from None
        if not raw:
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            raise SendMockError(
                f"sendmock at {self.base_url} answered {method} {target} with a body that is not JSON: {_excerpt(raw)}"
            ) from None


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    """The query string of the parameters that have a value; booleans written as the server reads them."""
    if not query:
        return ""
    pairs = []
    for key, value in query.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        pairs.append((key, str(value)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _error_of_answer(answer: urllib.error.HTTPError, method: str, target: str) -> SendMockError:
    """A SendMockError led by the server's own message, with its status and error code as attributes."""
    status = answer.code
    try:
        raw = answer.read()
    except OSError:
        raw = b""
    finally:
        answer.close()
    code: Optional[str] = answer.headers.get("X-Sendmock-Error-Code") if answer.headers else None
    words: Optional[str] = None
    try:
        parsed = json.loads(raw.decode("utf-8"))
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict):
            # The /_mock envelope: {"success": false, "error": {"code", "message"}}.
            code = str(error.get("code", code)) if error.get("code") is not None else code
            words = str(error["message"]) if error.get("message") is not None else None
        elif isinstance(parsed.get("message"), str):
            words = parsed["message"]
    if words is None:
        words = _excerpt(raw) or answer.reason or "no message"
    where = f"sendmock answered {status}{' ' + code if code else ''} to {method} {target}"
    return SendMockError(f"{words} ({where})", status=status, code=code, server_message=words)


def _excerpt(raw: bytes, limit: int = 300) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "…"
