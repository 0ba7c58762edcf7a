"""The Flask dashboard: ``create_app(config, sessions)``.

Pages: ``/`` (the history and a new session), ``/session/<id>`` (the live game: scoreboard, table,
log, manual play and corrections), ``/pin`` (where a PIN is set). JSON API under ``/api`` (see
:mod:`web.api`), the live stream at ``/api/sessions/<id>/stream`` (Server-Sent Events), card faces
at ``/cards/<family>/<card id>.png``. All JavaScript and styles are served from ``web/static``:
the table may have no internet.

Security (:mod:`web.security`): only the hosts in :attr:`WebConfig.allowed_hosts` are served (421
for any other ``Host``); every state-changing request carries the page's CSRF token in the
``X-CSRF-Token`` header (or a ``csrf`` form field); where the app has a PIN
(:attr:`WebConfig.pins` or :attr:`WebConfig.pin`), every request but the PIN page needs it entered
once per browser, a grant that ends when a new PIN is made; camera sources named by a request are
limited by :attr:`WebConfig.sources_from_requests`; every response carries the security headers
(:data:`web.security.HEADERS`). Uploads are capped at :attr:`WebConfig.max_upload` bytes.
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
    """Digits every browser must enter once (set when the dashboard listens beyond this machine),
    where no :attr:`pins` is given: kept in memory only."""
    pins: Any = None
    """The PIN store (:class:`web.security.PinStore`: kept in the data folder, renewed by the
    host's button), or None: :attr:`pin` decides."""
    allowed_hosts: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")
    """The names a request's ``Host`` may give (:data:`web.security.LOCAL_HOSTS`; on the network
    also this machine's addresses and names: :func:`web.security.lan_host_names`); any other: 421."""
    port: int | None = None
    """The port the server listens on: a ``Host`` naming another is refused (None: any port)."""
    sources_from_requests: str = "local"
    """The camera sources a request may name (:data:`web.security.SOURCE_POLICIES`): ``webcams``
    only; ``files``: also files and folders from a browser on this machine; ``local``: also stream
    URLs from one. A request from another device may name only webcams, whatever this says."""
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

    def __post_init__(self) -> None:
        from web.security import SOURCE_POLICIES

        if self.sources_from_requests not in SOURCE_POLICIES:
            raise ValueError(f"sources_from_requests is one of {', '.join(SOURCE_POLICIES)}, "
                             f"not {self.sources_from_requests!r}")


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
