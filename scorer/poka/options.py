"""Poka options and named rulesets (rules/README.md "Poka"; reference.md §4.2-§4.4).

The ``seed`` ruleset is reference §4.2 with every PROPOSED resolution P1-P12 of §4.4: the three
wilds are the in-deck ``01-crane``, ``01-ribbon`` and ``02-warbler`` (P1); the January-February
exception applies whenever the top is January (P5); playing all six cards in any one turn earns
2 stones (P6); continuing is mandatory while a legal card is held (P10); 5 stones win; the shared
pool holds 10 stones.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.rulesets import option


@dataclass(frozen=True, slots=True)
class PokaOptions:
    """The options of one Poka ruleset."""

    extra_jokers: bool = option(
        False,
        "three added blank cards (00-blank, deck hanafuda+3blank) are the wilds instead of the "
        "crane, the January ribbon and the warbler, which are then ordinary cards (reference §4.4 P1)",
    )
    jan_feb_table_card_only: bool = option(
        False,
        "the January-February exception applies only when the top is the table card itself, "
        "not to any January on top (reference §4.4 P5)",
    )
    all_out_first_turn_only: bool = option(
        False,
        "all out (2 stones) only when the six cards go out on the player's first turn of the "
        "round, not on any turn (reference §4.4 P6)",
    )
    voluntary_stop: bool = option(
        False,
        "a player may pass while holding a playable card (reference §4.2, §4.4 P10)",
    )
    stones_to_win: int = option(
        5,
        "stones that win the match: 5 (go-mon shobu) or 3 (san-mon shobu) (reference §4.2)",
        choices=(5, 3),
    )
    pool_size: int = option(
        10,
        "go stones in the shared pool at the table edge; display only: pool = size - sum of "
        "stones, never negative (reference §4.3)",
    )


RULESETS: dict[str, PokaOptions] = {"seed": PokaOptions()}
"""Named presets; ``seed`` is the default."""

DEFAULT_RULESET = "seed"
