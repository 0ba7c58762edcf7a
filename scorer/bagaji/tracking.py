"""What the tracker needs to know of Bagaji (:class:`scorer.tracker.hooks.GameHooks`): hidden hands
make every unseen card legal, so only events whose cards the table shows are tried; the showdown
lays a hand face up in the seat zone."""

from __future__ import annotations

from scorer.events import Event
from scorer.match import Match
from scorer.table import sight_name
from scorer.tracker.hooks import ShowHooks


class BagajiHooks(ShowHooks):
    claim_types = ()

    def plausible(self, events: list[Event], visible: frozenset[str]) -> list[Event]:
        """Hidden hands make every unseen card a legal discard, exposure or show: keep those whose
        cards the table shows (shows come from :meth:`shows`), every call (its pair must match the
        last discard: few, and a misread pair must still be tried), and draws of an unseen card
        (nobody but the drawer sees it) where the engine offers one."""
        blind = {ev.seat for ev in events if ev.TYPE == "draw" and ev.card is None}  # type: ignore[attr-defined]
        out = []
        for ev in events:
            if ev.TYPE == "show" or (ev.TYPE == "draw" and ev.card is not None and ev.seat in blind):  # type: ignore[attr-defined]
                continue
            if ev.TYPE == "call":
                out.append(ev)
                continue
            cards = (ev.card,) if ev.TYPE == "discard" else getattr(ev, "cards", ())  # type: ignore[attr-defined]
            if all(sight_name(c) in visible for c in cards):
                out.append(ev)
        return out

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        return [match.EVENTS.types()["show"](seat, cards)]


HOOKS = BagajiHooks()
