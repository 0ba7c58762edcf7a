"""What the tracker needs to know of Bagaji (:class:`scorer.tracker.hooks.GameHooks`): hidden hands
make every unseen card legal, so only events whose cards the table shows are tried; the showdown
lays a hand face up in the seat zone.

A shown hand is read by a camera that invents and misreads cards, and the round settles only once
every concealed card is known, so the showdown is built from the seat zone's cards as a hand can
be: each card under its likeliest name that the seat can still hold (a name whose every copy is
known elsewhere, such as a card discarded before, is a misreading: its next likeliest name is
taken, or the card is a phantom), no more cards than the seat conceals (the surest kept), and no
fewer than all but one (a hand is laid down whole; the camera may miss one of its cards)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from scorer.events import Event
from scorer.match import Match
from scorer.table import SeenCard, TableState, expected_table, sight_name
from scorer.tracker.hooks import ShowHooks, ids_for

SHOWDOWN = "showdown"
"""The engine's phase after a round ends, while the concealed hands are shown."""
MAX_COMPLETIONS = 200
"""At most this many ways to name a partly shown hand's missing cards are offered."""


def extra_cards(zone: tuple[SeenCard, ...], expected: Counter[str]) -> list[SeenCard]:
    """The cards of a seat zone beyond the ``expected`` sight names, surest first: the surest card
    seen under each expected name is taken for it."""
    left = Counter(expected)
    out = []
    for card in sorted(zone, key=lambda c: -c.confidence):
        if left[card.name] > 0:
            left[card.name] -= 1
        else:
            out.append(card)
    return out


def hand_names(cards: list[SeenCard], pool: Counter[str], size: int) -> list[str]:
    """The sight names a concealed hand of ``size`` cards taken from ``pool`` (card ids the seat may
    hold) can show, read from ``cards`` (surest first): each card under its likeliest name that the
    pool still has, cards with none dropped, at most ``size`` kept."""
    names_left = Counter(sight_name(c) for c in pool.elements())
    out: list[str] = []
    for card in cards:
        if len(out) == size:
            break
        name = next((n for n, _ in card.probs if names_left[n] > 0), None)
        if name is not None:
            names_left[name] -= 1
            out.append(name)
    return out


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

    def shows(self, match: Match, table: TableState) -> list[Event]:
        """The shows the seat zones may hold: as seen (:class:`ShowHooks`) and, in the showdown, as a
        concealed hand can be (module docstring)."""
        places = match.table_places()
        if places is None or match.phase() != SHOWDOWN:
            return super().shows(match, table)
        # a hand is laid down whole: a show may miss one card of it (the camera's), not more
        out = [ev for ev in super().shows(match, table)
               if len(ev.cards) >= places[f"hand:{ev.seat}"].size - 1]  # type: ignore[attr-defined]
        expected = expected_table(places, match.table_sitout())
        show = match.EVENTS.types()["show"]
        for z, state in table.zones.items():
            if not z.startswith("seat:"):
                continue
            seat = int(z.split(":")[1])
            hand = places[f"hand:{seat}"]
            if not hand.size:
                continue
            pool = Counter(places.unseen) + Counter(hand.known)
            names = hand_names(extra_cards(state.up, expected.zone(z).names()), pool, hand.size)
            ids = ids_for(names, pool) if names and len(names) >= hand.size - 1 else None
            if not ids:
                continue
            ev = show(seat, tuple(ids))
            if ev not in out and match.check(ev) is None:
                out.append(ev)
        return out

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        return [match.EVENTS.types()["show"](seat, cards)]

    def partly_shown(self, match: Match) -> tuple[int, ...]:
        """In the showdown, the seats that have shown some cards and still conceal others (a hand is
        laid down whole: the camera missed the rest)."""
        places = match.table_places()
        if places is None or match.phase() != SHOWDOWN:
            return ()
        return tuple(seat for seat in range(1, len(match.players) + 1)
                     if places[f"shown:{seat}"].size and places[f"hand:{seat}"].size)

    def completing_shows(self, match: Match, seat: int) -> list[Event]:
        """A show of ``seat``'s concealed cards: those known and each set of unseen cards that can
        fill the rest, by card id (at most :data:`MAX_COMPLETIONS`)."""
        places = match.table_places()
        if places is None:
            return []
        hand = places[f"hand:{seat}"]
        show = match.EVENTS.types()["show"]
        unseen = sorted(Counter(places.unseen).elements())
        out: list[Event] = []
        tried: set[tuple[str, ...]] = set()
        for fill in combinations(unseen, hand.hidden):  # drawn lazily: a big hand hides many
            if fill in tried:  # copies of one card give one fill
                continue
            tried.add(fill)
            ev = show(seat, tuple(hand.known) + fill)
            if match.check(ev) is None:
                out.append(ev)
                if len(out) == MAX_COMPLETIONS:
                    break
        return out


HOOKS = BagajiHooks()
