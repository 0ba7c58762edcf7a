"""Pure parts of recognition: detector decoding, calibration fitting, profile blending, crops."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("cv2")

from vision.cardcrop import half_turn, jitter_polygon, square_crop, upright  # noqa: E402
from vision.evaluate.calibration import fit, val_seeds  # noqa: E402
from vision.recognise.classifier import temper  # noqa: E402
from vision.recognise.geometry import box_iou, match  # noqa: E402
from vision.recognise.profile import blend  # noqa: E402
from vision.synth.labels import CardLabel  # noqa: E402


def test_upright_lists_a_short_edge_first_clockwise():
    poly = np.array([[0, 0], [0, 87], [54, 87], [54, 0]], float)  # counter-clockwise, long edge first
    u = upright(poly)
    assert np.linalg.norm(u[1] - u[0]) == pytest.approx(54)
    area = sum(u[i, 0] * u[(i + 1) % 4, 1] - u[(i + 1) % 4, 0] * u[i, 1] for i in range(4))
    assert area > 0
    assert np.array_equal(half_turn(half_turn(u)), u)


def test_square_crop_maps_corners_and_a_half_turn_turns_the_crop():
    img = np.zeros((200, 200, 3), np.uint8)
    img[20:60, 30:60] = (0, 0, 255)  # a red block in the top-left of the card
    poly = np.array([[20, 10], [120, 10], [120, 170], [20, 170]], float)
    crop = square_crop(img, poly, 64)
    turned = square_crop(img, half_turn(poly), 64)
    assert crop.shape == (64, 64, 3)
    assert crop[:16, :16, 2].mean() > 100 and turned[-16:, -16:, 2].mean() > 100


def test_jitter_is_reproducible_and_small():
    poly = np.array([[0, 0], [54, 0], [54, 87], [0, 87]], float)
    a = jitter_polygon(poly, np.random.default_rng(1), 0.02)
    b = jitter_polygon(poly, np.random.default_rng(1), 0.02)
    assert np.array_equal(a, b) and 0 < np.abs(a - poly).max() < 15


def test_calibration_finds_the_temperature_and_a_threshold():
    rng = np.random.default_rng(0)
    n, k = 4000, 10
    truth = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k))
    logits[np.arange(n), truth] += 2.5
    true_p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(k, p=p) for p in true_p])  # outcomes drawn from the true probabilities
    over = temper(true_p, 0.5)  # an over-confident network: p^2
    res = fit(over, labels, target=0.9)
    assert res["temperature"] == pytest.approx(2.0, abs=0.25)
    p = temper(over, res["temperature"])
    sure = p.max(axis=1) >= res["unsure_below"]
    assert (p.argmax(axis=1)[sure] == labels[sure]).mean() >= 0.9
    assert res["expected_calibration_error"] < 0.05


def test_blend_follows_the_profile_and_leaves_unenrolled_classes_alone():
    probs = np.array([[0.5, 0.3, 0.2]])
    sims = np.array([[0.2, 0.9, -np.inf]])
    enrolled = np.array([True, True, False])
    p = blend(probs, sims, enrolled, weight=1.0, tau=0.05)
    assert p.argmax() == 1 and p.sum() == pytest.approx(1)
    assert p[0, 2] == pytest.approx(0.2, abs=1e-6)  # the back keeps the network's share
    assert np.allclose(blend(probs, sims, enrolled, weight=0.0, tau=0.05), probs)


def test_validation_seeds_and_box_overlap():
    assert val_seeds(900000, 3) == [900008, 900018, 900028]
    assert box_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    assert box_iou((0, 0, 1, 1), (2, 2, 3, 3)) == 0


def _truth(box, visible: float) -> CardLabel:
    x0, y0, x1, y1 = box
    return CardLabel("1-1", True, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), box, visible, 0)


def test_a_card_seen_whole_claims_the_box_before_the_card_it_covers():
    # a card squarely on top of another that shows a sliver: the one detection overlaps the hidden
    # card's box more, yet it is the card on top that the detection found
    on_top, under = _truth((10, 10, 60, 90), 1.0), _truth((10, 10, 62, 91), 0.02)
    detection = (11, 10, 62, 91)
    assert box_iou(detection, under.box) > box_iou(detection, on_top.box) >= 0.5
    assert match([detection], [under, on_top]) == [None, 0]
    # within a tier the best overlap still wins, and a second box goes to the card under
    half = _truth((10, 10, 62, 91), 0.5)
    assert match([detection, (10, 10, 60, 90)], [half, on_top]) == [0, 1]
    assert match([detection, (40, 40, 50, 50)], [under, on_top]) == [None, 0]


def test_a_fine_tune_continues_only_the_work_of_the_same_photos(tmp_path):
    from vision.train.enrol import prepare_work

    a, b = tmp_path / "a.png", tmp_path / "b.png"
    a.write_bytes(b"grid one")
    b.write_bytes(b"grid two")
    out = tmp_path / "deck.npz"
    work = prepare_work(out, "hanafuda", [a], 300)
    assert work == tmp_path / "deck-work"
    (work / "run").mkdir()
    assert prepare_work(out, "hanafuda", [a], 300) == work and (work / "run").is_dir()  # same photos: kept
    prepare_work(out, "hanafuda", [b], 300)
    assert not (work / "run").exists()  # other photos: started afresh
    (work / "run").mkdir()
    prepare_work(out, "hanafuda", [b], 100)
    assert not (work / "run").exists()  # another scene count: afresh too


def _raw(rows) -> np.ndarray:
    """An oriented detector's raw output (cx, cy, w, h, card, back, angle) × anchors from rows."""
    return np.array(rows, np.float32).T


