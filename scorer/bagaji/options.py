"""Bagaji options: one frozen dataclass, and the named rulesets (rules B14).

The ``seed`` ruleset has every option at its default (the Japanese month order among them). Each
option's text names the section of ``docs/rules.md`` whose rule it changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.rulesets import option

DECK_NAMES = {"playing-2x": "playing-2x", "hanafuda-1x": "hanafuda", "hanafuda-2x": "hanafuda-2x"}
"""Deck option value → name of the deck in :func:`scorer.cards.deck`."""


@dataclass(frozen=True, slots=True)
class BagajiOptions:
    """Every rule choice of a Bagaji match."""

    deck: str = option(
        "playing-2x",
        "cards used: two 52-card decks without kings (8 of each value 1-12), "
        "one hanafuda set (48) or two (96) (rules B1.2)",
        tuple(DECK_NAMES),
    )
    month_order: str = option(
        "japanese",
        "hanafuda value = month in this order; Korean swaps 11 (Willow) and 12 (Paulownia) (rules B1.3)",
        ("japanese", "korean"),
    )
    end_after_minutes: int = option(
        120, "the match ends when a round is settled this many minutes after the start (0: no limit) (rules B13)"
    )
    end_after_rounds: int = option(0, "the match ends after this many rounds (0: no limit) (rules B13)")
    direction: str = option(
        "seat-order",
        "turn order: seat 1, 2, 3 … or the reverse (rules B2.3)",
        ("seat-order", "reverse"),
    )
    stop_limit: int = option(10, "a stop without a triplet needs a 5-card sum of at most this (rules B5.2)")
    stop_limit_triplet: int = option(
        5, "a stop with a triplet (concealed or exposed) needs the other two cards to sum to at most this (rules B5.2)"
    )
    stop_tie_fails: bool = option(
        True, "a failed stop: another player's value equal to the stopper's counts against the stopper (rules B5.3)"
    )
    stop_requires_call: bool = option(
        False, "only a player with an exposed triplet may stop (a Nylon-ppong variant; rules B5.1)"
    )
    failed_stop_penalty: int = option(60, "added to a failed stopper's score (rules B11.4)")
    failed_stop_others_score: str = option(
        "hand",
        "after a failed stop the others score their hand values, or nothing (rules B11.4)",
        ("hand", "nothing"),
    )
    feeder_penalty: int = option(30, "added to the player whose discard was called for a win (rules B11.2)")
    moon_threshold: int = option(64, "a six-card hand whose raw sum reaches this is a moon (rules B6.5)")
    moon_fixed_score: int = option(
        0, "0: a moon scores minus its raw sum (seed); N > 0: a moon scores -N (Nylon-ppong: 100) (rules B6.5)"
    )
    moon_counts_melds: bool = option(
        True, "the moon's six cards include the exposed triplet; off: a moon must be concealed (rules B6.5)"
    )
    straight_wrap: bool = option(False, "a straight may wrap from 12 to 1 (rules B6.4)")
    six_of_a_kind: bool = option(True, "six equal cards are two triplets (96-card decks; rules B6.2)")
    four_and_pair_score: int | None = option(
        None, "None: four equal cards and a pair is no win; a number: it wins, scoring that (-50) (rules B6.6)"
    )
    zero_four_of_a_kind: bool = option(
        False, "off: only one triplet per value counts 0 and a fourth card counts; on: all zero (rules B3)"
    )
    ready_required: bool = option(
        True, "a winning call needs a 'ready' announcement made before that discard (rules B7.3, B8)"
    )
    claim_priority: str = option(
        "winning-first",
        "several callers: a winning call first, then the nearest after the discarder; or nearest only (rules B7.4)",
        ("winning-first", "turn-order"),
    )
    stock_exhausted: str = option(
        "reshuffle",
        "empty stock: reshuffle the discards but the top one into a new stock, or end the round "
        "with no winner, everyone scoring their hand (rules B9)",
        ("reshuffle", "no-winner"),
    )
    no_winner_first: str = option(
        "lowest-value",
        "who starts after a round with no winner: lowest hand value (ties: first in turn order after "
        "the stopper), the player given the most penalty, or the same first player again (rules B12)",
        ("lowest-value", "most-penalty", "same-first"),
    )
    natural_triplet_exposure: bool = option(
        False, "a player may expose a concealed triplet on their turn after drawing, then discard (rules B4.3)"
    )

    @property
    def deck_name(self) -> str:
        """Name of the deck in :func:`scorer.cards.deck`."""
        return DECK_NAMES[self.deck]


SEED = BagajiOptions()

RULESETS = {"seed": SEED}
"""Named rulesets; ``seed`` is the default."""
