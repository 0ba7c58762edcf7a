"""Bagaji's showdown through a camera that misses, invents and misreads cards: the hands shown are
read as hands can be, and a card the camera never sees is asked for (``hidden-card``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from scorer.bagaji.tracking import extra_cards, hand_names
from scorer.games import game
from scorer.table import SeenCard, TableState, ZoneState
from scorer.tracker import Tracker, TrackerOptions
from vision.synth.oracle import perfect_states
from vision.synth.video import GameVideo, VideoSpec

SEED = 3221
"""A short Bagaji round (hanafuda-1x, 3 seated): seat 2 wins on its first draw; at the showdown
seat 2 lays 03-curtain 04-cuckoo 05-plain 06-plain 07-ribbon 08-moon, seat 3 01-plain 02-ribbon
04-plain 07-boar 07-plain, seat 1 05-plain 09-plain 10-plain 10-ribbon 11-swallow."""


@pytest.fixture(scope="module")
def video() -> GameVideo:
    return GameVideo(VideoSpec(game="bagaji", players=3, ruleset="seed", seed=SEED, rounds=1, fps=15.0,
                               deck="hanafuda-1x"))


Edit = Callable[[str, list[SeenCard]], list[SeenCard]]


def _edited(video: GameVideo, edit: Edit) -> Iterator[TableState]:
    """The perfect camera's tables with each seat zone's cards passed through ``edit(zone, cards)``."""
    for ts in perfect_states(video, 0.0, SEED):
        zones = {z: ZoneState(tuple(edit(z, list(s.up))), s.down) if z.startswith("seat:") else s
                 for z, s in ts.table.zones.items()}
        yield TableState(zones, ts.table.t, ts.table.actors, ts.table.history, ts.table.reached)


def _follow(video: GameVideo, edit: Edit, answer: Callable[[object], int] | None = None) -> tuple[Tracker, list]:
    """Follow the edited tables as ``fudaba replay`` does; every question answered by ``answer``
    (default: the first candidate). Returns the tracker and the updates."""
    m = video.playout.match
    tracker = Tracker(game("bagaji").match(m.players, m.options), TrackerOptions(confirm_stones=False))
    updates = []
    t = 0.0

    def step(u) -> None:  # noqa: ANN001
        updates.append(u)
        if u.question is not None:
            tracker.choose(answer(u.question) if answer else 0)

    for table in _edited(video, edit):
        t = table.t
        step(tracker.update(table, t))
    for _ in range(4):
        u = tracker.finish(t)
        step(u)
        if u.question is None:
            break
    return tracker, updates


def _truth(video: GameVideo) -> list[tuple[int, ...]]:
    return [tuple(r.changes) for r in video.playout.match.results]


def _results(tracker: Tracker) -> list[tuple[int, ...]]:
    return [tuple(r.changes) for r in tracker.match.results]


def test_the_perfect_camera_settles_the_round(video: GameVideo) -> None:
    tracker, updates = _follow(video, lambda z, cards: cards)
    assert _results(tracker) == _truth(video) == [(45, -33, 21)]
    assert not any(u.question for u in updates)


def test_a_phantom_in_a_shown_hand_is_dropped_for_the_surer_cards(video: GameVideo) -> None:
    phantom = SeenCard((("09-sakecup", 0.2),))

    def edit(zone: str, cards: list[SeenCard]) -> list[SeenCard]:
        return [*cards, phantom] if zone == "seat:2" and cards else cards

    tracker, updates = _follow(video, edit)
    assert _results(tracker) == _truth(video)
    assert not any(u.question for u in updates)


def test_a_shown_card_misread_as_one_known_elsewhere_takes_its_next_name(video: GameVideo) -> None:
    # 08-moon lies in seat 2's shown hand: seat 3's boar cannot be it
    misread = SeenCard((("08-moon", 0.6), ("07-boar", 0.35)))

    def edit(zone: str, cards: list[SeenCard]) -> list[SeenCard]:
        return [misread if c.name == "07-boar" else c for c in cards] if zone == "seat:3" else cards

    tracker, updates = _follow(video, edit)
    assert _results(tracker) == _truth(video)
    assert not any(u.question for u in updates)


def test_a_card_of_a_shown_hand_never_seen_is_read_again_then_asked(video: GameVideo) -> None:
    def edit(zone: str, cards: list[SeenCard]) -> list[SeenCard]:
        return [c for c in cards if c.name != "11-swallow"] if zone == "seat:1" else cards

    def answer(q) -> int:  # noqa: ANN001 - as a player who sees the card
        if q.kind != "hidden-card":
            return 0
        return next(i for i, c in enumerate(q.candidates) if [e.cards for e in c.events] == [("11-swallow",)])

    tracker, updates = _follow(video, edit, answer)
    assert any("seat:1" in u.reread for u in updates)
    asked = [u.question for u in updates if u.question is not None]
    assert [q.kind for q in asked] == ["hidden-card"]
    q = asked[0]
    assert all(c.events[0].TYPE == "show" and c.events[0].seat == 1 for c in q.candidates)
    assert q.to_json()["something_else"]
    assert _results(tracker) == _truth(video)


def test_a_hand_with_a_card_never_seen_does_not_settle_silently(video: GameVideo) -> None:
    """Answered with a wrong card, the round may settle other than the truth: never without the
    question that says so."""
    def edit(zone: str, cards: list[SeenCard]) -> list[SeenCard]:
        return [c for c in cards if c.name != "11-swallow"] if zone == "seat:1" else cards

    tracker, updates = _follow(video, edit)
    assert tracker.match.results, "the round settles once the question is answered"
    assert any(u.question is not None and u.question.kind == "hidden-card" for u in updates)


def test_hand_names_take_the_likeliest_name_the_pool_holds_and_no_more_than_the_hand() -> None:
    pool = {"03-curtain": 1, "05-plain-1": 1, "05-plain-2": 1, "07-boar": 1}
    cards = [SeenCard.certain("03-curtain"), SeenCard((("08-moon", 0.7), ("07-boar", 0.2))),
             SeenCard.certain("05-plain"), SeenCard.certain("05-plain"), SeenCard((("11-swallow", 0.3),))]
    from collections import Counter

    assert hand_names(cards, Counter(pool), 4) == ["03-curtain", "07-boar", "05-plain", "05-plain"]
    assert hand_names(cards, Counter(pool), 2) == ["03-curtain", "07-boar"]
    assert hand_names([SeenCard.certain("05-plain")] * 3, Counter(pool), 4) == ["05-plain", "05-plain"]


def test_extra_cards_are_those_beyond_the_expected_names_surest_kept_for_them() -> None:
    from collections import Counter

    sure, unsure = SeenCard.certain("07-boar"), SeenCard((("07-boar", 0.4),))
    other = SeenCard.certain("01-crane")
    assert extra_cards((unsure, other, sure), Counter({"07-boar": 1})) == [other, unsure]


def test_a_show_of_fewer_cards_than_all_but_one_of_the_hand_is_not_offered(video: GameVideo) -> None:
    """A hand is laid down whole: one card seen in a seat zone of five concealed cards is no show
    (it explained a meld's stray card as a win and a hand shown in part)."""
    from scorer.bagaji.tracking import HOOKS

    def edit(zone: str, cards: list[SeenCard]) -> list[SeenCard]:
        return cards[:1] if zone == "seat:1" else cards

    m = video.playout.match
    tracker = Tracker(game("bagaji").match(m.players, m.options), TrackerOptions(confirm_stones=False))
    offered = []
    for table in _edited(video, edit):
        offered += [ev for ev in HOOKS.shows(tracker.match, table) if ev.seat == 1]
        u = tracker.update(table, table.t)
        if u.question is not None:
            tracker.choose(0)
    assert tracker.match.phase() == "showdown"
    assert offered == []
