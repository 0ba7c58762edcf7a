"""The JSON API and the live stream.

Every error is ``{"error": "what and why"}`` with its status: 400 malformed, 401 PIN, 403 CSRF,
404 unknown session or card, 409 refused by the rules (nothing changed; with ``"rule"``, the id of
the rule broken, where the rules name one), 413 upload too large.

* ``GET /api/games`` — the games, their seat counts, rulesets and options (each option's kind,
  allowed values and default per ruleset: :func:`web.game_options.options_json`).
* ``GET /api/sessions`` — the history; ``POST /api/sessions`` ``{"game", "players": [names],
  "ruleset"?, "options"?, "title"?}`` → 201 ``{"id", "url"}``; with ``"camera": SOURCE`` (and
  ``"deck"?``, ``"confirm"?``, ``"profile"?``: a deck profile's name) the game is followed from
  that camera.
* ``GET /api/profiles`` — deck profiles and enrolments; ``POST /api/profiles`` (form: ``name``,
  ``deck``, file ``photo``, ``fine_tune``?, ``minutes``?) enrols a deck from a photo of it on the
  grid sheet → 202.
* ``POST /api/camera/look`` ``{"source"}`` — what a camera shows before a game: the mat's markers
  found and missing, a picture; ``POST /api/camera/preview`` ``{"source", "game", "players", "deck"?}``
  starts the live preview and zone check (``GET /api/camera/preview``: markers and each zone's cards;
  ``GET /api/camera/preview.mjpeg``: the picture; ``POST /api/camera/preview/stop``);
  ``GET /api/mat.pdf?game=G&players=N&paper=P`` — the printable mat.
* ``GET /api/sessions/<id>/state`` — the snapshot (:meth:`fudaba.session.Session.snapshot`).
* ``GET /api/sessions/<id>/stream`` — Server-Sent Events: ``event: state``, ``id:`` the record's
  ``seq``, ``data:`` the snapshot, at once (unless ``Last-Event-ID`` is the current ``seq`` and no camera
  follows the game) and after every change (a new line, or the camera's question or state); a ``: ping`` comment every :attr:`web.WebConfig.heartbeat_s` seconds; a
  watcher that falls behind gets ``event: resync`` and the stream ends (the browser reconnects and
  gets a fresh snapshot). Beyond :data:`MAX_STREAMS` open streams, 503 with ``Retry-After``; a stream
  whose client went away ends within :data:`POLL_S` and frees what it held.
* ``POST /api/sessions/<id>/pick`` ``{"type", "seat", "cards"}``: an event entered by picking
  cards for one of the snapshot's ``manual.forms`` (:mod:`scorer.forms`) → ``{"seq"}``, or
  ``{"choose": [{"event", "text"}]}`` where the cards can mean several events (nothing applied).
* ``POST /api/sessions/<id>/event`` ``{"event": {...}}``, ``/undo``, ``/confirm``,
  ``/deal`` ``{"dealer"?, "face_up": {"field": [ids]}}``, ``/edit`` ``{"index", "event"}`` or
  ``{"index", "deal": {"dealer"?, "face_up"}}`` (effective event ``index`` replaced, the later
  ones applied again) → ``{"seq"}``; ``GET /api/sessions/<id>/events/<index>/alternatives`` — what
  could have happened instead of event ``index`` (as the snapshot's ``manual``).
* ``POST /api/sessions/<id>/counter`` — show this game on the stone counter (409 without one);
  ``GET /api/counter`` — the counter in use and the serial ports; ``POST /api/counter``
  ``{"port": PORT | "auto" | "emulated", "session"?}`` — use that counter from now on (from another
  device PORT must be one the GET lists).
* ``POST /api/sessions/<id>/answer`` ``{"choice": i}`` (the camera's open question: candidate ``i``
  from 0, or ``"something-else"``: none of them, entered by hand next),
  ``POST /api/sessions/<id>/table`` (the table as the camera sees it is right) → ``{"seq"}``.
* ``GET /api/sessions/<id>/video.mjpeg`` — where a camera follows the game: the table top-down
  with zones and cards drawn (MJPEG, at most 4 pictures a second).
* ``GET /api/sessions/<id>/frame.jpg`` — the camera's last frame; ``POST /api/sessions/<id>/corners``
  ``{"corners": [[x, y] × 4]}`` — calibrate by hand (frame px, clockwise from the top-left).
* ``GET /api/sessions/<id>/record`` — the record (JSON Lines) to download; ``POST /api/import``
  (a record as the body or as the form file ``record``) → 201 ``{"id", "url"}``.

A handler reads a session's state only from its snapshot (or a method that holds the session's
lock): a ``{"seq"}`` answer is the snapshot's ``seq`` after the change, and the stream starts from
the snapshot its subscription took (:attr:`fudaba.session.Subscription.first`), so a watcher
never sees the ``seq`` go back.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for
from werkzeug.exceptions import HTTPException

from fudaba.session import Session, SessionError, Sessions
from scorer import record as records
from scorer.choices import SOMETHING_ELSE
from scorer.errors import RecordError, ScorerError
from scorer.games import all_games
from web.security import check_camera_source, from_this_machine

bp = Blueprint("api", __name__)


def _sessions() -> Sessions:
    return current_app.extensions["fudaba"]["sessions"]


def _session(sid: int) -> Session:
    return _sessions().get(sid)


def _body() -> dict[str, Any]:
    """The request's JSON object ({} for none); SessionError 400 saying why for a body that is not
    one: not JSON, nested too deeply, or a number that is not finite or too large (``NaN``,
    ``Infinity``, ``1e400``, which Python's own reader would take: :func:`scorer.record.parse_json`)."""
    raw = request.get_data(cache=True) if request.is_json else b""
    if not raw.strip():
        if request.content_length and not request.is_json:
            raise SessionError("the request body is not JSON", 400)
        return {}
    try:
        data = records.parse_json(raw.decode("utf-8"), "the request body")
    except UnicodeDecodeError as exc:
        raise SessionError(f"the request body is not UTF-8 text (byte {exc.start})", 400) from None
    except RecordError as exc:
        raise SessionError(f"the request body is not JSON: {exc.reason.removeprefix('not valid JSON: ')}", 400) from None
    if not isinstance(data, dict):
        raise SessionError("the request body must be a JSON object", 400)
    return data


@bp.errorhandler(SessionError)
def _refused(exc: SessionError) -> tuple[Response, int]:
    """``{"error": "what and why"}``; a refusal of the rules adds ``"rule"``, the rule's id (the page
    says it in the player's language)."""
    if exc.rule:
        return jsonify(error=str(exc), rule=exc.rule), exc.status
    return jsonify(error=str(exc)), exc.status


@bp.errorhandler(HTTPException)
def _http(exc: HTTPException) -> tuple[Response, int]:
    reason = {413: f"the upload is larger than {current_app.config['MAX_CONTENT_LENGTH']} bytes"}
    return jsonify(error=reason.get(exc.code or 500, exc.description or exc.name)), exc.code or 500


@bp.get("/api/games")
def games() -> Response:
    """The games: seats, rulesets and each option with its default per ruleset (:mod:`web.game_options`)."""
    from web.game_options import options_json

    return jsonify([{"name": g.name, "title": g.title, "min_players": g.min_players, "max_players": g.max_players,
                     "rulesets": list(g.rulesets), "default_ruleset": g.default_ruleset,
                     "options": options_json(g)} for g in all_games()])


@bp.get("/api/sessions")
def sessions() -> Response:
    return jsonify([s.to_json() for s in _sessions().store.sessions()])


@bp.post("/api/sessions")
def new_session() -> tuple[Response, int]:
    body = _body()
    players = body.get("players")
    if not isinstance(body.get("game"), str) or not isinstance(players, list):
        raise SessionError("say the game and the players: {\"game\": \"poka\", \"players\": [\"Aki\", \"Ben\"]}", 400)
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise SessionError("options must be an object of option names and values", 400)
    title = body.get("title")
    camera = body.get("camera")
    if camera is not None and (not isinstance(camera, str) or not camera.strip()):
        raise SessionError("camera must be a source: a webcam number, a stream URL, a file or a folder", 400)
    if camera:
        _camera_allowed(camera.strip())
        setup = _setup()
        if options:
            raise SessionError("a camera game takes its ruleset's options (none may be set here)", 400)
        try:
            profile = body.get("profile") or None
            if profile is not None and not isinstance(profile, str):
                raise SessionError("profile must be a deck profile's name", 400)
            s = setup.start(_sessions(), camera.strip(), body["game"], [str(p) for p in players],
                            body.get("ruleset") or None, body.get("deck") or None, bool(body.get("confirm", True)),
                            profile)
        except ValueError as exc:
            raise SessionError(str(exc), 400) from None
    else:
        s = _sessions().create(body["game"], players, body.get("ruleset") or None, options,
                               title=title if isinstance(title, str) and title.strip() else None)
    counter = current_app.extensions["fudaba"]["config"].counter
    if counter is not None:
        counter.new_game(s)  # a new game goes on the stone counter, when there is one
    return jsonify(id=s.id, url=url_for("pages.session_page", sid=s.id)), 201


def _setup() -> Any:
    setup = current_app.extensions["fudaba"]["config"].setup
    if setup is None:
        raise SessionError("this server cannot use cameras", 409)
    return setup


def _source(body: dict[str, Any]) -> str:
    """The camera a request names (``"source"``: a webcam number, a stream URL, a file), stripped."""
    source = body.get("source")
    if not isinstance(source, str) or not source.strip():
        raise SessionError("say which camera: {\"source\": \"0\"} (a webcam number, a stream URL, a file)", 400)
    return _camera_allowed(source.strip())


def _camera_allowed(source: str) -> str:
    """``source`` where this request may have it opened (:func:`web.security.check_camera_source`:
    files and URLs only from this machine), else 403 with the reason."""
    refused = check_camera_source(source)
    if refused:
        raise SessionError(refused, 403)
    return source


def _mjpeg(pictures: Iterator[bytes], cache: str = "no-store") -> Response | tuple[Response, int, dict[str, str]]:
    """JPEG pictures as one MJPEG stream (``multipart/x-mixed-replace``), as a browser's ``<img>`` shows it.

    It is a live stream like the game's: it holds a worker thread, so it counts against
    :data:`MAX_STREAMS` (503 with ``Retry-After`` beyond), and it ends, freeing both, once the client
    has gone (waitress says so; elsewhere the next write fails)."""
    boundary = "fudabaframe"
    refused = _take_stream()
    if refused is not None:
        return refused
    gone = request.environ.get("waitress.client_disconnected")
    release = _once(_gate().leave)

    def parts() -> Iterator[bytes]:
        try:
            for data in pictures:
                if gone is not None and gone():
                    return
                yield (f"--{boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                       + data + b"\r\n")
        finally:
            release()

    response = Response(parts(), mimetype=f"multipart/x-mixed-replace; boundary={boundary}",
                        headers={"Cache-Control": cache})
    response.call_on_close(release)
    return response


@bp.post("/api/camera/look")
def camera_look() -> Response:
    """Look through a camera before a game: ``{"source"}`` → what it shows (frame size, the mat's
    markers found and missing, a message) and ``picture``, a JPEG data URL with the markers outlined."""
    look = _setup().look(_source(_body()))
    out = look.to_json()
    if look.jpeg is not None:
        out["picture"] = "data:image/jpeg;base64," + base64.b64encode(look.jpeg).decode()
    return jsonify(out)


@bp.post("/api/camera/preview")
def camera_preview_start() -> Response:
    """Watch a camera before a game: ``{"source", "game", "players", "deck"?}`` starts the live
    preview and zone check (one at a time: another replaces it) → 201 and its status."""
    body = _body()
    source, game, players = _source(body), body.get("game"), body.get("players")
    if not isinstance(game, str) or not isinstance(players, int) or isinstance(players, bool):
        raise SessionError("say the game and the number of players: {\"game\": \"poka\", \"players\": 2}", 400)
    deck = body.get("deck")
    if deck is not None and not isinstance(deck, str):
        raise SessionError("'deck' is a deck's name", 400)
    try:
        preview = _setup().preview(source, game, players, deck)
    except ValueError as exc:
        raise SessionError(str(exc), 400) from None
    return jsonify(preview.status()), 201


@bp.get("/api/camera/preview")
def camera_preview_status() -> Response:
    """The live preview in words: markers found and missing, and each zone's cards."""
    return jsonify(_preview().status())


@bp.post("/api/camera/preview/stop")
def camera_preview_stop() -> Response:
    """Stop the live preview (the camera is free again)."""
    _setup().stop_preview()
    return jsonify({"stopped": True})


@bp.get("/api/camera/preview.mjpeg")
def camera_preview_video() -> Response | tuple[Response, int, dict[str, str]]:
    """The live preview as MJPEG (at most 4 pictures a second) until it stops: the camera's frame
    with the markers outlined, then the top-down play area with zones and the cards read there."""
    preview = _preview()

    def pictures() -> Iterator[bytes]:
        seq = 0
        while preview.running or seq == 0:
            seq, data = preview.picture(seq)
            if data is not None:
                yield data
            if not preview.running:
                break

    return _mjpeg(pictures())


def _preview() -> Any:
    preview = _setup().current_preview
    if preview is None:
        raise SessionError("no camera is being previewed: POST /api/camera/preview first", 404)
    return preview


@bp.get("/api/profiles")
def profiles() -> Response:
    """The deck profiles made on this server and the enrolments under way."""
    return jsonify(_setup().profiles())


@bp.post("/api/profiles")
def enrol() -> tuple[Response, int]:
    """Enrol a deck from a photo of it on the grid sheet: form fields ``name``, ``deck`` (hanafuda or
    playing), the file ``photo``, and ``fine_tune=1`` (``minutes``: its training time) to fine-tune the
    classifier on the deck too → 202; ``GET /api/profiles`` says when it is done."""
    photo = request.files.get("photo")
    if photo is None:
        raise SessionError("send the photo of your deck laid out on the grid sheet as 'photo'", 400)
    fine_tune = request.form.get("fine_tune", "") in ("1", "true", "on")
    minutes = request.form.get("minutes") or None
    try:
        minutes = float(minutes) if minutes is not None else None
    except ValueError:
        raise SessionError(f"'minutes' is a number of minutes, not {minutes!r}", 400) from None
    try:
        _setup().enrol((request.form.get("name") or "").strip(), request.form.get("deck") or "", photo.read(),
                       fine_tune=fine_tune, minutes=minutes)
    except ValueError as exc:
        raise SessionError(str(exc), 400) from None
    return jsonify(started=True), 202


@bp.get("/api/mat.pdf")
def mat() -> Response:
    """The printable mat for ``game``, ``players`` and ``paper`` (a3, a4x4, letter)."""
    game, paper = request.args.get("game", ""), request.args.get("paper", "a3")
    try:
        players = int(request.args.get("players", ""))
    except ValueError:
        raise SessionError("players must be a number", 400) from None
    try:
        data = _setup().mat(game, players, paper)
    except ValueError as exc:
        raise SessionError(str(exc), 400) from None
    return Response(data, mimetype="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="fudaba-mat-{game}-{players}p-{paper}.pdf"'})


@bp.post("/api/sessions/<int:sid>/counter")
def put_on_counter(sid: int) -> Response:
    """Show this game on the stone counter (its buttons act on it from now on)."""
    s = _session(sid)
    _counter().attach(s)
    return jsonify(seq=_seq(s))


def _seq(s: Session) -> int:
    """The record's ``seq`` now, read from the session's snapshot (taken under its lock)."""
    return int(s.snapshot()["seq"])


def _counter() -> Any:
    counter = current_app.extensions["fudaba"]["config"].counter
    if counter is None:
        raise SessionError("this server offers no stone counter", 409)
    return counter


@bp.get("/api/counter")
def counter_status() -> Response:
    """The stone counter in use (if any) and the serial ports to choose from."""
    c = _counter()
    return jsonify(status=c.status(), ports=c.ports())


@bp.post("/api/counter")
def counter_connect() -> Response:
    """Use the stone counter at ``{"port": PORT | "auto" | "emulated"}`` from now on, showing
    session ``"session"`` when given. From another device than this machine PORT must be one of the
    serial ports :meth:`ports` lists (403 otherwise): a LAN request never names a device path."""
    body = _body()
    sid = body.get("session")
    if sid is not None and (not isinstance(sid, int) or isinstance(sid, bool)):
        raise SessionError("session must be a session's id", 400)
    c = _counter()
    port = body.get("port")
    if isinstance(port, str) and port.strip() not in ("auto", "emulated") and not from_this_machine() \
            and port.strip() not in {p["device"] for p in c.ports()}:
        raise SessionError(f"{port.strip()!r} is not one of this machine's serial ports: from another device, "
                           "choose one GET /api/counter lists, auto or emulated", 403)
    c.connect(port, _session(sid) if sid is not None else None)
    return jsonify(status=c.status())


@bp.get("/api/sessions/<int:sid>/state")
def state(sid: int) -> Response:
    return jsonify(_session(sid).snapshot())


MAX_STREAMS = 250
"""Live streams open at once, every session together (``current_app.config["MAX_STREAMS"]`` where
set): one more is answered 503 with ``Retry-After`` at once. Each open stream holds one of the
server's worker threads (:data:`fudaba.serve.THREADS`, 300), so the rest stay free for pages,
state and taps."""
STREAM_RETRY_S = 5
"""``Retry-After`` of a stream refused for :data:`MAX_STREAMS`: seconds."""
POLL_S = 0.5
"""A quiet stream looks this often whether its client went away (then it ends and frees its thread)."""


class _StreamGate:
    """The live streams open now, against :data:`MAX_STREAMS`."""

    def __init__(self) -> None:
        self.open = 0
        self._lock = threading.Lock()

    def enter(self, cap: int) -> bool:
        """Count one more stream; False (nothing counted) where ``cap`` are open already."""
        with self._lock:
            if self.open >= cap:
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.open -= 1


def streams_open(app: Any) -> int:
    """Live streams ``app`` holds open now (all sessions)."""
    gate = app.extensions.get("fudaba.streams")
    return gate.open if gate is not None else 0


def _gate() -> _StreamGate:
    return current_app.extensions.setdefault("fudaba.streams", _StreamGate())


def _take_stream() -> tuple[Response, int, dict[str, str]] | None:
    """Count one more live stream (game stream or camera pictures) against :data:`MAX_STREAMS`:
    None when taken (give it back with ``_gate().leave()``), else the 503 to answer."""
    cap = current_app.config.get("MAX_STREAMS", MAX_STREAMS)
    if _gate().enter(cap):
        return None
    return (jsonify(error=f"too many live streams are open ({cap}): try again in {STREAM_RETRY_S} s"), 503,
            {"Retry-After": str(STREAM_RETRY_S)})


def _once(release: Callable[[], None]) -> Callable[[], None]:
    """``release`` to be called from a stream's end or the server's ``close()``, whichever comes
    first: it runs once."""
    held = [True]
    lock = threading.Lock()

    def run() -> None:
        with lock:
            if not held[0]:
                return
            held[0] = False
        release()

    return run


_FRAMES: dict[int, tuple[dict[str, Any], bytes]] = {}
_FRAMES_LOCK = threading.Lock()


def _frame(snap: dict[str, Any]) -> bytes:
    """The snapshot as one ``event: state`` (encoded once for every stream: snapshots are never changed)."""
    with _FRAMES_LOCK:
        hit = _FRAMES.get(id(snap))
    if hit is not None and hit[0] is snap:
        return hit[1]
    text = f"id: {snap['seq']}\nevent: state\ndata: {json.dumps(snap, ensure_ascii=False)}\n\n".encode()
    with _FRAMES_LOCK:
        _FRAMES[id(snap)] = (snap, text)  # the snapshot is kept with it: its id() is not reused meanwhile
        while len(_FRAMES) > 64:
            del _FRAMES[next(iter(_FRAMES))]
    return text


@bp.get("/api/sessions/<int:sid>/stream")
def stream(sid: int) -> Response | tuple[Response, int, dict[str, str]]:
    s = _session(sid)
    refused = _take_stream()
    if refused is not None:
        return refused
    gate = _gate()
    heartbeat = current_app.extensions["fudaba"]["config"].heartbeat_s
    last = request.headers.get("Last-Event-ID") or request.args.get("last")
    # waitress (fudaba.serve.http_server) reads on while the stream runs and says when the client has
    # gone; elsewhere a closed client is seen on the next write, so quiet streams write every second
    gone = request.environ.get("waitress.client_disconnected")
    keepalive = heartbeat if gone is not None else min(heartbeat, 1.0)
    try:
        sub = s.subscribe()
    except BaseException:
        gate.leave()
        raise
    first = sub.first

    def unsubscribe() -> None:
        s.unsubscribe(sub)
        gate.leave()

    release = _once(unsubscribe)

    def events() -> Iterator[bytes]:
        try:
            yield b"retry: 1500\n\n"
            if last is None or last.strip() != str(first["seq"]) or first["live"] is not None:
                yield _frame(first)  # a follower's view may have changed without a new line
            seen = first["rev"]
            wrote = time.monotonic()
            while True:
                if sub.dropped:
                    yield b"event: resync\ndata: {}\n\n"
                    return
                snap = sub.get(min(POLL_S, keepalive))
                if snap is None:
                    if gone is not None and gone():
                        return
                    if time.monotonic() - wrote >= keepalive:
                        wrote = time.monotonic()
                        yield b": ping\n\n"
                elif snap["rev"] > seen:  # every queued one is later than ``first``: kept as a guard
                    seen = snap["rev"]
                    wrote = time.monotonic()
                    yield _frame(snap)
        finally:
            release()

    response = Response(events(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(release)  # a stream closed before it started runs no ``finally``
    return response


@bp.post("/api/sessions/<int:sid>/event")
def event(sid: int) -> Response:
    ev = _body().get("event")
    if not isinstance(ev, dict):
        raise SessionError("say the event: {\"event\": {\"type\": ..., ...}}", 400)
    return jsonify(seq=_session(sid).play(ev))


@bp.post("/api/sessions/<int:sid>/pick")
def pick(sid: int) -> Response:
    """An event entered by picking cards for one of the snapshot's ``manual.forms``."""
    body = _body()
    kind, seat, cards = body.get("type"), body.get("seat"), body.get("cards")
    if not isinstance(kind, str) or not isinstance(seat, int) or isinstance(seat, bool):
        raise SessionError("say the form: {\"type\": ..., \"seat\": N, \"cards\": [ids]}", 400)
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards) or len(cards) > 60:
        raise SessionError("cards must be a list of card ids", 400)
    return jsonify(_session(sid).pick(kind, seat, cards))


@bp.post("/api/sessions/<int:sid>/undo")
def undo(sid: int) -> Response:
    return jsonify(seq=_session(sid).undo())


@bp.post("/api/sessions/<int:sid>/confirm")
def confirm(sid: int) -> Response:
    return jsonify(seq=_session(sid).confirm())


def _deal_fields(body: dict[str, Any]) -> tuple[dict[str, list[str]], int | None]:
    """A deal's ``face_up`` and ``dealer`` from a request, checked (SessionError 400)."""
    face_up = body.get("face_up") or {}
    dealer = body.get("dealer")
    if not isinstance(face_up, dict) or not all(isinstance(v, list) and all(isinstance(c, str) for c in v)
                                                for v in face_up.values()):
        raise SessionError("face_up must map a deal field to a list of card ids", 400)
    if dealer is not None and (not isinstance(dealer, int) or isinstance(dealer, bool)):
        raise SessionError("dealer must be a seat number", 400)
    return face_up, dealer


@bp.post("/api/sessions/<int:sid>/deal")
def deal(sid: int) -> Response:
    face_up, dealer = _deal_fields(_body())
    return jsonify(seq=_session(sid).deal(dealer, face_up))


@bp.post("/api/sessions/<int:sid>/edit")
def edit(sid: int) -> Response:
    body = _body()
    if not isinstance(body.get("index"), int):
        raise SessionError("say which event and what instead: {\"index\": 3, \"event\": {...}}", 400)
    if isinstance(body.get("deal"), dict):
        deal = body["deal"]
        face_up, dealer = _deal_fields(deal)
        return jsonify(seq=_session(sid).edit_deal(body["index"], dealer, face_up))
    if not isinstance(body.get("event"), dict):
        raise SessionError("say which event and what instead: {\"index\": 3, \"event\": {...}}", 400)
    return jsonify(seq=_session(sid).edit(body["index"], body["event"]))


@bp.get("/api/sessions/<int:sid>/events/<int:index>/alternatives")
def alternatives(sid: int, index: int) -> Response:
    return jsonify(_session(sid).alternatives(index))


@bp.post("/api/sessions/<int:sid>/answer")
def answer(sid: int) -> Response:
    choice = _body().get("choice")
    s = _session(sid)
    if choice == SOMETHING_ELSE:
        question = (s.snapshot().get("live") or {}).get("question")
        if not question:
            raise SessionError("there is no open question", 409)
        choice = len(question["candidates"])
    if not isinstance(choice, int) or isinstance(choice, bool):
        raise SessionError(f"say which candidate: {{\"choice\": 0}}, or {{\"choice\": \"{SOMETHING_ELSE}\"}}", 400)
    s.answer(choice)
    return jsonify(seq=_seq(s))


@bp.post("/api/sessions/<int:sid>/table")
def table_is_right(sid: int) -> Response:
    s = _session(sid)
    s.table_is_right()
    return jsonify(seq=_seq(s))


VIDEO_FPS = 4.0
"""Most pictures per second on the table video stream."""


@bp.get("/api/sessions/<int:sid>/video.mjpeg")
def video(sid: int) -> Response | tuple[Response, int, dict[str, str]]:
    """The table as the camera sees it, top-down with zones and cards drawn (MJPEG, at most
    :data:`VIDEO_FPS` pictures per second); 404 where no camera follows the session."""
    s = _session(sid)
    follower = s.follower
    if follower is None:
        raise SessionError("no camera follows this game", 404)

    def pictures() -> Iterator[bytes]:
        last = None
        while True:
            data = follower.picture()
            if data is not None and data is not last:
                last = data
                yield data
            time.sleep(1.0 / VIDEO_FPS)
            if s.follower is not follower:
                return

    return _mjpeg(pictures(), cache="no-cache")


@bp.get("/api/sessions/<int:sid>/frame.jpg")
def frame(sid: int) -> Response:
    """The camera's last frame (JPEG; its own size in ``X-Frame-Size: W x H``), where a player clicks
    the play area's corners; 404 where no camera follows the game or it has seen nothing yet."""
    follower = _session(sid).follower
    got = follower.frame_picture() if follower is not None else None
    if got is None:
        raise SessionError("no camera picture for this game", 404)
    data, (w, h) = got
    return Response(data, mimetype="image/jpeg", headers={"X-Frame-Size": f"{w}x{h}", "Cache-Control": "no-store"})


@bp.post("/api/sessions/<int:sid>/corners")
def corners(sid: int) -> Response:
    """Calibrate by hand: ``{"corners": [[x, y] × 4]}`` in the camera frame's pixels, clockwise from
    the play area's top-left corner (the mat's marker 0)."""
    s = _session(sid)
    pts = _body().get("corners")
    follower = s.follower  # read once: the follower checked is the one told
    if follower is None:
        raise SessionError("no camera follows this game", 409)
    if not isinstance(pts, list) or len(pts) != 4 or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                        for v in p) for p in pts):
        raise SessionError("give four corners: {\"corners\": [[x, y], [x, y], [x, y], [x, y]]}", 400)
    try:
        follower.set_corners(pts)
    except ValueError as exc:
        raise SessionError(str(exc), 400) from None
    return jsonify(seq=_seq(s))


@bp.get("/api/sessions/<int:sid>/record")
def record(sid: int) -> Response:
    s = _session(sid)
    return Response(s.store.export(sid), mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="fudaba-{s.header.game}-{sid}.jsonl"'})


@bp.post("/api/import")
def import_record() -> tuple[Response, int]:
    upload = request.files.get("record")
    data = upload.read() if upload is not None else request.get_data()
    name = (upload.filename if upload is not None else None) or "upload"
    if not data:
        raise SessionError("send a record: the file as 'record', or the record as the body", 400)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionError(f"{name}: not UTF-8 text (byte {exc.start})", 400) from None
    try:
        sid = _sessions().import_record(text, name).id
    except ScorerError as exc:
        raise SessionError(str(exc), 400) from None
    return jsonify(id=sid, url=url_for("pages.session_page", sid=sid)), 201
