"""Cards, decks and the observer's places."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer.cards import KOREAN, card, deck, decks, hanafuda_ids, month_in_order, suggest
from scorer.errors import IllegalEventError, UnknownCardError
from scorer.places import Place, Places


def test_hanafuda_deck_is_the_standard_48():
    ids = hanafuda_ids()
    assert len(ids) == 48 and len(set(ids)) == 48
    assert sum(card(c).points for c in ids) == 264
    kinds = Counter(card(c).kind for c in ids)
    assert kinds == {"bright": 5, "animal": 9, "ribbon": 10, "plain": 24}
    assert card("12-plain-1").kind == "plain"


def test_extra_cards_and_playing_cards():
    assert card("00-blank").kind == "blank"
    assert card("back", "hanafuda").kind == "back"
    assert card("QH").points == 12 and card("AS").points == 1 and card("KC").points == 13
    assert card("JOKER-RED").kind == "joker"
    assert len(deck("playing")) == 52
    assert len(deck("playing+jokers")) == 54


def test_two_deck_multisets_repeat_ids():
    two = deck("playing-2x")
    assert len(two) == 96
    assert two.counts["QH"] == 2 and "KH" not in two.counts
    values = Counter(card(c).points for c in two.cards)
    assert set(values.values()) == {8} and sorted(values) == list(range(1, 13))
    assert deck("hanafuda-2x").counts["08-moon"] == 2
    assert deck("hanafuda+3blank").counts["00-blank"] == 3


def test_month_orders():
    assert month_in_order(11, KOREAN) == 12 and month_in_order(12, KOREAN) == 11
    assert month_in_order(5, KOREAN) == 5


def test_unknown_cards_suggest_the_nearest():
    with pytest.raises(UnknownCardError) as info:
        card("08-mon")
    assert "08-moon" in str(info.value)
    assert suggest("qh", ["QH", "QS"]) == ("QH",)
    assert suggest("1S", ["AS", "10S", "QS"]) == ("AS",)
    assert suggest("12h", ["QH", "2H"]) == ("QH",)
    with pytest.raises(UnknownCardError) as info:
        deck("playing-2x").validate("KH")
    assert "not" not in info.value.suggestions


def test_every_deck_is_buildable():
    for spec in decks().values():
        assert len(spec.cards) == len(spec)


def test_places_reveal_once_and_conserve_cards():
    cards = ["a", "b", "c", "d"]
    p = Places.start(cards, {"hand": Place((), 2), "field": Place(("a",), 0), "stock": Place((), 1)})
    assert p.unseen == Counter({"b": 1, "c": 1, "d": 1})
    p2 = p.move("b", "hand", "field")
    assert p2["hand"] == Place((), 1) and p2["field"].known == ("a", "b")
    with pytest.raises(IllegalEventError) as info:
        p2.take("stock", "b")
    assert "already known to be at field" in info.value.message
    assert p2.multiset() == Counter(cards)
    assert p["field"].known == ("a",)  # immutable: the old value is untouched
    p3 = p2.show("hand", "c")
    assert p3["hand"] == Place(("c",), 0)
    p4 = p3.move_all("hand", "stock").forget("stock")
    assert p4["stock"] == Place((), 2) and p4.multiset() == Counter(cards)
    with pytest.raises(IllegalEventError):
        Places.start(cards, {"hand": Place(("a", "a"), 2)})
    with pytest.raises(IllegalEventError):
        Places.start(cards, {"hand": Place((), 3)})
