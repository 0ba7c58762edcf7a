"""The registry of games: name → :class:`GameSpec` (engine, rulesets, hand evaluator, and the
game's :class:`GameDescription`: what the table, the camera, the tracker and the stone counter need
to know of it beyond its engine).

Game packages are imported lazily so that ``scorer.games`` itself stays cheap to import. Each game
is one folder ``scorer/<game>/``: its ``SPEC`` (in ``__init__.py``), its description
(``describe.py``), its tracker hooks (``tracking.py``) and the page's texts of it (``texts.json``:
:attr:`GameDescription.texts`); adding a game touches that folder, its line in
:data:`GAME_MODULES` and its tests.
"""

from __future__ import annotations

import functools
import importlib
import json
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
class CounterScale:
    """How the stone counter shows a seat's total on its row of LEDs (:mod:`fudaba.counter`)."""

    points_per_led: float = 1.0
    """Points (or stones) one LED stands for."""
    from_mean: bool = False
    """True where a seat shows its distance from the table's mean, not its total."""
    lower_is_better: bool = False
    """True where a lower total is the better one (the LEDs then count down from the mean)."""

    def leds(self, totals: Sequence[float]) -> list[float]:
        """Each seat's LED count (unrounded, unclamped; negative: behind)."""
        mean = sum(totals) / len(totals) if totals and self.from_mean else 0.0
        sign = -1.0 if self.lower_is_better else 1.0
        return [sign * (t - mean) / self.points_per_led for t in totals]


@dataclass(frozen=True)
class GameDescription:
    """What a game is beyond its engine, for the table, the camera, the tracker and the counter.

    Each game folder gives one, in ``scorer/<game>/describe.py``: nothing outside the folder names
    a game to know these."""

    centre_zone: str
    """The shared face-up zone of the table (``field``, ``pile``, ``discard``), right of the stock."""
    deck_family: str
    """The recognition deck when none is chosen: ``hanafuda`` or ``playing``."""
    counter: CounterScale
    """How the stone counter shows the totals."""
    tracking: str
    """The module holding the tracker's hooks as ``HOOKS`` (imported on first use: :attr:`hooks`)."""
    reveal: bool = False
    """True where the concealed hands are laid face up when a round ends (Bagaji)."""
    hidden_draws: bool = False
    """True where a drawn card goes to a hidden hand unseen (the table sees a face-down card)."""
    stock_as_count: bool = True
    """True where a deal in observer form gives the stock as its number of cards (False: as null,
    face down and unknown, Poka's deal having no count form; :func:`scorer.deals.observer_deal`)."""
    passes: tuple[Mapping[str, Any], ...] = ()
    """A seat's pass (the stone counter's long press on a seat button): the first of these that a
    legal event of the seat matches (every key equal), in this order; none: the game has no pass."""
    final_places: Callable[[Any, Any], Any] | None = None
    """``(places before, event) -> places after`` for an event that settled the round while the
    engine kept no places (:func:`scorer.table.final_places`); None: no table change."""

    @property
    def hooks(self) -> Any:
        """The tracker's hooks for this game (a :class:`scorer.tracker.hooks.GameHooks`)."""
        return importlib.import_module(self.tracking).HOOKS

    @property
    def package(self) -> str:
        """The game's folder as a package (``scorer.poka``): the one holding its tracker hooks."""
        return self.tracking.rpartition(".")[0]

    @property
    def texts(self) -> Mapping[str, Any]:
        """The page's texts of this game, in English, Japanese and Russian (``texts.json`` in the
        game's folder, read once; the dashboard's ``gametext.js`` says them):

        * ``events``: event type → variants, each ``{"if": field (optional), "en": …, "ja": …,
          "ru": …}``; the first variant whose ``if`` field is truthy in the event's JSON applies,
          else the last one without ``if``. ``{field}`` in a template is the event's field: a seat
          (``seat``, ``dealer``) by the player's name, a list of cards by their names, ``teyaku`` as
          it is, any other string as a card's name;
        * ``expects``: phase (:meth:`scorer.match.Match.expects`) → ``{"en": …, "ja": …, "ru": …}``,
          ``{seat}`` the seat to act;
        * ``types``: event type → ``{"ja": …, "ru": …}``, the type's name.

        Event types and phases every game shares (the deal without a game's sentence, the reshuffle,
        a deal due, the match over) are said by ``gametext.js`` itself. Read-only: shared by every
        caller."""
        return _texts(self.package)


@functools.cache
def _texts(package: str) -> dict[str, Any]:
    from importlib import resources

    data: dict[str, Any] = json.loads(resources.files(package).joinpath("texts.json").read_text(encoding="utf-8"))
    return data


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
    description: GameDescription
    """What the table, camera, tracker and counter need beyond the engine."""
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
