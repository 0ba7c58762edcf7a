"""Test helpers for things that happen on other threads or processes: poll until they have."""

from __future__ import annotations

import time
from collections.abc import Callable

LONG = 20.0
"""Seconds: only to stop a hang; nothing measures time."""


def wait_until(predicate: Callable[[], object], timeout: float = LONG, step: float = 0.01) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; its last value, as a bool."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())
