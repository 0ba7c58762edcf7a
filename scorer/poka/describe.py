"""Poka beyond its engine: the table's ``pile``, hanafuda, stones on the counter, its tracker hooks
(:mod:`.tracking`) and where a card goes when a play or table card settled the round."""

from __future__ import annotations

from scorer.events import Event
from scorer.games import CounterScale, GameDescription
from scorer.places import Places


def final_places(before: Places, ev: Event) -> Places:
    """The table change of a play or a table card that settled the round (the card to the pile)."""
    seat = getattr(ev, "seat", None)
    if ev.TYPE == "play":
        return before.move(ev.card, f"hand:{seat}", "pile")  # type: ignore[attr-defined]
    if ev.TYPE == "table-card":
        return before.move(ev.card, "stock", "pile")  # type: ignore[attr-defined]
    return before


DESCRIPTION = GameDescription(
    centre_zone="pile",
    deck_family="hanafuda",
    counter=CounterScale(points_per_led=1),
    tracking="scorer.poka.tracking",
    stock_as_count=False,
    passes=({"type": "pass"}, {"type": "no-claim"}),
    final_places=final_places,
)
"""Poka: one stone per LED."""
