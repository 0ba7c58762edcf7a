"""Bagaji engine: each rule and option on hand-built positions (reference.md §3.2-3.4)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from scorer import cards, record
from scorer.bagaji import SPEC, BagajiMatch
from scorer.bagaji.events import (
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
from scorer.bagaji.hands import value_table
from scorer.errors import IllegalEventError, UnknownCardError
from scorer.match import NotEnumerableError
from scorer.simulate import play_match

SAMPLE = Path(__file__).parent / "data" / "bagaji_sample.jsonl"


class Table:
    """A fully known Bagaji position built from card values (playing-2x unless told)."""

    def __init__(self, hands: list[list[int]], first: int = 1, observer: bool = False, **opts: str) -> None:
        options = SPEC.options(None, opts)
        self.m = BagajiMatch([f"P{i + 1}" for i in range(len(hands))], options)
        self.values = value_table(self.m.deck, options.month_order)
        pool = Counter(cards.deck(self.m.deck).cards)
        dealt = []
        for vals in hands:
            ids = []
            for v in vals:
                cid = next(c for c in sorted(pool) if pool[c] and self.values[c] == v)
                pool[cid] -= 1
                ids.append(cid)
            dealt.append(tuple(ids))
        self.dealt = dealt
        self.stock = tuple(pool.elements())
        self.m.apply(FirstPlayer(first))
        if observer:
            self.m.apply(Deal((5,) * len(hands), len(self.stock)))
        else:
            self.m.apply(Deal(tuple(dealt), self.stock))

    @property
    def s(self):
        return self.m.state

    def _pick(self, place: str, v: int, n: int = 1) -> tuple[str, ...]:
        known = list(self.s.places[place].known)
        out = []
        for c in sorted(known):
            if self.values[c] == v and len(out) < n and known.count(c) > out.count(c):
                out.append(c)
        assert len(out) == n, f"no {n}× value {v} in {place}: {known}"
        return tuple(out)

    def from_stock(self, v: int) -> str:
        """An id of value ``v`` still in the deck's stock (also usable as an unseen draw)."""
        return next(c for c in sorted(set(self.stock)) if self.values[c] == v and self._stock_has(c))

    def _stock_has(self, c: str) -> bool:
        return self.s.places.can_take("stock", c)

    def draw(self, seat: int, v: int | None) -> None:
        self.m.apply(Draw(seat, None if v is None else self.from_stock(v)))

    def discard(self, seat: int, v: int, card: str | None = None) -> None:
        self.m.apply(Discard(seat, card or self._pick(f"hand:{seat}", v)[0]))

    def call(self, seat: int, v: int, win: bool = False) -> None:
        self.m.apply(Call(seat, self._pick(f"hand:{seat}", v, 2), win))

    def refused(self, event, rule: str) -> IllegalEventError:
        before = self.m.state
        with pytest.raises(IllegalEventError) as err:
            self.m.apply(event)
        assert err.value.rule == rule, err.value
        assert self.m.state == before
        return err.value


def failed_stop_position(**opts: str) -> Table:
    """§3.3: seat 2 calls 7 to expose a triplet, keeps [4,5]; seat 1 stops with [1,1,2,3,3]."""
    t = Table([[1, 1, 2, 3, 3], [7, 7, 4, 5, 12]], first=2, **opts)
    t.draw(2, 9)
    t.discard(2, 9)
    t.draw(1, 7)
    t.discard(1, 7)
    t.call(2, 7)
    t.discard(2, 12)
    return t


def as_observer(known: Table) -> BagajiMatch:
    """The same game seen by the camera: hidden deal, unseen draws, everything else identical."""
    m = BagajiMatch(known.m.players, known.m.options)
    for e in known.m.events:
        if isinstance(e, Deal):
            e = Deal((5,) * len(e.hands), len(e.stock))
        elif isinstance(e, Draw):
            e = Draw(e.seat, None)
        m.apply(e)
    return m


def test_vector_failed_stop_in_the_engine():
    """Stopper [1,1,2,3,3] = 10. Another player holds an exposed triplet and [4,5] = 9. The stop fails:
    stopper 10 + 60 = 70, the other player 9, no winner."""
    t = failed_stop_position()
    assert t.s.to_play == 1
    assert Counter(t.values[c] for c in t.s.places["meld:2"].known) == {7: 3}
    t.m.apply(Stop(1))
    res = t.m.results[-1]
    assert res.winner is None
    assert res.changes == (70, 9)
    assert t.s.first == 2  # B4: lowest value starts the next round
    assert any("fails" in line for line in res.lines)


