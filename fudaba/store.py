"""The history: every session's record in one SQLite file.

A session's record is kept as its lines, exactly as a record file holds them (``scorer.record``):
the header, then one JSON object per event or correction with its ``seq`` and ``source``. Each
:meth:`Store.append` is its own committed transaction (WAL journal, ``synchronous=FULL``), so a
killed process loses no line already appended, and :meth:`Store.export` gives back the record file
byte for byte as ``fudaba score`` reads it. An import (:meth:`Store.import_record`) is one
transaction: the session and all its lines, or nothing.

Tables: ``sessions`` (id, title, created and updated times in ISO 8601 UTC, the header as JSON, the
number of lines, ``finished`` when the match is over) and ``lines`` (session, seq, the line as
JSON). The default file is ``fudaba.sqlite3`` in the user's data directory (:func:`default_path`:
``$FUDABA_DATA``, else ``$XDG_DATA_HOME/fudaba``, else ``~/.local/share/fudaba``), created on first use.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorer import record as records
from scorer.errors import RecordError, ScorerError
from scorer.games import game

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    header TEXT NOT NULL,
    lines INTEGER NOT NULL DEFAULT 0,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS lines (
    session INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
"""


class StoreError(Exception):
    """The store cannot do what was asked (no such session, a file that is not a store)."""


ID_LIMIT = 2**63 - 1
"""The largest id SQLite holds: a larger number names no session."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session in the history list."""

    id: int
    title: str
    created: str
    """ISO 8601 UTC."""
    updated: str
    """ISO 8601 UTC, the time of the last line."""
    game: str
    ruleset: str
    players: tuple[str, ...]
    lines: int
    """Lines appended (events and corrections)."""
    finished: bool

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"id": self.id, "title": self.title, "created": self.created, "updated": self.updated,
                "game": self.game, "ruleset": self.ruleset, "players": list(self.players),
                "lines": self.lines, "finished": self.finished}


def default_path() -> Path:
    """Where the history lives unless told otherwise (module docstring)."""
    if os.environ.get("FUDABA_DATA"):
        base = Path(os.environ["FUDABA_DATA"])
    elif os.environ.get("XDG_DATA_HOME"):
        base = Path(os.environ["XDG_DATA_HOME"]) / "fudaba"
    else:
        base = Path.home() / ".local" / "share" / "fudaba"
    return base / "fudaba.sqlite3"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Store:
    """The SQLite history; safe to share between threads (one connection behind a lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a fudaba history ({exc})") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the file; every line is already committed."""
        with self._lock:
            self._db.close()

    def create(self, header: records.Header, title: str | None = None) -> int:
        """A new session with ``header``; its id."""
        now = _now()
        names = ", ".join(p.name for p in header.players)
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO sessions (title, created, updated, header) VALUES (?, ?, ?, ?)",
                (title or f"{header.game}: {names}", now, now, json.dumps(header.to_json(), ensure_ascii=False)))
            return int(cur.lastrowid or 0)

    def append(self, session: int, line: dict[str, Any], finished: bool = False) -> None:
        """Commit one line (it carries its ``seq``) of ``session``; ``finished``: the match is over."""
        seq = line.get("seq")
        if not isinstance(seq, int):
            raise ValueError("a stored line needs its seq")
        text = json.dumps(line, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO lines (session, seq, line) VALUES (?, ?, ?)", (session, seq, text))
                self._db.execute("UPDATE sessions SET lines = lines + 1, updated = ?, finished = ? WHERE id = ?",
                                 (_now(), int(finished), session))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def header(self, session: int) -> records.Header:
        """The record header of ``session``; StoreError when there is no such session."""
        if not 0 < session <= ID_LIMIT:
            raise StoreError(f"there is no session {session}")
        with self._lock:
            row = self._db.execute("SELECT header FROM sessions WHERE id = ?", (session,)).fetchone()
        if row is None:
            raise StoreError(f"there is no session {session}")
        return records.parse_header(json.loads(row[0]), f"session {session}")

    def lines(self, session: int) -> list[dict[str, Any]]:
        """The lines of ``session`` in order."""
        self.header(session)
        with self._lock:
            rows = self._db.execute("SELECT line FROM lines WHERE session = ? ORDER BY seq", (session,)).fetchall()
        with _collector_paused():  # many small objects at once (:func:`_collector_paused`)
            return [json.loads(r[0]) for r in rows]

    def sessions(self) -> list[SessionInfo]:
        """Every session, the most recently updated first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, title, created, updated, header, lines, finished FROM sessions "
                "ORDER BY updated DESC, id DESC").fetchall()
        out = []
        for sid, title, created, updated, header, n, finished in rows:
            h = json.loads(header)
            out.append(SessionInfo(sid, title, created, updated, h.get("game", "?"), h.get("ruleset", "?"),
                                   tuple(p.get("name", "?") for p in h.get("players", [])), n, bool(finished)))
        return out

    def export(self, session: int) -> str:
        """The session as a record file's text (JSON Lines: the header, then every line)."""
        header = self.header(session)
        out = [json.dumps(header.to_json(), ensure_ascii=False)]
        out += [json.dumps(line, ensure_ascii=False) for line in self.lines(session)]
        return "\n".join(out) + "\n"

    def import_record(self, text: str, name: str = "<record>", title: str | None = None) -> int:
        """A new session holding the record ``text`` (:meth:`import_replayed`); its id."""
        return self.import_replayed(text, name, title)[0]

    def import_replayed(self, text: str, name: str = "<record>", title: str | None = None) -> tuple[int, Any]:
        """A new session holding the record ``text``, checked by replaying it once (RecordError
        ``name:line: reason``: nothing is stored); lines keep their source (else ``import``) and
        are numbered afresh from 1. Each line is read, applied and written out in turn (only the
        stored texts are kept, not the parsed record), then the session and every line are
        inserted in one transaction: a failure leaves no trace in the history. Its id, and the
        match the replay left (:class:`scorer.match.Match`: a session opened from it need not
        replay the record again)."""
        with _collector_paused():
            header, rows, match = _replayed(text, name)
        now = _now()
        names = ", ".join(p.name for p in header.players)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO sessions (title, created, updated, header, lines, finished) VALUES (?, ?, ?, ?, ?, ?)",
                    (title or f"{header.game}: {names}", now, now, json.dumps(header.to_json(), ensure_ascii=False),
                     len(rows), int(match.is_over)))
                sid = int(cur.lastrowid or 0)
                self._db.executemany("INSERT INTO lines (session, seq, line) VALUES (?, ?, ?)",
                                     ((sid, seq, line) for seq, line in enumerate(rows, start=1)))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return sid, match


