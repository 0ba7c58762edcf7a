"""The tracker: settled table states from a camera → the game's events (design/TRACKING.md).

``Tracker(match).update(table, at)`` compares what the camera sees (a :class:`~scorer.table.TableState`
whose cards carry probabilities over their names) with what the match expects, and explains a
difference by the legal events, or short sequences of them, that turn the expected table into the
one seen. It never commits on a label: it scores each explanation by the recogniser's
probabilities, and commits the best one when

* its cost (below) is at most ``max_cost``,
* every other explanation that leaves a different game costs at least ``margin`` more, and
* it has been the best for ``hold_s`` seconds of table time, or its margin is twice ``margin``.

When two explanations stay within ``margin`` of each other the tracker waits; after ``ask_after_s``
it asks the players (:class:`Question`). When no legal explanation fits and the table does not look
like the expected one either, the tracker is *out of sync* (:class:`Desync`, with the differences
in words) until the table and the game agree again or a correction arrives.

Cost of an explanation (natural-log units): for every zone the expected face-up names are paired
with the seen cards (greedily, most probable pairs first); a pair costs ``−ln p`` of the expected
name (capped at a miss plus a phantom), an expected card not seen costs ``miss_cost``, a seen card
not expected ``extra_cost``, each face-down card or stack of difference ``down_cost``. Each event
that changes nothing on the table (a pass, a declaration, a call) adds ``silent_cost`` (``silent_seen_cost`` when that seat's arm was
seen over the table without changing it, a pass gesture), so the fewest inferred events win, and every event ``event_cost``; an event by a seat whose arm was not
seen adds ``actor_cost`` when arms were seen (a deal: its dealer's arm must be the first seen; an
event without a seat, such as Poka's table card, is the dealer's). A pile top that an explanation
lays and then covers costs ``miss_cost`` unless the camera saw it (``TableState.history``). An explanation's trailing silent events are dropped: they are inferred only once
something after them shows.

Events without a trace (Hachi-hachi's declarations and calls, Poka's passes and no-claims, Bagaji's
draws) are inferred where the rules leave one explanation; a deal is built from the table
(observer form: hands and stock as counts, the face-up cards as seen); shown hands (claims,
buy-outs, Bagaji's showdown) are built from the cards that appear in a seat zone, and stay part of
the expected table until they are picked up again.

Corrections (:meth:`Tracker.undo`, :meth:`Tracker.apply`, :meth:`Tracker.choose`) act on the match
at once and reset the waiting state. Pure Python: no vision, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match, NotEnumerableError
from scorer.table import TableState, expected_table, sight_name

# A predicted table: zone -> (face-up names, face-down count).
Predicted = dict[str, tuple[Counter[str], int]]


@dataclass(frozen=True, slots=True)
class TrackerOptions:
    """How the tracker weighs evidence and when it commits, asks or reports a desync."""

    depth: int = 5
    """Most events in one explanation."""
    beam: int = 16
    """Partial explanations kept at each depth of the search."""
    margin: float = 2.0
    """Cost lead (ln units) the best explanation needs over any other that leaves a different game."""
    max_cost: float = 7.0
    """Highest cost an explanation may have and still be committed."""
    same_cost: float = 2.5
    """A table within this cost of the expected one shows nothing new."""
    hold_s: float = 0.3
    """Seconds the best explanation must stay best before it is committed (unless its margin is
    twice :attr:`margin`)."""
    ask_after_s: float = 4.0
    """Seconds an ambiguity may last before the players are asked."""
    desync_after_s: float = 1.0
    """Seconds a table nothing explains must last before the tracker reports it is out of sync."""
    miss_cost: float = 3.5
    extra_cost: float = 3.5
    down_cost: float = 1.5
    event_cost: float = 0.25
    silent_cost: float = 1.5
    silent_seen_cost: float = 0.25
    """Cost of a silent event by a seat whose arm was seen over the table without changing it (a
    pass gesture, a declaration)."""
    actor_cost: float = 4.0
    confirm_stakes: bool = False
    """Wait for a confirmation before committing events that end a round (stones change)."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """A sequence of legal events and how well the table after it fits what is seen."""

    events: tuple[Event, ...]
    cost: float
    """Fit (ln units, lower is better) including the events' own costs."""

    def describe(self) -> str:
        """The events in words."""
        return "; ".join(e.describe() for e in self.events) or "nothing happened"


