"""Out of sync, repairs and "the table is like this": how the tracker gets back in sync.

*Desync:* when even the best hypothesis fits the latest table worse than ``max_cost`` (the fit of
:func:`scorer.tracker.fit.gated`; a hypothesis that ends where a deal is due is spared: the cards
are being gathered) for ``desync_after_s``, the tracker is *out of sync* (:class:`Desync`, the
differences in words) until the table and the game agree again or a correction arrives; its
hypotheses start afresh from the committed game.

*Repairs.* A card misread when its event was committed shows later: the game expects a card where
the table has another. Before reporting a desync the tracker tries, once per stretch out of sync
(its search is costly), every change of one card id (to a card of another sight name) in one of
the round's last :data:`~scorer.tracker.options.REPAIR_EVENTS` committed events and in the round's
deal, however far back (a card misread as it was dealt face up shows when it is taken), whose sight
name is among the differences (:func:`card_changes`: a field naming one card, or one card of a
field naming several); the repaired history must be legal. A repair costs how much worse
the repaired game fits the table the repaired event was committed on (the camera's second choice
for a card costs little there) plus ``miss_cost``. From the
:data:`~scorer.tracker.options.REPAIR_SEARCHES` repairs whose repaired game alone fits the table
now best (that cost included; ties: the later event), a search must explain the table within
``max_cost``. The cheapest repair (with the search's cost) is applied when no other lies within
``margin`` of it: the update retracts the events from the repaired one on
(:attr:`Update.retracted`) and commits the repaired event and the ones after it again; several
close repairs become a ``repair`` question whose candidates carry the retraction
(:attr:`Explanation.retract`).

*The table is like this* (:func:`assert_table`): a player's word that the table seen is right. A
deeper search than a table change gets (:data:`~scorer.tracker.options.ASSERT_DEPTH` events that
change the table, :data:`~scorer.tracker.options.ASSERT_BEAM` partial sequences per step) finds
the legal events that lead there from the committed game.

The functions act on a :class:`~scorer.tracker.tracker.Tracker`'s state.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from scorer.events import Event
from scorer.match import Match
from scorer.table import TableState, sight_name
from scorer.tracker.commits import ambiguous, close_to, commit, note_commit, same_outcome_prefix
from scorer.tracker.fit import Scorer, gated, predicted, visible_names
from scorer.tracker.hooks import deck_ids
from scorer.tracker.options import (
    ASSERT_BEAM,
    ASSERT_DEPTH,
    REPAIR_EVENTS,
    REPAIR_SEARCHES,
    RESYNC_BACK,
)
from scorer.tracker.search import Search
from scorer.tracker.sequences import applied, common_prefix, event_key, path_key, replay
from scorer.tracker.values import Desync, Evidence, Explanation, Question, Update

if TYPE_CHECKING:
    from scorer.tracker.tracker import Tracker


def poor_fit(t: Tracker, best: Explanation) -> bool:
    """Whether ``best`` (the best hypothesis) leaves the tracker out of sync: no explanation at
    all, or a fit worse than ``max_cost`` (:func:`~scorer.tracker.fit.gated`) that a due deal does
    not excuse (replaying the hypothesis to see whether a deal is due costs; only a poor fit needs it)."""
    return not math.isfinite(best.cost) or (
        gated(best, t.options, t._hooks.seat_rows) > t.options.max_cost and not _ends_in_deal(t.match, best))


def _ends_in_deal(match: Match, hyp: Explanation) -> bool:
    """Whether a deal is due after ``hyp``'s events (False when the rules refuse one)."""
    with applied(match, hyp.events) as legal:
        return legal and match.phase() == "deal"


