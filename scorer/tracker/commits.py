"""Commits and questions: which events of the hypotheses the tracker commits, when, and when it
asks the players instead.

Events of the *common prefix* of every hypothesis within ``margin`` of the best (the best with
events inserted aside: :func:`scorer.tracker.sequences.inserted`) are committed once that prefix
has led for ``hold_s`` seconds of table time (at once when nothing else is within twice the
margin). So an ambiguity that only a later move settles (a declaration with no trace, a pass
against a play with no arm seen) is carried along, not guessed. Close hypotheses whose events
differ only in what no player could tell apart (the order of one seat's play and draw between two
looks at the table, which copy of a plain) commit their *same-outcome prefix* without a question.
When the first events of close hypotheses differ for ``ask_after_s`` (``ask_traceless_after_s``
when they differ only in events that leave no trace) the players are asked (a ``which-event``
:class:`Question`). With ``confirm_stones`` an event that changes the totals or settles a round
waits for a player's word (a ``confirm`` question) and the events before it are committed.

A commit applies the events to the tracker's fork (stamped with the tracker's clock), keeps the
hypotheses that agree with them (less those events), remembers the table it was made on (what a
repair weighs: :mod:`scorer.tracker.repair`) and renews the seat-zone noise
(:mod:`scorer.tracker.fit`). When the source ends (:meth:`Tracker.finish`) nothing waits: what
leads is committed, an ambiguity is asked now, and a round that may have ended by events that
leave no trace becomes an ``unseen`` question.

The functions act on a :class:`~scorer.tracker.tracker.Tracker`'s state.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match, NotEnumerableError
from scorer.table import TableState
from scorer.tracker.fit import add_shown, predicted, seat_noise
from scorer.tracker.options import REPAIR_EVENTS
from scorer.tracker.sequences import applied, common_prefix, event_key, inserted, path_key, who
from scorer.tracker.values import Explanation, Question, Update

if TYPE_CHECKING:
    from scorer.tracker.tracker import Tracker


def decide(t: Tracker, table: TableState, at: float, best: Explanation) -> Update:
    """With ``best`` (the tracker's best hypothesis) explaining ``table``, seen at table time ``at``
    (s): commit what has led long enough, wait, or ask (module docstring)."""
    opts = t.options
    close = close_to(best, t._hyps, opts.margin)
    prefix = common_prefix([h.events for h in close])
    if not best.events:
        t._ambiguous_since = None
        t._lead = None
        hidden = hidden_cards(t, at)
        if hidden is not None:
            return replace(hidden, best=best)
        t.question = None
        return Update(state="synced", best=best)
    if not prefix:
        prefix = same_outcome_prefix(t, best, close)
        if not prefix:
            return ambiguous(t, best, close, at)
    t._ambiguous_since = None
    t.question = None
    key = path_key(prefix)
    if t._lead is None or key[: len(t._lead)] != t._lead:
        t._lead, t._lead_since = key, at
    rivals = [h for h in t._hyps if not inserted(h, best) and path_key(h.events[: len(prefix)]) != key]
    lead = (rivals[0].cost - best.cost) if rivals else math.inf
    if lead < 2 * opts.margin:
        if at - t._lead_since < opts.hold_s:
            return Update(state="waiting", best=best)
        # the events that have led for hold_s; those appended since wait their turn
        prefix = prefix[: len(t._lead)]
    if opts.confirm_stones:
        k = first_stone_event(t.match, prefix)
        if k == 0:
            return Update(state="question", question=confirm(t, prefix[0], best.cost, at), best=best)
        if k is not None:
            prefix = prefix[:k]
    committed = commit(t, prefix)
    note_commit(t, table)
    if len(key) > len(prefix):
        t._lead, t._lead_since = key[len(prefix):], at
    update_noise(t, table)
    return Update(committed=committed, state="synced" if len(prefix) == len(best.events) else "waiting",
                  best=t._hyps[0])


UNSEEN_ENDINGS = 8
"""At most this many traceless endings are offered at an ``unseen`` question (a page shows the
first few and "something else")."""


def finish(t: Tracker, at: float) -> Update:
    """The source ended at table time ``at`` (s) with the best hypothesis explaining the table:
    what it leads with is committed without waiting for ``hold_s``, an ambiguity between close
    hypotheses becomes a ``which-event`` question now, and when the round may have ended by events
    that leave no trace an ``unseen`` question asks whether it did: its candidates are that nothing
    more happened and the shortest traceless sequences that settle the round; the first is that
    nothing happened, unless one sequence alone can settle it (Poka's "no starting hand" after a
    hand was shown): a recording of a round ends with the round, so that one comes first."""
    opts = t.options
    best = t._hyps[0]
    committed: tuple[Event, ...] = ()
    if best.events:
        close = close_to(best, t._hyps, opts.margin)
        prefix = max(common_prefix([h.events for h in close]), same_outcome_prefix(t, best, close), key=len)
        stone = first_stone_event(t.match, prefix) if opts.confirm_stones else None
        if stone is not None:
            committed = commit(t, prefix[:stone]) if stone else ()
            return Update(committed=committed, state="question", question=confirm(t, prefix[stone], best.cost, at))
        if prefix:
            committed = commit(t, prefix)
            if t.last_table is not None:
                note_commit(t, t.last_table)
        best = t._hyps[0]
        if best.events:
            close = close_to(best, t._hyps, opts.margin)
            update = ambiguous(t, best, close, at, now=True)
            return replace(update, committed=committed)
    hidden = hidden_cards(t, at, now=True)
    if hidden is not None:
        return replace(hidden, committed=committed)
    if t._unseen_asked == t.match.event_count:  # asked at this point and answered "nothing happened"
        return Update(committed=committed, state="synced", best=t._hyps[0])
    endings = _unseen_endings(t)
    if endings:
        t._unseen_asked = t.match.event_count
        stay = Explanation((), 0.0, 0.0, (), t._shown)
        ends = tuple(Explanation(path, 0.0, 0.0, (), t._shown) for path in endings[:UNSEEN_ENDINGS])
        # one traceless way alone to end the round (Poka's "no starting hand" after a hand shown):
        # the likeliest, as a recording of a round ends with it; several: nothing is assumed
        candidates = (*ends, stay) if len(endings) == 1 else (stay, *ends)
        text = (f"The source ended while {t.match.expecting()}. Did the round end by what the "
                "camera cannot see? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(candidates)))
        t.question = Question("unseen", text, candidates, at)
        return Update(committed=committed, state="question", question=t.question)
    return Update(committed=committed, state="synced", best=t._hyps[0])


def hidden_cards(t: Tracker, at: float, now: bool = False) -> Update | None:
    """A hand laid face up whose cards the camera did not all see (the game's
    :meth:`~scorer.tracker.hooks.GameHooks.partly_shown`), in sync and with nothing pending: after
    ``ask_after_s`` (``now``: at once) a ``hidden-card`` question whose candidates are the ways to
    name the cards not seen (:meth:`~scorer.tracker.hooks.GameHooks.completing_shows`), for the
    first such seat; None while there is none or it waits."""
    seats = t._hooks.partly_shown(t.match)
    if not seats:
        t._hidden_since = None
        return None
    if t.question is not None and t.question.kind == "hidden-card":
        return Update(state="question", question=t.question)
    if t._hidden_since is None:
        t._hidden_since = at
    if not now and at - t._hidden_since < t.options.ask_after_s:
        return None
    shows = t._hooks.completing_shows(t.match, seats[0])
    if not shows:
        return None
    candidates = tuple(Explanation((ev,), 0.0, 0.0, (), t._shown) for ev in shows)
    text = (f"Seat {seats[0]} laid down a hand of which the camera did not see every card: which "
            "cards are they? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(candidates[:4])))
    t.question = Question("hidden-card", text, candidates, t._hidden_since)
    return Update(state="question", question=t.question)


def commit(t: Tracker, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """Apply ``events`` to the tracker's fork (each stamped with the clock's time when it has no
    ``at``); the hypotheses that begin with them go on without them. Returns the events applied."""
    k = path_key(events)
    keep = [h for h in t._hyps if path_key(h.events[: len(events)]) == k]
    if t.clock is not None:
        now = round(t.clock(), 1)
        events = tuple(ev if ev.at is not None else replace(ev, at=now) for ev in events)
    for ev in events:
        t.match.apply(ev)
        shown = t._hooks.shown_zone(t.match, ev)
        if shown is not None:
            t._shown = add_shown(t._shown, shown, predicted(t.match, ()))
    n = len(events)
    t._hyps = [replace(h, events=h.events[n:], cost=h.cost - sum(h.costs[:n]), prior=h.prior - sum(h.costs[:n]),
                       costs=h.costs[n:]) for h in keep] or [Explanation((), 0.0, 0.0, (), t._shown)]
    t._lead = None
    t.question = None
    t._ambiguous_since = None
    return events


def note_commit(t: Tracker, table: TableState) -> None:
    """Remember the table that events up to the match's event count now were committed on."""
    t._commits_seen.append((t.match.event_count, table))
    del t._commits_seen[: -2 * REPAIR_EVENTS]


