"""A user's tests of the sign-up email, using only the `sendmock` fixture: each test sees exactly its own sends."""

import pytest

from signup import send_welcome

RECIPIENTS = ["ada@example.com", "grace@example.com", "alan@example.com", "edsger@example.com", "barbara@example.com", "donald@example.com"]


@pytest.mark.parametrize("to", RECIPIENTS)
def test_sign_up_sends_exactly_one_welcome_email(sendmock, to):
    assert send_welcome(sendmock.url, to) == 200

    messages = sendmock.outbox.list()
    assert len(messages) == 1
    assert messages[0]["to"] == to
    assert messages[0]["subject"] == "Welcome to Acme, Ada!"


def test_two_sign_ups_two_emails(sendmock):
    assert send_welcome(sendmock.url, "first@example.com") == 200
    assert send_welcome(sendmock.url, "second@example.com") == 200

    assert len(sendmock.outbox.list()) == 2
    assert len(sendmock.outbox.list(to="second@example.com")) == 1


def test_wait_for_the_email(sendmock):
    send_welcome(sendmock.url, "ada@example.com")

    email = sendmock.outbox.wait_for(to="ada@example.com", template_id="welcome", timeout=5)
    assert email["links"] == ["https://app.example.com/login"]


def test_provider_outage_sends_nothing(sendmock):
    sendmock.faults.add(fault="server_error", status=503, times=1)

    assert send_welcome(sendmock.url, "ada@example.com") == 503
    assert sendmock.outbox.list() == []
    assert [entry["status"] for entry in sendmock.requests()] == [503]
