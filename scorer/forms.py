"""Events a player enters by picking cards, where the engine cannot list them.

An observer does not see the hands, so the events that show a hidden hand cannot be listed one by
one (any of thousands of hands could be shown): a Hachi-hachi teyaku claim, buy-out or sit-out, a
Poka starting hand, a Bagaji show. For each such event that may happen now, :func:`card_forms`
gives a :class:`CardForm`: who acts, the event's type, the cards that may be picked (each as many
times as the place could hold it) and how many are picked. :func:`picked_events` turns a pick into
the events it can mean (a teyaku's name where the cards back several), each one the rules allow
now; when none is allowed it raises the rules' reason. Pure: no I/O.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorer.errors import IllegalEventError
from scorer.events import Event
from scorer.match import Match


@dataclass(frozen=True, slots=True)
class CardForm:
    """One event entered by picking cards (module docstring)."""

    type: str
    """The event's type (``claim``, ``buyout``, ``sit-out``, ``show``)."""
    seat: int
    """The seat that shows the cards."""
    cards: tuple[str, ...]
    """The cards that may be picked, each as many times as it may be picked (two-deck games)."""
    fewest: int
    """Fewest cards picked."""
    most: int
    """Most cards picked."""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "cards": list(self.cards), "fewest": self.fewest,
                "most": self.most}


def card_forms(match: Match) -> tuple[CardForm, ...]:
    """The events of ``match`` that a player may enter now by picking cards (none once it is over)."""
    if match.is_over:
        return ()
    return _game(match).card_forms(match)


def picked_events(match: Match, form_type: str, seat: int, cards: Sequence[str]) -> list[Event]:
    """The events that picking ``cards`` for form ``form_type`` of ``seat`` can mean now, each legal.

    Raises :class:`IllegalEventError` with the rules' reason when the pick fits no form open now, or
    when the rules refuse every event it can mean."""
    form = next((f for f in card_forms(match) if f.type == form_type and f.seat == seat), None)
    if form is None:
        raise IllegalEventError("form-closed", f"seat {seat} cannot {form_type} now ({match.expecting()})")
    picked = list(cards)
    if not form.fewest <= len(picked) <= form.most:
        n = str(form.fewest) if form.fewest == form.most else f"{form.fewest} to {form.most}"
        raise IllegalEventError("form-count", f"pick {n} cards, not {len(picked)}")
    extra = Counter(picked) - Counter(form.cards)
    if extra:
        raise IllegalEventError("form-card", f"seat {seat} cannot hold {', '.join(sorted(extra))} now")
    events = _game(match).events_for(match, form_type, seat, tuple(picked))
    legal: list[Event] = []
    first: IllegalEventError | None = None
    for ev in events:
        why = match.check(ev)
        if why is None:
            legal.append(ev)
        elif first is None:
            first = why
    if not legal:
        raise first if first is not None else IllegalEventError("form-none", "these cards make no such event")
    return legal


def unlisted_events(match: Match) -> tuple[Event, ...]:
    """Events the rules allow now that the engine leaves out of its next events (a table's decision
    such as Bagaji's end of the session; a hidden hand's repeated ``ready``), which manual play
    offers beside them; each checked by the rules."""
    if match.is_over:
        return ()
    extra = getattr(_game(match), "unlisted_events", None)
    return tuple(e for e in extra(match) if match.check(e) is None) if extra is not None else ()


def _game(match: Match) -> Any:
    """The module of ``match``'s game that knows its forms (``forms`` in the game's folder)."""
    from scorer.games import game

    return importlib.import_module(f"{game(match.GAME).description.package}.forms")


def place_cards(match: Match, name: str) -> tuple[str, ...]:
    """The cards place ``name`` of ``match`` could hold, each as often as it could (known copies
    there, and unseen copies up to the place's hidden count)."""
    places = match.table_places()
    if places is None:
        return ()
    place = places[name]
    out = Counter(place.known)
    if place.hidden:
        for cid, k in places.unseen.items():
            out[cid] += min(k, place.hidden)
    return tuple(c for c in places.candidates(name) for _ in range(out[c]))
