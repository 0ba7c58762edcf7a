"""Game records: JSON Lines, a header object then one event per line (schema: ``record.schema.json``).

Header (line 1)::

    {"format": "fudaba-record", "version": 1, "game": "hachi-hachi", "ruleset": "seed-1910",
     "options": {"kan-size": 12, ...}, "players": [{"seat": 1, "name": "Aki"}, ...],
     "deck": "hanafuda", "start": "2026-11-30T19:00:00+09:00"}

``options`` may list every option or only those that differ from the ruleset. Each further line is
one event of the game (``{"type": "play", "seat": 1, ...}``) or a correction:

* ``{"type": "undo"}`` takes back the last effective event (``"count": n`` takes back n);
* ``{"type": "replace", "event": {...}}`` takes back the last effective event and applies another.

Corrections are appended, never edits in place: replaying the whole file gives the current game.
Blank lines are ignored. Any problem is reported as :class:`~scorer.errors.RecordError`
``file:line: reason``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorer import rulesets
from scorer.errors import RecordError, ScorerError
from scorer.events import Event
from scorer.games import GameSpec, game
from scorer.match import Match, Player

FORMAT = "fudaba-record"
VERSION = 1
CORRECTIONS = ("undo", "replace")


@dataclass(frozen=True)
class Header:
    """The first line of a record."""

    game: str
    """Game name (``hachi-hachi``, ``bagaji``, ``poka``)."""
    ruleset: str
    """Ruleset name."""
    options: dict[str, Any]
    """Option values (dashed names); omitted ones take the ruleset's value."""
    players: tuple[Player, ...]
    """Seated players in seat order."""
    deck: str
    """Deck name (see ``scorer.cards.decks``)."""
    start: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    """ISO 8601 start time."""

    def to_json(self) -> dict[str, Any]:
        """The header object as written to line 1."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "players": [p.to_json() for p in self.players],
            "deck": self.deck,
            "start": self.start,
        }

    @classmethod
    def for_match(cls, match: Match, ruleset: str, start: str | None = None) -> Header:
        """The header describing ``match`` (every option written out)."""
        kwargs: dict[str, Any] = {}
        if start:
            kwargs["start"] = start
        return cls(
            game=match.GAME,
            ruleset=ruleset,
            options=rulesets.to_json(match.options),
            players=match.players,
            deck=match.deck,
            **kwargs,
        )

    def new_match(self) -> Match:
        """A fresh match set up as this header says."""
        spec = game(self.game)
        options = spec.options(self.ruleset, self.options)
        return spec.match(self.players, options, deck=self.deck)


@dataclass
class Record:
    """A header and the raw lines that follow it, corrections included."""

    header: Header
    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(line number, JSON object) of every event or correction."""
    path: str = "<record>"
    """Where the record came from, for messages."""

    def replay(self) -> Match:
        """The match after every line; raise ``RecordError`` naming the first bad line."""
        try:
            match = self.header.new_match()
        except (ScorerError, ValueError) as exc:
            raise RecordError(self.path, 1, f"bad header: {exc}") from None
        spec = game(self.header.game)
        for lineno, obj in self.entries:
            try:
                apply_line(match, spec, obj)
            except ScorerError as exc:
                raise RecordError(self.path, lineno, str(exc)) from None
        return match

    def dumps(self) -> str:
        """The record as JSON Lines text."""
        lines = [json.dumps(self.header.to_json(), ensure_ascii=False)]
        lines.extend(json.dumps(obj, ensure_ascii=False) for _n, obj in self.entries)
        return "\n".join(lines) + "\n"


def apply_line(match: Match, spec: GameSpec, obj: dict[str, Any]) -> None:
    """Apply one record line (an event or a correction) to ``match``."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind == "undo":
        count = obj.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ScorerError("undo: 'count' must be a positive integer")
        if count > len(match.events):
            raise ScorerError(f"undo: cannot take back {count} events, only {len(match.events)} applied")
        for _ in range(count):
            match.undo()
        return
    if kind == "replace":
        inner = obj.get("event")
        event = match.EVENTS.from_json(inner)
        if not match.events:
            raise ScorerError("replace: there is no event to replace")
        old = match.undo()
        try:
            match.apply(event)
        except ScorerError:
            match.apply(old)
            raise
        return
    match.apply(match.EVENTS.from_json(obj))


def parse_header(obj: Any, path: str = "<record>") -> Header:
    """Check and build a :class:`Header` from the first line's object."""
    if not isinstance(obj, dict):
        raise RecordError(path, 1, "the first line must be the header object")
    if obj.get("format") != FORMAT:
        raise RecordError(path, 1, f"not a fudaba record (format must be {FORMAT!r})")
    if obj.get("version") != VERSION:
        raise RecordError(path, 1, f"unsupported record version {obj.get('version')!r}; this is {VERSION}")
    for key, kind in (("game", str), ("ruleset", str), ("deck", str), ("players", list)):
        if not isinstance(obj.get(key), kind):
            raise RecordError(path, 1, f"header field {key!r} is missing or not a {kind.__name__}")
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(path, 1, "header field 'options' must be an object")
    players = []
    for i, p in enumerate(obj["players"]):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or p.get("seat") != i + 1:
            raise RecordError(path, 1, f"player {i + 1}: need {{'seat': {i + 1}, 'name': '...'}}")
        players.append(Player(p["seat"], p["name"]))
    try:
        game(obj["game"])
    except ValueError as exc:
        raise RecordError(path, 1, str(exc)) from None
    return Header(
        game=obj["game"],
        ruleset=obj["ruleset"],
        options=options,
        players=tuple(players),
        deck=obj["deck"],
        start=str(obj.get("start", "")),
    )


def loads(text: str, path: str = "<record>") -> Record:
    """Parse JSON Lines text into a :class:`Record` (events are not applied yet)."""
    header: Header | None = None
    entries: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(path, lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
        if header is None:
            header = parse_header(obj, path)
            continue
        if not isinstance(obj, dict):
            raise RecordError(path, lineno, "each event must be a JSON object")
        entries.append((lineno, obj))
    if header is None:
        raise RecordError(path, 1, "empty record: the first line must be the header")
    return Record(header, entries, path)


def load(path: str | Path) -> Record:
    """Read a record file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(str(path), 0, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(str(path), 0, "not UTF-8 text") from None
    return loads(text, str(path))


def export(match: Match, ruleset: str, start: str | None = None) -> Record:
    """A record of ``match``'s effective events (no corrections needed)."""
    header = Header.for_match(match, ruleset, start)
    entries = [(i + 2, e.to_json()) for i, e in enumerate(match.events)]
    return Record(header, entries)


def events_of(record: Record) -> Iterable[Event]:
    """The effective events of a record (after its corrections)."""
    return record.replay().events