def test_an_oriented_detection_is_its_rotated_rectangle():
    from vision.recognise.detector import decode

    # at input scale 0.5: a 54 × 87 px card centred at (200, 150) of the frame, turned by 30°
    dets = decode(_raw([[100, 75, 27, 43.5, 0.9, 0.05, np.radians(30)]]), 0.5, (640, 480), 0.3, 0.7,
                  oriented=True)
    assert len(dets) == 1
    d = dets[0]
    assert d.face_up and d.score == pytest.approx(0.9)
    poly = np.array(d.polygon)
    assert poly.mean(axis=0) == pytest.approx((200, 150), abs=1e-3)
    sides = sorted({round(float(np.linalg.norm(poly[i] - poly[(i + 1) % 4])), 1) for i in range(4)})
    assert sides == pytest.approx([54, 87], abs=0.1)
    edge = poly[1] - poly[0] if np.linalg.norm(poly[1] - poly[0]) < 60 else poly[2] - poly[1]
    # the 54-px side (the rectangle's width) runs at 30° from the x-axis, y down
    assert np.degrees(np.arctan2(edge[1], edge[0])) % 180 == pytest.approx(30, abs=0.5)
    assert d.box == pytest.approx((*poly.min(axis=0), *poly.max(axis=0)), abs=1e-3)


def test_oriented_detections_are_suppressed_by_their_rotated_overlap():
    from vision.recognise.detector import decode

    cross = [[100, 100, 20, 80, 0.9, 0.0, 0.0], [100, 100, 20, 80, 0.0, 0.8, np.pi / 2],
             [101, 100, 20, 80, 0.7, 0.0, 0.02], [300, 300, 20, 80, 0.1, 0.0, 0.0]]
    dets = decode(_raw(cross), 1.0, (400, 400), 0.3, 0.7, oriented=True)
    # the same card twice (one below the threshold of overlap apart) is kept once; the one across it
    # (a back, at 90°: the two overlap by a fifth of their area) is its own; the faint one is dropped
    assert [(d.face_up, round(d.score, 2)) for d in dets] == [(True, 0.9), (False, 0.8)]
    assert dets[1].box == pytest.approx((60, 90, 140, 110), abs=1e-3)


def test_an_oriented_rectangle_is_clipped_to_the_frame_in_its_box_only():
    from vision.recognise.detector import decode

    (d,) = decode(_raw([[5, 50, 20, 40, 0.9, 0.0, 0.0]]), 1.0, (100, 100), 0.3, 0.7, oriented=True)
    assert d.box == pytest.approx((0, 30, 15, 70), abs=1e-3)
    assert min(x for x, _ in d.polygon) == pytest.approx(-5, abs=1e-3)  # the whole card, past the edge


def test_an_axis_aligned_detection_is_its_box():
    from vision.recognise.detector import decode

    # the corner-index detector's raw output (cx, cy, w, h, index) × anchors, at input scale 0.5
    (d,) = decode(np.array([[50, 40, 10, 16, 0.8], [51, 40, 10, 16, 0.6]], np.float32).T, 0.5, (640, 480), 0.3, 0.7)
    assert d.box == pytest.approx((90, 64, 110, 96)) and d.polygon is None and d.score == pytest.approx(0.8)


