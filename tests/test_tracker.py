"""scorer.tracker on hand-made Poka tables: a deal and plays committed from settled states, the
hold time, an ambiguity held then asked, a table nothing explains reported out of sync, and
corrections."""

from __future__ import annotations

import pytest

from scorer.errors import ScorerError
from scorer.games import game
from scorer.poka.events import Deal, Play
from scorer.table import SeenCard, TableState, ZoneState
from scorer.tracker import Tracker, TrackerOptions


def _poka() -> Tracker:
    spec = game("poka")
    return Tracker(spec.match(["Aki", "Ben"], spec.options()), TrackerOptions(hold_s=0.3, ask_after_s=2.0))


def _table(top: str | SeenCard, actors: tuple[int, ...] = (), history: tuple[str, ...] = ()) -> TableState:
    card = top if isinstance(top, SeenCard) else SeenCard.certain(top)
    return TableState({"pile": ZoneState((card,)), "stock": ZoneState((), 1)}, None, actors,
                      {"pile": history} if history else {})


def _settle(tr: Tracker, table: TableState, t0: float, seconds: float = 0.5) -> list:
    done = []
    t = t0
    while t <= t0 + seconds + 1e-9:
        done += tr.update(table, t).committed
        table = TableState(table.zones, table.t)  # arms are reported once
        t += 0.1
    return done


def test_deal_by_the_first_arm_then_a_play_are_committed() -> None:
    tr = _poka()
    done = _settle(tr, _table("11-ribbon", actors=(2, 1, 2), history=("11-ribbon",)), 1.0)
    assert [e.TYPE for e in done] == ["deal"]
    deal = done[0]
    assert isinstance(deal, Deal) and deal.dealer == 2 and deal.table == "11-ribbon" and deal.hands == (6, 6)
    done = _settle(tr, _table("01-ribbon", actors=(2,), history=("01-ribbon",)), 3.0)
    assert done == [Play(2, "01-ribbon")]
    assert tr.expected().zone("pile").names() == {"01-ribbon": 1}


def test_committed_events_carry_the_match_time_of_the_clock() -> None:
    """A camera game's events are stamped with the match's time (what Bagaji's session clock runs
    on, rules B13), not with the camera's seconds; without a clock they carry none."""
    tr = _poka()
    assert _settle(tr, _table("11-ribbon", actors=(2, 1, 2), history=("11-ribbon",)), 1.0)[0].at is None
    now = [754.25]
    tr.clock = lambda: now[0]
    done = _settle(tr, _table("01-ribbon", actors=(2,), history=("01-ribbon",)), 3.0)
    assert done == [Play(2, "01-ribbon")] and done[0].at == 754.2
    assert tr.match.events[-1].at == 754.2 and done[0].to_json()["at"] == 754.2


def test_nothing_is_committed_before_the_hold_time() -> None:
    tr = _poka()
    tr.options = TrackerOptions(hold_s=0.3, margin=3.0)  # a lead of 4 is under twice the margin
    u = tr.update(_table("11-ribbon", actors=(1,)), 0.0)
    assert u.state == "waiting" and not u.committed and u.best is not None
    assert tr.update(_table("11-ribbon"), 0.1).committed == ()
    assert [e.TYPE for e in tr.update(_table("11-ribbon"), 0.35).committed] == ["deal"]


def test_a_table_nothing_explains_is_reported_out_of_sync_with_the_difference() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    # three face-up cards where the pile shows one, and no stock: no play explains that
    odd = TableState({"pile": ZoneState(tuple(SeenCard.certain(n) for n in ("08-moon", "09-sakecup", "10-deer")))})
    states = [tr.update(odd, 1.0 + 0.1 * k).state for k in range(15)]
    assert states[0] == "waiting" and states[-1] == "out-of-sync"
    assert tr.desync is not None and "pile: saw 08-moon, 09-sakecup, 10-deer, not expected" in tr.desync.differences
    assert "pile: expected 11-ribbon, not seen" in tr.desync.differences
    assert "stock: expected 1 face-down, saw 0" in tr.desync.differences
    assert tr.desync.text.startswith("Out of sync: seat 2")
    # the table put back as it was: in sync again
    assert tr.update(_table("11-ribbon"), 3.0).state == "synced" and tr.desync is None


def test_an_ambiguity_is_held_and_then_asked_and_an_answer_commits_it() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    # no arm seen: seat 2 playing 01-ribbon, or seat 2 passing and seat 1 playing it, fit equally
    opts = TrackerOptions(hold_s=0.3, ask_after_s=1.0, silent_cost=0.0)
    tr.options = opts
    seen = _table("01-ribbon", history=("01-ribbon",))
    first = tr.update(seen, 2.0)
    assert first.state == "waiting" and not first.committed
    later = tr.update(seen, 3.5)
    assert later.state == "question" and later.question is not None
    assert len(later.question.candidates) >= 2 and "Which happened?" in later.question.text
    chosen = tr.choose(0)
    assert chosen and chosen[-1].TYPE == "play"
    with pytest.raises(ScorerError, match="no open question"):
        tr.choose(0)


def test_the_end_of_the_source_commits_the_leading_events_without_the_hold() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    u = tr.update(_table("01-ribbon", actors=(2,), history=("01-ribbon",)), 2.0)
    assert u.state == "waiting" and not u.committed  # held for hold_s
    end = tr.finish(2.05)
    assert end.committed == (Play(2, "01-ribbon"),) and end.state == "synced"
    assert tr.finish(2.1).committed == ()


def test_the_end_of_the_source_asks_an_ambiguity_at_once() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    tr.options = TrackerOptions(hold_s=0.3, ask_after_s=10.0, silent_cost=0.0)
    assert tr.update(_table("01-ribbon", history=("01-ribbon",)), 2.0).state == "waiting"
    end = tr.finish(2.1)
    assert end.state == "question" and end.question is not None and end.question.kind == "which-event"
    assert len(end.question.candidates) >= 2
    chosen = tr.choose(0)
    assert chosen and chosen[-1].TYPE == "play" and chosen[-1].card == "01-ribbon"


def test_the_end_of_the_source_reports_a_table_nothing_explains() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    odd = TableState({"pile": ZoneState(tuple(SeenCard.certain(n) for n in ("08-moon", "09-sakecup", "10-deer")))})
    assert tr.update(odd, 1.0).state == "waiting"
    end = tr.finish(1.1)
    assert end.state == "out-of-sync" and not end.committed and end.desync is not None


def test_undo_takes_back_the_last_committed_event() -> None:
    tr = _poka()
    _settle(tr, _table("11-ribbon", actors=(2,)), 0.0)
    assert tr.undo().TYPE == "deal"
    assert tr.match.phase() == "deal"


def test_cards_laid_face_up_at_a_seat_are_read_again_closely() -> None:
    """A call's meld or a shown hand (events laying named cards face up at a seat) asks the camera to
    read that seat's zone again; draws, discards and a deal do not."""
    from scorer.bagaji.events import Call, Discard, Draw, Show
    from scorer.tracker.tracker import laid_face_up

    assert laid_face_up((Draw(2), Discard(2, "5H"), Call(3, ("5H", "5S")), Show(1, ("2C",)), Show(3, ("9D",)))) == (3, 1)
    assert laid_face_up((Draw(2, "7C"), Discard(2, "7C"))) == ()
    assert laid_face_up((Deal(1, (6, 6), "01-crane"),)) == ()
