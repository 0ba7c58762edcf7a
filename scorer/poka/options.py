"""Poka options and named rulesets (rules P8).

The ``seed`` ruleset has every option at its default: the three wilds are the in-deck
``01-crane``, ``01-ribbon`` and ``02-warbler`` (rules P1.3); the January-February exception
applies whenever the top is January (rules P4.4); playing all six cards in any one turn earns
2 stones (rules P6.2); continuing is mandatory while a legal card is held (rules P4.6); 5 stones
win (rules P7.3); the shared pool holds 10 stones (rules P7.2).
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
        "crane, the January ribbon and the warbler, which are then ordinary cards (rules P1.3)",
    )
    jan_feb_table_card_only: bool = option(
        False,
        "the January-February exception applies only when the top is the table card itself, "
        "not to any January on top (rules P4.4)",
    )
    all_out_first_turn_only: bool = option(
        False,
        "all out (2 stones) only when the six cards go out on the player's first turn of the "
        "round, not on any turn (rules P6.2)",
    )
    voluntary_stop: bool = option(
        False,
        "a player may pass while holding a playable card (rules P4.6)",
    )
    stones_to_win: int = option(
        5,
        "stones that win the match: 5 (go-mon shobu) or 3 (san-mon shobu) (rules P7.3)",
        choices=(5, 3),
    )
    pool_size: int = option(
        10,
        "go stones in the shared pool at the table edge; display only: pool = size - sum of "
        "stones, never negative (rules P7.2)",
    )


RULESETS: dict[str, PokaOptions] = {"seed": PokaOptions()}
"""Named presets; ``seed`` is the default."""

DEFAULT_RULESET = "seed"