def test_a_face_up_card_found_twice_is_kept_once_and_backs_are_left_alone():
    from types import SimpleNamespace as Card

    from vision.recognise.duplicates import one_of_each

    whole = Card(label="03-curtain", face_up=True, box=(0, 0, 54, 87), confidence=0.9)
    part = Card(label="03-curtain", face_up=True, box=(0, 40, 54, 87), confidence=0.95)  # inside the whole card
    beside = Card(label="03-curtain", face_up=True, box=(40, 0, 94, 87), confidence=0.5)  # shares a quarter
    other = Card(label="03-ribbon", face_up=True, box=(0, 0, 54, 87), confidence=0.4)
    backs = [Card(label="back", face_up=False, box=(0, 0, 54, 87), confidence=c) for c in (0.9, 0.8)]
    cards = [whole, part, beside, other, *backs]
    assert one_of_each(cards) == [part, beside, other, *backs]  # the surer of the two kept, in the order given
    assert one_of_each(cards, share=0.2) == [part, other, *backs]


def test_detections_of_a_grid_photo_lie_apart():
    from vision.recognise.detector import Detection
    from vision.recognise.enrol import apart

    card = Detection((0, 0, 54, 87), True, 0.9)
    part = Detection((0, 40, 54, 87), True, 0.6)  # inside the card: the same card again
    edge = Detection((44, 0, 98, 87), True, 0.95)  # a neighbour's edge and the card: shares 10/54
    other = Detection((60, 0, 114, 87), True, 0.8)
    assert apart([card, part, other]) == [card, other]
    assert apart([card, edge]) == [card, edge]  # a fifth of the smaller box: two cards


class _ByCorner:
    """A fake classifier network: two classes, class 0's probability is the crop's top-left pixel
    (0..1); it records how many crops each call gets."""

    backend = "fake"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, batch):
        self.calls.append(len(batch))
        p0 = batch[:, 0, 0, 0]
        return [np.stack([p0, 1 - p0], axis=1), np.stack([p0, np.ones_like(p0)], axis=1)]


def _crop(top_left: float, bottom_right: float) -> np.ndarray:
    c = np.full((4, 4, 3), 128, np.uint8)
    c[0, 0] = round(top_left * 255)
    c[-1, -1] = round(bottom_right * 255)
    return c


def test_a_crop_is_turned_only_where_its_one_view_is_unsure():
    from vision.recognise.classifier import CardClassifier

    crops = [_crop(1.0, 0.0), _crop(0.6, 0.2), _crop(0.2, 0.8)]  # sure; unsure (0.6 / 0.4); unsure
    net = _ByCorner()
    cascade = CardClassifier(net, ["a", "b"], 4, both_ways=True, turn_below=0.9)
    p, e = cascade.raw(crops)
    assert net.calls == [3, 2]  # all three as cut, then the two unsure ones turned
    every = CardClassifier(_ByCorner(), ["a", "b"], 4, both_ways=True)
    p_all, e_all = every.raw(crops)
    assert np.allclose(p[1:], p_all[1:]) and np.allclose(e[1:], e_all[1:])  # turned crops: the average
    assert p[0] == pytest.approx([1.0, 0.0]) and p_all[0] == pytest.approx([0.5, 0.5])  # the sure one kept its view
    none_turned = CardClassifier(_ByCorner(), ["a", "b"], 4, both_ways=True, turn_below=0.1)
    assert np.allclose(none_turned.raw(crops)[0], CardClassifier(_ByCorner(), ["a", "b"], 4).raw(crops)[0])


def _card(label: str, centre, angle: float, conf: float, size=(54.0, 87.0), face_up: bool = True):
    import numpy as np

    from vision.recognise import RecognisedCard

    cx, cy = centre
    w, h = size
    a = np.radians(angle)
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    poly = tuple((cx + x * np.cos(a) - y * np.sin(a), cy + x * np.sin(a) + y * np.cos(a)) for x, y in corners)
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return RecognisedCard(label, (label,), face_up, poly, (min(xs), min(ys), max(xs), max(ys)), conf, False, 0.9,
                          face_up, ())


