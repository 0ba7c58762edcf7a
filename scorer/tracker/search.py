"""The search: a hypothesis extended by the legal events that explain a new table, each costed.

When the seen table changes, every hypothesis is extended by a beam search over legal events from
where it ends (up to ``depth`` events that change the table plus ``silent_depth`` that do not,
``beam`` partial sequences per step), itself included unchanged. Events without a trace
(Hachi-hachi's declarations and calls, Poka's passes and no-claims, Bagaji's draws) are inferred
this way where the rules leave one explanation; an extension never ends in them (the next table
tells). The candidates are the engine's legal events that the game's hooks find plausible, plus
deals and shows built from the table (:mod:`scorer.tracker.hooks`).

Cost (natural-log units): every event adds ``event_cost``; one that changes nothing on the table (a
pass, a declaration, a call) adds ``silent_cost``, or ``silent_seen_cost`` when that seat's arm was
seen over the table without changing it (a pass gesture); an event by a seat whose arm was not seen
since the table last changed adds ``actor_cost`` when arms were seen (a deal: its dealer's arm must
be the first seen; an event without a seat, such as Poka's table card, is the dealer's), and so
does an event that takes a card from the stock when arms were seen but no hand went to the stock
(``TableState.reached``); in Poka a hand at the stock that no event took from costs half that; a
deal after events that end the round before it in the same change costs as much again (the table
is seen while its cards are gathered), and is refused when it lays face up again two or more cards
the round before had face up in the same zones (those cards never left: a card read right at last,
which a repair explains, not a new round). A pile top that a hypothesis lays and then covers costs
``miss_cost`` unless the camera saw it (``TableState.history``). A hypothesis's cost is the sum of
its events' costs, its fit to the latest table (:mod:`scorer.tracker.fit`) and its fits to the
earlier tables since the last commit (each capped at a miss plus a phantom), so an explanation that
skipped a table it saw stays behind the one that followed it.

The search applies and takes back events on the match it is given (the tracker's fork), which it
leaves as it found it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match, NotEnumerableError
from scorer.table import TableState
from scorer.tracker.fit import Scorer, add_shown, moved_under, pile_top, predicted, pruned
from scorer.tracker.hooks import GameHooks
from scorer.tracker.options import TrackerOptions
from scorer.tracker.sequences import applied, event_key, path_key, replay
from scorer.tracker.values import Evidence, Explanation, Predicted, Shown, Under

REDEAL_KEPT = 2
"""A deal in the same table change as the end of the round before may not lay face up this many
cards that lay face up in the same zones before it (:func:`_kept_face_up`)."""


def _kept_face_up(before: Predicted, after: Predicted) -> int:
    """How many face-up cards (by sight name) of the shared zones (not seat zones, not the stock)
    lie in the same zone before and after."""
    kept = 0
    for zone, (names, _down) in after.items():
        if zone.startswith("seat:") or zone == "stock" or zone not in before:
            continue
        kept += sum((names & before[zone][0]).values())
    return kept


class Search:
    """Extensions of hypotheses on ``match`` (the tracker's fork, the committed game), weighed by
    ``options``; ``visible``: every sight name the table being explained shows or a pile showed
    meanwhile (:meth:`GameHooks.plausible`)."""

    def __init__(self, match: Match, options: TrackerOptions, hooks: GameHooks, visible: frozenset[str]) -> None:
        self.match = match
        self.options = options
        self.hooks = hooks
        self.visible = visible

    def extend(self, hyp: Explanation, table: TableState, scorer: Scorer, evidence: Evidence) -> list[Explanation]:
        """``hyp`` extended by every sequence of up to ``depth`` legal events that the beam keeps,
        ``hyp`` itself included, each costed against ``table``; trailing silent events dropped
        (empty when the rules refuse ``hyp``'s events)."""
        with applied(self.match, hyp.events) as legal:
            return self._here(hyp, table, scorer, evidence) if legal else []

    def _here(self, hyp: Explanation, table: TableState, scorer: Scorer, evidence: Evidence) -> list[Explanation]:
        """:meth:`extend` with ``hyp``'s events applied to the match."""
        opts = self.options
        match = self.match
        start = predicted(match, pruned(hyp.shown, table))
        base_shown = pruned(hyp.shown, table)
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
                n_applied = replay(match, path)
                if n_applied is None:
                    continue
                try:
                    before = predicted(match, shown)
                    for ev in self._candidates(table):
                        try:
                            match.apply(ev)
                        except ScorerError:
                            continue
                        try:
                            new_shown = shown
                            hook = self.hooks.shown_zone(match, ev)
                            if hook is not None:
                                new_shown = add_shown(shown, hook, predicted(match, ()))
                            pred = predicted(match, new_shown)
                            silent = pred == before
                            cost_ev = opts.event_cost
                            if silent:
                                seat = getattr(ev, "seat", None)
                                cost_ev += opts.silent_seen_cost if seat in evidence.idle else opts.silent_cost
                            else:
                                cost_ev += self._actor_cost(ev, evidence)
                            if ev.TYPE == "deal" and not gathering:
                                # the round before ended within this change: its cards were never
                                # seen gathered, which takes seconds; a deal that lays face up
                                # again cards the round before had face up there (a field card
                                # read right at last, not a new round) is refused
                                if _kept_face_up(start, pred) >= REDEAL_KEPT:
                                    continue
                                cost_ev += opts.actor_cost
                            cost_ev += self._covered_cost(start, before, pred, evidence)
                            new_under = under if silent else moved_under(under, before, pred)
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
                    for _ in range(n_applied):
                        match.undo()
            # the best partial sequences, and every one that only added silent events (they change
            # nothing yet, so their fit cannot rank them)
            expanded.sort(key=lambda x: x[0])
            frontier = []
            kept = 0
            for _total, prior, path, costs, shown, n_silent, under in expanded:
                k = path_key(path)
                silent = n_silent > 0 and len(path) == n_silent
                if k in seen_paths or (kept >= opts.beam and not silent):
                    continue
                seen_paths.add(k)
                frontier.append((prior, path, costs, shown, n_silent, under))
                kept += not silent
            if not frontier:
                break
        return out

    def _candidates(self, table: TableState) -> list[Event]:
        """The events to try next: the plausible legal ones, deals built from ``table`` while a
        deal is due, and shows of the cards new in seat zones; one of each by sight."""
        match = self.match
        if match.is_over:
            return []
        try:
            events = match.legal_events()
        except NotEnumerableError:
            events = []
        events = self.hooks.plausible(events, self.visible)
        if match.phase() == "deal":
            events = [*events, *self.hooks.deals(match, table)]
        events = [*events, *self.hooks.shows(match, table)]
        out: list[Event] = []
        seen: set[tuple] = set()
        for ev in events:
            k = event_key(ev)
            if k not in seen:
                seen.add(k)
                out.append(ev)
        return out

    def _actor_cost(self, ev: Event, evidence: Evidence) -> float:
        """``actor_cost`` for an event (applied last) that changes the table when arms were seen but
        not its actor's (a deal: the dealer's arm first), or when it takes from a zone no hand went to."""
        actors = evidence.actors
        if not actors:
            return 0.0
        source = self.hooks.source_zone(ev)
        if source is not None and evidence.reached and source not in evidence.reached:
            return self.options.actor_cost
        if ev.TYPE == "deal":
            dealer = getattr(ev, "dealer", None)
            return 0.0 if dealer is None or dealer == actors[0] else self.options.actor_cost
        seat = self.hooks.actor(self.match, ev)
        if seat is None or seat in actors:
            return 0.0
        return self.options.actor_cost

    def _unused_reach(self, path: Sequence[Event], evidence: Evidence) -> float:
        """Half ``actor_cost`` when a hand went to the stock but no event of ``path`` takes from it
        (in games where only such events go to the stock: Poka's table card)."""
        if not self.hooks.stock_reach_means_draw or "stock" not in evidence.reached or any(
                self.hooks.source_zone(e) == "stock" for e in path):
            return 0.0
        return self.options.actor_cost / 2

    def _covered_cost(self, start: Predicted, before: Predicted, after: Predicted, evidence: Evidence) -> float:
        """``miss_cost`` for each pile top that an earlier event of the extension laid and this one
        covers, unless the camera saw that top: a card that lay on top of a pile would have been seen."""
        cost = 0.0
        for z in ("pile", "discard"):
            old = pile_top(before.get(z))
            if old is None or old == pile_top(start.get(z)) or old == pile_top(after.get(z)):
                continue
            if old not in evidence.history.get(z, frozenset()):
                cost += self.options.miss_cost
        return cost
