"""Hachi-hachi's events entered by picking cards (:mod:`scorer.forms`): a teyaku claim (the cards
shown, rules H5.6), a buy-out (the forced seat's seven cards, rules H4.3) and, seven seated, the
blank holder's sit-out (its six other cards, rules H2.4), wherever the hand is not fully known."""

from __future__ import annotations

from scorer.errors import IllegalEventError
from scorer.events import Event
from scorer.forms import CardForm, place_cards
from scorer.hachihachi import teyaku as ty
from scorer.hachihachi.engine import BLANK, DRAW, HAND_SIZE, PLAY, SIT_OUT, hand
from scorer.hachihachi.events import Buyout, Claim, SitOut
from scorer.match import Match

CLAIM_FEWEST = 1
"""Fewest cards a claim shows (aka shows only its ribbons and plains, which may be few)."""


def card_forms(match: Match) -> tuple[CardForm, ...]:
    r = match.state.round
    if r is None:
        return ()
    out: list[CardForm] = []
    if r.phase == SIT_OUT:
        for s in r.seated:
            if r.places[hand(s)].hidden:
                cards = tuple(c for c in place_cards(match, hand(s)) if c != BLANK)
                out.append(CardForm("sit-out", s, cards, HAND_SIZE - 1, HAND_SIZE - 1))
        return tuple(out)
    if r.phase not in (PLAY, DRAW):
        return ()
    o = match.options
    if r.phase == PLAY and not r.played and o.compensation != "none":
        for s in r.forced:
            if r.places[hand(s)].hidden and all(b != s for b, _ in r.buyouts):
                out.append(CardForm("buyout", s, place_cards(match, hand(s)), HAND_SIZE, HAND_SIZE))
    if not r.stock_turned:
        for s in r.active:
            place = r.places[hand(s)]
            claimed = {ty.group_of(n) for t, n in r.claims if t == s}
            if place.hidden and len(claimed) < 2 and place.size >= CLAIM_FEWEST:
                out.append(CardForm("claim", s, place_cards(match, hand(s)), CLAIM_FEWEST, min(HAND_SIZE, place.size)))
    return tuple(out)


def events_for(match: Match, form_type: str, seat: int, cards: tuple[str, ...]) -> list[Event]:
    if form_type == "sit-out":
        return [SitOut(seat, cards)]
    if form_type == "buyout":
        return [Buyout(seat, cards)]
    o = match.options
    r = match.state.round
    claimed = {ty.group_of(n) for t, n in r.claims if t == seat}
    names = [n for n in ty.STANDARD_VALUES if ty.group_of(n) not in claimed
             and ty.consistent_claim(n, cards, o.standing_triplets) is None]
    if not names:
        raise IllegalEventError(
            "claim-shown-cards",
            f"{', '.join(cards)} back no teyaku seat {seat} may still claim: a group A teyaku shows a month's "
            "three or four cards, or three pairs; group B shows the plains only (rules H5.1, H5.6)")
    names.sort(key=lambda n: -ty.value_half_kan(n, o.teyaku_scale, o.aka_kan))
    return [Claim(seat, n, cards) for n in names]