def test_failed_stop_others_score_nothing_option():
    t = failed_stop_position(**{"failed-stop-others-score": "nothing"})
    t.m.apply(Stop(1))
    assert t.m.results[-1].changes == (70, 0)


def test_b4_next_first_player_options():
    t = failed_stop_position(**{"no-winner-first": "most-penalty"})
    t.m.apply(Stop(1))
    assert t.s.first == 1
    t = failed_stop_position(**{"no-winner-first": "same-first"})
    t.m.apply(Stop(1))
    assert t.s.first == 2


def test_stop_tie_counts_against_the_stopper_unless_option():
    t = Table([[1, 1, 2, 3, 3], [2, 2, 2, 1, 5], [12, 12, 11, 11, 10]], first=1)
    t.m.apply(Stop(1))  # seat 2 has a triplet and 1 + 5 = 6 < 10
    assert t.m.results[-1].winner is None
    t = Table([[1, 1, 2, 3, 3], [2, 2, 2, 4, 6], [12, 12, 11, 11, 10]], first=1)
    t.m.apply(Stop(1))  # 4 + 6 = 10: a tie fails the stop
    assert t.m.results[-1].changes == (70, 10, 56)
    t = Table([[1, 1, 2, 3, 3], [2, 2, 2, 4, 6], [12, 12, 11, 11, 10]], first=1, **{"stop-tie-fails": "false"})
    t.m.apply(Stop(1))
    assert t.m.results[-1].changes == (0, 10, 56)
    assert t.m.results[-1].winner == 1
    assert t.s.first == 1


def test_successful_stop_and_illegal_stops():
    t = Table([[1, 1, 1, 3, 4], [6, 6, 7, 8, 9]])
    err = t.refused(Stop(1), "stop-limit")
    assert "7" in err.message
    t.refused(Stop(2), "not-your-turn")
    t.draw(1, 2)
    t.refused(Stop(1), "wrong-moment")
    t = Table([[2, 2, 2, 1, 3], [6, 6, 7, 8, 9]])
    t.m.apply(Stop(1))
    res = t.m.results[-1]
    assert res.winner == 1 and res.changes == (0, 36)


def test_stop_requires_call_option():
    t = Table([[1, 1, 2, 3, 3], [6, 6, 7, 8, 9]], **{"stop-requires-call": "true"})
    t.refused(Stop(1), "stop-needs-call")


def test_win_by_draw_two_triplets_and_wrong_win():
    t = Table([[4, 4, 4, 9, 9], [6, 6, 7, 8, 10]])
    t.draw(1, 9)
    assert Win(1) in t.m.legal_events()
    t.m.apply(Win(1))
    res = t.m.results[-1]
    assert res.winner == 1 and res.changes == (0, 37)
    assert t.s.first == 1 and t.s.phase == "deal"
    t = Table([[4, 4, 4, 9, 9], [6, 6, 7, 8, 10]])
    t.draw(1, 10)
    t.refused(Win(1), "not-a-win")


def test_vector_straight_by_draw_scores_minus_sum():
    """Draw completes [3,4,5,6,7,8] → −33."""
    t = Table([[3, 4, 5, 6, 7], [1, 1, 2, 12, 12]])
    t.draw(1, 8)
    t.m.apply(Win(1))
    assert t.m.results[-1].changes == (-33, 28)


def test_vector_moon_by_draw():
    """[12,12,12,11,11,10] → moon → −68; [12,12,12,11,11,11] two triplets and moon → −69 (B10)."""
    t = Table([[12, 12, 12, 11, 11], [1, 1, 2, 5, 5]])
    t.draw(1, 10)
    t.m.apply(Win(1))
    assert t.m.results[-1].changes == (-68, 14)
    t = Table([[12, 12, 12, 11, 11], [1, 1, 2, 5, 5]])
    t.draw(1, 11)
    t.m.apply(Win(1))
    assert t.m.results[-1].changes == (-69, 14)


def test_b6_play_continues_after_the_caller():
    t = Table([[1, 2, 3, 4, 12], [5, 6, 8, 9, 10], [7, 7, 1, 2, 3], [5, 6, 8, 9, 10]])
    t.draw(1, 7)
    t.discard(1, 7)
    t.call(3, 7)
    assert t.s.phase == "must-discard" and t.s.to_play == 3
    t.refused(Draw(3, t.from_stock(5)), "wrong-moment")
    t.discard(3, 1)
    assert t.s.to_play == 4
    assert t.s.places["hand:3"].size == 2 and t.s.places["meld:3"].size == 3


