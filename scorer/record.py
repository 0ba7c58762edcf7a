"""Game records: JSON Lines, a header object then one event per line (schema: ``record.schema.json``).

Header (line 1)::

    {"format": "fudaba-record", "version": 1, "game": "hachi-hachi", "ruleset": "seed-1910",
     "options": {"kan-size": 12, ...}, "players": [{"seat": 1, "name": "Aki"}, ...],
     "deck": "hanafuda", "start": "2026-11-30T19:00:00+09:00"}

``options`` may list every option or only those that differ from the ruleset. Each further line is
one event of the game (``{"type": "play", "seat": 1, ...}``) or a correction:

* ``{"type": "undo"}`` takes back the last effective event (``"count": n`` takes back n);
* ``{"type": "replace", "event": {...}}`` takes back the last effective event and applies another;
* ``{"type": "confirm"}`` says a player confirmed the last effective event (a claim or settlement
  waiting for one, or a guess); it changes nothing in the match, and needs an event to confirm.

Corrections are appended, never edits in place: replaying the whole file gives the current game.

Record-level keys (every key optional, on any event or correction line, never inside a
``replace``'s ``event``); they are checked, kept in :attr:`Record.entries` so a dump round-trips,
and removed before the event is built, so the engines never see them:

* ``source`` — who or what produced the line, one of :data:`SOURCES`: ``camera`` (the tracker,
  from camera frames), ``button`` (a stone-counter button), ``dashboard`` (entered on the
  dashboard), ``import`` (taken from elsewhere: typed in, converted, simulated), ``answer`` (a
  player's answer to a question the tracker asked), ``guess`` (the tracker's most likely answer
  to a question nobody answered) or ``table`` (events the tracker found when a player said the
  table is right);
* ``seq`` — the line's sequence number in a live record, a positive integer; the lines that carry
  one must carry strictly increasing numbers (gaps allowed);
* ``evidence`` — a JSON object saying why the line was written, free-form, e.g.
  ``{"frames": [12.4, 13.1], "confidence": 0.97, "note": "..."}`` (frame times in seconds since
  the match started, confidence 0-1).

Observer and full records. A deal says what the recorder knew: ``hands`` per seat are the card ids
(a *full* deal: simulations, tests, a typed-in game) or a count of face-down cards (an *observer*
deal), and the stock is its ids or its size (Poka: ``null``); draws and plays name their cards as
they are seen. A live table (the camera's tracker) writes observer records: hidden hands and the
stock as counts, every card named when it shows. Both replay to the same settlements; neither is
turned into the other on reading or writing.

:class:`RecordWriter` writes a live record: the header, then one line per :meth:`RecordWriter.append`,
each written and flushed (optionally ``fsync``-ed) before ``append`` returns, numbered by ``seq``,
so killing the process loses no line already appended.

Lines are separated by ``\n`` (a ``\r`` before it is dropped); blank lines are ignored. Any
problem is reported as :class:`~scorer.errors.RecordError` ``file:line: reason``: bytes that are not
UTF-8, JSON that does not parse, is nested too deeply or holds a number that is not finite
(``NaN``, ``Infinity``, ``1e400``), a bad record-level key, a bad event; a file
that cannot be read at all as ``file: reason``, without a line. :func:`load` reads ``-`` as standard
input, named ``<stdin>`` in messages.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from scorer import rulesets
from scorer.errors import RecordError, ScorerError
from scorer.events import Event
from scorer.games import GameSpec, game
from scorer.match import Match, Player

FORMAT = "fudaba-record"
VERSION = 1
CORRECTIONS = ("undo", "replace", "confirm")
SOURCES: dict[str, str] = {
    "camera": "the tracker, from camera frames",
    "button": "a stone-counter button",
    "dashboard": "entered on the dashboard",
    "import": "taken from elsewhere: typed in, converted or simulated",
    "answer": "a player's answer to a question the tracker asked",
    "guess": "the tracker's most likely answer to a question nobody answered",
    "table": "found by the tracker when a player said the table is right (the table is like this)",
    "resync": "found by the tracker on its own after it was out of sync: the legal events that lead from the game "
              "it had committed to a settled table it saw (its evidence says which events it took back first)",
}
"""The values of a line's ``source`` key and what each means."""
META_KEYS = ("source", "seq", "evidence")
"""Record-level keys of a line: checked and kept, never passed to the engines."""


