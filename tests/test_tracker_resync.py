"""The tracker putting itself right (issue 49): deals read through a camera's phantoms and misses,
repairs that reach the round's deal, a table that keeps changing after the game is over, a resync
that finds its own way back, zones asked to be read again, and questions as data with
"something else"."""

from __future__ import annotations

import random

import pytest

from scorer.choices import SOMETHING_ELSE
from scorer.errors import ScorerError
from scorer.games import game
from scorer.match import Match
from scorer.table import SeenCard, TableState, ZoneState, expected_table, sight_name
from scorer.tracker import Explanation, Question, Tracker, TrackerOptions
from scorer.tracker.hooks import deck_ids, face_up_names
from scorer.tracker.repair import card_changes
from scorer.tracker.values import Evidence


def _hachi(players: int = 3) -> Match:
    spec = game("hachi-hachi")
    return spec.match([f"P{i}" for i in range(1, players + 1)], spec.options())


def _true_deal(match: Match, seed: int = 4):
    return match.random_event(random.Random(seed))


def _seen(match: Match, extra: dict[str, list[SeenCard]] | None = None, drop: str | None = None,
          actors: tuple[int, ...] = ()) -> TableState:
    """The table ``match`` implies, seen with certainty, with ``extra`` cards per zone and the
    card named ``drop`` not seen."""
    base = expected_table(match.table_places(), match.table_sitout())
    zones = {}
    for z, s in base.zones.items():
        up = [c for c in s.up if c.name != drop] + list((extra or {}).get(z, ()))
        zones[z] = ZoneState(tuple(up), s.down)
    return TableState(zones, None, actors)


def _settle(tr: Tracker, table: TableState, t0: float, seconds: float = 1.5) -> list:
    done, t = [], t0
    while t <= t0 + seconds + 1e-9:
        u = tr.update(table, t)
        done += u.committed
        table = TableState(table.zones, table.t)
        t += 0.1
    return done


def test_face_up_names_leave_out_phantoms_and_fill_one_card_missed_from_a_field() -> None:
    sure = [SeenCard.certain(n) for n in ("01-crane", "02-ribbon", "08-moon")]
    ghost = SeenCard((("07-ribbon", 0.35),))
    assert face_up_names([*sure, ghost], 3, ["x"]) == [["01-crane", "02-ribbon", "08-moon"]]
    assert face_up_names(sure, 3, ["x"]) == [["01-crane", "02-ribbon", "08-moon"]]
    filled = face_up_names(sure[:2], 3, ["03-plain", "04-plain"])
    assert filled == [["01-crane", "02-ribbon", "03-plain"], ["01-crane", "02-ribbon", "04-plain"]]
    # a lone card not seen (Poka's table card) is more likely not laid yet: nothing
    assert face_up_names([], 1, ["03-plain"]) == []


def test_a_deal_is_committed_through_a_phantom_on_the_field() -> None:
    truth = _hachi()
    deal = _true_deal(truth)
    truth.apply(deal)
    tr = Tracker(_hachi(), TrackerOptions(hold_s=0.3))
    ghost = SeenCard((("07-ribbon", 0.39),))
    seen = _seen(truth, {"field": [ghost]}, actors=(deal.dealer,))
    done = _settle(tr, seen, 1.0)
    assert [e.TYPE for e in done] == ["deal"]
    assert sorted(map(sight_name, done[0].field)) == sorted(map(sight_name, deal.field))


def test_a_repair_may_change_one_card_of_a_deals_face_up_cards() -> None:
    m = _hachi()
    deal = _true_deal(m)
    ids = deck_ids(m)
    by_name = {}
    for cid in sorted(ids):
        by_name.setdefault(sight_name(cid), cid)
    doubt = {sight_name(deal.field[0])}
    changed = list(card_changes(deal, ids, doubt, by_name))
    assert changed and all(c.field[1:] == deal.field[1:] and c.field[0] != deal.field[0] for c in changed)
    assert {sight_name(c.field[0]) for c in changed} == set(by_name) - doubt
    assert list(card_changes(deal, ids, {"no such name"}, by_name)) == []


