"""Deals as a table sees them: the observer form of a deal, and what a player must say to enter one.

At a real table nobody sees the hands: a deal is known by its dealer (where the game has one) and
the cards it lays face up — Hachi-hachi's ``field`` (a number of cards that depends on the seats),
Poka's ``table`` card; Bagaji's deal lays none. The observer form of a deal writes hands and the
stock as counts (Poka: no stock) and names the face-up cards (``scorer.record``, "Observer and full
records"). Both the tracker (from a table state) and a player entering a deal by hand (the
dashboard's manual mode) build deals here, from the engine's own random deal as the template, so
the counts always agree with the rules in force.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from scorer.errors import IllegalEventError, ScorerError
from scorer.events import Event
from scorer.match import Match

FACE_UP_FIELDS = ("field", "table")
"""The deal fields that name face-up cards: a tuple of ids (``field``) or one id (``table``)."""


@dataclass(frozen=True, slots=True)
class DealForm:
    """What a deal due now needs from a player: who dealt and which cards lie face up."""

    dealers: tuple[int, ...]
    """The seats that may deal (one where the rules name the dealer); empty where the game's deal
    has no dealer (Bagaji)."""
    face_up: tuple[tuple[str, int], ...]
    """(deal field, number of face-up cards) for each field that names face-up cards."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form: ``{"dealers": [...], "face_up": {"field": 8}}``."""
        return {"dealers": list(self.dealers), "face_up": dict(self.face_up)}


def deal_template(match: Match) -> Event | None:
    """The engine's own random deal now (a full deal: every hand named), or None when no deal is due."""
    if match.is_over or match.phase() != "deal":
        return None
    try:
        template = match.random_event(random.Random(0))
    except ScorerError:
        return None
    return template if template.TYPE == "deal" else None


def deal_form(match: Match) -> DealForm | None:
    """What a player must say to enter the deal due now; None when no deal is due."""
    template = deal_template(match)
    if template is None:
        return None
    names = {f.name for f in fields(template)}
    if "dealer" in names:
        known = match.to_play()
        dealers = (known,) if known else tuple(range(1, len(match.players) + 1))
    else:
        dealers = ()
    face_up = []
    for name in FACE_UP_FIELDS:
        if name in names:
            value = getattr(template, name)
            face_up.append((name, len(value) if isinstance(value, tuple) else 1))
    return DealForm(dealers, tuple(face_up))


def observer_deal(match: Match, face_up: Mapping[str, Sequence[str]], dealer: int | None = None,
                  template: Event | None = None) -> Event:
    """The deal due now in observer form: hands and stock as counts, ``face_up`` naming the cards of
    each face-up field (``{"field": [...]}``, ``{"table": [id]}``), ``dealer`` the seat that dealt
    (needed where the game's deal names one and the rules do not). ``template``: the engine's random
    deal to copy counts from (default :func:`deal_template`).

    Raises :class:`IllegalEventError` (rule ``deal-entry``) when no deal is due, a face-up field is
    missing or has the wrong number of cards, or the dealer is missing or not a seat; the engine's
    own checks (cards of the deck, each once) apply when the deal is applied or checked."""
    from scorer.games import game as game_spec

    template = template if template is not None else deal_template(match)
    if template is None:
        raise IllegalEventError("deal-entry", f"no deal is due now ({match.expecting()})")
    stock_counted = game_spec(match.GAME).description.stock_as_count
    values: dict[str, Any] = {}
    for f in fields(template):
        if f.name == "at":
            continue
        v = getattr(template, f.name)
        if f.name == "hands":
            v = tuple(len(h) if isinstance(h, tuple) else h for h in v)
        elif f.name == "stock":
            v = (len(v) if isinstance(v, tuple) else v) if stock_counted else None
        elif f.name in FACE_UP_FIELDS:
            want = len(v) if isinstance(v, tuple) else 1
            got = list(face_up.get(f.name) or ())
            if len(got) != want:
                raise IllegalEventError("deal-entry", f"the deal lays {want} card{'s' * (want != 1)} face up "
                                        f"({f.name}); {len(got)} given")
            v = tuple(got) if isinstance(v, tuple) else got[0]
        elif f.name == "dealer":
            known = match.to_play()
            seat = dealer if dealer is not None else known
            if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= len(match.players):
                raise IllegalEventError("deal-entry", f"say who dealt: a seat from 1 to {len(match.players)}")
            v = seat
        values[f.name] = v
    extra = set(face_up) - {f.name for f in fields(template)}
    if extra:
        raise IllegalEventError("deal-entry", f"this game's deal lays no cards as {', '.join(sorted(extra))}")
    return type(template)(**values)
