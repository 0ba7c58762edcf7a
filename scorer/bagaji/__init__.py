"""Bagaji (Korean Nylon-ppong as a house variant): a rummy of five-card hands, lowest total wins.

Rules: section B of ``docs/rules.md`` (rules B1-B14). Modules: :mod:`options`
(ruleset), :mod:`hands` (values, stop test, wins, ``fudaba hand``), :mod:`events`, :mod:`engine`.
"""

from __future__ import annotations

from scorer.bagaji.describe import DESCRIPTION
from scorer.bagaji.engine import BagajiMatch, BagajiState
from scorer.bagaji.hands import HandReport, evaluate_hand
from scorer.bagaji.options import RULESETS, SEED, BagajiOptions
from scorer.games import GameSpec

SUMMARY = (
    "Bagaji: 2-6 players (up to 8 with 96 cards), two 52-card decks without kings by default "
    "(8 of each value 1-12) or one or two hanafuda sets (value = month). Five cards each; on your "
    "turn you may stop before drawing (no triplet: sum <= 10; with a triplet: the other two <= 5), "
    "else draw and win with six cards (two triplets, three pairs, a straight of six, or a moon: raw "
    "sum >= 64) or discard. Others may call a discard with a pair, exposing the triplet and "
    "discarding; a call that completes two triplets needs a prior 'ready'. Winner 0 (straight and "
    "moon: minus the sum), others their hand value (triplets 0); a failed stop costs +60 and has no "
    "winner; feeding a winning call +30. The lowest total after 120 minutes (or N rounds) wins. "
    "In full: docs/rules.md, rules B1-B14."
)

SPEC = GameSpec(
    name="bagaji",
    title="Bagaji",
    match=BagajiMatch,
    rulesets=RULESETS,
    default_ruleset="seed",
    min_players=2,
    max_players=8,
    evaluate_hand=evaluate_hand,
    description=DESCRIPTION,
    summary=SUMMARY,
)

__all__ = ["SPEC", "BagajiMatch", "BagajiOptions", "BagajiState", "HandReport", "RULESETS", "SEED", "evaluate_hand"]
