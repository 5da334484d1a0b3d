"""Starting and stopping a `sendmock serve` process: finding the executable, passing settings, reading its URL."""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any, Callable, Deque, Dict, List, Mapping, Optional, Set, Tuple

from .errors import SendMockError

DEFAULT_START_TIMEOUT_S = 30.0
# sendmock finishes in-flight requests on SIGTERM for at most shutdown_grace_ms (5 s by default).
STOP_GRACE_S = 10.0
STOP_WITH_PARENT = "--stop-with-parent"

# The banner's first line: "sendmock listening on http://127.0.0.1:NNNNN".
_LISTENING = re.compile(r"listening on (https?://\S+)")
# Settings passed as flags rather than in the config file: flags win over the SENDMOCK_* environment.
_FLAG_SETTINGS = ("port", "host", "templates")
_OUTPUT_LINES_KEPT = 40

# Commands whose sendmock predates --stop-with-parent: asked once, then started without it.
_without_stop_with_parent: Set[Tuple[str, ...]] = set()


def find_command() -> List[str]:
    """The command that runs sendmock: $SENDMOCK_BIN, else `sendmock` on PATH, else `npx sendmock`."""
    named = os.environ.get("SENDMOCK_BIN")
    if named:
        if not os.path.exists(named):
            raise SendMockError(f"SENDMOCK_BIN names {named!r}, which does not exist")
        if os.path.isdir(named) or not os.access(named, os.X_OK):
            raise SendMockError(f"SENDMOCK_BIN names {named!r}, which is not an executable file")
        return [named]
    on_path = shutil.which("sendmock")
    if on_path:
        return [on_path]
    npx = shutil.which("npx")
    if npx:
        return [npx, "sendmock"]
    raise SendMockError(
        "cannot find sendmock: set SENDMOCK_BIN to its executable, put `sendmock` on PATH, or install Node.js for `npx sendmock`"
    )


class ServerProcess:
    """One running `sendmock serve`, in a process group of its own so that stopping it stops everything it spawned."""

    def __init__(self, settings: Mapping[str, Any], start_timeout: float = DEFAULT_START_TIMEOUT_S) -> None:
        self.url = ""
        self._process: Optional["subprocess.Popen[str]"] = None
        self._pid: Optional[int] = None
        self._readers: List[threading.Thread] = []
        self._stdout_tail: Deque[str] = collections.deque(maxlen=_OUTPUT_LINES_KEPT)
        self._stderr_tail: Deque[str] = collections.deque(maxlen=_OUTPUT_LINES_KEPT)
        self._config_dir: Optional[str] = None
        command = find_command()
        use_stop_with_parent = tuple(command) not in _without_stop_with_parent
        try:
            arguments = self._arguments(settings)
            try:
                self._launch(command, arguments, use_stop_with_parent, start_timeout)
            except _UnknownStopWithParent:
                # An older sendmock: the process group, the parent-death signal and atexit still stop it.
                _without_stop_with_parent.add(tuple(command))
                self._launch(command, arguments, False, start_timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> Optional[int]:
        """The server's process id (kept after it stopped, to check that it is gone)."""
        return self._pid

    def output(self) -> str:
        """The last lines the server printed (stdout, then stderr): for a failure's explanation."""
        return "\n".join(list(self._stdout_tail) + list(self._stderr_tail))

    def stop(self) -> None:
        """Stops the server and removes its settings file; idempotent, and never leaves a process behind."""
        self._stop_process()
        if self._config_dir is not None:
            shutil.rmtree(self._config_dir, ignore_errors=True)
            self._config_dir = None

    def _stop_process(self) -> None:
        """SIGTERM to the group, SIGKILL past the grace period, then the pipes and their readers."""
        process, self._process = self._process, None  # forgotten at once: a reaped pid may be reused
        if process is not None:
            if process.poll() is None:
                _signal_group(process, signal.SIGTERM)
                try:
                    process.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    _signal_group(process, _KILL)
                    process.wait()
            # Whatever the leader left in its group (a wrapper's child that ignored SIGTERM) goes too.
            _signal_group(process, _KILL)
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        for reader in self._readers:
            reader.join(timeout=2.0)
        self._readers = []

    def _arguments(self, settings: Mapping[str, Any]) -> List[str]:
        flags = ["serve", "--port", str(settings.get("port", 0)), "--host", str(settings.get("host", "127.0.0.1"))]
        if settings.get("templates") is not None:
            flags += ["--templates", os.path.abspath(os.fspath(settings["templates"]))]
        in_file: Dict[str, Any] = {
            key: _json_value(value) for key, value in settings.items() if key not in _FLAG_SETTINGS and value is not None
        }
        if in_file:
            # A file carries every config key (nested ones included) the same way; flags exist for a few only.
            self._config_dir = tempfile.mkdtemp(prefix="sendmock-py-")
            config_file = os.path.join(self._config_dir, "settings.json")
            with open(config_file, "w", encoding="utf-8") as file:
                json.dump(in_file, file)
            flags += ["--config", config_file]
        return flags

    def _launch(self, command: List[str], arguments: List[str], stop_with_parent: bool, timeout: float) -> None:
        full = command + arguments + ([STOP_WITH_PARENT] if stop_with_parent else [])
        self._stdout_tail.clear()
        self._stderr_tail.clear()
        found = threading.Event()
        found_url: List[str] = []
        try:
            self._process = subprocess.Popen(
                full,
                # Held open and never written: a server watching its stdin sees it close when this process dies.
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                **_own_group_options(),
            )
        except OSError as failure:
            raise SendMockError(f"cannot run {' '.join(command)}: {failure.strerror or failure}") from None
        self._pid = self._process.pid

        def on_stdout(line: str) -> None:
            if not found_url:
                match = _LISTENING.search(line)
                if match:
                    found_url.append(match.group(1).rstrip("/"))
                    found.set()

        assert self._process.stdout is not None and self._process.stderr is not None
        self._readers = [
            _drain(self._process.stdout, self._stdout_tail, on_stdout, found.set),
            _drain(self._process.stderr, self._stderr_tail, None, None),
        ]
        deadline = time.monotonic() + timeout
        # The reader sets `found` at the URL or at the end of stdout; the poll covers a process that exits
        # while something it spawned still holds its stdout open.
        while not found.wait(timeout=max(0.0, min(0.25, deadline - time.monotonic()))):
            if self._process.poll() is not None or time.monotonic() >= deadline:
                break
        if found_url:
            self.url = found_url[0]
            return
        shown = " ".join(full)
        if self._process.poll() is None and not _wait_exit(self._process, 0.5):
            self._stop_process()
            printed = self.output().strip() or "nothing"
            raise SendMockError(
                f"sendmock printed no URL within {timeout:g} s (start_timeout), so it was stopped; it printed: {printed}"
                f"\n  command: {shown}"
            )
        code = self._process.returncode
        self._stop_process()  # the readers have the last words once the group is gone
        words = "\n".join(line for line in self._stderr_tail if line.strip()) or self.output()
        if stop_with_parent and STOP_WITH_PARENT in words and "unknown option" in words.lower():
            raise _UnknownStopWithParent()
        if self._config_dir is not None and self._config_dir in words:
            shown += "\n  (its config file holds the settings given to SendMock.start)"
        said = words.strip() or "it printed nothing"
        raise SendMockError(f"sendmock exited with code {code} while starting: {said}\n  command: {shown}")


class _UnknownStopWithParent(Exception):
    """The server refused --stop-with-parent as an unknown option: it is older than that flag."""


_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)


