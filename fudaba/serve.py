"""``fudaba run`` and ``fudaba demo``: the dashboard over the history, served by waitress.

``fudaba run [--host H] [--port P] [--data FILE] [--no-browser]`` opens (creating on first use) the
history (:func:`fudaba.store.default_path` unless ``--data``), serves the dashboard and prints its
address; players start or resume a game on the home page and play it by tapping what happens
(manual mode: no camera). With ``--camera SOURCE --game G [--players N] [--names …]`` (and the
follower's other options, defined once for every command that follows a camera:
:mod:`vision.follow_settings`) it starts a new session of that game and follows it from the camera
(:class:`fudaba.live.LiveFeed` over :class:`vision.follow.Follower`; SOURCE as
``fudaba track`` takes it: a webcam index, a stream URL, a video file or an image folder; a file or
folder is followed frame by frame at real time, or slower where the machine cannot keep up); claims and settlements wait for a tap on "confirm" unless ``--no-confirm``.
It listens on 127.0.0.1 unless ``--host`` says otherwise (and serves only requests that name this
machine: :mod:`web.security`); on any other address it prints a six-digit PIN that every browser
must enter once, and the addresses phones on the same network can open. The PIN is kept beside the
history (``pin``, readable by this user only), so a restart keeps it and the phones let in;
``--new-pin`` (or the button on the home page of a browser on this machine) makes a new one, which
ends every phone's access.

``fudaba demo`` does the same on a bundled game: a rendered Poka round (:data:`DEMO`, rendered once
into the data folder on first start: 850 frames, about three minutes on two cores), followed live
at real time with no confirmations, in its own history (``demo.sqlite3`` beside the default one),
shown on an emulated stone counter whose LEDs the page draws (``--no-counter``: without it).
``fudaba run --counter PORT`` shows games on a real one (``auto``: found by its USB id): the camera
session, else each new game or the one a player puts on it from its page; its buttons undo,
confirm and pass (:mod:`fudaba.counter`).

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
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fudaba.history_lock import HistoryLock
from fudaba.session import Sessions
from fudaba.store import Store, StoreError, default_path
from scorer.cards import all_cards
from vision.follow_settings import FollowSettings, add_follow_arguments, settings_from_args

ART_STYLES = {"hanafuda": "mantia", "playing": "jumbo"}
"""The shipped style whose faces the dashboard shows, per deck family."""
THREADS = 300
"""waitress worker threads: an open live stream holds one for its life (WSGI has no other way), so
there are :data:`web.api.MAX_STREAMS` (250) for the streams and 50 left for every other request."""
CONNECTIONS = 1000
"""Connections waitress keeps open at once (its default, 100, stops accepting beyond it: a hang)."""


def http_server(app: Callable[..., Any], host: str, port: int) -> Any:
    """The waitress server ``fudaba run`` serves ``app`` with, bound to ``host:port`` (0: any free
    port); ``run()`` serves until ``close()``. Each connection is read on while its request runs
    (``channel_request_lookahead``), so a live stream whose client went away sees it at once
    (``environ["waitress.client_disconnected"]``) and frees its thread; poll() rather than select()
    for more than 1,024 sockets. OSError where the address cannot be bound."""
    import waitress

    return waitress.create_server(app, host=host, port=port, threads=THREADS, connection_limit=CONNECTIONS,
                                  channel_request_lookahead=1, asyncore_use_poll=True,
                                  channel_timeout=3600)


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


def rules_path() -> Path | None:
    """``docs/rules.md`` (the rules as implemented): the checkout's, else the installed copy
    (``<prefix>/share/fudaba/docs``); None when neither is there."""
    for path in (Path(__file__).resolve().parent.parent / "docs" / "rules.md",
                 Path(sys.prefix) / "share" / "fudaba" / "docs" / "rules.md"):
        if path.is_file():
            return path
    return None


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


def build(data: Path, pin: str | None, join_urls: tuple[str, ...] = (), counter: Any = None,  # noqa: ANN201
          host: str = "127.0.0.1", port: int | None = None, pins: Any = None, sources: str = "local"):
    """The dashboard app over the history ``data``; ``join_urls``: the addresses phones can open;
    ``counter``: the server's choice of stone counter (:class:`fudaba.counter.CounterControl`);
    ``host`` and ``port``: where it listens (the names and port a request must give: this machine's
    local names, and on the network its addresses and host name too); ``pins``: the PIN store
    (:class:`web.security.PinStore`), else ``pin`` (kept in memory) or none; ``sources``: the camera
    sources a page may name (:data:`web.security.SOURCE_POLICIES`)."""
    from web import WebConfig, create_app
    from web.security import LOCAL_HOSTS, lan_host_names

    store = Store(data)
    from fudaba.setup import TableSetup

    hosts = LOCAL_HOSTS if host in LOCAL_HOSTS else lan_host_names(host, lan_addresses(), socket.gethostname())
    config = WebConfig(secret_key=secret_key(data.parent), pin=pin, pins=pins, card_art=card_art_finder(),
                       join_urls=join_urls, counter=counter, setup=TableSetup(data.parent / "profiles"),
                       rules=rules_path(), allowed_hosts=hosts, port=port, sources_from_requests=sources)
    return create_app(config, Sessions(store))


DEMO = {"game": "poka", "players": 2, "ruleset": "seed", "seed": 2000}
"""The demo's rendered game: a one-minute Poka round that the tracker follows right through the
camera (docs/tracking.md, seeds 2000-2004), short enough to render on first start."""


def demo_settings() -> FollowSettings:
    """The follower's settings for the demo's game: :data:`DEMO`, nothing waits for a confirmation."""
    return FollowSettings(DEMO["game"], DEMO["players"], ruleset=DEMO["ruleset"], confirm=False)


def start_camera(sessions: Sessions, source: str, settings: FollowSettings, pace: bool | None = None,
                 title: str | None = None):  # noqa: ANN201
    """A new session of the game ``settings`` name, followed from ``source`` by a started
    :class:`fudaba.live.LiveFeed` (the one follower, :class:`vision.follow.Follower`). A file or
    folder is followed frame by frame at real time (``pace`` None), played as a live source
    (``pace`` True) or as fast as it goes (False). ValueError (a ``ReplayError`` or
    ``CaptureError``) says what is wrong with the settings or the source."""
    from dataclasses import replace

    from fudaba.live import LiveFeed
    from scorer.record import Header
    from vision.capture import open_source, parse_spec
    from vision.follow import load_recogniser

    setup = settings.setup()
    match = setup.match(settings.names)
    recogniser = load_recogniser(setup.deck, settings.profile)
    # a file or folder is a recording: every frame is followed, at real time or slower (never dropped)
    recorded = parse_spec(source).kind in ("file", "folder")
    src = open_source(source, fps=settings.fps, pace=bool(pace))
    session = sessions.create_from(Header.for_match(match, setup.ruleset), title)
    feed = LiveFeed(session, src, setup, recogniser, replace(settings, realtime=recorded and pace is None),
                    name=str(source))
    feed.start()
    return session, feed


def cmd_run(args: argparse.Namespace) -> tuple[str, int]:
    """Serve the dashboard until Ctrl-C."""
    data = Path(args.data) if args.data else default_path()
    camera = None
    if args.camera is not None:
        if not args.game:
            raise ValueError("--camera needs --game (hachi-hachi, bagaji or poka)")
        camera = {"source": args.camera, "settings": settings_from_args(args)}
    counter = None if args.counter is None else ("" if args.counter == "auto" else args.counter)
    return serve(data, args.host, args.port, not args.no_browser, camera, "run", counter, args.new_pin,
                 args.sources)


def cmd_demo(args: argparse.Namespace) -> tuple[str, int]:
    """Render the demo game once, then serve it followed live."""
    folder = (Path(args.data).parent if args.data else default_path().parent) / "demo"
    name = f"{DEMO['game']}-{DEMO['players']}-{DEMO['ruleset']}-{DEMO['seed']}"
    video = folder / name
    if not (video / "done").exists():
        try:
            from vision.synth.video import VideoSpec, write_video
        except ImportError as exc:
            raise ValueError(f"rendering the demo game needs {exc.name}, which is not installed") from None
        print(f"fudaba: rendering the demo game into {video} (once; about three minutes)", flush=True)
        write_video(VideoSpec(game=DEMO["game"], players=DEMO["players"], ruleset=DEMO["ruleset"],
                              seed=DEMO["seed"], fps=15.0), video, progress=True)
        (video / "done").write_text("")
    path = next(p for p in (video / "video.mp4", video / "video.avi") if p.exists())
    data = Path(args.data) if args.data else default_path().parent / "demo.sqlite3"
    camera = {"source": str(path), "settings": demo_settings(), "title": "demo: a rendered Poka round"}
    return serve(data, args.host, args.port, not args.no_browser, camera, "demo",
                 None if args.no_counter else "emulated")


def serve(data: Path, host: str, port: int, browser: bool, camera: dict | None, command: str,
          counter: str | None = None, new_pin: bool = False, sources: str = "local") -> tuple[str, int]:
    """Serve the dashboard over the history ``data`` (and a camera session) until Ctrl-C.
    ``counter``: the stone counter at that port ("": found by USB id; "emulated": an emulated one,
    its LEDs on the page) shows the camera session, or each new game. ``new_pin``: replace the PIN
    kept beside the history (every browser let in must enter the new one). ``sources``: the camera
    sources a page may name (:data:`web.security.SOURCE_POLICIES`)."""
    from web.security import PinStore

    # one server per history (a second refuses, naming this one): taken before anything beside the
    # history changes, held until exit (an error before the app is built lets it go with ``lock``)
    lock = HistoryLock(data, f"fudaba {command}")
    lock.acquire()
    local = host in ("127.0.0.1", "localhost", "::1")
    # the PIN is kept beside the history: a restart keeps the phones in, a new PIN ends every grant
    pins = None if local and not new_pin else PinStore(data.parent / "pin", fresh=new_pin, announce=_announce_pin)
    # the port is bound before the app is built: the home page shows the address phones can open
    holder: dict[str, Any] = {}
    try:
        server = http_server(lambda env, start: holder["app"](env, start), host, port)
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    join = () if local else tuple(f"http://{a}:{server.effective_port}/" for a in (lan_addresses() or [host]))
    from fudaba.counter import CounterControl, open_hub

    control = CounterControl(None if counter is None else open_hub(counter or None, emulated=counter == "emulated"))
    try:
        app = holder["app"] = build(data, None, join, control, host, int(server.effective_port),
                                    None if local else pins, sources)
    except StoreError as exc:
        server.close()
        control.close()
        lock.release()
        raise ValueError(str(exc)) from None
    url = f"http://{'127.0.0.1' if local else host}:{server.effective_port}/"
    feed = None
    if camera is not None:
        try:
            session, feed = start_camera(app.extensions["fudaba"]["sessions"], **camera)
        except ValueError:
            server.close()
            control.close()
            lock.release()
            raise
        url += f"session/{session.id}"
        control.new_game(session)
    print(f"fudaba: history in {data}", flush=True)
    print(f"fudaba: dashboard at {url}", flush=True)
    if not local:
        for address in join:
            print(f"fudaba: from a phone on this network: {address} (a QR code on the home page)", flush=True)
        print(f"fudaba: PIN {pins.pin} (every browser enters it once; "
              f"{'a new one: every grant before it has ended' if new_pin else 'fudaba run --new-pin makes a new one'})",
              flush=True)
    elif new_pin:
        print(f"fudaba: a new PIN {pins.pin} for phones (asked where fudaba serves the network: --host)", flush=True)
    if browser and local:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if feed is not None:
            feed.stop()
        app.extensions["fudaba"]["config"].setup.close()
        control.close()
        server.close()
        lock.release()
    return "", 0


def _announce_pin(pin: str) -> None:
    """Print a PIN made while serving (the host's button), where the server was started."""
    print(f"fudaba: PIN {pin} (a new one: every phone let in before must enter it)", flush=True)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``fudaba run``'s arguments."""
    p = sub.add_parser("run", help="serve the dashboard: start, play (by tapping) and review games")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones join, with a PIN)")
    p.add_argument("--port", type=int, default=8088, help="port (default 8088)")
    p.add_argument("--data", help=f"the history file (default {default_path()})")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--sources", choices=("webcams", "files", "local"), default="local",
                   help="camera sources a page may name: webcams only; also video files and image folders; or also "
                        "stream URLs (default local; files and URLs only ever from a browser on this machine)")
    p.add_argument("--new-pin", action="store_true",
                   help="make a new PIN (the PIN is kept across restarts): every phone let in must enter the new one")
    p.add_argument("--camera", metavar="SOURCE",
                   help="follow a new game from this camera: webcam index, stream URL, video file or image folder")
    add_follow_arguments(p, "run")
    p.add_argument("--counter", metavar="PORT",
                   help="show the game on the LED stone counter at PORT (auto: found by USB id): the camera's "
                        "game, else each new game or the one put on it from its page; its buttons undo, confirm, pass")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("demo", help="the dashboard following a bundled rendered game live (renders it on first start)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8088, help="port (default 8088)")
    p.add_argument("--data", help="the demo's history file (default: demo.sqlite3 beside the default history)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--no-counter", action="store_true", help="without the emulated stone counter")
    p.set_defaults(func=cmd_demo)

