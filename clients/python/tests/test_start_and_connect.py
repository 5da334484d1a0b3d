"""Starting, connecting to and stopping sendmock, and every way a start fails: one clear error, no process left."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from helpers import process_gone, send, wait_until_gone
from sendmock import SendMock, SendMockError


def health(url: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url + "/_mock/health", timeout=5) as response:
        return json.loads(response.read())


def test_start_serves_on_a_free_loopback_port_and_close_stops_it(server_bin):
    mock = SendMock.start()
    pid = mock.pid
    assert pid is not None and not process_gone(pid)
    assert mock.url.startswith("http://127.0.0.1:")
    assert health(mock.url) == {"ok": True}

    mock.close()

    assert process_gone(pid)
    mock.close()  # a second close is harmless


def test_context_manager_stops_the_server_also_when_the_block_raises(server_bin):
    with pytest.raises(RuntimeError):
        with SendMock.start(response_shape="b") as mock:
            pid = mock.pid
            status, answer = send(mock.url, "ada@example.com")
            assert (status, answer["status"]) == (200, "success")  # shape b, from the settings
            raise RuntimeError("the test failed")
    assert pid is not None and process_gone(pid)


def test_admin_token_setting_is_sent_on_every_call_and_connect_without_it_is_refused(server_bin):
    with SendMock.start(admin_token="s3cret-admin") as mock:
        box = mock.sandbox("tokened")
        assert send(box.url, "ada@example.com")[0] == 200
        assert len(box.outbox.list()) == 1

        with pytest.raises(SendMockError) as refused:
            SendMock.connect(mock.url)
        assert refused.value.status == 401
        assert mock.url in str(refused.value)

        with SendMock.connect(mock.url, admin_token="s3cret-admin") as connected:
            assert len(connected.sandbox("tokened").outbox.list()) == 1
        assert health_with_token(mock.url, "s3cret-admin") == {"ok": True}  # closing a connection stops nothing


def health_with_token(url: str, token: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url + "/_mock/health", headers={"Authorization": f"Bearer {token}"})
    with opener.open(request, timeout=5) as response:
        return json.loads(response.read())


def test_connect_uses_a_running_server_and_close_leaves_it_running(sendmock_server):
    with SendMock.connect(sendmock_server.url + "/") as connected:
        assert connected.url == sendmock_server.url
        assert connected.pid is None
        assert isinstance(connected.outbox.list(), list)
    assert health(sendmock_server.url) == {"ok": True}


def test_connect_to_nothing_names_the_url():
    with socket.socket() as placeholder:
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]
    url = f"http://127.0.0.1:{port}"  # closed again: nothing listens there

    with pytest.raises(SendMockError) as failure:
        SendMock.connect(url)
    assert f"no usable sendmock at {url}" in str(failure.value)


def test_sendmock_bin_that_does_not_exist_fails_at_once(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-sendmock"
    monkeypatch.setenv("SENDMOCK_BIN", str(missing))
    started = time.monotonic()

    with pytest.raises(SendMockError) as failure:
        SendMock.start()
    assert str(failure.value) == f"SENDMOCK_BIN names {str(missing)!r}, which does not exist"
    assert time.monotonic() - started < 1


def test_sendmock_bin_that_is_not_executable_fails_at_once(monkeypatch, tmp_path):
    not_executable = tmp_path / "sendmock"
    not_executable.write_text("#!/bin/sh\n")
    not_executable.chmod(0o644)
    monkeypatch.setenv("SENDMOCK_BIN", str(not_executable))

    with pytest.raises(SendMockError) as failure:
        SendMock.start()
    assert str(failure.value) == f"SENDMOCK_BIN names {str(not_executable)!r}, which is not an executable file"


def test_a_bad_setting_fails_with_the_servers_own_line(server_bin):
    with pytest.raises(SendMockError) as failure:
        SendMock.start(response_shape="z")
    message = str(failure.value)
    assert "sendmock exited with code 1 while starting" in message
    assert "response_shape must be a or b" in message


def test_a_server_that_never_prints_its_url_is_stopped_at_start_timeout(monkeypatch, tmp_path):
    pid_file = tmp_path / "pid"
    silent = tmp_path / "silent-sendmock"
    silent.write_text(f'#!/bin/sh\necho $$ > "{pid_file}"\nexec sleep 60\n')
    silent.chmod(0o755)
    monkeypatch.setenv("SENDMOCK_BIN", str(silent))
    started = time.monotonic()

    with pytest.raises(SendMockError) as failure:
        SendMock.start(start_timeout=1.0)
    took = time.monotonic() - started
    assert "sendmock printed no URL within 1 s (start_timeout), so it was stopped" in str(failure.value)
    assert 1.0 <= took < 4.0
    assert process_gone(int(pid_file.read_text()))


def test_a_port_in_use_fails_with_the_servers_words(server_bin):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        with pytest.raises(SendMockError) as failure:
            SendMock.start(port=port)
    assert "address is already in use" in str(failure.value)
    assert str(port) in str(failure.value)


def test_templates_setting_is_resolved_against_the_current_folder(server_bin, tmp_path, monkeypatch):
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "ping.yaml").write_text("subject: Ping {name}\ntext: Hello {name}\n")
    monkeypatch.chdir(tmp_path)

    with SendMock.start(templates="mail", strict_data=True) as mock:
        status, _ = send(mock.url, "ada@example.com", template_id="ping", data={"name": "Ada"})
        assert status == 200
        assert [m["subject"] for m in mock.outbox.list()] == ["Ping Ada"]
        assert send(mock.url, "ada@example.com", template_id="welcome")[0] == 422  # only that folder's templates


def test_a_started_server_is_stopped_at_interpreter_exit(server_bin, tmp_path):
    script = tmp_path / "forgets_close.py"
    script.write_text("from sendmock import SendMock\nprint(SendMock.start().pid, flush=True)\n")
    done = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, timeout=60, check=True)
    assert wait_until_gone(int(done.stdout.strip()))


def test_sandbox_handle_urls(sendmock_server):
    box = sendmock_server.sandbox("team.checkout-1")
    assert box.name == "team.checkout-1"
    assert box.url == f"{sendmock_server.url}/sandbox/team.checkout-1"
    assert box.address("ada") == "ada@team.checkout-1.sandbox.sendmock.test"
    assert box.headers == {"X-Sendmock-Sandbox": "team.checkout-1"}


@pytest.mark.parametrize("name", ["e2e_worker_1", "team..checkout", "checkout-"])
def test_a_sandbox_address_is_refused_for_a_name_no_address_can_carry(sendmock_server, name):
    box = sendmock_server.sandbox(name)
    with pytest.raises(SendMockError) as refused:
        box.address("ada")
    assert f"the sandbox {name!r} cannot be named by an address" in str(refused.value)
    assert f"{sendmock_server.url}/sandbox/{name}" in str(refused.value)


@pytest.mark.parametrize("name", ["", "has space", "slash/y", "x" * 65, "ümlaut"])
def test_invalid_sandbox_names_are_refused_before_any_call(name):
    mock = SendMock("http://127.0.0.1:9")  # nothing listens: the check must not need the server
    with pytest.raises(SendMockError) as failure:
        mock.sandbox(name)
    assert "a sandbox name is 1 to 64 characters of letters, digits, '_', '.' and '-'" in str(failure.value)


def test_a_server_older_than_stop_with_parent_is_started_without_it(server_bin, monkeypatch, tmp_path):
    older = tmp_path / "older-sendmock"
    older.write_text(
        "#!/bin/sh\n"
        'for argument in "$@"; do\n'
        '  if [ "$argument" = --stop-with-parent ]; then echo "error: unknown option \'--stop-with-parent\'" >&2; exit 1; fi\n'
        "done\n"
        f'exec "{server_bin}" "$@"\n'
    )
    older.chmod(0o755)
    monkeypatch.setenv("SENDMOCK_BIN", str(older))

    with SendMock.start() as mock:
        assert health(mock.url) == {"ok": True}
