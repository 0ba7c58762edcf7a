"""What the tracker needs to know of each game beyond its engine (:class:`GameHooks`, per game in
:data:`GAME_HOOKS`, each game's own in ``scorer/<game>/tracking.py``).

A deal is built from the table: the engine's own random deal in observer form (hands and stock as
counts, the face-up cards as seen; :func:`scorer.deals.observer_deal`), one per possible dealer and
per set of face-up cards the table may show when the camera invented or missed one
(:func:`face_up_names`).
Shown hands (Poka's claims, Hachi-hachi's claims and buy-outs, Bagaji's showdown) are built from
the cards that appear in a seat zone beyond what is expected there; they stay part of the expected
table until they are picked up again (:mod:`scorer.tracker.fit`). Hooks also say which legal events
are worth trying (Bagaji's hidden hands make every unseen card legal), which zone an event takes a
card from and whose arm carries it out (the evidence of arms: :mod:`scorer.tracker.search`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields

from scorer.deals import observer_deal
from scorer.errors import IllegalEventError, ScorerError
from scorer.events import Event
from scorer.match import Match
from scorer.table import SeenCard, TableState, expected_table, sight_name


def ids_for(names: Iterable[str], pool: Counter[str]) -> list[str] | None:
    """Card ids for sight names, taken from ``pool`` (a multiset of ids); None when one is missing."""
    pool = Counter(pool)
    out = []
    for n in names:
        choice = next((cid for cid in sorted(pool) if pool[cid] > 0 and sight_name(cid) == n), None)
        if choice is None:
            return None
        pool[choice] -= 1
        out.append(choice)
    return out


def deck_ids(match: Match) -> Counter[str]:
    """Every card id of ``match``'s deck, with its number of copies."""
    from scorer.cards import deck

    return Counter(deck(match.deck).cards)


def face_up_names(cards: Sequence[SeenCard], want: int, names: Iterable[str]) -> list[list[str]]:
    """The sight names a deal that lays ``want`` cards face up may have laid, given the ``cards``
    seen there (a real camera invents and misses cards):

    * as many seen as laid, or more: the names of the ``want`` surest (the others taken for
      phantoms: slivers, a second outline; a card misread is put right later by a repair,
      :mod:`scorer.tracker.repair`);
    * one fewer seen than laid, of several laid (a field: one card missed among many; a lone
      card not seen is more likely not laid yet): the seen names and each other name of ``names``
      (the deck's) in turn for the card not seen: the fit cannot tell them apart, so the tracker
      waits (and asks for the zone to be read again) or asks the players.
    """
    ranked = sorted(cards, key=lambda c: -c.confidence)
    seen = [c.name for c in ranked]
    if len(ranked) >= want:
        return [seen[:want]]
    if len(ranked) == want - 1 and want > 1:
        return [seen + [n] for n in sorted(set(names))]
    return []


def _observer_deals(template: Event, table: TableState, match: Match, dealer: int | None) -> list[Event]:
    """``template`` (a random deal from the engine) in observer form (:func:`scorer.deals.observer_deal`)
    with the face-up cards the table may show (:func:`face_up_names`); empty where none can be that deal's."""
    ids = deck_ids(match)
    all_names = sorted({sight_name(c) for c in ids})
    options: dict[str, list[list[str]]] = {}
    for f in fields(template):
        if f.name in ("field", "table"):
            value = getattr(template, f.name)
            want = len(value) if isinstance(value, tuple) else 1
            zone = "field" if f.name == "field" else "pile"
            found = []
            for names in face_up_names(table.zone(zone).up, want, all_names):
                got = ids_for(sorted(names) if f.name == "field" else names, ids)
                if got is not None:
                    found.append(got)
            if not found:
                return []
            options[f.name] = found
    out: list[Event] = []
    keys = list(options)
    combos: list[dict[str, list[str]]] = [{}]
    for k in keys:
        combos = [{**c, k: v} for c in combos for v in options[k]]
    for face_up in combos:
        try:
            out.append(observer_deal(match, face_up, dealer, template))
        except IllegalEventError:
            continue
    return out


