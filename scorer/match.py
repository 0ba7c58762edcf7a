"""The engine contract shared by the three games: a match is a stack of immutable states.

A :class:`Match` holds the current state, the events that led to it and the states before each
event. ``apply(event)`` checks the event against the rules and pushes the new state; an illegal or
malformed event raises :class:`~scorer.errors.IllegalEventError` (naming the rule) and changes
nothing. ``undo()`` pops exactly one event. ``legal_events()`` lists what may happen next where the
state is known enough to enumerate (it raises :class:`NotEnumerableError` at a deal, where the
possibilities are too many); ``random_event(rng)`` draws one legal event, chance included, for
simulations and property tests.

Games implement ``_initial_state`` and ``_step`` (a pure function: state, event → new state) and
keep in their state value a ``results`` tuple of :class:`RoundResult` and an ``over`` flag.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from scorer.errors import IllegalEventError, ScorerError
from scorer.events import Event, EventRegistry
from scorer.places import Places


class NotEnumerableError(ScorerError):
    """``legal_events()`` was asked where the possibilities cannot be listed (e.g. a deal)."""


@dataclass(frozen=True, slots=True)
class Player:
    """A person at the table."""

    seat: int
    """Seat number, from 1, in turn order."""
    name: str
    """Display name."""

    def to_json(self) -> dict[str, Any]:
        """``{"seat": n, "name": "..."}``."""
        return {"seat": self.seat, "name": self.name}


@dataclass(frozen=True, slots=True)
class Said:
    """A value a :class:`Note` names that the page says its own way; JSON ``{kind: value}``.

    ``seat`` (a seat number: the player's name), ``seats`` (a tuple of seat numbers), ``signed``
    (a number with its sign, ``+0``, ``-12``), ``name`` (an id the game's ``texts.json`` names in
    each language under ``settlement.names``)."""

    kind: str
    """``seat``, ``seats``, ``signed`` or ``name``."""
    value: int | str | tuple[int, ...]
    """The seat, seats, number or id."""

    def to_json(self) -> dict[str, Any]:
        """``{"seat": 2}``, ``{"seats": [1, 3]}``, ``{"signed": -4}``, ``{"name": "moon"}``."""
        return {self.kind: list(self.value) if isinstance(self.value, tuple) else self.value}


@dataclass(frozen=True, slots=True)
class Note:
    """One settlement line as data: a key of the game's ``texts.json`` ``settlement.lines``
    templates and the values its ``{placeholders}`` name (numbers, strings, :class:`Said` values,
    nested notes, tuples of these said as a list)."""

    key: str
    """The template's key, e.g. ``retired``."""
    values: tuple[tuple[str, Any], ...] = ()
    """(placeholder, value) pairs."""

    @classmethod
    def of(cls, key: str, **values: Any) -> Note:
        """``Note.of("pot", pot=12, takers=(Said("seat", 1),))``."""
        return cls(key, tuple(values.items()))

    def to_json(self) -> dict[str, Any]:
        """``{"key": ..., "values": {...}}``: a tuple as a list, a said value or note as its JSON."""
        return {"key": self.key, "values": {k: _note_json(v) for k, v in self.values}}


def _note_json(value: Any) -> Any:
    if isinstance(value, (Said, Note)):
        return value.to_json()
    if isinstance(value, tuple):
        return [_note_json(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The settlement of one round: what each seat gained or lost, and why."""

    number: int
    """Round number, from 1."""
    dealer: int
    """Seat that dealt the round."""
    winner: int | None
    """Seat that won the round (deals next where the rules say so); None when nobody won."""
    changes: tuple[int, ...]
    """Change of each seat's score this round, index = seat − 1, in the game's unit."""
    totals: tuple[int, ...]
    """Running totals after this round, index = seat − 1."""
    lines: tuple[str, ...] = ()
    """Human-readable explanation of every payment, in order."""
    notes: tuple[Note, ...] = ()
    """Each of ``lines`` as data, one per line, for the page to say in the players' language."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "round": self.number,
            "dealer": self.dealer,
            "winner": self.winner,
            "changes": list(self.changes),
            "totals": list(self.totals),
            "lines": list(self.lines),
            "notes": [n.to_json() for n in self.notes],
        }


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a match waits for."""

    phase: str
    """The game's phase name (``deal``, ``play``, ``draw`` …; ``over`` at the end)."""
    seat: int | None
    """The seat expected to act, when one is."""
    types: tuple[str, ...]
    """The event types legal now (``("deal",)`` where a deal is due)."""
    text: str
    """A sentence for players, e.g. ``seat 2 is to play a card from hand``."""
    listed: bool = True
    """False where the legal events cannot be listed (a deal)."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"phase": self.phase, "seat": self.seat, "types": list(self.types), "text": self.text,
                "listed": self.listed}


@dataclass(frozen=True, slots=True)
class MatchStatus:
    """A match at a glance (:meth:`Match.status`)."""

    game: str
    events: int
    """Events applied (after undos)."""
    rounds_settled: int
    totals: tuple[int, ...]
    """Running totals, index = seat − 1."""
    over: bool
    expects: Expectation

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"game": self.game, "events": self.events, "rounds_settled": self.rounds_settled,
                "totals": list(self.totals), "over": self.over, "expects": self.expects.to_json()}


class Match(ABC):
    """A whole match of one game: rounds, dealer rotation, running totals, match end."""

    GAME: ClassVar[str] = ""
    """Game name, e.g. ``hachi-hachi``."""
    UNIT: ClassVar[str] = "points"
    """Unit of ``RoundResult.changes`` and ``totals``."""
    LOWER_IS_BETTER: ClassVar[bool] = False
    """True when the lowest total wins (Bagaji)."""
    EVENTS: ClassVar[EventRegistry]
    """The game's event types."""

    def __init__(self, players: Sequence[Player | str], options: Any, deck: str | None = None) -> None:
        self.players: tuple[Player, ...] = tuple(
            p if isinstance(p, Player) else Player(i + 1, str(p)) for i, p in enumerate(players)
        )
        for i, p in enumerate(self.players):
            if p.seat != i + 1:
                raise ValueError(f"seats must be numbered 1..{len(self.players)} in order")
        self.options = options
        self.deck = deck or self.default_deck(options, len(self.players))
        self._check_setup()
        self._state: Any = self._initial_state()
        self._stack: list[Any] = []
        self._events: list[Event] = []

    # ------------------------------------------------------------------ contract for games
    @classmethod
    @abstractmethod
    def default_deck(cls, options: Any, n_players: int) -> str:
        """The deck name this game uses for these options and player count."""

    def _check_setup(self) -> None:  # noqa: B027 - optional hook
        """Raise ``ValueError`` when the players, options or deck cannot make a match."""

    @abstractmethod
    def _initial_state(self) -> Any:
        """The state before the first deal."""

    @abstractmethod
    def _step(self, state: Any, event: Event) -> Any:
        """The state after ``event``; raise ``IllegalEventError`` (and change nothing) if illegal."""

    @abstractmethod
    def legal_events(self) -> list[Event]:
        """Every legal next event; ``NotEnumerableError`` where they cannot be listed."""

    @abstractmethod
    def random_event(self, rng: random.Random) -> Event:
        """One legal next event drawn at random, chance (deals, draws) included."""

    def to_play(self) -> int | None:
        """The seat expected to act next, when one is; games override."""
        return None

    def phase(self) -> str:
        """The game's name for what happens next (``deal``, ``play`` …; ``over`` at the end)."""
        if self._state.over:
            return "over"
        return str(getattr(self._state, "phase", ""))

    def expecting(self) -> str:
        """What the match waits for, in words a player understands."""
        if self._state.over:
            return "the match is over"
        seat, phase = self.to_play(), self.phase()
        return f"seat {seat}: {phase}" if seat else f"{phase} is due"

    def table_places(self) -> Places | None:
        """Where the cards of the current round are, or of the last round ended while no new one is
        dealt (the cards stay on the table until the next deal); None before the first deal."""
        places = getattr(self._state, "places", None)
        return places if isinstance(places, Places) else None

    def table_sitout(self) -> int | None:
        """The seat sitting out the round of :meth:`table_places` (Hachi-hachi with seven seats)."""
        return None

    def expects(self) -> Expectation:
        """What may happen next: the phase, the seat to act, the legal event types (where they can
        be listed) and a sentence."""
        if self._state.over:
            return Expectation("over", None, (), "the match is over", False)
        try:
            types = tuple(sorted({e.TYPE for e in self.legal_events()}))
            listed = True
        except NotEnumerableError:
            types, listed = ("deal",), False
        return Expectation(self.phase(), self.to_play(), types, self.expecting(), listed)

    def status(self) -> MatchStatus:
        """The match at a glance: rounds settled, totals, what is expected, whether it is over."""
        return MatchStatus(
            game=self.GAME,
            events=len(self._events),
            rounds_settled=len(self._state.results),
            totals=self.totals,
            over=self.is_over,
            expects=self.expects(),
        )

    # ------------------------------------------------------------------ common verbs
    @property
    def state(self) -> Any:
        """The current immutable state."""
        return self._state

    @property
    def events(self) -> tuple[Event, ...]:
        """Events applied so far (after undos), in order."""
        return tuple(self._events)

    @property
    def event_count(self) -> int:
        """How many events are applied now (after undos); O(1), unlike ``len(events)``."""
        return len(self._events)

    def apply(self, event: Event) -> None:
        """Apply ``event``; raise ``IllegalEventError`` (state unchanged) when the rules forbid it."""
        if type(event) not in self.EVENTS:
            raise IllegalEventError(
                "event-type", f"{getattr(event, 'TYPE', type(event).__name__)!r} is not a {self.GAME} event"
            )
        if self._state.over:
            raise IllegalEventError("match-over", "the match is over; no further events are accepted")
        new = self._step(self._state, event)
        self._stack.append(self._state)
        self._events.append(event)
        self._state = new

    def check(self, event: Event) -> IllegalEventError | None:
        """The reason ``event`` would be refused now, or None when it is legal."""
        try:
            if self._state.over:
                raise IllegalEventError("match-over", "the match is over")
            self._step(self._state, event)
        except IllegalEventError as exc:
            return exc
        return None

    def fork(self) -> Match:
        """An independent match at the same point: the same players, options, deck and events. States
        are immutable, so the fork shares them and costs O(events); applying or undoing events on
        either leaves the other as it is (the tracker searches on its own fork)."""
        other = copy.copy(self)
        other._stack = list(self._stack)
        other._events = list(self._events)
        return other

    def undo(self) -> Event:
        """Take back the last event exactly; return it."""
        if not self._stack:
            raise IllegalEventError("nothing-to-undo", "there is no event to undo")
        self._state = self._stack.pop()
        return self._events.pop()

    # ------------------------------------------------------------------ results
    @property
    def results(self) -> tuple[RoundResult, ...]:
        """Settlements of the finished rounds."""
        return self._state.results

    @property
    def totals(self) -> tuple[int, ...]:
        """Running totals, index = seat − 1."""
        if self._state.results:
            return self._state.results[-1].totals
        return (0,) * len(self.players)

    @property
    def is_over(self) -> bool:
        """True once the match has ended."""
        return bool(self._state.over)

    def leaders(self) -> tuple[int, ...]:
        """Seats with the best total (lowest where ``LOWER_IS_BETTER``); ties share."""
        totals = self.totals
        best = min(totals) if self.LOWER_IS_BETTER else max(totals)
        return tuple(i + 1 for i, t in enumerate(totals) if t == best)
