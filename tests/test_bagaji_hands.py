"""Bagaji hand evaluation: the example vectors of reference.md §3.3 verbatim, then B7-B17 details."""

from __future__ import annotations

import json

import pytest

from scorer.bagaji import SPEC, evaluate_hand
from scorer.bagaji.hands import hand_value, ready_values, stop_check, value_table, wins
from scorer.bagaji.options import SEED
from scorer.errors import ScorerError, UnknownCardError
from scorer.games import game
from scorer.rulesets import with_overrides

RANK = {1: "A", 11: "J", 12: "Q"}


def pc(*values: int) -> list[str]:
    """Playing-card ids for values (suits rotate so no id is used more than twice)."""
    seen: dict[int, int] = {}
    out = []
    for v in values:
        k = seen.get(v, 0)
        seen[v] = k + 1
        out.append(f"{RANK.get(v, str(v))}{'SHDC'[k % 4]}")
    return out


# ---------------------------------------------------------------------- reference §3.3 vectors
def test_vector_stop_11233_legal():
    """Stop with [1,1,2,3,3]: no triplet, sum 10 → legal."""
    r = evaluate_hand(pc(1, 1, 2, 3, 3))
    assert r.value == 10
    assert r.stop.allowed
    assert r.stop.limit == 10


def test_vector_stop_22213_legal():
    """Stop with [2,2,2,1,3]: triplet, remaining 1 + 3 = 4 ≤ 5 → legal."""
    r = evaluate_hand(pc(2, 2, 2, 1, 3))
    assert r.value == 4
    assert r.triplets == (2,)
    assert r.stop.allowed
    assert r.stop.limit == 5


def test_vector_stop_11134_illegal():
    """Stop with [1,1,1,3,4]: triplet, remaining 3 + 4 = 7 > 5 → illegal, even though the raw sum is 10."""
    r = evaluate_hand(pc(1, 1, 1, 3, 4))
    assert sum(r.values) == 10
    assert r.value == 7
    assert not r.stop.allowed
    assert "7" in r.stop.reason


def test_vector_failed_stop_10_vs_exposed_triplet_45():
    """Stopper [1,1,2,3,3] = 10. Another player holds an exposed triplet and [4,5] = 9. The stop fails:
    stopper 10 + 60 = 70, the other player 9, no winner.

    (Value level here; the engine plays the same position in test_bagaji_engine.)"""
    stopper = stop_check((1, 1, 2, 3, 3), False, SEED)
    assert stopper.allowed and stopper.value == 10
    other = hand_value((4, 5))
    assert other == 9
    assert other <= stopper.value  # ties and lower values make the stop fail
    assert stopper.value + SEED.failed_stop_penalty == 70


def test_vector_straight_345678():
    """Draw completes [3,4,5,6,7,8] → −33."""
    r = evaluate_hand(pc(3, 4, 5, 6, 7, 8))
    assert [w["type"] for w in r.to_json()["wins"]] == ["straight"]
    assert r.round_score == -33


def test_vector_moon_12_12_12_11_11_10():
    """[12,12,12,11,11,10] → moon → −68."""
    r = evaluate_hand(pc(12, 12, 12, 11, 11, 10))
    assert [w["type"] for w in r.to_json()["wins"]] == ["moon"]
    assert r.round_score == -68


def test_vector_two_triplets_and_moon_takes_moon():
    """[12,12,12,11,11,11] is both two triplets (0) and a moon (−69). Per B10, take −69."""
    r = evaluate_hand(pc(12, 12, 12, 11, 11, 11))
    found = {w["type"]: w["score"] for w in r.to_json()["wins"]}
    assert found == {"two-triplets": 0, "moon": -69}
    assert r.round_score == -69


# ---------------------------------------------------------------------- further rules
def test_card_values_playing_and_hanafuda_orders():
    pcv = value_table("playing-2x")
    assert pcv["AS"] == 1 and pcv["10D"] == 10 and pcv["JC"] == 11 and pcv["QH"] == 12
    assert "KS" not in pcv
    jp = value_table("hanafuda", "japanese")
    kr = value_table("hanafuda", "korean")
    assert jp["11-rainman"] == 11 and jp["12-phoenix"] == 12
    assert kr["11-rainman"] == 12 and kr["12-phoenix"] == 11
    assert jp["08-moon"] == kr["08-moon"] == 8


def test_korean_order_changes_hand_value():
    ids = ["11-rainman", "11-swallow", "12-phoenix", "01-crane", "02-warbler"]
    jp = evaluate_hand(ids, with_overrides(SEED, {"deck": "hanafuda-1x"}))
    kr = evaluate_hand(ids, with_overrides(SEED, {"deck": "hanafuda-1x", "month-order": "korean"}))
    assert jp.value == 11 + 11 + 12 + 1 + 2
    assert kr.value == 12 + 12 + 11 + 1 + 2


def test_b7_fourth_equal_card_counts():
    """B7: one triplet per value is zeroed; a fourth card counts (option: all zero)."""
    assert hand_value((5, 5, 5, 5, 1)) == 6
    assert hand_value((5, 5, 5, 5, 1), zero_all=True) == 1
    # stop: triplet + the other two (5 and 1) = 6 > 5
    assert not stop_check((1, 5, 5, 5, 5), False, SEED).allowed
    allfour = with_overrides(SEED, {"zero-four-of-a-kind": "true"})
    assert stop_check((1, 5, 5, 5, 5), False, allfour).allowed


