"""The sendmock client: start or connect to a server, and read and steer it, whole or one sandbox at a time."""

from __future__ import annotations

import atexit
import datetime
import math
import re
import time
import urllib.parse
from typing import Any, Dict, List, Mapping, Optional, Tuple, Type

from ._http import DEFAULT_CALL_TIMEOUT_S, AdminApi
from ._server import DEFAULT_START_TIMEOUT_S, ServerProcess
from .errors import SendMockError, WaitTimeout

# The server's rule for a sandbox name (docs/sandboxes.md), checked here to fail before any call.
_SANDBOX_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# The longest single long-poll the server allows: a wait up to it is one call, whose words the timeout repeats.
_WAIT_CHUNK_MS = 60_000
# The recipient domain that names a sandbox, for apps the test can only give an address to.
_SANDBOX_DOMAIN = "sandbox.sendmock.test"


def _address_problem(name: str) -> Optional[Tuple[str, str]]:
    """Why no address can name the sandbox `name`, and how to name it so; None when one can.

    An address's domain is parts of letters, digits and "-" between dots, none empty and none starting
    or ending with "-" (the server's rule, docs/sandboxes.md).
    """
    if "_" in name:
        return 'an address\'s domain allows no "_"', 'name the sandbox without "_"'
    parts = name.split(".")
    if "" in parts:
        return 'an address\'s domain has no empty part: no "." at either end, and none two in a row', "name the sandbox so"
    if any(part.startswith("-") or part.endswith("-") for part in parts):
        return 'each part of an address\'s domain between dots starts and ends with a letter or a digit, not "-"', "name the sandbox so"
    return None


class _Scope:
    """The API calls of one sandbox (`name`), or of the whole mock (None: reads see every sandbox)."""

    def __init__(self, api: AdminApi, sandbox: Optional[str]) -> None:
        self.api = api
        self.sandbox = sandbox

    def call(self, method: str, path: str, *, query: Optional[Dict[str, Any]] = None, body: Any = None, timeout: float = DEFAULT_CALL_TIMEOUT_S) -> Any:
        scoped = dict(query or {})
        if self.sandbox is not None:
            scoped["sandbox"] = self.sandbox
        return self.api.call(method, path, query=scoped, body=body, timeout=timeout)


class Outbox:
    """The captured messages of a scope: each one a dict as `GET /_mock/messages` gives it."""

    def __init__(self, scope: _Scope) -> None:
        self._scope = scope

    def list(
        self,
        *,
        to: Optional[str] = None,
        recipient: Optional[str] = None,
        template_id: Optional[str] = None,
        subject: Optional[str] = None,
        since: Optional[Any] = None,
        limit: Optional[int] = None,
        status: Optional[str] = None,
        q: Optional[str] = None,
    ) -> List[Dict[str, Any]]:
        """The matching messages, newest first (at most `limit`, the server's default 100)."""
        query = {
            "to": to,
            "recipient": recipient,
            "template_id": template_id,
            "subject": subject,
            "since": _iso_time(since),
            "limit": limit,
            "status": status,
            "q": q,
        }
        return list(self._scope.call("GET", "/_mock/messages", query=query)["messages"])

    def get(self, message_id: str) -> Dict[str, Any]:
        """One message by id (`latest` is the newest)."""
        return dict(self._scope.call("GET", f"/_mock/messages/{_path_part(message_id)}"))

    def clear(self) -> None:
        """Deletes every captured message of the scope."""
        self._scope.call("DELETE", "/_mock/messages")

    def wait_for(
        self,
        to: Optional[str] = None,
        template_id: Optional[str] = None,
        subject: Optional[str] = None,
        timeout: float = 5.0,
        *,
        status: Optional[str] = None,
    ) -> Dict[str, Any]:
        """The newest message that matches, as soon as it is captured; WaitTimeout naming near misses after `timeout` s.

        The server holds each call until a match arrives (`wait_ms`), so nothing here sleeps or polls.
        """
        criteria = {"to": to, "template_id": template_id, "subject": subject, "status": status}
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            # Rounded up: the first call asks for the whole timeout, as the caller wrote it.
            remaining_ms = math.ceil((deadline - time.monotonic()) * 1000)
            # At least 1 ms: a wait that ends asks the server for its words, near misses and all (wait_ms 0 only lists).
            wait_ms = max(1, min(_WAIT_CHUNK_MS, remaining_ms))
            page = self._scope.call(
                "GET",
                "/_mock/messages",
                query=dict(criteria, limit=1, wait_ms=wait_ms),
                timeout=DEFAULT_CALL_TIMEOUT_S + wait_ms / 1000,
            )
            if page["messages"]:
                return dict(page["messages"][0])
            if remaining_ms <= wait_ms:
                timed_out = page.get("timed_out") or {}
                raise WaitTimeout(
                    str(timed_out.get("message") or f"no message matching {criteria!r} within {timeout:g} s"),
                    list(timed_out.get("near_misses") or []),
                )


