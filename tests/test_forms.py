"""Every fact that scores can be entered by hand (issue 50): each event of simulated rounds, entered
as an observer sees it, is either listed by the engine or entered by picking its cards for one of
:func:`scorer.forms.card_forms`; a wrong pick is refused with the rules' reason."""

from __future__ import annotations

import pytest

from scorer.deals import observer_deal
from scorer.errors import IllegalEventError
from scorer.forms import card_forms, picked_events, unlisted_events
from scorer.games import game
from scorer.match import NotEnumerableError
from scorer.simulate import entered_rounds
from tests.browser_kit import merged_shows

CASES = [("hachi-hachi", n, seed) for n in (3, 4, 5, 7) for seed in range(12)] + \
        [("poka", 2, seed) for seed in (*range(40), 100, 126, 141)] + [("bagaji", n, seed) for n in (3, 4) for seed in range(8)]


def _observer(game_name: str, seats: int):  # noqa: ANN202
    spec = game(game_name)
    return spec.match([f"Player {i + 1}" for i in range(seats)], spec.options())


def _plain(ev) -> dict:  # noqa: ANN001
    return {k: v for k, v in ev.to_json().items() if k != "at"}


def _enter(m, obj: dict) -> str:  # noqa: ANN001
    """Enter event ``obj`` as the page can: 'listed' or 'picked' (AssertionError when neither)."""
    try:
        listed = [_plain(e) for e in m.legal_events()]
    except NotEnumerableError:
        listed = []
    listed += [_plain(e) for e in unlisted_events(m)]  # offered beside the engine's next events
    if obj in listed:
        m.apply(m.EVENTS.from_json(obj))
        return "listed"
    forms = [f for f in card_forms(m) if f.type == obj["type"] and f.seat == obj.get("seat")]
    assert forms, f"{obj} is neither listed nor offered as a form ({m.expecting()})"
    events = picked_events(m, forms[0].type, forms[0].seat, obj["cards"])
    assert obj in [_plain(e) for e in events], (obj, events)
    m.apply(m.EVENTS.from_json(obj))
    return "picked"


@pytest.mark.parametrize("game_name,seats,seed", CASES)
def test_every_entered_event_is_listed_or_picked(game_name: str, seats: int, seed: int) -> None:
    steps, results = entered_rounds(game_name, seats, seed)
    steps = merged_shows(steps)  # a hand laid down at once, as the page enters it
    m = _observer(game_name, seats)
    picked = set()
    for step in steps:
        if step.kind == "deal":
            m.apply(observer_deal(m, step.face_up, step.dealer))
        elif _enter(m, dict(step.event)) == "picked":
            picked.add(step.event["type"])
    assert [r.changes for r in m.results] == results
    assert picked <= {"claim", "buyout", "sit-out", "show"}


def test_the_forms_cover_claims_buyouts_sitouts_and_shows() -> None:
    """Over the cases above, each kind of form is used at least once (the test is not vacuous)."""
    used = set()
    for game_name, seats, seed in CASES:
        steps = merged_shows(entered_rounds(game_name, seats, seed)[0])
        m = _observer(game_name, seats)
        for step in steps:
            if step.kind == "deal":
                m.apply(observer_deal(m, step.face_up, step.dealer))
            elif _enter(m, dict(step.event)) == "picked":
                used.add((game_name, step.event["type"]))
    assert {("hachi-hachi", "claim"), ("hachi-hachi", "buyout"), ("hachi-hachi", "sit-out"), ("poka", "claim"),
            ("bagaji", "show")} <= used, used


def _hachi_after_declarations():  # noqa: ANN202
    m = _observer("hachi-hachi", 3)
    m.apply(observer_deal(m, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge",
                                        "06-butterflies"]}, 1))
    for _ in range(3):
        m.apply(m.legal_events()[0])  # everyone plays
    return m


def test_a_teyaku_claim_by_its_cards_and_the_names_they_can_back() -> None:
    m = _hachi_after_declarations()
    assert [(f.type, f.seat, f.fewest, f.most) for f in card_forms(m)] == [("claim", s, 1, 7) for s in (1, 2, 3)]
    [sanbon] = picked_events(m, "claim", 2, ["07-boar", "07-ribbon", "07-plain-1"])
    assert sanbon.teyaku == "sanbon"
    # six plains back any group-B teyaku that names the seventh card: the player says which
    plains = ["08-plain-1", "08-plain-2", "09-plain-1", "09-plain-2", "10-plain-1", "10-plain-2"]
    names = [e.teyaku for e in picked_events(m, "claim", 3, plains)]
    assert set(names) >= {"tan-ichi", "toichi", "pikaichi"} and len(names) == len(set(names))


def test_a_wrong_pick_is_refused_with_the_rules_reason() -> None:
    m = _hachi_after_declarations()
    with pytest.raises(IllegalEventError, match=r"back no teyaku.*H5\.6"):
        picked_events(m, "claim", 2, ["07-boar", "08-moon", "09-sakecup"])
    with pytest.raises(IllegalEventError, match="pick 1 to 7 cards, not 8"):
        picked_events(m, "claim", 2, ["07-boar", "07-ribbon", "07-plain-1", "07-plain-2", "08-moon",
                                      "08-geese", "08-plain-1", "08-plain-2"])
    with pytest.raises(IllegalEventError, match="cannot hold 01-crane"):  # on the field, in no hand
        picked_events(m, "claim", 2, ["01-crane", "01-ribbon", "01-plain-1"])
    with pytest.raises(IllegalEventError, match="cannot show now"):
        picked_events(m, "show", 2, ["07-boar"])
    m.apply(picked_events(m, "claim", 2, ["07-boar", "07-ribbon", "07-plain-1"])[0])
    with pytest.raises(IllegalEventError, match="no teyaku seat 2 may still claim"):
        picked_events(m, "claim", 2, ["07-boar", "07-ribbon", "07-plain-1"])