@dataclass(frozen=True, slots=True)
class LineMeta:
    """The record-level keys of one line (each None when absent)."""

    source: str | None = None
    """One of :data:`SOURCES`."""
    seq: int | None = None
    """The line's sequence number in a live record, from 1."""
    evidence: dict[str, Any] | None = None
    """Why the line was written: a free-form JSON object (frame times in seconds, confidence 0-1)."""

    def to_json(self) -> dict[str, Any]:
        """The keys that are set, as written on the line."""
        out: dict[str, Any] = {}
        if self.source is not None:
            out["source"] = self.source
        if self.seq is not None:
            out["seq"] = self.seq
        if self.evidence is not None:
            out["evidence"] = self.evidence
        return out


def split_line(obj: Mapping[str, Any]) -> tuple[dict[str, Any], LineMeta]:
    """The line without its record-level keys, and those keys checked.

    Raise :class:`ScorerError` naming the key when ``source`` is not one of :data:`SOURCES`,
    ``seq`` not a positive integer or ``evidence`` not an object (``null`` is none of these). A
    line without such keys comes back as it is (not copied).
    """
    if "source" not in obj and "seq" not in obj and "evidence" not in obj:
        return obj if isinstance(obj, dict) else dict(obj), LineMeta()
    source = obj.get("source")
    if "source" in obj and (not isinstance(source, str) or source not in SOURCES):
        raise ScorerError(f"'source' must be one of {', '.join(SOURCES)}; got {_shown(source)}")
    seq = obj.get("seq")
    if "seq" in obj and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise ScorerError(f"'seq' must be a positive integer; got {_shown(seq)}")
    evidence = obj.get("evidence")
    if "evidence" in obj and not isinstance(evidence, dict):
        raise ScorerError(f"'evidence' must be a JSON object; got {_shown(evidence)}")
    bare = {k: v for k, v in obj.items() if k not in META_KEYS}
    return bare, LineMeta(source, seq, evidence)


def _shown(value: Any) -> str:
    """A JSON value as a message shows it: scalars as written, containers by kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value, ensure_ascii=False)[:60]


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
            except RecursionError:
                raise RecordError(self.path, lineno, "nested too deeply to convert") from None
        return match

    def dumps(self) -> str:
        """The record as JSON Lines text."""
        lines = [json.dumps(self.header.to_json(), ensure_ascii=False)]
        lines.extend(json.dumps(obj, ensure_ascii=False) for _n, obj in self.entries)
        return "\n".join(lines) + "\n"


def apply_line(match: Match, spec: GameSpec, obj: dict[str, Any]) -> None:
    """Apply one record line (an event or a correction) to ``match``.

    Its record-level keys (:data:`META_KEYS`) are checked and left out of the event. A correction
    costs time in proportion to the events it takes back, never to the events applied before.
    """
    if not isinstance(obj, dict):
        raise ScorerError(f"each event must be a JSON object, not {type(obj).__name__}")
    obj, _meta = split_line(obj)
    kind = obj.get("type")
    if kind == "undo":
        count = obj.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ScorerError("undo: 'count' must be a positive integer")
        applied = match.event_count
        if count > applied:
            raise ScorerError(f"undo: cannot take back {count} events, only {applied} applied")
        for _ in range(count):
            match.undo()
        return
    if kind == "confirm":
        extra = set(obj) - {"type"}
        if extra:
            raise ScorerError(f"confirm: unknown field(s) {', '.join(sorted(extra))}")
        if not match.event_count:
            raise ScorerError("confirm: there is no event to confirm")
        return
    if kind == "replace":
        inner = obj.get("event")
        event = match.EVENTS.from_json(inner)
        if not match.event_count:
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


INTEGER_LIMIT = 2**63 - 1
"""The largest integer a record's line may hold (a 64-bit one: ids, seats, counts, seconds)."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _integer(text: str) -> int:
    value = int(text)
    if abs(value) > INTEGER_LIMIT:
        raise ValueError(f"{text[:30]}{'...' if len(text) > 30 else ''} is larger than any integer a record holds")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


_DECODER = json.JSONDecoder(parse_float=_finite, parse_int=_integer, parse_constant=_constant)