def update_noise(t: Tracker, table: TableState) -> None:
    """After a commit: the seat zones' mismatches between the committed game and ``table``
    become the zones' noise, in the seat zones that the events still pending leave alone (a
    zone they change keeps its earlier noise)."""
    committed = predicted(t.match, t._shown)
    best = t._hyps[0]
    with applied(t.match, best.events) as legal:
        if not legal:
            return
        pending = predicted(t.match, best.shown)
    fresh = seat_noise(TableState.from_counts(committed), table)
    for z in {z for z in set(committed) | set(pending) | set(table.zones) if z.startswith("seat:")}:
        if committed.get(z) != pending.get(z):
            continue
        if z in fresh:
            t._noise[z] = fresh[z]
        else:
            t._noise.pop(z, None)


def close_to(best: Explanation, hyps: list[Explanation] | tuple[Explanation, ...],
             margin: float) -> list[Explanation]:
    """The hypotheses within ``margin`` of ``best`` that are not ``best`` with events inserted."""
    return [h for h in hyps if h.cost - best.cost < margin and not inserted(h, best)]


def same_outcome_prefix(t: Tracker, best: Explanation, close: list[Explanation]) -> tuple[Event, ...]:
    """The longest start of ``best`` that every close rival reaches too, by some start of its own
    events, with the same outcome (:func:`_outcomes`): rivals that differ only in what no player
    could tell apart (the order of one seat's play and draw between two looks at the table, which
    copy of a plain) need no question. Empty when there is none. The last answer is remembered."""
    key = tuple(path_key(h.events) for h in close)
    if t._equivalent is not None and t._equivalent[0] == key:
        return t._equivalent[1]
    mine = _outcomes(t, best.events)
    theirs = [set(_outcomes(t, h.events)) for h in close if h is not best]
    found: tuple[Event, ...] = ()
    for k in range(len(mine), 0, -1):
        if mine[k - 1] is not None and all(mine[k - 1] in th for th in theirs):
            found = best.events[:k]
            break
    t._equivalent = (key, found)
    return found


