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
tracker is *out of sync* (:class:`Desync`, the differences in words) until the table and the game
agree again or a correction arrives; before it says so it tries to repair one misread card of a
recently committed event.

The rules in full, one concern per module:

- :mod:`.options`: :class:`TrackerOptions` and the limits of the deeper searches.
- :mod:`.values`: the frozen values (:class:`Explanation`, :class:`Question`, :class:`Desync`,
  :class:`Update`, the evidence of arms).
- :mod:`.fit`: a predicted table's cost against the table seen (natural-log units), seat-zone
  noise, the fit that decides sync, shown hands.
- :mod:`.sequences`: event sequences compared by sight, and tried on the tracker's fork.
- :mod:`.search`: the beam search over legal events and what each event costs.
- :mod:`.commits`: what is committed when, same-outcome prefixes, questions, the source's end.
- :mod:`.repair`: out of sync, repairs of a misread committed card, "the table is like this".
- :mod:`.hooks`: per game, how deals and shown hands look and which events are worth trying.
- :mod:`.tracker`: the :class:`Tracker` itself: its state, updates and corrections.

The tracker works on its own fork of the match (:meth:`scorer.match.Match.fork`): its search
applies and takes back events there, never on the caller's match. What it commits is in each
:class:`Update` (``retracted``, then ``committed``) and in what :meth:`Tracker.choose` returns: the
caller applies those to its own match (a session does so under its lock). Corrections
(:meth:`Tracker.undo`, :meth:`Tracker.apply`, :meth:`Tracker.choose`) act on the tracker's fork at
once and start the hypotheses afresh; :meth:`Tracker.resync` takes a fresh fork of the caller's
match after a player changed it. Pure Python: no vision, no I/O.
"""

from __future__ import annotations

from scorer.tracker.hooks import GAME_HOOKS, GameHooks
from scorer.tracker.options import (
    ASSERT_BEAM,
    ASSERT_DEPTH,
    REPAIR_EVENTS,
    REPAIR_SEARCHES,
    TrackerOptions,
)
from scorer.tracker.tracker import Tracker
from scorer.tracker.values import Desync, Explanation, Question, Update

__all__ = [
    "ASSERT_BEAM",
    "ASSERT_DEPTH",
    "GAME_HOOKS",
    "REPAIR_EVENTS",
    "REPAIR_SEARCHES",
    "Desync",
    "Explanation",
    "GameHooks",
    "Question",
    "Tracker",
    "TrackerOptions",
    "Update",
]
