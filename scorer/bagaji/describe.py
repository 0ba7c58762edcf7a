"""Bagaji beyond its engine: the table's ``discard``, playing cards, the counter's distance from the
mean, hands revealed at the end, unseen draws, its tracker hooks (:mod:`.tracking`) and where the
cards go when a discard or a call settled the round."""

from __future__ import annotations

from scorer.events import Event
from scorer.games import CounterScale, GameDescription
from scorer.places import Places


def final_places(before: Places, ev: Event) -> Places:
    """The table change of a discard (to the discard pile) or a call (the last discard and the
    caller's pair to a meld) that settled the round."""
    seat = getattr(ev, "seat", None)
    if ev.TYPE == "discard":
        return before.move(ev.card, f"hand:{seat}", "discard")  # type: ignore[attr-defined]
    if ev.TYPE == "call":
        top = before["discard"].known[-1]
        out = before.move(top, "discard", f"meld:{seat}")
        for c in ev.cards:  # type: ignore[attr-defined]
            out = out.move(c, f"hand:{seat}", f"meld:{seat}")
        return out
    return before


DESCRIPTION = GameDescription(
    centre_zone="discard",
    deck_family="playing",
    counter=CounterScale(points_per_led=10, from_mean=True, lower_is_better=True),
    tracking="scorer.bagaji.tracking",
    reveal=True,
    hidden_draws=True,
    final_places=final_places,
)
"""Bagaji: 10 points per LED from the table's mean (the lowest total wins)."""
