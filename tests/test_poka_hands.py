"""Poka starting hands, wilds and the month order (reference.md §4.2, §4.4 P1-P3, P7)."""

from __future__ import annotations

import pytest

from scorer.errors import ScorerError, UnknownCardError
from scorer.poka import SPEC, PokaOptions, evaluate_hand, teyaku_held, wilds
from scorer.poka.hands import (
    RULE_JAN_FEB,
    RULE_NEXT_MONTH,
    RULE_WILD,
    TEYAKU,
    best_teyaku,
    next_month,
    play_rule,
)

SEED = PokaOptions()
EXTRA = PokaOptions(extra_jokers=True)


def test_wilds_by_option():
    assert wilds(SEED) == {"01-crane", "01-ribbon", "02-warbler"}
    assert wilds(EXTRA) == {"00-blank"}


def test_month_order_is_cyclic():
    assert [next_month(m) for m in range(1, 13)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1]


@pytest.mark.parametrize(
    ("card", "top", "options", "jan_feb", "expected"),
    [
        ("06-ribbon", "05-bridge", SEED, True, RULE_NEXT_MONTH),
        ("07-boar", "05-bridge", SEED, True, None),
        ("01-plain-1", "12-phoenix", SEED, True, RULE_NEXT_MONTH),
        ("01-crane", "07-boar", SEED, True, RULE_WILD),
        ("04-plain-1", "02-warbler", SEED, True, RULE_WILD),
        ("01-plain-2", "01-plain-1", SEED, True, RULE_JAN_FEB),
        ("01-plain-2", "01-plain-1", SEED, False, None),
        ("02-plain-2", "02-plain-1", SEED, True, None),
        ("01-crane", "05-bridge", EXTRA, True, None),
        ("00-blank", "05-bridge", EXTRA, True, RULE_WILD),
        ("01-crane", "12-plain-1", EXTRA, True, RULE_NEXT_MONTH),
        ("01-crane", "01-plain-1", EXTRA, True, RULE_JAN_FEB),
    ],
)
def test_play_rule(card, top, options, jan_feb, expected):
    assert play_rule(card, top, wilds(options), jan_feb) == expected


def test_teyaku_table():
    assert {n: t.stones for n, t in TEYAKU.items()} == {
        "buttakuri": 5,
        "wild-triplet": 2,
        "three-pairs": 2,
        "january-triplet": 2,
    }
    assert TEYAKU["three-pairs"].name_ja == "三双"


def test_report_json_and_lines():
    report = evaluate_hand(
        ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"], SEED
    )
    assert report.to_json() == {
        "cards": ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"],
        "claim": {"name": "three-pairs", "name_ja": "三双", "stones": 2},
        "held": ["three-pairs"],
        "wilds": [],
        "complete": True,
        "needs": None,
    }
    assert any("three pairs" in line for line in report.lines())


def test_report_without_claim():
    report = evaluate_hand(
        ["01-crane", "02-ribbon", "04-plain-1", "06-plain-2", "08-geese", "11-lightning"]
    )
    assert report.claim is None
    assert report.to_json()["claim"] is None
    assert report.wilds == ("01-crane",)
    assert "No starting hand" in report.lines()[-1]


def test_report_mentions_unstacked_hands():
    report = evaluate_hand(
        ["01-crane", "01-ribbon", "02-warbler", "01-plain-1", "06-ribbon", "10-deer"]
    )
    assert report.claim.name == "wild-triplet"
    assert [t.name for t in report.held] == ["wild-triplet", "january-triplet"]
    assert any("rules P3.2" in line for line in report.lines())


def test_evaluate_hand_errors():
    with pytest.raises(UnknownCardError) as info:
        evaluate_hand(["01-cran", "02-ribbon", "04-plain-1", "06-plain-2", "08-geese", "11-ribbon"])
    assert "01-crane" in info.value.suggestions
    with pytest.raises(ScorerError, match="at most 6 cards"):
        evaluate_hand(["01-crane", "02-ribbon", "03-plain-1", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1"])
    short = evaluate_hand(["01-crane", "02-ribbon"])  # a short hand is read as far as it goes
    assert short.complete is False and "4 more are needed" in short.needs
    with pytest.raises(ScorerError, match="deck holds"):
        evaluate_hand(["01-crane"] * 2 + ["02-ribbon", "04-plain-1", "06-plain-2", "08-geese"])
    with pytest.raises(UnknownCardError):
        evaluate_hand(
            ["00-blank", "02-ribbon", "04-plain-1", "06-plain-2", "08-geese", "11-ribbon"]
        )


def test_spec_evaluate_hand_is_the_function():
    assert SPEC.evaluate_hand is evaluate_hand
    report = SPEC.evaluate_hand(
        ["00-blank"] * 3 + ["04-cuckoo", "08-moon", "11-rainman"],
        SPEC.options(overrides={"extra-jokers": "true"}),
    )
    assert report.claim.name == "wild-triplet"


def test_held_and_best_agree():
    hand = ["05-bridge", "05-ribbon", "05-plain-1", "05-plain-2", "08-moon", "10-deer"]
    assert best_teyaku(hand, SEED) == teyaku_held(hand, SEED)[0] == TEYAKU["buttakuri"]
    assert best_teyaku(["03-curtain", "04-cuckoo"], SEED) is None
