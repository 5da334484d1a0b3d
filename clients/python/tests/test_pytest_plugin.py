"""The pytest plugin as a user meets it: the example project under xdist, a shared server, crashes that leave nothing running."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import process_gone, run_pytest, send, wait_until_gone
from sendmock import SendMock

EXAMPLE_PROJECT = Path(__file__).resolve().parent / "example_project"
EXAMPLE_TESTS = 9


def final_line(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def test_example_project_passes_under_xdist_with_a_server_per_worker(server_bin):
    code, output = run_pytest(["-n", "2", "-p", "no:cacheprovider"], EXAMPLE_PROJECT, {"SENDMOCK_URL": None})

    assert code == 0, output
    assert re.fullmatch(rf"=+ {EXAMPLE_TESTS} passed in [\d.]+s( \([\d:]+\))? =+", final_line(output)), output


def test_example_project_shares_one_server_through_sendmock_url_and_forgets_its_sandboxes(server_bin):
    with SendMock.start() as shared:
        code, output = run_pytest(["-n", "2", "-p", "no:cacheprovider"], EXAMPLE_PROJECT, {"SENDMOCK_URL": shared.url})

        assert code == 0, output
        assert re.fullmatch(rf"=+ {EXAMPLE_TESTS} passed in [\d.]+s( \([\d:]+\))? =+", final_line(output)), output
        # Both workers sent into one server; every test's sandbox was forgotten after it.
        assert shared.sandboxes() == []
        assert shared.outbox.list() == []


def test_sendmock_url_option_uses_the_running_server(pytester, sendmock_server):
    pytester.makepyfile(
        test_uses_url="""
        def test_it(sendmock, sendmock_server):
            assert sendmock_server.url == %r
            assert sendmock_server.pid is None
            assert sendmock.name.startswith("py-")
        """
        % sendmock_server.url
    )
    result = pytester.runpytest("--sendmock-url", sendmock_server.url, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_session_server_stops_when_the_session_ends_after_a_failing_test(server_bin, tmp_path):
    pid_file = tmp_path / "pid"
    (tmp_path / "test_fails.py").write_text(
        "def test_fails(sendmock_server, sendmock):\n"
        f"    open({str(pid_file)!r}, 'w').write(str(sendmock_server.pid))\n"
        "    raise RuntimeError('the test crashed')\n"
        "def test_passes(sendmock):\n"
        "    assert sendmock.outbox.list() == []\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")

    code, output = run_pytest(["-p", "no:cacheprovider", "test_fails.py"], tmp_path, {"SENDMOCK_URL": None})

    assert code == 1, output
    assert re.fullmatch(r"=+ 1 failed, 1 passed in [\d.]+s( \([\d:]+\))? =+", final_line(output)), output
    assert process_gone(int(pid_file.read_text()))  # stopped before the session process exited


def test_session_server_stops_when_the_pytest_process_dies(server_bin, tmp_path):
    pid_file = tmp_path / "pid"
    (tmp_path / "test_dies.py").write_text(
        "import os\n"
        "def test_dies(sendmock_server):\n"
        f"    open({str(pid_file)!r}, 'w').write(str(sendmock_server.pid))\n"
        "    os._exit(7)  # no teardown, no atexit: only the server's own watch on its parent is left\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")

    code, output = run_pytest(["-p", "no:cacheprovider", "test_dies.py"], tmp_path, {"SENDMOCK_URL": None})

    assert code == 7, output
    assert wait_until_gone(int(pid_file.read_text()), timeout=10), "the server outlived the pytest that started it"


@pytest.mark.parametrize("counter", range(3))
def test_each_test_gets_a_fresh_sandbox_of_its_own(sendmock, counter):
    assert sendmock.outbox.list() == []
    assert sendmock.requests() == []
    assert send(sendmock.url, "ada@example.com")[0] == 200  # left for the next test not to see
    assert re.fullmatch(r"py-(main|gw\d+)-\d+-[0-9a-f]{8}", sendmock.name)
