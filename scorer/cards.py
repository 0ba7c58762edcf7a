"""Cards and decks, loaded from the canonical card tables shipped as package data.

Card ids are the ``id`` column of ``scorer/data/hanafuda.csv`` (48 cards, ``01-crane`` …
``12-plain-3``) and ``scorer/data/playing.csv`` (``AS`` … ``KC``, ``JOKER-BLACK``, ``JOKER-RED``,
``BACK``), copies of ``shared/assets/cards`` (rules C1, C5). Two extra hanafuda ids exist without
art: ``00-blank`` (the white spare card) and ``back`` (a face-down hanafuda card; rules C4).

A deck is a multiset of ids (:class:`DeckSpec`): two decks at once never rename copies, the same
id simply occurs twice. Months are the Japanese order (1 Pine … 11 Willow, 12 Paulownia);
:func:`month_in_order` gives the Korean order, which swaps 11 and 12 (rules C7).
Hachi-hachi values (rules C1, C2): bright 20, animal 10, ribbon 5, plain 1; the 48 total 264.
The named decks are listed in rules C6.
"""

from __future__ import annotations

import csv
import difflib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorer.errors import UnknownCardError

HANAFUDA = "hanafuda"
PLAYING = "playing"

BLANK = "00-blank"
HANAFUDA_BACK = "back"

JAPANESE = "japanese"
KOREAN = "korean"
MONTH_ORDERS = (JAPANESE, KOREAN)


@dataclass(frozen=True, slots=True)
class Card:
    """One card face, as printed."""

    id: str
    """Canonical id, e.g. ``08-moon`` or ``QH``."""
    deck: str
    """``hanafuda`` or ``playing``."""
    kind: str
    """Hanafuda: ``bright``, ``animal``, ``ribbon``, ``plain``, ``blank`` or ``back``;
    playing cards: ``rank``, ``joker`` or ``back``."""
    month: int = 0
    """Hanafuda month 1-12 in Japanese order; 0 for the blank, backs and playing cards."""
    rank: str = ""
    """Playing cards: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``; empty otherwise."""
    suit: str = ""
    """Playing cards: ``spades``, ``hearts``, ``diamonds``, ``clubs`` (jokers: ``black``/``red``)."""
    points: int = 0
    """Hanafuda: Hachi-hachi points (20/10/5/1). Playing cards: rank value A=1 … K=13."""
    ribbon: str = ""
    """Hanafuda ribbons: ``red_poetry``, ``red_plain`` or ``blue``; empty otherwise."""
    name_en: str = ""
    """English name of the card."""
    name_ja: str = ""
    """Japanese name of the card (hanafuda only)."""

    @property
    def is_face(self) -> bool:
        """True for a card that shows an identity (not a back)."""
        return self.kind not in ("back",)


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("scorer").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


@cache
def _hanafuda_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for row in _rows("hanafuda.csv"):
        cards[row["id"]] = Card(
            id=row["id"],
            deck=HANAFUDA,
            kind=row["kind"],
            month=int(row["month"]),
            points=int(row["points"]),
            ribbon=row["ribbon"],
            name_en=row["name_en"],
            name_ja=row["name_ja"],
        )
    cards[BLANK] = Card(BLANK, HANAFUDA, "blank", name_en="Blank spare card", name_ja="白札")
    cards[HANAFUDA_BACK] = Card(HANAFUDA_BACK, HANAFUDA, "back", name_en="Card back (face down)")
    return cards


@cache
def _playing_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for row in _rows("playing.csv"):
        rank = row["rank"]
        kind = "joker" if rank == "joker" else "back" if rank == "back" else "rank"
        name = {"joker": f"{row['suit'].capitalize()} joker", "back": "Card back (face down)"}.get(
            kind, f"{rank} of {row['suit']}"
        )
        cards[row["id"]] = Card(
            id=row["id"],
            deck=PLAYING,
            kind=kind,
            rank=rank if kind == "rank" else "",
            suit=row["suit"],
            points=int(row["value"]) if row["value"] else 0,
            name_en=name,
        )
    return cards


def all_cards(deck: str) -> dict[str, Card]:
    """Every card id of a deck family (``hanafuda`` or ``playing``), extras included."""
    if deck == HANAFUDA:
        return _hanafuda_cards()
    if deck == PLAYING:
        return _playing_cards()
    raise ValueError(f"unknown deck family {deck!r}; expected 'hanafuda' or 'playing'")


def hanafuda_ids() -> tuple[str, ...]:
    """The 48 standard hanafuda ids in table order."""
    return tuple(c.id for c in _hanafuda_cards().values() if 1 <= c.month <= 12)


@cache
def hanafuda_month(month: int) -> tuple[str, ...]:
    """The four ids of a hanafuda month (Japanese order)."""
    return tuple(c.id for c in _hanafuda_cards().values() if c.month == month)


