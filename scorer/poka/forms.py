"""Poka's event entered by picking cards (:mod:`scorer.forms`): a starting hand shown (its six
cards, rules P3), wherever the seat's hand is not known."""

from __future__ import annotations

from scorer.events import Event
from scorer.forms import CardForm, place_cards
from scorer.match import Match
from scorer.poka.engine import CLAIMS, HANDS, UNDECIDED
from scorer.poka.events import Claim
from scorer.poka.hands import HAND_SIZE, teyaku_held


def card_forms(match: Match) -> tuple[CardForm, ...]:
    s = match.state
    if s.phase != CLAIMS:
        return ()
    return tuple(CardForm("claim", seat, place_cards(match, HANDS[seat - 1]), HAND_SIZE, HAND_SIZE)
                 for seat in (1, 2)
                 if s.claims[seat - 1] == UNDECIDED and s.places[HANDS[seat - 1]].hidden)


def events_for(match: Match, form_type: str, seat: int, cards: tuple[str, ...]) -> list[Event]:
    """The claim of the highest starting hand the cards hold (the engine says why none is held)."""
    held = teyaku_held(cards, match.options)
    return [Claim(seat, cards, held[0].name)] if held else [Claim(seat, cards)]
