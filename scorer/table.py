"""What a camera can see of a table: face-up cards per zone, face-down cards, pile tops.

One definition for the renderer (:mod:`vision.synth`), the tracker (:mod:`scorer.tracker`) and the
dashboard.

Zones (ARCHITECTURE.md "the table protocol"): ``field``/``pile``/``discard`` and ``stock`` in the
centre, ``seat:N`` in front of each player. An engine's places map to zones by :func:`place_zone`:
``field``/``pile``/``discard``/``stock`` to the zones of those names, ``captured:N``, ``meld:N`` and
``shown:N`` (and Hachi-hachi's ``out``, the blank of the seat that sits out) to ``seat:N``; hands
(``hand:N``) are held off the table and have no zone.

Sight: a camera names a face-up card by its *sight name* (:func:`sight_name`): its card id, except
that interchangeable plains are named by their month (``03-plain``; the paulownia plains
``12-plain``, the coloured ``12-plain-1`` apart; rules C3). In the piles
(:data:`PILE_ZONES`: ``stock``, ``pile``, ``discard``) cards stack, so only the top one shows, and
a face-down stack counts as one face-down card however many it holds; the stock lies face down
whatever the engine knows of its cards. Elsewhere every card shows.

A :class:`TableState` holds per zone the face-up cards seen (each a probability distribution over
sight names, :class:`SeenCard`), the number of face-down cards or stacks and, for piles, the top's
name. :func:`expected_table` gives the table an engine's places imply, with certainty.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from scorer.cards import HANAFUDA, HANAFUDA_BACK, PLAYING
from scorer.events import Event
from scorer.places import Places

PILE_ZONES = ("stock", "pile", "discard")
"""Zones where cards stack and only the top one shows."""
FACE_DOWN_ZONES = ("stock",)
"""Zones whose cards lie face down whatever the engine knows of them (a retired hand put back)."""
CENTRE_PLACES = ("field", "stock", "pile", "discard")
"""Engine places whose zone has the same name."""
BACK_IDS = {HANAFUDA: HANAFUDA_BACK, PLAYING: "BACK"}
"""The id a face-down card is seen as, per deck family."""
_PLAIN = re.compile(r"^(\d\d)-plain-\d$")


@lru_cache(maxsize=512)
def sight_name(card_id: str) -> str:
    """The name a camera gives a face-up card: plains by month, ``12-plain-1`` (coloured) apart."""
    m = _PLAIN.match(card_id)
    if m and card_id != "12-plain-1":
        return f"{m.group(1)}-plain"
    return card_id


@lru_cache(maxsize=1024)
def place_zone(place: str, sitout: int | None = None) -> str | None:
    """The zone holding the cards of engine place ``place``; None for hands (held off the table).

    ``sitout`` is the Hachi-hachi seat sitting out a seven-seat round (its blank lies in its zone)."""
    if place in CENTRE_PLACES:
        return place
    kind, _, seat = place.partition(":")
    if kind in ("captured", "meld", "shown"):
        return f"seat:{seat}"
    if place == "out":
        return f"seat:{sitout or 1}"
    return None


@dataclass(frozen=True, slots=True)
class SeenCard:
    """One face-up card as seen: sight names with their probabilities, most likely first."""

    probs: tuple[tuple[str, float], ...]
    """(sight name, probability), descending; the probabilities sum to at most 1."""

    @classmethod
    def certain(cls, name: str) -> SeenCard:
        """A card known to be ``name``."""
        return cls(((name, 1.0),))

    @property
    def name(self) -> str:
        """The most likely sight name."""
        return self.probs[0][0]

    @property
    def confidence(self) -> float:
        """Probability of the most likely name."""
        return self.probs[0][1]

    def p(self, name: str) -> float:
        """Probability that this card is ``name``."""
        for n, q in self.probs:
            if n == name:
                return q
        return 0.0

    def to_json(self) -> list[list[object]]:
        """``[[name, p], ...]``."""
        return [[n, round(q, 4)] for n, q in self.probs]


@dataclass(frozen=True, slots=True)
class ZoneState:
    """What shows in one zone."""

    up: tuple[SeenCard, ...] = ()
    """Face-up cards that show (a pile: its top only, when face up)."""
    down: int = 0
    """Face-down cards told apart (a face-down stack counts once)."""

    def names(self) -> Counter[str]:
        """The multiset of the face-up cards' most likely names."""
        return Counter(c.name for c in self.up)

    @property
    def empty(self) -> bool:
        """True when nothing lies in the zone."""
        return not self.up and not self.down

    def to_json(self) -> dict[str, object]:
        """``{"up": [[[name, p], ...], ...], "down": n}``."""
        return {"up": [c.to_json() for c in self.up], "down": self.down}


