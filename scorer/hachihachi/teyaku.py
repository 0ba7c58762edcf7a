"""Hachi-hachi teyaku (dealt-hand combinations), rules H5.

A seven-card dealt hand scores the best combination of group A (month sets) plus the best of
group B (plain hands). Values are kept in half-kan so that 1.5 kan (the 1910 seed's triplet) stays
an integer; points = half-kan × kan size / 2.

Group A, by the sorted month counts of the 7 cards: [4,3] shisō 20; [4,2,1] ichinishi 8;
[4,1,1,1] teshi 6; [3,3,1] futasanbon 6 / sanbon-tatesanbon 7 / futatatesanbon 8 by how many
triplets stand; [3,2,2] haneken 7; other hands with one triplet: sanbon 2 or tatesanbon 3;
[2,2,2,1] kuttsuki 4. A triplet *stands* when its month is 4 (wisteria), 5 (iris), 7 (bush
clover), or when it is the three plains of December (``12-plain-1/2/3``; the phoenix with two
plains is an ordinary triplet).

Group B treats all four willow (month 11) cards as plains: karasu 7 plains 4; pikaichi one
bright + 6 plains 4; toichi one animal + 6 plains 3; tan-ichi one ribbon + 6 plains 3; aka two
or more ribbons, the rest plains 2 (3 with ``aka_kan=3``).

The 1910 seed (``teyaku_scale="seed-1910"``) pays the triplet 1.5 kan (18 points at 12 a kan),
pikaichi 3 kan like the other "one higher card" hands, and has no standing triplets; the other
values are the standard ones (rules H5.5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scorer.cards import card

GROUP_A = "A"
GROUP_B = "B"

STANDING_MONTHS = frozenset({4, 5, 7})
DECEMBER_PLAINS = frozenset({"12-plain-1", "12-plain-2", "12-plain-3"})

# name → (group, Japanese name, value in half-kan) for the standard scale.
STANDARD_VALUES: dict[str, tuple[str, str, int]] = {
    "sanbon": (GROUP_A, "三本", 4),
    "tatesanbon": (GROUP_A, "立三本", 6),
    "kuttsuki": (GROUP_A, "喰付", 8),
    "futasanbon": (GROUP_A, "二三本", 12),
    "teshi": (GROUP_A, "手四", 12),
    "sanbon-tatesanbon": (GROUP_A, "三本立三本", 14),
    "haneken": (GROUP_A, "跳剣", 14),
    "futatatesanbon": (GROUP_A, "二立三本", 16),
    "ichinishi": (GROUP_A, "一二四", 16),
    "shiso": (GROUP_A, "四三", 40),
    "aka": (GROUP_B, "赤", 4),
    "tan-ichi": (GROUP_B, "短一", 6),
    "toichi": (GROUP_B, "十一", 6),
    "pikaichi": (GROUP_B, "光一", 8),
    "karasu": (GROUP_B, "空素", 8),
}

SEED_1910_OVERRIDES = {"sanbon": 3, "tatesanbon": 3, "pikaichi": 6}

SCALES = ("standard", "seed-1910")


def value_half_kan(name: str, scale: str = "standard", aka_kan: int = 2) -> int:
    """The value of teyaku ``name`` in half-kan under a value scale."""
    if name == "aka":
        return aka_kan * 2
    if scale == "seed-1910" and name in SEED_1910_OVERRIDES:
        return SEED_1910_OVERRIDES[name]
    return STANDARD_VALUES[name][2]


def group_of(name: str) -> str:
    """``A`` or ``B``."""
    return STANDARD_VALUES[name][0]


def japanese_name(name: str) -> str:
    """The Japanese name of a teyaku."""
    return STANDARD_VALUES[name][1]


@dataclass(frozen=True, slots=True)
class Teyaku:
    """One teyaku found in a hand."""

    name: str
    """Romanised name, e.g. ``sanbon``."""
    group: str
    """``A`` (month sets) or ``B`` (plain hands)."""
    half_kan: int
    """Value in half-kan (2 half-kan = 1 kan)."""
    months: tuple[int, ...] = ()
    """Group A: the months forming the sets (triplets first)."""

    def points(self, kan_size: int) -> int:
        """Value in points at ``kan_size`` points a kan."""
        return self.half_kan * kan_size // 2

    @property
    def kan(self) -> float:
        """Value in kan (may be a half)."""
        return self.half_kan / 2


def _is_standing(month: int, cards_of_month: Iterable[str], standing: bool) -> bool:
    if not standing:
        return False
    if month in STANDING_MONTHS:
        return True
    return month == 12 and set(cards_of_month) == DECEMBER_PLAINS


def group_a(
    hand: Sequence[str], scale: str = "standard", standing: bool = True
) -> Teyaku | None:
    """The group-A teyaku of a 7-card hand, or None."""
    by_month: dict[int, list[str]] = {}
    for cid in hand:
        by_month.setdefault(card(cid).month, []).append(cid)
    shape = sorted((len(v) for v in by_month.values()), reverse=True)
    triplets = sorted((m for m, v in by_month.items() if len(v) == 3))
    pairs = sorted((m for m, v in by_month.items() if len(v) == 2))
    fours = [m for m, v in by_month.items() if len(v) == 4]
    stands = [m for m in triplets if _is_standing(m, by_month[m], standing)]

    def make(name: str, months: list[int]) -> Teyaku:
        return Teyaku(name, GROUP_A, value_half_kan(name, scale), tuple(months))

    if shape == [4, 3]:
        return make("shiso", fours + triplets)
    if shape == [4, 2, 1]:
        return make("ichinishi", fours + pairs)
    if shape[0] == 4:
        return make("teshi", fours)
    if shape[:2] == [3, 3]:
        name = {0: "futasanbon", 1: "sanbon-tatesanbon", 2: "futatatesanbon"}[len(stands)]
        return make(name, triplets)
    if shape == [3, 2, 2]:
        return make("haneken", triplets + pairs)
    if shape[0] == 3:
        return make("tatesanbon" if stands else "sanbon", triplets)
    if shape[:3] == [2, 2, 2]:
        return make("kuttsuki", pairs)
    return None


def plain_class(cid: str) -> str:
    """A card's class for group B and sixteen plains: all willow cards are plains."""
    c = card(cid)
    return "plain" if c.month == 11 else c.kind


