"""``fudaba run``: the dashboard over the history, served by waitress.

``fudaba run [--host H] [--port P] [--data FILE] [--no-browser]`` opens (creating on first use) the
history (:func:`fudaba.store.default_path` unless ``--data``), serves the dashboard and prints its
address; players start or resume a game on the home page and play it by tapping what happens
(manual mode: no camera). It listens on 127.0.0.1 unless ``--host`` says otherwise; on any other
address it prints a six-digit PIN that every browser must enter once, and the addresses phones on
the same network can open.

The cookie-signing key is kept beside the history (``secret.key``, made on first run, readable by
this user only), so a restart does not sign everyone out. Card faces come from the art shipped in
``vision/synth/art`` (hanafuda: ``mantia``; playing cards: ``jumbo``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import socket
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

from fudaba.session import Sessions
from fudaba.store import Store, StoreError, default_path
from scorer.cards import all_cards

ART_STYLES = {"hanafuda": "mantia", "playing": "jumbo"}
"""The shipped style whose faces the dashboard shows, per deck family."""
THREADS = 48
"""waitress worker threads: every open live stream holds one."""


def card_art_finder() -> Callable[[str, str], Path | None]:
    """(family, card id) → the shipped PNG of that face; None for an unknown family or card."""
    root = Path(__file__).resolve().parent.parent / "vision" / "synth" / "art"
    known = {family: set(all_cards(family)) for family in ART_STYLES}

    def find(family: str, card: str) -> Path | None:
        if family not in known or card not in known[family]:
            return None
        path = root / family / ART_STYLES[family] / f"{card}.png"
        return path if path.is_file() else None

    return find


def secret_key(folder: Path) -> bytes:
    """The cookie-signing key kept in ``folder`` (made on first use, mode 0600)."""
    path = folder / "secret.key"
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except FileNotFoundError:
        pass
    data = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return data


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other phones on the network may reach (best effort)."""
    found: set[str] = set()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            found.add(s.getsockname()[0])
    except OSError:
        pass
    with contextlib.suppress(OSError):
        found.update(a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    return sorted(a for a in found if not a.startswith("127."))


def build(data: Path, pin: str | None):  # noqa: ANN201 - a Flask app (web is imported here only)
    """The dashboard app over the history ``data``."""
    from web import WebConfig, create_app

    store = Store(data)
    config = WebConfig(secret_key=secret_key(data.parent), pin=pin, card_art=card_art_finder())
    return create_app(config, Sessions(store))


def cmd_run(args: argparse.Namespace) -> tuple[str, int]:
    """Serve the dashboard until Ctrl-C."""
    import waitress

    data = Path(args.data) if args.data else default_path()
    local = args.host in ("127.0.0.1", "localhost", "::1")
    pin = None if local else f"{secrets.randbelow(10**6):06d}"
    try:
        app = build(data, pin)
    except StoreError as exc:
        return f"fudaba run: {exc}\n", 2
    url = f"http://{'127.0.0.1' if local else args.host}:{args.port}/"
    print(f"fudaba: history in {data}", flush=True)
    print(f"fudaba: dashboard at {url}", flush=True)
    if not local:
        for addr in lan_addresses():
            print(f"fudaba: from a phone on this network: http://{addr}:{args.port}/", flush=True)
        print(f"fudaba: PIN {pin} (every browser enters it once)", flush=True)
    if not args.no_browser and local:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=THREADS, send_bytes=1,
                       channel_timeout=3600, _quiet=True)
    except OSError as exc:
        return f"fudaba run: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}\n", 2
    except KeyboardInterrupt:
        pass
    return "", 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``fudaba run``'s arguments."""
    p = sub.add_parser("run", help="serve the dashboard: start, play (by tapping) and review games")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones join, with a PIN)")
    p.add_argument("--port", type=int, default=8088, help="port (default 8088)")
    p.add_argument("--data", help=f"the history file (default {default_path()})")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(func=cmd_run)

