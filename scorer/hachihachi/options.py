"""Hachi-hachi rulesets: ``seed-1910`` (default) and ``standard`` (rules H9).

``seed-1910`` is the 1910 seed's "simplest form" plus its teyaku: no fields, no dekiyaku, no
special cases; settlement (captured − 88) per player; teyaku at the seed's values; voluntary
retirement pays a forfeit (1 kan for the first retiree, +0.5 kan for each next one, as FudaWiki);
forced-out players pay nothing and may insist on being bought out, paid as the standard hand
compensation; the round's highest capture takes the forfeits.

``standard`` is FudaWiki's game: fields ×1/×2/×4 with the carried-over queue, both teyaku groups,
dekiyaku with sage/shōbu/cancel, the special cases (all eights, double eights, sixteen plains),
dropout fees and hand compensation, achievements (diving, escape), two-player fallback.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.rulesets import option


@dataclass(frozen=True, slots=True)
class Options:
    """Every Hachi-hachi option. Amounts are in kan unless said otherwise."""

    kan_size: int = option(12, "points in one kan (12 traditional, 10 modern) (rules H1.2)", (12, 10))
    who_pays: str = option(
        "each",
        "who pays a player's gain: each opponent the full amount, or the opponents split it (rules H8.10)",
        ("each", "split"),
    )
    rounds: int = option(12, "rounds (months) in a match (rules H1.3)", (12, 6, 3))
    teyaku_scale: str = option(
        "standard",
        "teyaku values: standard (sanbon 2, pikaichi 4 kan) or the 1910 seed's (triplet 1.5, "
        "one higher card 3 kan) (rules H5.5); on either scale, seed-1910 too, the four willow "
        "cards count as plains for the group B teyaku (rules H5.4)",
        ("standard", "seed-1910"),
    )
    standing_triplets: bool = option(
        True, "standing triplets (months 4, 5, 7, December plains) score tatesanbon and its kin (rules H5.3)"
    )
    aka_kan: int = option(2, "value of aka (two or more ribbons among plains) in kan (rules H5.4)", (2, 3))
    fields: bool = option(True, "field multiplier ×2 (crane, curtain, moon) / ×4 (rain man, phoenix) (rules H3)")
    field_combine: str = option(
        "queue",
        "several brights on the table: the largest applies, the rest wait in a queue; or all multiply "
        "(rules H3.2, H3.3)",
        ("queue", "multiply"),
    )
    dekiyaku: bool = option(True, "dekiyaku from captures, with sage / shōbu / cancel (rules H7)")
    inoshikacho: bool = option(False, "boar-deer-butterflies is a dekiyaku (7 kan) (rules H7.1)")
    nanatan_extra: bool = option(False, "nanatan +1 kan for each ribbon beyond seven (willow included) (rules H7.2)")
    special_cases: bool = option(
        True, "all eights, double eights and sixteen plains cancel other payments (rules H8.6)"
    )
    achievements: bool = option(True, "diving (tobikomi) and escape (nukeyaku) pay 1 kan from each (rules H8.9)")
    forfeit_first: int = option(
        2, "voluntary retirement: the first retiree's forfeit, in half-kan (2 = 1 kan) (rules H4.2)"
    )
    forfeit_step: int = option(1, "each next retiree pays this many half-kan more (1 = 0.5 kan) (rules H4.2)")
    compensation: str = option(
        "on-claim",
        "forced-out players: shown hands are compensated (on-claim) or nothing is paid (none) (rules H4.3, H8.3)",
        ("on-claim", "none"),
    )
    last_three_must_play: bool = option(
        False, "the last players to declare must play when only they can make up three (rules H4.4)"
    )
    two_players: str = option(
        "play",
        "when only two declare play: they play the two-player game, or split the pot and redeal (rules H4.5)",
        ("play", "split"),
    )


RULESETS: dict[str, Options] = {
    "seed-1910": Options(
        teyaku_scale="seed-1910",
        standing_triplets=False,
        fields=False,
        dekiyaku=False,
        special_cases=False,
        achievements=False,
    ),
    "standard": Options(),
}

DEFAULT_RULESET = "seed-1910"
