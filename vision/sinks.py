"""Where a follower's commits go (:class:`Sink`): what one step committed (:class:`Commit`), and
the record file of ``fudaba replay`` and ``fudaba track`` (:class:`RecordSink`); a dashboard
session's is :class:`fudaba.live.SessionSink`.

A record file gets one line per event as it is committed (:class:`scorer.record.RecordWriter`),
with the commit's source (``camera``, ``answer``, ``guess``, ``table``) and evidence
(:meth:`Commit.evidence`); committed events a repair or an answer takes back come first, as
``{"type": "undo", "count": n}`` with evidence ``{"t": seconds, "repair": why}``. A record file
never refuses a commit.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from scorer.events import Event
from scorer.match import Match
from scorer.record import Header, RecordWriter
from vision.game_setup import ReplayError


class Refused(Exception):
    """A sink does not take a commit: its game changed meanwhile; the message says why."""


@dataclass(frozen=True, slots=True)
class Commit:
    """What one step of the tracker committed, for a sink."""

    t: float
    """Source time (s)."""
    source: str
    """``camera``, ``answer``, ``guess`` or ``table``."""
    events: tuple[Event, ...]
    """The events committed, in order (after the retracted ones are taken back)."""
    retracted: int = 0
    """Committed events taken back first, the last ones."""
    repair: str = ""
    """Why they were taken back (a misread card, or the question answered)."""
    cost: float | None = None
    """Cost of the leading explanation after it (ln units), where there is one."""
    answer: Mapping[str, Any] | None = None
    """For an answered question: ``question``, ``choice``, ``candidates`` (in words)."""

    def evidence(self) -> dict[str, Any]:
        """Each event's evidence (module docstring): ``t``, ``cost`` when finite, the answer."""
        out: dict[str, Any] = {"t": round(self.t, 3)}
        if self.cost is not None and math.isfinite(self.cost):
            out["cost"] = round(self.cost, 3)
        out.update(self.answer or {})
        return out


class Sink(Protocol):
    """Where a follower's commits go: a record file, a dashboard session."""

    record: str | None
    """The record file written (the summary's ``record``); None: none."""
    clock: Callable[[], float] | None
    """The match's time now (s since it started), stamped as committed events' ``at``; None: none."""

    def game(self) -> Match:
        """A fork of the game to follow now (at the start, and after a refused commit)."""

    def header(self) -> dict[str, Any]:
        """The record header as JSON (for flight recorder clips)."""

    def commit(self, commit: Commit) -> None:
        """Take ``commit`` (all of it or nothing); :class:`Refused` when its game no longer takes it."""

    def viewed(self) -> None:
        """The follower's view changed (:meth:`vision.follow.Follower.view`)."""

    def close(self, abandoned: bool = False) -> None:
        """The follower stopped; ``abandoned``: it failed before committing anything."""



class RecordSink:
    """The follower's commits into the record file at ``path`` (None: no file), for ``match`` (the
    game followed, from its start) under ``ruleset``. ``force``: replace a file that exists (else
    ReplayError)."""

    clock = None
    """Events carry no ``at``: a record of a video has no match clock."""

    def __init__(self, match: Match, ruleset: str, path: str | Path | None = None, force: bool = False) -> None:
        self._match = match
        self._header = Header.for_match(match, ruleset)
        self.record = str(path) if path is not None else None
        """The record file (the summary's ``record``)."""
        self._writer: RecordWriter | None = None
        if path is None:
            return
        if force and os.path.exists(path):
            os.remove(path)
        try:
            self._writer = RecordWriter(path, self._header)
        except (OSError, ValueError) as exc:
            raise ReplayError(str(exc) + ("" if force else " (or pass --force to replace it)")) from None

    def game(self) -> Match:
        """A fork of the game followed, as it started (the record is never changed by anyone else)."""
        return self._match.fork()

    def header(self) -> dict[str, Any]:
        """The record's header as JSON."""
        return self._header.to_json()

    def commit(self, commit: Commit) -> None:
        """Append ``commit``'s lines (module docstring)."""
        if self._writer is None:
            return
        if commit.retracted:
            self._writer.append({"type": "undo", "count": commit.retracted}, source=commit.source,
                                evidence={"t": round(commit.t, 3), "repair": commit.repair})
        evidence = commit.evidence()
        for ev in commit.events:
            self._writer.append(ev, source=commit.source, evidence=evidence)

    def viewed(self) -> None:
        """Nobody watches a record file being written."""

    def close(self, abandoned: bool = False) -> None:
        """Close the file; ``abandoned`` (nothing was followed): remove it, leaving no record behind."""
        if self._writer is None:
            return
        self._writer.close()
        if abandoned:
            os.remove(self._writer.path)
        self._writer = None
