"""The Bagaji match engine (rules B in ``docs/rules.md``).

A round: ``deal`` → turns → an ending → (showdown) → settlement. A turn of player P is
``stop`` (before drawing), or ``draw`` then ``win`` or ``discard``. After a discard the other
players may ``call`` it until P's successor stops or draws; ``ready`` may be announced at any time
of a live round. Hands are concealed: the engine keeps for every place (``hand:k``, ``meld:k``,
``shown:k``, ``stock``, ``discard``) the known cards and a count of unknown ones
(:class:`scorer.places.Places`), so it follows a table where only face-up cards are seen.

Choices where the rules are silent (also in the dashboard's rules page):

* Round 1's first player is an event (``first-player``); later rounds start with the winner, and
  after a round with no winner with the player of lowest hand value (ties: first in turn order after
  the stopper, or after the player due to draw when the stock ran out) (rules B12, option).
* ``RoundResult.dealer`` is the round's first player; who physically shuffled is not tracked.
* A call is ``call(seat, pair, win)``. A non-winning call exposes pair + discard and the caller
  discards; play continues after the caller (rules B7.2). Holding a triplet and a pair a player cannot make
  a non-winning call with that pair (it would complete two triplets: only a winning call, after
  ``ready``, may take it; rules B7.2). A winning call needs ``ready`` announced before that discard
  (rules B7.3, B8) and ends the round; the discarder pays the feeder penalty.
* Claim priority (rules B7.4) is applied as pre-emption: while a caller has not yet discarded, a player with
  a better claim on the same discard (a winning call; else nearer after the discarder) may still
  call it, and the first call is taken back. A winning call is refused when a player with a better
  claim is known (hand fully known) to be able to win with the same discard.
* ``ready`` is public. With a known hand it needs a pair that a call would turn into two triplets;
  it lapses when the player calls or exposes, and (known hand) at their discard once the hand no
  longer has that shape (an observer cannot see that: a player whose hand is unknown may announce
  again, which renews the flag). Announced while a discard is open, it does not cover that discard.
* Stops and wins name no cards: the hand is checked when it is known (at once with a fully known
  deal; otherwise when the player shows it, and that show is refused if the hand does not qualify).
  A win by call may also score as a moon when its six cards reach the threshold (rules B7.3).
* After an ending, every player with unknown concealed cards shows them (``show``, into
  ``shown:k``); the round is settled once every concealed card is known.
* An empty stock at a draw: ``reshuffle`` (discards but the top one form the new stock; the top card
  may still be called) or ``exhausted`` (round ends, no winner, everyone scores their hand) per the
  option (rules B9); ``exhausted`` is also accepted when fewer than two discards are left to reshuffle.
* Session end: ``end-session`` (between rounds at once; during a round, when it is settled), a round
  count, or the time limit read from the events' ``at`` seconds. ``end-session`` is a table decision
  and is not listed by ``legal_events()``. ``random_event`` adds simulated ``at`` times (1-6 s apart).
* ``legal_events()`` lists what the known cards allow: with a hidden hand, every card that could be
  in it (discards, call pairs), and stops and wins that cannot be refuted yet; in a showdown it lists
  one-card shows (a show may lay down several cards at once). While the stock holds cards it lists
  the unseen draw ``draw(seat, null)`` besides the named ones, also when every stock card is known
  (after a ``reshuffle``: an observer saw the discards but not which of them is drawn). An unseen
  draw from a stock with known cards forgets their identities (they become unseen cards: the drawn
  one is hidden in the hand, the rest hidden in the stock); less precise, never wrong.
* In observer mode (hidden hands) ``random_event`` never stops or wins on a hand it cannot see, so
  random observer playouts are meant to be short; property tests translate fully known playouts.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from scorer import cards
from scorer.bagaji import hands
from scorer.bagaji.events import (
    EVENTS,
    Call,
    Deal,
    Discard,
    Draw,
    EndSession,
    Exhausted,
    Expose,
    FirstPlayer,
    Ready,
    Reshuffle,
    Show,
    Stop,
    Win,
)
from scorer.bagaji.options import DECK_NAMES, SEED, BagajiOptions
from scorer.errors import IllegalEventError
from scorer.events import Event
from scorer.evolve import evolver
from scorer.match import Match, Note, NotEnumerableError, Player, RoundResult, Said
from scorer.places import Place, Places

FIRST = "first"
DEAL = "deal"
TURN = "turn"
DRAWN = "drawn"
MUST_DISCARD = "must-discard"
SHOWDOWN = "showdown"

STOCK = "stock"
PILE = "discard"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the round ended (known before the settlement, which may wait for a showdown)."""

    kind: str
    """``win`` (by drawing), ``call-win``, ``stop`` or ``exhausted``."""
    seat: int
    """The winner or stopper; for ``exhausted`` the player who could not draw."""
    feeder: int = 0
    """For ``call-win``: the discarder who pays the feeder penalty."""


