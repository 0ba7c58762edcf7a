"""Property tests of the Hachi-hachi engine over random legal matches (hypothesis seeds the deals)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer import record
from scorer.errors import IllegalEventError
from scorer.games import game
from scorer.hachihachi.events import Deal, Draw, Play
from scorer.simulate import play_match, play_round

SPEC = game("hachi-hachi")
RULESETS = list(SPEC.rulesets)
SEATS = [3, 4, 5, 6, 7]
PROP = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new_match(ruleset: str, n: int, **overrides):
    opts = SPEC.options(ruleset, {"rounds": 3, **overrides})
    return SPEC.match([f"P{i + 1}" for i in range(n)], opts)


def check_cards(match) -> None:
    places = match.state.places
    if places is None:
        return
    assert places.multiset() == Counter(match._cards.cards)
    assert places.is_fully_known()
    # with a fully known deal every physical card is in exactly one place
    seen = Counter()
    for name in places.names():
        seen.update(places[name].known)
    assert seen == Counter(match._cards.cards)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("n", SEATS)
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_random_matches_keep_cards_and_sum_to_zero(ruleset, n, seed):
    match = new_match(ruleset, n)
    rng = random.Random(seed)
    while not match.is_over:
        match.apply(match.random_event(rng))
        check_cards(match)
    assert len(match.results) == 3
    for result in match.results:
        assert sum(result.changes) == 0, result.lines
    assert sum(match.totals) == 0


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("n", [3, 5, 7])
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_export_replay_reproduces_every_score(ruleset, n, seed):
    match = new_match(ruleset, n, **({"who-pays": "split", "kan-size": "10"} if seed % 2 else {}))
    play_match(match, random.Random(seed))
    text = record.export(match, ruleset).dumps()
    again = record.loads(text).replay()
    assert again.results == match.results
    assert again.state == match.state


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("n", [3, 4, 7])
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_undo_restores_exact_state(ruleset, n, seed):
    match = new_match(ruleset, n)
    rng = random.Random(seed)
    play_round(match, rng)
    before_round = match.state
    count_before = len(match.events)
    snapshots = []
    while len(match.results) < 2 and not match.is_over:
        snapshots.append(match.state)
        match.apply(match.random_event(rng))
    # undo step by step, comparing against every saved state
    for snap in reversed(snapshots):
        match.undo()
        assert match.state == snap
    assert match.state == before_round
    assert len(match.events) == count_before


@pytest.mark.parametrize("ruleset", RULESETS)
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_illegal_events_change_nothing_and_name_a_rule(ruleset, seed):
    match = new_match(ruleset, 3)
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 40)):
        if match.is_over:
            break
        match.apply(match.random_event(rng))
    if match.is_over:
        return
    before = match.state
    events_before = match.events
    bad = []
    r = match.state.round
    if r is not None and r.places is not None:
        # a card already on the table or captured cannot be played or drawn again
        table = r.places
        for name in table.names():
            if name.startswith(("captured", "field")) and table[name].known:
                seen = table[name].known[0]
                bad.append(Play(1, seen))
                bad.append(Draw(1, seen))
    bad.append(Deal(1, ((),), (), 0))
    for event in bad:
        err = match.check(event)
        if err is None:
            continue
        with pytest.raises(IllegalEventError) as info:
            match.apply(event)
        assert info.value.rule
        assert match.state == before
        assert match.events == events_before


def to_observer(event):
    """The same event as a camera sees it: hands and stock dealt face down."""
    if isinstance(event, Deal):
        hands = tuple(len(h) if isinstance(h, tuple) else h for h in event.hands)
        stock = len(event.stock) if isinstance(event.stock, tuple) else event.stock
        return Deal(event.dealer, hands, event.field, stock)
    return event


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("n", [3, 6, 7])
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_observer_accepts_the_same_game(ruleset, n, seed):
    known = new_match(ruleset, n)
    play_match(known, random.Random(seed))
    seen = new_match(ruleset, n)
    for event in known.events:
        seen.apply(to_observer(event))
        places = seen.state.places
        if places is not None:
            assert places.multiset() == Counter(seen._cards.cards)
    assert seen.results == known.results


def test_observer_refuses_a_card_revealed_twice():
    known = new_match("standard", 3)
    rng = random.Random(7)
    while known.state.round is None or known.state.round.phase != "play":
        known.apply(known.random_event(rng))
    seen = new_match("standard", 3)
    for event in known.events:
        seen.apply(to_observer(event))
    field_card = seen.state.places["field"].known[0]
    seat = seen.to_play()
    err = seen.check(Play(seat, field_card))
    assert err is not None and err.rule == "card-in-hand"
    assert "already known to be at field" in err.message


@pytest.mark.parametrize("ruleset", RULESETS)
@PROP
@given(seed=st.integers(0, 2**32 - 1))
def test_every_listed_event_is_accepted(ruleset, seed):
    match = new_match(ruleset, 4)
    rng = random.Random(seed)
    while not match.is_over:
        try:
            listed = match.legal_events()
        except Exception:  # a deal: not enumerable
            listed = []
        for event in listed:
            assert match.check(event) is None, (event, match.check(event))
        match.apply(match.random_event(rng))


def test_claims_listed_for_every_teyaku_shape():
    """Claims offered by legal_events show what the claim rule asks (all seven for ichinishi)."""
    from tests.helpers import scripted_deal

    hands = {
        "ichinishi": ("01-crane", "01-ribbon", "01-plain-1", "01-plain-2", "02-plain-1", "02-plain-2", "05-bridge"),
        "shiso": ("01-crane", "01-ribbon", "01-plain-1", "01-plain-2", "02-plain-1", "02-plain-2", "02-ribbon"),
        "kuttsuki": ("03-plain-1", "03-plain-2", "04-plain-1", "04-plain-2", "05-plain-1", "05-plain-2", "06-ribbon"),
    }
    field = ("07-plain-1", "07-plain-2", "08-plain-1", "09-plain-1", "10-plain-1", "12-plain-2")
    from scorer.hachihachi.events import Claim, Declare

    for name, hand in hands.items():
        m = SPEC.match(["A", "B", "C"], SPEC.options("standard"))
        m.apply(scripted_deal(3, 1, hand, field))
        for seat in (1, 2, 3):
            m.apply(Declare(seat, True))
        claims = [e for e in m.legal_events() if isinstance(e, Claim) and e.seat == 1]
        assert any(c.teyaku == name for c in claims), claims
        for c in claims:
            m.apply(c)
