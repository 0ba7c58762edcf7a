"""Who may reach the dashboard and what a request may make it do: hosts, the PIN, the CSRF token,
camera sources, redirects and the security headers.

* Hosts (DNS rebinding): a request whose ``Host`` names anything but the names the server was
  started for (:attr:`web.WebConfig.allowed_hosts`, at :attr:`web.WebConfig.port`) gets 421, so a
  page elsewhere that renames itself to 127.0.0.1 reads and changes nothing. A request with no
  ``Host`` (no browser sends one) is served.
* CSRF: each browser gets a random token in its signed cookie; pages carry it in
  ``<meta name="csrf-token">``. A POST without the same token in ``X-CSRF-Token`` (or the form
  field ``csrf``) is refused with 403.
* PIN (where the app has a :class:`PinStore`: :attr:`web.WebConfig.pins`, or
  :attr:`web.WebConfig.pin`): a browser without a grant gets 401 from the API and the PIN page
  instead of any other page. A grant is the HMAC of the PIN it was made under (keyed with the
  cookie key) kept in the cookie, so a new PIN ends every grant. :attr:`web.WebConfig.pin_tries`
  wrong PINs from one address within a minute make it wait (429) until the minute has passed.
  ``POST /api/pin/new`` (the host's button, from a browser on this machine only) makes a new PIN.
* Camera sources from a request (:func:`camera_source_refused`): webcams always; files, folders
  and stream URLs only from a browser on this machine, as :attr:`web.WebConfig.sources_from_requests`
  allows.
* Redirects stay on this site (:func:`safe_next`).
* Every response carries :data:`HEADERS` (nosniff, no framing, same-origin referrers, the content
  security policy :data:`CSP`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from flask import Flask, Response, current_app, jsonify, redirect, request, session, url_for

OPEN_ENDPOINTS = ("pages.pin", "pages.pin_post", "static")
"""Endpoints served without the PIN."""

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names of this machine a browser on it uses; the only hosts served in localhost mode."""

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; "
       "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The pages' content security policy: every script and style sheet from this server, none inline
(``el()`` in ``static/common.js`` sets a style through the CSSOM, which the policy allows)."""

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": CSP,
}
"""Sent with every response: pages, the API, static files."""

SOURCE_POLICIES = ("webcams", "files", "local")
"""What camera sources a request may name (:attr:`web.WebConfig.sources_from_requests`): webcams
only; also files and folders from a browser on this machine; also stream URLs from one."""


def csrf_token() -> str:
    """This browser's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


# -- hosts --------------------------------------------------------------------------------------

def lan_host_names(bound: str, addresses: Iterable[str], hostname: str) -> tuple[str, ...]:
    """The names a server listening on the network answers to: this machine's local names, the
    address it was bound to (``0.0.0.0`` too: the address ``fudaba run`` prints, which only a page
    from this machine can have as its own), its ``addresses`` and its ``hostname`` (also as
    ``NAME.local``, its name by multicast DNS)."""
    names = [*LOCAL_HOSTS, *addresses, bound]
    if hostname:
        short = hostname.split(".")[0]
        names += [hostname, f"{short}.local"]
    return tuple(dict.fromkeys(_plain_host(n) for n in names if n))


def _plain_host(name: str) -> str:
    return name.strip().strip("[]").rstrip(".").lower()


def split_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header as (name, port or None); None where it is not one."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:]
    else:
        name, _, port = value.partition(":")
    if not name or (port and not port.isascii()) or (port and not port.isdigit()) or ":" in port:
        return None
    return name.rstrip("."), int(port) if port else None


def host_refused(value: str | None, allowed: Iterable[str], port: int | None) -> str | None:
    """Why a request with ``Host: value`` is not served (None: it is)."""
    if value is None:
        return None
    parts = split_host(value)
    if parts is not None and parts[0] in allowed and (port is None or (parts[1] or 80) == port):
        return None
    # the names are not listed: a rebinding page reads this answer, and they include LAN addresses
    return (f"this fudaba server does not answer to {value!r}: open it by the address fudaba printed "
            "(or localhost on the machine it runs on)")


def from_this_machine() -> bool:
    """Whether the request comes from a browser on the machine fudaba runs on."""
    try:
        addr = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


# -- camera sources -----------------------------------------------------------------------------

_WEBCAM = re.compile(r"[0-9]{1,3}|/dev/video[0-9]{1,3}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:.*")


def camera_source_refused(source: str, policy: str, local: bool) -> str | None:
    """Why a request may not open ``source`` (None: it may): a webcam (its number, or
    ``/dev/videoN``) always; a file or folder (read from this machine's disk) or a stream URL
    (fetched by this server) only where the request is ``local`` (from this machine) and
    ``policy`` (:data:`SOURCE_POLICIES`) allows it. Decided from the text alone: nothing is opened."""
    text = source.strip()
    if _WEBCAM.fullmatch(text):
        return None
    kind = "a stream URL" if _URL.fullmatch(text) else "a file or folder"
    if not local:
        return (f"{kind} is opened only for a browser on the machine fudaba runs on; "
                "from another device, name a webcam by its number (0, 1, …)")
    if policy == "webcams" or (policy == "files" and kind == "a stream URL"):
        allowed = "webcams" if policy == "webcams" else "webcams, files and folders"
        return f"this server opens only {allowed} named from a page (it was started so), not {kind}"
    return None


