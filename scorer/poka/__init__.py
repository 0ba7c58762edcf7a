"""Poka (ポカ, also 五文勝負 go-mon shōbu): a two-player hanafuda race to empty the hand.

Rules: section P of ``docs/rules.md`` (rules P1-P8; options and the ``seed`` ruleset: rules P8).
Modules: :mod:`.options`
(options and rulesets), :mod:`.hands` (wilds, month order, what may follow what, starting hands),
:mod:`.events` (the event types), :mod:`.engine` (the match).
"""

from __future__ import annotations

from scorer.games import GameSpec
from scorer.poka.describe import DESCRIPTION
from scorer.poka.engine import PokaMatch, PokaState
from scorer.poka.events import EVENTS, Claim, Deal, NoClaim, Pass, Play, Reshuffle, TableCard
from scorer.poka.hands import TEYAKU, HandReport, Teyaku, evaluate_hand, teyaku_held, wilds
from scorer.poka.options import DEFAULT_RULESET, RULESETS, PokaOptions

SUMMARY = (
    "Two players; 6 cards each and a face-up table card, 35 in the stock. Starting hands are "
    "checked first: all three wilds, three pairs or exactly three Januaries win 2 stones, four of "
    "a month (buttakuri) 5; only the highest counts, and equal claims by both players are void. "
    "Starting hands count natural months only: a wild counts as a card of its own month (the "
    "crane and the ribbon January, the warbler February), never as another month's card, so "
    "wilds do not make four of a month; the blank cards of extra-jokers have no month. "
    "Then, from the dealer, each turn plays cards one at a time onto the top card: the next month "
    "(December is followed by January), any wild, anything on a wild, or a January on a January "
    "when a February follows at once; one natural card per month per turn; a player keeps playing "
    "while able, then passes. Two passes in a row without a card played turn a new table card; an "
    "empty stock is renewed from the played cards except the top. Emptying the hand wins 1 stone, "
    "2 if all six go in one turn; the winner deals next; 5 stones (or 3) win the match. The wilds "
    "are the crane, the January ribbon and the warbler, or three blank cards with extra-jokers. "
    "Ten stones sit in a shared pool: pool = 10 - all stones taken. In full: docs/rules.md, "
    "rules P1-P8."
)

SPEC = GameSpec(
    name="poka",
    title="Poka",
    match=PokaMatch,
    rulesets=RULESETS,
    default_ruleset=DEFAULT_RULESET,
    min_players=2,
    max_players=2,
    evaluate_hand=evaluate_hand,
    description=DESCRIPTION,
    summary=SUMMARY,
)

__all__ = [
    "EVENTS",
    "SPEC",
    "TEYAKU",
    "Claim",
    "Deal",
    "HandReport",
    "NoClaim",
    "Pass",
    "Play",
    "PokaMatch",
    "PokaOptions",
    "PokaState",
    "Reshuffle",
    "TableCard",
    "Teyaku",
    "evaluate_hand",
    "teyaku_held",
    "wilds",
]
