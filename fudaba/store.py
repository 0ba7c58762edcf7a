"""The history: every session's record in one SQLite file.

A session's record is kept as its lines, exactly as a record file holds them (``scorer.record``):
the header, then one JSON object per event or correction with its ``seq`` and ``source``. Each
:meth:`Store.append` is its own committed transaction (WAL journal, ``synchronous=FULL``), so a
killed process loses no line already appended, and :meth:`Store.export` gives back the record file
byte for byte as ``fudaba score`` reads it.

Tables: ``sessions`` (id, title, created and updated times in ISO 8601 UTC, the header as JSON, the
number of lines, ``finished`` when the match is over) and ``lines`` (session, seq, the line as
JSON). The default file is ``fudaba.sqlite3`` in the user's data directory (:func:`default_path`:
``$FUDABA_DATA``, else ``$XDG_DATA_HOME/fudaba``, else ``~/.local/share/fudaba``), created on first use.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scorer import record as records
from scorer.errors import RecordError

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
        """A new session holding the record ``text`` (checked by replaying it: RecordError
        ``name:line: reason``); lines keep their source and are numbered afresh from 1."""
        record = records.loads(text, name)
        match = record.replay()
        sid = self.create(record.header, title)
        for seq, (_lineno, obj) in enumerate(record.entries, start=1):
            self.append(sid, {**obj, "seq": seq, "source": obj.get("source", "import")},
                        finished=match.is_over and seq == len(record.entries))
        return sid


__all__ = ["RecordError", "SessionInfo", "Store", "StoreError", "default_path"]
