"""A sandbox handle against a real server: outbox, waits and their near misses, faults, outcomes, clock, journal, reset, forget."""

from __future__ import annotations

import json
import threading
import time
from typing import Iterator

import pytest

from helpers import RESET_DATA, send
from sendmock import Sandbox, SendMock, SendMockError, WaitTimeout


@pytest.fixture
def other_sandbox(sendmock_server: SendMock, sendmock: Sandbox) -> Iterator[Sandbox]:
    """A second sandbox on the same server, as another test or worker would have."""
    box = sendmock_server.sandbox(sendmock.name + "-other")
    yield box
    box.forget()


def test_sends_to_the_sandbox_url_land_in_that_sandbox_only(sendmock, other_sandbox):
    assert send(sendmock.url, "ada@example.com")[0] == 200
    assert send(sendmock.url, "grace@example.com")[0] == 200
    assert send(other_sandbox.url, "ada@example.com")[0] == 200

    mine = sendmock.outbox.list()
    assert [m["to"] for m in mine] == ["grace@example.com", "ada@example.com"]  # newest first
    assert {m["sandbox"] for m in mine} == {sendmock.name}
    assert len(sendmock.outbox.list(to="ada@example.com")) == 1
    assert len(sendmock.outbox.list(limit=1)) == 1
    assert len(other_sandbox.outbox.list()) == 1


def test_the_header_and_the_address_also_send_into_the_sandbox(sendmock_server, sendmock):
    assert send(sendmock_server.url, "ada@example.com", headers=sendmock.headers)[0] == 200
    assert send(sendmock_server.url, sendmock.address("grace"))[0] == 200

    assert sorted(m["to"] for m in sendmock.outbox.list()) == ["ada@example.com", sendmock.address("grace")]


def test_wait_for_returns_the_message_as_soon_as_it_is_captured(sendmock):
    sender = threading.Thread(target=send, args=(sendmock.url, "ada@example.com"))
    started = time.monotonic()
    sender.start()

    message = sendmock.outbox.wait_for(to="ada@example.com", template_id="welcome", timeout=5)
    sender.join()
    assert message["subject"] == "Welcome to Acme, Ada!"
    assert message["data"] == {"name": "Ada", "company": "Acme", "login_url": "https://app.example.com/login"}
    assert time.monotonic() - started < 4


def test_wait_timeout_names_the_message_in_another_sandbox(sendmock, other_sandbox):
    assert send(other_sandbox.url, "ada@example.com")[0] == 200  # the app sent to another sandbox
    started = time.monotonic()

    with pytest.raises(WaitTimeout) as timeout:
        sendmock.outbox.wait_for(to="ada@example.com", timeout=0.5)
    assert time.monotonic() - started >= 0.5
    assert isinstance(timeout.value, SendMockError)
    lines = str(timeout.value).splitlines()
    # The server's words, as every client and the library say them.
    assert lines[0] == f"no message with to=ada@example.com in sandbox {json.dumps(sendmock.name)} within 500 ms (0 captured there)"
    assert f"1 match is in sandbox {json.dumps(other_sandbox.name)}: did the app send another sandbox's header or base URL?" in lines
    [miss] = timeout.value.near_misses
    assert miss["kind"] == "other_sandbox" and miss["sandbox"] == other_sandbox.name
    assert miss["description"].startswith(f"in sandbox {json.dumps(other_sandbox.name)}: msg_")
    assert f"  - {miss['description']}" in lines


def test_wait_timeout_names_another_template_and_the_closest_recipients(sendmock):
    assert send(sendmock.url, "ada@example.com", template_id="password-reset", data=RESET_DATA)[0] == 200
    assert send(sendmock.url, "ada@exmaple.com")[0] == 200
    assert send(sendmock.url, "zed@elsewhere.org")[0] == 200

    with pytest.raises(WaitTimeout) as timeout:
        sendmock.outbox.wait_for(to="ada@example.com", template_id="welcome", timeout=0.2)
    assert [(miss["kind"], miss["description"].split(": ")[0]) for miss in timeout.value.near_misses] == [
        ("same_recipient", 'same recipient, template_id "password-reset" (waited for "welcome")'),
        ("close_recipient", "close recipient ada@exmaple.com"),
        ("close_recipient", "close recipient zed@elsewhere.org"),
    ]


def test_wait_timeout_names_a_refused_send(sendmock):
    assert send(sendmock.url, "ada@example.com", template_id="wellcome")[0] == 422

    with pytest.raises(WaitTimeout) as timeout:
        sendmock.outbox.wait_for(to="ada@example.com", timeout=0)
    [miss] = timeout.value.near_misses
    assert miss["kind"] == "refused"
    assert miss["description"].startswith("refused here: 422 invalid_template_id to=ada@example.com template_id=wellcome: ")