def test_two_rectangles_of_two_names_over_one_card_are_one_card():
    """A second rectangle turned 45° over a card, named as another card, is that card seen twice:
    the surer stays, whatever the names; a fan's neighbours (a few degrees apart) and cards lying
    apart stay."""
    from vision.recognise.duplicates import one_outline_each

    card = _card("08-moon", (300, 200), 10.0, 0.95)
    ghost = _card("03-curtain", (303, 198), 55.0, 0.7)
    assert one_outline_each([ghost, card]) == [card]
    fan = [_card(f"0{k + 1}-ribbon", (300 + 6 * k, 200), 8.0 * k, 0.9) for k in range(5)]
    assert one_outline_each(fan) == fan
    apart = [card, _card("01-crane", (420, 200), 55.0, 0.6)]
    assert one_outline_each(apart) == apart
    # a face-down outline over a face-up card is not the same reading of it
    back = _card("back", (301, 201), 50.0, 0.99, face_up=False)
    assert one_outline_each([card, back]) == [card, back]
    # two playing cards dropped across each other, each named by its own corner index, are two cards
    import dataclasses

    crossed = [dataclasses.replace(_card("2S", (300, 200), 5.0, 0.9, (63.0, 88.0)), named_by="index"),
               dataclasses.replace(_card("KC", (304, 203), 80.0, 0.8, (63.0, 88.0)), named_by="index")]
    assert one_outline_each(crossed) == crossed
    assert one_outline_each([crossed[0], dataclasses.replace(crossed[1], named_by="card")]) == [crossed[0]]


def test_the_recogniser_gives_one_card_for_two_turned_rectangles_of_two_names(monkeypatch):
    """Through :meth:`Recogniser.recognise`: whole-card outlines as the detector and classifier
    would give them (two rectangles, two names, over one card) come out as one card."""
    import numpy as np

    from vision.recognise import Recogniser

    rec = Recogniser("hanafuda")
    cards = [_card("08-moon", (300, 200), 10.0, 0.95), _card("03-curtain", (302, 203), 52.0, 0.8),
             _card("01-crane", (600, 200), 0.0, 0.9)]
    monkeypatch.setattr(rec, "whole_cards", lambda frames: ([list(cards)], [np.zeros((3, len(rec.classifier.names)))]))
    monkeypatch.setattr(rec, "one_deck", False)
    got = rec.recognise(np.zeros((480, 800, 3), np.uint8))
    assert [c.label for c in got] == ["08-moon", "01-crane"]


def test_a_profile_lowers_the_classes_the_deck_does_not_have():
    """``fudaba enrol --absent 00-blank``: a crop the network calls the blank is named as the card
    next in line; classes the deck has are untouched; a back or an enrolled card cannot be absent."""
    import numpy as np

    from vision.recognise.profile import ABSENT_FACTOR, absent_classes, lowered

    names = ("00-blank", "08-moon", "08-plain", "back")
    probs = np.array([[0.90, 0.06, 0.03, 0.01], [0.01, 0.97, 0.01, 0.01]])
    low = lowered(probs, np.array([True, False, False, False]))
    assert low[0].argmax() == 1 and low[0, 0] == pytest.approx(0.9 * ABSENT_FACTOR / (0.1 + 0.9 * ABSENT_FACTOR))
    assert np.allclose(low.sum(axis=1), 1) and low[1].argmax() == 1
    assert lowered(probs, np.zeros(4, bool)) is probs
    assert absent_classes(names, ["00-blank", "00-blank"], ["08-moon"]) == ["00-blank"]
    with pytest.raises(ValueError, match="every deck has backs"):
        absent_classes(names, ["back"], [])
    with pytest.raises(ValueError, match="on the grid photo"):
        absent_classes(names, ["08-moon"], ["08-moon"])
    with pytest.raises(ValueError, match="not a class"):
        absent_classes(names, ["JOKER"], [])


def test_recognition_with_a_profile_lowers_its_absent_classes(monkeypatch):
    import numpy as np

    from vision.recognise import DeckProfile, Recogniser
    from vision.recognise.classifier import Scores

    rec = Recogniser("hanafuda")
    names = rec.classifier.names
    blank, moon = names.index("00-blank"), names.index("08-moon")
    p = np.full((1, len(names)), 1e-4)
    p[0, blank], p[0, moon] = 0.8, 0.15
    p /= p.sum()
    emb = np.ones((1, 8), np.float32) / np.sqrt(8)
    monkeypatch.setattr(rec.classifier, "classify", lambda crops: Scores(p.copy(), emb))
    crop = np.zeros((96, 96, 3), np.uint8)
    plain = DeckProfile("hanafuda", rec.classifier_sha256(), names, emb, np.array([moon], np.int32), {})
    rec.use_profile(plain)
    assert rec.probabilities([crop])[0][0].argmax() == blank  # nothing said: the blank stays
    rec.use_profile(DeckProfile("hanafuda", rec.classifier_sha256(), names, emb, np.array([moon], np.int32),
                                {"absent": ["00-blank"]}))
    assert rec.probabilities([crop])[0][0].argmax() == moon
