"""Poka cards: the wilds, the month order, what may follow what, and the starting hands.

Wild cards (化札 bake-fuda, rules P1.3): ``01-crane``, ``01-ribbon`` and
``02-warbler``; with the ``extra-jokers`` option the three ``00-blank`` cards instead, and the crane,
ribbon and warbler are ordinary cards of their months.

What may be played on the top card (rules P4.2-P4.4):

* Rule 1: a card of the next month, where December is followed by January (rules P4.2);
* Rule 2: a wild on any top, and any card (another wild too) on a wild (rules P4.3);
* Rule 3: a January on a January, which the same player must follow at once with a February card
  (any top January; only the table card itself with ``jan-feb-table-card-only``; rules P4.4).

A wild is always played as a wild. Playing a wild as its natural card instead would never
allow anything the wild use forbids (a wild fits any top, anything fits on a wild, and a
wild used as a wild has no month for the one-card-per-month rule), so play events carry no "played
as" field. A wild may stand in for the February card that Rule 3 asks for, since a wild replaces a
card of any month (rules P4.4).

Starting hands (手役 teyaku, rules P3.1; natural months, the wilds' own months count),
each a 6-card hand dealt before play:

========================  ==============  ========================================  ======
name                      Japanese        condition                                 stones
========================  ==============  ========================================  ======
``buttakuri``             ブッタクリ      four cards of one month                   5
``wild-triplet``          化三枚          all three wilds                           2
``three-pairs``           三双            month counts exactly 2, 2, 2              2
``january-triplet``       ピン三枚        exactly three January cards               2
========================  ==============  ========================================  ======

A hand holding several counts once, at its highest value (no stacking, rules P3.2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.cards import BLANK, all_cards, deck
from scorer.errors import ScorerError
from scorer.games import check_hand_size, more_needed
from scorer.poka.options import PokaOptions

HAND_SIZE = 6
"""Cards dealt to each player (rules P2.2)."""

SEED_WILDS = ("01-crane", "01-ribbon", "02-warbler")
"""The in-deck wilds of the seed ruleset (rules P1.3)."""

RULE_NEXT_MONTH = "next-month"
RULE_WILD = "wild"
RULE_JAN_FEB = "jan-feb"


def _months() -> dict[str, int]:
    return {cid: c.month for cid, c in all_cards("hanafuda").items()}


MONTHS: dict[str, int] = _months()
"""Natural month of every hanafuda id (0 for the blank and the back)."""


def wilds(options: PokaOptions) -> frozenset[str]:
    """The ids of the wild cards under ``options``."""
    return frozenset((BLANK,)) if options.extra_jokers else frozenset(SEED_WILDS)


def deck_name(options: PokaOptions) -> str:
    """The deck these options play with: ``hanafuda``, or ``hanafuda+3blank`` for extra jokers."""
    return "hanafuda+3blank" if options.extra_jokers else "hanafuda"


def next_month(month: int) -> int:
    """The month after ``month``: the order is cyclic, December is followed by January (rules P4.2)."""
    return 1 if month == 12 else month + 1


def play_rule(
    card_id: str, top: str, wild_ids: frozenset[str], jan_feb_allowed: bool = True
) -> str | None:
    """Which rule lets ``card_id`` go on ``top``: ``next-month``, ``wild``, ``jan-feb`` or None.

    ``jan_feb_allowed`` is False where the January-February exception does not apply to this top
    (``jan-feb-table-card-only`` and the top is not the table card). The turn's own limits (one card
    per month, the February owed after Rule 3) are the engine's.
    """
    if card_id in wild_ids or top in wild_ids:
        return RULE_WILD
    month = MONTHS[card_id]
    top_month = MONTHS[top]
    if month == next_month(top_month):
        return RULE_NEXT_MONTH
    if jan_feb_allowed and month == 1 and top_month == 1:
        return RULE_JAN_FEB
    return None


@dataclass(frozen=True, slots=True)
class Teyaku:
    """One starting hand (手役) of Poka."""

    name: str
    """Kebab-case name used in events and reports, e.g. ``three-pairs``."""
    name_ja: str
    """Japanese name, e.g. ``三双``."""
    romaji: str
    """Romanised Japanese name, e.g. ``mitsu-kuttsuki``."""
    stones: int
    """Stones it wins."""
    condition: str
    """The condition in words."""

    def to_json(self) -> dict[str, Any]:
        """``{"name": ..., "name_ja": ..., "stones": n}``."""
        return {"name": self.name, "name_ja": self.name_ja, "stones": self.stones}

    def describe(self) -> str:
        """E.g. ``three pairs (三双 mitsu-kuttsuki), 2 stones``."""
        unit = "stone" if self.stones == 1 else "stones"
        return f"{self.name.replace('-', ' ')} ({self.name_ja} {self.romaji}), {self.stones} {unit}"


BUTTAKURI = Teyaku("buttakuri", "ブッタクリ", "buttakuri", 5, "four cards of one month")
WILD_TRIPLET = Teyaku("wild-triplet", "化三枚", "bake-sanmai", 2, "all three wild cards")
THREE_PAIRS = Teyaku("three-pairs", "三双", "mitsu-kuttsuki", 2, "three pairs of months")
JANUARY_TRIPLET = Teyaku(
    "january-triplet", "ピン三枚", "pin-sanmai", 2, "exactly three January cards"
)

TEYAKU: dict[str, Teyaku] = {
    t.name: t for t in (BUTTAKURI, WILD_TRIPLET, THREE_PAIRS, JANUARY_TRIPLET)
}
"""Every starting hand by name, highest first (rules P3.1)."""


def teyaku_held(cards: Iterable[str], options: PokaOptions) -> tuple[Teyaku, ...]:
    """Every starting hand that ``cards`` hold, highest value first."""
    cards = tuple(cards)
    wild_ids = wilds(options)
    months = Counter(MONTHS[c] for c in cards if MONTHS[c])
    held = []
    if months and max(months.values()) >= 4:
        held.append(BUTTAKURI)
    wild_count = sum(1 for c in cards if c in wild_ids)
    if wild_count >= 3:
        held.append(WILD_TRIPLET)
    if sorted(months.values()) == [2, 2, 2] and len(cards) == HAND_SIZE:
        held.append(THREE_PAIRS)
    if months.get(1, 0) == 3:
        held.append(JANUARY_TRIPLET)
    return tuple(held)


def best_teyaku(cards: Iterable[str], options: PokaOptions) -> Teyaku | None:
    """The single starting hand that counts (the highest, no stacking, rules P3.2), or None."""
    held = teyaku_held(cards, options)
    return held[0] if held else None


@dataclass(frozen=True, slots=True)
class HandReport:
    """What ``fudaba hand poka`` prints for a 6-card starting hand, or the 1-5 cards of one."""

    cards: tuple[str, ...]
    """The hand as given."""
    claim: Teyaku | None
    """The starting hand that counts, or None (always None for a short hand: only a whole hand
    is claimed)."""
    held: tuple[Teyaku, ...]
    """Every starting hand the cards hold (only ``claim`` scores); for a short hand, those its
    cards already make, which a full hand keeps or betters (a fourth January turns the January
    triplet into buttakuri)."""
    wilds: tuple[str, ...]
    """The wild cards in the hand."""

    @property
    def complete(self) -> bool:
        """True for a whole starting hand (6 cards)."""
        return len(self.cards) == HAND_SIZE

    @property
    def needs(self) -> str | None:
        """What a short hand lacks, in one sentence; None for a whole hand."""
        if self.complete:
            return None
        more = more_needed(HAND_SIZE - len(self.cards))
        return f"a Poka starting hand has {HAND_SIZE} cards; {more} needed for a starting-hand claim"

    def to_json(self) -> dict[str, Any]:
        """``{"cards": [...], "claim": {...} | null, "held": [...], "wilds": [...], "complete":
        bool, "needs": str | null}``."""
        return {
            "cards": list(self.cards),
            "claim": self.claim.to_json() if self.claim else None,
            "held": [t.name for t in self.held],
            "wilds": list(self.wilds),
            "complete": self.complete,
            "needs": self.needs,
        }

    def lines(self) -> list[str]:
        """Human-readable lines."""
        out = [f"Hand: {' '.join(self.cards)}"]
        out.append(f"Wilds: {' '.join(self.wilds) if self.wilds else 'none'}")
        if not self.complete:
            if self.held:
                so_far = "; ".join(t.describe() for t in self.held)
                out.append(f"Held so far: {so_far}; a whole hand claims at least the highest.")
            else:
                out.append("No starting hand among these cards yet.")
            out.append(f"Incomplete hand: {self.needs}.")
            return out
        if self.claim is None:
            out.append("No starting hand to claim: play proceeds (rules P3.3).")
            return out
        out.append(f"Claim: {self.claim.describe()}; wins the round at once (rules P3.4).")
        others = [t for t in self.held if t is not self.claim]
        if others:
            also = ", ".join(t.name.replace("-", " ") for t in others)
            out.append(
                f"Also held: {also}; not added, only the highest counts (rules P3.2)."
            )
        return out


def evaluate_hand(cards: Sequence[str], options: PokaOptions | None = None) -> HandReport:
    """Evaluate a 6-card Poka starting hand (``fudaba hand poka CARD...``).

    Ids may be written in any case (``01-CRANE``); the report names them as the deck does.

    The rule for short hands, the same in every game (:class:`scorer.games.HandReport`): 1 to 5
    cards are evaluated as far as they can be (the starting hands they already hold, no claim:
    only a whole hand is shown to claim, rules P3.3) and the report says ``complete`` false with
    what a full hand ``needs``; 6 cards are a whole starting hand (rules P2.2); none, or more than
    6 (no Poka hand holds more), raise :class:`~scorer.errors.ScorerError`.

    Raises :class:`~scorer.errors.UnknownCardError` for an id outside the deck and
    :class:`~scorer.errors.ScorerError` for a hand of the wrong size or with more copies of a card
    than the deck holds.
    """
    options = options or PokaOptions()
    check_hand_size("Poka", len(cards), HAND_SIZE, "the starting hand")
    spec = deck(deck_name(options))
    hand = tuple(spec.canonical(c, "Poka") for c in cards)
    counts = spec.counts
    for cid, n in Counter(hand).items():
        if n > counts[cid]:
            raise ScorerError(
                f"{cid} appears {n} times but the {spec.name} deck holds {counts[cid]}"
            )
    held = teyaku_held(hand, options)
    wild_ids = wilds(options)
    claim = held[0] if held and len(hand) == HAND_SIZE else None
    return HandReport(hand, claim, held, tuple(c for c in hand if c in wild_ids))