def parse_json(line: str, path: str = "<record>", lineno: int = 1) -> Any:
    """One line's JSON value; RecordError ``path:lineno: reason`` for JSON that does not parse, is
    nested too deeply, or holds a number that is not finite (``NaN``, ``Infinity``, ``1e400``: a
    record's numbers are all finite, as JSON's own are) or an integer beyond :data:`INTEGER_LIMIT`."""
    try:
        return _DECODER.decode(line)
    except json.JSONDecodeError as exc:
        raise RecordError(path, lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:
        raise RecordError(path, lineno, f"not valid JSON: {exc}") from None
    except RecursionError:
        raise RecordError(path, lineno, "not valid JSON: nested too deeply to read") from None


def loads(text: str, path: str = "<record>") -> Record:
    """Parse JSON Lines text into a :class:`Record` (events are not applied yet)."""
    header: Header | None = None
    entries: list[tuple[int, dict[str, Any]]] = []
    last_seq: tuple[int, int] | None = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        obj = parse_json(line, path, lineno)
        if header is None:
            header = parse_header(obj, path)
            continue
        if not isinstance(obj, dict):
            raise RecordError(path, lineno, "each event must be a JSON object")
        try:
            _bare, meta = split_line(obj)
        except ScorerError as exc:
            raise RecordError(path, lineno, str(exc)) from None
        if meta.seq is not None:
            if last_seq is not None and meta.seq <= last_seq[0]:
                raise RecordError(
                    path, lineno, f"'seq' {meta.seq} does not follow {last_seq[0]} (line {last_seq[1]}): "
                    "sequence numbers must increase"
                )
            last_seq = (meta.seq, lineno)
        entries.append((lineno, obj))
    if header is None:
        raise RecordError(path, 1, "empty record: the first line must be the header")
    return Record(header, entries, path)


STDIN = "<stdin>"
"""The name of standard input in messages (``load("-")``)."""


def load(path: str | Path) -> Record:
    """Read a record file; ``-`` reads standard input, named ``<stdin>`` in messages.

    A path that cannot be read is a :class:`RecordError` without a line number:
    ``PATH: cannot read: no such file``, ``… is a directory, not a record``, ``… permission
    denied`` (else the system's reason).
    """
    if str(path) == "-":
        return loads(_decode(_read_stdin(), STDIN), STDIN)
    try:
        if Path(path).is_dir():
            raise IsADirectoryError(path)
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RecordError(str(path), 0, f"cannot read: {_why(exc)}") from None
    return loads(_decode(data, str(path)), str(path))


def _read_stdin() -> bytes:
    """All of standard input as bytes (text streams without a byte buffer are encoded as UTF-8)."""
    stream = sys.stdin
    if stream is None:
        raise RecordError(STDIN, 0, "cannot read: there is no standard input")
    try:
        buffer = getattr(stream, "buffer", None)
        return buffer.read() if buffer is not None else stream.read().encode("utf-8", "surrogateescape")
    except OSError as exc:
        raise RecordError(STDIN, 0, f"cannot read: {_why(exc)}") from None


def _why(exc: OSError) -> str:
    """Why a file cannot be read, in a few words."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a record"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, NotADirectoryError):
        return "no such file (a part of the path is not a directory)"
    return exc.strerror.lower() if exc.strerror else str(exc)


def _decode(data: bytes, path: str) -> str:
    """``data`` as UTF-8 text; a byte that is not UTF-8 is reported at its line and byte column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RecordError(
            path, lineno, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at byte column {column}"
        ) from None


def export(match: Match, ruleset: str, start: str | None = None) -> Record:
    """A record of ``match``'s effective events (no corrections needed)."""
    header = Header.for_match(match, ruleset, start)
    entries = [(i + 2, e.to_json()) for i, e in enumerate(match.events)]
    return Record(header, entries)


def events_of(record: Record) -> Iterable[Event]:
    """The effective events of a record (after its corrections)."""
    return record.replay().events


class RecordWriter:
    """A live record on disk: the header, then one JSON line per :meth:`append`.

    Each line goes to the file in one unbuffered ``write`` before :meth:`append` returns, so a
    killed process loses no line already appended; ``fsync=True`` also waits for the disk after
    every line (and after creating the file), so a power cut loses none either, at the cost of a
    disk flush per line. The writer numbers its lines: ``seq`` 1, 2, 3 … (continuing after the
    highest ``seq`` already in the file when it resumes one).

    ``RecordWriter(path, header)`` creates ``path``, which must not exist, and writes the header.
    ``RecordWriter(path, header, append=True)`` continues ``path`` when it exists (creates it when
    not): the file is read as a record, its header must describe the same game (game, ruleset,
    resolved options, players, deck; the start time may differ; ``header=None`` takes the file's),
    and an unfinished last line (no ``\\n``: the writer was killed inside a write, so it was never
    appended) is cut off and kept in :attr:`discarded`. :attr:`record` holds the header and every
    line in the file, appended ones included, for replay.
    """

    def __init__(
        self, path: str | Path, header: Header | None = None, *, append: bool = False, fsync: bool = False
    ) -> None:
        self.path = str(path)
        self.fsync = fsync
        self.discarded = b""
        """The bytes of an unfinished last line cut off on resuming (empty when none)."""
        self._seq = 0
        self._lines = 0
        self._fd: int | None = None
        existing = self._resume(header) if append and os.path.exists(self.path) else None
        if existing is not None:
            self.record = existing
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            return
        if header is None:
            raise ValueError(f"{self.path}: a new record needs a header")
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if append else os.O_EXCL)
        try:
            self._fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise RecordError(
                self.path, 0, "already exists; continue it with append=True or choose another file"
            ) from None
        self.record = Record(header, [], self.path)
        self._write(json.dumps(header.to_json(), ensure_ascii=False) + "\n")
        if fsync and os.name == "posix":
            directory = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)

    @property
    def seq(self) -> int:
        """The ``seq`` of the last line written or read (0 when none)."""
        return self._seq

    def append(
        self, item: Event | Mapping[str, Any], *, source: str | None = None, evidence: Mapping[str, Any] | None = None
    ) -> int:
        """Write one event or correction as the next line; return its ``seq``.

        ``item`` is an :class:`Event` or a line's JSON object (``{"type": "undo"}``); it must not
        carry record-level keys itself. The line is checked as :func:`split_line` checks one
        (``ScorerError`` for a bad ``source`` or ``evidence``), not against the game's rules.
        """
        if self._fd is None:
            raise ValueError(f"{self.path}: the record writer is closed")
        obj = item.to_json() if isinstance(item, Event) else dict(item)
        if not isinstance(obj.get("type"), str):
            raise ValueError("a record line needs a string 'type'")
        clash = [key for key in META_KEYS if key in obj]
        if clash:
            raise ValueError(f"the line itself carries {', '.join(clash)}; pass source and evidence to append")
        meta = LineMeta(source, self._seq + 1, dict(evidence) if isinstance(evidence, Mapping) else evidence)
        line = {**obj, **meta.to_json()}
        split_line(line)
        try:
            text = json.dumps(line, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the line cannot be written as JSON: {exc}") from None
        self._write(text + "\n")
        self._seq += 1
        self.record.entries.append((self._lines, line))
        return self._seq

    def close(self) -> None:
        """Close the file (every line is already written); closing twice is harmless."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _write(self, text: str) -> None:
        """Write ``text`` (one whole line) to the file; on failure close the writer, so no later
        line can follow a partly written one."""
        assert self._fd is not None
        data = memoryview(text.encode("utf-8"))
        try:
            while data:
                data = data[os.write(self._fd, data) :]
            if self.fsync:
                os.fsync(self._fd)
        except OSError:
            self.close()
            raise
        self._lines += 1

    def _resume(self, header: Header | None) -> Record | None:
        """Read the existing record, cut an unfinished last line, check the header, find the seq.

        None when the file holds no whole line (killed while writing its header): it is then
        written as a new record.
        """
        try:
            data = Path(self.path).read_bytes()
        except OSError as exc:
            raise RecordError(self.path, 0, f"cannot read: {_why(exc)}") from None
        end = data.rfind(b"\n") + 1
        if end < len(data):
            self.discarded = data[end:]
            with open(self.path, "r+b") as fh:
                fh.truncate(end)
            data = data[:end]
        if not data.strip():
            return None
        existing = loads(_decode(data, self.path), self.path)
        if header is not None:
            differ = _header_differences(existing.header, header)
            if differ:
                raise RecordError(
                    self.path, 1, f"the record is of another game setup ({', '.join(differ)} differ)"
                )
        for _lineno, obj in existing.entries:
            seq = obj.get("seq")
            if seq is not None:
                self._seq = seq
        self._lines = data.count(b"\n")
        return existing


def _header_differences(a: Header, b: Header) -> list[str]:
    """The header fields in which ``a`` and ``b`` describe different game setups (start ignored)."""
    differ = [name for name in ("game", "ruleset", "deck", "players") if getattr(a, name) != getattr(b, name)]
    if not differ:
        spec = game(a.game)
        try:
            same = spec.options(a.ruleset, a.options) == spec.options(b.ruleset, b.options)
        except (ScorerError, ValueError):
            same = False
        if not same:
            differ.append("options")
    return differ