_pauses = 0
_was_enabled = True
_pauses_lock = threading.Lock()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a record is replayed (the process's, so counted
    across threads: the last to finish starts it again). A match keeps every state for its undo, and
    the collector would walk them all again at each of its passes: more than half of a 700,000-line
    replay's time (``bench/imports.py``). Reference counting still frees everything else meanwhile;
    a collector that was off stays off."""
    global _pauses, _was_enabled
    with _pauses_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
        _pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


def _numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) of ``text``, split at ``\\n`` one at a time (no list of them all)."""
    start, lineno = 0, 1
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield lineno, text[start:end]
        start, lineno = end + 1, lineno + 1


def _replayed(text: str, name: str) -> tuple[records.Header, list[str], Any]:
    """The header of the record ``text``, each of its lines as the store keeps it (JSON text with its
    ``seq`` and ``source``), and the match after them: the record read and replayed line by line
    (RecordError ``name:line: reason`` at the first bad one)."""
    lines = _numbered_lines(text)
    header = None
    for lineno, raw in lines:
        if raw.strip():
            header = records.parse_header(records.parse_json(raw, name, lineno), name)
            break
    if header is None:
        raise RecordError(name, 1, "empty record: the first line must be the header")
    try:
        match = header.new_match()
    except (ScorerError, ValueError) as exc:
        raise RecordError(name, 1, f"bad header: {exc}") from None
    spec = game(header.game)
    encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(obj, ensure_ascii=False), made once
    rows: list[str] = []
    last_seq = (0, 0)
    for lineno, raw in lines:
        if not raw.strip():
            continue
        obj = records.parse_json(raw, name, lineno)
        if not isinstance(obj, dict):
            raise RecordError(name, lineno, "each event must be a JSON object")
        at = obj.get("at")
        if at is not None and (not isinstance(at, int | float) or isinstance(at, bool) or not math.isfinite(at)
                               or at < 0):
            raise RecordError(name, lineno, f"'at' must be the seconds since the game started (0 or more); got {at!r}")
        try:
            records.apply_line(match, spec, obj)
        except (ScorerError, ValueError) as exc:
            raise RecordError(name, lineno, str(exc)) from None
        except RecursionError:
            raise RecordError(name, lineno, "nested too deeply to convert") from None
        seq = obj.get("seq")  # a valid positive integer where present: apply_line checked it
        if seq is not None:
            if seq <= last_seq[0]:
                raise RecordError(name, lineno, f"'seq' {seq} does not follow {last_seq[0]} (line {last_seq[1]}): "
                                  "sequence numbers must increase")
            last_seq = (seq, lineno)
        if "seq" in obj or "source" in obj:
            obj["seq"] = len(rows) + 1
            obj.setdefault("source", "import")
            rows.append(encode(obj))
        else:  # the line as written, its keys added before the closing brace (a JSON object ends with one)
            rows.append(f'{raw.rstrip()[:-1]}, "seq": {len(rows) + 1}, "source": "import"}}')
    return header, rows, match


__all__ = ["RecordError", "SessionInfo", "Store", "StoreError", "default_path"]