def unexplained(t: Tracker, table: TableState, at: float, best: Explanation) -> Update:
    """Nothing explains ``table`` (seen at table time ``at``, s): wait ``desync_after_s``, then try
    a repair (once per stretch out of sync), else report the desync and start afresh from the
    committed game."""
    t._lead = None
    if t._unexplained_since is None:
        t._unexplained_since = at
    if at - t._unexplained_since < t.options.desync_after_s:
        return Update(state="waiting", best=best)
    if t._repair_armed:
        t._repair_armed = False
        repaired = repair(t, table, at)
        if repaired is not None:
            return repaired
    signature = table.signature()
    if signature not in t._resync_tried:
        t._resync_tried.add(signature)
        found = resync(t, table, at)
        if found is not None:
            return found
    diffs = tuple(t.expected().differences(table))
    text = f"Out of sync: {t.match.expecting()}; " + ("; ".join(diffs) if diffs else "the table looks different")
    t.desync = Desync(text, diffs, t._unexplained_since, tuple(t.expected().zone_differences(table)))
    # start afresh from the committed game: the table put back, or a correction, brings it back
    t._hyps = [Explanation((), math.inf, 0.0, (), t._shown)]
    t._signature = None
    return Update(state="out-of-sync", desync=t.desync)


def repair(t: Tracker, table: TableState, at: float) -> Update | None:
    """A committed card misread: the repair of one card of one of the round's last
    :data:`~scorer.tracker.options.REPAIR_EVENTS` committed events that lets legal events explain
    ``table`` again (module docstring), applied; a ``repair`` question when several do as well;
    None when none does."""
    opts = t.options
    match = t.match
    expected = t.expected()
    doubt: set[str] = set()
    for z in set(expected.zones) | set(table.zones):
        e, s = expected.zone(z).names(), table.zone(z).names()
        doubt.update((e - s) | (s - e))
    if not doubt:
        return None
    events = list(match.events)
    first = len(events)
    while first > 0 and len(events) - first < REPAIR_EVENTS and events[first - 1].TYPE != "deal":
        first -= 1
    # the round's deal too, however far back: a face-up card misread at the deal shows when it is taken
    deal = next((k for k in range(first - 1, -1, -1) if events[k].TYPE == "deal"), None)
    ids_by_name: dict[str, str] = {}
    for cid in sorted(deck_ids(match)):
        ids_by_name.setdefault(sight_name(cid), cid)
    scorer = Scorer(table, opts, t._noise)
    evidence = Evidence((), frozenset(), {})
    search = Search(match, opts, t._hooks, visible_names(table, {z: frozenset(n) for z, n in t._history.items()}))
    found: list[tuple[float, int, Event, Explanation]] = []
    deck = deck_ids(match)
    legal: list[tuple[float, float, int, Event]] = []
    for i in [*range(len(events) - 1, first - 1, -1), *([deal] if deal is not None else [])]:
        ev = events[i]
        then = _seen_then(t, i)
        before = _then_cost(t, then, len(events))
        for new in card_changes(ev, deck, doubt, ids_by_name):
            if _rewrite(match, len(events) - i, (new, *events[i + 1:])):
                worse = _then_cost(t, then, len(events)) - before
                legal.append((scorer.cost(predicted(match, t._shown)) + worse, worse, i, new))
                _rewrite(match, len(events) - i, tuple(events[i:]))
    legal.sort(key=lambda x: (x[0], -x[2]))
    for _quick, worse, i, new in legal[:REPAIR_SEARCHES]:
        tail = events[i + 1:]
        _rewrite(match, len(events) - i, (new, *tail))
        try:
            root = Explanation((), 0.0, 0.0, (), t._shown)
            ranked = sorted(search.extend(root, table, scorer, evidence), key=lambda e: e.cost)
            if ranked and gated(ranked[0], opts, t._hooks.seat_rows) <= opts.max_cost:
                found.append((ranked[0].cost + opts.miss_cost + worse, i, new, ranked[0]))
        finally:
            _rewrite(match, len(tail) + 1, tuple(events[i:]))
    if not found:
        return None
    found.sort(key=lambda x: x[0])
    cost, i, new, best = found[0]
    tail = tuple(events[i + 1:])
    close = [(c, k, n, b) for c, k, n, b in found if c - cost < opts.margin]
    t._unexplained_since = None
    t.desync = None
    t._signature = table.signature()
    if len(close) > 1:  # several repairs explain the table as well: the players say which
        t._hyps = [Explanation((), math.inf, 0.0, (), t._shown)]
        candidates = tuple(Explanation((n, *events[k + 1:], *b.events), c, retract=len(events) - k)
                           for c, k, n, b in close[:4])
        text = "Which card was it? " + " | ".join(f"({m + 1}) {e.describe()}" for m, e in enumerate(candidates))
        t.question = Question("repair", text, candidates, at)
        return Update(state="question", question=t.question)
    _rewrite(match, len(events) - i, (new, *tail))
    t._hyps = [best]
    return Update(committed=(new, *tail), retracted=len(events) - i, state="waiting", best=best)