def test_reverse_direction_option():
    t = Table([[1, 2, 3, 4, 12], [5, 6, 8, 9, 10], [5, 6, 8, 9, 10]], direction="reverse")
    t.draw(1, 7)
    t.discard(1, 7)
    assert t.s.to_play == 3


def test_call_rules_and_winning_call_with_ready_and_feeder_penalty():
    hands = [[1, 2, 4, 5, 12], [7, 7, 7, 3, 3], [6, 6, 8, 9, 10]]
    t = Table(hands)
    t.draw(1, 3)
    t.discard(1, 3)
    t.refused(Call(2, t._pick("hand:2", 3, 2)), "call-must-win")
    t.refused(Call(2, t._pick("hand:2", 3, 2), True), "call-needs-ready")
    t.refused(Call(1, t._pick("hand:2", 3, 2)), "own-discard")
    t.refused(Call(3, t._pick("hand:3", 6, 2)), "call-pair-value")
    t.refused(Ready(3), "not-ready")
    t.m.apply(Ready(2))  # announced while the 3 is open: it does not cover this discard (B14)
    t.refused(Call(2, t._pick("hand:2", 3, 2), True), "call-needs-ready")
    t.draw(2, 11)
    t.discard(2, 11)
    t.draw(3, 10)
    t.discard(3, 10)
    t.draw(1, 3)
    t.discard(1, 3)
    t.call(2, 3, win=True)
    res = t.m.results[-1]
    assert res.winner == 2
    assert res.changes == (1 + 2 + 4 + 5 + 12 + 30, 0, 6 + 6 + 8 + 9 + 10)
    assert any("feeding" in line for line in res.lines)
    assert t.s.first == 2


def test_ready_lapses_when_the_shape_is_broken():
    t = Table([[7, 7, 7, 3, 3], [1, 2, 4, 5, 12]])
    t.m.apply(Ready(1))
    t.refused(Ready(1), "already-ready")
    t.draw(1, 9)
    t.discard(1, 3)
    assert t.s.ready[0] == -1


def test_winning_call_with_an_exposed_triplet():
    t = Table([[1, 2, 4, 5, 12], [9, 9, 4, 4, 12], [6, 6, 8, 10, 10]])
    t.draw(1, 9)
    t.discard(1, 9)
    t.call(2, 9)
    t.discard(2, 12)
    t.m.apply(Ready(2))
    t.draw(3, 1)
    t.discard(3, 1)  # 1 cannot be called by seat 2
    t.draw(1, 4)
    t.discard(1, 4)
    t.refused(Call(2, t._pick("hand:2", 4, 2)), "call-must-win")
    t.call(2, 4, win=True)
    assert t.m.results[-1].winner == 2
    assert t.m.results[-1].changes[0] == 1 + 2 + 4 + 5 + 12 + 30


def test_b5_nearer_caller_preempts_with_eight_copies():
    hands = [[1, 2, 3, 4, 12], [6, 6, 1, 2, 3], [8, 9, 10, 11, 12], [6, 6, 1, 2, 3]]
    t = Table(hands)
    t.draw(1, 6)
    t.discard(1, 6)
    t.call(4, 6)
    assert t.s.to_play == 4
    t.call(2, 6)  # nearer after the discarder: takes the discard over
    assert t.s.to_play == 2
    assert t.s.places["meld:4"].size == 0 and t.s.places["hand:4"].size == 5
    assert t.s.places["meld:2"].size == 3
    t.refused(Call(4, t._pick("hand:4", 6, 2)), "claim-priority")
    t.discard(2, 1)
    assert t.s.to_play == 3


def test_b5_winning_call_beats_nearer_plain_call():
    hands = [[1, 2, 3, 4, 12], [6, 6, 1, 2, 3], [8, 8, 8, 6, 6], [1, 2, 3, 4, 5]]
    t = Table(hands)
    t.m.apply(Ready(3))
    t.draw(1, 6)
    t.discard(1, 6)
    t.call(2, 6)
    t.call(3, 6, win=True)
    res = t.m.results[-1]
    assert res.winner == 3 and res.changes[0] == 22 + 30
    assert res.changes[1] == 18  # seat 2's pre-empted pair went back to its hand


