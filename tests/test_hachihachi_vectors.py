"""Hachi-hachi test vectors: reference.md Appendix A verbatim (standard ruleset, 1 kan = 12),
and vectors for the 1910 seed's ruleset derived from the seed text and rules/README.md."""

from __future__ import annotations

import pytest

from scorer.games import game
from scorer.hachihachi import dekiyaku as dk
from scorer.hachihachi import teyaku as ty
from scorer.hachihachi.engine import field_multiplier
from scorer.hachihachi.settlement import Ending, RoundFacts, captured_points, settle

SPEC = game("hachi-hachi")
STANDARD = SPEC.options("standard")
SEED = SPEC.options("seed-1910")


def hand_json(cards: str, options=STANDARD) -> dict:
    return SPEC.evaluate_hand(cards.replace(",", " ").split(), options).to_json()


def names(report: dict) -> tuple:
    a, b = report["group_a"], report["group_b"]
    return (a and (a["name"], a["kan"]), b and (b["name"], b["kan"]), report["kan"])


# --------------------------------------------------------------------------- Appendix A


def test_t1():
    """T1 | hand 01-crane, 01-ribbon, 01-plain-1, 01-plain-2, 05-bridge, 05-ribbon, 05-plain-1 |
    A = shisō 20; B = none; total 20 kan = 240 pts"""
    r = hand_json("01-crane, 01-ribbon, 01-plain-1, 01-plain-2, 05-bridge, 05-ribbon, 05-plain-1")
    assert names(r) == (("shiso", 20), None, 20)
    assert r["points"] == 240


def test_t2():
    """T2 | hand 11-rainman, 11-swallow, 11-ribbon, 11-lightning, 12-plain-2, 12-plain-3, 12-plain-1 |
    A = shisō 20; B = karasu 4 (Willow = chaff); total 24"""
    r = hand_json("11-rainman, 11-swallow, 11-ribbon, 11-lightning, 12-plain-2, 12-plain-3, 12-plain-1")
    assert names(r) == (("shiso", 20), ("karasu", 4), 24)


def test_t3():
    """T3 | hand 12-phoenix, 12-plain-2, 12-plain-3, 01-crane, 02-warbler, 03-curtain, 08-moon |
    A = sanbon 2 (not standing); B = none"""
    r = hand_json("12-phoenix, 12-plain-2, 12-plain-3, 01-crane, 02-warbler, 03-curtain, 08-moon")
    assert names(r) == (("sanbon", 2), None, 2)


def test_t4():
    """T4 | as T3 but with 12-plain-1 instead of 12-phoenix | A = tatesanbon 3"""
    r = hand_json("12-plain-1, 12-plain-2, 12-plain-3, 01-crane, 02-warbler, 03-curtain, 08-moon")
    assert r["group_a"]["name"] == "tatesanbon" and r["group_a"]["kan"] == 3


def test_t5():
    """T5 | hand 01-plain-1, 02-plain-1, 03-plain-1, 04-plain-1, 05-plain-1, 11-rainman, 08-moon |
    B = pikaichi 4 (Rain Man = chaff)"""
    r = hand_json("01-plain-1, 02-plain-1, 03-plain-1, 04-plain-1, 05-plain-1, 11-rainman, 08-moon")
    assert r["group_b"]["name"] == "pikaichi" and r["group_b"]["kan"] == 4


def test_t6():
    """T6 | hand 01-plain-1, 02-plain-1, 03-plain-1, 04-plain-1, 05-plain-1, 09-ribbon, 06-ribbon |
    B = aka 2"""
    r = hand_json("01-plain-1, 02-plain-1, 03-plain-1, 04-plain-1, 05-plain-1, 09-ribbon, 06-ribbon")
    assert r["group_b"]["name"] == "aka" and r["group_b"]["kan"] == 2


def test_t7():
    """T7 | T6 with 05-plain-1 replaced by 05-bridge | B = none"""
    r = hand_json("01-plain-1, 02-plain-1, 03-plain-1, 04-plain-1, 05-bridge, 09-ribbon, 06-ribbon")
    assert r["group_b"] is None


