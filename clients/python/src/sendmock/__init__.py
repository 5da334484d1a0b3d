"""sendmock for Python: start or connect to a sendmock server and inspect what it captured, sandbox by sandbox."""

from __future__ import annotations

from .client import Clock, Faults, Outbox, Outcomes, Sandbox, SendMock
from .errors import SendMockError, WaitTimeout

__version__ = "0.1.0"

__all__ = ["Clock", "Faults", "Outbox", "Outcomes", "Sandbox", "SendMock", "SendMockError", "WaitTimeout", "__version__"]
