"""Bagaji events (rules B2-B13): what happens at the table, one event each.

Cards that go into a concealed hand are named only when known: a ``deal`` gives each hand as a list
of ids (fully known, simulations and tests) or as the count 5 (observer), and the stock as ids or
as a count; a ``draw`` names the drawn card, or ``null`` when nobody but the drawer saw it.
Everything laid face up names its cards: discards, the pair of a call, an exposed triplet, and the
cards shown after the round (``show``). A ``stop`` or a ``win`` names no cards: the player's hand
is checked as soon as it is known (at once with a fully known deal, else when it is shown).
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.events import Event, EventRegistry

EVENTS = EventRegistry("bagaji")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class FirstPlayer(Event):
    """Who plays first in round 1 (later rounds: the previous winner, or rules B12)."""

    TYPE = "first-player"
    seat: int
    """The first player's seat."""

    def describe(self) -> str:
        return f"seat {self.seat} plays first"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Deal(Event):
    """Five cards to each player (3 then 2); the rest is the face-down stock."""

    TYPE = "deal"
    hands: tuple[tuple[str, ...] | int, ...]
    """Per seat (index = seat − 1): the five ids, or 5 when the hand is not seen."""
    stock: tuple[str, ...] | int
    """The stock's ids (any order; every one may be drawn next) or its size when not seen."""

    def describe(self) -> str:
        return "the cards are dealt"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Draw(Event):
    """The player to move draws the top card of the stock."""

    TYPE = "draw"
    seat: int
    """Who draws."""
    card: str | None = None
    """The card drawn, or None when it was not seen."""

    def describe(self) -> str:
        return f"seat {self.seat} draws" + (f" {self.card}" if self.card else "")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Discard(Event):
    """The player to move discards one card face up."""

    TYPE = "discard"
    seat: int
    """Who discards."""
    card: str
    """The card discarded."""

    def describe(self) -> str:
        return f"seat {self.seat} discards {self.card}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Call(Event):
    """A player takes the last discard with a pair of its value and exposes the triplet."""

    TYPE = "call"
    seat: int
    """Who calls."""
    cards: tuple[str, ...]
    """The two cards of the caller's pair, laid face up with the discard."""
    win: bool = False
    """True for a winning call (completing two triplets; needs a prior ``ready``, rules B7.3)."""

    def describe(self) -> str:
        return f"seat {self.seat} calls with {', '.join(self.cards)}" + (" and wins" if self.win else "")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Stop(Event):
    """The player to move ends the round before drawing, claiming a low hand (rules B5)."""

    TYPE = "stop"
    seat: int
    """Who stops."""

    def describe(self) -> str:
        return f"seat {self.seat} stops"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Win(Event):
    """The player who just drew declares a winning six-card hand."""

    TYPE = "win"
    seat: int
    """Who wins."""

    def describe(self) -> str:
        return f"seat {self.seat} wins"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Expose(Event):
    """Option ``natural-triplet-exposure`` (rules B4.3): lay a concealed triplet face up after drawing."""

    TYPE = "expose"
    seat: int
    """Who exposes."""
    cards: tuple[str, ...]
    """The three equal cards."""

    def describe(self) -> str:
        return f"seat {self.seat} lays down {', '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Ready(Event):
    """A player announces that a discard could complete their two triplets (rules B8)."""

    TYPE = "ready"
    seat: int
    """Who announces."""

    def describe(self) -> str:
        return f"seat {self.seat} is ready"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Show(Event):
    """After the round ends, a player lays concealed cards face up (all of them, or some at a time)."""

    TYPE = "show"
    seat: int
    """Whose cards."""
    cards: tuple[str, ...]
    """The cards laid face up."""

    def describe(self) -> str:
        return f"seat {self.seat} shows {', '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Reshuffle(Event):
    """The stock is empty: the discards but the top one become the new stock (rules B9)."""

    TYPE = "reshuffle"

    def describe(self) -> str:
        return "the discards are shuffled into a new stock"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Exhausted(Event):
    """The stock is empty and cannot be renewed: the round ends with no winner (rules B9, B11.5)."""

    TYPE = "exhausted"

    def describe(self) -> str:
        return "the stock is exhausted"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class EndSession(Event):
    """The table ends the session: now between rounds, else when the round in progress is settled."""

    TYPE = "end-session"

    def describe(self) -> str:
        return "the session ends"
