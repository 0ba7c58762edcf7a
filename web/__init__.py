"""The Flask dashboard: ``create_app(config, sessions)``.

Pages: ``/`` (the history and a new session), ``/session/<id>`` (the live game: scoreboard, table,
log, manual play and corrections), ``/pin`` (where a PIN is set). JSON API under ``/api`` (see
:mod:`web.api`), the live stream at ``/api/sessions/<id>/stream`` (Server-Sent Events), card faces
at ``/cards/<family>/<card id>.png``. All JavaScript and styles are served from ``web/static``:
the table may have no internet.

Security (:mod:`web.security`): every state-changing request carries the page's CSRF token in the
``X-CSRF-Token`` header (or a ``csrf`` form field); where :attr:`WebConfig.pin` is set, every
request but the PIN page needs the PIN entered once per browser. Uploads are capped at
:attr:`WebConfig.max_upload` bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask

from fudaba.session import Sessions


@dataclass(frozen=True, slots=True)
class WebConfig:
    """How the dashboard runs (passed in, never read from globals)."""

    secret_key: bytes
    """Signs the browser's cookie (CSRF token, PIN entered)."""
    pin: str | None = None
    """Digits every browser must enter once (set when the dashboard listens beyond this machine)."""
    card_art: Callable[[str, str], Path | None] | None = None
    """(deck family, card id) → the PNG of its face, or None."""
    max_upload: int = 16 << 20
    """Largest request body, bytes (a record import, a photo of a deck)."""
    heartbeat_s: float = 15.0
    """Seconds between keep-alive comments on a quiet stream."""
    pin_tries: int = 5
    """Wrong PINs allowed per address per minute before it must wait."""
    join_urls: tuple[str, ...] = ()
    """Addresses phones on the table's network can open (shown with a QR code on the home page)."""
    counter: Any = None
    """The server's choice of stone counter (:class:`fudaba.counter.CounterControl`: ``attach``,
    ``new_game``, ``connect``, ``ports``, ``status``), or None where this server offers none."""
    rules: Path | None = None
    """``docs/rules.md``, the rules as implemented, shown at ``/rules`` (None: no rules page)."""
    setup: Any = None
    """The camera side of setting up a table (:class:`fudaba.setup.TableSetup`: ``look``,
    ``start``, ``mat``), or None where this server cannot use cameras."""


def create_app(config: WebConfig, sessions: Sessions) -> Flask:
    """The dashboard app over ``sessions``."""
    from web import api, pages, security

    app = Flask(__name__)
    app.config.update(SECRET_KEY=config.secret_key, MAX_CONTENT_LENGTH=config.max_upload,
                      SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_HTTPONLY=True,
                      SEND_FILE_MAX_AGE_DEFAULT=3600, JSON_SORT_KEYS=False)
    app.extensions["fudaba"] = {"config": config, "sessions": sessions}
    security.install(app, config)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    return app
