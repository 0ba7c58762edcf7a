"""The tracker's frozen values: explanations (its hypotheses), questions for the players, desyncs,
what one :meth:`Tracker.update` did, and the evidence of arms seen over the table. Costs are in
natural-log units (lower is better), times in seconds of table time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from scorer.choices import MAX_CHOICES, SOMETHING_ELSE, Choice, choice_of
from scorer.events import Event

# A predicted table: zone -> (face-up names, face-down count).
Predicted = dict[str, tuple[Counter[str], int]]
# Cards laid face up by a show event that the engine no longer places on the table: (zone, names).
Shown = tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
Under = dict[str, Counter[str]]
"""Per seat zone, the expected names that may lie under other cards there."""


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
    committed card explain the table as well: :mod:`scorer.tracker.repair`) or ``unseen`` (the
    source ended where the round may have ended by events that leave no trace:
    :meth:`Tracker.finish`), ``hidden-card`` (a hand laid face up with cards the camera did not
    see: :func:`scorer.tracker.commits.hidden_cards`) or ``confirm`` (an event that changes stones, waiting for a
    player's word: :attr:`TrackerOptions.confirm_stones`)."""
    text: str
    candidates: tuple[Explanation, ...]
    """The choices, most likely first."""
    since: float
    """Table time (s) since which the ambiguity has lasted."""

    @property
    def choices(self) -> tuple[Choice, ...]:
        """The candidates as a player reads them (at most :data:`~scorer.choices.MAX_CHOICES`): each
        step's kind, seat and cards (:mod:`scorer.choices`); besides them every question offers
        "something else" (:data:`~scorer.choices.SOMETHING_ELSE`: :meth:`Tracker.something_else`)."""
        return tuple(choice_of(c.events, c.retract) for c in self.candidates[:MAX_CHOICES])

    def to_json(self) -> dict[str, Any]:
        """The question as data, never prose: ``kind``, ``since`` (s), ``choices`` (each ``retract``,
        ``steps`` with ``kind``/``seat``/``cards``/``detail``, and its ``events``) and
        ``something_else``: the answer that opens entry by hand, always offered."""
        return {"kind": self.kind, "since": round(self.since, 3), "choices": [c.to_json() for c in self.choices],
                "something_else": SOMETHING_ELSE}


@dataclass(frozen=True, slots=True)
class Desync:
    """The table and the game disagree and no legal event explains it."""

    text: str
    """What the game expects and what the camera sees, for players."""
    differences: tuple[str, ...]
    since: float
    zones: tuple[dict[str, object], ...] = ()
    """The differences as data, zone by zone (:meth:`scorer.table.TableState.zone_differences`)."""


@dataclass(frozen=True, slots=True)
class Update:
    """What one :meth:`Tracker.update` did."""

    committed: tuple[Event, ...] = ()
    """Events applied to the match by this update, in order (after the retracted ones were taken back)."""
    retracted: int = 0
    """Committed events this update took back first, the last ones (a repair: a record appends
    ``{"type": "undo", "count": retracted}`` before :attr:`committed`)."""
    state: str = "synced"
    """``synced``, ``waiting`` (events are being held or weighed), ``question``, ``out-of-sync`` or
    ``entry`` (a player said "something else" to a question: the tracker waits for what they enter
    by hand, :meth:`Tracker.something_else`)."""
    question: Question | None = None
    desync: Desync | None = None
    best: Explanation | None = None
    """The leading hypothesis (its events not yet committed)."""
    source: str = "camera"
    """How the tracker found :attr:`committed`: ``camera`` (it followed the table) or ``resync`` (it
    was out of sync and searched its way back: :func:`scorer.tracker.repair.resync`); a record
    writes it as the lines' source."""
    reread: frozenset[str] = frozenset()
    """Zones whose reading the game contradicts, to be read again (closer, at full camera
    resolution): the camera's stabiliser re-reads them (``vision.stabilise.Stabiliser.reread``)."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What was seen since the table last changed."""

    actors: tuple[int, ...]
    """Seats whose arms were seen over the table, in the order first seen."""
    idle: frozenset[int]
    """Seats whose arms came and went while the table did not change (a pass gesture)."""
    history: dict[str, frozenset[str]]
    """Per pile zone, the top names seen meanwhile (``TableState.history``)."""
    reached: frozenset[str] = frozenset()
    """Zones an arm's hand went to (``TableState.reached``)."""
