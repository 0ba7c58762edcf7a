"""A round that ends by what no camera sees (Hachi-hachi: three seats retire, one plays alone):
the ``unseen`` question at the source's end offers every such ending, and asks once."""

from __future__ import annotations

import pytest

from scorer.games import game
from scorer.tracker import Tracker, TrackerOptions
from vision.synth.oracle import perfect_states
from vision.synth.video import GameVideo, VideoSpec

SEED = 3105
"""Hachi-hachi, 4 seated, seed-1910: after the deal seats 4, 1 and 2 retire and seat 3 plays alone,
which settles the round with nothing moved on the table."""


def _follow() -> tuple[GameVideo, Tracker, float]:
    """The round's video followed to its end (no question on the way)."""
    video = GameVideo(VideoSpec(game="hachi-hachi", players=4, ruleset="seed-1910", seed=SEED, rounds=1, fps=15.0))
    m = video.playout.match
    tracker = Tracker(game("hachi-hachi").match(m.players, m.options), TrackerOptions(confirm_stones=False))
    t = 0.0
    for ts in perfect_states(video, 0.0, SEED):
        t = ts.t
        assert tracker.update(ts.table, t).question is None
    return video, tracker, t


@pytest.fixture(scope="module")
def followed() -> tuple[GameVideo, Tracker, float]:
    return _follow()


def test_every_traceless_ending_is_offered_and_nothing_more_is_asked_once_answered(followed) -> None:  # noqa: ANN001
    video, tracker, t = followed
    u = tracker.finish(t)
    assert u.question is not None and u.question.kind == "unseen"
    declares = [tuple((e.seat, e.play) for e in c.events) for c in u.question.candidates]  # type: ignore[attr-defined]
    assert declares[0] == ()  # nothing happened comes first: several endings are possible
    alone = {next(seat for seat, play in d if play) for d in declares[1:] if sum(p for _, p in d) == 1}
    assert alone == {1, 2, 3, 4}
    truth = tuple((e.seat, e.play) for e in video.playout.events if e.TYPE == "declare")
    pick = declares.index(truth)
    tracker.choose(pick)
    assert [tuple(r.changes) for r in tracker.match.results] == [tuple(r.changes) for r in video.playout.match.results]


def test_an_unseen_question_answered_nothing_is_not_asked_again() -> None:
    _video, tracker, t = _follow()
    first = tracker.finish(t)
    assert first.question is not None
    assert tracker.choose(0) == ()
    again = tracker.finish(t)
    assert again.question is None and again.state == "synced"