class GameHooks:
    """What the tracker needs to know of a game beyond its engine: how a deal and a shown hand look.
    The defaults build observer deals from the engine's own random deal and show nothing."""

    stock_reach_means_draw = False
    """True where nothing but a draw or table card takes a hand to the stock."""
    seat_rows = False
    """True where seat zones hold overlapping capture rows (Hachi-hachi), read as slivers."""

    def deals(self, match: Match, table: TableState) -> list[Event]:
        """Candidate deals that would leave ``table``'s face-up cards (one per possible dealer)."""
        import random

        try:
            template = match.random_event(random.Random(0))
        except ScorerError:
            return []
        if template.TYPE != "deal":
            return []
        dealer_known = match.to_play()
        seats = [dealer_known] if dealer_known else list(range(1, len(match.players) + 1))
        out = []
        for seat in seats:
            out.extend(ev for ev in _observer_deals(template, table, match, seat if hasattr(template, "dealer") else None)
                       if match.check(ev) is None)
            if not hasattr(template, "dealer"):
                break
        return out

    def shows(self, match: Match, table: TableState) -> list[Event]:
        """Candidate events that lay cards face up in a seat zone (claims, buy-outs, showdowns)."""
        return []

    def partly_shown(self, match: Match) -> tuple[int, ...]:
        """The seats whose hand the rules have laid face up but some of whose cards no show has
        named yet (a camera missed them): their zones are read again and, when they stay unseen,
        the players are asked (:meth:`completing_shows`). None by default."""
        return ()

    def completing_shows(self, match: Match, seat: int) -> list[Event]:
        """The events that would name the cards of ``seat``'s partly shown hand that are still
        concealed (:meth:`partly_shown`), every way the unseen cards allow."""
        return []

    def plausible(self, events: list[Event], visible: frozenset[str]) -> list[Event]:
        """The legal events worth trying, ``visible`` being every sight name the table shows or a
        pile showed meanwhile (all of them by default)."""
        return events

    def source_zone(self, ev: Event) -> str | None:
        """The table zone ``ev`` takes a card from (the stock for a draw or a table card), where
        an arm's hand must have gone."""
        return "stock" if ev.TYPE in ("draw", "table-card") else None

    def actor(self, match: Match, ev: Event) -> int | None:
        """The seat whose arm carries out ``ev`` (applied last to ``match``): its ``seat``, else
        the dealer of the round (who turns table cards)."""
        seat = getattr(ev, "seat", None)
        if seat is not None:
            return seat
        dealer = getattr(match.state, "dealer", None)
        return dealer if isinstance(dealer, int) and dealer > 0 else None

    def shown_zone(self, match: Match, ev: Event) -> tuple[str, list[str]] | None:
        """For an event that lays cards face up and then takes them back: (zone, sight names)."""
        return None


def _new_in_seats(match: Match, table: TableState, expected: TableState) -> dict[int, list[str]]:
    """Per seat, the face-up names seen in its zone beyond what is expected there."""
    out: dict[int, list[str]] = {}
    for z, s in table.zones.items():
        if not z.startswith("seat:"):
            continue
        extra = s.names() - expected.zone(z).names()
        if extra:
            out[int(z.split(":")[1])] = sorted(extra.elements())
    return out


class ShowHooks(GameHooks):
    """Games where a claim shows cards from a hidden hand in the seat zone and takes them back."""

    claim_types: tuple[str, ...] = ("claim",)

    def shows(self, match: Match, table: TableState) -> list[Event]:
        places = match.table_places()
        if places is None or match.phase() == "deal":
            return []
        expected = expected_table(places, match.table_sitout())
        out: list[Event] = []
        for seat, names in _new_in_seats(match, table, expected).items():
            hand = places[f"hand:{seat}"]
            pool = Counter(places.unseen) + Counter(hand.known)
            ids = ids_for(names, pool)
            if ids is None:
                continue
            out.extend(ev for ev in self.claims(match, seat, tuple(ids)) if match.check(ev) is None)
        return out

    def claims(self, match: Match, seat: int, cards: tuple[str, ...]) -> list[Event]:
        """The show events by ``seat`` that could lay ``cards`` face up (checked by the caller)."""
        return []

    def shown_zone(self, match: Match, ev: Event) -> tuple[str, list[str]] | None:
        if ev.TYPE in self.claim_types:
            return f"seat:{ev.seat}", [sight_name(c) for c in ev.cards]  # type: ignore[attr-defined]
        return None


class _GameHooksByName(Mapping[str, GameHooks]):
    """Every registered game's hooks (``scorer/<game>/tracking.py``), imported on first use."""

    def __getitem__(self, name: str) -> GameHooks:
        from scorer.games import GAME_MODULES, game

        if name not in GAME_MODULES:
            raise KeyError(name)
        hooks: GameHooks = game(name).description.hooks
        return hooks

    def __iter__(self) -> Iterator[str]:
        from scorer.games import GAME_MODULES

        return iter(GAME_MODULES)

    def __len__(self) -> int:
        from scorer.games import GAME_MODULES

        return len(GAME_MODULES)


GAME_HOOKS: Mapping[str, GameHooks] = _GameHooksByName()
"""Per game: how its deals and shown hands look to the tracker (each game's
:attr:`scorer.games.GameDescription.hooks`)."""
