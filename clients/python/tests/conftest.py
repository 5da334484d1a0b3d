"""Shared setup of the client's tests: the sendmock executable they run, and skipping (or failing on CI) without one."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Optional, Tuple

import pytest

pytest_plugins = ["pytester"]

# The example project is a user's test suite: it is run on its own, by test_pytest_plugin.py, never collected here.
collect_ignore = ["example_project"]

REPO = Path(__file__).resolve().parents[3]
DIST_CLI = REPO / "dist" / "bin" / "sendmock.js"

_NEEDS_SERVER = {"sendmock", "sendmock_server", "server_bin"}
_unavailable_reason: Optional[str] = None
_wrapper_dir: Optional[str] = None


def _find_server() -> Tuple[Optional[str], str]:
    """SENDMOCK_BIN as given, else a wrapper running this repository's dist/bin/sendmock.js with node."""
    named = os.environ.get("SENDMOCK_BIN")
    if named:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named, ""
        return None, f"SENDMOCK_BIN={named!r} is not an executable file"
    node = shutil.which("node")
    if node is None or not DIST_CLI.is_file():
        return None, f"no sendmock: SENDMOCK_BIN is unset, and node or {DIST_CLI} (npm run build) is missing"
    global _wrapper_dir
    _wrapper_dir = tempfile.mkdtemp(prefix="sendmock-py-tests-")
    wrapper = Path(_wrapper_dir) / "sendmock"
    # exec: the wrapper's pid is node's, so the client's pid is the server's.
    wrapper.write_text(f'#!/bin/sh\nexec "{node}" "{DIST_CLI}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(wrapper), ""


def pytest_configure(config: pytest.Config) -> None:
    global _unavailable_reason
    server, reason = _find_server()
    if server is None:
        _unavailable_reason = reason
    else:
        # Set before any session server starts; xdist workers inherit it from the controller.
        os.environ["SENDMOCK_BIN"] = server


def pytest_unconfigure(config: pytest.Config) -> None:
    if _wrapper_dir is not None:
        shutil.rmtree(_wrapper_dir, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Without a server, tests that need one skip with the reason; on CI (CI=true) they run and fail instead."""
    if _unavailable_reason is None or os.environ.get("CI", "").lower() == "true":
        return
    skip = pytest.mark.skip(reason=f"sendmock server unavailable: {_unavailable_reason}")
    for item in items:
        if _NEEDS_SERVER & set(getattr(item, "fixturenames", ())):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def server_bin() -> str:
    """The sendmock executable the tests start (SENDMOCK_BIN); requesting it marks a test as needing one."""
    if _unavailable_reason is not None:
        pytest.fail(f"sendmock server unavailable: {_unavailable_reason}")
    return os.environ["SENDMOCK_BIN"]