@dataclass(frozen=True, slots=True)
class BagajiState:
    """Everything about a Bagaji match at one moment; immutable."""

    results: tuple[RoundResult, ...] = ()
    """Settled rounds."""
    over: bool = False
    """True once the match has ended."""
    places: Places | None = None
    """Where the cards of the current (or last settled) round are."""
    phase: str = FIRST
    """``first``, ``deal``, ``turn`` (stop/draw; last discard callable), ``drawn`` (win/discard),
    ``must-discard`` (after a call or exposure), ``showdown``."""
    first: int = 0
    """First player of the current round (or of the next one, in the ``deal`` phase)."""
    to_play: int = 0
    """Seat expected to act (0 when nobody in particular)."""
    ready: tuple[int, ...] = ()
    """Per seat: −1, or the number of discards made when the seat announced ``ready``."""
    discards: int = 0
    """Discards made this round."""
    claimable: int = 0
    """Seat whose top discard may still be called (0: none)."""
    pending: BagajiState | None = None
    """During a non-winning call: the state before it, for a pre-empting call (rules B7.4)."""
    outcome: Outcome | None = None
    """How the round ended (showdown phase)."""
    clock: float = 0.0
    """Latest ``at`` seen, seconds since the match started."""
    ending: bool = False
    """``end-session`` was given during the round: the match ends when it is settled."""


_evolve = evolver(BagajiState)
"""``dataclasses.replace`` for the state, without its generic overhead (hot path)."""


def _hand(seat: int) -> str:
    return f"hand:{seat}"


def _meld(seat: int) -> str:
    return f"meld:{seat}"


def _shown(seat: int) -> str:
    return f"shown:{seat}"


def _seat(seat: int) -> Said:
    return Said("seat", seat)


