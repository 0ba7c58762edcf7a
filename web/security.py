"""The access PIN and the CSRF token.

* CSRF: each browser gets a random token in its signed cookie; pages carry it in
  ``<meta name="csrf-token">``. A POST without the same token in ``X-CSRF-Token`` (or the form
  field ``csrf``) is refused with 403.
* PIN (only where :attr:`web.WebConfig.pin` is set): a browser that has not entered it gets 401
  from the API and the PIN page instead of any other page. :attr:`web.WebConfig.pin_tries` wrong
  PINs from one address within a minute make it wait (429) until the minute has passed.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from typing import Any

from flask import Flask, jsonify, redirect, request, session, url_for

OPEN_ENDPOINTS = ("pages.pin", "pages.pin_post", "static")
"""Endpoints served without the PIN."""


def csrf_token() -> str:
    """This browser's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


class PinGuard:
    """Counts wrong PINs per address (sliding minute)."""

    def __init__(self, tries: int) -> None:
        self.tries = tries
        self._wrong: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def blocked(self, addr: str) -> float:
        """Seconds ``addr`` must still wait (0: may try)."""
        now = time.monotonic()
        with self._lock:
            q = self._wrong[addr]
            while q and now - q[0] > 60:
                q.popleft()
            return 60 - (now - q[0]) if len(q) >= self.tries else 0.0

    def wrong(self, addr: str) -> None:
        with self._lock:
            self._wrong[addr].append(time.monotonic())


def install(app: Flask, config: Any) -> None:
    """Check the PIN and the CSRF token before every request."""
    guard = PinGuard(config.pin_tries)
    app.extensions["fudaba"]["pin_guard"] = guard

    @app.context_processor
    def _tokens() -> dict[str, Any]:
        return {"csrf_token": csrf_token, "pin_required": config.pin is not None}

    @app.before_request
    def _check() -> Any:
        endpoint = request.endpoint or ""
        if config.pin is not None and endpoint not in OPEN_ENDPOINTS and not session.get("pin_ok"):
            if request.path.startswith("/api/"):
                return jsonify(error="enter the table's PIN first (shown where fudaba was started)"), 401
            return redirect(url_for("pages.pin", next=request.path))
        if request.method not in ("GET", "HEAD", "OPTIONS") and endpoint != "static":
            sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
            token = session.get("csrf")
            if not isinstance(token, str) or not hmac.compare_digest(sent.encode(), token.encode()):
                if request.path.startswith("/api/"):
                    return jsonify(error="missing or wrong CSRF token: reload the page"), 403
                return "missing or wrong CSRF token: reload the page", 403
        return None
