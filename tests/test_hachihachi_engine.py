"""Scripted Hachi-hachi rounds: each rule of the engine, and the refusals that name it."""

from __future__ import annotations

import random

import pytest

from scorer.errors import IllegalEventError, InvalidEventError, UnknownCardError
from scorer.games import game
from scorer.hachihachi.engine import MISDEAL
from scorer.hachihachi.events import (
    Buyout,
    Cancel,
    Claim,
    Declare,
    Draw,
    Play,
    Sage,
    Shobu,
)
from tests.helpers import HAND_1, scripted_deal  # noqa: E402

SPEC = game("hachi-hachi")



def month(cid: str) -> int:
    return int(cid[:2])


def pick(match, predicate):
    """The first legal event satisfying ``predicate``."""
    for event in match.legal_events():
        if predicate(event):
            return event
    raise AssertionError(f"no legal event fits; legal: {match.legal_events()[:10]}")


def quiet(match):
    """A play or draw by the seat to act that leaves months 1-3 alone."""
    return pick(match, lambda e: isinstance(e, Play | Draw) and month(e.card) > 3 and e.capture is None)


def start(ruleset="standard", n=3, **kw):
    m = SPEC.match([f"P{i + 1}" for i in range(n)], SPEC.options(ruleset, kw))
    m.apply(scripted_deal(n))
    for seat in range(1, 4):
        m.apply(Declare(seat, True))
    return m


def seat1_turn(m, card):
    m.apply(Play(1, card))
    m.apply(quiet(m))


def others_turn(m):
    m.apply(quiet(m))
    m.apply(quiet(m))
    m.apply(quiet(m))
    m.apply(quiet(m))


def test_akatan_forces_a_call_and_shobu_pays_full_from_each():
    m = start()
    seat1_turn(m, "01-ribbon")
    others_turn(m)
    seat1_turn(m, "02-ribbon")
    others_turn(m)
    m.apply(Play(1, "03-ribbon"))
    m.apply(quiet(m))
    assert m.state.round.phase == "call"
    assert {type(e) for e in m.legal_events()} == {Sage, Shobu}
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(2, "04-plain-2"))
    assert info.value.rule == "turn-order"
    m.apply(Shobu(1))
    result = m.results[-1]
    assert result.winner == 1
    assert result.changes == (168, -84, -84)
    assert m.state.next_dealer == 1


def test_sage_then_cancel_pays_half():
    m = start()
    seat1_turn(m, "01-ribbon")
    others_turn(m)
    seat1_turn(m, "02-ribbon")
    others_turn(m)
    m.apply(Play(1, "03-ribbon"))
    m.apply(quiet(m))
    m.apply(Sage(1))
    with pytest.raises(IllegalEventError) as info:
        m.apply(Cancel(2))
    assert info.value.rule in ("cancel-timing", "cancel-after-sage")
    others_turn(m)
    assert Cancel(1) in m.legal_events()
    m.apply(Cancel(1))
    assert m.results[-1].changes == (84, -42, -42)


def test_shobu_after_an_opponent_called_sage_doubles_that_opponent():
    """reference §2.8 A: if exactly one opponent had called sage, that opponent pays double."""
    from scorer.hachihachi.settlement import Ending, RoundFacts, settle

    facts = RoundFacts(3, 1, (1, 2, 3), (), 1, {1: (), 2: (), 3: ()}, {}, (), (), (2,), {1: 7, 2: 7, 3: 0})
    _, changes, _ = settle(facts, Ending("shobu", 1), SPEC.options("standard"))
    assert changes == [168, -168, 0]