def test_b5_turn_order_priority_option():
    hands = [[1, 2, 3, 4, 12], [6, 6, 1, 2, 3], [8, 8, 8, 6, 6], [1, 2, 3, 4, 5]]
    t = Table(hands, **{"claim-priority": "turn-order"})
    t.m.apply(Ready(3))
    t.draw(1, 6)
    t.discard(1, 6)
    t.call(2, 6)
    t.refused(Call(3, t._pick("hand:3", 6, 2), True), "claim-priority")


def test_b5_two_winning_calls_the_nearer_one_wins():
    hands = [[1, 2, 3, 4, 12], [6, 6, 9, 9, 9], [1, 2, 3, 4, 5], [6, 6, 8, 8, 8]]
    t = Table(hands)
    t.m.apply(Ready(2))
    t.m.apply(Ready(4))
    t.draw(1, 6)
    t.discard(1, 6)
    t.refused(Call(4, t._pick("hand:4", 6, 2), True), "claim-priority")
    t.call(2, 6, win=True)
    assert t.m.results[-1].winner == 2


def test_b12_reshuffle_then_no_winner_option():
    for rule in ("reshuffle", "no-winner"):
        t = Table([[1, 2, 3, 4, 12], [1, 2, 3, 4, 11]], **{"stock-exhausted": rule})
        seat = 1
        while t.s.places["stock"].size:
            card = t.s.places["stock"].known[-1]
            t.m.apply(Draw(seat, card))
            t.m.apply(Discard(seat, card))
            seat = 3 - seat
        t.refused(Draw(seat, None), "stock-empty")
        pile = t.s.places["discard"]
        if rule == "reshuffle":
            t.refused(Exhausted(), "reshuffle-due")
            top = pile.known[-1]
            t.m.apply(Reshuffle())
            assert t.s.places["stock"].size == pile.size - 1
            assert t.s.places["discard"].known == (top,)
            assert t.s.places.multiset() == Counter(cards.deck("playing-2x").cards)
            t.draw(seat, 5)
        else:
            t.refused(Reshuffle(), "no-reshuffle")
            t.m.apply(Exhausted())
            res = t.m.results[-1]
            assert res.winner is None and res.changes == (22, 21)
            assert t.s.first == 2  # lowest value


def test_b20_natural_triplet_exposure_option():
    t = Table([[5, 5, 5, 1, 2], [6, 6, 7, 8, 9]])
    t.draw(1, 12)
    t.refused(Expose(1, t._pick("hand:1", 5, 3)), "exposure-off")
    t = Table([[5, 5, 5, 1, 2], [6, 6, 7, 8, 9]], **{"natural-triplet-exposure": "true"})
    t.draw(1, 12)
    assert any(isinstance(e, Expose) for e in t.m.legal_events())
    t.m.apply(Expose(1, t._pick("hand:1", 5, 3)))
    t.discard(1, 12)
    assert t.s.places["hand:1"].size == 2 and t.s.places["meld:1"].size == 3
    t.draw(2, 10)
    t.discard(2, 10)
    t.m.apply(Stop(1))  # triplet exposed, 1 + 2 = 3 ≤ 5
    assert t.m.results[-1].winner == 1


def test_observer_mode_showdown_matches_the_known_game():
    known = failed_stop_position()
    m = as_observer(known)
    assert not m.state.places.is_fully_known()
    known.m.apply(Stop(1))
    m.apply(Stop(1))
    assert m.state.phase == "showdown" and not m.results
    assert m.to_play() == 1
    assert all(isinstance(e, Show) for e in m.legal_events())
    hand1 = known.s.places["hand:1"].known
    m.apply(Show(1, hand1[:2]))
    m.apply(Show(1, hand1[2:]))
    m.apply(Show(2, known.s.places["hand:2"].known))
    assert m.results == known.m.results
    assert m.results[-1].changes == (70, 9)
    assert m.state.places.multiset() == Counter(cards.deck("playing-2x").cards)


def test_observer_mode_refuses_a_show_that_breaks_the_stop():
    t = Table([[1, 1, 1, 3, 4], [6, 6, 7, 8, 9]], observer=True)
    t.m.apply(Stop(1))
    t.m.apply(Show(1, ("AS", "AH", "AD")))
    err = t.refused(Show(1, ("3S", "4S")), "stop-limit")
    assert "cannot stop" in err.message
    t.m.undo()
    t.m.undo()
    assert t.s.phase == "turn"


def test_observer_mode_refuses_revealing_a_card_twice():
    t = Table([[1, 1, 1, 3, 4], [6, 6, 7, 8, 9]], observer=True)
    t.m.apply(Draw(1, None))
    t.m.apply(Discard(1, "QS"))
    t.m.apply(Draw(2, None))
    t.m.apply(Discard(2, "QS"))
    t.m.apply(Draw(1, None))
    t.refused(Discard(1, "QS"), "card-whereabouts")


