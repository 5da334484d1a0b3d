# A stand-in for the REAL email send service, written from the provider's published spec (send-api-spec.md) alone, as the judge for `sendmock check` and `sendmock proxy` tests: one conforming service and four with one bug each.
#
# Usage:
#   /usr/bin/python3 test/support/send_service.py --variant VARIANT [--rate N] [--port PORT]
#
# VARIANT is one of: conforming, no-id-with-subject, 500-on-non-ascii-subject, wrong-404-body, data-optional.
# Listens on 127.0.0.1 (port 0: any free one), then prints one JSON line {"listening": PORT} to stdout; after that,
# one JSON line {"method", "path", "status", "body"} for every request it answers (printed just before the response
# is written). Exits on SIGTERM, SIGINT, or when its stdin closes (so a test that dies leaves no orphan).
#
# Standard library only; runs with Debian's /usr/bin/python3 (3.11).

import argparse
import json
import os
import re
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VARIANTS = ("conforming", "no-id-with-subject", "500-on-non-ascii-subject", "wrong-404-body", "data-optional")

# The spec states no body limit (section 8); 1 MB keeps a stray test from filling memory.
BODY_LIMIT = 1024 * 1024
# How much of a request body a stdout line carries.
LOGGED_BODY_CHARS = 4096
# The rolling window of the rate limit, in seconds.
RATE_WINDOW = 1.0
# The token this service's "dashboard" has revoked: a known key that may not send (403).
REFUSED_KEY = "refused-key"

# The spec says templates are made in the dashboard (section 2.2); these stand for what a test account would hold.
TEMPLATES = {
    "welcome": {"subject": "Welcome, {name}", "placeholders": ("name", "company")},
    "receipt": {"subject": "Your receipt {order}", "placeholders": ("order",)},
}

PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
BEARER = re.compile(r"Bearer +(\S+) *", re.IGNORECASE)
LABEL = re.compile(r"[A-Za-z0-9-]+")
TOP_LABEL = re.compile(r"[A-Za-z]{2,}")
WHITESPACE = re.compile(r"\s")


class Reply:
    """A response: status, JSON body (a dict) and extra headers."""

    def __init__(self, status, body, headers=None):
        self.status = status
        self.body = body
        self.headers = headers or {}


def error_a(status, code, message, headers=None):
    """Shape A error (spec section 7): {"success": false, "error": {"code", "message"}}."""
    return Reply(status, {"success": False, "error": {"code": code, "message": message}}, headers)


def error_b(status, message):
    """Shape B error (spec section 7): {"status": "error", "message"}, the "message only" kind."""
    return Reply(status, {"status": "error", "message": message})


def is_string_list(value):
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def is_email_address(value):
    """This service's own rule: one @, a local part without whitespace, a dotted domain of letter/digit/hyphen labels ending in a 2+ letter label."""
    parts = value.split("@")
    if len(parts) != 2:
        return False
    local, domain = parts
    if local == "" or WHITESPACE.search(local):
        return False
    labels = domain.split(".")
    if len(labels) < 2 or not all(LABEL.fullmatch(label) for label in labels):
        return False
    return TOP_LABEL.fullmatch(labels[-1]) is not None


def render(text, data):
    """{placeholder} replaced by its value: an array joined with ", ", a missing one empty."""

    def value_of(match):
        value = data.get(match.group(1))
        if value is None:
            return ""
        return ", ".join(value) if isinstance(value, list) else value

    return PLACEHOLDER.sub(value_of, text)


class RateLimiter:
    """Sliding log per API key: the arrival times of the requests let through; refused ones are not counted."""

    def __init__(self, limit, window):
        self.limit = limit
        self.window = window
        self.seen = {}
        self.lock = threading.Lock()

    def take(self, key, arrived):
        """True when the request may pass (and is counted), False when it is over the limit."""
        with self.lock:
            # Old entries go, with slack for a request whose body took long to arrive (its window ends at its arrival).
            now = time.monotonic()
            times = [t for t in self.seen.get(key, []) if now - t < self.window + 60]
            self.seen[key] = times
            if sum(1 for t in times if arrived - t < self.window) >= self.limit:
                return False
            times.append(arrived)
            return True


class Output:
    """One JSON line per event on stdout, whole and flushed; a closed stdout stops the service."""

    def __init__(self, stop):
        self.lock = threading.Lock()
        self.stop = stop

    def line(self, value):
        with self.lock:
            try:
                sys.stdout.write(json.dumps(value) + "\n")
                sys.stdout.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.stop.set()

    def flush(self):
        with self.lock:
            try:
                sys.stdout.flush()
            except (OSError, ValueError):
                pass


