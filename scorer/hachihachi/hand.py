"""``fudaba hand hachi-hachi``: the teyaku of a dealt hand and the dekiyaku of a set of cards.

Seven cards are read as a dealt hand (best of group A plus best of group B, rules H5.1); the same
cards are also read as captures for dekiyaku (rules H7.1). Fewer than seven are a short hand: its
dekiyaku are read, its teyaku are not, and the report says so (``complete``/``needs``). More than
seven are a player's captured cards: their dekiyaku are read (a capture pile holds up to the
whole deck, 48 cards); more than 48 is an error (:func:`evaluate_hand`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorer.cards import deck
from scorer.errors import ScorerError
from scorer.games import check_hand_size, more_needed
from scorer.hachihachi import dekiyaku as dk
from scorer.hachihachi import teyaku as ty
from scorer.hachihachi.options import Options

DEALT = 7
"""Cards in a dealt hand (rules H2.2): a full hand, whose teyaku are read."""
CAPTURED = 48
"""The most cards ``fudaba hand`` reads: a capture pile of the whole deck, for dekiyaku."""


@dataclass(frozen=True)
class HandReport:
    """Teyaku and dekiyaku of some hanafuda cards under a ruleset."""

    cards: tuple[str, ...]
    found: ty.HandTeyaku | None
    dekiyaku: tuple[dk.Dekiyaku, ...]
    kan_size: int

    @property
    def complete(self) -> bool:
        """True for a full dealt hand (7 cards), whose teyaku are read, or a capture pile (more)."""
        return len(self.cards) >= DEALT

    @property
    def needs(self) -> str | None:
        """What a short hand lacks, in one sentence; None for a full hand."""
        if self.complete:
            return None
        more = more_needed(DEALT - len(self.cards))
        return f"a Hachi-hachi dealt hand has {DEALT} cards; {more} needed to read its teyaku"

    def _one(self, t: ty.Teyaku | None) -> dict[str, Any] | None:
        if t is None:
            return None
        return {
            "name": t.name,
            "name_ja": ty.japanese_name(t.name),
            "kan": t.kan,
            "points": t.points(self.kan_size),
        }

    def to_json(self) -> dict[str, Any]:
        """``{"group_a": {...}|null, "group_b": {...}|null, "points": n, ..., "complete": bool,
        "needs": str|null}`` (teyaku null and 0 for a short hand)."""
        found = self.found
        return {
            "cards": list(self.cards),
            "group_a": self._one(found.a if found else None),
            "group_b": self._one(found.b if found else None),
            "points": found.points(self.kan_size) if found else 0,
            "kan": found.half_kan / 2 if found else 0,
            "kan_size": self.kan_size,
            "dekiyaku": [{"name": d.name, "name_ja": dk.JAPANESE[d.name], "kan": d.kan} for d in self.dekiyaku],
            "dekiyaku_kan": dk.total_kan(self.dekiyaku),
            "complete": self.complete,
            "needs": self.needs,
        }

    def lines(self) -> list[str]:
        """Human-readable report."""
        out = [f"cards: {' '.join(self.cards)}"]
        if self.found is None:
            out.append(
                "teyaku: not read (incomplete hand)"
                if len(self.cards) < DEALT
                else f"teyaku: not read (more than the {DEALT} dealt cards: read as captured cards)"
            )
        else:
            for label, t in (("group A", self.found.a), ("group B", self.found.b)):
                if t is None:
                    out.append(f"{label}: none")
                else:
                    out.append(
                        f"{label}: {t.name} ({ty.japanese_name(t.name)}) {t.kan:g} kan = "
                        f"{t.points(self.kan_size)} points"
                    )
            out.append(
                f"teyaku total: {self.found.half_kan / 2:g} kan = {self.found.points(self.kan_size)} points"
            )
        if self.dekiyaku:
            names = ", ".join(f"{d.name} {d.kan}" for d in self.dekiyaku)
            out.append(f"dekiyaku (as captures): {names} = {dk.total_kan(self.dekiyaku)} kan")
        else:
            out.append("dekiyaku (as captures): none")
        if self.needs:
            out.append(f"incomplete hand: {self.needs}.")
        return out


def evaluate_hand(cards: Sequence[str], options: Options) -> HandReport:
    """Teyaku (when 7 cards) and dekiyaku of ``cards``; unknown ids raise with suggestions.

    Ids may be written in any case (``08-MOON``); the report names them as the deck does.

    The rule for short hands, the same in every game (:class:`scorer.games.HandReport`): 1 to 6
    cards are evaluated as far as they can be (dekiyaku; no teyaku, which need the whole dealt
    hand) and the report says ``complete`` false with what a full hand ``needs``; 7 cards are a
    full dealt hand; 8 to 48 are captured cards (dekiyaku only); none, or more than 48, raise
    :class:`~scorer.errors.ScorerError`.
    """
    check_hand_size("Hachi-hachi", len(cards), CAPTURED, "a capture pile of the whole deck")
    spec = deck("hanafuda")
    cards = [spec.canonical(cid, "Hachi-hachi") for cid in cards]
    if len(set(cards)) != len(cards):
        raise ScorerError("a card appears twice; a hanafuda deck has one of each")
    found = None
    if len(cards) == DEALT:
        found = ty.evaluate(cards, options.teyaku_scale, options.standing_triplets, options.aka_kan)
    held = dk.find(cards, inoshikacho=options.inoshikacho, nanatan_extra=options.nanatan_extra)
    return HandReport(tuple(cards), found, held if options.dekiyaku else (), options.kan_size)