def playing_ids(*, kings: bool = True, jokers: bool = False) -> tuple[str, ...]:
    """The 52 playing-card ids in table order, optionally without kings or with the two jokers."""
    out = []
    for c in _playing_cards().values():
        if c.kind == "rank" and (kings or c.rank != "K") or c.kind == "joker" and jokers:
            out.append(c.id)
    return tuple(out)


def suggest(card_id: str, candidates: tuple[str, ...] | list[str], n: int = 3) -> tuple[str, ...]:
    """The valid ids nearest to a mistyped one: the same id in another case, a rank written as a
    number (``1S`` → ``AS``), every id it begins (``JOKER`` → ``JOKER-BLACK``, ``JOKER-RED``), else
    the ``n`` most similar."""
    lowered = {c.lower(): c for c in candidates}
    if card_id.lower() in lowered:
        return (lowered[card_id.lower()],)
    alias = _rank_alias(card_id)
    if alias and alias.lower() in lowered:
        return (lowered[alias.lower()],)
    family = tuple(lowered[c] for c in lowered if c.startswith(card_id.lower() + "-"))
    if family:
        return family
    near = difflib.get_close_matches(card_id.lower(), list(lowered), n=n, cutoff=0.4)
    if not near:
        prefix = card_id.lower()[:2]
        near = [c for c in lowered if c.startswith(prefix)][:n]
    return tuple(lowered[c] for c in near)


_RANK_ALIASES = {"1": "A", "11": "J", "12": "Q", "13": "K", "T": "10"}
_RANK_NAMES = {
    "A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes", "7": "sevens",
    "8": "eights", "9": "nines", "10": "tens", "J": "jacks", "Q": "queens", "K": "kings",
}


def _rank_alias(card_id: str) -> str | None:
    """``1S`` → ``AS``, ``12H`` → ``QH``, ``TD`` → ``10D``: ranks written as numbers or letters."""
    rank, suit = card_id[:-1], card_id[-1:]
    if rank.upper() in _RANK_ALIASES and suit.upper() in "SHDC":
        return _RANK_ALIASES[rank.upper()] + suit.upper()
    return None


def card(card_id: str, deck: str | None = None) -> Card:
    """Look up a card by id; ``deck`` restricts to one family.

    Raises :class:`~scorer.errors.UnknownCardError` with the nearest valid ids.
    """
    from scorer.errors import UnknownCardError

    families = (deck,) if deck else (HANAFUDA, PLAYING)
    for fam in families:
        table = all_cards(fam)
        if card_id in table:
            return table[card_id]
    pool: list[str] = []
    for fam in families:
        pool.extend(all_cards(fam))
    raise UnknownCardError(card_id, suggest(card_id, pool), deck or "")