class BodyError(Exception):
    """The request's framing is broken (bad Content-Length or chunk): answer 400 and close the connection."""


def make_handler(variant, limiter, output):
    def handle_send(method, headers, raw, too_large, arrived):
        """POST /send after routing and reading, in order: auth, limit, method, size, type, parse, fields, template."""
        # Section 5 leaves the response to a missing or wrong key unstated: 401 for no usable Bearer token, 403 for a refused one.
        match = BEARER.fullmatch(headers.get("Authorization") or "")
        if match is None:
            return error_a(401, "unauthorized", "Missing or malformed Authorization header; expected 'Bearer <API_KEY>'")
        key = match.group(1)
        if key == REFUSED_KEY:
            return error_a(403, "forbidden", "This API key is not allowed to send email")

        if not limiter.take(key, arrived):
            message = "Rate limit exceeded: at most %d requests per second for this API key" % limiter.limit
            return error_a(429, "rate_limit_exceeded", message, {"Retry-After": "1"})

        if method != "POST":
            return error_a(405, "method_not_allowed", "Method %s is not allowed on /send; use POST" % method, {"Allow": "POST"})

        if too_large:
            return error_a(413, "payload_too_large", "Request body too large (limit 1 MB)")

        media_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return error_a(415, "unsupported_media_type", "Content-Type must be application/json")

        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return error_a(400, "bad_request", "Request body is not valid JSON")
        if not isinstance(payload, dict):
            return error_a(400, "bad_request", "Request body must be a JSON object")

        # Section 4.1 rule 1 and section 7 "Required data missing: message only": shape B. Only an absent member is missing; null is a wrong type.
        for field in ("to", "template_id", "data"):
            if field not in payload and not (field == "data" and variant == "data-optional"):
                return error_b(422, "%s is required" % field)

        to = payload["to"]
        template_id = payload["template_id"]
        data = payload["data"] if "data" in payload else {}
        cc = payload.get("cc")
        bcc = payload.get("bcc")
        reply_to = payload.get("reply_to")
        subject = payload.get("subject")

        def type_error(field, expected):
            return error_a(422, "validation_error", "%s must be %s" % (field, expected))

        if not isinstance(to, str):
            return type_error("to", "a string")
        if not isinstance(template_id, str):
            return type_error("template_id", "a string")
        if not isinstance(data, dict):
            return type_error("data", "an object")
        for name, value in data.items():
            if not isinstance(value, str) and not is_string_list(value):
                return type_error("data.%s" % name, "a string or an array of strings")
        if "cc" in payload and not is_string_list(cc):
            return type_error("cc", "an array of strings")
        if "bcc" in payload and not is_string_list(bcc):
            return type_error("bcc", "an array of strings")
        if "reply_to" in payload and not isinstance(reply_to, str):
            return type_error("reply_to", "a string")
        if "subject" in payload and not isinstance(subject, str):
            return type_error("subject", "a string")

        # Section 4.1 rule 3 names the code for `to`; the other addresses get the generic validation code.
        if not is_email_address(to):
            return error_a(422, "invalid_recipient", "Invalid recipient email address in 'to'")
        for field, addresses in (("cc", cc), ("bcc", bcc)):
            for index, address in enumerate(addresses or []):
                if not is_email_address(address):
                    return error_a(422, "validation_error", "%s[%d] is not a valid email address" % (field, index))
        if reply_to is not None and not is_email_address(reply_to):
            return error_a(422, "validation_error", "reply_to is not a valid email address")

        # Section 4.1 rule 2: a message that says the template ID is invalid; 404 is this service's pick of "a 4xx".
        template = TEMPLATES.get(template_id)
        if template is None:
            if variant == "wrong-404-body":
                return Reply(404, {"detail": "template not found"})
            return error_a(404, "template_not_found", "Invalid template ID: %s" % template_id)

        # Section 2.2: each key of data must equal a placeholder name.
        for name in data:
            if name not in template["placeholders"]:
                return error_a(422, "validation_error", "data.%s is not a placeholder of template %s" % (name, template_id))

        # Section 4.1 rule 4: a given subject replaces the default one as is (it is not itself rendered).
        rendered = subject if subject is not None else render(template["subject"], data)
        if variant == "500-on-non-ascii-subject" and any(ord(char) > 0x7F for char in rendered):
            return error_b(500, "Internal server error")

        # Response shape A (section 2.3), with 202: the message is queued, not yet sent.
        body = {"success": True, "message_id": str(uuid.uuid4()), "status": "queued"}
        if variant == "no-id-with-subject" and "subject" in payload:
            del body["message_id"]
        return Reply(202, body)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes; without this, Nagle and the client's delayed ACK add ~40 ms a response.
        disable_nagle_algorithm = True

        def version_string(self):
            return "SendService/1.0"

        def __getattr__(self, name):
            # Every method is answered (405 on /send, 404 elsewhere), not only those with a do_ method.
            if name.startswith("do_"):
                return self.answer
            raise AttributeError(name)

        def log_message(self, format, *args):
            pass

        def read_body(self):
            """The whole body read, and whether it was over BODY_LIMIT (then only its start is kept, the rest drained)."""
            kept = bytearray()
            too_large = False

            def take(chunk):
                nonlocal too_large
                if too_large:
                    return
                if len(kept) + len(chunk) > BODY_LIMIT:
                    too_large = True
                    # Only its start is kept, for the stdout line.
                    del kept[LOGGED_BODY_CHARS * 4 :]
                else:
                    kept.extend(chunk)

            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                while True:
                    size_line = self.rfile.readline(65537)
                    try:
                        size = int(size_line.split(b";")[0].strip(), 16)
                    except ValueError:
                        raise BodyError("bad chunk size")
                    if size < 0:
                        raise BodyError("bad chunk size")
                    if size == 0:
                        # Trailers up to the empty line.
                        while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    self.read_exactly(size, take)
                    self.rfile.readline(65537)
            else:
                length_header = self.headers.get("Content-Length")
                if length_header is not None:
                    try:
                        length = int(length_header)
                    except ValueError:
                        raise BodyError("bad Content-Length")
                    if length < 0:
                        raise BodyError("bad Content-Length")
                    self.read_exactly(length, take)
            return bytes(kept), too_large

        def read_exactly(self, length, take):
            while length > 0:
                chunk = self.rfile.read(min(length, 65536))
                if not chunk:
                    raise BodyError("body ended early")
                take(chunk)
                length -= len(chunk)

        def answer(self):
            arrived = time.monotonic()
            try:
                raw, too_large = self.read_body()
            except BodyError as error:
                self.close_connection = True
                self.respond(b"", error_a(400, "bad_request", "Malformed request body: %s" % error))
                return
            try:
                # The query string is not part of the route; only /send exists.
                if self.path.split("?")[0] != "/send":
                    reply = error_b(404, "Not found")
                else:
                    reply = handle_send(self.command, self.headers, raw, too_large, arrived)
            except Exception:
                # A crash in the handler is the service's failure, answered like section 7's server-side failure.
                reply = error_b(500, "Internal server error")
            self.respond(raw, reply)

        def respond(self, raw, reply):
            # Every body carries a request_id the spec never shows (sections 2.3 and 7 state no "only these members" rule).
            body = dict(reply.body)
            body["request_id"] = "req_" + uuid.uuid4().hex[:24]
            payload = json.dumps(body).encode("utf-8")
            # Printed before the response is written, so the line is out by the time the client has its response.
            output.line(
                {
                    "method": self.command,
                    "path": self.path,
                    "status": reply.status,
                    "body": raw.decode("utf-8", errors="replace")[:LOGGED_BODY_CHARS],
                }
            )
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


