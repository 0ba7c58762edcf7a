"""What the tracker needs to know of Poka (:class:`scorer.tracker.hooks.GameHooks`): a claim shows
cards of the starting hand in the seat zone; only a draw or a table card takes a hand to the stock."""

from __future__ import annotations

from scorer.events import Event
from scorer.match import Match
from scorer.tracker.hooks import ShowHooks


class PokaHooks(ShowHooks):
    stock_reach_means_draw = True

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        cls = match.EVENTS.types()["claim"]
        return [cls(seat, cards, None)]


HOOKS = PokaHooks()