@dataclass(frozen=True, slots=True)
class Question:
    """An ambiguity the players must settle."""

    kind: str
    """``which-event`` (several explanations), ``confirm`` (stakes), ``who-deals``."""
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
    """Events applied to the match by this update, in order."""
    state: str = "synced"
    """``synced``, ``waiting`` (an explanation is being held or weighed), ``question`` or
    ``out-of-sync``."""
    question: Question | None = None
    desync: Desync | None = None
    best: Explanation | None = None
    """The leading explanation while waiting."""


@dataclass
class _Pending:
    key: tuple
    since: float


@dataclass
class _Shown:
    """Cards laid face up in a seat zone by a committed show (claim, buy-out, showdown) that the
    engine no longer places on the table; expected until they vanish from view."""

    zone: str
    names: Counter[str]


class Tracker:
    """Follows one match from settled table states."""

    def __init__(self, match: Match, options: TrackerOptions | None = None) -> None:
        self.match = match
        self.options = options or TrackerOptions()
        self._pending: _Pending | None = None
        self._ambiguous_since: float | None = None
        self._unexplained_since: float | None = None
        self._shown: list[_Shown] = []
        self.question: Question | None = None
        self.desync: Desync | None = None
        self.last_table: TableState | None = None
        self._hooks = GAME_HOOKS.get(match.GAME, GameHooks())
        self._revision = 0
        self._actors: list[int] = []
        self._idle: list[int] = []
        self._history: dict[str, list[str]] = {}
        self._cache: dict[tuple, list[Explanation]] = {}

    # ------------------------------------------------------------------ the expected table
    def expected(self) -> TableState:
        """The table the match implies now (shown hands still lying included)."""
        return self._to_table(self._predicted())

    def _predicted(self) -> Predicted:
        table = expected_table(self.match.table_places(), self.match.table_sitout())
        out: Predicted = {z: (s.names(), s.down) for z, s in table.zones.items()}
        for shown in self._shown:
            names, down = out.get(shown.zone, (Counter(), 0))
            out[shown.zone] = (names + shown.names, down)
        return out

    @staticmethod
    def _to_table(pred: Predicted) -> TableState:
        return TableState.from_names({z: list(n.elements()) for z, (n, _) in pred.items()},
                                     {z: d for z, (_, d) in pred.items() if d})

    # ------------------------------------------------------------------ main entry
    def update(self, table: TableState, at: float) -> Update:
        """Take one settled table state seen at table time ``at`` (s); commit, wait, ask or report.

        ``table.actors`` are the seats whose arms were seen since the previous call; the tracker
        keeps them until an event is committed, or forgets them when the table shows no change."""
        for seat in table.actors:
            if not self._actors or self._actors[-1] != seat:
                self._actors.append(seat)
        for z, names in table.history.items():
            self._history.setdefault(z, []).extend(n for n in names if n not in self._history.get(z, ()))
        table = TableState(table.zones, table.t, tuple(self._actors),
                           {z: tuple(n) for z, n in self._history.items()})
        self.last_table = table
        scorer = _Scorer(table, self.options)
        self._forget_picked_up(table)
        in_deal = self.match.phase() == "deal"
        now_cost = scorer.cost(self._predicted(), gathering=in_deal)
        if self.match.is_over:
            return Update(state="synced")
        explanations: list[Explanation] = []
        if now_cost > self.options.same_cost:
            key = (self._revision, _table_key(table), tuple(self._idle))
            cached = self._cache.get(key)
            if cached is None:
                cached = self.explain(table, scorer)
                if len(self._cache) > 64:
                    self._cache.clear()
                self._cache[key] = cached
            explanations = cached
        still = Explanation((), now_cost)
        ranked = sorted([still, *explanations], key=lambda e: e.cost)
        best = ranked[0]
        if not best.events:
            self._pending = None
            self._ambiguous_since = None
            self.question = None
            if best.cost <= self.options.same_cost:
                self._idle.extend(s for s in self._actors if s not in self._idle)
                self._actors = []  # arms that changed nothing: evidence of a silent event
                self._history = {}
            if best.cost <= self.options.max_cost or in_deal:
                self._unexplained_since = None
                self.desync = None
                return Update(state="synced")
            return self._unexplained(table, at)
        self._unexplained_since = None
        self.desync = None
        if self._pending is not None and self._pending.key != _key(best.events):
            # the table moved on: a held explanation that a plausible new one extends was seen
            # settled, so it happened
            n = len(self._pending.key)
            for e in ranked:
                if e.cost - best.cost >= self.options.margin:
                    break
                k = _key(e.events)
                if len(k) > n and k[:n] == self._pending.key:
                    return self._commit_prefix(e, n, table, at)
        rivals = [e for e in ranked[1:] if self._differs(e, best)]
        lead = (rivals[0].cost - best.cost) if rivals else math.inf
        if best.cost > self.options.max_cost:
            return self._unexplained(table, at)
        if lead < self.options.margin:
            close = [best, *(e for e in rivals if e.events and e.cost - best.cost < self.options.margin)]
            return self._ambiguous(best, close, at)
        self._ambiguous_since = None
        self.question = None
        key = _key(best.events)
        if self._pending is None or self._pending.key != key:
            self._pending = _Pending(key, at)
        held = at - self._pending.since >= self.options.hold_s
        if not held and lead < 2 * self.options.margin:
            return Update(state="waiting", best=best)
        return Update(committed=self._commit(best, table), state="synced")

    def _commit_prefix(self, best: Explanation, n: int, table: TableState, at: float) -> Update:
        """Commit the first ``n`` events of ``best`` (held before and now confirmed), then take the
        table again for the rest."""
        first = self._commit(Explanation(best.events[:n], best.cost), table)
        rest = self.update(table, at)
        return replace(rest, committed=first + rest.committed)

    # ------------------------------------------------------------------ corrections
    def apply(self, event: Event) -> None:
        """A player's event (dashboard, buttons): applied at once; waiting state reset."""
        self.match.apply(event)
        self._reset()

    def undo(self) -> Event:
        """Take back the last committed event."""
        event = self.match.undo()
        self._reset()
        return event

    def choose(self, index: int) -> tuple[Event, ...]:
        """Answer the open question with its candidate ``index``; the events are committed."""
        if self.question is None:
            raise ScorerError("there is no open question")
        if not 0 <= index < len(self.question.candidates):
            raise ScorerError(f"choose 0-{len(self.question.candidates) - 1}, not {index}")
        chosen = self.question.candidates[index]
        return self._commit(chosen, self.last_table or TableState())

    def _reset(self) -> None:
        self._revision += 1
        self._actors = []
        self._idle = []
        self._history = {}
        self._pending = None
        self._ambiguous_since = None
        self._unexplained_since = None
        self.question = None
        self.desync = None

    # ------------------------------------------------------------------ internals
    def _commit(self, best: Explanation, table: TableState) -> tuple[Event, ...]:
        done: list[Event] = []
        for ev in best.events:
            self.match.apply(ev)
            shown = self._hooks.shown_zone(self.match, ev)
            if shown is not None:
                zone, names = shown
                lying = self._predicted().get(zone, (Counter(), 0))[0]
                extra = Counter(names) - lying
                if extra:
                    self._shown.append(_Shown(zone, extra))
            done.append(ev)
        self._reset()
        return tuple(done)

    def _forget_picked_up(self, table: TableState) -> None:
        """Drop shown hands once their cards no longer show in their zone."""
        if not self._shown:
            return
        keep = []
        for shown in self._shown:
            seen = table.zone(shown.zone).names()
            if any(seen[n] for n in shown.names):
                keep.append(shown)
        self._shown = keep

    def _differs(self, a: Explanation, b: Explanation) -> bool:
        """True when ``a`` is a rival of the best explanation ``b``: not the same events, and not
        ``b`` with events inserted (more events that the table does not show are never preferred)."""
        ka, kb = _key(a.events), _key(b.events)
        return ka != kb and not _contains(ka, kb)

    def _ambiguous(self, best: Explanation, close: list[Explanation], at: float) -> Update:
        if self._ambiguous_since is None:
            self._ambiguous_since = at
        if at - self._ambiguous_since >= self.options.ask_after_s:
            unique: list[Explanation] = []
            for e in close:
                if all(_key(e.events) != _key(u.events) for u in unique):
                    unique.append(e)
            text = "Which happened? " + " | ".join(f"({i + 1}) {e.describe()}" for i, e in enumerate(unique[:4]))
            self.question = Question("which-event", text, tuple(unique[:4]), self._ambiguous_since)
            return Update(state="question", question=self.question, best=best)
        return Update(state="waiting", best=best)

    def _unexplained(self, table: TableState, at: float) -> Update:
        self._pending = None
        if self._unexplained_since is None:
            self._unexplained_since = at
        if at - self._unexplained_since < self.options.desync_after_s:
            return Update(state="waiting")
        diffs = tuple(self.expected().differences(table))
        text = f"Out of sync: {self.match.expecting()}; " + ("; ".join(diffs) if diffs else "the table looks different")
        self.desync = Desync(text, diffs, self._unexplained_since)
        return Update(state="out-of-sync", desync=self.desync)

    # ------------------------------------------------------------------ the search
    def explain(self, table: TableState, scorer: _Scorer | None = None) -> list[Explanation]:
        """Every explanation found (beam search over legal events), cheapest first; trailing
        silent events dropped, duplicates (same events by sight) merged."""
        scorer = scorer or _Scorer(table, self.options)
        opts = self.options
        match = self.match
        start_pred = self._predicted()
        history = {z: set(names) for z, names in table.history.items()}
        frontier: list[tuple[float, tuple[Event, ...]]] = [(0.0, ())]
        found: dict[tuple, Explanation] = {}
        for _depth in range(opts.depth):
            expanded: list[tuple[float, float, tuple[Event, ...], bool]] = []
            for prior, path in frontier:
                applied = self._replay(path)
                if applied is None:
                    continue
                try:
                    before = self._predicted() if path else start_pred
                    for ev in self._candidates(table):
                        try:
                            match.apply(ev)
                        except ScorerError:
                            continue
                        try:
                            pred = self._predicted_with(ev, before)
                            silent = pred == before
                            if silent:
                                seat = getattr(ev, "seat", None)
                                cost_ev = opts.event_cost + (opts.silent_seen_cost if seat in self._idle else opts.silent_cost)
                            else:
                                cost_ev = opts.event_cost + self._actor_cost(ev, table)
                            cost_ev += self._covered_cost(start_pred, before, pred, history)
                            fit = scorer.cost(pred, gathering=match.phase() == "deal" and not match.is_over)
                            expanded.append((prior + cost_ev + fit, prior + cost_ev, path + (ev,), silent))
                            if not silent:
                                trimmed = path + (ev,)
                                k = _key(trimmed)
                                total = prior + cost_ev + fit
                                if k not in found or found[k].cost > total:
                                    found[k] = Explanation(trimmed, total)
                        finally:
                            match.undo()
                finally:
                    for _ in range(applied):
                        match.undo()
            # the best partial explanations, and every one that only added silent events (they
            # change nothing yet, so their fit cannot rank them)
            expanded.sort(key=lambda x: x[0])
            frontier = []
            seen: set[tuple] = set()
            kept = 0
            for _total, prior, path, silent in expanded:
                k = _key(path)
                if k in seen or (kept >= opts.beam and not silent):
                    continue
                seen.add(k)
                frontier.append((prior, path))
                kept += not silent
            if not frontier:
                break
        return sorted(found.values(), key=lambda e: e.cost)

    def _covered_cost(self, start: Predicted, before: Predicted, after: Predicted,
                      history: dict[str, set[str]]) -> float:
        """``miss_cost`` for each pile top that an earlier event of the explanation laid and this
        one covers, unless the camera saw that top (``TableState.history``): a card that lay on
        top of a pile would have been seen."""
        cost = 0.0
        for z in ("pile", "discard"):
            old = _top(before.get(z))
            if old is None or old == _top(start.get(z)) or old == _top(after.get(z)):
                continue
            if old not in history.get(z, ()):
                cost += self.options.miss_cost
        return cost

    def _predicted_with(self, ev: Event, before: Predicted) -> Predicted:
        pred = self._predicted()
        shown = self._hooks.shown_zone(self.match, ev)
        if shown is not None:
            zone, names = shown
            have = pred.get(zone, (Counter(), 0))
            missing = Counter(names) - have[0]
            if missing:
                pred[zone] = (have[0] + missing, have[1])
        return pred

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

    def _actor_cost(self, ev: Event, table: TableState) -> float:
        if not table.actors:
            return 0.0
        if ev.TYPE == "deal":
            dealer = getattr(ev, "dealer", None)
            return 0.0 if dealer is None or dealer == table.actors[0] else self.options.actor_cost
        seat = self._hooks.actor(self.match, ev)
        if seat is None or seat in table.actors:
            return 0.0
        return self.options.actor_cost