def test_t8():
    """T8 | hand 04-cuckoo, 04-ribbon, 04-plain-1, 05-bridge, 05-ribbon, 05-plain-1, 08-moon |
    A = futatatesanbon 8"""
    r = hand_json("04-cuckoo, 04-ribbon, 04-plain-1, 05-bridge, 05-ribbon, 05-plain-1, 08-moon")
    assert r["group_a"]["name"] == "futatatesanbon" and r["group_a"]["kan"] == 8


def test_t9():
    """T9 | hand 01-plain-1, 01-plain-2, 02-plain-1, 02-plain-2, 03-plain-1, 03-plain-2, 08-moon |
    A = kuttsuki 4; B = pikaichi 4; total 8"""
    r = hand_json("01-plain-1, 01-plain-2, 02-plain-1, 02-plain-2, 03-plain-1, 03-plain-2, 08-moon")
    assert names(r) == (("kuttsuki", 4), ("pikaichi", 4), 8)


def test_t10():
    """T10 | hand 01-plain-1, 01-plain-2, 01-ribbon, 02-plain-1, 02-plain-2, 03-plain-1, 03-plain-2 |
    A = haneken 7; B = tan-ichi 3; total 10"""
    r = hand_json("01-plain-1, 01-plain-2, 01-ribbon, 02-plain-1, 02-plain-2, 03-plain-1, 03-plain-2")
    assert names(r) == (("haneken", 7), ("tan-ichi", 3), 10)


def test_t11():
    """T11 | captures 01-crane, 03-curtain, 08-moon, 11-rainman | dekiyaku none; add 12-phoenix →
    gokō 12 (not 12 + 10)"""
    caps = {"01-crane", "03-curtain", "08-moon", "11-rainman"}
    assert dk.find(caps) == ()
    found = dk.find(caps | {"12-phoenix"})
    assert [(d.name, d.kan) for d in found] == [("goko", 12)]
    assert dk.total_kan(found) == 12


def test_t12():
    """T12 | captures of the ribbons 01, 02, 03, 06, 09, 10 | akatan 7 + aotan 7 = 14; add 04-ribbon →
    + nanatan 10 = 24; add 11-ribbon instead of 04 → still 14"""
    six = {f"{m:02d}-ribbon" for m in (1, 2, 3, 6, 9, 10)}
    assert dk.total_kan(dk.find(six)) == 14
    assert {d.name for d in dk.find(six)} == {"akatan", "aotan"}
    assert dk.total_kan(dk.find(six | {"04-ribbon"})) == 24
    assert dk.total_kan(dk.find(six | {"11-ribbon"})) == 14


def _split_points(targets: list[int]) -> list[tuple[str, ...]]:
    """Partition the 48 cards into piles with the given point totals (they add up to 264),
    each with fewer than 16 plains so that no special case applies."""
    import random

    from scorer.cards import card, hanafuda_ids

    for attempt in range(1000):
        rng = random.Random(attempt)
        cards = sorted(hanafuda_ids(), key=lambda c: (-card(c).points, rng.random()))
        piles: list[list[str]] = [[] for _ in targets]
        left = list(targets)
        for cid in cards:
            pts = card(cid).points
            plain = ty.plain_class(cid) == "plain"
            fits = [
                k for k in range(len(piles))
                if left[k] >= pts and not (plain and sum(ty.plain_class(c) == "plain" for c in piles[k]) >= 15)
            ]
            if not fits:
                break
            k = max(fits, key=lambda k: (left[k], rng.random()))
            piles[k].append(cid)
            left[k] -= pts
        else:
            if not any(left):
                return [tuple(p) for p in piles]
    raise AssertionError(f"cannot split the deck into {targets}")


def _facts(captures: list[tuple[str, ...]], multiplier: int = 1, **kw) -> RoundFacts:
    active = (1, 2, 3)
    base = dict(
        n_seats=3,
        dealer=1,
        active=active,
        retired=(),
        multiplier=multiplier,
        captured=dict(zip(active, captures, strict=True)),
        dealt={},
        claims=(),
        buyouts=(),
        sage=(),
        yaku={s: 0 for s in active},
    )
    base.update(kw)
    return RoundFacts(**base)


