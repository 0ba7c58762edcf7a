"""The tracker's settings: :class:`TrackerOptions` (how it weighs evidence and when it commits,
asks or reports a desync) and the fixed limits of its deeper searches (a repair, a player's "the
table is like this"). Costs are in natural-log units, times in seconds of table time."""

from __future__ import annotations

from dataclasses import dataclass


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


REPAIR_EVENTS = 8
"""How many of the round's last committed events a repair may change (:mod:`scorer.tracker.repair`)."""
ASSERT_DEPTH = 8
"""Most events that change the table :meth:`Tracker.assert_table` looks for."""
ASSERT_BEAM = 32
"""Partial sequences :meth:`Tracker.assert_table` keeps at each step."""
RESYNC_BACK = (0, 1, 2, 3, 4, 6, 8)
"""How many committed events a resync may take back before it searches forward (never past the
round's deal; :func:`scorer.tracker.repair.resync`)."""
REPAIR_SEARCHES = 8
"""How many repairs are searched from: those whose repaired game alone fits the table best."""