def check_camera_source(source: str) -> str | None:
    """:func:`camera_source_refused` for the request being served, under the app's policy."""
    policy = current_app.extensions["fudaba"]["config"].sources_from_requests
    return camera_source_refused(source, policy, from_this_machine())


# -- redirects ----------------------------------------------------------------------------------

def safe_next(nxt: str | None) -> str | None:
    """``nxt`` where it is a path on this site, else None: it starts with one ``/``, and neither it
    nor its percent-decoded forms hold a second leading ``/``, a backslash or a control character
    (browsers drop tabs and newlines from a URL: ``/%09/evil.example`` would become
    ``//evil.example``)."""
    if not nxt:
        return None
    text = nxt
    for _ in range(4):
        if (not text.startswith("/") or text.startswith("//") or "\\" in text
                or any(ord(ch) < 32 or ord(ch) == 127 for ch in text)):
            return None
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    else:
        return None
    parts = urlsplit(nxt)
    return nxt if not parts.scheme and not parts.netloc else None


# -- the PIN ------------------------------------------------------------------------------------

def new_pin() -> str:
    """Six random digits."""
    return f"{secrets.randbelow(10**6):06d}"


class PinStore:
    """The table's PIN. Kept in ``path`` (mode 0600) where given, so that a restart keeps it and
    the browsers let in under it; ``fresh`` makes a new one at once. :meth:`renew` makes a new one,
    which ends every grant made under the old; ``announce`` is told each PIN :meth:`renew` makes."""

    def __init__(self, path: Path | None = None, pin: str | None = None, fresh: bool = False,
                 announce: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.announce = announce
        self._lock = threading.Lock()
        kept = pin if pin is not None else (None if fresh else self._read())
        self._pin = kept if kept is not None else self._write(new_pin())

    @property
    def pin(self) -> str:
        with self._lock:
            return self._pin

    def renew(self) -> str:
        """A new PIN, kept and announced; every grant made before ends."""
        with self._lock:
            pin = new_pin()
            while pin == self._pin:
                pin = new_pin()
            self._pin = self._write(pin)
        if self.announce is not None:
            self.announce(pin)
        return pin

    def grant(self, key: bytes) -> str:
        """The cookie's proof that the PIN now in force was entered (an HMAC of it under ``key``)."""
        return hmac.new(key, b"fudaba-pin-grant:" + self.pin.encode(), hashlib.sha256).hexdigest()

    def _read(self) -> str | None:
        if self.path is None:
            return None
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        if not re.fullmatch(r"[0-9]{6}", text):
            return None
        os.chmod(self.path, 0o600)
        return text

    def _write(self, pin: str) -> str:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(pin + "\n")
            os.replace(tmp, self.path)
        return pin


def granted(pins: PinStore) -> bool:
    """Whether this browser's cookie holds a grant under the PIN now in force."""
    held = session.get("pin_grant")
    return isinstance(held, str) and hmac.compare_digest(held.encode(), pins.grant(current_app.secret_key).encode())


def grant(pins: PinStore) -> None:
    """Let this browser in under the PIN now in force."""
    session["pin_grant"] = pins.grant(current_app.secret_key)


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


def _refuse(message: str, status: int) -> Any:
    if request.path.startswith("/api/"):
        return jsonify(error=message), status
    return Response(message, status, mimetype="text/plain")


def _new_pin() -> Any:
    """The host's button: a new PIN (printed where fudaba runs, and answered), ending every grant
    but this browser's. Only from a browser on this machine."""
    pins = current_app.extensions["fudaba"]["pins"]
    if pins is None:
        return jsonify(error="this server asks for no PIN (it serves this machine only)"), 409
    if not from_this_machine():
        return jsonify(error="only a browser on the machine fudaba runs on can make a new PIN"), 403
    pin = pins.renew()
    grant(pins)
    return jsonify(pin=pin)


def install(app: Flask, config: Any) -> None:
    """Check the host, the PIN and the CSRF token before every request; the headers after."""
    guard = PinGuard(config.pin_tries)
    pins = config.pins if config.pins is not None else (PinStore(pin=config.pin) if config.pin else None)
    app.extensions["fudaba"].update(pin_guard=guard, pins=pins)
    allowed = tuple(_plain_host(h) for h in config.allowed_hosts)
    app.add_url_rule("/api/pin/new", "pin_new", _new_pin, methods=["POST"])

    @app.context_processor
    def _tokens() -> dict[str, Any]:
        return {"csrf_token": csrf_token, "pin_required": pins is not None, "on_this_machine": from_this_machine}

    @app.before_request
    def _check() -> Any:
        refused = host_refused(request.environ.get("HTTP_HOST"), allowed, config.port)
        if refused:
            return _refuse(refused, 421)
        endpoint = request.endpoint or ""
        if pins is not None and endpoint not in OPEN_ENDPOINTS and not granted(pins):
            if request.path.startswith("/api/"):
                return jsonify(error="enter the table's PIN first (shown where fudaba was started)"), 401
            return redirect(url_for("pages.pin", next=safe_next(request.full_path.rstrip("?")) or "/"))
        if request.method not in ("GET", "HEAD", "OPTIONS") and endpoint != "static":
            sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
            token = session.get("csrf")
            if not isinstance(token, str) or not hmac.compare_digest(sent.encode(), token.encode()):
                return _refuse("missing or wrong CSRF token: reload the page", 403)
        return None

    @app.after_request
    def _headers(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