def test_t13():
    """T13 | no dekiyaku, captures 100 / 88 / 76, field ōba ×2 | +24 / 0 / −24 points"""
    piles = _split_points([100, 88, 76])
    assert [captured_points(p) for p in piles] == [100, 88, 76]
    winner, changes, _lines = settle(_facts(piles, 2), Ending("exhausted"), STANDARD)
    assert changes == [24, 0, -24]
    assert winner == 1


def test_t14():
    """T14 | no dekiyaku, one player has 16 non-Willow chaff + 11-ribbon (17 "chaff"), ×1 |
    sujūroku: that player +14 kan from each (12 + 2), nothing else paid"""
    from scorer.cards import card, hanafuda_ids

    plains = [c for c in hanafuda_ids() if card(c).kind == "plain" and card(c).month != 11][:16]
    mine = tuple(plains) + ("11-ribbon",)
    rest = [c for c in hanafuda_ids() if c not in mine]
    piles = [mine, tuple(rest[: len(rest) // 2]), tuple(rest[len(rest) // 2 :])]
    claims = ((2, "sanbon"),)
    winner, changes, lines = settle(_facts(piles, 1, claims=claims), Ending("exhausted"), STANDARD)
    assert winner == 1
    assert changes == [2 * 14 * 12, -14 * 12, -14 * 12]
    assert not any("teyaku" in line for line in lines)


def test_t15():
    """T15 | field cards include 11-rainman, 12-phoenix, 01-crane; queue empty | this round ×4;
    queue → [×4, ×2]"""
    field = ("11-rainman", "12-phoenix", "01-crane", "02-plain-1", "03-plain-1", "04-plain-1")
    assert field_multiplier(field, (), STANDARD) == (4, (4, 2))


# --------------------------------------------------------------------------- seed-1910 vectors
SEED_HANDS = [
    # (hand, expected group A (name, points), expected group B (name, points), source words)
    ("01-plain-1 01-plain-2 01-ribbon 02-warbler 04-cuckoo 06-butterflies 08-moon",
     ("sanbon", 18), None, "three of the seven cards of the same suit: one and a half dozen"),
    ("04-plain-1 04-plain-2 04-ribbon 02-warbler 06-butterflies 08-moon 10-deer",
     ("sanbon", 18), None, "no standing triplets in the seed: a wisteria triplet is a triplet"),
    ("01-plain-1 02-plain-1 03-plain-1 04-plain-1 05-plain-1 06-ribbon 07-ribbon",
     None, ("aka", 24), "two or more tanzaku among plain ones: two dozen"),
    ("01-plain-1 02-plain-1 03-plain-1 04-plain-1 05-plain-1 06-plain-1 08-moon",
     None, ("pikaichi", 36), "a plain hand with only one card of higher value (a bright): three dozen"),
    ("01-plain-1 02-plain-1 03-plain-1 04-plain-1 05-plain-1 06-plain-1 10-deer",
     None, ("toichi", 36), "a plain hand with only one card of higher value (an animal): three dozen"),
    ("01-plain-1 02-plain-1 03-plain-1 04-plain-1 05-plain-1 06-plain-1 09-ribbon",
     None, ("tan-ichi", 36), "a plain hand with only one card of higher value (a ribbon): three dozen"),
    ("01-plain-1 01-plain-2 02-plain-1 02-plain-2 03-ribbon 03-curtain 10-deer",
     ("kuttsuki", 48), None, "three pairs of suits: four dozen"),
    ("01-plain-1 02-plain-1 03-plain-1 04-plain-1 05-plain-1 06-plain-1 07-plain-1",
     None, ("karasu", 48), "a complete hand of plain cards: four dozen"),
    ("01-plain-1 01-plain-2 01-ribbon 02-plain-1 02-plain-2 02-ribbon 10-deer",
     ("futasanbon", 72), None, "two sets of three cards of the same suit: six dozen"),
    ("01-plain-1 01-plain-2 01-ribbon 01-crane 02-plain-1 02-plain-2 02-ribbon",
     ("shiso", 240), None, "four cards of one suit and three of another: twenty dozen"),
    ("03-plain-1 03-plain-2 03-ribbon 03-curtain 05-bridge 08-moon 10-deer",
     ("teshi", 72), None, "'and so on': the other group A hands at the standard values (teshi 6 kan)"),
]


@pytest.mark.parametrize("cards,want_a,want_b,why", SEED_HANDS, ids=[h[3][:40] for h in SEED_HANDS])
def test_seed_1910_teyaku(cards, want_a, want_b, why):
    r = hand_json(cards, SEED)
    got_a = r["group_a"] and (r["group_a"]["name"], r["group_a"]["points"])
    got_b = r["group_b"] and (r["group_b"]["name"], r["group_b"]["points"])
    assert (got_a, got_b) == (want_a, want_b), why


def test_seed_1910_card_points_settlement_and_forfeits():
    """Seed: 'according as that value is more or less than eighty-eight, the difference represents
    their gain or loss. The winner of the largest number also gets the forfeits paid by the retired
    players.' Forfeit as FudaWiki: 1 kan for the first retiree, 1.5 kan for the second."""
    piles = _split_points([130, 70, 64])
    facts = RoundFacts(
        n_seats=5, dealer=1, active=(1, 2, 3), retired=(4, 5), multiplier=1,
        captured={1: piles[0], 2: piles[1], 3: piles[2]}, dealt={}, claims=(), buyouts=(),
        sage=(), yaku={},
    )
    winner, changes, _ = settle(facts, Ending("exhausted"), SEED)
    assert winner == 1
    assert changes == [42 + 12 + 18, -18, -24, -12, -18]
    assert sum(changes) == 0


def test_seed_1910_no_field_multiplier():
    """Seed: no fields; brights on the table change nothing."""
    field = ("11-rainman", "12-phoenix", "01-crane", "02-plain-1", "03-plain-1", "04-plain-1")
    assert field_multiplier(field, (), SEED) == (1, ())


def test_seed_1910_teyaku_paid_by_each_of_the_other_two():
    """Seed: 'the holder can claim a forfeit of one and a half dozen points from each of the other two'."""
    piles = _split_points([88, 88, 88])
    dealt = tuple("01-plain-1 01-plain-2 01-ribbon 02-warbler 04-cuckoo 06-butterflies 08-moon".split())
    facts = _facts(piles, 1, claims=((2, "sanbon"),), dealt={2: dealt})
    winner, changes, _ = settle(facts, Ending("exhausted"), SEED)
    assert changes == [-18, 36, -18]
    assert winner == 1  # all tie on 88: the earliest in turn order wins


def test_seed_1910_forced_out_buyout_is_standard_compensation():
    """README: forced-out players may insist on being bought out (paid as the standard hand
    compensation: half the teyaku, plus 3 points per gokō/akatan/aotan card not counted)."""
    piles = _split_points([88, 88, 88])
    shown = tuple("01-crane 01-ribbon 01-plain-1 03-curtain 06-ribbon 09-plain-1 10-plain-1".split())
    facts = RoundFacts(
        n_seats=4, dealer=1, active=(1, 2, 3), retired=(), multiplier=1,
        captured={1: piles[0], 2: piles[1], 3: piles[2]}, dealt={}, claims=(),
        buyouts=((4, shown),), sage=(), yaku={},
    )
    _, changes, _ = settle(facts, Ending("exhausted"), SEED)
    # sanbon of January = 18 points -> 9; 03-curtain and 06-ribbon contribute, not counted: 6.
    assert changes[3] == 2 * 15
    assert changes[1] == changes[2] == -15 and changes[0] == 0


def test_teyaku_values_at_kan_10():
    """Kan size 10: sanbon 2 kan = 20 points (reference §2.5 table, pts @10)."""
    opts = SPEC.options("standard", {"kan-size": "10"})
    r = SPEC.evaluate_hand("01-plain-1 01-plain-2 01-ribbon 02-warbler 04-cuckoo 06-butterflies 08-moon".split(), opts)
    assert r.to_json()["group_a"]["points"] == 20


def test_every_teyaku_name_has_a_value():
    for name in ty.STANDARD_VALUES:
        assert ty.value_half_kan(name) > 0