# ---------------------------------------------------------------------- scoring
class _Scorer:
    """Costs of predicted tables against one seen table (memoised per zone)."""

    def __init__(self, table: TableState, options: TrackerOptions) -> None:
        self.options = options
        self.zones: dict[str, tuple[list[dict[str, float]], int]] = {
            z: ([dict(c.probs) for c in s.up], s.down) for z, s in table.zones.items()
        }
        self._memo: dict[tuple, float] = {}

    def cost(self, pred: Predicted, gathering: bool = False) -> float:
        total = 0.0
        for z in set(pred) | set(self.zones):
            names, down = pred.get(z, (Counter(), 0))
            key = (z, tuple(sorted(names.items())), down, gathering)
            c = self._memo.get(key)
            if c is None:
                c = self._zone_cost(z, names, down, gathering)
                self._memo[key] = c
            total += c
        return total

    def _zone_cost(self, zone: str, names: Counter[str], down: int, gathering: bool) -> float:
        o = self.options
        seen, seen_down = self.zones.get(zone, ([], 0))
        miss = 0.0 if gathering else o.miss_cost
        cap = o.miss_cost + o.extra_cost
        pairs = sorted(((d.get(n, 0.0), i, n) for i, d in enumerate(seen) for n in names if d.get(n, 0.0) > 0.0),
                       reverse=True)
        left = Counter(names)
        used: set[int] = set()
        cost = 0.0
        for p, i, n in pairs:
            if i in used or not left[n]:
                continue
            used.add(i)
            left[n] -= 1
            cost += min(-math.log(max(p, 1e-9)), cap)
        cost += miss * sum(left.values())
        cost += o.extra_cost * (len(seen) - len(used))
        if gathering and seen_down <= down:
            return cost
        return cost + o.down_cost * abs(down - seen_down)