def test_b8_four_and_pair_is_no_win_by_default():
    assert wins((3, 3, 3, 3, 9, 9), (), SEED) == ()
    opt = with_overrides(SEED, {"four-and-pair-score": "-50"})
    assert wins((3, 3, 3, 3, 9, 9), (), opt) == (("four-and-pair", -50),)


def test_three_pairs_need_distinct_values_and_concealment():
    assert wins((1, 1, 5, 5, 9, 9), (), SEED) == (("three-pairs", 0),)
    assert wins((1, 1, 5, 5), (9, 9), SEED) == ()


def test_b9_six_of_a_kind_is_two_triplets():
    assert wins((4, 4, 4, 4, 4, 4), (), SEED) == (("two-triplets", 0),)
    opt = with_overrides(SEED, {"six-of-a-kind": "false"})
    assert wins((4, 4, 4, 4, 4, 4), (), opt) == ()


def test_b16_no_wrap_by_default():
    assert wins((1, 2, 3, 10, 11, 12), (), SEED) == ()
    wrap = with_overrides(SEED, {"straight-wrap": "true"})
    assert wins((1, 2, 3, 10, 11, 12), (), wrap) == (("straight", -39),)
    assert wins((1, 2, 3, 4, 5, 6), (), SEED) == (("straight", -21),)


def test_b17_moon_counts_the_exposed_triplet():
    assert wins((12, 12, 10), (11, 11, 11), SEED) == (("moon", -67),)
    off = with_overrides(SEED, {"moon-counts-melds": "false"})
    assert wins((12, 12, 10), (11, 11, 11), off) == ()


def test_straight_must_be_concealed_and_exposed_two_triplets_win():
    assert wins((6, 7, 8), (3, 3, 3), SEED) == ()
    assert wins((6, 6, 6), (3, 3, 3), SEED) == (("two-triplets", 0),)


def test_moon_fixed_score_and_threshold_options():
    opt = with_overrides(SEED, {"moon-fixed-score": "100", "moon-threshold": "69"})
    assert wins((12, 12, 12, 11, 11, 10), (), opt) == ()
    assert wins((12, 12, 12, 11, 11, 11), (), opt) == (("two-triplets", 0), ("moon", -100))


def test_stop_with_exposed_triplet_uses_the_triplet_limit():
    assert stop_check((2, 3), True, SEED).allowed
    assert not stop_check((2, 4), True, SEED).allowed
    assert stop_check((2, 4), True, SEED).limit == 5


def test_stop_requires_call_option():
    opt = with_overrides(SEED, {"stop-requires-call": "true"})
    check = stop_check((1, 1, 2, 3, 3), False, opt)
    assert not check.allowed and check.rule == "stop-needs-call"
    assert stop_check((1, 2), True, opt).allowed


def test_ready_values():
    assert ready_values((3, 3, 7, 7, 7), ()) == (3,)
    assert ready_values((4, 4), (9, 9, 9)) == (4,)
    assert ready_values((1, 1, 2, 2, 3), ()) == ()
    assert ready_values((3, 3, 3, 3, 3), ()) == (3,)


def test_report_json_is_stable_and_serialisable():
    r = evaluate_hand(pc(2, 2, 2, 1, 3))
    obj = r.to_json()
    assert list(obj) == [
        "game", "deck", "month_order", "cards", "values", "value", "triplets", "stop", "wins", "round_score",
        "complete", "needs",
    ]
    assert obj["complete"] is True and obj["needs"] is None
    assert obj["stop"]["allowed"] is True
    assert obj["wins"] == [] and obj["round_score"] is None
    json.dumps(obj)
    six = evaluate_hand(pc(3, 4, 5, 6, 7, 9)).to_json()
    assert six["stop"] is None and six["wins"] == [] and six["round_score"] is None


def test_report_lines():
    text = "\n".join(evaluate_hand(pc(12, 12, 12, 11, 11, 11)).lines())
    assert "moon" in text and "-69" in text
    text5 = "\n".join(evaluate_hand(pc(1, 1, 1, 3, 4)).lines())
    assert "not allowed" in text5


def test_errors_name_the_card():
    with pytest.raises(UnknownCardError) as err:
        evaluate_hand(["KS", "AS", "2S", "3S", "4S"])
    assert "KS" in str(err.value)
    with pytest.raises(ScorerError):
        evaluate_hand(["AS", "AS", "AS", "2S", "3S"])  # playing-2x holds two AS
    with pytest.raises(ScorerError):
        evaluate_hand([])


def test_spec_registration():
    assert game("bagaji") is SPEC
    assert SPEC.default_ruleset == "seed" and SPEC.min_players == 2 and SPEC.max_players == 8
    assert SPEC.options() == SEED
    assert SPEC.evaluate_hand(pc(1, 1, 2, 3, 3), SPEC.options()).stop.allowed
    hana = SPEC.options(None, {"deck": "hanafuda-2x"})
    assert evaluate_hand(["08-moon", "08-moon", "08-geese"] + ["01-crane"] * 2, hana).value == 2