@dataclass(frozen=True)
class TableState:
    """Per zone, what shows; plus when it was seen and which seats' arms acted to make it."""

    zones: Mapping[str, ZoneState] = field(default_factory=dict)
    """Zone name → what shows there; a zone missing is empty."""
    t: float | None = None
    """Seconds since the match started when this state was seen (None: not from a camera)."""
    actors: tuple[int, ...] = ()
    """Seats whose arms were seen over the table since the previous settled state, in order."""
    history: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Pile zone → the face-up tops seen there since the previous settled state, oldest first (a
    card covered by the next one before the table settled)."""
    reached: frozenset[str] = frozenset()
    """Zones an arm's hand went into since the previous settled state (a card taken from the stock
    needs a hand at the stock)."""

    def zone(self, name: str) -> ZoneState:
        """The state of zone ``name`` (empty when absent)."""
        return self.zones.get(name, _EMPTY)

    def names(self) -> dict[str, Counter[str]]:
        """Zone → multiset of most likely face-up names (non-empty zones only)."""
        return {z: s.names() for z, s in self.zones.items() if s.up}

    def signature(self) -> tuple:
        """A hashable summary: the sorted most likely names and the face-down count of every zone."""
        return tuple(sorted((z, tuple(sorted(s.names().elements())), s.down)
                            for z, s in self.zones.items() if not s.empty))

    def same_as(self, other: TableState) -> bool:
        """True when both show the same most likely names and face-down counts everywhere."""
        return self.signature() == other.signature()

    def differences(self, other: TableState) -> list[str]:
        """Human lines saying how ``other`` differs from this state (this = expected)."""
        out = []
        for z in sorted(set(self.zones) | set(other.zones)):
            a, b = self.zone(z), other.zone(z)
            missing = a.names() - b.names()
            extra = b.names() - a.names()
            if missing:
                out.append(f"{z}: expected {', '.join(sorted(missing.elements()))}, not seen")
            if extra:
                out.append(f"{z}: saw {', '.join(sorted(extra.elements()))}, not expected")
            if a.down != b.down:
                out.append(f"{z}: expected {a.down} face-down, saw {b.down}")
        return out

    def zone_differences(self, other: TableState) -> list[dict[str, object]]:
        """How ``other`` differs from this state (this = expected), zone by zone, as data: each
        ``{"zone", "missing": [sight names], "extra": [sight names], "down": [expected, seen]}``
        for a page to draw (the lines of :meth:`differences`)."""
        out: list[dict[str, object]] = []
        for z in sorted(set(self.zones) | set(other.zones)):
            a, b = self.zone(z), other.zone(z)
            missing = sorted((a.names() - b.names()).elements())
            extra = sorted((b.names() - a.names()).elements())
            if missing or extra or a.down != b.down:
                out.append({"zone": z, "missing": missing, "extra": extra, "down": [a.down, b.down]})
        return out

    def to_json(self) -> dict[str, object]:
        """Plain data (non-empty zones only)."""
        out: dict[str, object] = {"zones": {z: s.to_json() for z, s in sorted(self.zones.items()) if not s.empty}}
        if self.t is not None:
            out["t"] = round(self.t, 3)
        if self.actors:
            out["actors"] = list(self.actors)
        if any(self.history.values()):
            out["history"] = {z: list(n) for z, n in sorted(self.history.items()) if n}
        if self.reached:
            out["reached"] = sorted(self.reached)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> TableState:
        """The inverse of :meth:`to_json`; ValueError naming the bad part."""
        if not isinstance(obj, Mapping) or not isinstance(obj.get("zones", {}), Mapping):
            raise ValueError("a table state is an object with a 'zones' object")
        zones: dict[str, ZoneState] = {}
        for z, d in obj.get("zones", {}).items():  # type: ignore[union-attr]
            try:
                up = tuple(SeenCard(tuple((str(n), float(p)) for n, p in card)) for card in d.get("up", []))
                down = int(d.get("down", 0))
            except (TypeError, ValueError, AttributeError):
                raise ValueError(f"zone {z!r}: expected {{'up': [[[name, p], ...], ...], 'down': n}}") from None
            if any(not c.probs for c in up) or down < 0:
                raise ValueError(f"zone {z!r}: a card needs at least one name; 'down' cannot be negative")
            zones[str(z)] = ZoneState(up, down)
        t = obj.get("t")
        actors = tuple(int(a) for a in obj.get("actors", ()))  # type: ignore[union-attr]
        history = {str(z): tuple(str(n) for n in names) for z, names in obj.get("history", {}).items()}  # type: ignore[union-attr]
        reached = frozenset(str(z) for z in obj.get("reached", ()))  # type: ignore[union-attr]
        return cls(zones, float(t) if t is not None else None, actors, history, reached)  # type: ignore[arg-type]

    @classmethod
    def from_counts(cls, zones: Mapping[str, tuple[Counter[str], int]]) -> TableState:
        """A state seen with certainty: zone → (face-up sight names, face-down count)."""
        return cls.from_names({z: list(n.elements()) for z, (n, _) in zones.items()},
                              {z: d for z, (_, d) in zones.items() if d})

    @classmethod
    def from_names(cls, zones: Mapping[str, Iterable[str]], down: Mapping[str, int] | None = None,
                   t: float | None = None, actors: tuple[int, ...] = ()) -> TableState:
        """A state seen with certainty: zone → face-up sight names (a pile: its top only)."""
        down = down or {}
        out = {z: ZoneState(tuple(SeenCard.certain(n) for n in sorted(names)), int(down.get(z, 0)))
               for z, names in zones.items()}
        for z, n in down.items():
            if z not in out:
                out[z] = ZoneState((), int(n))
        return cls({z: s for z, s in out.items() if not s.empty}, t, actors)


_EMPTY = ZoneState()


def expected_names(places: Places | None, sitout: int | None = None) -> dict[str, tuple[Counter[str], int]]:
    """Zone → (face-up sight names, face-down count) that ``places`` imply: every known card of a
    zone face up, hidden cards face down; the stock always face down; in a pile only the top shows
    (known cards lie on the hidden ones: they arrived later) and a face-down stack counts once.
    Non-empty zones only. The tracker's hot path: no :class:`TableState` is built."""
    out: dict[str, tuple[Counter[str], int]] = {}
    if places is None:
        return out
    for name in places.names():
        zone = place_zone(name, sitout)
        if zone is None:
            continue
        place = places[name]
        if not place.size:
            continue
        if zone in FACE_DOWN_ZONES:
            out[zone] = (Counter(), 1)
        elif zone in PILE_ZONES:
            out[zone] = (Counter({sight_name(place.known[-1]): 1}), 0) if place.known else (Counter(), 1)
        else:
            names, down = out.get(zone, (Counter(), 0))
            names = names.copy()
            for cid in place.known:
                names[sight_name(cid)] += 1
            out[zone] = (names, down + place.hidden)
    return out


