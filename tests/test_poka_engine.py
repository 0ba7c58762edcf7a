"""Poka engine: deal, claims window, turns, new table cards, reshuffle, settlement, options."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scorer import record
from scorer.cards import deck
from scorer.errors import IllegalEventError, InvalidEventError, ScorerError, UnknownCardError
from scorer.games import game
from scorer.match import NotEnumerableError
from scorer.poka import (
    EVENTS,
    SPEC,
    Claim,
    Deal,
    NoClaim,
    Pass,
    Play,
    PokaMatch,
    PokaOptions,
    Reshuffle,
    TableCard,
)
from scorer.poka.hands import deck_name
from scorer.rulesets import OptionError
from scorer.simulate import play_match, play_round

DATA = Path(__file__).parent / "data" / "poka_sample.jsonl"

THREE_PAIRS = ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"]
JAN_TRIPLET = ["01-ribbon", "01-plain-1", "01-plain-2", "04-cuckoo", "08-moon", "11-rainman"]
BUTTAKURI = ["05-bridge", "05-ribbon", "05-plain-1", "05-plain-2", "08-moon", "10-deer"]
PLAIN_A = ["03-plain-1", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1", "08-plain-1"]
PLAIN_B = ["09-plain-1", "10-plain-1", "11-swallow", "12-plain-2", "01-plain-1", "05-bridge"]


def new(options: PokaOptions | None = None, **overrides) -> PokaMatch:
    return SPEC.match(["Aki", "Ben"], options or SPEC.options(overrides=overrides))


def deal(hands, table, dealer=1, options=None, observer=False) -> Deal:
    options = options or PokaOptions()
    rest = list(deck(deck_name(options)).cards)
    for c in (*hands[0], *hands[1], table):
        rest.remove(c)
    if observer:
        return Deal(dealer, (6, 6), table)
    return Deal(dealer, (tuple(hands[0]), tuple(hands[1])), table, tuple(rest))


# --------------------------------------------------------------------------- spec and setup


def test_spec():
    assert game("poka") is SPEC
    assert SPEC.match is PokaMatch
    assert SPEC.default_ruleset == "seed" and set(SPEC.rulesets) == {"seed"}
    assert (SPEC.min_players, SPEC.max_players) == (2, 2)
    assert SPEC.summary
    assert PokaMatch.UNIT == "stones"
    assert set(EVENTS.types()) == {
        "deal",
        "claim",
        "no-claim",
        "play",
        "pass",
        "table-card",
        "reshuffle",
    }


def test_options_and_overrides():
    opts = SPEC.options(overrides={"stones-to-win": "3", "extra-jokers": "yes"})
    assert opts.stones_to_win == 3 and opts.extra_jokers
    with pytest.raises(OptionError):
        SPEC.options(overrides={"stones-to-win": "4"})
    with pytest.raises(OptionError):
        SPEC.options(overrides={"no-such": "1"})


def test_setup_checks():
    with pytest.raises(ValueError, match="two-player"):
        SPEC.match(["A", "B", "C"], PokaOptions())
    with pytest.raises(ValueError, match="hanafuda\\+3blank"):
        SPEC.match(["A", "B"], PokaOptions(extra_jokers=True), deck="hanafuda")
    assert new(extra_jokers=True).deck == "hanafuda+3blank"
    assert new().deck == "hanafuda"


def test_initial_state():
    m = new()
    s = m.state
    assert s.results == () and not s.over and s.places is None
    assert s.pool == 10 and s.stones == (0, 0) and s.top is None
    assert m.to_play() is None
    with pytest.raises(NotEnumerableError):
        m.legal_events()


# --------------------------------------------------------------------------- deal


def test_deal_sets_up_places():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    s = m.state
    assert s.phase == "claims" and s.round == 1 and s.dealer == 1
    assert s.places["stock"].size == 35
    assert s.places["pile"].known == ("02-plain-1",)
    assert s.places.multiset() == deck("hanafuda").counts
    assert s.places.is_fully_known()
    assert m.to_play() == 1


def test_observer_deal():
    m = new()
    m.apply(Deal(2, (6, 6), "05-bridge"))
    s = m.state
    assert s.hand(1).hidden == 6 and s.places["stock"].hidden == 35
    assert not s.places.is_fully_known()
    assert s.places.multiset() == deck("hanafuda").counts


@pytest.mark.parametrize(
    ("event", "rule"),
    [
        (Deal(3, (6, 6), "05-bridge"), "seat"),
        (Deal(1, (6, 5), "05-bridge"), "deal-size"),
        (Deal(1, (6, 6, 6), "05-bridge"), "deal-size"),
        (Deal(1, (tuple(PLAIN_A[:5]), 6), "05-bridge"), "deal-size"),
        (Deal(1, (6, 6), "05-bridge", ("01-crane",)), "deal-size"),
        (Deal(1, (tuple(PLAIN_A), tuple(PLAIN_A)), "05-bridge"), "card-conservation"),
    ],
)
def test_bad_deals(event, rule):
    m = new()
    with pytest.raises(IllegalEventError) as info:
        m.apply(event)
    assert info.value.rule == rule
    assert m.state.places is None


def test_unknown_card_in_deal():
    m = new()
    with pytest.raises(UnknownCardError):
        m.apply(Deal(1, (6, 6), "05-brige"))
    with pytest.raises(UnknownCardError):
        m.apply(Deal(1, (6, 6), "00-blank"))


def test_winner_deals_next():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1", dealer=2))
    m.apply(NoClaim(1))
    m.apply(NoClaim(2))
    assert m.to_play() == 2
    m.apply(Pass(2))  # seat 2 holds no March card and no wild
    for c in PLAIN_A:
        m.apply(Play(1, c))
    r = m.results[-1]
    assert (r.number, r.dealer, r.winner, r.changes, r.totals) == (1, 2, 1, (2, 0), (2, 0))
    assert "deals the next round" in r.lines[-1]
    assert m.to_play() == 1
    with pytest.raises(IllegalEventError) as info:
        m.apply(Deal(2, (6, 6), "05-bridge"))
    assert info.value.rule == "winner-deals"
    m.apply(Deal(1, (6, 6), "05-bridge"))
    assert m.state.round == 2


# --------------------------------------------------------------------------- claims window


def test_first_play_closes_claims():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    m.apply(Play(1, "03-plain-1"))
    assert m.state.phase == "play" and m.state.claims == ("none", "none")
    with pytest.raises(IllegalEventError) as info:
        m.apply(NoClaim(2))
    assert info.value.rule == "claim-time"


def test_only_the_dealer_opens_play():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    with pytest.raises(IllegalEventError) as info:
        m.apply(Pass(2))
    assert info.value.rule == "out-of-turn"


def test_known_teyaku_must_be_claimed():
    m = new()
    m.apply(deal((PLAIN_A, THREE_PAIRS[:5] + ["12-plain-3"]), "02-plain-1"))
    assert m.check(NoClaim(2)).rule == "teyaku-must-be-claimed"
    assert m.check(Play(1, "03-plain-1")).rule == "teyaku-must-be-claimed"
    assert m.legal_events() == [
        NoClaim(1),
        Claim(2, tuple(THREE_PAIRS[:5] + ["12-plain-3"]), "three-pairs"),
    ]


def test_claim_pending_blocks_play():
    m = new()
    m.apply(deal((PLAIN_A, THREE_PAIRS), "02-plain-1"))
    m.apply(Claim(2, tuple(THREE_PAIRS)))
    assert m.check(Play(1, "03-plain-1")).rule == "claim-pending"
    assert m.legal_events() == [NoClaim(1)]
    m.apply(NoClaim(1))
    r = m.results[-1]
    assert r.winner == 2 and r.changes == (0, 2) and "three pairs" in r.lines[0]
    assert m.state.pool == 8


def test_claim_errors():
    m = new()
    m.apply(deal((JAN_TRIPLET, PLAIN_A), "02-plain-1"))
    assert m.check(Claim(1, tuple(JAN_TRIPLET[:5]))).rule == "show-whole-hand"
    assert m.check(Claim(1, tuple(JAN_TRIPLET), "four-of-a-kind")).rule == "unknown-teyaku"
    assert m.check(Claim(1, tuple(JAN_TRIPLET), "buttakuri")).rule == "teyaku-not-held"
    assert m.check(Claim(2, tuple(PLAIN_A))).rule == "no-teyaku"
    wrong = tuple(JAN_TRIPLET[:5]) + ("09-plain-1",)
    assert m.check(Claim(1, wrong)).rule == "card-whereabouts"
    assert m.check(Claim(3, tuple(JAN_TRIPLET))).rule == "seat"
    m.apply(Claim(1, tuple(JAN_TRIPLET), "january-triplet"))
    assert m.check(Claim(1, tuple(JAN_TRIPLET))).rule == "claim-once"


def test_observer_claim_reveals_hand():
    m = new()
    m.apply(deal((JAN_TRIPLET, THREE_PAIRS), "02-plain-1", observer=True))
    m.apply(Claim(2, tuple(THREE_PAIRS), "three-pairs"))
    assert sorted(m.state.hand(2).known) == sorted(THREE_PAIRS)
    assert m.state.hand(2).hidden == 0
    m.apply(NoClaim(1))  # a hidden hand cannot be checked
    assert m.results[-1].changes == (0, 2)


def test_observer_claim_with_three_blanks():
    opts = PokaOptions(extra_jokers=True)
    hand = ["00-blank", "00-blank", "00-blank", "04-cuckoo", "08-moon", "11-rainman"]
    m = new(opts)
    m.apply(deal((hand, PLAIN_A), "02-plain-1", options=opts, observer=True))
    m.apply(Claim(1, tuple(hand)))
    assert m.state.hand(1).known.count("00-blank") == 3
    assert m.state.places.unseen_count("00-blank") == 0
    m.apply(NoClaim(2))
    assert m.results[-1].changes == (2, 0)


def test_void_claims_then_play_with_known_hands():
    m = new()
    m.apply(deal((THREE_PAIRS, JAN_TRIPLET), "02-plain-1", observer=True))
    m.apply(Claim(1, tuple(THREE_PAIRS)))
    m.apply(Claim(2, tuple(JAN_TRIPLET)))
    s = m.state
    assert s.phase == "play" and s.results == () and s.notes
    # Seat 1 holds 03-curtain and 03-ribbon on a February top: a known legal card, so no pass.
    assert m.check(Pass(1)).rule == "must-continue"
    m.apply(Play(1, "03-curtain"))
    assert m.state.top == "03-curtain"


def test_both_buttakuri_void():
    other = ["06-butterflies", "06-ribbon", "06-plain-1", "06-plain-2", "09-sakecup", "11-swallow"]
    m = new()
    m.apply(deal((BUTTAKURI, other), "02-plain-1"))
    m.apply(Claim(2, tuple(other)))
    m.apply(Claim(1, tuple(BUTTAKURI)))
    assert m.state.phase == "play" and m.state.results == ()


def test_void_note_reaches_round_result():
    m = new()
    m.apply(deal((THREE_PAIRS, JAN_TRIPLET), "02-plain-1"))
    m.apply(Claim(1, tuple(THREE_PAIRS)))
    m.apply(Claim(2, tuple(JAN_TRIPLET)))
    rng = random.Random(3)
    play_round(m, rng)
    assert "void" in m.results[-1].lines[0]


# --------------------------------------------------------------------------- turns


def test_out_of_turn_and_phase_errors():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    m.apply(Play(1, "03-plain-1"))
    assert m.check(Play(2, "09-plain-1")).rule == "out-of-turn"
    assert m.check(Play(1, "05-plain-1")).rule == "next-month"
    assert m.check(Play(1, "10-plain-1")).rule == "card-whereabouts"
    assert m.check(TableCard("10-plain-2")).rule == "no-new-table-card"
    assert m.check(Reshuffle()).rule == "reshuffle-time"
    with pytest.raises(UnknownCardError):
        m.apply(Play(1, "04-plane-1"))


def test_pass_from_hidden_hand_is_accepted():
    m = new()
    m.apply(Deal(1, (6, 6), "05-bridge"))
    m.apply(Pass(1))
    m.apply(Pass(2))
    assert m.state.phase == "table-card"
    assert m.check(Pass(1)).rule == "not-in-play"
    m.apply(TableCard("06-ribbon"))
    assert m.state.top == "06-ribbon" and m.state.to_play == 1 and m.state.run == 0


def test_observer_play_reveals_card():
    m = new()
    m.apply(Deal(1, (6, 6), "05-bridge"))
    m.apply(Play(1, "06-ribbon"))
    assert m.state.hand(1).size == 5 and m.state.places.where("06-ribbon") == ("pile",)
    m.apply(Pass(1))
    assert m.check(Play(2, "06-ribbon")).rule == "card-whereabouts"
    assert m.check(Play(2, "07-boar")) is None


def test_jan_feb_last_card_cannot_be_january():
    m = new()
    m.apply(Deal(1, (6, 6), "11-rainman"))
    for c in ("12-plain-1", "01-crane", "05-plain-1", "02-warbler", "01-plain-1"):
        m.apply(Play(1, c))
    assert m.state.hand(1).size == 1 and m.state.top == "01-plain-1"
    # A January on the January would leave no card for the February it owes (reference §4.2 Rule 3).
    assert m.check(Play(1, "01-plain-2")).rule == "jan-feb-exception"
    assert m.check(Play(1, "02-plain-1")) is None


def test_legal_events_play_phase():
    m = new()
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    m.apply(NoClaim(1))
    m.apply(NoClaim(2))
    assert m.legal_events() == [Play(1, "03-plain-1")]
    m.apply(Play(1, "03-plain-1"))
    assert m.legal_events() == [Play(1, "04-plain-1")]


def test_legal_events_voluntary_stop_offers_pass():
    m = new(voluntary_stop=True)
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    m.apply(Play(1, "03-plain-1"))
    assert set(m.legal_events()) == {Play(1, "04-plain-1"), Pass(1)}


def test_legal_events_jan_feb_owed_has_no_pass():
    hand = ["01-plain-2", "02-ribbon", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"]
    m = new()
    other = ["04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow", "12-plain-2"]
    m.apply(deal((hand, other), "01-plain-1"))
    assert set(m.legal_events()) >= {Play(1, "01-plain-2"), Play(1, "02-ribbon")}
    m.apply(Play(1, "01-plain-2"))
    assert m.legal_events() == [Play(1, "02-ribbon")]


# --------------------------------------------------------------------------- stock


def _exhaust(m: PokaMatch) -> None:
    """Pass through the whole stock with null turns (hidden hands or voluntary stop)."""
    seat = m.state.to_play
    while m.state.places["stock"].size:
        m.apply(Pass(seat))
        m.apply(Pass(3 - seat))
        m.apply(TableCard(m.state.places["stock"].known[0]))
    m.apply(Pass(seat))
    m.apply(Pass(3 - seat))


@pytest.mark.parametrize("observer", [False, True])
def test_reshuffle_keeps_top(observer):
    opts = PokaOptions(voluntary_stop=not observer)
    m = new(opts)
    if observer:
        # The observer knows the stock only once it has been reshuffled; name stock cards from
        # a fully known twin.
        twin = new(PokaOptions(voluntary_stop=True))
        d = deal((PLAIN_A, PLAIN_B), "02-plain-1")
        twin.apply(d)
        m.apply(Deal(1, (6, 6), "02-plain-1"))
        seat = 1
        while twin.state.places["stock"].size:
            for mm in (m, twin):
                mm.apply(Pass(seat))
                mm.apply(Pass(3 - seat))
            card = twin.state.places["stock"].known[0]
            twin.apply(TableCard(card))
            m.apply(TableCard(card))
        m.apply(Pass(seat))
        m.apply(Pass(3 - seat))
    else:
        m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
        _exhaust(m)
    s = m.state
    assert s.phase == "table-card" and s.places["stock"].size == 0
    top = s.top
    assert m.check(TableCard("02-plain-1")).rule == "reshuffle-first"
    assert m.legal_events() == [Reshuffle()]
    m.apply(m.random_event(random.Random(1)))
    s = m.state
    assert s.places["pile"].known == (top,)
    assert s.places["stock"].size == 35
    assert s.places.multiset() == deck("hanafuda").counts
    assert "02-plain-1" in s.places["stock"].known
    m.apply(TableCard("02-plain-1"))
    assert m.state.top == "02-plain-1" and m.state.phase == "play"


def test_random_table_card_comes_from_stock():
    m = new()
    m.apply(Deal(1, (6, 6), "05-bridge"))
    m.apply(Pass(1))
    m.apply(Pass(2))
    rng = random.Random(5)
    ev = m.random_event(rng)
    assert isinstance(ev, TableCard) and m.check(ev) is None
    assert len(m.legal_events()) == 47


# --------------------------------------------------------------------------- match end


def test_stones_to_win_three():
    m = new(stones_to_win=3)
    m.apply(deal((THREE_PAIRS, PLAIN_A), "02-plain-1"))
    m.apply(Claim(1, tuple(THREE_PAIRS)))
    m.apply(NoClaim(2))
    assert not m.is_over and m.totals == (2, 0)
    m.apply(deal((PLAIN_A, PLAIN_B), "02-plain-1"))
    m.apply(Play(1, "03-plain-1"))
    for c in PLAIN_A[1:]:
        m.apply(Play(1, c))
    assert m.is_over and m.totals == (4, 0) and m.state.pool == 6
    assert "wins the match" in m.results[-1].lines[-1]
    with pytest.raises(IllegalEventError) as info:
        m.apply(Deal(1, (6, 6), "02-plain-1"))
    assert info.value.rule == "match-over"
    assert m.legal_events() == []


def test_pool_never_negative():
    m = new(pool_size=4)
    mine = ["03-plain-1", "04-plain-1", "06-plain-1", "07-plain-1", "09-plain-2", "12-plain-3"]
    m.apply(deal((mine, BUTTAKURI[:4] + ["09-plain-1", "11-swallow"]), "02-plain-1"))
    m.apply(NoClaim(1))
    m.apply(Claim(2, tuple(BUTTAKURI[:4] + ["09-plain-1", "11-swallow"])))
    assert m.totals == (0, 5) and m.state.pool == 0 and m.is_over


def test_random_match_ends():
    rng = random.Random(11)
    for opts in (PokaOptions(), PokaOptions(extra_jokers=True), PokaOptions(stones_to_win=3)):
        m = new(opts)
        play_match(m, rng)
        assert m.is_over
        assert max(m.totals) >= opts.stones_to_win
        assert sum(r.changes[0] + r.changes[1] for r in m.results) == sum(m.totals)


# --------------------------------------------------------------------------- records


def test_events_json_round_trip():
    for ev in (
        Deal(1, (("01-crane",) * 6, 6), "05-bridge", None),
        Claim(2, ("01-crane",), None),
        NoClaim(1),
        Play(1, "06-ribbon"),
        Pass(2),
        TableCard("03-curtain"),
        Reshuffle(),
    ):
        assert EVENTS.from_json(ev.to_json()) == ev
    with pytest.raises(InvalidEventError):
        EVENTS.from_json({"type": "play", "seat": "1", "card": "06-ribbon"})


def test_sample_record_replays():
    rec = record.load(DATA)
    assert rec.header.game == "poka"
    m = rec.replay()
    # Two rounds: Aki empties the hand first (1 stone), then shows a January triplet (2 stones)
    # and reaches the 3 stones of this san-mon shobu record; a mistaken no-claim is undone.
    assert [r.changes for r in m.results] == [(1, 0), (2, 0)]
    assert m.is_over and m.totals == (3, 0) and m.state.pool == 7
    for r in m.results:
        assert r.lines
    assert m.state.places.multiset() == deck(m.deck).counts


def test_bad_record_line_names_line():
    text = DATA.read_text(encoding="utf-8").splitlines()
    text.append('{"type": "play", "seat": 9, "card": "06-ribbon"}')
    rec = record.loads("\n".join(text))
    with pytest.raises(ScorerError) as info:
        rec.replay()
    assert f":{len(text)}:" in str(info.value)
