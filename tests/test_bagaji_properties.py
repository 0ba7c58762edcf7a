"""Bagaji properties over random legal matches, for every deck option and player count.

Every card stays in exactly one place; export → replay reproduces every round; undo is exact;
illegal events change nothing and name a rule; an observer (hidden hands, unseen draws, shows at the
end) accepts the same game and reaches the same results.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer import cards, record
from scorer.bagaji import SPEC, BagajiMatch
from scorer.bagaji.events import Call, Deal, Discard, Draw, Ready, Reshuffle, Show, Stop, Win
from scorer.errors import IllegalEventError, ScorerError
from scorer.simulate import play_match

CONFIGS = (
    [("playing-2x", n) for n in (2, 3, 4, 5, 6, 8)]
    + [("hanafuda-1x", n) for n in (2, 3, 4, 5, 6)]
    + [("hanafuda-2x", n) for n in (2, 3, 4, 5, 6, 8)]
)
IDS = [f"{d}-{n}p" for d, n in CONFIGS]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new_match(deck: str, n: int, rounds: int = 2, **extra: str) -> BagajiMatch:
    options = SPEC.options(None, {"deck": deck, "end-after-rounds": str(rounds), **extra})
    return BagajiMatch([f"P{i + 1}" for i in range(n)], options)


@pytest.mark.parametrize(("deck", "n"), CONFIGS, ids=IDS)
@FAST
@given(seed=SEEDS)
def test_random_matches_keep_cards_replay_undo_and_observe(deck, n, seed):
    """One random two-round match per example, checked for every property of the conventions."""
    m = new_match(deck, n)
    rng = random.Random(seed)
    full = Counter(cards.deck(m.deck).cards)
    size = len(cards.deck(m.deck))
    round_start = m.state
    round_events = 0
    hands = []
    while not m.is_over:
        event = m.random_event(rng)
        if rng.random() < 0.1:  # apply then undo restores the exact state
            state = m.state
            m.apply(event)
            m.undo()
            assert m.state == state
        m.apply(event)
        places = m.state.places
        if places is not None:  # every card in exactly one place, all known
            assert places.multiset() == full
            assert places.is_fully_known()
            assert places.total() == size
        if len(m.results) > len(hands):
            hands.append(tuple(places[f"hand:{k}"].known for k in range(1, n + 1)))
        if len(m.results) == 1 and not round_events:
            round_events = len(m.events)
            if not m.is_over:
                round_start = m.state
    assert len(m.results) == 2
    assert m.totals == tuple(sum(r.changes[i] for r in m.results) for i in range(n))
    assert m.leaders() == tuple(i + 1 for i, t in enumerate(m.totals) if t == min(m.totals))

    again = record.loads(record.export(m, "seed").dumps()).replay()
    assert again.results == m.results
    assert again.state == m.state

    assert observer_replay(m, hands).results == m.results

    for _ in range(len(m.events) - round_events):  # undo of a whole round restores it
        m.undo()
    assert m.state == round_start


def _wild_events(m: BagajiMatch, rng: random.Random) -> list:
    s = m.state
    n = len(m.players)
    ids = sorted(cards.deck(m.deck).counts_set)
    seat = rng.randint(0, n + 1)
    return [
        Draw(seat, rng.choice(ids + [None])),
        Discard(seat, rng.choice(ids)),
        Call(seat, (rng.choice(ids), rng.choice(ids)), rng.random() < 0.5),
        Stop(seat),
        Win(seat),
        Ready(seat),
        Show(seat, (rng.choice(ids),)),
        Reshuffle(),
        Deal((5,) * n, 0),
    ] + ([Draw(s.to_play, None)] if s.to_play else [])


@pytest.mark.parametrize(("deck", "n"), CONFIGS, ids=IDS)
@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_illegal_events_change_nothing_and_name_a_rule(deck, n, seed):
    m = new_match(deck, n, rounds=1)
    rng = random.Random(seed)
    while not m.is_over:
        if m.state.phase not in ("first", "deal") and rng.random() < 0.3:
            for event in m.legal_events():
                assert m.check(event) is None, event
            for event in _wild_events(m, rng):
                before = m.state
                err = m.check(event)
                if err is None:
                    continue
                assert err.rule and err.message
                with pytest.raises(ScorerError):
                    m.apply(event)
                assert m.state == before
        m.apply(m.random_event(rng))


def settled_hands(m: BagajiMatch) -> list[tuple[tuple[str, ...], ...]]:
    """The concealed hands at each round's settlement, replaying ``m``'s events."""
    shadow = BagajiMatch(m.players, m.options)
    out = []
    for e in m.events:
        shadow.apply(e)
        if len(shadow.results) > len(out):
            out.append(tuple(shadow.state.places[f"hand:{k}"].known for k in range(1, len(m.players) + 1)))
    return out


def observer_replay(known: BagajiMatch, hands: list | None = None) -> BagajiMatch:
    """Replay a fully known match as the camera sees it; shows are added at each round end."""
    hands = settled_hands(known) if hands is None else hands
    obs = BagajiMatch(known.players, known.options)
    for e in known.events:
        if isinstance(e, Deal):
            e = dataclasses.replace(e, hands=(5,) * len(e.hands), stock=len(e.stock))
        elif isinstance(e, Draw):
            e = dataclasses.replace(e, card=None)
        settled = len(obs.results)
        obs.apply(e)
        if obs.state.phase == "showdown":
            for k in range(1, len(known.players) + 1):
                place = obs.state.places[f"hand:{k}"]
                assert not place.known
                if place.hidden:
                    obs.apply(Show(k, hands[settled][k - 1]))
            assert obs.results == known.results[: settled + 1]
    return obs


@pytest.mark.parametrize(
    "extra",
    [
        {"stock-exhausted": "no-winner"},
        {"natural-triplet-exposure": "true", "claim-priority": "turn-order"},
        {"ready-required": "false", "direction": "reverse", "stop-requires-call": "true"},
        {"four-and-pair-score": "-50", "straight-wrap": "true", "zero-four-of-a-kind": "true"},
        {"failed-stop-others-score": "nothing", "no-winner-first": "most-penalty", "month-order": "korean"},
    ],
    ids=["no-winner", "exposure", "no-ready", "variants", "stops"],
)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_options_keep_the_properties(extra, seed):
    rng = random.Random(seed)
    deck, n = CONFIGS[rng.randrange(len(CONFIGS))]
    m = new_match(deck, n, **extra)
    play_match(m, rng)
    full = Counter(cards.deck(m.deck).cards)
    assert m.state.places.multiset() == full
    again = record.loads(record.export(m, "seed").dumps()).replay()
    assert again.results == m.results
    assert observer_replay(m).results == m.results


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS)
def test_random_play_in_observer_mode_stays_legal(seed):
    rng = random.Random(seed)
    deck, n = CONFIGS[rng.randrange(len(CONFIGS))]
    m = new_match(deck, n)
    m.apply(m.random_event(rng))
    m.apply(Deal((5,) * n, len(cards.deck(m.deck)) - 5 * n))
    full = Counter(cards.deck(m.deck).cards)
    for _ in range(150):
        if m.is_over or not m.state.places:
            break
        event = m.random_event(rng)
        try:
            m.apply(event)
        except IllegalEventError as exc:  # pragma: no cover - a failure message worth reading
            raise AssertionError(f"random_event produced an illegal {event}: {exc}") from None
        if m.state.phase == "deal":
            break
        assert m.state.places.multiset() == full
