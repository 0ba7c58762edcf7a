"""The registry of games: name → :class:`GameSpec` (engine, rulesets, hand evaluator).

Game packages are imported lazily so that ``scorer.games`` itself stays cheap to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from scorer import rulesets
from scorer.match import Match

GAME_MODULES = {
    "hachi-hachi": "scorer.hachihachi",
    "bagaji": "scorer.bagaji",
    "poka": "scorer.poka",
}


class HandReport(Protocol):
    """What ``fudaba hand`` prints: a JSON object and human lines.

    One rule for the size of a hand, in every game (:func:`check_hand_size`): a hand shorter than
    the game's full hand is evaluated as far as it can be, and its report says what a full hand
    would need (JSON ``"complete": false`` and ``"needs": "<sentence>"``, and a last line
    ``incomplete hand: <sentence>``); a full hand reports ``"complete": true, "needs": null``.
    No cards, or more than the game's largest hand, is a :class:`~scorer.errors.ScorerError` that
    names the largest.
    """

    def to_json(self) -> dict[str, Any]: ...

    def lines(self) -> list[str]: ...


def check_hand_size(title: str, count: int, most: int, which: str) -> None:
    """Raise :class:`~scorer.errors.ScorerError` unless ``1 <= count <= most``.

    ``most`` is the game's largest hand and ``which`` says which hand that is, e.g. ``the dealt
    hand``: ``a Poka hand has at most 6 cards (the starting hand), not 7``.
    """
    from scorer.errors import ScorerError

    if count < 1:
        raise ScorerError(f"no cards given; a {title} hand has 1 to {most} cards")
    if count > most:
        raise ScorerError(f"a {title} hand has at most {most} cards ({which}), not {count}")


def more_needed(count: int) -> str:
    """``1 more is`` or ``3 more are``, for the ``needs`` sentence of a short hand."""
    return f"{count} more {'is' if count == 1 else 'are'}"


@dataclass(frozen=True)
class GameSpec:
    """Everything the CLI and the record layer need to know about one game."""

    name: str
    """Registry name, e.g. ``hachi-hachi``."""
    title: str
    """Name for people."""
    match: type[Match]
    """The engine class."""
    rulesets: Mapping[str, Any]
    """Named option presets (frozen dataclasses)."""
    default_ruleset: str
    """The seed's ruleset."""
    min_players: int
    """Fewest seated players."""
    max_players: int
    """Most seated players (with the largest deck option)."""
    evaluate_hand: Callable[[Sequence[str], Any], HandReport]
    """Evaluate a hand of card ids under options (``fudaba hand``)."""
    summary: str = ""
    """A paragraph on the rules as implemented (``fudaba rules``)."""

    @property
    def seats(self) -> str:
        """The seated players as people say it: ``2``, ``3-7``."""
        if self.min_players == self.max_players:
            return str(self.min_players)
        return f"{self.min_players}-{self.max_players}"

    def options(self, ruleset: str | None = None, overrides: Mapping[str, Any] | None = None) -> Any:
        """The options of a ruleset (default: the seed's) with ``K=V`` overrides applied."""
        name = ruleset or self.default_ruleset
        if name not in self.rulesets:
            raise rulesets.OptionError(
                f"unknown {self.name} ruleset {name!r}; rulesets: {', '.join(self.rulesets)}"
            )
        return rulesets.with_overrides(self.rulesets[name], overrides or {})


def game(name: str) -> GameSpec:
    """The game called ``name``; a clear error lists the known games."""
    key = name.strip().lower().replace("_", "-")
    aliases = {"hachihachi": "hachi-hachi", "88": "hachi-hachi", "hh": "hachi-hachi"}
    key = aliases.get(key, key)
    if key not in GAME_MODULES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[key]).SPEC


def all_games() -> list[GameSpec]:
    """Every game, in registry order."""
    return [game(n) for n in GAME_MODULES]