def test_capture_rules():
    m = SPEC.match(["A", "B", "C"], SPEC.options("standard"))
    field = ("01-plain-1", "01-plain-2", "03-plain-1", "08-plain-1", "09-plain-1", "10-plain-1")
    hand_1 = ("01-crane", "02-ribbon", "03-ribbon", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1")
    m.apply(scripted_deal(3, 1, hand_1, field))
    for seat in (1, 2, 3):
        m.apply(Declare(seat, True))
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(1, "01-crane"))
    assert info.value.rule == "capture-choice"
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(1, "01-crane", "03-plain-1"))
    assert info.value.rule == "capture-must-match-month"
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(1, "02-ribbon", "03-plain-1"))
    assert info.value.rule == "capture-must-match-month"
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(2, "04-plain-2"))
    assert info.value.rule == "turn-order"
    with pytest.raises(IllegalEventError) as info:
        m.apply(Play(1, "08-plain-1"))
    assert info.value.rule == "card-in-hand"
    assert "already known to be at field" in str(info.value)
    with pytest.raises(UnknownCardError) as unknown:
        m.apply(Play(1, "01-cran"))
    assert "01-crane" in str(unknown.value)
    m.apply(Play(1, "01-crane", "01-plain-2"))
    assert m.state.places["captured:1"].known == ("01-crane", "01-plain-2")
    assert "01-plain-1" in m.state.places["field"].known