def month_in_order(month: int, order: str = JAPANESE) -> int:
    """A Japanese-order month renumbered in ``order``: Korean swaps 11 (Willow) and 12 (Paulownia)."""
    if order == JAPANESE:
        return month
    if order == KOREAN:
        return {11: 12, 12: 11}.get(month, month)
    raise ValueError(f"unknown month order {order!r}; expected one of {MONTH_ORDERS}")


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """A named deck: the multiset of card ids in play."""

    name: str
    """Registry name, e.g. ``hanafuda`` or ``playing-2x``."""
    family: str
    """``hanafuda`` or ``playing``."""
    cards: tuple[str, ...]
    """Every physical card, copies repeated, in table order."""
    description: str
    """One line for people."""

    @property
    def counts(self) -> Counter[str]:
        """The deck as a multiset."""
        return Counter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def validate(self, card_id: str, game: str = "") -> str:
        """Return ``card_id`` if it is exactly an id of this deck; else raise ``UnknownCardError``.

        Events and records use this: their ids are canonical, so another case is an error (whose
        suggestion is the canonical id). ``game`` (e.g. ``Bagaji``) names whose deck it is in the
        message; see :meth:`missing` for what the message says.
        """
        if card_id in self.counts_set:
            return card_id
        raise self.missing(card_id, game)

    def canonical(self, card_id: str, game: str = "") -> str:
        """The id of this deck that ``card_id`` names in any case (``qh`` → ``QH``, ``08-MOON`` →
        ``08-moon``); else raise ``UnknownCardError`` as :meth:`validate` does.

        For ids typed by people (``fudaba hand``); events and records keep :meth:`validate`.
        """
        if card_id in self.counts_set:
            return card_id
        found = self._lowered().get(card_id.lower())
        if found is not None:
            return found
        raise self.missing(card_id, game)

    def missing(self, card_id: str, game: str = "") -> UnknownCardError:
        """The error for an id that is not in this deck, saying why.

        * a card of this deck's kind that the deck leaves out: ``KC is not in Bagaji's playing-2x
          deck (no kings)``, the reason found by comparing the deck with every card of its kind
          (a rank, a suit, the jokers, a month or the blank left out; a card back is no card);
        * the start of ids the deck leaves out, the same: ``JOKER is not in … (no jokers)``;
        * a card of the other kind: ``KC is not in Poka's hanafuda deck (a playing card; this deck
          holds hanafuda cards only)``;
        * anything else is a typo: ``unknown card 'QX' in deck 'playing-2x'; did you mean …?``
          (:func:`suggest`; ``JOKER`` in a deck with jokers suggests both).
        """
        from scorer.errors import UnknownCardError

        where = f"{game}'s {self.name} deck" if game else f"the {self.name} deck"
        key = card_id.lower()
        own = {c.lower(): c for c in all_cards(self.family)}
        if key in own and own[key] not in self.counts_set:
            cid = own[key]
            return UnknownCardError(card_id, (), self.name, message=f"{cid} is not in {where} ({self._left_out(cid)})")
        started = [c for low, c in own.items() if low.startswith(key + "-")]
        if started and not any(c in self.counts_set for c in started):
            reasons = dict.fromkeys(self._left_out(c) for c in started)
            return UnknownCardError(card_id, (), self.name, message=f"{card_id} is not in {where} ({'; '.join(reasons)})")
        other = PLAYING if self.family == HANAFUDA else HANAFUDA
        theirs = all_cards(other)
        named = [c for c in theirs.values() if c.id.lower() == key or c.id.lower().startswith(key + "-")]
        if named and not started:
            what = "jokers are playing cards" if all(c.kind == "joker" for c in named) else f"a {other} card"
            return UnknownCardError(
                card_id, (), self.name,
                message=f"{card_id} is not in {where} ({what}; this deck holds {self.family} cards only)",
            )
        return UnknownCardError(card_id, suggest(card_id, sorted(self.counts_set)), self.name)

    def _left_out(self, cid: str) -> str:
        """Why this deck has no ``cid``, a card of its kind: what it leaves out of the full set."""
        table = all_cards(self.family)
        c = table[cid]
        held = [table[x] for x in self.counts_set]
        if c.kind == "back":
            return "a face-down card back, not a card"
        reasons = []
        if c.kind == "joker" and not any(h.kind == "joker" for h in held):
            reasons.append("no jokers")
        if c.kind == "blank":
            reasons.append("no blank card")
        if c.kind == "rank":
            if not any(h.rank == c.rank for h in held):
                reasons.append(f"no {_RANK_NAMES.get(c.rank, c.rank + 's')}")
            if not any(h.suit == c.suit for h in held):
                reasons.append(f"no {c.suit}")
        if c.month and not any(h.month == c.month for h in held):
            reasons.append(f"no cards of month {c.month}")
        return "; ".join(reasons) or f"it leaves out {cid}"

    def _lowered(self) -> dict[str, str]:
        """Lower-cased id → id, for the ids of this deck."""
        return {c.lower(): c for c in self.counts_set}

    @property
    def counts_set(self) -> frozenset[str]:
        """The distinct ids of this deck."""
        found = _DISTINCT.get(self.name)
        if found is None or len(found[0]) != len(self.cards):
            found = _DISTINCT[self.name] = (self.cards, frozenset(self.cards))
        return found[1]


_DISTINCT: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}


@cache
def decks() -> dict[str, DeckSpec]:
    """Every deck fudaba knows, by name."""
    hana = hanafuda_ids()
    pc52 = playing_ids()
    pc_no_kings = playing_ids(kings=False)
    specs = [
        DeckSpec("hanafuda", HANAFUDA, hana, "48 hanafuda cards"),
        DeckSpec("hanafuda+blank", HANAFUDA, hana + (BLANK,), "48 hanafuda cards and the blank"),
        DeckSpec(
            "hanafuda+3blank",
            HANAFUDA,
            hana + (BLANK,) * 3,
            "48 hanafuda cards and three blank cards used as jokers",
        ),
        DeckSpec("hanafuda-2x", HANAFUDA, hana + hana, "two hanafuda sets (96 cards)"),
        DeckSpec("playing", PLAYING, pc52, "52 playing cards"),
        DeckSpec(
            "playing+jokers", PLAYING, pc52 + ("JOKER-BLACK", "JOKER-RED"), "52 cards and 2 jokers"
        ),
        DeckSpec(
            "playing-2x",
            PLAYING,
            pc_no_kings + pc_no_kings,
            "two 52-card decks without kings: 8 cards of each value 1-12 (96 cards)",
        ),
    ]
    return {s.name: s for s in specs}


def deck(name: str) -> DeckSpec:
    """A deck by name; a clear error lists the known names."""
    known = decks()
    if name not in known:
        raise ValueError(f"unknown deck {name!r}; known decks: {', '.join(known)}")
    return known[name]
