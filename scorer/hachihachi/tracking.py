"""What the tracker needs to know of Hachi-hachi (:class:`scorer.tracker.hooks.GameHooks`): a teyaku
claim or a buy-out shows cards in the seat zone; seat zones hold overlapping capture rows."""

from __future__ import annotations

from scorer.events import Event
from scorer.hachihachi import teyaku as ty
from scorer.match import Match
from scorer.tracker.hooks import ShowHooks


class HachiHachiHooks(ShowHooks):
    claim_types = ("claim", "buyout")
    seat_rows = True

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        types = match.EVENTS.types()
        out: list[Event] = [types["buyout"](seat, cards)]
        for name in ty.STANDARD_VALUES:
            out.append(types["claim"](seat, name, cards))
        return out


HOOKS = HachiHachiHooks()