def _outcomes(t: Tracker, events: tuple[Event, ...]) -> list[tuple | None]:
    """After each start of ``events`` (1, 2, … events): what players could ever tell apart: the
    expected table (shown hands included), the totals, the rounds settled, what the match
    expects next and who did what (the events without their cards, in any order); None after
    an event the rules refuse."""
    match = t.match
    out: list[tuple | None] = []
    shown = t._shown
    n_applied = 0
    try:
        for ev in events:
            try:
                match.apply(ev)
            except ScorerError:
                break
            n_applied += 1
            hook = t._hooks.shown_zone(match, ev)
            if hook is not None:
                shown = add_shown(shown, hook, predicted(match, ()))
            st = match.status()
            # who did what, cards aside: a seat that retired and one that plays may be expected
            # to act alike for a while, yet are no same outcome
            did = tuple(sorted(map(who, events[:n_applied]), key=repr))
            out.append((TableState.from_counts(predicted(match, shown)).signature(), st.totals,
                        st.rounds_settled, st.over, st.expects, did))
    finally:
        for _ in range(n_applied):
            match.undo()
    return out + [None] * (len(events) - len(out))


def first_stone_event(match: Match, events: tuple[Event, ...]) -> int | None:
    """The index of the first of ``events`` that changes the totals or settles a round (None: none
    does, or the rules refuse one); ``match`` is left as it was."""
    before = match.status()
    n_applied = 0
    try:
        for k, ev in enumerate(events):
            match.apply(ev)
            n_applied += 1
            now = match.status()
            if now.totals != before.totals or now.rounds_settled != before.rounds_settled or now.over:
                return k
    except ScorerError:
        return None
    finally:
        for _ in range(n_applied):
            match.undo()
    return None