def test_end_after_rounds_and_end_session_event():
    t = Table([[2, 2, 2, 1, 3], [6, 6, 7, 8, 9]], **{"end-after-rounds": "1"})
    t.m.apply(Stop(1))
    assert t.m.is_over and t.m.leaders() == (1,)
    t = Table([[2, 2, 2, 1, 3], [6, 6, 7, 8, 9]])
    t.m.apply(EndSession())
    assert not t.m.is_over and t.s.ending
    t.refused(EndSession(), "already-ending")
    t.m.apply(Stop(1))
    assert t.m.is_over
    m = BagajiMatch(["A", "B"])
    m.apply(EndSession())
    assert m.is_over and m.results == ()


def test_end_after_minutes_reads_event_times():
    t = Table([[2, 2, 2, 1, 3], [6, 6, 7, 8, 9]], **{"end-after-minutes": "10"})
    t.m.apply(Stop(1, at=599.0))
    assert not t.m.is_over
    m = BagajiMatch(["A", "B"], SPEC.options(None, {"end-after-minutes": "10"}))
    m.apply(FirstPlayer(1))
    m.apply(Deal(t.dealt and tuple(t.dealt), t.stock))
    m.apply(Stop(1, at=600.0))
    assert m.is_over


def test_enumeration_and_errors():
    m = BagajiMatch(["A", "B", "C"])
    assert m.legal_events() == [FirstPlayer(1), FirstPlayer(2), FirstPlayer(3)]
    m.apply(FirstPlayer(2))
    with pytest.raises(NotEnumerableError):
        m.legal_events()
    with pytest.raises(IllegalEventError) as err:
        m.apply(Draw(1, None))
    assert err.value.rule == "deal-needed"
    t = Table([[1, 2, 3, 4, 5], [6, 6, 7, 8, 9]])
    with pytest.raises(UnknownCardError):
        t.m.apply(Draw(1, "KS"))
    t.refused(Draw(9, None), "no-such-seat")
    for event in t.m.legal_events():
        assert t.m.check(event) is None, event
    with pytest.raises(IllegalEventError):
        t.m.apply(Deal(((),), 0))


def test_setup_limits():
    with pytest.raises(ValueError):
        BagajiMatch([str(i) for i in range(7)], SPEC.options(None, {"deck": "hanafuda-1x"}))
    with pytest.raises(ValueError):
        BagajiMatch([str(i) for i in range(9)])
    with pytest.raises(ValueError):
        BagajiMatch(["A"])
    with pytest.raises(ValueError):
        BagajiMatch(["A", "B"], deck="hanafuda")
    assert BagajiMatch([str(i) for i in range(8)]).deck == "playing-2x"
    assert BagajiMatch(["A", "B"], SPEC.options(None, {"deck": "hanafuda-2x"})).deck == "hanafuda-2x"


def test_random_match_on_hanafuda_korean():
    options = SPEC.options(None, {"deck": "hanafuda-1x", "month-order": "korean", "end-after-rounds": "3"})
    m = BagajiMatch(["A", "B", "C", "D"], options)
    play_match(m, random.Random(5))
    assert len(m.results) == 3 and m.is_over


def test_sample_record_replays():
    """tests/data/bagaji_sample.jsonl: a 2-round record made with this engine."""
    rec = record.load(SAMPLE)
    assert rec.header.game == "bagaji"
    m = rec.replay()
    assert len(m.results) == 2 and m.is_over
    again = record.loads(record.export(m, rec.header.ruleset, rec.header.start).dumps()).replay()
    assert again.results == m.results


def _full_round(seed: int, players: int = 3) -> tuple[BagajiMatch, list, list]:
    """One round played at random (``scorer.simulate``'s way) with every card known: the match,
    its events and the places after each event."""
    m = BagajiMatch([f"Seat {i + 1}" for i in range(players)])
    rng = random.Random(seed)
    events, places = [], []
    while not m.results:
        ev = m.random_event(rng)
        m.apply(ev)
        events.append(ev)
        places.append(m.state.places)
    return m, events, places


