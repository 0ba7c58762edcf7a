"""Bagaji's event entered by picking cards (:mod:`scorer.forms`): a hand laid face up after the
round (``show``, rules B10), wherever it is not fully known; all of it at once, or part. And the
events its engine does not list: the table's end of the session (rules B13), and ``ready`` again
from a hidden hand that announced it before (a discard may have broken its shape unseen, rules B8)."""

from __future__ import annotations

from scorer.bagaji.engine import SHOWDOWN, _hand
from scorer.bagaji.events import EndSession, Ready, Show
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


def unlisted_events(match: Match) -> list[Event]:
    s = match.state
    out: list[Event] = []
    if s.places is not None:
        out.extend(Ready(k) for k, flag in enumerate(s.ready, start=1) if flag >= 0 and s.places[_hand(k)].hidden)
    out.append(EndSession())
    return out
