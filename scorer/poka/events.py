"""Poka events (rules P2-P6). Seats are numbered from 1.

A round is: ``deal`` (chance), then the starting-hand window (``claim`` / ``no-claim``), then turns
of ``play`` events ended by ``pass``, with ``table-card`` (chance) after two null turns and
``reshuffle`` (chance) when the stock is empty; it ends when a hand empties or a claim wins.

* The deal carries each hand as a tuple of ids (fully known) or the count 6 (observer: a hidden
  hand), the table card (always face up) and the stock as ids or null (face down, unknown).
* A claim shows the whole 6-card hand face up; the engine checks the named starting hand against
  the shown cards. ``no-claim`` says a player has none to show. The dealer's first ``play`` or
  ``pass`` while no claim has been shown closes the window with no claims.
* A played card is revealed by its play. Poka has no draws into hands: the stock only ever gives
  new table cards, which are face up, so ``table-card`` always names its card.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.events import Event, EventRegistry

EVENTS = EventRegistry("poka")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Deal(Event):
    """The dealer deals 6 cards to each player and turns the table card (台札) face up."""

    TYPE = "deal"

    dealer: int
    """Seat that deals and leads (the previous round's winner, rules P2.1)."""
    hands: tuple[tuple[str, ...] | int, ...]
    """Each seat's hand (index = seat − 1): its ids when known, else the count 6."""
    table: str
    """The table card, face up."""
    stock: tuple[str, ...] | None = None
    """The stock's ids when known (simulations, tests), else null: face down."""

    def describe(self) -> str:
        """E.g. ``seat 1 deals; table card 05-bridge``."""
        return f"seat {self.dealer} deals; table card {self.table}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Claim(Event):
    """A player shows their whole hand to claim a starting hand (手役)."""

    TYPE = "claim"

    seat: int
    """Seat that claims."""
    cards: tuple[str, ...]
    """The 6 cards shown, face up."""
    teyaku: str | None = None
    """The starting hand claimed (``three-pairs`` …); null: whichever the cards hold."""

    def describe(self) -> str:
        """E.g. ``seat 2 shows three-pairs: …``."""
        return f"seat {self.seat} shows {self.teyaku or 'a starting hand'}: {' '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class NoClaim(Event):
    """A player says they have no starting hand to show."""

    TYPE = "no-claim"

    seat: int
    """Seat that has no claim."""

    def describe(self) -> str:
        """E.g. ``seat 1 has no starting hand``."""
        return f"seat {self.seat} has no starting hand"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Play(Event):
    """A player plays one card from their hand onto the top card."""

    TYPE = "play"

    seat: int
    """Seat that plays."""
    card: str
    """The card played (revealed by the play)."""

    def describe(self) -> str:
        """E.g. ``seat 1 plays 06-ribbon``."""
        return f"seat {self.seat} plays {self.card}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Pass(Event):
    """A player ends their turn ("pass")."""

    TYPE = "pass"

    seat: int
    """Seat that passes."""

    def describe(self) -> str:
        """E.g. ``seat 2 passes``."""
        return f"seat {self.seat} passes"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class TableCard(Event):
    """After two null turns a new table card is turned from the stock onto the played cards."""

    TYPE = "table-card"

    card: str
    """The new table card, face up."""

    def describe(self) -> str:
        """E.g. ``new table card 03-curtain``."""
        return f"new table card {self.card}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Reshuffle(Event):
    """The empty stock is renewed from the played cards, all but the top one (rules P5.2)."""

    TYPE = "reshuffle"

    def describe(self) -> str:
        """``played cards reshuffled into the stock``."""
        return "played cards reshuffled into the stock (the top card stays)"