def group_b(hand: Sequence[str], scale: str = "standard", aka_kan: int = 2) -> Teyaku | None:
    """The group-B teyaku of a 7-card hand, or None."""
    counts = Counter(plain_class(cid) for cid in hand)
    n = len(hand)
    plains = counts["plain"]
    name = None
    if plains == n:
        name = "karasu"
    elif plains == n - 1:
        name = {"bright": "pikaichi", "animal": "toichi", "ribbon": "tan-ichi"}[
            next(k for k in counts if k != "plain")
        ]
    elif counts["ribbon"] >= 2 and counts["bright"] == 0 and counts["animal"] == 0:
        name = "aka"
    if name is None:
        return None
    return Teyaku(name, GROUP_B, value_half_kan(name, scale, aka_kan))


@dataclass(frozen=True, slots=True)
class HandTeyaku:
    """The teyaku of a dealt hand: best of group A plus best of group B."""

    a: Teyaku | None
    b: Teyaku | None

    @property
    def half_kan(self) -> int:
        """Total value in half-kan."""
        return (self.a.half_kan if self.a else 0) + (self.b.half_kan if self.b else 0)

    def points(self, kan_size: int) -> int:
        """Total value in points."""
        return self.half_kan * kan_size // 2


def evaluate(
    hand: Sequence[str], scale: str = "standard", standing: bool = True, aka_kan: int = 2
) -> HandTeyaku:
    """Both groups of a 7-card hand (rules H5.1)."""
    return HandTeyaku(group_a(hand, scale, standing), group_b(hand, scale, aka_kan))


def counted_cards(hand: Sequence[str], found: HandTeyaku) -> frozenset[str]:
    """Cards of ``hand`` that take part in its teyaku (for hand compensation, rules H8.3).

    Group A uses the cards of the months forming its sets; group B uses the whole hand.
    """
    if found.b is not None:
        return frozenset(hand)
    if found.a is not None:
        months = set(found.a.months)
        return frozenset(cid for cid in hand if card(cid).month in months)
    return frozenset()


def consistent_claim(name: str, shown: Sequence[str], standing: bool = True) -> str | None:
    """Why the shown cards cannot back a claim of teyaku ``name``, or None when they can.

    Claiming shows the combination (group A; all seven cards for ichinishi and shisō) or the
    plains only (group B) — rules H5.6. The full hand is checked again at
    settlement, once every card has been played.
    """
    if name not in STANDARD_VALUES:
        return f"unknown teyaku {name!r}; teyaku are: {', '.join(STANDARD_VALUES)}"
    if len(set(shown)) != len(shown):
        return "a card is shown twice"
    by_month: dict[int, list[str]] = {}
    for cid in shown:
        by_month.setdefault(card(cid).month, []).append(cid)
    sizes = sorted((len(v) for v in by_month.values()), reverse=True)
    stands = [
        m for m, v in by_month.items() if len(v) == 3 and _is_standing(m, v, standing)
    ]
    need = {
        "sanbon": lambda: sizes.count(3) >= 1,
        "tatesanbon": lambda: len(stands) >= 1,
        "kuttsuki": lambda: sizes.count(2) >= 3,
        "futasanbon": lambda: sizes.count(3) >= 2,
        "teshi": lambda: 4 in sizes,
        "sanbon-tatesanbon": lambda: sizes.count(3) >= 2 and len(stands) >= 1,
        "haneken": lambda: sizes.count(3) >= 1 and sizes.count(2) >= 2,
        "futatatesanbon": lambda: len(stands) >= 2,
        "ichinishi": lambda: sizes == [4, 2, 1],
        "shiso": lambda: sizes == [4, 3],
    }
    if name in need:
        return None if need[name]() else f"the shown cards do not form {name}"
    plains = [cid for cid in shown if plain_class(cid) == "plain"]
    others = [cid for cid in shown if plain_class(cid) != "plain"]
    if name == "aka":
        if any(plain_class(c) != "ribbon" for c in others):
            return "aka is shown with ribbons and plains only"
        return None
    if others:
        return f"{name} is claimed by showing the plains only"
    wanted = 7 if name == "karasu" else 6
    if len(plains) != wanted:
        return f"{name} is claimed by showing {wanted} plains, not {len(plains)}"
    return None
