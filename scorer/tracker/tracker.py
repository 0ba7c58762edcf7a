"""The :class:`Tracker`: its state, each settled table taken in (:meth:`Tracker.update`) and the
players' corrections.

An update gathers the evidence of arms seen over the table (``TableState.actors``, ``history``,
``reached``); when the table's signature changes every hypothesis within ``extend_within`` of the
best is extended to explain it (:mod:`scorer.tracker.search`) and the cheapest ``hypotheses`` are
kept, first the cheapest of each skeleton (:func:`scorer.tracker.sequences.diverse`). Arms that came
and went while the table stayed the same are evidence of a silent event (a pass gesture). Then the
tracker is out of sync (:mod:`scorer.tracker.repair`) or decides what to commit or ask
(:mod:`scorer.tracker.commits`).

The tracker acts on its own fork of the match (:meth:`scorer.match.Match.fork`). Corrections
(:meth:`Tracker.undo`, :meth:`Tracker.apply`, :meth:`Tracker.choose`) act on that fork at once and
start the hypotheses afresh; :meth:`Tracker.resync` takes a fresh fork of the caller's match.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match
from scorer.table import TableState
from scorer.tracker import commits, repair
from scorer.tracker.fit import Scorer, predicted, visible_names
from scorer.tracker.hooks import GAME_HOOKS, GameHooks
from scorer.tracker.options import TrackerOptions
from scorer.tracker.search import Search
from scorer.tracker.sequences import applied, diverse, path_key
from scorer.tracker.values import Desync, Evidence, Explanation, Question, Shown, Update


class Tracker:
    """Follows one match from settled table states.

    Its state below is shared with :mod:`scorer.tracker.commits` and :mod:`scorer.tracker.repair`,
    whose functions act on it."""

    def __init__(self, match: Match, options: TrackerOptions | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.match = match.fork()
        """The tracker's own fork of the match (module docstring): the committed game as it follows it."""
        self.options = options or TrackerOptions()
        self.clock = clock
        """The match's time now, in seconds since it started, stamped as the ``at`` of each event
        the tracker commits (what drives Bagaji's session clock, rules B13); None: no ``at``."""
        self._hooks: GameHooks = GAME_HOOKS.get(match.GAME, GameHooks())
        self._shown: Shown = ()
        """Shown hands still lying on the committed game's table."""
        self.question: Question | None = None
        self.desync: Desync | None = None
        self.last_table: TableState | None = None
        self._hyps: list[Explanation] = [Explanation((), 0.0)]
        """The hypotheses, cheapest first: events not yet committed."""
        self._signature: tuple | None = None
        """The signature of the table last explained (None: explain the next one afresh)."""
        self._actors: list[int] = []
        self._idle: set[int] = set()
        self._history: dict[str, list[str]] = {}
        self._reached: set[str] = set()
        """The evidence gathered since the table last changed (:class:`~scorer.tracker.values.Evidence`)."""
        self._lead: tuple | None = None
        """The events leading to be committed, by sight, since :attr:`_lead_since` (s)."""
        self._lead_since = 0.0
        self._equivalent: tuple[tuple, tuple[Event, ...]] | None = None
        """The close hypotheses last compared by :func:`~scorer.tracker.commits.same_outcome_prefix`,
        and its answer."""
        self._repair_armed = True
        """Whether a repair may be tried: once per stretch out of sync."""
        self._commits_seen: list[tuple[int, TableState]] = []
        """(event count after a commit, the table it was committed on), the last ones."""
        self._noise: dict[str, tuple[Counter[str], Counter[str]]] = {}
        """Per seat zone, the names seen there but not expected and those expected but not seen
        just after the last commit that left nothing pending (:func:`~scorer.tracker.fit.seat_noise`)."""
        self._ambiguous_since: float | None = None
        self._unexplained_since: float | None = None
        self._reread_for: tuple | None = None
        """The signature of the table whose contradicted zones were last asked to be read again."""
        self._hidden_since: float | None = None
        """Table time (s) since which a hand laid face up has had cards the camera did not see."""
        self._unseen_asked: int | None = None
        """The match's event count when the source's end last asked an ``unseen`` question."""
        self._entry = False
        """A player answered "something else": wait for what they enter by hand (:meth:`something_else`)."""
        self._resync_tried: set[tuple] = set()
        """Signatures of the tables a resync searched for while out of sync (each once:
        :func:`scorer.tracker.repair.resync`); forgotten once back in sync."""

    # ------------------------------------------------------------------ the expected table
    def expected(self) -> TableState:
        """The table the committed match implies now (shown hands still lying included)."""
        return TableState.from_counts(predicted(self.match, self._shown))

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
        signature = table.signature()
        if self._entry:
            return Update(state="entry")
        if self.match.is_over:
            return self._after_the_end(table, at, signature)
        if signature != self._signature:
            self._signature = signature
            evidence = Evidence(tuple(self._actors), frozenset(self._idle),
                                {z: frozenset(n) for z, n in self._history.items()}, frozenset(self._reached))
            self._extend(table, evidence)
            self._actors, self._idle, self._history, self._reached = [], set(), {}, set()
        elif self._actors:
            # arms that came and went without changing the table: evidence of a silent event
            self._idle.update(self._actors)
            self._actors = []
            self._reached = set()
        return self._decide(table, at)

    def _after_the_end(self, table: TableState, at: float, signature: tuple) -> Update:
        """The match is over: cards being gathered are what the table should show. A table that
        keeps showing cards the final table does not (fit worse than ``max_cost``, gathered cards
        free) is out of sync, as if the game had been taken as over too soon
        (:func:`scorer.tracker.repair.unexplained`, whose resync may take back its last events)."""
        if signature != self._signature:
            self._signature = signature
            scorer = Scorer(table, self.options, self._noise)
            fit = scorer.cost(predicted(self.match, self._shown), gathering=True)
            self._hyps = [Explanation((), fit, 0.0, (), self._shown)]
        best = self._hyps[0]
        if best.cost > self.options.max_cost:
            return repair.unexplained(self, table, at, replace(best, cost=math.inf))
        self._unexplained_since = None
        self.desync = None
        return Update(state="synced")

    def _extend(self, table: TableState, evidence: Evidence) -> None:
        """Every hypothesis extended to explain ``table``; the cheapest kept."""
        scorer = Scorer(table, self.options, self._noise)
        search = Search(self.match, self.options, self._hooks, visible_names(table, evidence.history))
        found: dict[tuple, Explanation] = {}
        floor = self._hyps[0].cost if self._hyps else 0.0
        window = self.options.extend_within
        for hyp in self._hyps:
            if math.isfinite(floor) and hyp.cost - floor > window:
                break
            for ext in search.extend(hyp, table, scorer, evidence):
                k = path_key(ext.events)
                if k not in found or found[k].cost > ext.cost:
                    found[k] = ext
        ranked = diverse(sorted(found.values(), key=lambda e: e.cost), self.options.hypotheses)
        if ranked:
            low = min(h.debt for h in ranked)
            ranked = [replace(h, cost=h.cost - low, debt=h.debt - low) for h in ranked]
        self._hyps = ranked or [Explanation((), math.inf)]

    def _decide(self, table: TableState, at: float) -> Update:
        """:meth:`_decided`, and the zones to read again (:attr:`Update.reread`), asked once per
        table seen: the seat zones where the events just committed laid cards face up (a call's
        meld, a hand shown: the camera reads them again, closely); a hand laid down with cards not
        seen; and, when the tracker is not in sync with what it sees, where the leading
        explanation's table and the seen one differ."""
        update = self._decided(table, at)
        if table.signature() == self._reread_for:
            return update
        laid = laid_face_up(update.committed)
        if laid and update.state == "synced":
            # cards laid face up at a seat (a call, a hand shown): read them again, closely, once
            self._reread_for = table.signature()
            return replace(update, reread=frozenset(f"seat:{seat}" for seat in laid))
        if update.state in ("synced", "question") and not (update.best and update.best.events):
            partly = self._hooks.partly_shown(self.match)
            if partly:
                # a hand laid face up with cards not seen: read its zone again
                self._reread_for = table.signature()
                return replace(update, reread=frozenset(f"seat:{seat}" for seat in partly))
        if update.state == "synced":
            return update
        self._reread_for = table.signature()
        best = self._hyps[0] if self._hyps and math.isfinite(self._hyps[0].cost) else Explanation((), 0.0, 0.0, (), self._shown)
        with applied(self.match, best.events) as legal:
            if not legal:
                return update
            expected = TableState.from_counts(predicted(self.match, best.shown))
        zones = frozenset(z for z in set(expected.zones) | set(table.zones)
                          if expected.zone(z).names() != table.zone(z).names())
        return replace(update, reread=zones) if zones else update

    def _decided(self, table: TableState, at: float) -> Update:
        """After ``table`` (seen at ``at``, s) was explained: an open repair or confirm question
        waits for its answer; a poor fit is out of sync; else commit, wait or ask."""
        if self.question is not None and self.question.kind in ("repair", "confirm"):
            return Update(state="question", question=self.question)
        best = self._hyps[0]
        if repair.poor_fit(self, best):
            return repair.unexplained(self, table, at, best)
        # in sync: a desync ends, and the next stretch out of sync may try a repair again
        self._unexplained_since = None
        self.desync = None
        self._repair_armed = True
        self._resync_tried.clear()
        return commits.decide(self, table, at, best)

    # ------------------------------------------------------------------ the end of the source
    def finish(self, at: float) -> Update:
        """The source ended at table time ``at`` (s): no later table will settle what is open.

        Events the best hypothesis leads with are committed without waiting for ``hold_s``; an
        ambiguity between close hypotheses becomes a ``which-event`` question now; a table no legal
        event explains is reported out of sync (at once, as if ``desync_after_s`` had passed). Then,
        when the round may have ended by events that leave no trace (Hachi-hachi: a round settled
        by declarations alone), an ``unseen`` question asks whether it did: its candidates are that
        nothing more happened and the shortest traceless sequences that settle the round, in the
        order :func:`scorer.tracker.commits.finish` says."""
        if self.match.is_over:
            return Update(state="synced")
        if self.question is not None:
            return Update(state="question", question=self.question)
        best = self._hyps[0]
        if self.last_table is not None and repair.poor_fit(self, best):
            self._unexplained_since = min(self._unexplained_since or at, at - self.options.desync_after_s)
            self._repair_armed = self._repair_armed and math.isfinite(best.cost)
            return repair.unexplained(self, self.last_table, at, best)
        return commits.finish(self, at)

    # ------------------------------------------------------------------ corrections
    def assert_table(self, table: TableState, at: float) -> Update:
        """A player's word that ``table`` (what the camera sees now) is right: "the table is like
        this". The legal events that turn the committed game's table into it, found by a deeper
        search than a table change gets (up to :data:`~scorer.tracker.options.ASSERT_DEPTH` events
        that change the table), are committed; when none explains it within ``max_cost`` it is a
        desync that says what differs; when several explain it as well, a ``which-event`` question.
        Hypotheses start afresh (:func:`scorer.tracker.repair.assert_table`)."""
        return repair.assert_table(self, table, at)

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
        """Answer the open question with its candidate ``index``: its events are committed (after
        the committed events a repair's candidate retracts are taken back). A ``confirm`` answer
        keeps the hypotheses that agree with it."""
        if self.question is None:
            raise ScorerError("there is no open question")
        if not 0 <= index < len(self.question.candidates):
            raise ScorerError(f"choose 0-{len(self.question.candidates) - 1}, not {index}")
        chosen = self.question.candidates[index]
        if self.question.kind == "confirm":  # the hypotheses that agree with it go on
            done = commits.commit(self, chosen.events)
            if self.last_table is not None:
                commits.note_commit(self, self.last_table)
                commits.update_noise(self, self.last_table)
            return done
        if chosen.retract:
            for _ in range(chosen.retract):
                self.match.undo()
            chosen = replace(chosen, retract=0)
        self._hyps = [chosen]
        done = commits.commit(self, chosen.events)
        if self.last_table is not None:
            commits.note_commit(self, self.last_table)
        return done

    def something_else(self) -> None:
        """A player's answer to the open question: none of its candidates happened. The players
        enter what did by hand (the dashboard's manual entry); the tracker commits nothing and asks
        nothing meanwhile (its updates say ``entry``) and follows again from :meth:`resync` (the
        game they entered) or :meth:`apply`. ScorerError when no question is open."""
        if self.question is None:
            raise ScorerError("there is no open question")
        self._restart()
        self._entry = True

    def _restart(self) -> None:
        """Hypotheses afresh from the committed game; no lead, question or desync."""
        self._entry = False
        self._hyps = [Explanation((), 0.0, 0.0, (), self._shown)]
        self._hidden_since = None
        self._unseen_asked = None
        self._signature = None
        self._lead = None
        self._ambiguous_since = None
        self._unexplained_since = None
        self.question = None
        self.desync = None


def laid_face_up(events: tuple[Event, ...]) -> tuple[int, ...]:
    """Seats at which ``events`` lay named cards face up: events with a ``seat`` and a non-empty
    ``cards`` of card ids (a call's meld, a hand shown), in order, each seat once."""
    seats: list[int] = []
    for e in events:
        seat, cards = getattr(e, "seat", None), getattr(e, "cards", None)
        if isinstance(seat, int) and isinstance(cards, tuple) and cards and all(isinstance(c, str) for c in cards) \
                and seat not in seats:
            seats.append(seat)
    return tuple(seats)