def main():
    parser = argparse.ArgumentParser(description="A stand-in for the real email send service, from its published spec.")
    parser.add_argument("--variant", required=True, choices=VARIANTS)
    parser.add_argument("--rate", type=int, default=5, help="requests let through per API key in any rolling second (default 5)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free one)")
    args = parser.parse_args()
    if args.rate < 1:
        parser.error("--rate must be at least 1")

    stdin_fd = sys.stdin.fileno() if sys.stdin is not None else None
    stop = threading.Event()
    output = Output(stop)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.variant, RateLimiter(args.rate, RATE_WINDOW), output))
    server.daemon_threads = True

    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def watch_stdin():
        # EOF on stdin (the parent went away, or closed it): stop.
        # The raw descriptor, not sys.stdin: a thread blocked in a buffered read would hold its lock at interpreter exit.
        try:
            while os.read(stdin_fd, 4096):
                pass
        except OSError:
            pass
        stop.set()

    if stdin_fd is not None:
        threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    output.line({"listening": server.server_address[1]})

    while not stop.wait(0.5):
        pass
    server.shutdown()
    server.server_close()
    output.flush()
    # Straight out: handler threads on kept-alive connections and the stdin reader are daemons still blocked in reads.
    os._exit(0)


if __name__ == "__main__":
    main()
