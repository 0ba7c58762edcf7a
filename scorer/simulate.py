"""Random legal play for simulations, property tests and benchmarks.

A playout asks the engine for ``random_event(rng)`` (which draws chance — deals, stock draws —
as well as players' choices) and applies it, until the round or the match ends. A match whose
options set no end (Bagaji with neither a time nor a round limit) never ends: :func:`play_match`
stops it at ``max_rounds`` with :class:`NoEndError`.
"""

from __future__ import annotations

import random

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match


class NoEndError(ScorerError):
    """A simulated match had not ended after the most rounds the caller allowed."""


def play_round(match: Match, rng: random.Random, max_events: int = 10_000) -> list[Event]:
    """Play random legal events until one more round has been settled (or the match ends)."""
    done = len(match.results)
    played: list[Event] = []
    while not match.is_over and len(match.results) == done:
        if len(played) >= max_events:
            raise RuntimeError(f"{match.GAME}: round did not end within {max_events} events")
        event = match.random_event(rng)
        match.apply(event)
        played.append(event)
    return played


def play_match(match: Match, rng: random.Random, max_rounds: int | None = 1_000) -> list[Event]:
    """Play random legal events until the match is over.

    Raise :class:`NoEndError` when it has not ended after ``max_rounds`` rounds (None: no limit,
    for matches known to end).
    """
    played: list[Event] = []
    rounds = 0
    while not match.is_over:
        if max_rounds is not None and rounds >= max_rounds:
            raise NoEndError(f"{match.GAME}: the match did not end within {max_rounds} rounds")
        played.extend(play_round(match, rng))
        rounds += 1
    return played
