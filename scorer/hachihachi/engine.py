"""The Hachi-hachi match engine (rules H; rulesets in :mod:`scorer.hachihachi.options`).

A round: ``deal`` (misdeal when all four cards of a month lie on the table: the same dealer deals
again) → seven seated: ``sit-out`` by the blank's holder → ``declare`` from the dealer in seat
order until three play or all have declared → forced-out players may ``buyout`` before the first
card is played; active players may ``claim`` teyaku until the first stock card is turned → turns in
seat order from the acting dealer (the dealer, or the first player after the dealer who plays):
``play`` a card from hand, then ``draw`` the top stock card; a play or draw that matches the
field must capture (two matches: the player chooses; three: all four are taken); after a turn
that makes or improves a dekiyaku the player calls ``sage`` or ``shobu``; a player who called
sage may ``cancel`` at the start of a later turn. The round ends when the hands are empty, on
shōbu or on cancel; it is then settled (:mod:`scorer.hachihachi.settlement`).

Declarations: one player playing wins the pot; two play the two-player game (or, with
``two_players="split"``, share the pot and the same dealer deals again); nobody playing means the
same dealer deals again with nothing paid. Retirees' hands go back to the stock at once; the
forced-out hands go back when the first card is played (or after their buy-out).

Field multiplier (rules H3): from the six table cards after the deal (after the sit-out with seven);
queued multipliers are committed only when the round is settled, so a redeal consumes nothing.
The winner of a round deals the next; the match ends after ``rounds`` settled rounds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from scorer.cards import BLANK, all_cards, deck
from scorer.errors import IllegalEventError, InvalidEventError
from scorer.events import Event
from scorer.evolve import evolver
from scorer.hachihachi import dekiyaku as dk
from scorer.hachihachi import teyaku as ty
from scorer.hachihachi.events import (
    EVENTS,
    Buyout,
    Cancel,
    Claim,
    Deal,
    Declare,
    Draw,
    Play,
    Sage,
    Shobu,
    SitOut,
)
from scorer.hachihachi.options import Options
from scorer.hachihachi.settlement import Ending, RoundFacts, header, settlement
from scorer.match import Match, NotEnumerableError, RoundResult
from scorer.places import Place, Places

SIT_OUT = "sit-out"
DECLARE = "declare"
PLAY = "play"
DRAW = "draw"
CALL = "call"
MISDEAL = "misdeal"

HAND_SIZE = 7
FIELD_SIZE = 6
X2_BRIGHTS = frozenset({"01-crane", "03-curtain", "08-moon"})
X4_BRIGHTS = frozenset({"11-rainman", "12-phoenix"})

_MONTH: dict[str, int] = {c.id: c.month for c in all_cards("hanafuda").values()}


def month(cid: str) -> int:
    """Month of a hanafuda card id (0 for the blank)."""
    return _MONTH[cid]


def hand(seat: int) -> str:
    """Place name of a seat's hand."""
    return f"hand:{seat}"


def captured(seat: int) -> str:
    """Place name of a seat's capture pile."""
    return f"captured:{seat}"


@dataclass(frozen=True, slots=True)
class RoundState:
    """One round in progress."""

    number: int
    """Round number, from 1 (settled rounds + 1)."""
    dealer: int
    """Seat that dealt."""
    phase: str
    """``sit-out``, ``declare``, ``play``, ``draw``, ``call`` or ``misdeal``."""
    places: Places
    seated: tuple[int, ...]
    """Seats dealt in, in seat order from the dealer (the sit-out seat removed)."""
    declarations: tuple[tuple[int, bool], ...] = ()
    active: tuple[int, ...] = ()
    """Playing seats in turn order from the acting dealer."""
    retired: tuple[int, ...] = ()
    forced: tuple[int, ...] = ()
    sitout: int | None = None
    multiplier: int = 1
    queue: tuple[int, ...] = ()
    """The field queue after this round's multiplier was taken."""
    turn: int = 0
    """Index in ``active`` of the seat to play."""
    turns: int = 0
    """Completed turns."""
    stock_turned: bool = False
    claims: tuple[tuple[int, str], ...] = ()
    buyouts: tuple[tuple[int, tuple[str, ...]], ...] = ()
    played: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """(seat, cards played from hand)."""
    yaku: tuple[tuple[int, int], ...] = ()
    """(seat, dekiyaku kan acknowledged by the last call)."""
    sage: tuple[int, ...] = ()
    caller: int | None = None
    """Seat that must call sage or shōbu."""

    def to_play(self) -> int:
        """The seat whose turn it is."""
        return self.active[self.turn]


