"""One server per history: the lock file beside it.

Two servers over one history would each keep their own open games and answer conflicting writes
with errors (issue 51). ``fudaba run`` and ``fudaba demo`` therefore take :class:`HistoryLock` on
the history before they build the dashboard and hold it until they exit: an exclusive
``fcntl.flock`` on ``<history>.lock`` (``fudaba.sqlite3.lock`` beside ``fudaba.sqlite3``), which
holds the holder's pid, command and start time as JSON. The kernel drops the lock when its process
ends however it ends (``kill -9`` included), so a stale file never blocks a new server; the file
itself is left in place (removing it would let a second server lock a new file while a third still
waits on the old one). A second server finds the lock taken and refuses to start, naming the holder
(:class:`HistoryInUse`).

Only the commands take it: the dashboard app (:func:`fudaba.serve.build`) does not, so tests may
build several apps over one history in one process.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from datetime import datetime
from pathlib import Path
from typing import IO, Any


class HistoryInUse(ValueError):
    """Another process holds the history: who, since when, and what to do."""


def lock_path(history: Path) -> Path:
    """The lock file of the history ``history``: beside it, its name and ``.lock``."""
    return history.with_name(history.name + ".lock")


class HistoryLock:
    """The exclusive lock on one history (module docstring); a context manager."""

    def __init__(self, history: Path, command: str = "fudaba") -> None:
        self.history = Path(history)
        self.path = lock_path(self.history)
        self.command = command
        """What holds it, as the refusal names it (``fudaba run``)."""
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._file is not None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`HistoryInUse` naming the process that holds it."""
        if self._file is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fh = os.fdopen(fd, "r+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fh)
            fh.close()
            raise HistoryInUse(f"the history {self.history} is in use by {holder}; stop it first") from None
        except BaseException:
            fh.close()
            raise
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "command": self.command,
                             "started": datetime.now().astimezone().isoformat(timespec="seconds")}))
        fh.flush()
        self._file = fh

    def release(self) -> None:
        """Let the history go (harmless when not held): the file is emptied, then unlocked."""
        fh, self._file = self._file, None
        if fh is None:
            return
        with contextlib.suppress(OSError):
            fh.seek(0)
            fh.truncate()
            fh.flush()
        fh.close()  # closing the descriptor drops the flock

    def __enter__(self) -> HistoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def _holder(fh: IO[str]) -> str:
    """The process holding the lock in words, from what it wrote in the file: ``fudaba run (pid
    1234), started 21:05`` (the date too when not today)."""
    try:
        fh.seek(0)
        info: Any = json.loads(fh.read() or "null")
    except (OSError, ValueError):
        info = None
    if not isinstance(info, dict) or not isinstance(info.get("pid"), int):
        return "another process (it is starting: its pid is not written yet)"
    text = f"{info.get('command') or 'fudaba'} (pid {info['pid']})"
    try:
        started = datetime.fromisoformat(str(info.get("started")))
    except ValueError:
        return text
    now = datetime.now(started.tzinfo)
    when = started.strftime("%H:%M") if started.date() == now.date() else started.strftime("%Y-%m-%d %H:%M")
    return f"{text}, started {when}"


__all__ = ["HistoryInUse", "HistoryLock", "lock_path"]
