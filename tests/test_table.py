"""scorer.table: sight names, place → zone, the expected table of a match, and its JSON round trip;
the Match groundwork the tracker reads (status, expects, the last table of a settled round)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.errors import AmbiguousEventError, ScorerError
from scorer.games import game
from scorer.places import Place, Places
from scorer.table import SeenCard, TableState, ZoneState, expected_table, place_zone, sight_name


def test_sight_names_group_plains_by_month() -> None:
    assert sight_name("03-plain-2") == "03-plain"
    assert sight_name("12-plain-3") == "12-plain"
    assert sight_name("12-plain-1") == "12-plain-1"  # the coloured paulownia plain stands apart
    assert sight_name("08-moon") == "08-moon"
    assert sight_name("QH") == "QH"


@pytest.mark.parametrize(("place", "sitout", "zone"), [
    ("field", None, "field"), ("stock", None, "stock"), ("pile", None, "pile"), ("discard", None, "discard"),
    ("captured:2", None, "seat:2"), ("meld:3", None, "seat:3"), ("shown:1", None, "seat:1"),
    ("out", 5, "seat:5"), ("hand:1", None, None),
])
def test_place_zone(place: str, sitout: int | None, zone: str | None) -> None:
    assert place_zone(place, sitout) == zone


def test_expected_table_shows_piles_by_their_top_and_stock_face_down() -> None:
    deck = ["01-crane", "02-warbler", "03-curtain", "03-plain-1", "04-cuckoo", "05-bridge", "06-peony"]
    places = Places.start(deck, {
        "hand:1": Place((), 1), "stock": Place(("04-cuckoo",), 1), "pile": Place(("01-crane", "02-warbler")),
        "captured:2": Place(("03-plain-1", "03-curtain")),
    })
    table = expected_table(places)
    assert table.zone("pile").names() == {"02-warbler": 1}
    assert table.zone("stock").up == () and table.zone("stock").down == 1  # known stock cards lie face down
    assert table.zone("seat:2").names() == {"03-plain": 1, "03-curtain": 1}
    assert "hand:1" not in table.zones


def test_differences_say_what_is_missing_and_what_is_extra() -> None:
    expected = TableState.from_names({"field": ["05-bridge", "08-moon"]}, {"stock": 1})
    seen = TableState.from_names({"field": ["05-bridge", "09-sakecup"]})
    lines = expected.differences(seen)
    assert "field: expected 08-moon, not seen" in lines
    assert "field: saw 09-sakecup, not expected" in lines
    assert "stock: expected 1 face-down, saw 0" in lines


def test_from_json_rejects_bad_input_with_the_zone_named() -> None:
    with pytest.raises(ValueError, match="zone 'field'"):
        TableState.from_json({"zones": {"field": {"up": [[["08-moon", "high"]]]}}})
    with pytest.raises(ValueError, match="'zones'"):
        TableState.from_json({"zones": []})


def _random_match(name: str, seed: int, steps: int):
    spec = game(name)
    players = {"hachi-hachi": 4, "bagaji": 3, "poka": 2}[name]
    match = spec.match([f"S{i}" for i in range(players)], spec.options())
    rng = random.Random(seed)
    for _ in range(steps):
        if match.is_over:
            break
        match.apply(match.random_event(rng))
    return match


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["hachi-hachi", "bagaji", "poka"]), st.integers(0, 10_000), st.integers(0, 120))
def test_expected_table_of_every_simulated_match_round_trips(name: str, seed: int, steps: int) -> None:
    match = _random_match(name, seed, steps)
    table = expected_table(match.table_places(), match.table_sitout())
    again = TableState.from_json(json.loads(json.dumps(table.to_json())))
    assert again.same_as(table) and again.to_json() == table.to_json()
    places = match.table_places()
    if places is not None:
        on_table = sum(places[n].size for n in places.names() if place_zone(n, match.table_sitout()))
        shown = sum(len(s.up) + s.down for s in table.zones.values())
        assert shown <= on_table  # piles show one card, hands none


def test_hachi_hachi_keeps_the_last_table_of_a_settled_round() -> None:
    spec = game("hachi-hachi")
    match = spec.match(["a", "b", "c"], spec.options())
    rng = random.Random(3)
    while not match.results:
        match.apply(match.random_event(rng))
    assert match.state.round is None
    places = match.table_places()
    assert places is not None and places.total() > 0
    assert match.expects().types == ("deal",) and match.phase() == "deal"


@pytest.mark.parametrize("name", ["hachi-hachi", "bagaji", "poka"])
def test_status_and_expects(name: str) -> None:
    match = _random_match(name, 7, 15)
    status = match.status()
    assert status.game == name and status.events == len(match.events)
    ex = match.expects()
    assert ex.text and (not ex.listed or set(ex.types) == {e.TYPE for e in match.legal_events()})
    assert json.loads(json.dumps(status.to_json()))["expects"]["text"] == ex.text


def test_ambiguous_event_error_is_a_scorer_error() -> None:
    err = AmbiguousEventError("seat 1 or seat 2 played 08-moon", ("a", "b"))
    assert isinstance(err, ScorerError) and err.candidates == ("a", "b")


def test_seen_card_probabilities() -> None:
    card = SeenCard((("08-moon", 0.7), ("08-geese", 0.2)))
    assert card.name == "08-moon" and card.p("08-geese") == 0.2 and card.p("01-crane") == 0.0
    assert ZoneState((card,), 0).names() == {"08-moon": 1}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["hachi-hachi", "bagaji", "poka"]), st.integers(0, 10_000), st.integers(0, 120))
def test_expected_names_equal_expected_table(name: str, seed: int, steps: int) -> None:
    from scorer.table import expected_names

    match = _random_match(name, seed, steps)
    slow = expected_table(match.table_places(), match.table_sitout())
    fast = expected_names(match.table_places(), match.table_sitout())
    assert {z: (+n, d) for z, (n, d) in fast.items() if n or d} == {z: (s.names(), s.down) for z, s in slow.zones.items()}


def test_zone_differences_are_the_difference_lines_as_data() -> None:
    expected = TableState.from_names({"field": ["03-curtain", "03-plain"], "hand:1": []}, {"hand:1": 7})
    seen = TableState.from_names({"field": ["03-ribbon", "03-plain"], "hand:1": []}, {"hand:1": 6})
    data = expected.zone_differences(seen)
    assert data == [{"zone": "field", "missing": ["03-curtain"], "extra": ["03-ribbon"], "down": [0, 0]},
                    {"zone": "hand:1", "missing": [], "extra": [], "down": [7, 6]}]
    assert len(expected.differences(seen)) == 3 and expected.zone_differences(expected) == []
