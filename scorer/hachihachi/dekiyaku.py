"""Hachi-hachi dekiyaku (combinations of captured cards), rules H7.1 and H7.2.

| name | cards | kan |
|---|---|---|
| goko (五光) | 01-crane, 03-curtain, 08-moon, 11-rainman, 12-phoenix | 12 |
| shiko (四光) | 01-crane, 03-curtain, 08-moon, 12-phoenix (the rain man does not count) | 10 |
| nanatan (七短) | any 7 ribbons other than 11-ribbon | 10 |
| akatan (赤短) | 01-, 02-, 03-ribbon | 7 |
| aotan (青短) | 06-, 09-, 10-ribbon | 7 |
| inoshikacho (猪鹿蝶, option) | 07-boar, 10-deer, 06-butterflies | 7 |

Goko and shiko exclude each other; everything else adds up (nanatan + akatan + aotan = 24 kan).
With the nanatan variant (option ``nanatan_extra``) every ribbon beyond seven adds 1 kan, the
willow ribbon included.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from scorer.cards import all_cards

GOKO = frozenset({"01-crane", "03-curtain", "08-moon", "11-rainman", "12-phoenix"})
SHIKO = frozenset({"01-crane", "03-curtain", "08-moon", "12-phoenix"})
AKATAN = frozenset({"01-ribbon", "02-ribbon", "03-ribbon"})
AOTAN = frozenset({"06-ribbon", "09-ribbon", "10-ribbon"})
INOSHIKACHO = frozenset({"07-boar", "10-deer", "06-butterflies"})
RIBBONS = frozenset(c.id for c in all_cards("hanafuda").values() if c.kind == "ribbon")

JAPANESE = {
    "goko": "五光",
    "shiko": "四光",
    "nanatan": "七短",
    "akatan": "赤短",
    "aotan": "青短",
    "inoshikacho": "猪鹿蝶",
}


@dataclass(frozen=True, slots=True)
class Dekiyaku:
    """One dekiyaku held."""

    name: str
    """Romanised name, e.g. ``akatan``."""
    kan: int
    """Value in kan."""


def find(
    captured: Collection[str], *, inoshikacho: bool = False, nanatan_extra: bool = False
) -> tuple[Dekiyaku, ...]:
    """Every dekiyaku made by ``captured`` (a set of card ids)."""
    have = captured if isinstance(captured, frozenset | set) else frozenset(captured)
    out: list[Dekiyaku] = []
    if have >= GOKO:
        out.append(Dekiyaku("goko", 12))
    elif have >= SHIKO:
        out.append(Dekiyaku("shiko", 10))
    ribbons = len(RIBBONS & have) if len(have) >= 7 else 0
    counted = ribbons - ("11-ribbon" in have)
    if counted >= 7:
        extra = ribbons - 7 if nanatan_extra else 0
        out.append(Dekiyaku("nanatan", 10 + extra))
    if have >= AKATAN:
        out.append(Dekiyaku("akatan", 7))
    if have >= AOTAN:
        out.append(Dekiyaku("aotan", 7))
    if inoshikacho and have >= INOSHIKACHO:
        out.append(Dekiyaku("inoshikacho", 7))
    return tuple(out)


def total_kan(found: Collection[Dekiyaku]) -> int:
    """Sum of the values in kan."""
    return sum(d.kan for d in found)


def contributing(hand: Collection[str], *, inoshikacho: bool = False) -> frozenset[str]:
    """Cards of ``hand`` that belong to goko, akatan, aotan (or inoshikacho) — hand compensation."""
    sets = [GOKO, AKATAN, AOTAN] + ([INOSHIKACHO] if inoshikacho else [])
    return frozenset(cid for cid in hand if any(cid in s for s in sets))
