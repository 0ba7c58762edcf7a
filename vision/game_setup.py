"""The game a camera follows, resolved from a command's options: game, ruleset, options, seats,
recognition deck and the mat's zone layout (:func:`resolve`).

Bad input raises :class:`ReplayError` (a ``ValueError``; the commands exit with status 2): an
unknown game, ruleset, option or deck, a player count the game does not seat, names that do not
fill its seats, and a recognition deck unlike the game's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from scorer.games import game as game_spec
from scorer.match import Match
from vision.zones import ZoneLayout, zone_layout

FAMILIES = ("hanafuda", "playing")
"""Recognition decks (the shipped models' families)."""


class ReplayError(ValueError):
    """Bad input for following a game (``fudaba replay``, ``track``, ``run --camera``); the message
    says what to do."""


@dataclass(frozen=True, slots=True)
class Setup:
    """A game to follow, resolved from the command's options."""

    game: str
    ruleset: str
    options: Any
    players: int
    deck: str
    """Recognition deck family: ``hanafuda`` or ``playing``."""
    layout: ZoneLayout

    def match(self, names: Sequence[str] | None = None) -> Match:
        """A fresh match of this game; ``names``: the players in seat order (default ``Player 1``, …).
        ReplayError when they do not fill the seats."""
        seats = list(names) if names else [f"Player {i + 1}" for i in range(self.players)]
        if len(seats) != self.players:
            raise ReplayError(f"{len(seats)} names for {self.players} players")
        return game_spec(self.game).match(seats, self.options)


def _family(deck: str) -> str:
    """The recognition deck of a scorer deck name or deck option value (``hanafuda-1x`` → hanafuda)."""
    return "playing" if deck.startswith("playing") else "hanafuda"


def resolve(game: str, players: int | None = None, ruleset: str | None = None,
            options: Mapping[str, str] | None = None, deck: str | None = None) -> Setup:
    """The game, ruleset, options, player count, recognition deck and zone layout to follow;
    ReplayError for anything unknown or inconsistent.

    ``deck``: a recognition deck (``hanafuda``, ``playing``) or, for a game with a deck option
    (Bagaji), one of its values (``hanafuda-1x``, ``playing-2x``, …), which sets that option. A
    recognition deck unlike the game's default picks the first deck option value of that family
    (``--game bagaji --deck hanafuda``: ``deck=hanafuda-1x``) unless ``options`` name a deck."""
    overrides = dict(options or {})
    try:
        spec = game_spec(game)
        name = ruleset or spec.default_ruleset
        base = spec.options(name)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    choices = _deck_choices(base)
    if deck is not None and deck not in FAMILIES:
        if deck not in choices:
            known = ", ".join(FAMILIES + choices)
            raise ReplayError(f"unknown deck {deck!r} for {spec.title}; decks: {known}")
        if overrides.get("deck", deck) != deck:
            raise ReplayError(f"--deck {deck} and --option deck={overrides['deck']} disagree")
        overrides["deck"] = deck
        deck = _family(deck)
    elif deck is not None and choices and "deck" not in overrides and _family(str(base.deck)) != deck:
        overrides["deck"] = next((c for c in choices if _family(c) == deck), str(base.deck))
    try:
        opts = spec.options(name, overrides)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    n = players or spec.min_players
    if not spec.min_players <= n <= spec.max_players:
        raise ReplayError(f"{spec.title} seats {spec.seats} players, not {n}")
    try:
        match = spec.match([f"Player {i + 1}" for i in range(n)], opts)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    family = _family(match.deck)
    if deck is not None and deck != family:
        raise ReplayError(f"this {spec.title} match uses the {match.deck} deck, not {deck} cards"
                          + (" (choose the deck with --option deck=…)" if choices else ""))
    return Setup(spec.name, name, opts, n, family, zone_layout(spec.name, n, family))


def _deck_choices(options: Any) -> tuple[str, ...]:
    """The values of the options' ``deck`` option (none when the game has no deck choice)."""
    for f in fields(options):
        if f.name == "deck":
            return tuple(str(c) for c in f.metadata.get("choices", ()))
    return ()
