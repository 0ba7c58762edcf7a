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
    """What ``fudaba hand`` prints: a JSON object and human lines."""

    def to_json(self) -> dict[str, Any]: ...

    def lines(self) -> list[str]: ...


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
