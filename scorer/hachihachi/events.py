"""Hachi-hachi events (JSON ``type`` in brackets).

* ``deal`` — the dealer deals: each seat's hand (ids when known, else a count), the face-up field
  and the stock (ids when known, else a count). Seven seated: the blank is in the deck, no field.
* ``sit-out`` — seven seated: the holder of the blank shows it and lays their six cards as the field.
* ``declare`` — a seat says whether it plays (``play: true``) or retires.
* ``buyout`` — a forced-out seat shows its seven cards to be paid hand compensation.
* ``claim`` — an active seat claims a teyaku by showing cards.
* ``play`` — a card from hand onto the field, capturing ``capture`` (the chosen match) if any.
* ``draw`` — the top stock card turned over, capturing ``capture`` if any.
* ``sage`` / ``shobu`` — the call after a turn that made or improved a dekiyaku.
* ``cancel`` — a seat that called sage ends the round at half value, at the start of its turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.events import Event, EventRegistry

EVENTS = EventRegistry("hachi-hachi")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Deal(Event):
    """The deal of a round."""

    TYPE = "deal"
    dealer: int
    """Seat that deals (and, if it plays, plays first)."""
    hands: tuple[tuple[str, ...] | int, ...]
    """Each seated player's hand in seat order: the card ids, or how many face-down cards."""
    field: tuple[str, ...]
    """The face-up table cards."""
    stock: tuple[str, ...] | int
    """The undealt cards: ids when known (simulation), else their number."""

    def describe(self) -> str:
        return f"seat {self.dealer} deals; field {', '.join(self.field)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class SitOut(Event):
    """Seven seated: the blank's holder sits out; its other six cards become the field."""

    TYPE = "sit-out"
    seat: int
    cards: tuple[str, ...]
    """The six real cards laid on the table."""

    def describe(self) -> str:
        return f"seat {self.seat} sits out; its cards go to the field: {', '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Declare(Event):
    """Play or retire."""

    TYPE = "declare"
    seat: int
    play: bool

    def describe(self) -> str:
        return f"seat {self.seat} {'plays the round' if self.play else 'retires'}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Buyout(Event):
    """A forced-out player shows its hand and is paid hand compensation."""

    TYPE = "buyout"
    seat: int
    cards: tuple[str, ...]

    def describe(self) -> str:
        return f"seat {self.seat} is bought out, showing {', '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Claim(Event):
    """A teyaku claimed by showing cards."""

    TYPE = "claim"
    seat: int
    teyaku: str
    """Name of the teyaku claimed, e.g. ``sanbon`` or ``karasu``."""
    cards: tuple[str, ...]
    """The cards shown."""

    def describe(self) -> str:
        return f"seat {self.seat} claims {self.teyaku} with {', '.join(self.cards)}"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Play(Event):
    """A card played from hand."""

    TYPE = "play"
    seat: int
    card: str
    capture: str | None = None
    """The field card taken when two match; with one or three matches it may be omitted."""

    def describe(self) -> str:
        return f"seat {self.seat} plays {self.card}" + (f", taking {self.capture}" if self.capture else "")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Draw(Event):
    """The top stock card turned over by the seat whose turn it is."""

    TYPE = "draw"
    seat: int
    card: str
    capture: str | None = None

    def describe(self) -> str:
        return f"seat {self.seat} draws {self.card}" + (f", taking {self.capture}" if self.capture else "")


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Sage(Event):
    """Continue after making or improving a dekiyaku."""

    TYPE = "sage"
    seat: int

    def describe(self) -> str:
        return f"seat {self.seat} calls sage (plays on)"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Shobu(Event):
    """Stop after making or improving a dekiyaku: the round ends."""

    TYPE = "shobu"
    seat: int

    def describe(self) -> str:
        return f"seat {self.seat} calls shobu (the round ends)"


@EVENTS.register
@dataclass(frozen=True, slots=True)
class Cancel(Event):
    """A seat that called sage ends the round at half value, at the start of its turn."""

    TYPE = "cancel"
    seat: int

    def describe(self) -> str:
        return f"seat {self.seat} cancels (the round ends at half value)"