def card_changes(ev: Event, deck: Counter[str], doubt: set[str], ids_by_name: dict[str, str]) -> Iterator[Event]:
    """``ev`` with one of its cards whose sight name is in ``doubt`` changed to a card of another
    sight name (one id per name): a field naming one card, or one card of a field naming several
    (a deal's face-up cards, a claim's hand)."""
    for f in fields(ev):
        value = getattr(ev, f.name)
        if isinstance(value, str):
            if value not in deck or sight_name(value) not in doubt:
                continue
            for name, cid in ids_by_name.items():
                if name != sight_name(value):
                    yield replace(ev, **{f.name: cid})
        elif isinstance(value, tuple) and value and all(isinstance(v, str) and v in deck for v in value):
            for k, old in enumerate(value):
                if sight_name(old) not in doubt or old in value[:k]:
                    continue
                for name, cid in ids_by_name.items():
                    if name != sight_name(old):
                        yield replace(ev, **{f.name: (*value[:k], cid, *value[k + 1:])})


def _seen_then(t: Tracker, index: int) -> tuple[int, Scorer] | None:
    """The first table seen when event ``index`` (0-based) was committed, with the event count
    then, as a scorer (None when not remembered)."""
    for count, table in t._commits_seen:
        if count > index:
            return count, Scorer(table, t.options)
    return None


def _then_cost(t: Tracker, then: tuple[int, Scorer] | None, now: int) -> float:
    """The fit of the match as it stood ``then`` (the event count of :func:`_seen_then`) to the
    table seen then; the match holds ``now`` events and is left so."""
    if then is None:
        return 0.0
    count, scorer = then
    undone = [t.match.undo() for _ in range(now - count)][::-1]
    try:
        return scorer.cost(predicted(t.match, t._shown))
    finally:
        for ev in undone:
            t.match.apply(ev)


def _rewrite(match: Match, back: int, events: Sequence[Event]) -> bool:
    """Take back the last ``back`` events of ``match`` and apply ``events``; False (the match as
    it was) when the rules refuse one."""
    undone = [match.undo() for _ in range(back)][::-1]
    if replay(match, events) is None:
        for old in undone:
            match.apply(old)
        return False
    return True


