"""The "app" of the example project: it sends a welcome email through the send API at the base URL it is given."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

API_KEY = "test-key-1234"


def send_welcome(base_url: str, to: str) -> int:
    """Sends the welcome email to `to`; the HTTP status the send API answered."""
    body = {
        "to": to,
        "template_id": "welcome",
        "data": {"name": "Ada", "company": "Acme", "login_url": "https://app.example.com/login"},
    }
    request = urllib.request.Request(
        base_url + "/send",
        data=json.dumps(body).encode("utf-8"),
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
        method="POST",
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as answer:
        return answer.code
