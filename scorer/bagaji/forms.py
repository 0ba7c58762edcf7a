"""Bagaji's event entered by picking cards (:mod:`scorer.forms`): a hand laid face up after the
round (``show``, rules B10), wherever it is not fully known; all of it at once, or part."""

from __future__ import annotations

from scorer.bagaji.engine import SHOWDOWN, _hand
from scorer.bagaji.events import Show
from scorer.events import Event
from scorer.forms import CardForm, place_cards
from scorer.match import Match


def card_forms(match: Match) -> tuple[CardForm, ...]:
    s = match.state
    if s.phase != SHOWDOWN:
        return ()
    out = []
    for k in range(1, len(match.players) + 1):
        place = s.places[_hand(k)]
        if place.hidden:
            out.append(CardForm("show", k, place_cards(match, _hand(k)), 1, place.size))
    return tuple(out)


def events_for(match: Match, form_type: str, seat: int, cards: tuple[str, ...]) -> list[Event]:
    return [Show(seat, cards)]
