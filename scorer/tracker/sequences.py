"""Event sequences as the tracker compares them, and tried on its fork of the match.

By sight: card ids count as their sight names (:func:`scorer.table.sight_name`), so sequences that
differ only in which copy of a plain card moved are one (:func:`event_key`, :func:`path_key`). A
skeleton is an event without its cards (who did what): the hypotheses kept are first the cheapest of
each skeleton (:func:`diverse`), so that a rival that differs in an unseen choice is not crowded out
by variants that differ only in cards. A hypothesis that is the best one with events inserted is
never a rival (:func:`inserted`): more events the table does not show cost more and explain nothing.

On the fork: :func:`replay` applies a sequence (all or nothing) and :func:`applied` holds one
applied for a ``with`` block; both leave the match as it was when the rules refuse an event.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match
from scorer.table import sight_name
from scorer.tracker.values import Explanation

_FIELDS: dict[type, tuple[str, ...]] = {}
_EVENT_KEYS: dict[Event, tuple] = {}


def _names(cls: type) -> tuple[str, ...]:
    """An event type's field names, its ``at`` aside."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "at")
    return names


def _sighted(value: Any) -> Any:
    """A field's value with card ids as sight names (a tuple of them as a sorted tuple)."""
    if isinstance(value, str):
        return sight_name(value)
    if isinstance(value, tuple):
        return tuple(sorted((_sighted(v) for v in value), key=repr))
    return value


def event_key(ev: Event) -> tuple:
    """An event by sight: card ids as sight names (interchangeable plains are one event)."""
    key = _EVENT_KEYS.get(ev)
    if key is None:
        key = (ev.TYPE, *(_sighted(getattr(ev, n)) for n in _names(type(ev))))
        if len(_EVENT_KEYS) > 200_000:
            _EVENT_KEYS.clear()
        _EVENT_KEYS[ev] = key
    return key


def path_key(events: Iterable[Event]) -> tuple:
    """A sequence of events by sight (:func:`event_key` of each)."""
    return tuple(event_key(e) for e in events)


def skeleton(ev: Event) -> tuple:
    """An event without its cards: type, seat and flags (a declaration's play or retire)."""
    return (ev.TYPE, *(v for n in _names(type(ev)) for v in [getattr(ev, n)] if not isinstance(v, str | tuple)))


def who(ev: Event) -> tuple:
    """An event's type, seat and flags alone (no cards, no card left unchosen)."""
    return (ev.TYPE, *(v for n in _names(type(ev)) for v in [getattr(ev, n)] if isinstance(v, int)))


def contains(longer: tuple, shorter: tuple) -> bool:
    """True when ``shorter`` is a subsequence of ``longer``."""
    it = iter(longer)
    return all(any(x == y for y in it) for x in shorter)


def common_prefix(paths: Sequence[tuple[Event, ...]]) -> tuple[Event, ...]:
    """The longest start of the first of ``paths`` that every one begins with, by sight."""
    if not paths:
        return ()
    first = paths[0]
    n = 0
    while n < len(first) and all(len(p) > n and event_key(p[n]) == event_key(first[n]) for p in paths[1:]):
        n += 1
    return first[:n]


def inserted(h: Explanation, best: Explanation) -> bool:
    """True when ``h`` is ``best`` with events inserted: more events the table does not show are
    never a rival."""
    kh, kb = path_key(h.events), path_key(best.events)
    return kh != kb and contains(kh, kb)


def diverse(ranked: list[Explanation], k: int) -> list[Explanation]:
    """The ``k`` cheapest of ``ranked``, but first the cheapest of each skeleton (who did what,
    cards aside), so that a rival that differs in an unseen choice (play or retire) is not crowded
    out by variants that differ only in cards."""
    firsts: dict[tuple, Explanation] = {}
    for h in ranked:
        firsts.setdefault(tuple(skeleton(e) for e in h.events), h)
    chosen = sorted(firsts.values(), key=lambda e: e.cost)[: max(1, k // 2)]
    taken = {id(h) for h in chosen}
    chosen += [h for h in ranked if id(h) not in taken][: k - len(chosen)]
    return sorted(chosen, key=lambda e: e.cost)


def replay(match: Match, path: Sequence[Event]) -> int | None:
    """Apply ``path`` to ``match``: how many events were applied, or None (nothing left applied)
    when the rules refuse one."""
    n = 0
    for ev in path:
        try:
            match.apply(ev)
        except ScorerError:
            for _ in range(n):
                match.undo()
            return None
        n += 1
    return n


@contextmanager
def applied(match: Match, events: Sequence[Event]) -> Iterator[bool]:
    """``events`` applied to ``match`` for the ``with`` block (False, nothing applied, when the
    rules refuse one), taken back after it."""
    n = replay(match, events)
    try:
        yield n is not None
    finally:
        for _ in range(n or 0):
            match.undo()
