"""Where ``fudaba replay`` and ``fudaba track`` put what the follower commits: a record file, one
line per event as it happens (:class:`scorer.record.RecordWriter`), or nowhere.

Each commit's events are written with its source (``camera``, ``answer``, ``guess``, ``table``) and
evidence (:meth:`vision.follow.Commit.evidence`); committed events a repair or an answer takes back
come first, as ``{"type": "undo", "count": n}`` with evidence ``{"t": seconds, "repair": why}``.
A record file never refuses a commit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scorer.match import Match
from scorer.record import Header, RecordWriter
from vision.follow import Commit
from vision.game_setup import ReplayError


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
