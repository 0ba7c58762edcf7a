"""The tracker: settled table states from a camera → the game's events (design/TRACKING.md).

``Tracker(match).update(table, at)`` compares what the camera sees (a :class:`~scorer.table.TableState`
whose cards carry probabilities over their names) with what the match expects, and explains each
change by the legal events, or short sequences of them, that turn the expected table into the one
seen. It never commits on a label: it scores explanations by the recogniser's probabilities.

Hypotheses: the tracker keeps up to ``hypotheses`` explanations of everything seen since the last
committed event (each a sequence of events not yet committed). When the seen table changes, every
hypothesis is extended by a search over legal events from where it ends (up to ``depth`` events,
``beam`` partial sequences per step), itself included unchanged; the cheapest are kept. Events of
the *common prefix* of every hypothesis within ``margin`` of the best are committed once that
prefix has led for ``hold_s`` seconds of table time (at once when nothing else is within twice the
margin). So an ambiguity that only a later move settles (a declaration with no trace, a pass
against a play with no arm seen) is carried along, not guessed. When the first events of close
hypotheses differ for ``ask_after_s`` the players are asked (:class:`Question`). When even the best
hypothesis fits the latest table worse than ``max_cost`` for ``desync_after_s`` (in Hachi-hachi
its seat zones counting at most ``max_cost``: what capture rows show alone never makes a desync), the
tracker is *out of sync*
(:class:`Desync`, the differences in words) until the table and the game agree again or a
correction arrives.

Cost (natural-log units): for every zone the expected face-up names are paired with the seen cards
(greedily, most probable pairs first, a pair only where it costs less than leaving both unpaired);
a pair costs ``−ln p`` of the expected name; an expected card not seen costs ``miss_cost``, or
``seat_miss_cost`` in a seat zone where it may lie under other cards (it was there before the
change, or the event moved it there from another zone: a captured field card lies under the card
that captured it, which must show); a seen card not expected costs ``extra_cost`` times its most
likely name's probability (a reading the recogniser cannot name is more likely a sliver or a second
outline than a card of its own); each face-down card or stack of difference ``down_cost`` (between
rounds, cards gathered cost nothing); a seat zone's sum is weighted by ``seat_zone_weight``.
*Seat-zone noise:* after a commit, what a seat zone shows that the committed game does not expect,
and the reverse, costs nothing in that zone from then on (a misread sliver of an old capture stays
misread for the rest of the round), unless events still pending change that zone. Every event adds
``event_cost``; one that changes nothing on the table (a pass, a declaration, a call) adds ``silent_cost``, or ``silent_seen_cost`` when that seat's arm
was seen over the table without changing it (a pass gesture); an event by a seat whose arm was not
seen since the table last changed adds ``actor_cost`` when arms were seen (a deal: its dealer's
arm must be the first seen; an event without a seat, such as Poka's table card, is the dealer's),
and so does an event that takes a card from the stock when arms were seen but no hand went to the
stock (``TableState.reached``); in Poka a hand at the stock that no event took from costs half
that; a deal after events that end the round before it in the same change costs as much again
(the table is seen while its cards are gathered). A pile top that a hypothesis lays and then covers costs ``miss_cost`` unless the camera saw it
(``TableState.history``). A hypothesis's cost is the sum of its events' costs, its fit to the
latest table and its fits to the earlier tables since the last commit (each capped at a miss plus a
phantom), so an explanation that skipped a table it saw stays behind the one that followed it.

*Repairs.* A card misread when its event was committed shows later: the game expects a card where
the table has another. Before reporting a desync the tracker tries, once per stretch out of sync
(its search is costly), every change of
one card id (to a card of another sight name) in one of the round's last :data:`REPAIR_EVENTS`
committed events whose card's sight name is among the differences; the repaired history must be
legal. A repair costs how much worse the repaired game fits the table the repaired event was
committed on (the camera's second choice for a card costs little there) plus ``miss_cost``. From
the :data:`REPAIR_SEARCHES` repairs whose repaired game alone fits the table now best (that cost
included; ties: the later event), a search must explain the table within ``max_cost``. The
cheapest repair (with the search's cost) is applied when no other lies within ``margin`` of it: the update retracts
the events from the repaired one on (:attr:`Update.retracted`) and commits the repaired event and
the ones after it again; several close repairs become a ``repair`` question whose candidates carry
the retraction (:attr:`Explanation.retract`).

Events without a trace (Hachi-hachi's declarations and calls, Poka's passes and no-claims, Bagaji's
draws) are inferred where the rules leave one explanation; a deal is built from the table
(observer form: hands and stock as counts, the face-up cards as seen); shown hands (claims,
buy-outs, Bagaji's showdown) are built from the cards that appear in a seat zone, and stay part of
the expected table until they are picked up again.

The tracker works on its own fork of the match (:meth:`scorer.match.Match.fork`): its search
applies and takes back events there, never on the caller's match. What it commits is in each
:class:`Update` (``retracted``, then ``committed``) and in what :meth:`Tracker.choose` returns: the
caller applies those to its own match (a session does so under its lock). Corrections
(:meth:`Tracker.undo`, :meth:`Tracker.apply`, :meth:`Tracker.choose`) act on the tracker's fork at
once and start the hypotheses afresh; :meth:`Tracker.resync` takes a fresh fork of the caller's
match after a player changed it. Pure Python: no vision, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import Any

from scorer.deals import observer_deal
from scorer.errors import IllegalEventError, ScorerError
from scorer.events import Event
from scorer.match import Match, NotEnumerableError
from scorer.table import (
    TableState,
    expected_names,
    expected_table,
    sight_name,
)

# A predicted table: zone -> (face-up names, face-down count).
Predicted = dict[str, tuple[Counter[str], int]]
# Cards laid face up by a show event that the engine no longer places on the table: (zone, names).
Shown = tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
Under = dict[str, Counter[str]]
"""Per seat zone, the expected names that may lie under other cards there."""


@dataclass(frozen=True, slots=True)
class TrackerOptions:
    """How the tracker weighs evidence and when it commits, asks or reports a desync."""

    depth: int = 4
    """Most events that change the table one table change may add to a hypothesis."""
    silent_depth: int = 6
    """Most silent events (declarations, passes, calls) one table change may add."""
    beam: int = 16
    """Partial sequences kept at each step of the search."""
    hypotheses: int = 12
    """Hypotheses kept between table changes."""
    extend_within: float = 6.0
    """Only hypotheses within this cost of the best are extended at a table change."""
    margin: float = 2.0
    """Cost lead (ln units) the best hypothesis needs over any rival that commits other events."""
    max_cost: float = 7.0
    """Highest cost the best hypothesis may have while the tracker is in sync."""
    hold_s: float = 0.3
    """Seconds the events to commit must lead before they are committed (unless the lead is twice
    :attr:`margin`)."""
    ask_after_s: float = 4.0
    """Seconds an ambiguity may last before the players are asked."""
    ask_traceless_after_s: float = 20.0
    """Seconds an ambiguity may last before the players are asked when the rivals differ only in
    events that leave no trace (who declared play or retire): the order of play settles it soon."""
    desync_after_s: float = 1.0
    """Seconds a table nothing explains must last before the tracker reports it is out of sync."""
    miss_cost: float = 3.5
    seat_miss_cost: float = 1.5
    """Cost of an expected card not seen in a seat zone: capture rows and melds overlap, and a card
    under later cards may show too little to be found."""
    extra_cost: float = 3.5
    down_cost: float = 1.5
    seat_zone_weight: float = 1.0
    """Weight of a seat zone's fit against the field and the piles (captures and melds lie in
    overlapping rows where a camera sees slivers of most cards; docs/decisions.md)."""
    event_cost: float = 0.25
    silent_cost: float = 1.5
    silent_seen_cost: float = 0.25
    """Cost of a silent event by a seat whose arm was seen over the table without changing it."""
    actor_cost: float = 4.0
    confirm_stones: bool = True
    """Events that change the totals or settle a round wait for a player's confirmation (a
    ``confirm`` question, answered by :meth:`Tracker.choose`) before they are committed; False
    where nobody can answer (an offline replay)."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """A sequence of events not yet committed and what it costs (events plus fit to the table)."""

    events: tuple[Event, ...]
    cost: float
    """Total (ln units, lower is better)."""
    prior: float = 0.0
    """The events' own costs (without the fit)."""
    costs: tuple[float, ...] = ()
    """Each event's own cost (their sum is :attr:`prior`)."""
    shown: Shown = ()
    """Shown hands still lying after these events."""
    debt: float = 0.0
    """How badly this explanation fitted the earlier tables since the last commit (each capped at
    a miss plus a phantom): a hypothesis that explained a table it saw poorly stays behind."""
    seat_fit: float = 0.0
    """The part of the fit to the latest table from seat zones."""
    retract: int = 0
    """Committed events to take back before these events (a repair's candidate: its events then
    start with the repaired event and the committed ones after it)."""

    @property
    def fit(self) -> float:
        """Fit to the latest table alone."""
        return self.cost - self.prior - self.debt

    def describe(self) -> str:
        """The events in words."""
        text = "; ".join(e.describe() for e in self.events) or "nothing happened"
        return f"take back the last {self.retract} events, then: {text}" if self.retract else text


