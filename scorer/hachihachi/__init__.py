"""Hachi-hachi (八八): teyaku, dekiyaku, fields, settlement and the match engine (rules H1-H9)."""

from scorer.games import GameSpec
from scorer.hachihachi.describe import DESCRIPTION
from scorer.hachihachi.engine import HachiHachi
from scorer.hachihachi.events import EVENTS
from scorer.hachihachi.hand import evaluate_hand
from scorer.hachihachi.options import DEFAULT_RULESET, RULESETS, Options

SUMMARY = """\
Three play each round (3-7 seated; seven seated use the blank). Deal 7 each, 6 face up, 21 in the
stock. From the dealer, each declares play or retire until three play; voluntary retirees pay a
forfeit into the pot (1 kan, then +0.5 kan each), forced-out players pay nothing and may show
their hand for compensation. Teyaku are claimed before the first stock card is turned and paid
by each opponent. On a turn, play a card (capture a same-month table card if it matches: two
matches, choose; three, take all) then turn the top stock card (capture is compulsory). Card
points: bright 20, animal 10, ribbon 5, plain 1; each active player scores (captured - 88). The
highest capture wins the round, takes the pot and deals next. Standard adds fields, dekiyaku with
sage/shobu/cancel, special cases and achievements. In full: docs/rules.md, rules H1-H9."""

SPEC = GameSpec(
    name="hachi-hachi",
    title="Hachi-hachi",
    match=HachiHachi,
    rulesets=RULESETS,
    default_ruleset=DEFAULT_RULESET,
    min_players=3,
    max_players=7,
    evaluate_hand=evaluate_hand,
    description=DESCRIPTION,
    summary=SUMMARY,
)

__all__ = ["EVENTS", "SPEC", "HachiHachi", "Options", "evaluate_hand"]
