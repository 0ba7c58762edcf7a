"""Naming a frame's face-up cards as one deck (vision/recognise/one_deck.py)."""

import numpy as np
import pytest

from vision.recognise.one_deck import assigned, capacities

NAMES = ("08-geese", "08-moon", "08-plain", "back")
CAP = {"08-geese": 1, "08-moon": 1, "08-plain": 2}


def test_two_cards_on_one_face_the_less_likely_takes_its_next_name():
    p = np.array([[0.9, 0.05, 0.05, 0.0], [0.6, 0.3, 0.1, 0.0]])
    assert list(assigned(p, NAMES, CAP)) == [0, 1]
    assert list(assigned(p[::-1], NAMES, CAP)) == [1, 0]


def test_the_assignment_maximises_the_summed_log_probability_not_the_surest_card_first():
    # the surest card first would take the geese and leave the other card the moon at 0.01;
    # together, the first card is the moon (0.4 × 0.59 against 0.6 × 0.01)
    p = np.array([[0.6, 0.4, 0.0, 0.0], [0.59, 0.01, 0.0, 0.4]])
    assert assigned(p, NAMES, CAP).tolist() == [1, 0]


def test_plains_hold_as_many_as_the_deck_prints_and_the_back_is_never_given():
    p = np.array([[0.0, 0.0, 0.6, 0.4]] * 2 + [[0.1, 0.0, 0.5, 0.4]])
    got = assigned(p, NAMES, CAP).tolist()
    assert got.count(2) == 2 and 3 not in got and got[2] == 0


def test_unique_answers_are_kept_and_more_cards_than_places_keep_their_own_name():
    p = np.eye(4)[[0, 1, 2]] * 0.9 + 0.025
    assert assigned(p, NAMES, CAP).tolist() == [0, 1, 2]
    many = np.tile([[0.7, 0.2, 0.1, 0.0]], (6, 1))
    got = assigned(many, NAMES, CAP).tolist()
    assert sorted(got) == [0, 0, 0, 1, 2, 2]  # four places, two cards left with their own name
    assert assigned(np.zeros((0, 4)), NAMES, CAP).shape == (0,)


def test_capacities_come_from_the_card_table():
    assert capacities({"03-plain": ("03-plain-1", "03-plain-2"), "03-crane": ("03-crane",), "back": ()}) == {
        "03-plain": 2, "03-crane": 1}


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_manifest_one_deck_must_be_true_or_false(tmp_path, value):
    import json
    import shutil
    from pathlib import Path

    from vision.recognise import Recogniser

    src = Path(__file__).resolve().parents[1] / "models" / "hanafuda"
    dst = tmp_path / "hanafuda"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.pt"))
    m = json.loads((dst / "manifest.json").read_text())
    m["recognition"]["one_deck"] = value
    (dst / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ValueError, match="one_deck"):
        Recogniser("hanafuda", tmp_path, ("onnxruntime",))


def test_the_shipped_hanafuda_recogniser_names_a_frame_as_one_deck():
    """Two face-up cards both most like the one ``08-geese``: the less likely of the two is renamed to
    its next face, with that face's probability as its confidence; backs and unique names are kept."""
    from vision.recognise import RecognisedCard, Recogniser

    rec = Recogniser("hanafuda", None, ("onnxruntime",))
    assert rec.one_deck, "the shipped hanafuda manifest names a frame's cards as one deck"
    names = list(rec.classifier.names)

    def probs(**p):
        row = np.full(len(names), 1e-6)
        for name, v in p.items():
            row[names.index(name.replace("_", "-"))] = v
        return row / row.sum()

    def card(label, conf, box):
        return RecognisedCard(label, rec._ids.get(label, ()), label != "back", ((0, 0), (1, 0), (1, 1), (0, 1)), box,
                              conf, False, 0.9, label != "back", ())

    p = np.stack([probs(**{"08_geese": 0.9, "08_moon": 0.1}), probs(**{"08_geese": 0.6, "08_moon": 0.4}),
                  probs(**{"01_crane": 0.99}), probs(back=0.99)])
    cards = [card("08-geese", 0.9, (0, 0, 10, 10)), card("08-geese", 0.6, (50, 0, 60, 10)),
             card("01-crane", 0.99, (100, 0, 110, 10)), card("back", 0.99, (150, 0, 160, 10))]
    kept = rec._kept(cards, p)
    assert [c.label for c in kept] == ["08-geese", "08-moon", "01-crane", "back"]
    assert kept[1].confidence == pytest.approx(0.4, abs=1e-3) and kept[1].card_ids == ("08-moon",)
    assert kept[1].unsure == (rec.card_unsure_below > 0.4)
    assert kept[0] is cards[0] and kept[2] is cards[2] and kept[3] is cards[3]