# Long rounds with a reshuffle (B12): a win by drawing (a moon), a winning call right after the
# blind drawer discards the card it drew, and two stops after two reshuffles.
@pytest.mark.parametrize("seed", [2000, 1991, 1997, 2054])
def test_observer_blind_draws_after_a_reshuffle_settle_as_the_full_record(seed):
    """After a reshuffle every stock card is a known id (they were discards), but the camera does
    not see which one is drawn: the observer record's ``draw(seat, null)`` is listed and accepted,
    the drawer may then discard any of the reshuffled cards, and once the hands are shown the round
    settles exactly as the fully known record."""
    full, events, places = _full_round(seed)
    reshuffles = [i for i, ev in enumerate(events) if isinstance(ev, Reshuffle)]
    assert reshuffles, f"seed {seed}: no reshuffle in the round"
    r = reshuffles[0]
    reshuffled = set(places[r]["stock"].known)
    drawer = events[r + 1].seat
    assert isinstance(events[r + 1], Draw)
    assert any(
        isinstance(ev, Discard) and ev.seat == drawer and ev.card in reshuffled for ev in events[r + 2 :]
    ), "the blind drawer discards one of the reshuffled cards"
    obs = BagajiMatch(full.players, full.options)
    after_reshuffle = False
    for i, ev in enumerate(events):
        if isinstance(ev, Deal):
            ev = Deal((5,) * len(ev.hands), len(ev.stock), at=ev.at)
        elif isinstance(ev, Draw):
            if after_reshuffle:
                stock = obs.state.places["stock"]
                assert stock.known and not stock.hidden  # the reshuffled discards, all known ids
                legal = obs.legal_events()
                assert Draw(ev.seat, None) in legal
                assert {Draw(ev.seat, c) for c in stock.known} <= set(legal)
            ev = Draw(ev.seat, None, at=ev.at)
        assert obs.check(ev) is None, (i, ev)
        obs.apply(ev)
        if isinstance(ev, Draw) and after_reshuffle:
            after_reshuffle = False
            now = obs.state.places
            # The drawn card is one of the reshuffled ones, now hidden in the hand; the stock's
            # other cards lost their identities with it (never a wrong one).
            assert not now["stock"].known and now["stock"].hidden == places[i]["stock"].size
            assert now.multiset() == Counter(cards.deck(obs.deck).cards)
            assert events[i].card in now.candidates(f"hand:{ev.seat}")
            assert all(now.can_take(f"hand:{ev.seat}", c) for c in reshuffled)
            assert Draw(obs.to_play(), None) not in obs.legal_events()  # a discard or win is due
        if isinstance(ev, Reshuffle):
            after_reshuffle = True
            assert obs.state.places["stock"].known == places[i]["stock"].known
    assert not obs.results and obs.state.phase == "showdown"
    end = places[-1]
    for k in range(1, len(full.players) + 1):
        hand = end[f"hand:{k}"].known
        if hand:
            obs.apply(Show(k, tuple(sorted(hand))))
    assert obs.results == full.results
    assert obs.state.places.multiset() == Counter(cards.deck(obs.deck).cards)
    # The full record still replays unchanged, named draws after the reshuffle included.
    again = BagajiMatch(full.players, full.options)
    for ev in events:
        again.apply(ev)
    assert again.results == full.results and again.state.places == full.state.places


def test_blind_draw_from_a_reshuffled_stock_in_a_hand_built_observer_game():
    """A small observer position: the stock runs dry, the discards are reshuffled, a blind draw follows
    and the drawer discards a reshuffled card; undo gives the stock its known ids back."""
    t = Table([[1, 2, 3, 4, 12], [1, 2, 3, 4, 11]], observer=True)
    seat = 1
    while t.s.places["stock"].size:
        t.m.apply(Draw(seat, None))
        # The card drawn if the stock lay in this order: a stock card, never one of the dealt ones.
        card = t.stock[len(t.stock) - t.s.places["stock"].size - 1]
        t.m.apply(Discard(seat, card))
        seat = 3 - seat
    assert Draw(seat, None) not in t.m.legal_events()
    t.m.apply(Reshuffle())
    stock = t.s.places["stock"]
    assert stock.known and not stock.hidden
    assert Draw(seat, None) in t.m.legal_events()
    t.m.apply(Draw(seat, None))
    assert t.s.places["stock"].hidden == stock.size - 1 and not t.s.places["stock"].known
    drawn = stock.known[0]
    t.m.apply(Discard(seat, drawn))
    seat = 3 - seat
    assert Draw(seat, None) in t.m.legal_events()
    t.m.apply(Draw(seat, None))
    t.m.undo()
    t.m.undo()
    t.m.undo()
    assert t.s.places["stock"].known == stock.known  # undo restores the identities exactly
