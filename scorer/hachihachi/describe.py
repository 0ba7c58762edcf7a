"""Hachi-hachi beyond its engine: the table's ``field``, hanafuda, points on the counter, its tracker
hooks (:mod:`.tracking`) and where the cards go when a play, draw or declaration settled the round."""

from __future__ import annotations

from scorer.events import Event
from scorer.games import CounterScale, GameDescription
from scorer.places import Places


def final_places(before: Places, ev: Event) -> Places:
    """The table change of a play or draw (the card matched on the field and captured, or laid
    there) or of a declaration to retire (the hand to the stock) that settled the round."""
    t = ev.TYPE
    seat = getattr(ev, "seat", None)
    if t in ("play", "draw"):
        src = f"hand:{seat}" if t == "play" else "stock"
        month = ev.card[:2]  # type: ignore[attr-defined]
        matches = [c for c in before["field"].known if c[:2] == month]
        taken = [] if not matches else ([ev.capture] if len(matches) == 2 else matches)  # type: ignore[attr-defined]
        out = before.take(src, ev.card)  # type: ignore[attr-defined]
        if not taken:
            return out.put("field", ev.card)  # type: ignore[attr-defined]
        out = out.put(f"captured:{seat}", ev.card)  # type: ignore[attr-defined]
        for c in taken:
            out = out.move(c, "field", f"captured:{seat}")
        return out
    if t == "declare" and not ev.play:  # type: ignore[attr-defined]
        return before.move_all(f"hand:{seat}", "stock")
    return before


DESCRIPTION = GameDescription(
    centre_zone="field",
    deck_family="hanafuda",
    counter=CounterScale(points_per_led=30),
    tracking="scorer.hachihachi.tracking",
    passes=({"type": "declare", "play": False},),
    final_places=final_places,
)
"""Hachi-hachi: 30 points per LED (12 points a kan: 2.5 kan per LED; ±300 points fill a row)."""