def expected_table(places: Places | None, sitout: int | None = None) -> TableState:
    """The table that ``places`` imply (:func:`expected_names`), seen with certainty. None: an
    empty table."""
    return TableState.from_counts(expected_names(places, sitout))


def _counts(places: Places | None) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    if places is None:
        return out
    for name in places.names():
        for cid in places[name].known:
            out[(name, cid)] += 1
    return out


def diff(before: Places | None, after: Places | None) -> list[tuple[str, str, str]]:
    """The moves (card id, from place, to place) of known cards that turn ``before`` into ``after``;
    the from place is ``""`` for a card that was hidden before."""
    a, b = _counts(before), _counts(after)
    lost: dict[str, list[str]] = {}
    for (place, cid), n in sorted(a.items()):
        for _ in range(n - b.get((place, cid), 0)):
            lost.setdefault(cid, []).append(place)
    moves = []
    for (place, cid), n in sorted(b.items()):
        for _ in range(n - a.get((place, cid), 0)):
            src = lost.get(cid, [])
            moves.append((cid, src.pop(0) if src else "", place))
    return moves


def final_places(game: str, before: Places, ev: Event) -> Places:
    """Where the cards are after ``ev`` when the engine settled the round with it and kept no
    places: the table change of the event's own rules (the game's
    :attr:`~scorer.games.GameDescription.final_places`), else no change."""
    from scorer.games import game as game_spec

    move = game_spec(game).description.final_places
    if move is None:
        return before
    try:
        out: Places = move(before, ev)
    except (ValueError, KeyError, IndexError, AttributeError):
        return before
    return out
    return before