@dataclass(frozen=True, slots=True)
class Question:
    """An ambiguity the players must settle."""

    kind: str
    """``which-event`` (several explanations stay close), ``repair`` (several repairs of a
    committed card explain the table as well; module docstring, "Repairs") or ``unseen`` (the
    source ended where the round may have ended by events that leave no trace:
    :meth:`Tracker.finish`) or ``confirm`` (an event that changes stones, waiting for a
    player's word: :attr:`TrackerOptions.confirm_stones`)."""
    text: str
    candidates: tuple[Explanation, ...]
    """The choices, most likely first."""
    since: float
    """Table time (s) since which the ambiguity has lasted."""


@dataclass(frozen=True, slots=True)
class Desync:
    """The table and the game disagree and no legal event explains it."""

    text: str
    """What the game expects and what the camera sees, for players."""
    differences: tuple[str, ...]
    since: float


@dataclass(frozen=True, slots=True)
class Update:
    """What one :meth:`Tracker.update` did."""

    committed: tuple[Event, ...] = ()
    """Events applied to the match by this update, in order (after the retracted ones were taken back)."""
    retracted: int = 0
    """Committed events this update took back first, the last ones (a repair: a record appends
    ``{"type": "undo", "count": retracted}`` before :attr:`committed`)."""
    state: str = "synced"
    """``synced``, ``waiting`` (events are being held or weighed), ``question`` or ``out-of-sync``."""
    question: Question | None = None
    desync: Desync | None = None
    best: Explanation | None = None
    """The leading hypothesis (its events not yet committed)."""


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What was seen since the table last changed."""

    actors: tuple[int, ...]
    idle: frozenset[int]
    history: dict[str, frozenset[str]]
    reached: frozenset[str] = frozenset()


REPAIR_EVENTS = 8
"""How many of the round's last committed events a repair may change (module docstring, "Repairs")."""
ASSERT_DEPTH = 8
"""Most events that change the table :meth:`Tracker.assert_table` looks for."""
ASSERT_BEAM = 32
"""Partial sequences :meth:`Tracker.assert_table` keeps at each step."""
REPAIR_SEARCHES = 8
"""How many repairs are searched from: those whose repaired game alone fits the table best."""