def test_a_table_that_keeps_changing_after_the_game_is_over_is_out_of_sync() -> None:
    spec = game("poka")
    m = spec.match(["Aki", "Ben"], spec.options(rounds=1)) if "rounds" in spec.options.__code__.co_varnames \
        else spec.match(["Aki", "Ben"], spec.options())
    rng = random.Random(2)
    while not m.is_over:
        m.apply(m.random_event(rng))
    tr = Tracker(m, TrackerOptions(desync_after_s=0.5))
    final = _seen(m)
    assert tr.update(final, 0.0).state == "synced"
    # cards gathered: still the end of the game
    assert tr.update(TableState({}), 1.0).state == "synced"
    # new cards keep being laid on the table: not ignored
    busy = TableState({"field": ZoneState(tuple(SeenCard.certain(n) for n in ("08-moon", "09-sakecup", "10-deer")))})
    states = [tr.update(busy, 2.0 + 0.1 * k).state for k in range(10)]
    assert states[-1] == "out-of-sync" and tr.desync is not None


def test_out_of_sync_the_tracker_takes_back_what_the_table_refutes_and_says_so() -> None:
    """Two plays committed that never happened (misread, or a wrong guess): the table keeps showing
    the field without them. Out of sync, the resync takes the two back on its own (a repair changes
    one card only) and marks it (``Update.source``)."""
    truth = _hachi()
    rng = random.Random(2)
    while truth.phase() != "play":
        truth.apply(truth.random_event(rng))
    tr = Tracker(truth, TrackerOptions(hold_s=0.3, desync_after_s=0.3))
    wrong = truth.fork()
    for _ in range(2):
        play = next(e for e in wrong.legal_events() if e.TYPE in ("play", "draw") and e.capture is None)
        wrong.apply(play)
        tr.apply(play)
    assert tr.match.event_count == truth.event_count + 2
    updates = [tr.update(_seen(truth), 2.0 + 0.1 * k) for k in range(20)]
    changed = [u for u in updates if u.committed or u.retracted]
    assert [(u.source, u.retracted) for u in changed] == [("resync", 2)]
    assert updates[-1].state == "synced" and tr.match.events == truth.events


def test_zones_the_game_contradicts_are_asked_to_be_read_again_once() -> None:
    spec = game("poka")
    truth = spec.match(["Aki", "Ben"], spec.options())
    rng = random.Random(5)
    truth.apply(truth.random_event(rng))
    tr = Tracker(truth, TrackerOptions(desync_after_s=5.0))
    assert not tr.update(_seen(truth), 0.0).reread
    odd = TableState({"pile": ZoneState((SeenCard.certain("08-moon"), SeenCard.certain("09-sakecup"))),
                      "stock": ZoneState((), 1)})
    first = tr.update(odd, 1.0)
    assert first.state == "waiting" and "pile" in first.reread
    assert not tr.update(odd, 1.1).reread  # asked once per table seen


def test_a_question_is_data_and_offers_something_else() -> None:
    from scorer.poka.events import Pass, Play

    q = Question("which-event", "Which happened?",
                 (Explanation((Play(2, "01-ribbon"),), 1.0), Explanation((Pass(2), Play(1, "01-ribbon")), 1.2, retract=1)),
                 3.0)
    data = q.to_json()
    assert data["kind"] == "which-event" and data["something_else"] == SOMETHING_ELSE
    assert data["choices"][0]["steps"] == [{"kind": "play", "seat": 2, "cards": ["01-ribbon"], "detail": {}}]
    assert data["choices"][1]["retract"] == 1
    assert [s["kind"] for s in data["choices"][1]["steps"]] == ["pass", "play"]
    assert "text" not in data  # never prose


def _pile(top: str, actors: tuple[int, ...] = (), history: tuple[str, ...] = ()) -> TableState:
    return TableState({"pile": ZoneState((SeenCard.certain(top),)), "stock": ZoneState((), 1)}, None, actors,
                      {"pile": history} if history else {})