class _Rules:
    """Fault or outcome rules of a scope, tried in the order they were added."""

    _path = ""

    def __init__(self, scope: _Scope) -> None:
        self._scope = scope

    def add(self, **rule: Any) -> Dict[str, Any]:
        """Adds a rule (the JSON the API takes, as keyword arguments) and returns it as created, with its `id`."""
        return dict(self._scope.call("POST", self._path, body=rule))

    def list(self) -> List[Dict[str, Any]]:
        answer = self._scope.call("GET", self._path)
        # The list comes under the resource's name: {"faults": [...]} or {"outcomes": [...]}.
        return list(answer[self._path.rsplit("/", 1)[-1]]) if isinstance(answer, dict) else list(answer)

    def remove(self, rule_id: str) -> None:
        self._scope.call("DELETE", f"{self._path}/{_path_part(rule_id)}")

    def clear(self) -> None:
        self._scope.call("DELETE", self._path)


class Faults(_Rules):
    """Fault rules: `faults.add(fault="server_error", status=503, times=1)` makes the next send fail so."""

    _path = "/_mock/faults"


class Outcomes(_Rules):
    """Outcome rules: `outcomes.add(outcome="bounced")` decides what happens to the next captured message."""

    _path = "/_mock/outcomes"


class Clock:
    """The mock's clock, which lifecycle steps, webhook retries and rate-limit refill follow."""

    def __init__(self, scope: _Scope) -> None:
        self._scope = scope

    def now(self) -> Dict[str, Any]:
        """`{"now": ISO time, "offset_ms": N}`."""
        return dict(self._scope.call("GET", "/_mock/clock"))

    def advance(self, ms: int) -> Dict[str, Any]:
        """Moves the clock forward `ms` milliseconds; what falls due has happened when this returns."""
        return dict(self._scope.call("POST", "/_mock/clock", body={"advance_ms": int(ms)}))


