"""Who answers the tracker's questions: the follower's question policies.

A policy (:class:`QuestionPolicy`) says, when a question opens, whether it is answered at once or
waits for a player, what happens to a question still open when the source ends, and which typed
answers are waiting between frames:

* :class:`FromFile` — an answers file, else a guess: never waits (``fudaba replay``, ``fudaba
  track`` without ``--ask``). The guess is candidate 0, the most likely, recorded with source
  ``guess``; an answer from the file with source ``answer``.
* :class:`FromTerminal` — numbers typed in a terminal (``fudaba track --ask``): a question waits
  for its number; ``t`` says the table is right (:data:`ASSERT_TABLE`); a question still open when
  the source ends is answered from the answers file, else guessed.
* :class:`FromPlayers` — a player on the dashboard (``fudaba run --camera``, ``fudaba demo``): a
  question waits for :meth:`vision.follow.Follower.answer`, also after the source ended.

The answers file holds one JSON object per line, ``{"choice": i}`` or ``{"t": seconds, "choice": i}``
(``i`` counts the question's candidates from 0; blank lines and lines starting with ``#`` are
skipped). Its lines answer the questions in the order they come: the next unused line answers the
next question, except that a line with ``t`` waits for the first question asked at or after ``t``
seconds (questions before it are guessed). A choice beyond a question's candidates is guessed
instead (counted in the summary's ``bad_answers``).
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from scorer.tracker import Question
from vision.game_setup import ReplayError

ASSERT_TABLE = -1
"""What :func:`typed_numbers` delivers for ``t``: the table is like this (:meth:`Tracker.assert_table`)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One line of an answers file."""

    choice: int
    """Index of the chosen candidate (from 0)."""
    t: float | None = None
    """Answer only a question asked at or after this time (s); None: the next question."""


@dataclass(frozen=True, slots=True)
class Choice:
    """An answer to a question: a candidate and who chose it."""

    index: int
    """The candidate (from 0)."""
    source: str
    """``answer`` (a player or the answers file) or ``guess`` (nobody answered: the most likely)."""
    bad: bool = False
    """The answers file named a candidate the question lacks: guessed instead."""


def load_answers(path: str | Path) -> list[Answer]:
    """The answers in ``path`` (module docstring); ReplayError naming the bad line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read the answers file {path}: {exc}") from None
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or isinstance(obj.get("choice"), bool) or not isinstance(obj.get("choice"), int) \
                or obj["choice"] < 0:
            raise ReplayError(f'{path}:{n}: expected {{"choice": i}} or {{"t": seconds, "choice": i}} with i >= 0')
        t = obj.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
            raise ReplayError(f"{path}:{n}: 't' must be a number of seconds")
        out.append(Answer(int(obj["choice"]), None if t is None else float(t)))
    return out


@dataclass
class AnswerBook:
    """The unused lines of an answers file (module docstring)."""

    pending: list[Answer] = field(default_factory=list)

    def for_question(self, at: float) -> int | None:
        """The choice of the line that answers a question asked at ``at`` seconds (used up), or None."""
        for k, a in enumerate(self.pending):
            if a.t is None or a.t <= at:
                del self.pending[k]
                return a.choice
            break
        return None

    def choose(self, question: Question, at: float) -> Choice:
        """The answer to ``question`` (asked at ``at`` s): the next line, else a guess."""
        choice = self.for_question(at)
        if choice is None:
            return Choice(0, "guess")
        if choice >= len(question.candidates):
            return Choice(0, "guess", bad=True)
        return Choice(choice, "answer")


class QuestionPolicy(Protocol):
    """Who answers the tracker's questions (module docstring)."""

    prompt: str
    """Said after a question that waits for a player."""

    def now(self, question: Question, at: float) -> Choice | None:
        """The answer when ``question`` opens at ``at`` s; None: it waits for a player."""

    def at_end(self, question: Question, at: float) -> Choice | None:
        """The answer to ``question``, still open when the source ended at ``at`` s; None: it stays open."""

    def typed(self, question: Question | None) -> int | None:
        """A typed answer to hand in now: a candidate of ``question`` or :data:`ASSERT_TABLE`; None: none."""


class FromFile:
    """An answers file, else a guess; nothing waits."""

    prompt = ""

    def __init__(self, answers: Iterable[Answer] = ()) -> None:
        self.book = AnswerBook(list(answers))

    def now(self, question: Question, at: float) -> Choice | None:
        return self.book.choose(question, at)

    def at_end(self, question: Question, at: float) -> Choice | None:
        return self.book.choose(question, at)

    def typed(self, question: Question | None) -> int | None:
        return None


class FromTerminal:
    """Numbers typed in a terminal (:func:`typed_numbers`); at the end, the answers file or a guess.

    A number typed while no question is open waits for the next question; one beyond the open
    question's candidates is dropped."""

    prompt = "  (type its number and Enter)"

    def __init__(self, typed: queue.Queue[int], answers: Iterable[Answer] = ()) -> None:
        self.queue = typed
        self.book = AnswerBook(list(answers))
        self._held: int | None = None

    def now(self, question: Question, at: float) -> Choice | None:
        return None

    def at_end(self, question: Question, at: float) -> Choice | None:
        return self.book.choose(question, at)

    def typed(self, question: Question | None) -> int | None:
        if self._held is None:
            try:
                self._held = self.queue.get_nowait()
            except queue.Empty:
                return None
        held = self._held
        if held == ASSERT_TABLE:
            self._held = None
            return held
        if question is None:
            return None  # waits for the next question
        self._held = None
        return held if 0 <= held < len(question.candidates) else None


class FromPlayers:
    """A player on the dashboard: every question waits for :meth:`vision.follow.Follower.answer`."""

    prompt = ""

    def now(self, question: Question, at: float) -> Choice | None:
        return None

    def at_end(self, question: Question, at: float) -> Choice | None:
        return None

    def typed(self, question: Question | None) -> int | None:
        return None


def typed_numbers(stream: Iterable[str]) -> queue.Queue[int]:
    """Numbers typed on ``stream`` (shown from 1), as candidate indices (from 0); ``t`` (the table
    is right as the camera sees it) as :data:`ASSERT_TABLE`. Read on a daemon thread; anything else
    typed gets a hint on standard error."""
    out: queue.Queue[int] = queue.Queue()

    def read() -> None:
        for line in stream:
            word = line.strip()
            if word.isdigit() and int(word) >= 1:
                out.put(int(word) - 1)
            elif word.lower() in ("t", "table"):
                out.put(ASSERT_TABLE)
            elif word:
                print("type the number of a candidate, or t when the table is right, then Enter",
                      file=sys.stderr, flush=True)

    threading.Thread(target=read, daemon=True).start()
    return out
