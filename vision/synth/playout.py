"""A rules-engine playout for a game video: the events, and where every card is after each.

The engine draws chance and choices from ``random.Random(seed)`` (``scorer.simulate``'s way);
the result is the same for the same game, ruleset, option overrides, seats, rounds and seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorer.events import Event
from scorer.games import game as find_game
from scorer.match import Match
from scorer.places import Places


@dataclass(frozen=True)
class Playout:
    """A played-out match (one or more rounds)."""

    game: str
    """Registry name (``hachi-hachi``, ``poka``, ``bagaji``)."""
    ruleset: str
    players: int
    match: Match
    """The engine after the last event."""
    events: tuple[Event, ...]
    places: tuple[Places | None, ...]
    """Where the cards are after each event (None between rounds and once a round is settled)."""


def _places(match: Match) -> Places | None:
    places = getattr(match.state, "places", None)
    return places if isinstance(places, Places) else None


def play(game: str, ruleset: str | None, players: int, rounds: int, seed: int,
         options: Mapping[str, Any] | None = None) -> Playout:
    """Play ``rounds`` rounds (fewer if the match ends) at random with ``players`` seats;
    ``options``: overrides of the ruleset's options (``{"deck": "hanafuda-1x"}`` for Bagaji)."""
    spec = find_game(game)
    if not spec.min_players <= players <= spec.max_players:
        raise ValueError(f"{spec.name} is played by {spec.seats} players, not {players}")
    name = ruleset or spec.default_ruleset
    match = spec.match([f"Seat {i + 1}" for i in range(players)], spec.options(name, options))
    rng = random.Random(seed)
    events: list[Event] = []
    places: list[Places | None] = []
    for _ in range(max(1, rounds)):
        done = len(match.results)
        while not match.is_over and len(match.results) == done:
            if len(events) > 20_000:
                raise RuntimeError(f"{spec.name}: the round did not end")
            ev = match.random_event(rng)
            match.apply(ev)
            events.append(ev)
            places.append(_places(match))
        if match.is_over:
            break
    return Playout(spec.name, name, players, match, tuple(events), tuple(places))