def resync(t: Tracker, table: TableState, at: float) -> Update | None:
    """Out of sync: the legal events that lead from the committed game, or from it with its last
    few events taken back (:data:`~scorer.tracker.options.RESYNC_BACK`, never past the round's
    deal), to ``table`` (seen at ``at``, s), found by the deep search of "the table is like this";
    each event taken back costs ``miss_cost``. The cheapest within ``max_cost`` is committed
    (``Update.source`` ``resync``: the record marks it) when no other lies within ``margin`` of it;
    several close become a ``which-event`` question whose candidates carry what they take back.
    None when nothing explains the table."""
    opts = t.options
    match = t.match
    events = list(match.events)
    deal = max((k for k, e in enumerate(events) if e.TYPE == "deal"), default=-1)
    scorer = Scorer(table, opts, t._noise)
    deep = replace(opts, depth=ASSERT_DEPTH, beam=ASSERT_BEAM)
    seen = visible_names(table, {z: frozenset(n) for z, n in t._history.items()})
    found: list[tuple[float, int, Explanation]] = []
    for back in RESYNC_BACK:
        if back and len(events) - back <= deal:
            break
        undone = [match.undo() for _ in range(back)][::-1]
        try:
            search = Search(match, deep if back == 0 else replace(opts, depth=min(ASSERT_DEPTH, back + opts.depth)),
                            t._hooks, seen)
            root = Explanation((), 0.0, 0.0, (), t._shown)
            for ext in search.extend(root, table, scorer, Evidence((), frozenset(), {})):
                if gated(ext, opts, t._hooks.seat_rows) <= opts.max_cost:
                    found.append((ext.cost + back * opts.miss_cost, back, ext))
        finally:
            for ev in undone:
                match.apply(ev)
        if found and min(c for c, _b, _e in found) < (back + 1) * opts.miss_cost:
            break  # taking back more can only cost more than what was found
    if not found:
        return None
    found.sort(key=lambda x: x[0])
    cost, back, best = found[0]
    close = [(c, b, e) for c, b, e in found if c - cost < opts.margin and (b, path_key(e.events)) != (back, path_key(best.events))]
    t._unexplained_since = None
    t.desync = None
    t._signature = table.signature()
    if close and not all(_same_after(t, back, best, b, e) for _c, b, e in close):
        t._hyps = [Explanation((), math.inf, 0.0, (), t._shown)]
        candidates = tuple(replace(e, retract=b) for _c, b, e in [(cost, back, best), *close][:4])
        text = "Which happened? " + " | ".join(f"({m + 1}) {e.describe()}" for m, e in enumerate(candidates))
        t.question = Question("which-event", text, candidates, at)
        return Update(state="question", question=t.question, source="resync")
    for _ in range(back):
        match.undo()
    t._hyps = [replace(best, retract=0)]
    committed = commit(t, best.events)
    note_commit(t, table)
    return Update(committed=committed, retracted=back, state="synced", best=t._hyps[0], source="resync")


def _same_after(t: Tracker, back_a: int, a: Explanation, back_b: int, b: Explanation) -> bool:
    """Whether two resync candidates leave the same game (events by sight) once applied."""
    events = list(t.match.events)
    return [event_key(e) for e in events[: len(events) - back_a]] + [event_key(e) for e in a.events] == \
        [event_key(e) for e in events[: len(events) - back_b]] + [event_key(e) for e in b.events]


def assert_table(t: Tracker, table: TableState, at: float) -> Update:
    """A player's word that ``table`` (seen at table time ``at``, s) is right: the legal events that
    turn the committed game's table into it (module docstring) are committed; when none explains
    it within ``max_cost`` it is a desync that says what differs; when several explain it as well,
    a ``which-event`` question. Hypotheses start afresh."""
    opts = t.options
    t._restart()
    t.last_table = table
    t._signature = table.signature()
    scorer = Scorer(table, opts, t._noise)
    search = Search(t.match, replace(opts, depth=ASSERT_DEPTH, beam=ASSERT_BEAM), t._hooks, visible_names(table, {}))
    root = Explanation((), 0.0, 0.0, (), t._shown)
    ranked = sorted(search.extend(root, table, scorer, Evidence((), frozenset(), {})), key=lambda e: e.cost)
    best = ranked[0] if ranked else None
    if best is None or gated(best, opts, t._hooks.seat_rows) > opts.max_cost:
        diffs = tuple(t.expected().differences(table))
        t._hyps = [Explanation((), math.inf, 0.0, (), t._shown)]
        t._signature = None
        t.desync = Desync("No legal events turn the game's table into this one: " + ("; ".join(diffs) or "?"),
                          diffs, at, tuple(t.expected().zone_differences(table)))
        return Update(state="out-of-sync", desync=t.desync)
    close = close_to(best, ranked, opts.margin)
    t._hyps = ranked[: opts.hypotheses]
    prefix = max(common_prefix([h.events for h in close]), same_outcome_prefix(t, best, close), key=len)
    if len(prefix) == len(best.events):
        committed = commit(t, prefix)
        note_commit(t, table)
        return Update(committed=committed, state="synced", best=t._hyps[0])
    committed = commit(t, prefix) if prefix else ()
    best = t._hyps[0]
    close = close_to(best, t._hyps, opts.margin)
    return replace(ambiguous(t, best, close, at, now=True), committed=committed)