def confirm(t: Tracker, event: Event, cost: float, at: float) -> Question:
    """A ``confirm`` question for ``event`` (one that changes stones), now open."""
    text = f"Confirm: {event.describe()}? (1) yes; otherwise correct it"
    t.question = Question("confirm", text, (Explanation((event,), cost),), at)
    return t.question


def ambiguous(t: Tracker, best: Explanation, close: list[Explanation], at: float, now: bool = False) -> Update:
    """Close hypotheses that differ from their first event: wait (``ask_after_s``, or
    ``ask_traceless_after_s`` when they differ only in traceless events; ``now``: not at all), then
    a ``which-event`` question with up to four of them."""
    t._lead = None
    if t._ambiguous_since is None:
        t._ambiguous_since = at
    wait = t.options.ask_after_s
    if now:
        wait = 0.0
    elif _only_traceless_differ(t, close):
        wait = t.options.ask_traceless_after_s
    if at - t._ambiguous_since >= wait:
        text = "Which happened? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(close[:4]))
        t.question = Question("which-event", text, tuple(close[:4]), t._ambiguous_since)
        return Update(state="question", question=t.question, best=best)
    return Update(state="waiting", best=best)


def _only_traceless_differ(t: Tracker, close: list[Explanation]) -> bool:
    """Whether the close hypotheses differ only in events that change nothing on the table (a
    declaration): the same table changes in the same order (some perhaps fewer of them: the next
    table tells), and none of them ends a round."""
    match = t.match
    seen: set[tuple] = set()
    settled = match.status().rounds_settled
    for h in close:
        changes: list[tuple] = []
        n_applied = 0
        try:
            before = predicted(match, t._shown)
            for ev in h.events:
                match.apply(ev)
                n_applied += 1
                after = predicted(match, t._shown)
                if after != before:
                    changes.append(event_key(ev))
                before = after
            if match.is_over or match.status().rounds_settled != settled:
                return False  # a round ends: no later play will tell
        except ScorerError:
            return False
        finally:
            for _ in range(n_applied):
                match.undo()
        seen.add(tuple(changes))
    longest = max(seen, key=len, default=())
    return all(longest[: len(c)] == c for c in seen)


def _unseen_endings(t: Tracker) -> list[tuple[Event, ...]]:
    """The shortest sequences of up to ``silent_depth`` legal events that change nothing on the
    table and settle the round (or end the match), fewest first."""
    match = t.match
    settled = match.status().rounds_settled
    before = predicted(match, t._shown)
    out: list[tuple[Event, ...]] = []
    frontier: list[tuple[Event, ...]] = [()]
    for _ in range(t.options.silent_depth):
        grown: list[tuple[Event, ...]] = []
        for path in frontier:
            with applied(match, path) as legal:
                if not legal or match.is_over:
                    continue
                try:
                    events = match.legal_events()
                except NotEnumerableError:
                    continue
                for ev in events:
                    try:
                        match.apply(ev)
                    except ScorerError:
                        continue
                    try:
                        if predicted(match, t._shown) != before:
                            continue
                        if match.is_over or match.status().rounds_settled > settled:
                            out.append(path + (ev,))
                        else:
                            grown.append(path + (ev,))
                    finally:
                        match.undo()
        if out:
            return out
        frontier = grown[:64]
    return out