def _top(zone: tuple[Counter[str], int] | None) -> str | None:
    """The face-up name of a pile zone's predicted top."""
    if zone is None or not zone[0]:
        return None
    return next(iter(zone[0]))


def _contains(longer: tuple, shorter: tuple) -> bool:
    """True when ``shorter`` is a subsequence of ``longer``."""
    it = iter(longer)
    return all(any(x == y for y in it) for x in shorter)


def _table_key(table: TableState) -> tuple:
    """A table by what the search reads: every card's probabilities, face-down counts, actors."""
    return (tuple(sorted((z, tuple(sorted(c.probs for c in s.up)), s.down) for z, s in table.zones.items())),
            table.actors, tuple(sorted(table.history.items())))


def _event_key(ev: Event) -> tuple:
    """An event by sight: card ids as sight names (interchangeable plains are one event)."""
    out: list[Any] = [ev.TYPE]
    for f in fields(ev):
        if f.name == "at":
            continue
        out.append(_sighted(getattr(ev, f.name)))
    return tuple(out)


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
    """``template`` (a random deal from the engine) in observer form: hands and stock as counts,
    the face-up cards as seen on ``table``."""
    values: dict[str, Any] = {}
    ids = _deck_ids(match)
    for f in fields(template):
        if f.name == "at":
            continue
        v = getattr(template, f.name)
        if f.name == "hands":
            v = tuple(len(h) if isinstance(h, tuple) else h for h in v)
        elif f.name == "stock":
            v = None if match.GAME == "poka" else (len(v) if isinstance(v, tuple) else v)
        elif f.name == "field":
            names = sorted(table.zone("field").names().elements())
            got = _ids_for(names, ids)
            if got is None or len(got) != len(v):
                return None
            v = tuple(got)
        elif f.name == "table":
            names = list(table.zone("pile").names().elements())
            got = _ids_for(names, ids)
            if got is None or len(got) != 1:
                return None
            v = got[0]
        elif f.name == "dealer" and dealer is not None:
            v = dealer
        values[f.name] = v
    return type(template)(**values)


class GameHooks:
    """What the tracker needs to know of a game beyond its engine: how a deal and a shown hand look.
    The defaults build observer deals from the engine's own random deal and show nothing."""

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
    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        cls = match.EVENTS.types()["claim"]
        return [cls(seat, cards, None)]


class _HachiHachiHooks(_ShowHooks):
    claim_types = ("claim", "buyout")

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        from scorer.hachihachi import teyaku as ty

        types = match.EVENTS.types()
        out: list[Event] = [types["buyout"](seat, cards)]
        for name in ty.STANDARD_VALUES:
            out.append(types["claim"](seat, name, cards))
        return out


class _BagajiHooks(_ShowHooks):
    claim_types = ()

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        return [match.EVENTS.types()["show"](seat, cards)]


GAME_HOOKS: dict[str, GameHooks] = {
    "poka": _PokaHooks(),
    "hachi-hachi": _HachiHachiHooks(),
    "bagaji": _BagajiHooks(),
}
"""Per game: how its deals and shown hands look to the tracker."""

