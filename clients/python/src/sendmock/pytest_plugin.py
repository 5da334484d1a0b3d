"""The pytest plugin: one sendmock per session (or a running one), and a sandbox of its own for every test."""

from __future__ import annotations

import itertools
import os
import secrets
from typing import Any, Dict, Iterator, Optional

import pytest

from .client import Sandbox, SendMock

_URL_OPTION = "sendmock_url"
_sandbox_numbers = itertools.count(1)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sendmock", "sendmock: a mock of the transactional-email send API")
    group.addoption(
        "--sendmock-url",
        dest=_URL_OPTION,
        default=None,
        help="use the sendmock running at this URL instead of starting one (default: $SENDMOCK_URL, else the ini value)",
    )
    parser.addini(_URL_OPTION, "URL of a running sendmock to use instead of starting one", default="")


def _running_url(config: pytest.Config) -> Optional[str]:
    """The URL of a sendmock to use: --sendmock-url, else $SENDMOCK_URL, else the ini's `sendmock_url`."""
    given = config.getoption(_URL_OPTION) or os.environ.get("SENDMOCK_URL") or config.getini(_URL_OPTION)
    return str(given) if given else None


@pytest.fixture(scope="session")
def sendmock_settings() -> Dict[str, Any]:
    """The settings of the server the session starts (`SendMock.start(**settings)`); override it in a conftest.py."""
    return {}


@pytest.fixture(scope="session")
def sendmock_server(request: pytest.FixtureRequest, sendmock_settings: Dict[str, Any]) -> Iterator[SendMock]:
    """The session's sendmock: the running one named by --sendmock-url / $SENDMOCK_URL, else one started for it.

    Under pytest-xdist every worker process is a session of its own, so each starts its own server;
    point them all at one with SENDMOCK_URL to share one (the sandboxes keep them apart).
    """
    url = _running_url(request.config)
    if url is not None:
        mock = SendMock.connect(url, admin_token=os.environ.get("SENDMOCK_ADMIN_TOKEN") or None)
    else:
        mock = SendMock.start(**sendmock_settings)
    try:
        yield mock
    finally:
        # A crashed process is covered too: the server stops with its parent (--stop-with-parent).
        mock.close()


@pytest.fixture
def sendmock(sendmock_server: SendMock) -> Iterator[Sandbox]:
    """A sandbox of the session's sendmock for this test alone, forgotten after it.

    Send to `sendmock.url + "/send"` and read `sendmock.outbox.list()`: no other test, and no other
    xdist worker, sees what this one sends; forgetting the sandbox keeps `max_sandboxes` from filling up.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    # The random part keeps two sessions sharing one server (two CI jobs, say) apart as well.
    box = sendmock_server.sandbox(f"py-{worker}-{next(_sandbox_numbers)}-{secrets.token_hex(4)}")
    yield box
    box.forget()
