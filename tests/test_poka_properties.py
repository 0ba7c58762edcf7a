"""Property tests of the Poka engine over random legal matches, for every ruleset and option set.

Random matches come from ``scorer.simulate`` (uniformly random known deals and stock cards,
uniform choices among the legal events). Checked: card conservation and full knowledge, export →
replay, exact undo, refused events leave the state unchanged and name a rule, and an observer
(hidden hands, face-down stock) accepts the same events when cards are revealed as played.
"""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import record
from scorer.cards import deck
from scorer.errors import IllegalEventError
from scorer.poka import SPEC, Claim, Deal, NoClaim, Pass, Play, PokaMatch, Reshuffle, TableCard

CONFIGS = [(name, {}) for name in SPEC.rulesets] + [
    ("seed", {"extra-jokers": True}),
    ("seed", {"jan-feb-table-card-only": True, "all-out-first-turn-only": True}),
    ("seed", {"voluntary-stop": True}),
    ("seed", {"stones-to-win": 3}),
]

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
CONFIG = st.sampled_from(CONFIGS)
SETTINGS = settings(max_examples=40, deadline=None)


def new(config) -> PokaMatch:
    ruleset, overrides = config
    return SPEC.match(["Aki", "Ben"], SPEC.options(ruleset, overrides))


def random_match(config, seed: int, check_each=None) -> PokaMatch:
    m = new(config)
    rng = random.Random(seed)
    while not m.is_over:
        m.apply(m.random_event(rng))
        if check_each:
            check_each(m)
    return m


def conserved(m: PokaMatch) -> None:
    places = m.state.places
    assert places.multiset() == deck(m.deck).counts
    assert places.is_fully_known()
    assert all(places[f"hand:{seat}"].size <= 6 for seat in (1, 2))
    assert m.state.pool == max(0, m.options.pool_size - sum(m.state.stones))


@SETTINGS
@given(CONFIG, SEEDS)
def test_cards_conserved_and_known(config, seed):
    m = random_match(config, seed, conserved)
    assert max(m.totals) >= m.options.stones_to_win
    assert m.totals == m.state.stones
    for r in m.results:
        assert r.winner in (1, 2) and sum(r.changes) in (1, 2, 5) and r.lines


@SETTINGS
@given(CONFIG, SEEDS)
def test_export_replay(config, seed):
    m = random_match(config, seed)
    text = record.export(m, config[0]).dumps()
    again = record.loads(text).replay()
    assert again.results == m.results
    assert again.state == m.state


@SETTINGS
@given(CONFIG, SEEDS, st.randoms(use_true_random=False))
def test_undo_restores_state(config, seed, picker):
    m = new(config)
    rng = random.Random(seed)
    while not m.is_over:
        before = m.state
        event = m.random_event(rng)
        if picker.random() < 0.2:
            m.apply(event)
            m.undo()
            assert m.state == before
        rounds = len(m.results)
        m.apply(event)
        if len(m.results) > rounds and picker.random() < 0.5:
            # Undo the whole round back to before its deal, then replay it.
            played = []
            while True:
                played.append(m.undo())
                if isinstance(played[-1], Deal):
                    break
            start = m.state
            assert len(m.results) == rounds
            for ev in reversed(played):
                m.apply(ev)
            for _ in played:
                m.undo()
            assert m.state == start
            for ev in reversed(played):
                m.apply(ev)


def _probes(m: PokaMatch, rng: random.Random) -> list:
    """Random events of every type, mostly illegal."""
    ids = list(dict.fromkeys(deck(m.deck).cards))
    seat = rng.choice((1, 2, 3))
    return [
        Play(seat, rng.choice(ids)),
        Pass(seat),
        NoClaim(seat),
        Claim(seat, tuple(rng.sample(ids, 6))),
        TableCard(rng.choice(ids)),
        Reshuffle(),
        Deal(seat, (6, 6), rng.choice(ids)),
    ]


@SETTINGS
@given(CONFIG, SEEDS)
def test_refused_events_change_nothing(config, seed):
    m = new(config)
    rng = random.Random(seed)
    refused = 0
    while not m.is_over:
        for probe in _probes(m, rng):
            before = m.state
            n_events = len(m.events)
            try:
                m.apply(probe)
            except IllegalEventError as exc:
                refused += 1
                assert exc.rule and exc.message
                assert m.state is before and len(m.events) == n_events
            else:
                m.undo()
                assert m.state == before
        m.apply(m.random_event(rng))
    assert refused


def _observer_deal(event: Deal) -> Deal:
    return dataclasses.replace(event, hands=(6, 6), stock=None)


@SETTINGS
@given(CONFIG, SEEDS)
def test_observer_accepts_the_known_events(config, seed):
    known = random_match(config, seed)
    observer = new(config)
    for event in known.events:
        observer.apply(_observer_deal(event) if isinstance(event, Deal) else event)
        places = observer.state.places
        assert places.multiset() == deck(observer.deck).counts
    assert observer.results == known.results
    assert observer.totals == known.totals


@settings(max_examples=20, deadline=None)
@given(CONFIG, SEEDS)
def test_observer_random_play(config, seed):
    """Random play on hidden hands (plays of any card the hand could hold) stays consistent."""
    m = new(config)
    rng = random.Random(seed)
    for _ in range(400):
        if m.is_over:
            break
        if m.state.phase == "deal":
            m.apply(_observer_deal(m.random_event(rng)))
        else:
            events = m.legal_events()
            assert events
            m.apply(events[rng.randrange(len(events))])
        assert m.state.places.multiset() == deck(m.deck).counts
