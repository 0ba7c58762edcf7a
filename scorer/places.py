"""Where every card is, as an observer at the table knows it.

fudaba only ever sees face-up cards. A :class:`Places` value holds, for each named place (a hand,
the stock, the field, a capture pile …), the cards known to be there and a count of cards whose
identity is not known yet. Cards not known anywhere form the *unseen* multiset; the hidden counts
of all places add up to its size. A card becomes known when it is revealed (played, drawn, shown,
captured): it must then be either known at the place it comes from, or be one of the unseen cards
while that place still holds hidden ones. So a card can never be revealed twice, and the deck's
multiset is conserved by every operation.

A fully known deal (simulation, tests) is the special case where no place holds hidden cards.

Values are immutable: every operation returns a new :class:`Places`, which makes ``undo`` exact.
Within a place the last card of ``known`` is the top (the most recently placed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer.errors import IllegalEventError


@dataclass(frozen=True, slots=True)
class Place:
    """The contents of one place."""

    known: tuple[str, ...] = ()
    """Cards known to be here, in the order they arrived (last = top)."""
    hidden: int = 0
    """Cards here whose identity is not known."""

    @property
    def size(self) -> int:
        """How many cards are here."""
        return len(self.known) + self.hidden


_EMPTY = Place()


class Places:
    """Immutable map of place name → :class:`Place`, plus the unseen multiset."""

    __slots__ = ("_places", "_unseen")

    def __init__(self, places: Mapping[str, Place], unseen: Mapping[str, int]) -> None:
        self._places: dict[str, Place] = dict(places)
        self._unseen: dict[str, int] = {k: v for k, v in unseen.items() if v}

    @classmethod
    def start(cls, deck: Iterable[str], places: Mapping[str, Place]) -> Places:
        """Places for a fresh deal of ``deck`` (a multiset of ids).

        Raises ``IllegalEventError`` when the known cards are not part of the deck or the hidden
        counts do not add up to the number of cards left unknown.
        """
        unseen = Counter(deck)
        for name, place in places.items():
            for cid in place.known:
                if unseen[cid] <= 0:
                    raise IllegalEventError(
                        "card-conservation",
                        f"{cid} at {name} is not in the deck, or is there more often than the deck holds",
                    )
                unseen[cid] -= 1
        hidden = sum(p.hidden for p in places.values())
        left = sum(unseen.values())
        if hidden != left:
            raise IllegalEventError(
                "card-conservation",
                f"the deal accounts for {sum(p.size for p in places.values())} cards but the deck has "
                f"{sum(p.size for p in places.values()) - hidden + left}",
            )
        return cls(places, unseen)

    # ------------------------------------------------------------------ reading
    def __getitem__(self, name: str) -> Place:
        return self._places.get(name, _EMPTY)

    def names(self) -> tuple[str, ...]:
        """Names of the places, in creation order."""
        return tuple(self._places)

    @property
    def unseen(self) -> Counter[str]:
        """Cards not known to be anywhere (they are in some place's hidden part)."""
        return Counter(self._unseen)

    def unseen_count(self, card_id: str) -> int:
        """How many copies of ``card_id`` are still unseen."""
        return self._unseen.get(card_id, 0)

    def can_take(self, name: str, card_id: str) -> bool:
        """True when ``card_id`` may come from place ``name``."""
        place = self._places.get(name, _EMPTY)
        return card_id in place.known or (place.hidden > 0 and self._unseen.get(card_id, 0) > 0)

    def candidates(self, name: str) -> tuple[str, ...]:
        """The distinct ids that could come from place ``name`` (known there, or unseen)."""
        place = self._places.get(name, _EMPTY)
        out = dict.fromkeys(place.known)
        if place.hidden:
            out.update(dict.fromkeys(sorted(self._unseen)))
        return tuple(out)

    def where(self, card_id: str) -> tuple[str, ...]:
        """Names of the places where ``card_id`` is known to be (once per copy)."""
        out: list[str] = []
        for name, place in self._places.items():
            out.extend([name] * place.known.count(card_id))
        return tuple(out)

    def total(self) -> int:
        """Number of cards in all places."""
        return sum(p.size for p in self._places.values())

    def multiset(self) -> Counter[str]:
        """Known cards of every place plus the unseen ones: always the whole deck."""
        out: Counter[str] = Counter(self._unseen)
        for place in self._places.values():
            out.update(place.known)
        return out

    def is_fully_known(self) -> bool:
        """True when no place holds a hidden card."""
        return not self._unseen

    def to_json(self) -> dict[str, object]:
        """A plain-data view: ``{place: {"known": [...], "hidden": n}}``."""
        return {n: {"known": list(p.known), "hidden": p.hidden} for n, p in self._places.items()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Places):
            return NotImplemented
        mine = {k: v for k, v in self._places.items() if v.size}
        theirs = {k: v for k, v in other._places.items() if v.size}
        return mine == theirs and self._unseen == other._unseen

    def __hash__(self) -> int:
        return hash((tuple(sorted((k, v) for k, v in self._places.items() if v.size)),))

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{n}={list(p.known)}+{p.hidden}?" if p.hidden else f"{n}={list(p.known)}"
            for n, p in self._places.items()
        )
        return f"Places({inner})"

    # ------------------------------------------------------------------ changing
    def take(self, name: str, card_id: str) -> Places:
        """Remove ``card_id`` from place ``name``, revealing it if it was hidden there."""
        place = self._places.get(name, _EMPTY)
        if card_id in place.known:
            known = list(place.known)
            idx = len(known) - 1 - known[::-1].index(card_id)
            del known[idx]
            places = dict(self._places)
            places[name] = Place(tuple(known), place.hidden)
            return Places._raw(places, self._unseen)
        if place.hidden > 0 and self._unseen.get(card_id, 0) > 0:
            places = dict(self._places)
            places[name] = Place(place.known, place.hidden - 1)
            unseen = dict(self._unseen)
            if unseen[card_id] == 1:
                del unseen[card_id]
            else:
                unseen[card_id] -= 1
            return Places._raw(places, unseen)
        raise IllegalEventError("card-whereabouts", self._why_not(name, card_id))

    def put(self, name: str, card_id: str) -> Places:
        """Place a known card on top of place ``name``."""
        place = self._places.get(name, _EMPTY)
        places = dict(self._places)
        places[name] = Place(place.known + (card_id,), place.hidden)
        return Places._raw(places, self._unseen)

    def move(self, card_id: str, src: str, dst: str) -> Places:
        """Take ``card_id`` from ``src`` and put it on top of ``dst``."""
        place = self._places.get(src, _EMPTY)
        if src == dst or card_id not in place.known:
            return self.take(src, card_id).put(dst, card_id)
        known = list(place.known)
        idx = len(known) - 1 - known[::-1].index(card_id)
        del known[idx]
        target = self._places.get(dst, _EMPTY)
        places = dict(self._places)
        places[src] = Place(tuple(known), place.hidden)
        places[dst] = Place(target.known + (card_id,), target.hidden)
        return Places._raw(places, self._unseen)

    def show(self, name: str, card_id: str) -> Places:
        """Reveal a card that stays at place ``name`` (a hand shown face up)."""
        if card_id in self._places.get(name, _EMPTY).known:
            return self
        return self.take(name, card_id).put(name, card_id)

    def move_all(self, src: str, dst: str) -> Places:
        """Move every card of ``src`` to ``dst``: known ones stay known, hidden ones stay hidden."""
        a = self._places.get(src, _EMPTY)
        b = self._places.get(dst, _EMPTY)
        places = dict(self._places)
        places[src] = _EMPTY
        places[dst] = Place(b.known + a.known, b.hidden + a.hidden)
        return Places._raw(places, self._unseen)

    def forget(self, name: str) -> Places:
        """Turn every known card of ``name`` into a hidden one (a shuffled stock, a hand taken back)."""
        place = self._places.get(name, _EMPTY)
        if not place.known:
            return self
        unseen = dict(self._unseen)
        for cid in place.known:
            unseen[cid] = unseen.get(cid, 0) + 1
        places = dict(self._places)
        places[name] = Place((), place.size)
        return Places._raw(places, unseen)

    def move_hidden(self, src: str, dst: str, n: int) -> Places:
        """Move ``n`` cards of unknown identity from ``src`` to ``dst`` (a face-down deal)."""
        a = self._places.get(src, _EMPTY)
        if a.hidden < n:
            raise IllegalEventError(
                "card-whereabouts", f"{src} holds {a.hidden} face-down cards, {n} cannot move"
            )
        b = self._places.get(dst, _EMPTY)
        places = dict(self._places)
        places[src] = Place(a.known, a.hidden - n)
        places[dst] = Place(b.known, b.hidden + n)
        return Places._raw(places, self._unseen)

    @classmethod
    def _raw(cls, places: dict[str, Place], unseen: dict[str, int]) -> Places:
        obj = cls.__new__(cls)
        obj._places = places
        obj._unseen = unseen
        return obj

    def _why_not(self, name: str, card_id: str) -> str:
        seen_at = self.where(card_id)
        place = self._places.get(name, _EMPTY)
        if seen_at:
            return f"{card_id} cannot come from {name}: it is already known to be at {', '.join(seen_at)}"
        if place.hidden == 0:
            if not place.known:
                return f"{card_id} cannot come from {name}: {name} is empty"
            return f"{card_id} cannot come from {name}: every card there is known and it is not one of them"
        return f"{card_id} cannot come from {name}: every copy of it has been seen already"
