"""Helpers of the client's tests: sending as an app does, watching processes end, running a pytest of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

API_KEY = "test-key-1234"
# The shipped templates' placeholders (fixtures/templates/welcome.yaml, password-reset.yaml).
WELCOME_DATA = {"name": "Ada", "company": "Acme", "login_url": "https://app.example.com/login"}
RESET_DATA = {"name": "Ada", "company": "Acme", "token": "t-1", "expires_in": "30 minutes"}


def send(base_url: str, to: str, template_id: str = "welcome", data: Optional[Dict[str, Any]] = None, headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, Any]]:
    """POST {base_url}/send as an app would; the status and the parsed answer, errors included."""
    body = json.dumps({"to": to, "template_id": template_id, "data": WELCOME_DATA if data is None else data}).encode()
    request = urllib.request.Request(
        base_url + "/send",
        data=body,
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json", **(headers or {})},
        method="POST",
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as answer:
        return answer.code, json.loads(answer.read() or b"{}")


def process_gone(pid: int) -> bool:
    """No process has this pid any more (a zombie nobody reaped counts as gone: it runs nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def wait_until_gone(pid: int, timeout: float = 10.0) -> bool:
    """Waits for the process to end; True when it did within `timeout` s."""
    deadline = time.monotonic() + timeout
    while not process_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def run_pytest(args: List[str], cwd: Path, env_changes: Dict[str, Optional[str]], timeout: float = 60.0) -> Tuple[int, str]:
    """Runs `python -m pytest ARGS` in a fresh process (this interpreter, so the installed plugin), output joined."""
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    # The outer run's xdist worker id must not leak into a run without xdist.
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=str(cwd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout
