"""The session runtime: one match, its record in the history, and everyone watching it.

Everything that changes a game — an event a player taps, a correction, later the tracker's commits
and the stone counter's buttons — goes through :meth:`Session.submit` (or :meth:`Session.edit`),
one at a time under the session's lock, in this order:

1. a game event without ``at`` (or with ``null``) gets the seconds since the match started (the
   header's ``start``), which Bagaji's session clock reads; a player's ``at`` must be a finite
   number from 0 (the start) to :data:`AT_AHEAD_S` past the server's clock (400 saying why;
   the camera's own lines keep the video's time); the line is checked by applying it to a fork of the match
   (an illegal event or correction is refused with the rule's reason and changes nothing);
2. it is committed to the store (:class:`fudaba.store.Store`) with the next ``seq``, and the lines,
   the ``seq`` and the fork are put in place as the session's;
3. only then is everyone told: every subscriber's queue gets the new snapshot.

A subscriber's queue is bounded (:data:`QUEUE_SIZE`); a subscriber whose queue is full is marked
``dropped`` (its stream ends and its client reconnects to a fresh snapshot) rather than slowing the
session. A snapshot (:meth:`Session.snapshot`, numbered by ``rev``, which grows with every
publication, also when only the follower's view changed) is plain JSON: the players, the totals and each
settled round, what the match expects, where the cards are, the log of record lines, and for
manual play the legal events (or, where a deal is due, what entering one needs:
:class:`scorer.deals.DealForm`). Its ``seq`` is the record's last sequence number: the event id of
the dashboard's stream.

Reading a session (every thread: the web's handlers, the stone counter, the camera's feed): its shared
state — ``match``, ``lines``, ``seq``, its watchers, the follower's and the counter's views — is read
either under :attr:`Session.lock` or from a snapshot, which is built under it, so its parts (the
``seq``, the log, the totals, the legal events) are of one moment, and which is never changed once
built (a change makes a new one: treat it as read-only). A watcher's first snapshot is taken with
its subscription under the lock (:attr:`Subscription.first`), so every snapshot its queue gets is
later (a higher ``rev``): a watcher never sees the game go back. A change is staged on a fork of the
match (:meth:`scorer.match.Match.fork`) and made the session's only once it is stored, by putting
new objects in place — ``lines`` and ``seq`` first, ``match`` last — never by changing the published
match or list of lines: a refused change never touches them, and even a reader without the lock
that reads ``match`` before ``lines`` cannot see a match newer than its lines (issue 49).

:class:`Sessions` holds the open sessions of one store: it creates them and opens (resumes) them
from the history by id, replaying their lines.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, Protocol

from fudaba.store import Store, StoreError
from scorer import record as records
from scorer.cards import deck as deck_spec
from scorer.deals import deal_form, observer_deal
from scorer.errors import ScorerError
from scorer.events import Event
from scorer.forms import card_forms, picked_events, unlisted_events
from scorer.games import GameSpec, game
from scorer.match import Match, NotEnumerableError, Player

QUEUE_SIZE = 64
"""Snapshots a subscriber may have waiting before it is dropped."""
LOG_LINES = 200
"""Record lines a snapshot carries (the most recent)."""
LEGAL_LIMIT = 600
"""Legal events a snapshot lists at most (manual play); more are said to be cut."""
AT_AHEAD_S = 60.0
"""How far ahead of the server's clock a player's event may say it happened (``at``), seconds."""
SOURCES_FROM_PLAYERS = ("dashboard", "button", "answer", "table", "import")
"""Sources a line may be submitted with from outside the tracker."""


class SessionError(Exception):
    """A request the session refuses: what and why, for the player who made it."""

    def __init__(self, message: str, status: int = 409, rule: str = "") -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status that fits (404: no such session; 400: malformed; 409: refused by the rules)."""
        self.rule = rule
        """The rule broken where the rules refused (:attr:`scorer.errors.IllegalEventError.rule`)."""


@dataclass(eq=False)
class Subscription:
    """One watcher of a session: the snapshot when it subscribed, and a bounded queue of the later ones."""

    queue: queue.Queue[dict[str, Any]]
    dropped: bool = False
    """True once the watcher fell :data:`QUEUE_SIZE` snapshots behind: it must resync (subscribe again)."""
    first: dict[str, Any] = field(default_factory=dict)
    """The session's snapshot at the moment it subscribed, taken under the session's lock: every
    snapshot the queue gets is later (its ``rev`` is higher), so show this one first."""

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The next snapshot, or None when none came within ``timeout`` seconds."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


def event_cards(event: Event, ids: frozenset[str]) -> list[str]:
    """The card ids an event names (its string and tuple-of-string fields that are cards)."""
    out: list[str] = []
    for f in fields(event):
        v = getattr(event, f.name)
        for x in v if isinstance(v, tuple) else (v,):
            if isinstance(x, str) and x in ids:
                out.append(x)
    return out


class Follower(Protocol):
    """Something that follows the game from elsewhere and is told of the session's match (the live
    feed from a camera: :class:`fudaba.live.LiveFeed`). :meth:`changed` is called under the
    session's lock; :meth:`answer` and :meth:`table_is_right` outside it (the follower's own
    thread applies what they commit, taking the lock itself)."""

    def changed(self, match: Match) -> None:
        """A player changed the game (or the match was rebuilt): ``match`` is the session's match now,
        which nobody changes in place (follow a fork of it)."""

    def answer(self, choice: int) -> None:
        """A player answered the open question with candidate ``choice`` (from 0); ``choice`` equal
        to the number of candidates is "something else": none of them, the players enter what
        happened by hand."""

    def table_is_right(self) -> None:
        """A player says the table as seen is right: find the events that lead to it."""

    def view(self) -> dict[str, Any]:
        """What the follower shows: its state, question, desync, camera (plain JSON)."""

    def picture(self) -> bytes | None:
        """The table as the follower sees it now, as a JPEG (None: nothing seen yet)."""

    def frame_picture(self) -> tuple[bytes, tuple[int, int]] | None:
        """The camera's last frame as a JPEG and the frame's size in px (None: nothing seen yet)."""

    def set_corners(self, corners: list[list[float]]) -> None:
        """Calibrate by hand from the play area's four corners (frame px, clockwise from top-left)."""