class _Handles:
    """What a sandbox and the whole mock share: outbox, faults, outcomes, clock, the journal and reset."""

    def __init__(self, scope: _Scope) -> None:
        self._scope = scope
        self.outbox = Outbox(scope)
        self.faults = Faults(scope)
        self.outcomes = Outcomes(scope)
        self.clock = Clock(scope)

    def requests(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The journal of requests to `/send`, newest first: what each client sent and what it got."""
        return list(self._scope.call("GET", "/_mock/requests", query={"limit": limit})["requests"])

    def reset(self) -> None:
        """Back to the start-up state: messages, journal, rules, webhooks and clock."""
        self._scope.call("POST", "/_mock/reset")


class Sandbox(_Handles):
    """One sandbox of a sendmock: what its tests send lands here, and nothing done here reaches another."""

    def __init__(self, api: AdminApi, mock_url: str, name: str) -> None:
        super().__init__(_Scope(api, name))
        self.name = name
        # A base URL of its own: an app configured with it sends into this sandbox, no header needed.
        self.url = f"{mock_url}/sandbox/{name}"
        # For a client that keeps the mock's base URL and can add a header instead.
        self.headers = {"X-Sendmock-Sandbox": name}

    def address(self, local_part: str) -> str:
        """An address that sends into this sandbox through any app: `local_part@NAME.sandbox.sendmock.test`.

        Raises SendMockError for a name no address can carry (with "_", or a part between dots that is
        empty or starts or ends with "-"): the server would refuse the address, so use `url` or `headers`.
        """
        problem = _address_problem(self.name)
        if problem is not None:
            why, rename = problem
            raise SendMockError(
                f"the sandbox {self.name!r} cannot be named by an address: {why}; send to its url ({self.url}) "
                f"or with its headers (X-Sendmock-Sandbox) instead, or {rename}"
            )
        return f"{local_part}@{self.name}.{_SANDBOX_DOMAIN}"

    def forget(self) -> None:
        """Empties the sandbox and releases its name, so that it no longer counts toward `max_sandboxes`."""
        self._scope.api.call("DELETE", f"/_mock/sandboxes/{self.name}")

    def __repr__(self) -> str:
        return f"Sandbox({self.name!r}, url={self.url!r})"


class SendMock(_Handles):
    """A sendmock server: started here (`SendMock.start`) or already running (`SendMock.connect`).

    Its `outbox`, `faults`, `outcomes`, `clock`, `requests()` and `reset()` act on every sandbox at once;
    `sandbox(name)` gives the same handles for one sandbox.
    """

    def __init__(self, url: str, admin_token: Optional[str] = None, *, _server: Optional[ServerProcess] = None) -> None:
        self.url = url.rstrip("/")
        self._api = AdminApi(self.url, admin_token)
        self._server = _server
        self._closed = False
        super().__init__(_Scope(self._api, None))
        if _server is not None:
            # A server this process started is stopped with it, also when nobody calls close().
            atexit.register(self.close)

    @classmethod
    def start(cls, *, start_timeout: float = DEFAULT_START_TIMEOUT_S, **settings: Any) -> "SendMock":
        """Starts `sendmock serve` on a free loopback port with these settings (the config file's keys).

        The executable is $SENDMOCK_BIN, else `sendmock` on PATH, else `npx sendmock`. A start that fails,
        exits or prints no URL within `start_timeout` seconds raises SendMockError with the server's own
        words, and leaves no process behind.
        """
        server = ServerProcess(settings, start_timeout)
        token = settings.get("admin_token")
        return cls(server.url, str(token) if token is not None else None, _server=server)

    @classmethod
    def connect(cls, url: str, admin_token: Optional[str] = None) -> "SendMock":
        """Uses a sendmock that is already running at `url` (checked with `GET /_mock/health`)."""
        mock = cls(url, admin_token)
        try:
            mock._api.call("GET", "/_mock/health")
        except SendMockError as failure:
            raise SendMockError(
                f"no usable sendmock at {mock.url}: {failure}", status=failure.status, code=failure.code, server_message=failure.server_message
            ) from None
        return mock

    @property
    def pid(self) -> Optional[int]:
        """The process id of a server started here (kept after close, to check it is gone); None when connected."""
        return self._server.pid if self._server is not None else None

    def sandbox(self, name: str) -> Sandbox:
        """A handle on the sandbox `name` (1 to 64 of letters, digits, `_`, `.`, `-`)."""
        if not isinstance(name, str) or not _SANDBOX_NAME.fullmatch(name):
            raise SendMockError(
                f"invalid sandbox name {name!r}: a sandbox name is 1 to 64 characters of letters, digits, '_', '.' and '-'"
            )
        return Sandbox(self._api, self.url, name)

    def sandboxes(self) -> List[str]:
        """The names of the sandboxes in use (claimed since the last reset and not forgotten), sorted."""
        return list(self._api.call("GET", "/_mock/sandboxes")["sandboxes"])

    def close(self) -> None:
        """Stops the server if this process started it; a connected one keeps running. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._server is not None:
            atexit.unregister(self.close)
            self._server.stop()

    def __enter__(self) -> "SendMock":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], traceback: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        how = f"pid {self.pid}" if self._server is not None else "connected"
        return f"SendMock({self.url!r}, {how})"


def _iso_time(value: Any) -> Optional[str]:
    """`since` as the server reads it: a string as given, a datetime as ISO 8601 (a naive one taken as UTC)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=datetime.timezone.utc)
        return aware.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    return str(value)


def _path_part(text: str) -> str:
    return urllib.parse.quote(str(text), safe="")