def test_something_else_waits_for_the_players_entry() -> None:
    spec = game("poka")
    tr = Tracker(spec.match(["Aki", "Ben"], spec.options()), TrackerOptions(hold_s=0.3, ask_after_s=1.0))
    _settle(tr, _pile("11-ribbon", actors=(2, 1, 2), history=("11-ribbon",)), 0.0)
    with pytest.raises(ScorerError, match="no open question"):
        tr.something_else()
    # no arm seen: seat 2 playing 01-ribbon, or seat 2 passing and seat 1 playing it
    tr.options = TrackerOptions(hold_s=0.3, ask_after_s=1.0, silent_cost=0.0)
    seen = _pile("01-ribbon", history=("01-ribbon",))
    assert tr.update(seen, 2.0).state == "waiting"
    assert tr.update(seen, 3.5).state == "question"
    events = tr.match.event_count
    tr.something_else()
    assert tr.question is None and tr.update(seen, 4.0).state == "entry"
    assert tr.update(seen, 6.0).committed == () and tr.match.event_count == events
    # the players entered what happened: the tracker follows from their game
    entered = tr.match.fork()
    entered.apply(next(e for e in entered.legal_events() if e.TYPE == "play" and e.card == "01-ribbon"))
    tr.resync(entered)
    u = tr.update(seen, 7.0)
    assert u.state == "synced" and tr.match.events == entered.events


def test_a_repair_reaches_the_deal_just_before_the_rounds_declarations() -> None:
    """A field card guessed wrong at the deal (a card missed, a question answered by a guess) shows
    when it is captured: the repairs tried reach the deal, though it is the event just before the
    round's last committed ones (the declarations)."""
    from scorer.deals import observer_deal
    from scorer.tracker.repair import repair

    truth = _hachi()
    rng = random.Random(10)
    deal = _true_deal(truth, 10)
    truth.apply(deal)
    while truth.phase() != "play":
        truth.apply(truth.random_event(rng))
    play = next((e for e in truth.legal_events() if e.TYPE == "play" and e.capture in deal.field), None)
    assert play is not None, "seed 10 deals a capture at the first play"
    names = {sight_name(c) for c in deal.field}
    other = next(c for hand in deal.hands for c in hand if sight_name(c) not in names and c != play.card)
    tr = Tracker(_hachi(), TrackerOptions(hold_s=0.3, desync_after_s=0.3))
    tr.apply(observer_deal(tr.match, {"field": [other if c == play.capture else c for c in deal.field]}, deal.dealer))
    for ev in truth.events[1:]:
        tr.apply(ev)
    truth.apply(play)
    u = repair(tr, _seen(truth, actors=(play.seat,)), 1.0)
    assert u is not None
    candidates = [c for c in u.question.candidates] if u.question is not None else [Explanation(u.committed, 0.0, retract=u.retracted)]
    # the deal repaired (the field card misread, or the card played in its place: the table is the same)
    pair = {play.card, play.capture}
    right = [c for c in candidates if c.retract == len(truth.events) - 1 and c.events[0].TYPE == "deal"
             and other not in c.events[0].field
             and {getattr(c.events[-1], "card", None), getattr(c.events[-1], "capture", None)} == pair]
    assert right


def test_a_field_card_read_right_at_last_is_not_a_new_round() -> None:
    """The deal committed with one field card misread, the field read right later: no explanation
    ends the round by declarations and deals again with the same field (those cards never left)."""
    from scorer.deals import observer_deal
    from scorer.tracker.fit import Scorer, visible_names
    from scorer.tracker.search import Search

    truth = _hachi()
    deal = _true_deal(truth)
    truth.apply(deal)
    names = {sight_name(c) for c in deal.field}
    other = next(c for hand in deal.hands for c in hand if sight_name(c) not in names)
    tr = Tracker(_hachi(), TrackerOptions())
    tr.apply(observer_deal(tr.match, {"field": [other, *deal.field[1:]]}, deal.dealer))
    table = _seen(truth, actors=(deal.dealer,))
    search = Search(tr.match, tr.options, game("hachi-hachi").description.hooks, visible_names(table, {}))
    found = search.extend(Explanation((), 0.0), table, Scorer(table, tr.options, {}), Evidence((deal.dealer,), frozenset(), {}))
    assert found, "the committed game itself is always among the explanations"
    assert not [h for h in found if any(e.TYPE == "deal" for e in h.events)]