@dataclass(frozen=True, slots=True)
class MatchState:
    """A whole match."""

    results: tuple[RoundResult, ...] = ()
    queue: tuple[int, ...] = ()
    """Field multipliers waiting for later rounds."""
    next_dealer: int | None = None
    """Seat that must deal next (None: any, for the first round)."""
    round: RoundState | None = None
    over: bool = False
    last_table: Places | None = None
    """Where the cards lay when the last round ended (settled or redealt): they stay on the table
    until the next deal gathers them."""
    last_sitout: int | None = None
    """The seat that sat out the last round (its blank lies in its zone)."""

    @property
    def places(self) -> Places | None:
        """The current round's cards, or None between rounds."""
        return self.round.places if self.round else None


_evolve_round = evolver(RoundState)
_evolve_match = evolver(MatchState)


def replace(obj: RoundState | MatchState, **changes: Any) -> Any:
    """A copy of a state with some fields changed (fast path for the two state classes)."""
    if type(obj) is RoundState:
        return _evolve_round(obj, **changes)
    return _evolve_match(obj, **changes)


def _lookup(pairs: tuple[tuple[int, Any], ...], seat: int, default: Any) -> Any:
    for s, v in pairs:
        if s == seat:
            return v
    return default


def _set(pairs: tuple[tuple[int, Any], ...], seat: int, value: Any) -> tuple[tuple[int, Any], ...]:
    out = [(s, v) for s, v in pairs if s != seat]
    out.append((seat, value))
    return tuple(sorted(out))


def _illegal(rule: str, message: str) -> IllegalEventError:
    return IllegalEventError(rule, message)