def test_a_fault_rule_makes_the_next_send_fail_with_its_status(sendmock, other_sandbox):
    rule = sendmock.faults.add(fault="server_error", status=503, times=1)
    assert rule["fault"] == "server_error" and rule["id"]
    assert [r["id"] for r in sendmock.faults.list()] == [rule["id"]]

    assert send(other_sandbox.url, "ada@example.com")[0] == 200  # another sandbox is not touched
    assert send(sendmock.url, "ada@example.com")[0] == 503
    assert send(sendmock.url, "ada@example.com")[0] == 200  # times=1: used up
    assert len(sendmock.outbox.list()) == 1
    assert sendmock.faults.list() == []


def test_an_outcome_rule_and_the_clock_move_the_status(sendmock):
    rule = sendmock.outcomes.add(outcome="bounced", times=1)
    assert rule["outcome"] == "bounced"
    assert send(sendmock.url, "ada@example.com")[0] == 200
    assert sendmock.outbox.list()[0]["status"] == "queued"

    assert sendmock.clock.advance(1000)["offset_ms"] == 1000
    assert sendmock.outbox.list()[0]["status"] == "sent"
    assert sendmock.clock.advance(1000)["offset_ms"] == 2000
    message = sendmock.outbox.list()[0]
    assert message["status"] == "bounced"
    assert [event["type"] for event in message["events"]] == ["message.sent", "message.bounced"]
    assert sendmock.outbox.wait_for(to="ada@example.com", status="bounced", timeout=1)["id"] == message["id"]


def test_requests_lists_the_journal_newest_first(sendmock):
    send(sendmock.url, "ada@example.com")
    send(sendmock.url, "ada@example.com", template_id="wellcome")

    journal = sendmock.requests()
    assert [(entry["status"], entry["error_code"]) for entry in journal] == [(422, "invalid_template_id"), (200, None)]
    assert len(sendmock.requests(limit=1)) == 1


def test_reset_empties_the_sandbox_and_removes_its_rules(sendmock):
    send(sendmock.url, "ada@example.com")
    sendmock.faults.add(fault="rate_limit")
    sendmock.clock.advance(5000)

    sendmock.reset()

    assert sendmock.outbox.list() == []
    assert sendmock.requests() == []
    assert sendmock.faults.list() == []
    assert sendmock.clock.now()["offset_ms"] == 0


def test_a_4xx_is_a_sendmock_error_in_the_servers_words(sendmock):
    with pytest.raises(SendMockError) as failure:
        sendmock.clock.advance(-1)
    assert failure.value.status == 400
    assert failure.value.code == "invalid_request"
    assert failure.value.server_message == "Invalid request: advance_ms must be at least 0"
    assert str(failure.value) == (
        "Invalid request: advance_ms must be at least 0 "
        f"(sendmock answered 400 invalid_request to POST /_mock/clock?sandbox={sendmock.name})"
    )

    with pytest.raises(SendMockError) as unknown:
        sendmock.faults.add(fault="flood")
    assert unknown.value.status == 400
    assert "fault must be one of" in str(unknown.value)

    with pytest.raises(SendMockError) as missing:
        sendmock.outbox.get("msg_nope")
    assert missing.value.status == 404


@pytest.fixture(scope="module")
def small_mock(server_bin: str) -> Iterator[SendMock]:
    """A server that allows three sandboxes at once."""
    with SendMock.start(max_sandboxes=3) as mock:
        yield mock


def test_forget_releases_the_name_so_max_sandboxes_is_never_met(small_mock):
    for number in range(10):
        box = small_mock.sandbox(f"test-{number}")
        assert send(box.url, "ada@example.com")[0] == 200
        assert len(box.outbox.list()) == 1
        box.forget()
    assert small_mock.outbox.list() == []  # forgetting emptied them too


def test_without_forget_a_fourth_sandbox_is_refused(small_mock):
    kept = [small_mock.sandbox(f"kept-{number}") for number in range(3)]
    try:
        for box in kept:
            box.faults.add(fault="latency", delay_ms=1)  # a change claims the name; a read would not
        with pytest.raises(SendMockError) as refused:
            small_mock.sandbox("kept-3").faults.add(fault="latency", delay_ms=1)
        assert refused.value.status == 400
        assert "max_sandboxes" in str(refused.value)
    finally:
        for box in kept:
            box.forget()
