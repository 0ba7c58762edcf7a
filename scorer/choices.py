"""What a tracker's question offers a player: each candidate as steps a page draws as cards.

A :class:`Step` is one event as a player reads it: its ``kind`` (the event's type: ``play``,
``capture``, ``claim``, ``deal``, ``pass`` …), the ``seat`` that acts (None for chance, such as
Poka's table card), the ``cards`` it names (card ids, in the event's order; a deal's face-up
cards), and ``detail``: the event's other fields as plain JSON (a declaration's choice, a claim's
name), never prose. A :class:`Choice` is one candidate: how many committed events it takes back
first (``retract``, a repair) and its steps, with the events themselves for whoever applies it.
Every question also offers "something else" (:data:`SOMETHING_ELSE`): the player enters what
happened by hand, and the tracker follows from what they enter. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.events import Event

SOMETHING_ELSE = "something-else"
"""The answer every question offers beside its candidates: enter what happened by hand."""
MAX_CHOICES = 4
"""Most candidates a question offers (the likeliest)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One event of a candidate, as a page shows it (module docstring)."""

    kind: str
    seat: int | None
    cards: tuple[str, ...]
    detail: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "cards": list(self.cards), "detail": dict(self.detail)}


@dataclass(frozen=True, slots=True)
class Choice:
    """One candidate answer: take back ``retract`` committed events, then the ``steps``."""

    retract: int
    steps: tuple[Step, ...]
    events: tuple[Event, ...]

    def to_json(self) -> dict[str, Any]:
        return {"retract": self.retract, "steps": [s.to_json() for s in self.steps],
                "events": [e.to_json() for e in self.events]}


def _all_ids() -> frozenset[str]:
    from scorer.cards import decks

    return frozenset(c for spec in decks().values() for c in spec.cards)


def step_of(event: Event, deck_ids: Iterable[str] | None = None) -> Step:
    """``event`` as a :class:`Step`: every field holding card ids (alone, or in tuples) gives
    ``cards``; ``seat`` (else ``dealer``) the seat; the other set fields, ``detail``. ``deck_ids``:
    the ids that are cards (default: every deck's)."""
    ids = frozenset(deck_ids) if deck_ids is not None else _ALL_IDS()
    cards: list[str] = []
    detail: list[tuple[str, Any]] = []
    seat = getattr(event, "seat", None)
    if seat is None:
        seat = getattr(event, "dealer", None)
    for f in dataclasses.fields(event):
        if f.name in ("at", "seat") or (f.name == "dealer" and getattr(event, "seat", None) is None):
            continue
        value = getattr(event, f.name)
        found = _card_ids(value, ids)
        if found is not None:
            cards.extend(found)
        elif value is not None:
            detail.append((f.name, _plain(value)))
    return Step(event.TYPE, seat if isinstance(seat, int) else None, tuple(cards), tuple(detail))


def choice_of(events: Sequence[Event], retract: int, deck_ids: Iterable[str] | None = None) -> Choice:
    """A candidate (its events, after taking back ``retract`` committed ones) as a :class:`Choice`."""
    ids = frozenset(deck_ids) if deck_ids is not None else _ALL_IDS()
    return Choice(retract, tuple(step_of(e, ids) for e in events), tuple(events))


_CACHE: list[frozenset[str]] = []


def _ALL_IDS() -> frozenset[str]:  # noqa: N802 - a cached constant
    if not _CACHE:
        _CACHE.append(_all_ids())
    return _CACHE[0]


def _card_ids(value: Any, ids: frozenset[str]) -> list[str] | None:
    """The card ids ``value`` holds (a card id, or nested tuples/lists of them, possibly empty
    where other cards could be); None when it holds anything else."""
    if isinstance(value, str):
        return [value] if value in ids else None
    if isinstance(value, (tuple, list)) and value:
        out: list[str] = []
        for v in value:
            got = _card_ids(v, ids)
            if got is None:
                return None
            out.extend(got)
        return out
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