class HachiHachi(Match):
    """A Hachi-hachi match for 3-7 seated players (three play each round)."""

    GAME = "hachi-hachi"
    UNIT = "points"
    EVENTS = EVENTS
    options: Options

    @classmethod
    def default_deck(cls, options: Any, n_players: int) -> str:
        return "hanafuda+blank" if n_players == 7 else "hanafuda"

    def _check_setup(self) -> None:
        n = len(self.players)
        if not 3 <= n <= 7:
            raise ValueError(f"Hachi-hachi seats 3 to 7 players, not {n}")
        want = self.default_deck(self.options, n)
        if self.deck != want:
            raise ValueError(f"Hachi-hachi with {n} players uses deck {want!r}, not {self.deck!r}")
        self._cards = deck(self.deck)

    def _initial_state(self) -> MatchState:
        return MatchState()

    def table_places(self) -> Places | None:
        st: MatchState = self._state
        return st.round.places if st.round is not None else st.last_table

    def table_sitout(self) -> int | None:
        st: MatchState = self._state
        return st.round.sitout if st.round is not None else st.last_sitout

    def phase(self) -> str:
        r = self._state.round
        if self._state.over:
            return "over"
        return "deal" if r is None or r.phase == MISDEAL else r.phase

    def expecting(self) -> str:
        r = self._state.round
        if self._state.over:
            return "the match is over"
        if r is None:
            who = self._state.next_dealer
            return f"seat {who} is to deal" if who else "a deal is due"
        return self._expecting(r)

    def to_play(self) -> int | None:
        r = self._state.round
        if r is None:
            return self._state.next_dealer
        if r.phase == CALL:
            return r.caller
        if r.phase in (PLAY, DRAW):
            return r.to_play()
        if r.phase == DECLARE:
            return self._next_declarer(r)
        return r.dealer

    # ------------------------------------------------------------------ transitions
    def _step(self, state: MatchState, event: Event) -> MatchState:
        r = state.round
        kind = type(event)
        if r is not None and (kind is Play or kind is Draw):
            if not 1 <= event.seat <= len(self.players):  # type: ignore[attr-defined]
                raise InvalidEventError(f"{event.TYPE}: no seat {event.seat} (seats 1-{len(self.players)})")  # type: ignore[attr-defined]
            return self._play(state, r, event) if kind is Play else self._draw(state, r, event)  # type: ignore[arg-type]
        if isinstance(event, Deal):
            return self._deal(state, event)
        if r is None:
            raise _illegal("deal-first", f"a round starts with a deal, not {event.TYPE} (rules H2.2)")
        seat = getattr(event, "seat", None)
        if seat is not None and not 1 <= seat <= len(self.players):
            raise InvalidEventError(f"{event.TYPE}: no seat {seat} (seats 1-{len(self.players)})")
        if isinstance(event, SitOut):
            return self._sit_out(state, r, event)
        if isinstance(event, Declare):
            return self._declare(state, r, event)
        if isinstance(event, Buyout):
            return replace(state, round=self._buyout(r, event))
        if isinstance(event, Claim):
            return replace(state, round=self._claim(r, event))
        if isinstance(event, Play):
            return self._play(state, r, event)
        if isinstance(event, Draw):
            return self._draw(state, r, event)
        if isinstance(event, Sage | Shobu):
            return self._call(state, r, event)
        if isinstance(event, Cancel):
            return self._cancel(state, r, event)
        raise _illegal("event-type", f"{event.TYPE} is not a Hachi-hachi event")

    def _deal(self, state: MatchState, ev: Deal) -> MatchState:
        r = state.round
        if r is not None and r.phase != MISDEAL:
            raise _illegal("deal-mid-round", "a deal is only allowed before a round starts (or after a misdeal) (rules H2.2, H2.3)")
        n = len(self.players)
        want = r.dealer if r is not None else state.next_dealer
        if not 1 <= ev.dealer <= n:
            raise InvalidEventError(f"deal: no seat {ev.dealer} (seats 1-{n})")
        if want is not None and ev.dealer != want:
            raise _illegal("dealer-rotation", f"seat {want} deals this round (the last round's winner), not seat {ev.dealer} (rules H2.1)")
        if len(ev.hands) != n:
            raise _illegal("deal-shape", f"the deal must give a hand to each of the {n} seats, not {len(ev.hands)} (rules H2.2)")
        field_size = 0 if n == 7 else FIELD_SIZE
        if len(ev.field) != field_size:
            raise _illegal("deal-shape", f"{field_size} cards are dealt face up to the table, not {len(ev.field)} (rules H2.2, H2.4)")
        places: dict[str, Place] = {}
        for i, h in enumerate(ev.hands):
            if isinstance(h, int):
                size = h
                places[hand(i + 1)] = Place((), h)
            else:
                for cid in h:
                    self._cards.validate(cid, "Hachi-hachi")
                size = len(h)
                places[hand(i + 1)] = Place(tuple(h), 0)
            if size != HAND_SIZE:
                raise _illegal("deal-shape", f"seat {i + 1} must be dealt {HAND_SIZE} cards, not {size} (rules H2.2)")
        for cid in ev.field:
            self._cards.validate(cid, "Hachi-hachi")
        places["field"] = Place(tuple(ev.field), 0)
        stock_size = len(self._cards) - n * HAND_SIZE - field_size
        if isinstance(ev.stock, int):
            if ev.stock != stock_size:
                raise _illegal("deal-shape", f"the stock must hold {stock_size} cards, not {ev.stock} (rules H2.2)")
            places["stock"] = Place((), ev.stock)
        else:
            if len(ev.stock) != stock_size:
                raise _illegal("deal-shape", f"the stock must hold {stock_size} cards, not {len(ev.stock)} (rules H2.2)")
            for cid in ev.stock:
                self._cards.validate(cid, "Hachi-hachi")
            places["stock"] = Place(tuple(ev.stock), 0)
        for s in range(1, n + 1):
            places[captured(s)] = Place()
        places["out"] = Place()
        try:
            table = Places.start(self._cards.cards, places)
        except IllegalEventError as exc:
            raise _illegal("deal-cards", f"the deal does not match the deck: {exc.message}") from None
        seated = tuple((ev.dealer - 1 + k) % n + 1 for k in range(n))
        number = len(state.results) + 1
        if n == 7:
            rs = RoundState(number, ev.dealer, SIT_OUT, table, seated)
            return replace(state, round=rs)
        rs = RoundState(number, ev.dealer, DECLARE, table, seated)
        return replace(state, round=self._open_field(state, rs))

    def _open_field(self, state: MatchState, r: RoundState) -> RoundState:
        """Set the field multiplier, or note a misdeal (four of a month on the table)."""
        field = r.places["field"].known
        counts: dict[int, int] = {}
        for cid in field:
            counts[month(cid)] = counts.get(month(cid), 0) + 1
        if counts and max(counts.values()) == 4:
            return replace(r, phase=MISDEAL)
        mult, queue = field_multiplier(field, state.queue, self.options)
        return replace(r, phase=DECLARE, multiplier=mult, queue=queue)

    def _sit_out(self, state: MatchState, r: RoundState, ev: SitOut) -> MatchState:
        if r.phase != SIT_OUT:
            raise _illegal("sit-out-timing", "only with seven seated, right after the deal, does the blank's holder sit out (rules H2.4)")
        if len(ev.cards) != FIELD_SIZE or len(set(ev.cards)) != FIELD_SIZE:
            raise _illegal("sit-out-cards", "the blank's holder lays its six other cards on the table (rules H2.4)")
        table = r.places.take(hand(ev.seat), BLANK).put("out", BLANK)
        for cid in ev.cards:
            self._cards.validate(cid, "Hachi-hachi")
            table = table.move(cid, hand(ev.seat), "field")
        seated = tuple(s for s in r.seated if s != ev.seat)
        rs = replace(r, places=table, seated=seated, sitout=ev.seat)
        return replace(state, round=self._open_field(state, rs))

    def _next_declarer(self, r: RoundState) -> int:
        done = {s for s, _ in r.declarations}
        return next(s for s in r.seated if s not in done)

    def _declare(self, state: MatchState, r: RoundState, ev: Declare) -> MatchState:
        if r.phase != DECLARE:
            raise _illegal("declare-timing", "declarations come after the deal and before play (rules H4.1)")
        who = self._next_declarer(r)
        if ev.seat != who:
            raise _illegal("declare-order", f"seat {who} declares next (declarations go in turn from the dealer; rules H4.1)")
        plays = sum(1 for _, p in r.declarations if p)
        left = len(r.seated) - len(r.declarations)
        if not ev.play and self.options.last_three_must_play and left <= 3 - plays:
            raise _illegal("last-three-must-play", f"seat {ev.seat} must play: only the remaining players can make up three (rules H4.4)")
        decl = r.declarations + ((ev.seat, ev.play),)
        table = r.places
        retired = r.retired
        if not ev.play:
            retired = retired + (ev.seat,)
            table = table.move_all(hand(ev.seat), "stock")
        r = replace(r, declarations=decl, retired=retired, places=table)
        plays += ev.play
        if plays < 3 and len(decl) < len(r.seated):
            return replace(state, round=r)
        players = tuple(s for s, p in decl if p)
        declared = {s for s, _ in decl}
        forced = tuple(s for s in r.seated if s not in declared)
        r = replace(r, active=players, forced=forced)
        if plays == 0:
            return replace(state, round=None, next_dealer=r.dealer, last_table=r.places, last_sitout=r.sitout)
        if plays == 1:
            return self._finish(state, r, Ending("one-player", players[0]))
        if plays == 2 and self.options.two_players == "split":
            return self._finish(state, r, Ending("split"))
        return replace(state, round=replace(r, phase=PLAY, turn=0))

    def _buyout(self, r: RoundState, ev: Buyout) -> RoundState:
        if self.options.compensation == "none":
            raise _illegal("no-compensation", "this ruleset pays no hand compensation (rules H4.3)")
        if ev.seat not in r.forced:
            raise _illegal("buyout-forced-only", f"only forced-out players are bought out; seat {ev.seat} is not forced out (rules H4.3)")
        if r.phase != PLAY or r.played:
            raise _illegal("buyout-timing", "a forced-out hand is shown before the first card is played (rules H4.3)")
        if _lookup(r.buyouts, ev.seat, None) is not None:
            raise _illegal("buyout-once", f"seat {ev.seat} has already been bought out (rules H4.3)")
        if len(ev.cards) != HAND_SIZE:
            raise _illegal("buyout-cards", f"a buy-out shows all {HAND_SIZE} cards of the hand (rules H4.3)")
        table = r.places
        for cid in ev.cards:
            self._cards.validate(cid, "Hachi-hachi")
            table = table.take(hand(ev.seat), cid).put("stock", cid)
        return replace(r, places=table, buyouts=r.buyouts + ((ev.seat, tuple(ev.cards)),))

    def _claim(self, r: RoundState, ev: Claim) -> RoundState:
        if r.phase not in (PLAY, DRAW) or r.stock_turned:
            raise _illegal("claim-timing", "teyaku are claimed after the declarations and before the first stock card is turned (rules H5.6)")
        if ev.seat not in r.active:
            raise _illegal("claim-active-only", f"seat {ev.seat} is not playing this round (rules H5.6)")
        if ev.teyaku not in ty.STANDARD_VALUES:
            raise InvalidEventError(f"claim: unknown teyaku {ev.teyaku!r}; teyaku are: {', '.join(ty.STANDARD_VALUES)}")
        group = ty.group_of(ev.teyaku)
        if any(s == ev.seat and ty.group_of(n) == group for s, n in r.claims):
            raise _illegal("claim-once-per-group", f"seat {ev.seat} has already claimed a group {group} teyaku (rules H5.6)")
        why = ty.consistent_claim(ev.teyaku, ev.cards, self.options.standing_triplets)
        if why:
            raise _illegal("claim-shown-cards", f"claim of {ev.teyaku}: {why} (rules H5.6)")
        table = r.places
        for cid in ev.cards:
            self._cards.validate(cid, "Hachi-hachi")
            if not table.can_take(hand(ev.seat), cid):
                raise _illegal("claim-card-in-hand", f"{cid} is not in seat {ev.seat}'s hand: {table._why_not(hand(ev.seat), cid)}")
            table = table.show(hand(ev.seat), cid)
        return replace(r, places=table, claims=r.claims + ((ev.seat, ev.teyaku),))

    def _captures(self, table: Places, cid: str, capture: str | None) -> tuple[str, ...]:
        """The field cards that ``cid`` takes (rules H6.2)."""
        m = month(cid)
        matches = [c for c in table["field"].known if month(c) == m]
        if not matches:
            if capture is not None:
                raise _illegal("capture-must-match-month", f"{capture} cannot be captured: no card of {cid}'s month is on the table (rules H6.2)")
            return ()
        if capture is not None and capture not in matches:
            raise _illegal("capture-must-match-month", f"{cid} can only capture a table card of the same month ({', '.join(matches)}), not {capture} (rules H6.2)")
        if len(matches) == 2:
            if capture is None:
                raise _illegal("capture-choice", f"{cid} matches two table cards ({', '.join(matches)}): say which one it captures (rules H6.2)")
            return (capture,)
        return tuple(matches)

    def _play(self, state: MatchState, r: RoundState, ev: Play) -> MatchState:
        if r.phase != PLAY:
            raise _illegal("turn-order", self._expecting(r))
        if ev.seat != r.to_play():
            raise _illegal("turn-order", f"it is seat {r.to_play()}'s turn, not seat {ev.seat}'s (rules H6.1)")
        self._cards.validate(ev.card, "Hachi-hachi")
        table = r.places
        if not r.played:
            for s in r.forced:
                table = table.move_all(hand(s), "stock")
        if not table.can_take(hand(ev.seat), ev.card):
            raise _illegal("card-in-hand", f"seat {ev.seat} cannot play {ev.card}: {table._why_not(hand(ev.seat), ev.card)}")
        taken = self._captures(table, ev.card, ev.capture)
        table = table.take(hand(ev.seat), ev.card)
        table = self._land(table, ev.seat, ev.card, taken)
        played = _set(r.played, ev.seat, _lookup(r.played, ev.seat, ()) + (ev.card,))
        return replace(state, round=replace(r, phase=DRAW, places=table, played=played))

    def _land(self, table: Places, seat: int, cid: str, taken: tuple[str, ...]) -> Places:
        if not taken:
            return table.put("field", cid)
        table = table.put(captured(seat), cid)
        for c in taken:
            table = table.move(c, "field", captured(seat))
        return table

    def _draw(self, state: MatchState, r: RoundState, ev: Draw) -> MatchState:
        if r.phase != DRAW:
            raise _illegal("turn-order", self._expecting(r))
        if ev.seat != r.to_play():
            raise _illegal("turn-order", f"seat {r.to_play()} turns the stock card, not seat {ev.seat} (rules H6.3)")
        self._cards.validate(ev.card, "Hachi-hachi")
        table = r.places
        if not table.can_take("stock", ev.card):
            raise _illegal("card-in-stock", f"{ev.card} cannot be drawn: {table._why_not('stock', ev.card)}")
        taken = self._captures(table, ev.card, ev.capture)
        table = self._land(table.take("stock", ev.card), ev.seat, ev.card, taken)
        r = replace(r, places=table, stock_turned=True)
        if self.options.dekiyaku:
            now = self._yaku_total(table, ev.seat)
            if now > _lookup(r.yaku, ev.seat, 0):
                return replace(state, round=replace(r, phase=CALL, caller=ev.seat))
        return self._next_turn(state, r)

    def _yaku_total(self, table: Places, seat: int) -> int:
        return dk.total_kan(
            dk.find(
                table[captured(seat)].known,
                inoshikacho=self.options.inoshikacho,
                nanatan_extra=self.options.nanatan_extra,
            )
        )

    def _next_turn(self, state: MatchState, r: RoundState) -> MatchState:
        turns = r.turns + 1
        if turns >= HAND_SIZE * len(r.active):
            return self._finish(state, replace(r, turns=turns), Ending("exhausted"))
        return replace(state, round=replace(r, phase=PLAY, turns=turns, turn=(r.turn + 1) % len(r.active), caller=None))

    def _call(self, state: MatchState, r: RoundState, ev: Sage | Shobu) -> MatchState:
        if r.phase != CALL:
            raise _illegal("call-timing", "sage or shōbu is called only after a turn that made or improved a dekiyaku (rules H7.3)")
        if ev.seat != r.caller:
            raise _illegal("call-timing", f"seat {r.caller} must call sage or shōbu, not seat {ev.seat} (rules H7.3)")
        total = self._yaku_total(r.places, ev.seat)
        r = replace(r, yaku=_set(r.yaku, ev.seat, total))
        if isinstance(ev, Shobu):
            return self._finish(state, r, Ending("shobu", ev.seat))
        sage = r.sage if ev.seat in r.sage else r.sage + (ev.seat,)
        return self._next_turn(state, replace(r, sage=sage))

    def _cancel(self, state: MatchState, r: RoundState, ev: Cancel) -> MatchState:
        if r.phase != PLAY or ev.seat != r.to_play():
            raise _illegal("cancel-timing", "cancel is called at the start of one's own turn (rules H7.4)")
        if ev.seat not in r.sage:
            raise _illegal("cancel-after-sage", f"only a player who called sage may cancel; seat {ev.seat} has not (rules H7.4)")
        return self._finish(state, r, Ending("cancel", ev.seat))

    def _expecting(self, r: RoundState) -> str:
        if r.phase == PLAY:
            return f"seat {r.to_play()} is to play a card from hand"
        if r.phase == DRAW:
            return f"seat {r.to_play()} is to turn the top stock card"
        if r.phase == CALL:
            return f"seat {r.caller} is to call sage or shōbu"
        if r.phase == DECLARE:
            return f"seat {self._next_declarer(r)} is to declare play or retire"
        if r.phase == SIT_OUT:
            return "the blank's holder is to sit out"
        return "a new deal is due"

    # ------------------------------------------------------------------ settlement
    def _finish(self, state: MatchState, r: RoundState, ending: Ending) -> MatchState:
        table = r.places
        acting = r.active[0] if r.active else r.dealer
        facts = RoundFacts(
            n_seats=len(self.players),
            dealer=acting,
            active=r.active,
            retired=r.retired,
            multiplier=r.multiplier,
            captured={s: table[captured(s)].known for s in r.active},
            dealt={s: _lookup(r.played, s, ()) + table[hand(s)].known for s in r.active},
            claims=r.claims,
            buyouts=r.buyouts,
            sage=r.sage,
            yaku={s: self._yaku_total(table, s) for s in r.active} if self.options.dekiyaku else {},
        )
        done = settlement(facts, ending, self.options)
        winner = done.winner
        prev = state.results[-1].totals if state.results else (0,) * len(self.players)
        totals = tuple(a + b for a, b in zip(prev, done.changes, strict=True))
        line, note = header(r.active, ending)
        result = RoundResult(r.number, r.dealer, winner, tuple(done.changes), totals, (line, *done.lines),
                             (note, *done.notes))
        results = state.results + (result,)
        over = len(results) >= self.options.rounds
        queue = r.queue if self.options.field_combine == "queue" else ()
        return MatchState(
            results=results,
            queue=queue,
            next_dealer=winner if winner is not None else r.dealer,
            round=None,
            over=over,
            last_table=table,
            last_sitout=r.sitout,
        )

    # ------------------------------------------------------------------ enumeration
    def legal_events(self) -> list[Event]:
        st: MatchState = self._state
        if st.over:
            return []
        r = st.round
        if r is None or r.phase == MISDEAL:
            raise NotEnumerableError("the next event is a deal: too many possibilities to list")
        if r.phase == SIT_OUT:
            for s in r.seated:
                known = r.places[hand(s)]
                if BLANK in known.known and known.hidden == 0:
                    return [SitOut(s, tuple(c for c in known.known if c != BLANK))]
            raise NotEnumerableError("the blank's holder is not known")
        if r.phase == DECLARE:
            s = self._next_declarer(r)
            out: list[Event] = [Declare(s, True)]
            plays = sum(1 for _, p in r.declarations if p)
            left = len(r.seated) - len(r.declarations)
            if not (self.options.last_three_must_play and left <= 3 - plays):
                out.append(Declare(s, False))
            return out
        if r.phase == CALL:
            assert r.caller is not None
            return [Sage(r.caller), Shobu(r.caller)]
        seat = r.to_play()
        out = []
        table = r.places
        if r.phase == PLAY:
            if seat in r.sage:
                out.append(Cancel(seat))
            if not r.played:
                for s in r.forced:
                    table = table.move_all(hand(s), "stock")
            for cid in table.candidates(hand(seat)):
                out.extend(Play(seat, cid, c) for c in self._capture_options(table, cid))
            if not r.played and self.options.compensation != "none":
                out.extend(self._buyout_options(r))
        else:
            for cid in table.candidates("stock"):
                out.extend(Draw(seat, cid, c) for c in self._capture_options(table, cid))
        if not r.stock_turned:
            out.extend(self._claim_options(r))
        return out

    def _capture_options(self, table: Places, cid: str) -> list[str | None]:
        m = _MONTH[cid]
        matches = [c for c in table["field"].known if _MONTH[c] == m]
        return matches if len(matches) == 2 else [None]

    def _buyout_options(self, r: RoundState) -> list[Event]:
        out: list[Event] = []
        for s in r.forced:
            h = r.places[hand(s)]
            if h.hidden == 0 and len(h.known) == HAND_SIZE and _lookup(r.buyouts, s, None) is None:
                out.append(Buyout(s, h.known))
        return out

    def _claim_options(self, r: RoundState) -> list[Event]:
        out: list[Event] = []
        o = self.options
        for s in r.active:
            h = r.places[hand(s)]
            dealt = _lookup(r.played, s, ()) + h.known
            if h.hidden or len(dealt) != HAND_SIZE:
                continue
            found = ty.evaluate(dealt, o.teyaku_scale, o.standing_triplets, o.aka_kan)
            claimed = {ty.group_of(n) for t, n in r.claims if t == s}
            if found.a and ty.GROUP_A not in claimed:
                months = set(found.a.months)
                whole = found.a.name in ("ichinishi", "shiso")
                shown = tuple(c for c in dealt if whole or month(c) in months)
                if all(c in h.known for c in shown):
                    out.append(Claim(s, found.a.name, shown))
            if found.b and ty.GROUP_B not in claimed:
                shown = tuple(c for c in dealt if ty.plain_class(c) == "plain")
                if all(c in h.known for c in shown):
                    out.append(Claim(s, found.b.name, shown))
        return out

    def random_event(self, rng: random.Random) -> Event:
        st: MatchState = self._state
        r = st.round
        if r is None or r.phase == MISDEAL:
            return self.random_deal(rng)
        if r.phase == DRAW:
            table = r.places
            stock = table["stock"]
            if stock.hidden:
                pool = sorted(table.unseen.elements()) + list(stock.known)
            else:
                pool = list(stock.known)
            cid = rng.choice(pool)
            return Draw(r.to_play(), cid, rng.choice(self._capture_options(table, cid)))
        if r.phase == PLAY and r.stock_turned and r.to_play() not in r.sage:
            # Only plays are legal here: draw the card, then the capture, without listing events.
            seat = r.to_play()
            cid = rng.choice(r.places.candidates(hand(seat)))
            return Play(seat, cid, rng.choice(self._capture_options(r.places, cid)))
        options = self.legal_events()
        if r.phase == DECLARE and len(options) == 2:
            # Players mostly play: a uniform choice would end most rounds at the declarations.
            return options[0] if rng.random() < 0.75 else options[1]
        return rng.choice(options)

    def random_deal(self, rng: random.Random) -> Deal:
        """A uniformly shuffled, fully known deal by the seat due to deal."""
        st: MatchState = self._state
        n = len(self.players)
        if st.round is not None:
            dealer = st.round.dealer
        else:
            dealer = st.next_dealer if st.next_dealer is not None else rng.randint(1, n)
        cards = list(self._cards.cards)
        rng.shuffle(cards)
        hands = tuple(tuple(cards[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(n))
        rest = cards[n * HAND_SIZE :]
        field_size = 0 if n == 7 else FIELD_SIZE
        return Deal(dealer, hands, tuple(rest[:field_size]), tuple(rest[field_size:]))


def field_multiplier(field: tuple[str, ...], queue: tuple[int, ...], options: Options) -> tuple[int, tuple[int, ...]]:
    """(this round's multiplier, the queue after it), rules H3.1-H3.3."""
    if not options.fields:
        return 1, queue
    new = sorted(
        (4 if c in X4_BRIGHTS else 2 for c in field if c in X4_BRIGHTS or c in X2_BRIGHTS),
        reverse=True,
    )
    if options.field_combine == "multiply":
        product = 1
        for m in new:
            product *= m
        return product, ()
    if queue:
        return queue[0], tuple(sorted(queue[1:] + tuple(new), reverse=True))
    if new:
        return new[0], tuple(new[1:])
    return 1, ()