class Session:
    """A match, its record in the store, and its subscribers (module docstring)."""

    def __init__(self, store: Store, session_id: int, replayed: Match | None = None) -> None:
        """Open session ``session_id`` of ``store``, replaying its lines (``replayed``: the match they
        leave, already replayed, as an import has it: not replayed again)."""
        self.store = store
        self.id = session_id
        try:
            self.header: records.Header = store.header(session_id)
        except StoreError as exc:
            raise SessionError(str(exc), 404) from None
        self.spec: GameSpec = game(self.header.game)
        self.title = next((s.title for s in store.sessions() if s.id == session_id), f"session {session_id}")
        self._lock = threading.RLock()
        self._subs: set[Subscription] = set()
        self._snapshot: dict[str, Any] | None = None
        self._card_ids = frozenset(deck_spec(self.header.deck).cards)
        self._deck_order = list(dict.fromkeys(deck_spec(self.header.deck).cards))
        """The deck's distinct card ids in the deck's order (a card picker's grid)."""
        self.follower: Follower | None = None
        self.counter: Any = None
        """The stone counter's link (:class:`fudaba.counter.CounterLink`), when one is attached."""
        self._rev = 0
        self._manual_cache: tuple[tuple[int, int, int], dict[str, Any]] | None = None
        self._log_cache: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}
        """The snapshot's log entries of the latest lines: seq → (the line, its entry)."""
        self._rebuild(replayed)

    @property
    def lock(self) -> threading.RLock:
        """Held while the game changes; hold it to read ``match``, ``lines`` and ``seq`` together
        (module docstring), or to decide and make a change as one step (the stone counter's buttons,
        the camera's commits). Re-entrant."""
        return self._lock

    def attach_counter(self, link: Any) -> None:
        """Show ``link``'s view (a stone counter) in the snapshot as ``counter``."""
        with self._lock:
            self.counter = link
            self._snapshot = None

    def attach(self, follower: Follower) -> None:
        """Let ``follower`` share this session's match (one at a time)."""
        with self._lock:
            self.follower = follower
            self._snapshot = None

    # ------------------------------------------------------------------ state
    def _rebuild(self, replayed: Match | None = None) -> None:
        """Replay the stored lines into a fresh match (``replayed``: the match they leave, given) and
        put it in place (lines and seq first, the match last: module docstring). Called at start
        and, under the lock, when the store failed."""
        lines = self.store.lines(self.id)
        match = replayed if replayed is not None else self.header.new_match()
        for line in lines if replayed is None else ():
            try:
                records.apply_line(match, self.spec, dict(line))
            except (ScorerError, ValueError) as exc:
                raise SessionError(f"session {self.id}, line seq {line.get('seq')}: {exc}", 500) from None
        self.lines: list[dict[str, Any]] = lines
        """The record's lines, in order (replaced, never changed in place, by each change)."""
        self.seq = int(lines[-1]["seq"]) if lines else 0
        """The record's last sequence number (0: no line yet)."""
        self.match: Match = match
        """The game as the record has it (replaced, never changed in place, by each change)."""
        self._snapshot = None
        follower = getattr(self, "follower", None)
        if follower is not None:
            follower.changed(self.match)

    # ------------------------------------------------------------------ changes
    def submit(self, line: Mapping[str, Any], source: str = "dashboard",
               evidence: Mapping[str, Any] | None = None) -> int:
        """Check, commit and publish one record line (an event or ``undo``/``replace``/``confirm``);
        its ``seq``. SessionError (400 malformed, 409 refused) changes nothing."""
        return self.submit_many([line], source, evidence)

    def submit_many(self, lines: Sequence[Mapping[str, Any]], source: str = "dashboard",
                    evidence: Mapping[str, Any] | None = None, from_follower: bool = False) -> int:
        """Several lines as one change: all are checked (on a fork of the match) before any is
        committed, and subscribers are told once; the follower is told unless the lines are its own
        (``from_follower``). The ``seq`` of the last (no lines: the ``seq`` now; nothing is
        published). A refused line (SessionError 400 malformed,
        409 refused by the rules) refuses them all, and the session's match, lines and seq are
        never touched: no reader ever sees a refused change."""
        if source not in records.SOURCES:
            raise SessionError(f"unknown source {source!r}", 400)
        with self._lock:
            match = self.match.fork()
            staged: list[dict[str, Any]] = []
            for raw in lines:
                if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
                    raise SessionError("a line must be a JSON object with a string 'type'", 400)
                clash = [k for k in records.META_KEYS if k in raw]
                if clash:
                    raise SessionError(f"a submitted line may not carry {', '.join(clash)}", 400)
                if not from_follower:
                    self._check_at(raw)
                line = {**raw, "source": source, "seq": self.seq + len(staged) + 1}
                if raw["type"] not in records.CORRECTIONS and raw.get("at") is None:
                    line.pop("at", None)
                    line = {"type": raw["type"], "at": self.now_s(), **line}
                if evidence is not None:
                    line["evidence"] = dict(evidence)
                try:
                    records.apply_line(match, self.spec, dict(line))
                except (ScorerError, ValueError) as exc:
                    raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None
                staged.append(line)
            if not staged:
                return self.seq
            self._commit(staged, match)
            if self.follower is not None and not from_follower:
                self.follower.changed(self.match)
            self._publish()
            return self.seq

    def _commit(self, staged: list[dict[str, Any]], match: Match) -> None:
        """Store ``staged`` (lines already applied to ``match``, a fork of the session's) and put
        them and ``match`` in place as the record's (lines and seq first, the match last: module
        docstring); when the store fails, the session goes back to what it holds and the error is
        raised. The caller holds the lock."""
        try:
            for line in staged:
                self.store.append(self.id, line, finished=match.is_over and line is staged[-1])
        except BaseException:
            self._rebuild()
            raise
        self.lines = [*self.lines, *staged]
        self.seq = int(staged[-1]["seq"])
        self.match = match
        self._snapshot = None

    def _check_at(self, line: Mapping[str, Any]) -> None:
        """SessionError 400 saying why where a line from a player carries an ``at`` (its own, or its
        ``replace``'s event's) that is not a finite number of seconds from the game's start (0 s)
        to :data:`AT_AHEAD_S` past the server's clock (:meth:`now_s`)."""
        for obj in (line, line.get("event")):
            at = obj.get("at") if isinstance(obj, Mapping) else None
            if at is None:
                continue
            if not isinstance(at, int | float) or isinstance(at, bool) or (isinstance(at, float) and not math.isfinite(at)):
                raise SessionError(f"'at' must be the seconds since the game started, a number; got {at!r}", 400)
            if at < 0:
                raise SessionError(f"'at' {at} s is before the game's start (0 s)", 400)
            now = self.now_s()
            if at > now + AT_AHEAD_S:
                raise SessionError(f"'at' {at} s is ahead of the server's clock ({now} s since the game started) "
                                   f"by more than {AT_AHEAD_S:.0f} s", 400)

    def now_s(self) -> float:
        """Seconds since the match started (the header's start), for an event's ``at``: what drives
        Bagaji's session clock."""
        try:
            start = datetime.fromisoformat(self.header.start)
        except ValueError:
            return 0.0
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        return round(max(0.0, (datetime.now(UTC) - start).total_seconds()), 1)

    def apply_tracked(self, lines: Sequence[Mapping[str, Any]], source: str,
                      evidence: Mapping[str, Any] | None = None) -> int:
        """Apply, commit and publish what the follower's tracker committed (its commits, repairs and
        the answers to its questions), checked like any other change: all or nothing. The tracker
        works on its own fork of the match, so it is not told again (:meth:`submit_many` tells the
        follower of every other change). The ``seq`` of the last; SessionError (nothing changes)
        when the session's match no longer takes them (a player changed the game meanwhile)."""
        return self.submit_many(lines, source, evidence, from_follower=True)

    def refresh(self) -> None:
        """Something shown beside the game changed (the camera's view, the stone counter's link):
        tell everyone."""
        with self._lock:
            self._snapshot = None
            self._publish()

    def answer(self, choice: int) -> None:
        """A player's answer to the follower's open question, handed to the follower outside the
        session's lock: the follower's thread handles it and takes the lock to apply what it
        commits (:mod:`vision.follow`, "Threads")."""
        with self._lock:
            follower = self.follower
        if follower is None:
            raise SessionError("nothing is following this game from a camera: there is no question", 409)
        try:
            follower.answer(choice)
        except (ScorerError, ValueError) as exc:
            raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None

    def table_is_right(self) -> None:
        """A player says the table as the camera sees it is right; handed to the follower as
        :meth:`answer` is."""
        with self._lock:
            follower = self.follower
        if follower is None:
            raise SessionError("nothing is following this game from a camera", 409)
        try:
            follower.table_is_right()
        except (ScorerError, ValueError) as exc:
            raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None

    def play(self, event_json: Mapping[str, Any], source: str = "dashboard") -> int:
        """Apply one game event given as its JSON object; its ``seq``."""
        return self.submit(event_json, source)

    def undo(self, source: str = "dashboard") -> int:
        """Take back the last event; its ``seq`` (the undo line's)."""
        return self.submit({"type": "undo"}, source)

    def confirm(self, source: str = "dashboard") -> int:
        """A player confirms the last event."""
        return self.submit({"type": "confirm"}, source)

    def deal(self, dealer: int | None, face_up: Mapping[str, Sequence[str]], source: str = "dashboard") -> int:
        """Enter the deal due now by who dealt and its face-up cards (observer form)."""
        with self._lock:
            try:
                event = observer_deal(self.match, face_up, dealer)
            except ScorerError as exc:
                raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None
            return self.submit(event.to_json(), source)

    def pick(self, form_type: str, seat: int, cards: Sequence[str],
             source: str = "dashboard") -> dict[str, Any]:
        """Enter an event by the cards picked for one of the snapshot's ``forms``
        (:mod:`scorer.forms`): ``{"seq"}`` once applied, or, where the cards can mean several
        events (a teyaku's name), ``{"choose": [{"event", "text"}, ...]}`` and nothing changes. A pick
        the rules refuse: SessionError 409 with the rules' reason."""
        with self._lock:
            try:
                events = picked_events(self.match, form_type, seat, cards)
            except ScorerError as exc:
                raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None
            if len(events) > 1:
                return {"choose": [{"event": e.to_json(), "text": e.describe()} for e in events]}
            return {"seq": self.submit(events[0].to_json(), source)}

    def edit(self, index: int, event_json: Mapping[str, Any], source: str = "dashboard") -> int:
        """Put ``event_json`` in place of effective event ``index`` (from 0) and apply every later
        event again: written as one ``undo`` of the events from ``index`` on, the new event and the
        later ones again. Refused (409, nothing changes) when a later event is no longer legal."""
        with self._lock:
            events = self.match.events
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(events):
                raise SessionError(f"there is no event {index} to edit (events 0 to {len(events) - 1})", 400)
            later = [e.to_json() for e in events[index + 1:]]
            return self.submit_many([{"type": "undo", "count": len(events) - index}, dict(event_json), *later], source)

    def _before(self, index: int) -> Match:
        """A copy of the match as it was before effective event ``index`` (SessionError 400 when
        there is no such event). It reads the match once, under the lock; a caller that uses the copy with
        the match's other parts (the event at ``index``) holds the lock around both."""
        with self._lock:
            events = self.match.events
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(events):
            raise SessionError(f"there is no event {index} (events 0 to {len(events) - 1})", 400)
        m = self.header.new_match()
        for e in events[:index]:
            m.apply(e)
        return m

    def alternatives(self, index: int) -> dict[str, Any]:
        """What could have happened instead of effective event ``index``: the event, and the legal
        events (or the deal form) at that point, as :meth:`snapshot`'s ``manual``."""
        with self._lock:
            m = self._before(index)
            event = self.match.events[index]
            return {"index": index, "event": event.to_json(), "text": event.describe(), **self._choices(m)}

    def edit_deal(self, index: int, dealer: int | None, face_up: Mapping[str, Sequence[str]],
                  source: str = "dashboard") -> int:
        """Put another deal (who dealt and its face-up cards) in place of the deal at ``index``."""
        with self._lock:
            m = self._before(index)
            if self.match.events[index].TYPE != "deal":
                raise SessionError(f"event {index} is not a deal", 400)
            try:
                event = observer_deal(m, face_up, dealer)
            except ScorerError as exc:
                raise SessionError(str(exc), 409, getattr(exc, "rule", "")) from None
            return self.edit(index, event.to_json(), source)

    def events_view(self, limit: int = 80) -> list[dict[str, Any]]:
        """The effective events (the game as it stands), the latest ``limit``: index and words."""
        with self._lock:
            events = self.match.events
        first = max(0, len(events) - limit)
        return [{"i": first + k, "text": e.describe(), "type": e.TYPE, "event": e.to_json()}
                for k, e in enumerate(events[first:])]

    # ------------------------------------------------------------------ watchers
    def subscribe(self) -> Subscription:
        """A new watcher: show its ``first`` snapshot (taken as it subscribed, under the lock), then
        what its queue gets (every later snapshot, in order)."""
        with self._lock:
            sub = Subscription(queue.Queue(QUEUE_SIZE), first=self.snapshot())
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a watcher (harmless twice)."""
        with self._lock:
            self._subs.discard(sub)

    @property
    def watchers(self) -> int:
        """Subscribers now."""
        with self._lock:
            return len(self._subs)

    def _publish(self) -> None:
        """Give every subscriber the new snapshot (a higher ``rev``); the caller holds the lock."""
        self._snapshot = None
        self._rev += 1
        snap = self.snapshot()
        for sub in list(self._subs):
            try:
                sub.queue.put_nowait(snap)
            except queue.Full:
                sub.dropped = True
                self._subs.discard(sub)

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> dict[str, Any]:
        """The session as plain JSON (module docstring), all of one moment (built under the lock);
        the same object until the next change, and never changed (read it only)."""
        with self._lock:
            if self._snapshot is None:
                self._snapshot = self._build_snapshot()
            return self._snapshot

    def _build_snapshot(self) -> dict[str, Any]:
        """The snapshot of the session now; the caller holds the lock."""
        m = self.match
        places = m.table_places()
        return {
            "session": {"id": self.id, "title": self.title, "game": m.GAME, "game_title": self.spec.title,
                        "ruleset": self.header.ruleset, "deck": m.deck, "cards": self._deck_order, "unit": m.UNIT,
                        "lower_is_better": m.LOWER_IS_BETTER,
                        "players": [p.to_json() for p in m.players]},
            "seq": self.seq,
            "rev": self._rev,
            "status": m.status().to_json(),
            "leaders": list(m.leaders()),
            "results": [r.to_json() for r in m.results],
            "clock": self._clock(),
            "places": places.to_json() if places is not None else {},
            "log": self._log(),
            "events": self.events_view(),
            "manual": self._manual(),
            "live": self.follower.view() if self.follower is not None else None,
            "counter": self.counter.view() if self.counter is not None else None,
            "pool": m.pool if isinstance(getattr(type(m), "pool", None), property) else None,
        }

    def _clock(self) -> dict[str, Any] | None:
        """Bagaji's session clock: the match's start, the seconds its events have reached and the
        limit (None for a game without one)."""
        limit = getattr(self.match.options, "end_after_minutes", None)
        if limit is None:
            return None
        return {"start": self.header.start, "elapsed_s": float(getattr(self.match.state, "clock", 0.0)),
                "limit_s": limit * 60 if limit > 0 else None}

    def _log(self) -> list[dict[str, Any]]:
        """The latest record lines in words (an event's ``describe``; corrections said plainly),
        with the event itself (``event``: its JSON, for a page to say it in its own language). A
        line's entry is made once and shared by the snapshots that show it (a line is never
        changed: the entry is kept for as long as that very line object is among the latest)."""
        out: list[dict[str, Any]] = []
        cache: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}
        for line in self.lines[-LOG_LINES:]:
            hit = self._log_cache.get(line.get("seq"))
            entry = hit[1] if hit is not None and hit[0] is line else self._log_entry(line)
            cache[line.get("seq")] = (line, entry)
            out.append(entry)
        self._log_cache = cache
        return out

    def _log_entry(self, line: dict[str, Any]) -> dict[str, Any]:
        """One record line in words, for :meth:`_log`."""
        kind = line.get("type")
        event = None
        if kind == "undo":
            n = line.get("count", 1)
            text = "undo" + (f" {n} events" if n != 1 else "")
        elif kind == "confirm":
            text = "confirmed"
        else:
            obj = line.get("event") if kind == "replace" else line
            try:
                ev = self.match.EVENTS.from_json({k: v for k, v in obj.items() if k not in records.META_KEYS})
                text, event = ev.describe(), ev.to_json()
            except (ScorerError, AttributeError, TypeError, ValueError):
                text = str(kind)
            if kind == "replace":
                text = f"replaced by: {text}"
        return {"seq": line.get("seq"), "type": kind, "text": text, "source": line.get("source"),
                "event": event, "count": line.get("count", 1) if kind == "undo" else None}

    def _manual(self) -> dict[str, Any]:
        """What manual play may do now: the legal events (cut at :data:`LEGAL_LIMIT`) or a deal form;
        listed once per state of the game (a snapshot republished for the camera's or the counter's
        view reuses it)."""
        key = (self.seq, id(self.match), self.match.event_count)
        if self._manual_cache is None or self._manual_cache[0] != key:
            self._manual_cache = (key, self._choices(self.match))
        return self._manual_cache[1]

    def _choices(self, m: Match) -> dict[str, Any]:
        """What may happen next in ``m``: the legal events (cut at :data:`LEGAL_LIMIT`) or a deal form."""
        if m.is_over:
            return {"over": True, "legal": [], "deal": None}
        anytime = list(unlisted_events(m))
        form = deal_form(m)
        if form is not None:
            return {"over": False, "legal": [self._item(e) for e in anytime], "deal": {**form.to_json(),
                    "cards": sorted(set(self._card_ids))}, "forms": []}
        forms = [f.to_json() for f in card_forms(m)]
        try:
            legal = m.legal_events()
        except NotEnumerableError:
            return {"over": False, "legal": [self._item(e) for e in anytime], "deal": None, "forms": forms,
                    "not_listed": not forms}
        items = [self._item(e) for e in [*legal[:LEGAL_LIMIT], *anytime]]
        return {"over": False, "legal": items, "deal": None, "forms": forms, "cut": max(0, len(legal) - LEGAL_LIMIT)}

    def _item(self, e: Event) -> dict[str, Any]:
        """A legal event as manual play lists it."""
        return {"event": e.to_json(), "type": e.TYPE, "seat": getattr(e, "seat", None), "text": e.describe(),
                "cards": event_cards(e, self._card_ids)}


class Sessions:
    """The open sessions of one store, by id (thread-safe)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._open: dict[int, Session] = {}
        self._lock = threading.Lock()

    def get(self, session_id: int) -> Session:
        """The session ``session_id``, opened (resumed from the store) on first use; SessionError 404."""
        with self._lock:
            if session_id not in self._open:
                self._open[session_id] = Session(self.store, session_id)
            return self._open[session_id]

    def create(self, game_name: str, players: Iterable[str], ruleset: str | None = None,
               options: Mapping[str, Any] | None = None, deck: str | None = None, title: str | None = None) -> Session:
        """A new session of ``game_name`` with seated ``players`` (names, in seat order)."""
        try:
            spec = game(game_name)
            names = [str(p).strip() for p in players]
            if any(not n for n in names):
                raise ValueError("every seat needs a name")
            if not spec.min_players <= len(names) <= spec.max_players:
                raise ValueError(f"{spec.title} seats {spec.min_players} to {spec.max_players} players, "
                                 f"not {len(names)}")
            chosen = ruleset or spec.default_ruleset
            opts = spec.options(chosen, options or {})
            match = spec.match([Player(i + 1, n) for i, n in enumerate(names)], opts, deck=deck)
        except (ScorerError, ValueError, TypeError) as exc:
            raise SessionError(str(exc), 400) from None
        return self.create_from(records.Header.for_match(match, chosen), title)

    def import_record(self, text: str, name: str = "<record>", title: str | None = None) -> Session:
        """A new session holding the record ``text``, opened: the record is replayed once, to check it
        (:meth:`fudaba.store.Store.import_replayed`: all or nothing), and the session starts from
        the match that replay left. RecordError ``name:line: reason``: nothing is stored."""
        sid, match = self.store.import_replayed(text, name, title)
        with self._lock:
            self._open[sid] = Session(self.store, sid, match)
            return self._open[sid]

    def create_from(self, header: records.Header, title: str | None = None) -> Session:
        """A new session of the game ``header`` describes."""
        return self.get(self.store.create(header, title))