class BagajiMatch(Match):
    """A Bagaji session: rounds until the time or round limit; the lowest total wins."""

    GAME = "bagaji"
    UNIT = "points"
    LOWER_IS_BETTER = True
    EVENTS = EVENTS

    def __init__(
        self, players: Sequence[Player | str], options: BagajiOptions = SEED, deck: str | None = None
    ) -> None:
        super().__init__(players, options, deck)
        self._n = len(self.players)
        self._spec = cards.deck(self.deck)
        self._values = hands.value_table(self.deck, options.month_order)
        self._vcache: dict[tuple[str, ...], tuple[int, ...]] = {}
        self._stop_cache: dict[tuple[tuple[int, ...], bool], hands.StopCheck] = {}
        self._win_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[str, int], ...]] = {}
        self._shape_cache: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}
        self._hand_names = ("",) + tuple(_hand(k) for k in range(1, self._n + 1))
        self._meld_names = ("",) + tuple(_meld(k) for k in range(1, self._n + 1))
        self._shown_names = ("",) + tuple(_shown(k) for k in range(1, self._n + 1))
        self._handlers = {
            FirstPlayer.TYPE: self._first_player,
            Deal.TYPE: self._deal,
            Draw.TYPE: self._draw,
            Discard.TYPE: self._discard,
            Call.TYPE: self._call,
            Stop.TYPE: self._stop,
            Win.TYPE: self._win,
            Expose.TYPE: self._expose,
            Ready.TYPE: self._ready,
            Show.TYPE: self._show,
            Reshuffle.TYPE: self._reshuffle,
            Exhausted.TYPE: self._exhausted,
            EndSession.TYPE: self._end_session,
        }

    # ------------------------------------------------------------------ setup
    @classmethod
    def default_deck(cls, options: Any, n_players: int) -> str:
        """The deck named by the ``deck`` option."""
        return DECK_NAMES[options.deck]

    def _check_setup(self) -> None:
        if self.deck != self.options.deck_name:
            raise ValueError(
                f"deck {self.deck!r} does not match the deck option {self.options.deck!r} "
                f"(which uses {self.options.deck_name!r})"
            )
        most = 8 if len(cards.deck(self.deck)) >= 96 else 6
        if not 2 <= len(self.players) <= most:
            raise ValueError(f"Bagaji with the {self.options.deck} deck seats 2 to {most} players")

    def _initial_state(self) -> BagajiState:
        return BagajiState()

    # ------------------------------------------------------------------ helpers
    def _next(self, seat: int) -> int:
        if self.options.direction == "reverse":
            return (seat - 2) % self._n + 1
        return seat % self._n + 1

    def _distance(self, src: int, dst: int) -> int:
        """Steps in turn order from ``src`` to ``dst``."""
        d = (dst - src) % self._n
        return d if self.options.direction != "reverse" else (self._n - d) % self._n

    def _order_after(self, seat: int) -> list[int]:
        """Every seat in turn order starting after ``seat`` (``seat`` last)."""
        out, s = [], seat
        for _ in range(self._n):
            s = self._next(s)
            out.append(s)
        return out

    def _check_seat(self, seat: int) -> int:
        if not isinstance(seat, int) or not 1 <= seat <= self._n:
            raise IllegalEventError("no-such-seat", f"there is no seat {seat}; seats are 1 to {self._n}")
        return seat

    def _card(self, card_id: str) -> str:
        return self._spec.validate(card_id, "Bagaji")

    def _vals(self, ids: tuple[str, ...]) -> tuple[int, ...]:
        """Sorted values of ``ids`` (memoised: hands recur across the many enumerations)."""
        out = self._vcache.get(ids)
        if out is None:
            if len(self._vcache) > 100_000:
                self._vcache.clear()
            table = self._values
            out = self._vcache[ids] = tuple(sorted(table[c] for c in ids))
        return out

    def _concealed(self, places: Places, seat: int) -> tuple[str, ...] | None:
        """The seat's concealed cards (hand and shown), or None while some are unknown."""
        h = places[self._hand_names[seat]]
        if h.hidden:
            return None
        shown = places[self._shown_names[seat]].known
        return h.known + shown if shown else h.known

    def _stop_check(self, hand: tuple[int, ...], has_meld: bool) -> hands.StopCheck:
        key = (hand, has_meld)
        out = self._stop_cache.get(key)
        if out is None:
            out = self._stop_cache[key] = hands.stop_check(hand, has_meld, self.options)
        return out

    def _wins(self, hand: tuple[int, ...], meld: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
        key = (hand, meld)
        out = self._win_cache.get(key)
        if out is None:
            out = self._win_cache[key] = hands.wins(hand, meld, self.options)
        return out

    def _name(self, seat: int) -> str:
        return self.players[seat - 1].name

    @staticmethod
    def _refuse(rule: str, message: str) -> IllegalEventError:
        return IllegalEventError(rule, message)

    def _need_phase(self, s: BagajiState, phases: tuple[str, ...], what: str) -> None:
        if s.phase not in phases:
            if s.phase == FIRST:
                raise self._refuse("first-player-needed", f"{what}: first say who plays first (first-player)")
            if s.phase == DEAL:
                raise self._refuse("deal-needed", f"{what}: the cards have not been dealt")
            if s.phase == SHOWDOWN:
                raise self._refuse("round-over", f"{what}: the round is over; hands are being shown")
            raise self._refuse("wrong-moment", f"{what} is not possible now (phase {s.phase})")

    def _need_turn(self, s: BagajiState, seat: int, what: str) -> None:
        if seat != s.to_play:
            raise self._refuse(
                "not-your-turn", f"{what}: it is {self._name(s.to_play)}'s turn (seat {s.to_play})"
            )

    def _ready_ok(self, s: BagajiState, seat: int) -> bool:
        if not self.options.ready_required:
            return True
        return 0 <= s.ready[seat - 1] < s.discards

    def _claim_key(self, seat: int, win: bool, discarder: int) -> tuple[int, int]:
        first = 0 if (win or self.options.claim_priority != "winning-first") else 1
        return (first, self._distance(discarder, seat))

    # ------------------------------------------------------------------ the step
    def _step(self, state: BagajiState, event: Event) -> BagajiState:
        at = event.at
        if at is not None and at > state.clock:
            state = _evolve(state, clock=float(at))
        return self._handlers[event.TYPE](state, event)

    def _first_player(self, s: BagajiState, e: FirstPlayer) -> BagajiState:
        self._need_phase(s, (FIRST,), "choosing the first player")
        self._check_seat(e.seat)
        return _evolve(s, phase=DEAL, first=e.seat)

    def _deal(self, s: BagajiState, e: Deal) -> BagajiState:
        self._need_phase(s, (DEAL,), "a deal")
        n = self._n
        if len(e.hands) != n:
            raise self._refuse("deal-hands", f"a deal gives {n} hands, one per seat; got {len(e.hands)} (rules B2.2)")
        places: dict[str, Place] = {}
        for i, h in enumerate(e.hands, start=1):
            if isinstance(h, int):
                if h != 5:
                    raise self._refuse("deal-five", f"seat {i}: every hand is dealt 5 cards, not {h} (rules B2.2)")
                places[_hand(i)] = Place((), 5)
            else:
                if len(h) != 5:
                    raise self._refuse("deal-five", f"seat {i}: every hand is dealt 5 cards, not {len(h)} (rules B2.2)")
                places[_hand(i)] = Place(tuple(self._card(c) for c in h), 0)
        left = len(self._spec) - 5 * n
        if isinstance(e.stock, int):
            if e.stock != left:
                raise self._refuse("deal-stock", f"the stock holds the {left} cards left, not {e.stock} (rules B2.2)")
            places[STOCK] = Place((), left)
        else:
            if len(e.stock) != left:
                raise self._refuse("deal-stock", f"the stock holds the {left} cards left, not {len(e.stock)} (rules B2.2)")
            places[STOCK] = Place(tuple(self._card(c) for c in e.stock), 0)
        places[PILE] = Place()
        for i in range(1, n + 1):
            places[_meld(i)] = Place()
            places[_shown(i)] = Place()
        return _evolve(
            s,
            places=Places.start(self._spec.cards, places),
            phase=TURN,
            to_play=s.first,
            ready=(-1,) * n,
            discards=0,
            claimable=0,
            pending=None,
            outcome=None,
        )

    def _draw(self, s: BagajiState, e: Draw) -> BagajiState:
        self._need_phase(s, (TURN,), "drawing")
        seat = self._check_seat(e.seat)
        self._need_turn(s, seat, "drawing")
        places = s.places
        stock = places[STOCK]
        if not stock.size:
            alt = "reshuffle" if self.options.stock_exhausted == "reshuffle" else "exhausted"
            raise self._refuse("stock-empty", f"the stock is empty: the next event is '{alt}' (rules B9)")
        if e.card is None:
            # Unseen draw: an observer cannot tell which stock card went. Known stock cards (the
            # discards of a reshuffle, rules B9) lose their identities: they join the unseen cards, so
            # the drawn one is a hidden card of the hand and the rest hidden cards of the stock.
            if stock.known:
                places = places.forget(STOCK)
            places = places.move_hidden(STOCK, _hand(seat), 1)
        else:
            places = places.move(self._card(e.card), STOCK, _hand(seat))
        return _evolve(s, places=places, phase=DRAWN, claimable=0, pending=None)

    def _discard(self, s: BagajiState, e: Discard) -> BagajiState:
        self._need_phase(s, (DRAWN, MUST_DISCARD), "discarding")
        seat = self._check_seat(e.seat)
        self._need_turn(s, seat, "discarding")
        places = s.places.move(self._card(e.card), _hand(seat), PILE)
        ready = s.ready
        if ready[seat - 1] >= 0:
            held = self._concealed(places, seat)
            if held is not None and not hands.ready_values(
                self._vals(held), self._vals(places[_meld(seat)].known), self.options.six_of_a_kind
            ):
                ready = ready[: seat - 1] + (-1,) + ready[seat:]
        return _evolve(
            s,
            places=places,
            phase=TURN,
            to_play=self._next(seat),
            discards=s.discards + 1,
            claimable=seat,
            pending=None,
            ready=ready,
        )

    def _call(self, s: BagajiState, e: Call) -> BagajiState:
        seat = self._check_seat(e.seat)
        if s.phase == MUST_DISCARD and s.pending is not None:
            base = s.pending
            if seat == s.to_play:
                raise self._refuse("already-called", "you have already called this discard: discard a card (rules B7.2)")
            if seat == base.claimable:
                raise self._refuse("own-discard", "a player cannot call their own discard (rules B7.1)")
            mine = self._claim_key(seat, e.win, base.claimable)
            theirs = self._claim_key(s.to_play, False, base.claimable)
            if not mine < theirs:
                raise self._refuse(
                    "claim-priority",
                    f"{self._name(s.to_play)} has the better claim on this discard: a winning call "
                    "comes first, then the player nearest after the discarder (rules B7.4)",
                )
            new = self._call_from(base, e, seat)
            return new if new.clock == s.clock else _evolve(new, clock=s.clock)
        self._need_phase(s, (TURN,), "calling")
        if not s.claimable:
            raise self._refuse("nothing-to-call", "there is no discard to call (rules B7.1)")
        return self._call_from(s, e, seat)

    def _call_from(self, s: BagajiState, e: Call, seat: int) -> BagajiState:
        discarder = s.claimable
        if seat == discarder:
            raise self._refuse("own-discard", "a player cannot call their own discard (rules B7.1)")
        places = s.places
        top = places[PILE].known[-1]
        v = self._values[top]
        if len(e.cards) != 2:
            raise self._refuse("call-needs-pair", f"a call lays down a pair (2 cards), not {len(e.cards)} (rules B7.1)")
        pair = tuple(self._card(c) for c in e.cards)
        for c in pair:
            if self._values[c] != v:
                raise self._refuse(
                    "call-pair-value", f"{c} is not of the discarded value {v}: a call needs a pair of it (rules B7.1)"
                )
        hand_size = places[_hand(seat)].size
        for c in pair:
            places = places.move(c, _hand(seat), _meld(seat))
        places = places.move(top, PILE, _meld(seat))
        ready = s.ready
        if not e.win:
            if hand_size < 5:
                raise self._refuse(
                    "call-must-win",
                    "with only two cards in hand a call completes two triplets: it must be a winning call (rules B7.2)",
                )
            held = self._concealed(places, seat)
            if held is not None and hands.two_triplets(
                self._vals(held + places[_meld(seat)].known), self.options.six_of_a_kind
            ):
                raise self._refuse(
                    "call-must-win",
                    "holding a triplet and a pair you can only call to win, after announcing ready (rules B7.2)",
                )
            ready = ready[: seat - 1] + (-1,) + ready[seat:]
            return _evolve(
                s, places=places, phase=MUST_DISCARD, to_play=seat, pending=s, ready=ready
            )
        if not self._ready_ok(s, seat):
            raise self._refuse(
                "call-needs-ready",
                "a winning call needs a 'ready' announcement before this discard (rules B7.3, B8)",
            )
        mine = self._claim_key(seat, True, discarder)
        for other in range(1, self._n + 1):
            if other in (seat, discarder) or not self._claim_key(other, True, discarder) < mine:
                continue
            if not self._ready_ok(s, other):
                continue
            held = self._concealed(s.places, other)
            if held is None:
                continue
            if v in hands.ready_values(
                self._vals(held), self._vals(s.places[_meld(other)].known), self.options.six_of_a_kind
            ):
                raise self._refuse(
                    "claim-priority",
                    f"{self._name(other)} can win with this discard and has the better claim (rules B7.4)",
                )
        new = _evolve(s, places=places, pending=None, claimable=0)
        return self._finish(new, Outcome("call-win", seat, discarder))

    def _stop(self, s: BagajiState, e: Stop) -> BagajiState:
        self._need_phase(s, (TURN,), "a stop")
        seat = self._check_seat(e.seat)
        self._need_turn(s, seat, "a stop (only before drawing, on your own turn, rules B5.1)")
        if self.options.stop_requires_call and not s.places[_meld(seat)].size:
            raise self._refuse(
                "stop-needs-call", "this ruleset lets only a player with an exposed triplet stop (rules B5.1)"
            )
        return self._finish(_evolve(s, claimable=0), Outcome("stop", seat))

    def _win(self, s: BagajiState, e: Win) -> BagajiState:
        self._need_phase(s, (DRAWN,), "a win (right after drawing)")
        seat = self._check_seat(e.seat)
        self._need_turn(s, seat, "a win")
        return self._finish(s, Outcome("win", seat))

    def _expose(self, s: BagajiState, e: Expose) -> BagajiState:
        if not self.options.natural_triplet_exposure:
            raise self._refuse(
                "exposure-off", "exposing a concealed triplet is not allowed (option natural-triplet-exposure, rules B4.3)"
            )
        self._need_phase(s, (DRAWN,), "exposing a triplet (after drawing)")
        seat = self._check_seat(e.seat)
        self._need_turn(s, seat, "exposing a triplet")
        places = s.places
        if places[_meld(seat)].size or places[_hand(seat)].size != 6:
            raise self._refuse("expose-once", "only a player without an exposed triplet may expose one (rules B4.3)")
        ids = tuple(self._card(c) for c in e.cards)
        if len(ids) != 3 or len({self._values[c] for c in ids}) != 1:
            raise self._refuse("expose-triplet", "an exposure lays down three cards of one value (rules B4.3)")
        for c in ids:
            places = places.move(c, _hand(seat), _meld(seat))
        ready = s.ready[: seat - 1] + (-1,) + s.ready[seat:]
        return _evolve(s, places=places, phase=MUST_DISCARD, pending=None, ready=ready)

    def _ready(self, s: BagajiState, e: Ready) -> BagajiState:
        self._need_phase(s, (TURN, DRAWN, MUST_DISCARD), "announcing ready")
        seat = self._check_seat(e.seat)
        held = self._concealed(s.places, seat)
        if s.ready[seat - 1] >= 0 and held is not None:
            raise self._refuse("already-ready", f"{self._name(seat)} has already announced ready (rules B8)")
        if held is not None and not self._is_ready_shaped(s, seat, held):
            raise self._refuse(
                "not-ready",
                "ready means holding a pair that a discard would turn into a second triplet (rules B8)",
            )
        ready = s.ready[: seat - 1] + (s.discards,) + s.ready[seat:]
        return _evolve(s, ready=ready)

    def _is_ready_shaped(self, s: BagajiState, seat: int, held: tuple[str, ...]) -> bool:
        meld = s.places[self._meld_names[seat]].known
        if len(held) + len(meld) != 5:
            return False
        key = (held, meld)
        out = self._shape_cache.get(key)
        if out is None:
            if len(self._shape_cache) > 100_000:
                self._shape_cache.clear()
            out = self._shape_cache[key] = bool(
                hands.ready_values(self._vals(held), self._vals(meld), self.options.six_of_a_kind)
            )
        return out

    def _show(self, s: BagajiState, e: Show) -> BagajiState:
        self._need_phase(s, (SHOWDOWN,), "showing cards (after the round ends)")
        seat = self._check_seat(e.seat)
        if not e.cards:
            raise self._refuse("show-cards", "a show lays down at least one card")
        places = s.places
        if places[_hand(seat)].size < len(e.cards):
            raise self._refuse(
                "show-cards", f"{self._name(seat)} holds {places[_hand(seat)].size} concealed cards"
            )
        for c in e.cards:
            places = places.move(self._card(c), _hand(seat), _shown(seat))
        new = _evolve(s, places=places)
        if seat == s.outcome.seat and self._concealed(places, seat) is not None:
            self._validate(new)
        return self._settle_if_known(new)

    def _reshuffle(self, s: BagajiState, e: Reshuffle) -> BagajiState:
        self._need_phase(s, (TURN,), "a reshuffle")
        if self.options.stock_exhausted != "reshuffle":
            raise self._refuse("no-reshuffle", "this ruleset ends the round when the stock runs out (rules B9)")
        places = s.places
        if places[STOCK].size:
            raise self._refuse("stock-not-empty", "the stock is not empty yet (rules B9)")
        pile = places[PILE]
        if pile.size < 2:
            raise self._refuse("nothing-to-reshuffle", "fewer than two discards: the round is exhausted (rules B9)")
        top = pile.known[-1]
        places = places.take(PILE, top).move_all(PILE, STOCK).put(PILE, top)
        return _evolve(s, places=places)

    def _exhausted(self, s: BagajiState, e: Exhausted) -> BagajiState:
        self._need_phase(s, (TURN,), "ending an exhausted round")
        places = s.places
        if places[STOCK].size:
            raise self._refuse("stock-not-empty", "the stock is not empty yet (rules B9)")
        if self.options.stock_exhausted == "reshuffle" and places[PILE].size >= 2:
            raise self._refuse("reshuffle-due", "this ruleset reshuffles the discards into a new stock (rules B9)")
        return self._finish(_evolve(s, claimable=0), Outcome("exhausted", s.to_play))

    def _end_session(self, s: BagajiState, e: EndSession) -> BagajiState:
        if s.phase in (FIRST, DEAL):
            return _evolve(s, over=True)
        if s.ending:
            raise self._refuse("already-ending", "the session already ends after this round")
        return _evolve(s, ending=True)

    # ------------------------------------------------------------------ round end
    def _finish(self, s: BagajiState, outcome: Outcome) -> BagajiState:
        s = _evolve(s, phase=SHOWDOWN, outcome=outcome, to_play=0, pending=None)
        if outcome.kind != "exhausted" and self._concealed(s.places, outcome.seat) is not None:
            self._validate(s)
        return self._settle_if_known(s)

    def _six(self, s: BagajiState, seat: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        held = self._concealed(s.places, seat) or ()
        return self._vals(held), self._vals(s.places[_meld(seat)].known)

    def _validate(self, s: BagajiState) -> None:
        """Raise when the stopper's or winner's now-known hand does not qualify."""
        o = s.outcome
        hand, meld = self._six(s, o.seat)
        if o.kind == "stop":
            check = self._stop_check(hand, bool(meld))
            if not check.allowed:
                raise self._refuse(check.rule, f"{self._name(o.seat)} cannot stop: {check.reason}")
        elif o.kind == "win":
            if not self._wins(hand, meld):
                raise self._refuse(
                    "not-a-win",
                    f"{self._name(o.seat)}'s six cards {list(hand + meld)} are not two triplets, three "
                    "pairs, a straight of six or a moon (rules B6)",
                )
        elif o.kind == "call-win" and not hands.two_triplets(
            tuple(sorted(hand + meld)), self.options.six_of_a_kind
        ):
            raise self._refuse(
                "call-not-a-win",
                f"{self._name(o.seat)}'s six cards {sorted(hand + meld)} are not two triplets: "
                "a call can only complete two triplets (rules B7.3)",
            )

    def _settle_if_known(self, s: BagajiState) -> BagajiState:
        places = s.places
        if any(places[_hand(k)].hidden for k in range(1, self._n + 1)):
            return s
        return self._settle(s)

    def _settle(self, s: BagajiState) -> BagajiState:
        opts = self.options
        o = s.outcome
        n = self._n
        zero_all = opts.zero_four_of_a_kind
        values = []
        for k in range(1, n + 1):
            hand, _meld_vals = self._six(s, k)
            values.append(hands.hand_value(hand, zero_all) if len(hand) <= 5 else 0)
        changes = list(values)
        lines: list[str] = []
        notes: list[Note] = []

        def say(line: str, note: Note) -> None:
            lines.append(line)
            notes.append(note)

        winner: int | None = None
        penalised = 0
        if o.kind in ("win", "call-win"):
            winner = o.seat
            hand, meld = self._six(s, winner)
            found = self._wins(hand, meld)
            if o.kind == "call-win":
                found = tuple(w for w in found if w[0] in (hands.TWO_TRIPLETS, hands.MOON))
            kind, score = hands.best_score(found)
            changes[winner - 1] = score
            how = "by calling" if o.kind == "call-win" else "by drawing"
            cite = "(rules B7.3)" if o.kind == "call-win" else "(rules B11.1)"
            say(f"{self._name(winner)} wins {how} with {hands.WIN_NAMES[kind]}: {score:+d} {cite}",
                Note.of("win-call" if o.kind == "call-win" else "win-draw", seat=_seat(winner),
                        hand=Said("name", kind), score=Said("signed", score)))
            if o.kind == "call-win":
                changes[o.feeder - 1] += opts.feeder_penalty
                penalised = o.feeder
        elif o.kind == "stop":
            sv = values[o.seat - 1]
            others = [k for k in self._order_after(o.seat) if k != o.seat]
            beaten = [k for k in others if (values[k - 1] <= sv if opts.stop_tie_fails else values[k - 1] < sv)]
            if not beaten:
                winner = o.seat
                changes[o.seat - 1] = 0
                say(f"{self._name(o.seat)} stops with {sv}: nobody is as low; wins with 0 (rules B11.3)",
                    Note.of("stop-wins", seat=_seat(o.seat), value=sv))
            else:
                penalised = o.seat
                who = ", ".join(f"{self._name(k)} ({values[k - 1]})" for k in beaten)
                say(
                    f"{self._name(o.seat)} stops with {sv} but {who} is as low or lower: the stop "
                    f"fails, no winner; {self._name(o.seat)} {sv} + {opts.failed_stop_penalty} (rules B11.4)",
                    Note.of("stop-fails", seat=_seat(o.seat), value=sv,
                            beaten=tuple(Note.of("seat-value", seat=_seat(k), value=values[k - 1]) for k in beaten),
                            penalty=opts.failed_stop_penalty),
                )
                changes[o.seat - 1] = sv + opts.failed_stop_penalty
                if opts.failed_stop_others_score == "nothing":
                    for k in others:
                        changes[k - 1] = 0
        else:
            say("the stock ran out: no winner, everyone scores their hand (rules B11.5)", Note.of("exhausted"))
        for k in range(1, n + 1):
            if k == winner or (o.kind == "stop" and k == o.seat):
                continue
            value, score = values[k - 1], changes[k - 1]
            if k == penalised and o.kind == "call-win":
                say(f"{self._name(k)}: hand {value} + {opts.feeder_penalty} for feeding the winning call "
                    f"(rules B11.2) = {score:+d}",
                    Note.of("hand-fed", seat=_seat(k), value=value, penalty=opts.feeder_penalty,
                            score=Said("signed", score)))
            else:
                say(f"{self._name(k)}: hand {value} = {score:+d}",
                    Note.of("hand", seat=_seat(k), value=value, score=Said("signed", score)))
        before = s.results[-1].totals if s.results else (0,) * n
        totals = tuple(t + c for t, c in zip(before, changes, strict=True))
        number = len(s.results) + 1
        result = RoundResult(number, s.first, winner, tuple(changes), totals, tuple(lines), tuple(notes))
        nxt = winner if winner is not None else self._no_winner_first(s, values, penalised)
        over = (
            s.ending
            or (opts.end_after_rounds > 0 and number >= opts.end_after_rounds)
            or (opts.end_after_minutes > 0 and s.clock >= opts.end_after_minutes * 60)
        )
        return _evolve(
            s,
            results=s.results + (result,),
            over=over,
            phase=DEAL,
            first=nxt,
            to_play=0,
            claimable=0,
            pending=None,
            ending=False,
        )

    def _no_winner_first(self, s: BagajiState, values: list[int], penalised: int) -> int:
        o = s.outcome
        rule = self.options.no_winner_first
        if rule == "same-first":
            return s.first
        if rule == "most-penalty" and penalised:
            return penalised
        order = self._order_after(o.seat) if o.kind == "stop" else [o.seat, *self._order_after(o.seat)[:-1]]
        low = min(values)
        return next(k for k in order if values[k - 1] == low)

    def expecting(self) -> str:
        s = self._state
        seat = self.to_play()
        return {
            FIRST: "the first player is to be chosen",
            DEAL: "a deal is due",
            TURN: f"seat {seat} is to draw from the stock or stop; the last discard may be called",
            DRAWN: f"seat {seat} is to discard or win",
            MUST_DISCARD: f"seat {seat} is to discard",
            SHOWDOWN: f"seat {seat} is to show their hand",
        }.get(s.phase, s.phase) if not s.over else "the match is over"

    # ------------------------------------------------------------------ enumeration
    def to_play(self) -> int | None:
        """The seat expected to act next (in a showdown: the first with unknown cards)."""
        s = self._state
        if s.phase in (TURN, DRAWN, MUST_DISCARD):
            return s.to_play
        if s.phase == SHOWDOWN:
            for k in range(1, self._n + 1):
                if s.places[_hand(k)].hidden:
                    return k
        return None

    def legal_events(self) -> list[Event]:
        """Every legal next event (``end-session`` aside); raises at a deal."""
        return self._legal(self._state, include_chance=True)

    def _legal(self, s: BagajiState, include_chance: bool) -> list[Event]:
        if s.over:
            return []
        if s.phase == FIRST:
            return [FirstPlayer(k) for k in range(1, self._n + 1)]
        if s.phase == DEAL:
            raise NotEnumerableError("the next event is a deal: too many possibilities to list")
        out: list[Event] = []
        places = s.places
        p = s.to_play
        if s.phase == TURN:
            stock = places[STOCK]
            if stock.size:
                if include_chance:
                    out.extend(Draw(p, c) for c in dict.fromkeys(stock.known))
                    if stock.hidden:
                        out.extend(Draw(p, c) for c in sorted(places.unseen))
                out.append(Draw(p, None))
            elif self.options.stock_exhausted == "reshuffle" and places[PILE].size >= 2:
                out.append(Reshuffle())
            else:
                out.append(Exhausted())
            if self._may_stop(s, p):
                out.append(Stop(p))
            if s.claimable:
                for q in range(1, self._n + 1):
                    if q != s.claimable:
                        out.extend(self._calls_for(s, q))
        elif s.phase == DRAWN:
            held = self._concealed(places, p)
            meld = places[_meld(p)].known
            if held is None or self._wins(self._vals(held), self._vals(meld)):
                out.append(Win(p))
            out.extend(Discard(p, c) for c in places.candidates(_hand(p)))
            if self.options.natural_triplet_exposure and not meld and places[_hand(p)].size == 6:
                out.extend(self._exposures(s, p))
        elif s.phase == MUST_DISCARD:
            out.extend(Discard(p, c) for c in places.candidates(_hand(p)))
            if s.pending is not None:
                base = s.pending
                theirs = self._claim_key(p, False, base.claimable)
                for q in range(1, self._n + 1):
                    if q in (p, base.claimable):
                        continue
                    for ev in self._calls_for(base, q):
                        if self._claim_key(q, ev.win, base.claimable) < theirs:
                            out.append(ev)
        elif s.phase == SHOWDOWN:
            for k in range(1, self._n + 1):
                if places[_hand(k)].hidden:
                    for c in places.candidates(_hand(k)):
                        ev = Show(k, (c,))
                        if k != s.outcome.seat or self._ok(s, ev):
                            out.append(ev)
            return out
        hand_names, meld_names, cache = self._hand_names, self._meld_names, self._shape_cache
        for k, flag in enumerate(s.ready, start=1):
            if flag >= 0:
                continue
            h = places[hand_names[k]]
            if h.hidden:
                out.append(Ready(k))
                continue
            key = (h.known, places[meld_names[k]].known)
            shaped = cache.get(key)
            if shaped is None:
                shaped = self._is_ready_shaped(s, k, h.known)
            if shaped:
                out.append(Ready(k))
        return out

    def _ok(self, s: BagajiState, ev: Event) -> bool:
        try:
            self._step(s, ev)
        except IllegalEventError:
            return False
        return True

    def _may_stop(self, s: BagajiState, p: int) -> bool:
        meld = s.places[_meld(p)].known
        if self.options.stop_requires_call and not meld:
            return False
        held = self._concealed(s.places, p)
        if held is None:
            return True
        return self._stop_check(self._vals(held), bool(meld)).allowed

    def _pairs(self, s: BagajiState, q: int, v: int) -> list[tuple[str, str]]:
        """Distinct pairs of value ``v`` that seat ``q`` could lay down."""
        places = s.places
        h = places[_hand(q)]
        pool = Counter(c for c in h.known if self._values[c] == v)
        if h.hidden:
            for c, k in places.unseen.items():
                if self._values[c] == v:
                    pool[c] += min(k, h.hidden)
        ids = sorted(pool)
        out = []
        for i, a in enumerate(ids):
            for b in ids[i:]:
                if a != b or pool[a] >= 2:
                    out.append((a, b))
        return out

    def _calls_for(self, s: BagajiState, q: int) -> list[Call]:
        places = s.places
        h = places[_hand(q)]
        size = h.size
        if size < 2:
            return []
        v = self._values[places[PILE].known[-1]]
        plain_ok = size >= 5
        if not h.hidden:
            hv = self._vals(h.known)
            if hv.count(v) < 2:
                return []
            if plain_ok:
                rest = list(hv)
                rest.remove(v)
                rest.remove(v)
                six = tuple(sorted(rest + [v, v, v] + list(self._vals(places[_meld(q)].known))))
                plain_ok = not hands.two_triplets(six, self.options.six_of_a_kind)
        ready_ok = self._ready_ok(s, q)
        out: list[Call] = []
        for pair in self._pairs(s, q, v):
            if plain_ok:
                out.append(Call(q, pair, False))
            if ready_ok:
                ev = Call(q, pair, True)
                if self._ok(s, ev):
                    out.append(ev)
        return out

    def _exposures(self, s: BagajiState, p: int) -> list[Expose]:
        places = s.places
        h = places[_hand(p)]
        if h.hidden:
            return []
        by_value: dict[int, list[str]] = {}
        for c in h.known:
            by_value.setdefault(self._values[c], []).append(c)
        return [Expose(p, tuple(sorted(cs)[:3])) for cs in by_value.values() if len(cs) >= 3]

    # ------------------------------------------------------------------ random play
    def random_event(self, rng: random.Random) -> Event:
        """One legal event at random: a shuffled deal, a uniformly random stock card, else uniform."""
        s = self._state
        at = round(s.clock + rng.uniform(1.0, 6.0), 1)
        if s.over:
            raise IllegalEventError("match-over", "the match is over")
        if s.phase == FIRST:
            return FirstPlayer(rng.randint(1, self._n), at=at)
        if s.phase == DEAL:
            deck = list(self._spec.cards)
            rng.shuffle(deck)
            n = self._n
            hands_: list[list[str]] = [[] for _ in range(n)]
            pos = 0
            for size in (3, 2):
                for i in range(n):
                    hands_[i].extend(deck[pos : pos + size])
                    pos += size
            return Deal(tuple(tuple(h) for h in hands_), tuple(deck[pos:]), at=at)
        options = self._legal(s, include_chance=False)
        if s.phase == TURN and s.places[STOCK].size:
            options = [e for e in options if not isinstance(e, Draw)]
            options.append(Draw(s.to_play, None))
        if (
            s.phase != SHOWDOWN
            and not s.places.is_fully_known()
            and any(s.places[self._hand_names[k]].hidden for k in range(1, self._n + 1))
        ):
            options = [
                e
                for e in options
                if not (isinstance(e, Stop | Win) or (isinstance(e, Call) and e.win))
                or self._concealed(s.places, e.seat) is not None
            ]
        choice = rng.choice(options)
        if isinstance(choice, Draw):
            stock = s.places[STOCK]
            card = None
            if stock.known and rng.randrange(stock.size) < len(stock.known):
                card = rng.choice(stock.known)
            choice = Draw(s.to_play, card)
        return replace(choice, at=at)