class Tracker:
    """Follows one match from settled table states."""

    def __init__(self, match: Match, options: TrackerOptions | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.match = match.fork()
        """The tracker's own fork of the match (module docstring): the committed game as it follows it."""
        self.options = options or TrackerOptions()
        self.clock = clock
        """The match's time now, in seconds since it started, stamped as the ``at`` of each event
        the tracker commits (what drives Bagaji's session clock, rules B13); None: no ``at``."""
        self._hooks = GAME_HOOKS.get(match.GAME, GameHooks())
        self._shown: Shown = ()
        self.question: Question | None = None
        self.desync: Desync | None = None
        self.last_table: TableState | None = None
        self._hyps: list[Explanation] = [Explanation((), 0.0)]
        self._signature: tuple | None = None
        self._actors: list[int] = []
        self._idle: set[int] = set()
        self._history: dict[str, list[str]] = {}
        self._reached: set[str] = set()
        self._lead: tuple | None = None
        self._equivalent: tuple[tuple, tuple[Event, ...]] | None = None
        self._repair_armed = True
        """Whether a repair may be tried: once per stretch out of sync."""
        self._visible: frozenset[str] = frozenset()
        """Every sight name the table being explained shows (any of a card's names) or a pile
        showed meanwhile (:meth:`GameHooks.plausible`)."""
        self._commits_seen: list[tuple[int, TableState]] = []
        """(event count after a commit, the table it was committed on), the last ones."""
        self._noise: dict[str, tuple[Counter[str], Counter[str]]] = {}
        """Per seat zone, the names seen there but not expected and those expected but not seen
        just after the last commit that left nothing pending (:func:`_seat_noise`)."""
        """The close hypotheses last compared by :meth:`_same_outcome_prefix`, and its answer."""
        self._lead_since = 0.0
        self._ambiguous_since: float | None = None
        self._unexplained_since: float | None = None

    # ------------------------------------------------------------------ the expected table
    def expected(self) -> TableState:
        """The table the committed match implies now (shown hands still lying included)."""
        return TableState.from_counts(self._predicted(self._shown))

    def _predicted(self, shown: Shown) -> Predicted:
        out = expected_names(self.match.table_places(), self.match.table_sitout())
        if not shown:
            return out
        out = dict(out)
        for zone, names in shown:
            have, down = out.get(zone, (Counter(), 0))
            out[zone] = (have + Counter(dict(names)), down)
        return out

    @property
    def hypotheses(self) -> tuple[Explanation, ...]:
        """The explanations carried now, cheapest first."""
        return tuple(self._hyps)

    # ------------------------------------------------------------------ main entry
    def update(self, table: TableState, at: float) -> Update:
        """Take one settled table state seen at table time ``at`` (s); commit, wait, ask or report.

        ``table.actors`` are the seats whose arms were seen since the previous call and
        ``table.history`` the pile tops seen meanwhile; call on every settled frame, the same table
        again and again while nothing moves: time decides commits and questions."""
        self.last_table = table
        for seat in table.actors:
            if not self._actors or self._actors[-1] != seat:
                self._actors.append(seat)
        for z, names in table.history.items():
            seen = self._history.setdefault(z, [])
            seen.extend(n for n in names if n not in seen)
        self._reached.update(table.reached)
        if self.match.is_over:
            return Update(state="synced")
        signature = table.signature()
        if signature != self._signature:
            self._signature = signature
            evidence = _Evidence(tuple(self._actors), frozenset(self._idle),
                                 {z: frozenset(n) for z, n in self._history.items()}, frozenset(self._reached))
            self._extend(table, evidence)
            self._actors, self._idle, self._history, self._reached = [], set(), {}, set()
        elif self._actors:
            # arms that came and went without changing the table: evidence of a silent event
            self._idle.update(self._actors)
            self._actors = []
            self._reached = set()
        return self._decide(table, at)

    def _extend(self, table: TableState, evidence: _Evidence) -> None:
        """Every hypothesis extended to explain ``table``; the cheapest kept."""
        scorer = _Scorer(table, self.options, self._noise)
        self._visible = _visible(table, evidence.history)
        found: dict[tuple, Explanation] = {}
        floor = self._hyps[0].cost if self._hyps else 0.0
        window = self.options.extend_within
        for hyp in self._hyps:
            if math.isfinite(floor) and hyp.cost - floor > window:
                break
            for ext in self._search(hyp, table, scorer, evidence):
                k = _key(ext.events)
                if k not in found or found[k].cost > ext.cost:
                    found[k] = ext
        ranked = _diverse(sorted(found.values(), key=lambda e: e.cost), self.options.hypotheses)
        if ranked:
            low = min(h.debt for h in ranked)
            ranked = [replace(h, cost=h.cost - low, debt=h.debt - low) for h in ranked]
        self._hyps = ranked or [Explanation((), math.inf)]

    def _decide(self, table: TableState, at: float) -> Update:
        opts = self.options
        if self.question is not None and self.question.kind in ("repair", "confirm"):
            return Update(state="question", question=self.question)
        best = self._hyps[0]
        # replaying the best hypothesis to see whether a deal is due costs; only a poor fit needs it
        if not math.isfinite(best.cost) or (_gated(best, opts, self._hooks.seat_rows) > opts.max_cost and not self._ends_in_deal(best)):
            return self._unexplained(table, at, best)
        self._unexplained_since = None
        self.desync = None
        self._repair_armed = True
        close = self._close(best, self._hyps)
        prefix = _common_prefix([h.events for h in close])
        if not best.events:
            self._ambiguous_since = None
            self.question = None
            self._lead = None
            return Update(state="synced", best=best)
        if not prefix:
            prefix = self._same_outcome_prefix(best, close)
            if not prefix:
                return self._ambiguous(best, close, at)
        self._ambiguous_since = None
        self.question = None
        key = _key(prefix)
        if self._lead is None or key[: len(self._lead)] != self._lead:
            self._lead, self._lead_since = key, at
        rivals = [h for h in self._hyps if not _inserted(h, best) and _key(h.events[: len(prefix)]) != key]
        lead = (rivals[0].cost - best.cost) if rivals else math.inf
        if lead < 2 * opts.margin:
            if at - self._lead_since < opts.hold_s:
                return Update(state="waiting", best=best)
            # the events that have led for hold_s; those appended since wait their turn
            prefix = prefix[: len(self._lead)]
        if opts.confirm_stones:
            k = self._first_stone_event(prefix)
            if k == 0:
                return Update(state="question", question=self._confirm(prefix[0], best.cost, at), best=best)
            if k is not None:
                prefix = prefix[:k]
        committed = self._commit(prefix)
        self._note_commit(table)
        if len(key) > len(prefix):
            self._lead, self._lead_since = key[len(prefix):], at
        self._update_noise(table)
        return Update(committed=committed, state="synced" if len(prefix) == len(best.events) else "waiting",
                      best=self._hyps[0])

    def _update_noise(self, table: TableState) -> None:
        """After a commit: the seat zones' mismatches between the committed game and ``table``
        become the zones' noise, in the seat zones that the events still pending leave alone (a
        zone they change keeps its earlier noise)."""
        committed = self._predicted(self._shown)
        best = self._hyps[0]
        with self._applied(best.events) as legal:
            if not legal:
                return
            pending = self._predicted(best.shown)
        fresh = _seat_noise(TableState.from_counts(committed), table)
        for z in {z for z in set(committed) | set(pending) | set(table.zones) if z.startswith("seat:")}:
            if committed.get(z) != pending.get(z):
                continue
            if z in fresh:
                self._noise[z] = fresh[z]
            else:
                self._noise.pop(z, None)

    def _repair(self, table: TableState, at: float) -> Update | None:
        """A committed card misread: the repair of one card of one of the round's last
        :data:`REPAIR_EVENTS` committed events that lets legal events explain ``table`` again
        (module docstring, "Repairs"), applied; None when none does, or two different ones do."""
        opts = self.options
        expected = self.expected()
        doubt: set[str] = set()
        for z in set(expected.zones) | set(table.zones):
            e, s = expected.zone(z).names(), table.zone(z).names()
            doubt.update((e - s) | (s - e))
        if not doubt:
            return None
        events = list(self.match.events)
        first = len(events)
        while first > 0 and len(events) - first < REPAIR_EVENTS and events[first - 1].TYPE != "deal":
            first -= 1
        ids_by_name: dict[str, str] = {}
        for cid in sorted(_deck_ids(self.match)):
            ids_by_name.setdefault(sight_name(cid), cid)
        scorer = _Scorer(table, opts, self._noise)
        evidence = _Evidence((), frozenset(), {})
        self._visible = _visible(table, {z: frozenset(n) for z, n in self._history.items()})
        found: list[tuple[float, int, Event, Explanation]] = []
        deck = _deck_ids(self.match)
        legal: list[tuple[float, int, Event]] = []
        for i in range(len(events) - 1, first - 1, -1):
            ev = events[i]
            then = self._seen_then(i)
            before = self._then_cost(then, len(events))
            for f in fields(ev):
                value = getattr(ev, f.name)
                if not isinstance(value, str) or value not in deck or sight_name(value) not in doubt:
                    continue
                for name, cid in ids_by_name.items():
                    if name == sight_name(value):
                        continue
                    new = replace(ev, **{f.name: cid})
                    if self._rewrite(len(events) - i, (new, *events[i + 1:])):
                        worse = self._then_cost(then, len(events)) - before
                        legal.append((scorer.cost(self._predicted(self._shown)) + worse, worse, i, new))
                        self._rewrite(len(events) - i, tuple(events[i:]))
        legal.sort(key=lambda x: (x[0], -x[2]))
        for _quick, worse, i, new in legal[:REPAIR_SEARCHES]:
            tail = events[i + 1:]
            self._rewrite(len(events) - i, (new, *tail))
            try:
                root = Explanation((), 0.0, 0.0, (), self._shown)
                ranked = sorted(self._search(root, table, scorer, evidence), key=lambda e: e.cost)
                if ranked and _gated(ranked[0], opts, self._hooks.seat_rows) <= opts.max_cost:
                    found.append((ranked[0].cost + opts.miss_cost + worse, i, new, ranked[0]))
            finally:
                self._rewrite(len(tail) + 1, tuple(events[i:]))
        if not found:
            return None
        found.sort(key=lambda x: x[0])
        cost, i, new, best = found[0]
        tail = tuple(events[i + 1:])
        close = [(c, k, n, b) for c, k, n, b in found if c - cost < opts.margin]
        self._unexplained_since = None
        self.desync = None
        self._signature = table.signature()
        if len(close) > 1:  # several repairs explain the table as well: the players say which
            self._hyps = [Explanation((), math.inf, 0.0, (), self._shown)]
            candidates = tuple(Explanation((n, *events[k + 1:], *b.events), c, retract=len(events) - k)
                               for c, k, n, b in close[:4])
            text = "Which card was it? " + " | ".join(f"({m + 1}) {e.describe()}" for m, e in enumerate(candidates))
            self.question = Question("repair", text, candidates, at)
            return Update(state="question", question=self.question)
        self._rewrite(len(events) - i, (new, *tail))
        self._hyps = [best]
        return Update(committed=(new, *tail), retracted=len(events) - i, state="waiting", best=best)

    def _note_commit(self, table: TableState) -> None:
        """Remember the table that events up to the match's event count now were committed on."""
        self._commits_seen.append((self.match.event_count, table))
        del self._commits_seen[: -2 * REPAIR_EVENTS]

    def _seen_then(self, index: int) -> tuple[int, _Scorer] | None:
        """The first table seen when event ``index`` (0-based) was committed, with the event count
        then, as a scorer (None when not remembered)."""
        for count, table in self._commits_seen:
            if count > index:
                return count, _Scorer(table, self.options)
        return None

    def _then_cost(self, then: tuple[int, _Scorer] | None, now: int) -> float:
        """The fit of the match as it stood ``then`` (the event count of :meth:`_seen_then`) to the
        table seen then; the match holds ``now`` events and is left so."""
        if then is None:
            return 0.0
        count, scorer = then
        undone = [self.match.undo() for _ in range(now - count)][::-1]
        try:
            return scorer.cost(self._predicted(self._shown))
        finally:
            for ev in undone:
                self.match.apply(ev)

    def _rewrite(self, back: int, events: Sequence[Event]) -> bool:
        """Take back the last ``back`` events and apply ``events``; False (the match as it was)
        when the rules refuse one."""
        undone = [self.match.undo() for _ in range(back)][::-1]
        applied = self._replay(events)
        if applied is None:
            for old in undone:
                self.match.apply(old)
            return False
        return True

    def _same_outcome_prefix(self, best: Explanation, close: list[Explanation]) -> tuple[Event, ...]:
        """The longest start of ``best`` that every close rival reaches too, by some start of its own
        events, with the same outcome (:meth:`_outcomes`): rivals that differ only in what no player
        could tell apart (the order of one seat's play and draw between two looks at the table, which
        copy of a plain) need no question. Empty when there is none."""
        key = tuple(_key(h.events) for h in close)
        if self._equivalent is not None and self._equivalent[0] == key:
            return self._equivalent[1]
        mine = self._outcomes(best.events)
        theirs = [set(self._outcomes(h.events)) for h in close if h is not best]
        found: tuple[Event, ...] = ()
        for k in range(len(mine), 0, -1):
            if mine[k - 1] is not None and all(mine[k - 1] in t for t in theirs):
                found = best.events[:k]
                break
        self._equivalent = (key, found)
        return found

    def _outcomes(self, events: tuple[Event, ...]) -> list[tuple | None]:
        """After each start of ``events`` (1, 2, … events): what players could ever tell apart: the
        expected table (shown hands included), the totals, the rounds settled, what the match
        expects next and who did what (the events without their cards, in any order); None after
        an event the rules refuse."""
        out: list[tuple | None] = []
        shown = self._shown
        applied = 0
        try:
            for ev in events:
                try:
                    self.match.apply(ev)
                except ScorerError:
                    break
                applied += 1
                hook = self._hooks.shown_zone(self.match, ev)
                if hook is not None:
                    shown = _add_shown(shown, hook, self._predicted(()))
                st = self.match.status()
                # who did what, cards aside: a seat that retired and one that plays may be expected
                # to act alike for a while, yet are no same outcome
                did = tuple(sorted(map(_who, events[:applied]), key=repr))
                out.append((TableState.from_counts(self._predicted(shown)).signature(), st.totals,
                            st.rounds_settled, st.over, st.expects, did))
        finally:
            for _ in range(applied):
                self.match.undo()
        return out + [None] * (len(events) - len(out))

    def _close(self, best: Explanation, hyps: Iterable[Explanation]) -> list[Explanation]:
        """The hypotheses within ``margin`` of ``best`` that are not ``best`` with events inserted."""
        return [h for h in hyps if h.cost - best.cost < self.options.margin and not _inserted(h, best)]

    def _confirm(self, event: Event, cost: float, at: float) -> Question:
        """A ``confirm`` question for ``event`` (one that changes stones), now open."""
        text = f"Confirm: {event.describe()}? (1) yes; otherwise correct it"
        self.question = Question("confirm", text, (Explanation((event,), cost),), at)
        return self.question

    def _first_stone_event(self, events: tuple[Event, ...]) -> int | None:
        """The index of the first of ``events`` that changes the totals or settles a round."""
        before = self.match.status()
        applied = 0
        try:
            for k, ev in enumerate(events):
                self.match.apply(ev)
                applied += 1
                now = self.match.status()
                if now.totals != before.totals or now.rounds_settled != before.rounds_settled or now.over:
                    return k
        except ScorerError:
            return None
        finally:
            for _ in range(applied):
                self.match.undo()
        return None

    def _ends_in_deal(self, hyp: Explanation) -> bool:
        with self._applied(hyp.events) as legal:
            return legal and self.match.phase() == "deal"

    # ------------------------------------------------------------------ the end of the source
    def finish(self, at: float) -> Update:
        """The source ended at table time ``at`` (s): no later table will settle what is open.

        Events the best hypothesis leads with are committed without waiting for ``hold_s``; an
        ambiguity between close hypotheses becomes a ``which-event`` question now; a table no legal
        event explains is reported out of sync. Then, when the round may have ended by events
        that leave no trace (Hachi-hachi: a round settled by declarations alone), an ``unseen``
        question asks whether it did: its first candidate is that nothing more happened, the others
        the shortest traceless sequences that settle the round."""
        if self.match.is_over:
            return Update(state="synced")
        if self.question is not None:
            return Update(state="question", question=self.question)
        opts = self.options
        best = self._hyps[0]
        committed: tuple[Event, ...] = ()
        if self.last_table is not None and (not math.isfinite(best.cost) or (
                _gated(best, opts, self._hooks.seat_rows) > opts.max_cost and not self._ends_in_deal(best))):
            self._unexplained_since = min(self._unexplained_since or at, at - opts.desync_after_s)
            self._repair_armed = self._repair_armed and math.isfinite(best.cost)
            return self._unexplained(self.last_table, at, best)
        if best.events:
            close = self._close(best, self._hyps)
            prefix = max(_common_prefix([h.events for h in close]), self._same_outcome_prefix(best, close), key=len)
            stone = self._first_stone_event(prefix) if opts.confirm_stones else None
            if stone is not None:
                committed = self._commit(prefix[:stone]) if stone else ()
                return Update(committed=committed, state="question", question=self._confirm(prefix[stone], best.cost, at))
            if prefix:
                committed = self._commit(prefix)
                if self.last_table is not None:
                    self._note_commit(self.last_table)
            best = self._hyps[0]
            if best.events:
                close = self._close(best, self._hyps)
                update = self._ambiguous(best, close, at, now=True)
                return replace(update, committed=committed)
        endings = self._unseen_endings()
        if endings:
            stay = Explanation((), 0.0, 0.0, (), self._shown)
            candidates = (stay, *(Explanation(path, 0.0, 0.0, (), self._shown) for path in endings[:3]))
            text = (f"The source ended while {self.match.expecting()}. Did the round end by what the "
                    "camera cannot see? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(candidates)))
            self.question = Question("unseen", text, candidates, at)
            return Update(committed=committed, state="question", question=self.question)
        return Update(committed=committed, state="synced", best=self._hyps[0])

    def _unseen_endings(self) -> list[tuple[Event, ...]]:
        """The shortest sequences of up to ``silent_depth`` legal events that change nothing on the
        table and settle the round (or end the match), fewest first."""
        settled = self.match.status().rounds_settled
        before = self._predicted(self._shown)
        out: list[tuple[Event, ...]] = []
        frontier: list[tuple[Event, ...]] = [()]
        for _ in range(self.options.silent_depth):
            grown: list[tuple[Event, ...]] = []
            for path in frontier:
                with self._applied(path) as legal:
                    if not legal or self.match.is_over:
                        continue
                    try:
                        events = self.match.legal_events()
                    except NotEnumerableError:
                        continue
                    for ev in events:
                        try:
                            self.match.apply(ev)
                        except ScorerError:
                            continue
                        try:
                            if self._predicted(self._shown) != before:
                                continue
                            if self.match.is_over or self.match.status().rounds_settled > settled:
                                out.append(path + (ev,))
                            else:
                                grown.append(path + (ev,))
                        finally:
                            self.match.undo()
            if out:
                return out
            frontier = grown[:64]
        return out

    # ------------------------------------------------------------------ corrections
    def assert_table(self, table: TableState, at: float) -> Update:
        """A player's word that ``table`` (what the camera sees now) is right: "the table is like
        this". The legal events that turn the committed game's table into it, found by a deeper
        search than a table change gets (up to :data:`ASSERT_DEPTH` events that change the table),
        are committed; when none explains it within ``max_cost`` it is a desync that says what
        differs; when several explain it as well, a ``which-event`` question. Hypotheses start afresh."""
        opts = self.options
        self._restart()
        self.last_table = table
        self._signature = table.signature()
        self._visible = _visible(table, {})
        scorer = _Scorer(table, opts, self._noise)
        self.options = replace(opts, depth=ASSERT_DEPTH, beam=ASSERT_BEAM)
        try:
            root = Explanation((), 0.0, 0.0, (), self._shown)
            ranked = sorted(self._search(root, table, scorer, _Evidence((), frozenset(), {})), key=lambda e: e.cost)
        finally:
            self.options = opts
        best = ranked[0] if ranked else None
        if best is None or _gated(best, opts, self._hooks.seat_rows) > opts.max_cost:
            diffs = tuple(self.expected().differences(table))
            self._hyps = [Explanation((), math.inf, 0.0, (), self._shown)]
            self._signature = None
            self.desync = Desync("No legal events turn the game's table into this one: " + ("; ".join(diffs) or "?"),
                                 diffs, at)
            return Update(state="out-of-sync", desync=self.desync)
        close = self._close(best, ranked)
        self._hyps = ranked[: opts.hypotheses]
        prefix = max(_common_prefix([h.events for h in close]), self._same_outcome_prefix(best, close), key=len)
        if len(prefix) == len(best.events):
            committed = self._commit(prefix)
            self._note_commit(table)
            return Update(committed=committed, state="synced", best=self._hyps[0])
        committed = self._commit(prefix) if prefix else ()
        best = self._hyps[0]
        close = self._close(best, self._hyps)
        return replace(self._ambiguous(best, close, at, now=True), committed=committed)

    def apply(self, event: Event) -> None:
        """A player's event (dashboard, buttons): applied at once; hypotheses start afresh."""
        self.match.apply(event)
        self._restart()

    def undo(self) -> Event:
        """Take back the last committed event; hypotheses start afresh."""
        event = self.match.undo()
        self._restart()
        return event

    def resync(self, match: Match | None = None) -> None:
        """The match was changed by someone else (a correction on the dashboard): follow a fresh fork
        of ``match`` (None: the tracker's own, as it is), forget the hypotheses, the open question and
        the desync, and start explaining the table afresh."""
        if match is not None:
            self.match = match.fork()
        self._restart()

    def choose(self, index: int) -> tuple[Event, ...]:
        """Answer the open question with its candidate ``index``: its events are committed."""
        if self.question is None:
            raise ScorerError("there is no open question")
        if not 0 <= index < len(self.question.candidates):
            raise ScorerError(f"choose 0-{len(self.question.candidates) - 1}, not {index}")
        chosen = self.question.candidates[index]
        if self.question.kind == "confirm":  # the hypotheses that agree with it go on
            done = self._commit(chosen.events)
            if self.last_table is not None:
                self._note_commit(self.last_table)
                self._update_noise(self.last_table)
            return done
        if chosen.retract:
            for _ in range(chosen.retract):
                self.match.undo()
            chosen = replace(chosen, retract=0)
        self._hyps = [chosen]
        done = self._commit(chosen.events)
        if self.last_table is not None:
            self._note_commit(self.last_table)
        return done

    def _restart(self) -> None:
        self._hyps = [Explanation((), 0.0, 0.0, (), self._shown)]
        self._signature = None
        self._lead = None
        self._ambiguous_since = None
        self._unexplained_since = None
        self.question = None
        self.desync = None

    # ------------------------------------------------------------------ internals
    def _commit(self, events: tuple[Event, ...]) -> tuple[Event, ...]:
        k = _key(events)
        keep = [h for h in self._hyps if _key(h.events[: len(events)]) == k]
        if self.clock is not None:
            now = round(self.clock(), 1)
            events = tuple(ev if ev.at is not None else replace(ev, at=now) for ev in events)
        for ev in events:
            self.match.apply(ev)
            shown = self._hooks.shown_zone(self.match, ev)
            if shown is not None:
                self._shown = _add_shown(self._shown, shown, self._predicted(()))
        n = len(events)
        self._hyps = [replace(h, events=h.events[n:], cost=h.cost - sum(h.costs[:n]), prior=h.prior - sum(h.costs[:n]),
                              costs=h.costs[n:]) for h in keep] or [Explanation((), 0.0, 0.0, (), self._shown)]
        self._lead = None
        self.question = None
        self._ambiguous_since = None
        return events

    def _ambiguous(self, best: Explanation, close: list[Explanation], at: float, now: bool = False) -> Update:
        self._lead = None
        if self._ambiguous_since is None:
            self._ambiguous_since = at
        wait = self.options.ask_after_s
        if now:
            wait = 0.0
        elif self._only_traceless_differ(close):
            wait = self.options.ask_traceless_after_s
        if at - self._ambiguous_since >= wait:
            text = "Which happened? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(close[:4]))
            self.question = Question("which-event", text, tuple(close[:4]), self._ambiguous_since)
            return Update(state="question", question=self.question, best=best)
        return Update(state="waiting", best=best)

    def _only_traceless_differ(self, close: list[Explanation]) -> bool:
        """Whether the close hypotheses differ only in events that change nothing on the table (a
        declaration): the same table changes in the same order (some perhaps fewer of them: the next
        table tells), and none of them ends a round."""
        seen: set[tuple] = set()
        settled = self.match.status().rounds_settled
        for h in close:
            changes: list[tuple] = []
            applied = 0
            try:
                before = self._predicted(self._shown)
                for ev in h.events:
                    self.match.apply(ev)
                    applied += 1
                    after = self._predicted(self._shown)
                    if after != before:
                        changes.append(_event_key(ev))
                    before = after
                if self.match.is_over or self.match.status().rounds_settled != settled:
                    return False  # a round ends: no later play will tell
            except ScorerError:
                return False
            finally:
                for _ in range(applied):
                    self.match.undo()
            seen.add(tuple(changes))
        longest = max(seen, key=len, default=())
        return all(longest[: len(c)] == c for c in seen)

    def _unexplained(self, table: TableState, at: float, best: Explanation) -> Update:
        self._lead = None
        if self._unexplained_since is None:
            self._unexplained_since = at
        if at - self._unexplained_since < self.options.desync_after_s:
            return Update(state="waiting", best=best)
        if self._repair_armed:
            self._repair_armed = False
            repaired = self._repair(table, at)
            if repaired is not None:
                return repaired
        diffs = tuple(self.expected().differences(table))
        text = f"Out of sync: {self.match.expecting()}; " + ("; ".join(diffs) if diffs else "the table looks different")
        self.desync = Desync(text, diffs, self._unexplained_since)
        # start afresh from the committed game: the table put back, or a correction, brings it back
        self._hyps = [Explanation((), math.inf, 0.0, (), self._shown)]
        self._signature = None
        return Update(state="out-of-sync", desync=self.desync)

    # ------------------------------------------------------------------ the search
    def _search(self, hyp: Explanation, table: TableState, scorer: _Scorer, evidence: _Evidence) -> list[Explanation]:
        """``hyp`` extended by every sequence of up to ``depth`` legal events that the beam keeps,
        ``hyp`` itself included, each costed against ``table``; trailing silent events dropped."""
        with self._applied(hyp.events) as legal:
            return self._search_here(hyp, table, scorer, evidence) if legal else []

    def _search_here(self, hyp: Explanation, table: TableState, scorer: _Scorer, evidence: _Evidence) -> list[Explanation]:
        opts = self.options
        match = self.match
        start = self._predicted(_pruned(hyp.shown, table))
        base_shown = _pruned(hyp.shown, table)
        gathering = match.phase() == "deal"
        cap = opts.miss_cost + opts.extra_cost
        debt = hyp.debt + min(hyp.fit, cap) if math.isfinite(hyp.cost) else 0.0
        start_under: Under = {z: Counter(names) for z, (names, _down) in start.items() if z.startswith("seat:")}
        fit, seat_fit = scorer.fit(start, gathering, start_under)
        out = [Explanation(hyp.events, hyp.prior + debt + fit, hyp.prior, hyp.costs, base_shown, debt, seat_fit)]
        frontier: list[tuple[float, tuple[Event, ...], tuple[float, ...], Shown, int, Under]] = [
            (hyp.prior, (), (), base_shown, 0, start_under)]
        seen_paths: set[tuple] = set()
        for _step in range(opts.depth + opts.silent_depth):
            expanded: list[tuple[float, float, tuple[Event, ...], tuple[float, ...], Shown, int, Under]] = []
            for prior, path, costs, shown, n_silent, under in frontier:
                if len(path) - n_silent >= opts.depth:
                    continue
                applied = self._replay(path)
                if applied is None:
                    continue
                try:
                    before = self._predicted(shown)
                    for ev in self._candidates(table):
                        try:
                            match.apply(ev)
                        except ScorerError:
                            continue
                        try:
                            new_shown = shown
                            hook = self._hooks.shown_zone(match, ev)
                            if hook is not None:
                                new_shown = _add_shown(shown, hook, self._predicted(()))
                            pred = self._predicted(new_shown)
                            silent = pred == before
                            cost_ev = opts.event_cost
                            if silent:
                                seat = getattr(ev, "seat", None)
                                cost_ev += opts.silent_seen_cost if seat in evidence.idle else opts.silent_cost
                            else:
                                cost_ev += self._actor_cost(ev, evidence)
                            if ev.TYPE == "deal" and not gathering:
                                # the round before ended within this change: its cards were never
                                # seen gathered, which takes seconds
                                cost_ev += opts.actor_cost
                            cost_ev += self._covered_cost(start, before, pred, evidence)
                            new_under = under if silent else _under(under, before, pred)
                            fit, seat_fit = scorer.fit(pred, match.phase() == "deal" and not match.is_over, new_under)
                            total_prior = prior + cost_ev
                            if silent and n_silent >= opts.silent_depth:
                                continue
                            expanded.append((total_prior + fit, total_prior, path + (ev,), costs + (cost_ev,),
                                             new_shown, n_silent + silent, new_under))
                            if not silent:
                                final = total_prior + self._unused_reach(path + (ev,), evidence)
                                out.append(Explanation(hyp.events + path + (ev,), final + debt + fit, final,
                                                       hyp.costs + costs + (cost_ev + final - total_prior,),
                                                       new_shown, debt, seat_fit))
                        finally:
                            match.undo()
                finally:
                    for _ in range(applied):
                        match.undo()
            # the best partial sequences, and every one that only added silent events (they change
            # nothing yet, so their fit cannot rank them)
            expanded.sort(key=lambda x: x[0])
            frontier = []
            kept = 0
            for _total, prior, path, costs, shown, n_silent, under in expanded:
                k = _key(path)
                silent = n_silent > 0 and len(path) == n_silent
                if k in seen_paths or (kept >= opts.beam and not silent):
                    continue
                seen_paths.add(k)
                frontier.append((prior, path, costs, shown, n_silent, under))
                kept += not silent
            if not frontier:
                break
        return out

    def _unused_reach(self, path: Sequence[Event], evidence: _Evidence) -> float:
        """Half ``actor_cost`` when a hand went to the stock but no event of ``path`` takes from it
        (in games where only such events go to the stock: Poka's table card)."""
        if not self._hooks.stock_reach_means_draw or "stock" not in evidence.reached or any(
                self._hooks.source_zone(e) == "stock" for e in path):
            return 0.0
        return self.options.actor_cost / 2

    def _covered_cost(self, start: Predicted, before: Predicted, after: Predicted, evidence: _Evidence) -> float:
        """``miss_cost`` for each pile top that an earlier event of the extension laid and this one
        covers, unless the camera saw that top: a card that lay on top of a pile would have been seen."""
        cost = 0.0
        for z in ("pile", "discard"):
            old = _top(before.get(z))
            if old is None or old == _top(start.get(z)) or old == _top(after.get(z)):
                continue
            if old not in evidence.history.get(z, frozenset()):
                cost += self.options.miss_cost
        return cost

    @contextmanager
    def _applied(self, events: Sequence[Event]) -> Iterator[bool]:
        """``events`` applied to the match for the ``with`` block (False, nothing applied, when the
        rules refuse one), taken back after it."""
        applied = self._replay(events)
        try:
            yield applied is not None
        finally:
            for _ in range(applied or 0):
                self.match.undo()

    def _replay(self, path: Sequence[Event]) -> int | None:
        n = 0
        for ev in path:
            try:
                self.match.apply(ev)
            except ScorerError:
                for _ in range(n):
                    self.match.undo()
                return None
            n += 1
        return n

    def _candidates(self, table: TableState) -> list[Event]:
        match = self.match
        if match.is_over:
            return []
        try:
            events = match.legal_events()
        except NotEnumerableError:
            events = []
        events = self._hooks.plausible(events, self._visible)
        if match.phase() == "deal":
            events = [*events, *self._hooks.deals(match, table)]
        events = [*events, *self._hooks.shows(match, table)]
        out: list[Event] = []
        seen: set[tuple] = set()
        for ev in events:
            k = _event_key(ev)
            if k not in seen:
                seen.add(k)
                out.append(ev)
        return out

    def _actor_cost(self, ev: Event, evidence: _Evidence) -> float:
        actors = evidence.actors
        if not actors:
            return 0.0
        source = self._hooks.source_zone(ev)
        if source is not None and evidence.reached and source not in evidence.reached:
            return self.options.actor_cost
        if ev.TYPE == "deal":
            dealer = getattr(ev, "dealer", None)
            return 0.0 if dealer is None or dealer == actors[0] else self.options.actor_cost
        seat = self._hooks.actor(self.match, ev)
        if seat is None or seat in actors:
            return 0.0
        return self.options.actor_cost


def _add_shown(shown: Shown, hook: tuple[str, list[str]], lying: Predicted) -> Shown:
    """``shown`` plus the cards of a show event that the engine does not place on the table."""
    zone, names = hook
    extra = Counter(names) - lying.get(zone, (Counter(), 0))[0]
    if not extra:
        return shown
    return (*shown, (zone, tuple(sorted(extra.items()))))


def _pruned(shown: Shown, table: TableState) -> Shown:
    """Shown hands whose cards still show in their zone (picked-up ones forgotten)."""
    return tuple((z, names) for z, names in shown if any(table.zone(z).names()[n] for n, _ in names))


def _skeleton(ev: Event) -> tuple:
    """An event without its cards: type, seat and flags (a declaration's play or retire)."""
    return (ev.TYPE, *(v for n in _names(type(ev)) for v in [getattr(ev, n)] if not isinstance(v, str | tuple)))


def _who(ev: Event) -> tuple:
    """An event's type, seat and flags alone (no cards, no card left unchosen)."""
    return (ev.TYPE, *(v for n in _names(type(ev)) for v in [getattr(ev, n)] if isinstance(v, int)))


def _diverse(ranked: list[Explanation], k: int) -> list[Explanation]:
    """The ``k`` cheapest of ``ranked``, but first the cheapest of each skeleton (who did what,
    cards aside), so that a rival that differs in an unseen choice (play or retire) is not crowded
    out by variants that differ only in cards."""
    firsts: dict[tuple, Explanation] = {}
    for h in ranked:
        firsts.setdefault(tuple(_skeleton(e) for e in h.events), h)
    chosen = sorted(firsts.values(), key=lambda e: e.cost)[: max(1, k // 2)]
    taken = {id(h) for h in chosen}
    chosen += [h for h in ranked if id(h) not in taken][: k - len(chosen)]
    return sorted(chosen, key=lambda e: e.cost)


def _inserted(h: Explanation, best: Explanation) -> bool:
    """True when ``h`` is ``best`` with events inserted: more events the table does not show are
    never a rival."""
    kh, kb = _key(h.events), _key(best.events)
    return kh != kb and _contains(kh, kb)


def _common_prefix(paths: Sequence[tuple[Event, ...]]) -> tuple[Event, ...]:
    if not paths:
        return ()
    first = paths[0]
    n = 0
    while n < len(first) and all(len(p) > n and _event_key(p[n]) == _event_key(first[n]) for p in paths[1:]):
        n += 1
    return first[:n]


# ---------------------------------------------------------------------- scoring
def _visible(table: TableState, history: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """Every sight name ``table`` shows (any name a card may have) or a pile showed meanwhile."""
    names = {n for z in table.zones.values() for c in z.up for n, _p in c.probs}
    for seen in history.values():
        names.update(seen)
    return frozenset(names)


def _gated(hyp: Explanation, options: TrackerOptions, rows: bool) -> float:
    """The fit that decides whether the tracker is in sync; with ``rows`` (seat zones hold
    overlapping capture rows: :attr:`GameHooks.seat_rows`) seat zones count up to ``max_cost``
    less ``miss_cost`` (slivers are misread and hidden: what the rows show never makes a desync
    unless the field or the piles are wrong too, by about a card)."""
    if not rows:
        return hyp.fit
    return hyp.fit - hyp.seat_fit + min(hyp.seat_fit, options.max_cost - options.miss_cost)


def _seat_noise(expected: TableState, seen: TableState) -> dict[str, tuple[Counter[str], Counter[str]]]:
    """Per seat zone: (names seen but not expected, names expected but not seen)."""
    out = {}
    for z in set(expected.zones) | set(seen.zones):
        if not z.startswith("seat:"):
            continue
        e, s = expected.zone(z).names(), seen.zone(z).names()
        if e != s:
            out[z] = (s - e, e - s)
    return out


class _Scorer:
    """Costs of predicted tables against one seen table (memoised per zone)."""

    def __init__(self, table: TableState, options: TrackerOptions,
                 noise: dict[str, tuple[Counter[str], Counter[str]]] | None = None) -> None:
        self.options = options
        self.noise = noise or {}
        self.zones: dict[str, tuple[list[dict[str, float]], int]] = {
            z: ([dict(c.probs) for c in s.up], s.down) for z, s in table.zones.items()
        }
        self._memo: dict[tuple, float] = {}

    def cost(self, pred: Predicted, gathering: bool = False, under: Under | None = None) -> float:
        """``pred``'s cost against the seen table; ``under``: per seat zone, the expected names that
        may lie hidden under other cards (a miss costs ``seat_miss_cost``; other misses ``miss_cost``)."""
        return self.fit(pred, gathering, under)[0]

    def fit(self, pred: Predicted, gathering: bool = False, under: Under | None = None) -> tuple[float, float]:
        """:meth:`cost`, and its part from seat zones."""
        total = seats = 0.0
        under = under or {}
        for z in set(pred) | set(self.zones):
            names, down = pred.get(z, (Counter(), 0))
            hidden = under.get(z)
            key = (z, tuple(sorted(names.items())), down, gathering, tuple(sorted(hidden.items())) if hidden else ())
            c = self._memo.get(key)
            if c is None:
                c = self._zone_cost(z, names, down, gathering, hidden or Counter())
                self._memo[key] = c
            total += c
            if z.startswith("seat:"):
                seats += c
        return total, seats

    def _zone_cost(self, zone: str, names: Counter[str], down: int, gathering: bool, hidden: Counter[str]) -> float:
        """One zone's cost (module docstring). Expected names and seen cards are paired greedily, most
        probable first, a pair only where it costs less than leaving both unpaired."""
        o = self.options
        seen, seen_down = self.zones.get(zone, ([], 0))
        seat = zone.startswith("seat:")
        extra_noise, missing_noise = self.noise.get(zone, (Counter(), Counter()))
        tops = [max(d, key=d.__getitem__) if d else None for d in seen]

        def miss(n: str) -> float:
            """What leaving expected ``n`` unpaired would cost were the cards not being gathered
            (while they are, it costs nothing, but the cards that show are still theirs)."""
            if missing_noise[n] > 0:
                return 0.0
            return o.seat_miss_cost if hidden[n] > 0 else o.miss_cost

        def extra(i: int) -> float:
            return 0.0 if tops[i] is not None and extra_noise[tops[i]] > 0 else o.extra_cost * max(seen[i].values(), default=1.0)

        pairs = sorted(((d.get(n, 0.0), i, n) for i, d in enumerate(seen) for n in names if d.get(n, 0.0) > 0.0),
                       reverse=True)
        left = Counter(names)
        used: set[int] = set()
        cost = 0.0
        for p, i, n in pairs:
            if i in used or not left[n]:
                continue
            c = -math.log(max(p, 1e-9))
            if c >= miss(n) + extra(i):
                continue
            used.add(i)
            left[n] -= 1
            cost += c
        if not gathering:
            left = left - missing_noise
            coverable = sum((left & hidden).values())
            cost += o.seat_miss_cost * coverable + o.miss_cost * (sum(left.values()) - coverable)
        for i, d in enumerate(seen):
            if i not in used:
                if tops[i] is not None and extra_noise[tops[i]] > 0:
                    extra_noise = extra_noise - Counter({tops[i]: 1})
                    continue
                cost += o.extra_cost * max(d.values(), default=1.0)
        if not (gathering and seen_down <= down):
            cost += o.down_cost * abs(down - seen_down)
        return cost * (o.seat_zone_weight if seat else 1.0)


def _under(under: Under, before: Predicted, after: Predicted) -> Under:
    """``under`` after an event that turned the table ``before`` into ``after``: the cards it moved
    from another zone into a seat zone may lie under the card it brought from a hand or the stock
    (a capture: the played card laid on the field card, both swept into the row); a card that only
    it shows lies on top and must be seen."""
    left: Counter[str] = Counter()
    for z, (names, _down) in before.items():
        if not z.startswith("seat:"):
            left += names - after.get(z, (Counter(), 0))[0]
    out = under
    for z, (names, _down) in after.items():
        if z.startswith("seat:"):
            moved = (names - before.get(z, (Counter(), 0))[0]) & left
            if moved:
                if out is under:
                    out = dict(under)
                out[z] = out.get(z, Counter()) + moved
    return out


def _top(zone: tuple[Counter[str], int] | None) -> str | None:
    """The face-up name of a pile zone's predicted top."""
    if zone is None or not zone[0]:
        return None
    return next(iter(zone[0]))


def _contains(longer: tuple, shorter: tuple) -> bool:
    """True when ``shorter`` is a subsequence of ``longer``."""
    it = iter(longer)
    return all(any(x == y for y in it) for x in shorter)


_FIELDS: dict[type, tuple[str, ...]] = {}
_EVENT_KEYS: dict[Event, tuple] = {}


def _names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "at")
    return names


def _event_key(ev: Event) -> tuple:
    """An event by sight: card ids as sight names (interchangeable plains are one event)."""
    key = _EVENT_KEYS.get(ev)
    if key is None:
        key = (ev.TYPE, *(_sighted(getattr(ev, n)) for n in _names(type(ev))))
        if len(_EVENT_KEYS) > 200_000:
            _EVENT_KEYS.clear()
        _EVENT_KEYS[ev] = key
    return key


def _sighted(value: Any) -> Any:
    if isinstance(value, str):
        return sight_name(value)
    if isinstance(value, tuple):
        return tuple(sorted((_sighted(v) for v in value), key=repr))
    return value


def _key(events: Iterable[Event]) -> tuple:
    return tuple(_event_key(e) for e in events)


# ---------------------------------------------------------------------- per-game knowledge
def _ids_for(names: Iterable[str], pool: Counter[str]) -> list[str] | None:
    """Card ids for sight names, taken from ``pool`` (a multiset of ids); None when one is missing."""
    pool = Counter(pool)
    out = []
    for n in names:
        choice = next((cid for cid in sorted(pool) if pool[cid] > 0 and sight_name(cid) == n), None)
        if choice is None:
            return None
        pool[choice] -= 1
        out.append(choice)
    return out


def _deck_ids(match: Match) -> Counter[str]:
    from scorer.cards import deck

    return Counter(deck(match.deck).cards)


def _observer_deal(template: Event, table: TableState, match: Match, dealer: int | None) -> Event | None:
    """``template`` (a random deal from the engine) in observer form (:func:`scorer.deals.observer_deal`),
    the face-up cards as seen on ``table``; None where the table's cards cannot be that deal's."""
    ids = _deck_ids(match)
    face_up: dict[str, list[str]] = {}
    for f in fields(template):
        if f.name in ("field", "table"):
            names = sorted(table.zone("field").names().elements()) if f.name == "field" \
                else list(table.zone("pile").names().elements())
            got = _ids_for(names, ids)
            if got is None:
                return None
            face_up[f.name] = got
    try:
        return observer_deal(match, face_up, dealer, template)
    except IllegalEventError:
        return None


class GameHooks:
    """What the tracker needs to know of a game beyond its engine: how a deal and a shown hand look.
    The defaults build observer deals from the engine's own random deal and show nothing."""

    stock_reach_means_draw = False
    """True where nothing but a draw or table card takes a hand to the stock."""
    seat_rows = False
    """True where seat zones hold overlapping capture rows (Hachi-hachi), read as slivers."""

    def deals(self, match: Match, table: TableState) -> list[Event]:
        """Candidate deals that would leave ``table``'s face-up cards (one per possible dealer)."""
        import random

        try:
            template = match.random_event(random.Random(0))
        except ScorerError:
            return []
        if template.TYPE != "deal":
            return []
        dealer_known = match.to_play()
        seats = [dealer_known] if dealer_known else list(range(1, len(match.players) + 1))
        out = []
        for seat in seats:
            ev = _observer_deal(template, table, match, seat if hasattr(template, "dealer") else None)
            if ev is not None and match.check(ev) is None:
                out.append(ev)
            if not hasattr(template, "dealer"):
                break
        return out

    def shows(self, match: Match, table: TableState) -> list[Event]:
        """Candidate events that lay cards face up in a seat zone (claims, buy-outs, showdowns)."""
        return []

    def plausible(self, events: list[Event], visible: frozenset[str]) -> list[Event]:
        """The legal events worth trying, ``visible`` being every sight name the table shows or a
        pile showed meanwhile (all of them by default)."""
        return events

    def source_zone(self, ev: Event) -> str | None:
        """The table zone ``ev`` takes a card from (the stock for a draw or a table card), where
        an arm's hand must have gone."""
        return "stock" if ev.TYPE in ("draw", "table-card") else None

    def actor(self, match: Match, ev: Event) -> int | None:
        """The seat whose arm carries out ``ev`` (applied last to ``match``): its ``seat``, else
        the dealer of the round (who turns table cards)."""
        seat = getattr(ev, "seat", None)
        if seat is not None:
            return seat
        dealer = getattr(match.state, "dealer", None)
        return dealer if isinstance(dealer, int) and dealer > 0 else None

    def shown_zone(self, match: Match, ev: Event) -> tuple[str, list[str]] | None:
        """For an event that lays cards face up and then takes them back: (zone, sight names)."""
        return None


def _new_in_seats(match: Match, table: TableState, expected: TableState) -> dict[int, list[str]]:
    """Per seat, the face-up names seen in its zone beyond what is expected there."""
    out: dict[int, list[str]] = {}
    for z, s in table.zones.items():
        if not z.startswith("seat:"):
            continue
        extra = s.names() - expected.zone(z).names()
        if extra:
            out[int(z.split(":")[1])] = sorted(extra.elements())
    return out


class _ShowHooks(GameHooks):
    """Games where a claim shows cards from a hidden hand in the seat zone and takes them back."""

    claim_types: tuple[str, ...] = ("claim",)

    def shows(self, match: Match, table: TableState) -> list[Event]:
        places = match.table_places()
        if places is None or match.phase() == "deal":
            return []
        expected = expected_table(places, match.table_sitout())
        out: list[Event] = []
        for seat, names in _new_in_seats(match, table, expected).items():
            hand = places[f"hand:{seat}"]
            pool = Counter(places.unseen) + Counter(hand.known)
            ids = _ids_for(names, pool)
            if ids is None:
                continue
            out.extend(ev for ev in self.claims(match, seat, tuple(ids)) if match.check(ev) is None)
        return out

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        return []

    def shown_zone(self, match: Match, ev: Event) -> tuple[str, list[str]] | None:
        if ev.TYPE in self.claim_types:
            return f"seat:{ev.seat}", [sight_name(c) for c in ev.cards]  # type: ignore[attr-defined]
        return None


class _PokaHooks(_ShowHooks):
    stock_reach_means_draw = True

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        cls = match.EVENTS.types()["claim"]
        return [cls(seat, cards, None)]


class _HachiHachiHooks(_ShowHooks):
    claim_types = ("claim", "buyout")
    seat_rows = True

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        from scorer.hachihachi import teyaku as ty

        types = match.EVENTS.types()
        out: list[Event] = [types["buyout"](seat, cards)]
        for name in ty.STANDARD_VALUES:
            out.append(types["claim"](seat, name, cards))
        return out


class _BagajiHooks(_ShowHooks):
    claim_types = ()

    def plausible(self, events: list[Event], visible: frozenset[str]) -> list[Event]:
        """Hidden hands make every unseen card a legal discard, exposure or show: keep those whose
        cards the table shows (shows come from :meth:`shows`), every call (its pair must match the
        last discard: few, and a misread pair must still be tried), and draws of an unseen card
        (nobody but the drawer sees it) where the engine offers one."""
        blind = {ev.seat for ev in events if ev.TYPE == "draw" and ev.card is None}  # type: ignore[attr-defined]
        out = []
        for ev in events:
            if ev.TYPE == "show" or (ev.TYPE == "draw" and ev.card is not None and ev.seat in blind):  # type: ignore[attr-defined]
                continue
            if ev.TYPE == "call":
                out.append(ev)
                continue
            cards = (ev.card,) if ev.TYPE == "discard" else getattr(ev, "cards", ())  # type: ignore[attr-defined]
            if all(sight_name(c) in visible for c in cards):
                out.append(ev)
        return out

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        return [match.EVENTS.types()["show"](seat, cards)]


GAME_HOOKS: dict[str, GameHooks] = {
    "poka": _PokaHooks(),
    "hachi-hachi": _HachiHachiHooks(),
    "bagaji": _BagajiHooks(),
}
"""Per game: how its deals and shown hands look to the tracker."""