def _wait_exit(process: "subprocess.Popen[str]", seconds: float) -> bool:
    try:
        process.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def _drain(
    stream: IO[str],
    tail: Deque[str],
    on_line: Optional[Callable[[str], None]],
    on_end: Optional[Callable[[], None]],
) -> threading.Thread:
    """Reads a pipe to its end in the background, so that a server's log never fills it, keeping the last lines."""

    def run() -> None:
        try:
            for line in stream:
                line = line.rstrip("\r\n")
                tail.append(line)
                if on_line is not None:
                    on_line(line)
        except (OSError, ValueError):
            pass  # the pipe was closed by stop()
        finally:
            if on_end is not None:
                on_end()

    reader = threading.Thread(target=run, name="sendmock-output", daemon=True)
    reader.start()
    return reader


def _own_group_options() -> Dict[str, Any]:
    """Popen options that put the server in a group of its own and, on Linux, stop it when this process dies."""
    if os.name != "posix":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    options: Dict[str, Any] = {"start_new_session": True}
    parent_death = _parent_death_signal()
    if parent_death is not None:
        options["preexec_fn"] = parent_death
    return options


def _parent_death_signal() -> Optional[Callable[[], None]]:
    """On Linux, from the main thread: the kernel sends SIGTERM to the server when this process dies, even by
    SIGKILL or os._exit, when neither atexit nor a server too old for --stop-with-parent would stop it.

    The signal follows the thread that started the child, so it is used from the main thread only: a worker
    thread's end would otherwise stop a server that is still in use.
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def in_child() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM))
        if os.getppid() != parent:  # the parent died before the signal was armed
            os.kill(os.getpid(), signal.SIGTERM)

    return in_child


def _signal_group(process: "subprocess.Popen[str]", signum: int) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signum)
        elif process.poll() is None:
            process.terminate()
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already


def _json_value(value: Any) -> Any:
    """A setting as JSON holds it: paths as strings, tuples and sets as lists."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (tuple, set, frozenset)):
        return [_json_value(item) for item in value]
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    return value