def test_matching_card_must_capture_and_three_matches_take_all():
    m = SPEC.match(["A", "B", "C"], SPEC.options("seed-1910"))
    field = ("01-plain-1", "01-plain-2", "01-ribbon", "08-plain-1", "09-plain-1", "10-plain-1")
    hand_1 = ("01-crane", "02-ribbon", "03-ribbon", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1")
    m.apply(scripted_deal(3, 1, hand_1, field))
    for seat in (1, 2, 3):
        m.apply(Declare(seat, True))
    m.apply(Play(1, "01-crane"))
    assert sorted(m.state.places["captured:1"].known) == ["01-crane", "01-plain-1", "01-plain-2", "01-ribbon"]


def test_declarations_order_forced_out_and_buyout():
    m = SPEC.match(["A", "B", "C", "D"], SPEC.options("seed-1910"))
    m.apply(scripted_deal(4, dealer=2))
    with pytest.raises(IllegalEventError) as info:
        m.apply(Declare(1, True))
    assert info.value.rule == "declare-order"
    for seat in (2, 3, 4):
        m.apply(Declare(seat, True))
    r = m.state.round
    assert r.forced == (1,) and r.active == (2, 3, 4) and r.phase == "play"
    with pytest.raises(IllegalEventError) as info:
        m.apply(Claim(1, "sanbon", ("01-ribbon",)))
    assert info.value.rule == "claim-active-only"
    m.apply(Buyout(1, HAND_1))
    assert m.state.places["stock"].size == 21
    with pytest.raises(IllegalEventError) as info:
        m.apply(Buyout(1, HAND_1))
    assert info.value.rule == "buyout-once"


def test_voluntary_retirement_pays_forfeit_to_the_winner():
    m = SPEC.match(["A", "B", "C", "D"], SPEC.options("seed-1910", {"rounds": 3}))
    m.apply(scripted_deal(4, dealer=1))
    m.apply(Declare(1, False))
    for seat in (2, 3, 4):
        m.apply(Declare(seat, True))
    assert m.state.round.retired == (1,)
    assert m.state.round.active == (2, 3, 4)
    rng = random.Random(5)
    while not m.results:
        m.apply(m.random_event(rng))
    result = m.results[0]
    assert result.changes[0] == -12
    assert sum(result.changes) == 0
    assert any("pot of 12" in line for line in result.lines)


def test_claim_timing_and_shown_cards():
    m = start("standard")
    with pytest.raises(IllegalEventError) as info:
        m.apply(Claim(1, "sanbon", ("01-ribbon", "02-ribbon")))
    assert info.value.rule == "claim-shown-cards"
    with pytest.raises(InvalidEventError):
        m.apply(Claim(1, "tsuru", ("01-ribbon",)))
    m.apply(Play(1, "04-plain-1"))
    m.apply(quiet(m))
    with pytest.raises(IllegalEventError) as info:
        m.apply(Claim(1, "karasu", ()))
    assert info.value.rule == "claim-timing"


def test_dealer_rotation_and_redeal_when_nobody_plays():
    m = SPEC.match(["A", "B", "C"], SPEC.options("seed-1910"))
    m.apply(scripted_deal(3, dealer=2))
    for seat in (2, 3, 1):
        m.apply(Declare(seat, False))
    assert m.state.round is None and not m.results
    with pytest.raises(IllegalEventError) as info:
        m.apply(scripted_deal(3, dealer=1))
    assert info.value.rule == "dealer-rotation"
    m.apply(scripted_deal(3, dealer=2))


def test_misdeal_four_of_a_month_on_the_table():
    m = SPEC.match(["A", "B", "C"], SPEC.options("standard"))
    field = ("01-plain-1", "01-plain-2", "01-ribbon", "01-crane", "09-plain-1", "10-plain-1")
    hand_1 = ("02-warbler", "02-ribbon", "03-ribbon", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1")
    m.apply(scripted_deal(3, 2, hand_1, field))
    assert m.state.round.phase == MISDEAL
    with pytest.raises(IllegalEventError):
        m.apply(Declare(2, True))
    m.apply(scripted_deal(3, 2))
    assert m.state.round.phase == "declare"


def test_one_player_wins_the_pot():
    m = SPEC.match(["A", "B", "C"], SPEC.options("standard"))
    m.apply(scripted_deal(3, dealer=1))
    m.apply(Declare(1, False))
    m.apply(Declare(2, False))
    m.apply(Declare(3, True))
    result = m.results[0]
    assert result.winner == 3
    assert result.changes == (-12, -18, 30)


def test_two_players_loser_pays_difference():
    m = SPEC.match(["A", "B", "C"], SPEC.options("standard", {"fields": "off"}))
    m.apply(scripted_deal(3, dealer=1))
    m.apply(Declare(1, True))
    m.apply(Declare(2, False))
    m.apply(Declare(3, True))
    assert m.state.places["stock"].size == 28
    rng = random.Random(2)
    while not m.results:
        m.apply(m.random_event(rng))
    result = m.results[0]
    assert sum(result.changes) == 0
    assert m.state.results[0].changes[1] == -12


def test_match_ends_after_the_rounds_option():
    for rounds in (3, 6, 12):
        m = SPEC.match(["A", "B", "C"], SPEC.options("seed-1910", {"rounds": str(rounds)}))
        rng = random.Random(rounds)
        while not m.is_over:
            m.apply(m.random_event(rng))
        assert len(m.results) == rounds
        with pytest.raises(IllegalEventError) as info:
            m.apply(m.events[0])
        assert info.value.rule == "match-over"


def test_multiply_variant_and_queue_carry_over():
    from scorer.hachihachi.engine import field_multiplier

    opts = SPEC.options("standard", {"field-combine": "multiply"})
    field = ("11-rainman", "12-phoenix", "01-crane", "02-plain-1", "03-plain-1", "04-plain-1")
    assert field_multiplier(field, (), opts)[0] == 32
    std = SPEC.options("standard")
    assert field_multiplier(("08-moon",) + field[3:] + ("05-plain-1", "06-plain-1"), (4, 2), std) == (4, (2, 2))


def test_seven_seated_blank_sits_out():
    m = SPEC.match([f"P{i}" for i in range(1, 8)], SPEC.options("standard"))
    assert m.deck == "hanafuda+blank"
    rng = random.Random(11)
    m.apply(m.random_event(rng))
    assert m.state.round.phase == "sit-out"
    (sit,) = m.legal_events()
    m.apply(sit)
    r = m.state.round
    assert r.sitout == sit.seat and len(r.seated) == 6
    assert m.state.places["field"].size == 6 and m.state.places["out"].known == ("00-blank",)
