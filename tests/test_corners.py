"""Corner indices: the squares they are cut from, the datasets cut from the real photos, and how their
readings name cards (merge with the whole-card recognition). No network runs here."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")
cv2 = pytest.importorskip("cv2")

from vision.cardcrop import index_square  # noqa: E402
from vision.recognise import RecognisedCard, Recogniser  # noqa: E402
from vision.recognise.index_reader import IndexReading, combine, merge, owner  # noqa: E402
from vision.recognise.manifest import IndexParams  # noqa: E402
from vision.train import corners  # noqa: E402

REAL_NAMES = ("10C", "AS", "BACK", "BLACK JOKER", "QH")
IDS = ("10C", "AS", "JOKER-BLACK", "QH")


def test_index_square_is_centred_on_the_box_with_its_margin():
    sq = index_square((10, 20, 30, 60))
    assert np.allclose(sq.mean(axis=0), (20, 40))
    assert np.isclose(np.linalg.norm(sq[1] - sq[0]), 40 * 1.3)
    turned = index_square((10, 20, 30, 60), angle=30, scale=1.1, shift=(0.1, 0))
    assert np.isclose(np.linalg.norm(turned[1] - turned[0]), 40 * 1.3 * 1.1)
    assert np.allclose(turned.mean(axis=0), (20 + 0.1 * 40 * 1.3 * 1.1, 40))


def fake_real(root: Path) -> Path:
    """Four decodable 64 × 64 images: three copies of photo IMG_1, one of WIN_2; corner boxes and a back."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text(yaml.safe_dump({"path": ".", "train": "images/train", "val": "images/val",
                                                    "nc": len(REAL_NAMES), "names": list(REAL_NAMES)}))
    labels = {"IMG_1_jpg.rf.a": "0 0.5 0.5 0.2 0.1\n3 0.1 0.2 0.1 0.1\n", "IMG_1_jpg.rf.b": "1 0.9 0.5 0.2 0.4\n",
              "IMG_1_jpg.rf.c": "", "WIN_2_jpg.rf.d": "2 0.5 0.5 0.5 0.5\n4 0.3 0.3 0.1 0.1\n"}
    rng = np.random.default_rng(0)
    for stem, text in labels.items():
        cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), rng.integers(0, 255, (64, 64, 3), np.uint8))
        (root / "labels" / "train" / f"{stem}.txt").write_text(text)
    return root


def test_held_out_photographs_keep_all_their_copies_together():
    assert corners.photograph("IMG_1_jpg.rf.abc.jpg") == "IMG_1_jpg"
    assert corners.is_tune("x", 1.0) and not corners.is_tune("x", 0.0)
    held = [p for p in (f"photo{i}" for i in range(400)) if corners.is_tune(p, 0.1)]
    assert 20 < len(held) < 60 and held == [p for p in (f"photo{i}" for i in range(400)) if corners.is_tune(p, 0.1)]


def test_first_within_takes_the_first_value_close_enough_to_the_best():
    f1 = {0.0: 0.970, 0.8: 0.982, 0.95: 0.983, 1.01: 0.986}.get
    # unread_min: lowest first; 0.0 is 0.016 off the best, 0.8 within 0.005
    assert corners.first_within([0.0, 0.8, 0.95], f1, 0.986, 0.005, 1.01) == (0.982, 0.8)
    assert corners.first_within([0.0, 0.8, 0.95], f1, 0.986, 0.001, 1.01) == (0.986, 1.01)
    assert corners.first_within([], f1, 0.986, 0.005, 1.01) == (0.986, 1.01)
    seen = []
    corners.first_within([3, 2, 1], lambda v: seen.append(v) or 1.0, 1.0, 0.0, 0)
    assert seen == [3]  # stops at the first that passes


@pytest.mark.parametrize("tune", [0.0, 1.0])
def test_detector_dataset_has_one_class_and_no_backs(tmp_path, tune):
    real = fake_real(tmp_path / "real")
    counts = corners.detect_dataset(real, tmp_path / "det", tune)
    split = "val" if tune else "train"
    assert counts[split] == {"images": 4, "boxes": 4, "photos": 2}
    doc = yaml.safe_load((tmp_path / "det" / "data.yaml").read_text())
    assert doc["names"] == {0: "index"} and Path(doc["path"]).is_absolute()
    lines = (tmp_path / "det" / "labels" / split / "WIN_2_jpg.rf.d.txt").read_text().splitlines()
    assert lines == ["0 0.300000 0.300000 0.100000 0.100000"]  # the BACK box is gone
    assert (tmp_path / "det" / "images" / split / "IMG_1_jpg.rf.a.jpg").is_symlink()


def test_crop_dataset_cuts_each_train_box_several_times_and_names_it_by_card(tmp_path):
    real = fake_real(tmp_path / "real")
    counts = corners.crop_dataset(real, tmp_path / "crops", side=32, copies=3, tune=0.0)
    assert counts == {"train": 12, "val": 0}
    assert len(list((tmp_path / "crops" / "train" / "JOKER-BLACK").glob("*.png"))) == 3
    assert all((tmp_path / "crops" / "val" / c).is_dir() for c in IDS)
    assert cv2.imread(str(next((tmp_path / "crops" / "train" / "QH").glob("*.png")))).shape == (32, 32, 3)


def test_stretched_squares_keep_their_centre_and_area_and_change_their_aspect():
    sq = index_square((10, 20, 30, 60))
    st = corners.stretched(sq, 1.25)
    assert np.allclose(st.mean(axis=0), sq.mean(axis=0))
    assert np.isclose(np.ptp(st[:, 0]), 1.25 * np.ptp(sq[:, 0])) and np.isclose(np.ptp(st[:, 1]), np.ptp(sq[:, 1]) / 1.25)
    assert np.allclose(corners.stretched(sq, 1.0), sq)


def test_inverted_lightness_makes_dark_ink_on_light_paper_light_on_dark_and_keeps_red_red():
    crop = np.full((8, 8, 3), 235, np.uint8)
    crop[2:4, 2:4] = (20, 20, 20)  # black ink
    crop[5:7, 5:7] = (30, 30, 200)  # red ink (BGR)
    inv = corners.invert_lightness(crop).astype(int)
    assert inv[0, 0].max() < 60 and inv[2, 2].min() > 200  # paper dark, black ink light
    b, g, r = inv[5, 5]
    assert r > g + 60 and r > b + 60  # red stays red


def test_crop_dataset_stretches_and_inverts_train_crops_only_when_asked(tmp_path):
    real = fake_real(tmp_path / "real")
    plain = corners.crop_dataset(real, tmp_path / "a", side=32, copies=2, tune=0.0, seed=3)
    varied = corners.crop_dataset(real, tmp_path / "b", side=32, copies=2, tune=0.0, seed=3, stretch=0.2, invert=1.0)
    assert plain == varied
    a = sorted((tmp_path / "a" / "train" / "QH").glob("*.png"))
    b = sorted((tmp_path / "b" / "train" / "QH").glob("*.png"))
    assert [x.name for x in a] == [x.name for x in b]
    assert not np.array_equal(cv2.imread(str(a[0])), cv2.imread(str(b[0])))


def test_degraded_crops_are_blurred_keep_their_shape_and_follow_the_seed():
    rng = np.random.default_rng(0)
    cells = np.random.default_rng(1).integers(0, 2, (48, 48)).repeat(2, 0).repeat(2, 1)  # fine detail, every direction
    crop = np.repeat((20 + 210 * cells).astype(np.uint8)[..., None], 3, axis=2)
    outs = [corners.degraded(crop, rng) for _ in range(40)]
    assert all(o.shape == crop.shape and o.dtype == np.uint8 for o in outs)
    assert all(o.std() < 0.75 * crop.std() for o in outs)  # each copy, defocused or moved, loses the detail
    again_rng = np.random.default_rng(0)
    again = [corners.degraded(crop, again_rng) for _ in range(40)]
    assert all(np.array_equal(a, b) for a, b in zip(outs, again, strict=True))


@pytest.mark.parametrize("tune", [0.0, 1.0])
def test_crop_dataset_blurs_train_crops_only(tmp_path, tune):
    real = fake_real(tmp_path / "real")
    plain = corners.crop_dataset(real, tmp_path / "a", side=32, copies=2, tune=tune, seed=3)
    blurred = corners.crop_dataset(real, tmp_path / "b", side=32, copies=2, tune=tune, seed=3, blur=1.0)
    assert plain == blurred
    split = "val" if tune else "train"
    a = sorted((tmp_path / "a" / split).glob("*/*.png"))
    b = sorted((tmp_path / "b" / split).glob("*/*.png"))
    assert a and [x.name for x in a] == [x.name for x in b]
    same = [np.array_equal(cv2.imread(str(x)), cv2.imread(str(y))) for x, y in zip(a, b, strict=True)]
    assert all(same) if split == "val" else not any(same)


def test_a_malformed_label_is_named_with_its_file_and_line(tmp_path):
    real = fake_real(tmp_path / "real")
    (real / "labels" / "train" / "WIN_2_jpg.rf.d.txt").write_text("4 0.3 0.3 0.1 0.1\n9 0.5 0.5 0.1 0.1\n")
    with pytest.raises(ValueError, match=r"WIN_2_jpg\.rf\.d\.txt:2"):
        corners.detect_dataset(real, tmp_path / "det")


def card(label: str, poly, conf: float = 0.6) -> RecognisedCard:
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return RecognisedCard(label=label, card_ids=() if label == "BACK" else (label,), face_up=label != "BACK",
                          polygon=tuple(map(tuple, poly)), box=(min(xs), min(ys), max(xs), max(ys)), confidence=conf,
                          unsure=False, detection_score=0.9, detector_face_up=True, alternatives=())


def reading(box, label: str, p: float = 0.9) -> IndexReading:
    probs = np.full(len(IDS), (1 - p) / (len(IDS) - 1))
    probs[IDS.index(label)] = p
    return IndexReading(tuple(float(v) for v in box), 0.8, probs)


CARD_NAMES = ("10C", "AS", "BACK", "JOKER-BLACK", "QH")
LEFT = [(0, 0), (63, 0), (63, 88), (0, 88)]
RIGHT = [(40, 0), (103, 0), (103, 88), (40, 88)]


def test_an_index_inside_a_card_names_it_and_loose_indices_become_cards():
    cards = [card("AS", LEFT), card("BACK", [(200, 0), (263, 0), (263, 88), (200, 88)])]
    readings = [reading((2, 2, 12, 20), "QH"), reading((202, 2, 212, 20), "10C"),
                reading((300, 300, 310, 318), "JOKER-BLACK"), reading((400, 300, 410, 318), "JOKER-BLACK", 0.7),
                reading((500, 500, 510, 518), "10C", 0.3)]
    out = merge(cards, readings, IDS, IndexParams(min_prob=0.5, unsure_below=0.8))
    assert [(c.label, c.face_up, c.named_by, c.index_only) for c in out] == [
        ("QH", True, "index", False), ("10C", True, "index", False), ("JOKER-BLACK", True, "index", True)]
    assert out[0].polygon == cards[0].polygon and out[2].box == (300, 300, 310, 318)
    assert out[2].confidence > 0.9 and not out[2].unsure  # two readings agree
    assert out[0].alternatives[0][0] != "QH"


def test_a_loose_index_of_a_card_already_named_is_its_other_corner():
    cards = [card("AS", LEFT)]
    readings = [reading((2, 2, 12, 20), "QH"), reading((70, 80, 80, 98), "QH"), reading((300, 0, 310, 18), "AS")]
    out = merge(cards, readings, IDS, IndexParams())
    assert [(c.label, c.index_only) for c in out] == [("QH", False), ("AS", True)]


def test_an_unsure_whole_card_guess_does_not_hide_a_card_read_by_its_index_elsewhere():
    """A fan's hidden card guessed unsure as QH by the whole-card path, and the true QH's index read
    loose elsewhere: the index names QH there and the unsure guess goes; a sure guess would stay
    and take the loose reading for its other corner."""
    guess = replace(card("QH", LEFT, conf=0.4), unsure=True)
    loose = [reading((300, 0, 310, 18), "QH")]
    out = merge([guess], loose, IDS, IndexParams())
    assert [(c.label, c.index_only) for c in out] == [("QH", True)]
    sure = card("QH", LEFT, conf=0.99)
    assert [(c.label, c.index_only) for c in merge([sure], loose, IDS, IndexParams())] == [("QH", False)]


def test_a_table_read_in_tiles_trusts_a_sure_whole_card_over_an_index_inside_it():
    """On a table read in tiles, the index of a card lying over a sure whole card falls inside the
    lower card's outline: with ``trust_sure`` that card keeps its name and the index is a card of its own."""
    sure = card("AS", LEFT, conf=0.99)
    inside = [reading((40, 60, 50, 78), "QH", 0.95)]
    assert [(c.label, c.index_only) for c in merge([sure], inside, IDS, IndexParams())] == [("QH", False)]
    out = merge([sure], inside, IDS, IndexParams(), trust_sure=True)
    assert [(c.label, c.index_only) for c in out] == [("AS", False), ("QH", True)]
    unsure = replace(card("AS", LEFT, conf=0.5), unsure=True)
    assert [c.label for c in merge([unsure], inside, IDS, IndexParams(), trust_sure=True)] == ["QH"]


def test_confident_readings_of_different_cards_in_one_outline_are_different_cards():
    fan = card("AS", [(0, 0), (200, 0), (200, 88), (0, 88)])  # one outline round a fanned hand
    readings = [reading((2, 2, 12, 20), "QH", 0.95), reading((188, 70, 198, 86), "QH", 0.6),
                reading((40, 2, 50, 20), "10C", 0.9), reading((80, 2, 90, 20), "10C", 0.85),
                reading((120, 2, 130, 20), "AS", 0.6)]
    kept_together = merge([fan], readings, IDS, IndexParams())
    assert [c.label for c in kept_together] == ["10C"]  # without split_prob: one card from all readings
    out = merge([fan], readings, IDS, IndexParams(split_prob=0.8))
    # two confident names: the outline keeps the one two readings give; QH (and its weak second
    # corner) becomes a card of its own; the weak AS reading stays with the outline
    assert [(c.label, c.index_only) for c in out] == [("10C", False), ("QH", True)]
    assert out[1].box == (2, 2, 12, 20)
    assert merge([fan], readings, IDS, IndexParams(split_prob=0.99))[0].label == "10C"


def test_a_card_found_twice_is_kept_once():
    part = card("AS", [(0, 0), (40, 0), (40, 50), (0, 50)], conf=0.5)
    far = card("AS", [(300, 0), (363, 0), (363, 88), (300, 88)], conf=0.4)
    out = merge([card("AS", LEFT, conf=0.9), part, far], [], IDS, IndexParams())
    assert [c.confidence for c in out] == [0.9, 0.4]  # the part inside the whole card goes; the far one stays


def test_without_readings_the_cards_stay_as_the_classifier_named_them():
    cards = [card("AS", LEFT)]
    assert merge(cards, [], IDS, IndexParams()) == cards


def test_several_readings_of_a_card_multiply_their_probabilities():
    weak, sure = reading((2, 2, 12, 20), "QH", 0.55), reading((50, 70, 60, 88), "AS", 0.9)
    assert combine([weak]).argmax() == IDS.index("QH")
    assert combine([weak, sure]).argmax() == IDS.index("AS")
    assert combine([weak, reading((50, 70, 60, 88), "QH", 0.55)]).max() > combine([weak]).max()


def test_an_index_in_overlapping_cards_belongs_to_the_card_whose_corner_it_is_in():
    polys = [np.array(LEFT), np.array(RIGHT)]
    assert owner(reading((42, 2, 52, 20), "QH"), polys) == 1  # top-left corner of the right card
    assert owner(reading((50, 68, 61, 86), "QH"), polys) == 0  # bottom-right corner of the left card
    assert owner(reading((150, 150, 160, 160), "QH"), polys) is None


def test_the_index_box_of_a_face_is_the_ink_in_its_corner():
    face = np.full((100, 70, 3), 240, np.uint8)
    face[5:25, 4:14] = 0  # the index
    face[40:60, 30:40] = 0  # a pip outside the region
    assert corners.art_index_box(face, (0, 0, 0.3, 0.3)) == (3.0, 4.0, 15.0, 26.0)  # a pixel of margin around the ink
    with pytest.raises(ValueError, match="no index ink"):
        corners.art_index_box(np.full((100, 70, 3), 240, np.uint8), (0, 0, 0.3, 0.3))


def test_art_crops_cover_both_corners_of_every_card_of_a_shipped_style(tmp_path):
    n = corners.art_crops(("knoll",), tmp_path, side=32, copies=1)
    assert n == 52 * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        c for c in corners.real_name_to_card_id().values() if c not in ("BACK", "JOKER-BLACK", "JOKER-RED"))
    with pytest.raises(ValueError, match="no playing art style 'nosuch'"):
        corners.art_crops(("nosuch",), tmp_path / "y", copies=1)


def test_turned_views_of_an_index_are_averaged():
    from types import SimpleNamespace

    from vision.recognise.index_reader import IndexReader

    class Upright:
        """Says 'AS' for a crop whose marked pixel is top-left, '10C' otherwise."""

        names = ("10C", "AS")

        def classify(self, crops):
            return SimpleNamespace(probs=np.array([[0.0, 1.0] if c[0, 0, 0] else [1.0, 0.0] for c in crops]))

    crop = np.zeros((4, 4, 3), np.uint8)
    crop[0, 0] = 255
    assert np.allclose(IndexReader(None, Upright(), turns=1).probabilities([crop]), [[0.0, 1.0]])
    assert np.allclose(IndexReader(None, Upright(), turns=4).probabilities([crop, crop]), [[0.75, 0.25]] * 2)
    assert IndexReader(None, Upright(), turns=4).probabilities([]).shape == (0, 2)


def test_eight_views_add_the_square_cut_turned_by_45_degrees():
    from types import SimpleNamespace

    from vision.cardcrop import index_square, square_crop
    from vision.recognise.detector import Detection
    from vision.recognise.index_reader import IndexReader

    box = (40.0, 30.0, 60.0, 60.0)

    class OneIndex:
        def detect(self, frames):
            return [[Detection(box, True, 0.9)] for _ in frames]

    class Recorder:
        names = ("10C", "AS")
        side = 16

        def __init__(self):
            self.seen = []

        def classify(self, crops):
            self.seen += crops
            return SimpleNamespace(probs=np.array([[c.mean() / 255, 1 - c.mean() / 255] for c in crops]))

    frame = np.random.default_rng(0).integers(0, 256, (100, 100, 3), dtype=np.uint8)
    for turns, angles in ((4, (0.0,)), (8, (0.0, 45.0))):
        rec = Recorder()
        (reading,) = IndexReader(OneIndex(), rec, turns=turns).read([frame])[0]
        expected = [np.rot90(square_crop(frame, index_square(box, angle=a), 16), k) for a in angles for k in range(4)]
        assert len(rec.seen) == len(expected)
        assert all(any(np.array_equal(v, e) for v in rec.seen) for e in expected)
        means = np.array([e.mean() / 255 for e in expected])
        assert np.allclose(reading.probs, [means.mean(), 1 - means.mean()])


def test_a_card_without_an_index_reading_in_a_close_up_is_dropped_when_its_name_is_doubtful():
    big = card("AS", [(0, 0), (126, 0), (126, 176), (0, 176)], conf=0.6)  # index ≈ 35 px, 17 px at scale 0.5
    read = card("KS", [(300, 0), (426, 0), (426, 176), (300, 176)], conf=0.6)
    inside = [reading((302, 2, 320, 30), "QH")]  # the other card's index is read: a close-up
    params = IndexParams(unread_min=0.9)
    assert [c.label for c in merge([big, read], inside, IDS, params, scale=0.5)] == ["QH"]
    # nothing read: each card is judged by the index its own outline implies (17.6 px here)
    assert merge([big, read], [], IDS, replace(params, close_px=20), scale=0.5) == [big, read]
    assert merge([big, read], [], IDS, replace(params, close_px=16), scale=0.5) == []
    assert merge([big, read], [], IDS, replace(params, close_px=16), scale=0.0) == [big, read]
    # readings of 28 px at scale 0.25 are 7 px at the reader's input: a table seen from afar, no close-up
    assert merge([big, read], inside, IDS, replace(params, close_px=12), scale=0.25)[0] == big
    assert merge([big, read], inside, IDS, IndexParams(unread_min=0.5), scale=0.5)[0] == big
    back = card("BACK", [(0, 0), (126, 0), (126, 176), (0, 176)], conf=0.6)
    assert merge([back, read], inside, IDS, params, scale=0.5)[0] == back


REAL_PHOTOS = Path(__file__).resolve().parent / "data" / "playing-real"


def test_shipped_playing_models_read_real_photographs_by_their_corner_indices():
    """Three val photographs of playing-real (CC BY 4.0, see tests/data/playing-real/ATTRIBUTION.md)."""
    from vision.evaluate.recognition import image_f1

    rec = Recogniser("playing", backends=("onnxruntime",))
    assert rec.index_reader is not None and rec.index_reader.names[:2] == ("10C", "10D")
    f1s, by_index = [], 0
    for img in corners.split_images(REAL_PHOTOS, "val"):
        frame = cv2.imread(str(img))
        h, w = frame.shape[:2]
        truth = {c for c, _ in corners.corner_labels(REAL_PHOTOS, "val", img, w, h)}
        cards = [c for c in rec.recognise(frame) if c.face_up and c.card_ids]
        f1s.append(image_f1(truth, {c.card_ids[0] for c in cards})[3])
        by_index += sum(c.named_by == "index" for c in cards)
    assert len(f1s) == 3 and by_index >= 10
    assert np.mean(f1s) >= 0.8, f1s


@pytest.mark.parametrize("flag", [["--blur", "1.5"], ["--invert", "-0.1"], ["--stretch", "-1"]])
def test_corner_data_refuses_a_share_or_sigma_out_of_range_before_writing_anything(tmp_path, capsys, flag):
    from vision.train import cli

    real = fake_real(tmp_path / "real")
    assert cli.main(["corner-data", "--real", str(real), "--out", str(tmp_path / "out"), *flag]) == 2
    assert flag[0] in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_card_ids_split_into_the_rank_and_suit_the_factor_classifiers_read():
    from vision.recognise.index_reader import JOKER_SUIT, card_factors

    assert card_factors("10C") == ("10", "C") and card_factors("AS") == ("A", "S") and card_factors("QH") == ("Q", "H")
    assert card_factors("JOKER-RED") == ("JOKER-RED", JOKER_SUIT)
    for bad in ("1C", "10X", "BACK", ""):
        with pytest.raises(ValueError, match="not a playing-card id"):
            card_factors(bad)


def test_factor_probabilities_are_the_renormalised_product_of_rank_and_suit():
    from vision.recognise.index_reader import factor_probs

    names = ("10C", "10S", "AC", "AS", "JOKER-RED")
    rank = np.array([[0.6, 0.3, 0.1]])  # 10, A, JOKER-RED
    suit = np.array([[0.2, 0.7, 0.1]])  # C, S, JOKER
    p = factor_probs(rank, ("10", "A", "JOKER-RED"), suit, ("C", "S", "JOKER"), names)
    raw = np.array([0.6 * 0.2, 0.6 * 0.7, 0.3 * 0.2, 0.3 * 0.7, 0.1 * 0.1])
    assert np.allclose(p, [raw / raw.sum()])
    assert names[int(p.argmax())] == "10S"


def test_mixing_is_the_joint_reading_at_weight_0_the_factors_at_1_a_geometric_blend_between():
    from vision.recognise.index_reader import mix

    joint, factor = np.array([[0.8, 0.2]]), np.array([[0.2, 0.8]])
    assert mix(joint, factor, 0.0) is joint and mix(joint, None, 0.5) is joint
    assert np.allclose(mix(joint, factor, 1.0), factor)
    assert np.allclose(mix(joint, factor, 0.5), [[0.5, 0.5]])
    assert mix(np.zeros((0, 2)), np.zeros((0, 2)), 0.5).shape == (0, 2)


def test_factor_datasets_relabel_the_index_crops_by_rank_and_by_suit(tmp_path):
    crops = tmp_path / "crops"
    for split, card, n in (("train", "10C", 2), ("train", "10D", 1), ("train", "JOKER-RED", 1), ("val", "AS", 1)):
        (crops / split / card).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            (crops / split / card / f"p{i}.png").write_bytes(b"x")
    counts = corners.factor_datasets(crops, tmp_path)
    assert counts == {"rank": {"classes": 3, "images": 5}, "suit": {"classes": 4, "images": 5}}
    assert len(list((tmp_path / "rank" / "train" / "10").iterdir())) == 3
    assert sorted(p.name for p in (tmp_path / "suit" / "train").iterdir()) == ["C", "D", "JOKER"]
    assert [p.name for p in (tmp_path / "suit" / "val" / "S").iterdir()] == ["AS_p0.png"]
    assert all(p.is_symlink() for p in (tmp_path / "rank" / "train" / "10").iterdir())
    assert corners.factor_datasets(crops, tmp_path) == counts  # a second run links nothing twice
    with pytest.raises(ValueError, match="no such folder"):
        corners.factor_datasets(tmp_path / "nothing", tmp_path / "out")


def test_the_reader_mixes_in_its_rank_and_suit_classifiers_at_their_weight():
    from types import SimpleNamespace

    from vision.recognise.detector import Detection
    from vision.recognise.index_reader import IndexReader

    class OneIndex:
        size = 320

        def detect(self, frames):
            return [[Detection((40.0, 30.0, 60.0, 60.0), True, 0.9)] for _ in frames]

    class Says:
        side = 16

        def __init__(self, names, probs):
            self.names, self.probs = tuple(names), probs

        def classify(self, crops):
            return SimpleNamespace(probs=np.array([self.probs] * len(crops)))

    joint = Says(("10C", "10S", "AC", "AS"), [0.1, 0.2, 0.6, 0.1])  # a misread: AC
    rank, suit = Says(("10", "A"), [0.9, 0.1]), Says(("C", "S"), [0.1, 0.9])  # the factors: 10S
    frame = np.zeros((100, 100, 3), np.uint8)
    for weight, expected in ((0.0, "AC"), (1.0, "10S"), (0.5, "10S")):
        (r,) = IndexReader(OneIndex(), joint, 1, rank, suit, weight).read([frame])[0]
        assert joint.names[int(r.probs.argmax())] == expected and np.isclose(r.probs.sum(), 1.0)
    assert IndexReader(OneIndex(), joint, 1).factor_weight == 0.0 and not IndexReader(OneIndex(), joint).has_factors
    with pytest.raises(ValueError, match="pair"):
        IndexReader(OneIndex(), joint, 1, rank, None)
    small = Says(("C", "S"), [0.5, 0.5])
    small.side = 8
    with pytest.raises(ValueError, match="same crops"):
        IndexReader(OneIndex(), joint, 1, rank, small)


def test_ship_refuses_a_rank_or_suit_part_that_is_not_a_corner_index_classifier(tmp_path):
    pytest.importorskip("onnx")
    from vision.train import ship

    for index, part in ((False, "rank"), (True, "colour")):
        with pytest.raises(ValueError, match="--part"):
            ship.ship(tmp_path / "no-run", "playing", tmp_path / "models", index=index, part=part)
    assert not (tmp_path / "models").exists()


def test_ship_takes_a_detect_run_only_as_the_corner_index_detector(tmp_path):
    pytest.importorskip("onnx")
    import json

    from vision.train import ship

    run = tmp_path / "runs" / "boxes"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"recipe": {"task": "detect"}}))
    with pytest.raises(ValueError, match="a card detector is an OBB run"):  # the recogniser cuts rotated rectangles
        ship.ship(run, "playing", tmp_path / "models")
    assert not (tmp_path / "models").exists()


def test_a_frame_is_read_unless_the_gate_is_on_and_a_sure_card_shows_every_card_too_small_for_an_index():
    from types import SimpleNamespace

    from vision.recognise.index_reader import needs_reading

    def card(poly, face_up=True, unsure=False):
        return SimpleNamespace(polygon=poly, face_up=face_up, unsure=unsure)

    small = np.array([(0, 0), (50, 0), (50, 70), (0, 70)], np.float32)  # index 0.2 × 70 = 14 px × 1.0
    big = small * 2  # 28 px
    on = IndexParams(close_px=16.0, skip_unreadable=True)
    assert needs_reading([card(small)], 1.0, IndexParams(close_px=16.0))  # the gate is off by default
    assert not needs_reading([card(small), card(small)], 1.0, on)
    assert needs_reading([card(small), card(big)], 1.0, on) and needs_reading([], 1.0, on)  # nothing found: a close-up, maybe
    assert needs_reading([card(small)], 2.0, on)  # the same card at twice the detector's scale
    # no face-up card named sure: the whole-card path failed here, its outlines measure nothing
    assert needs_reading([card(small, unsure=True), card(small, face_up=False)], 1.0, on)
    assert not needs_reading([card(small, unsure=True), card(small)], 1.0, on)


def test_the_shipped_playing_reader_is_gated_and_reads_rank_and_suit():
    from vision.recognise.manifest import load_manifest

    m = load_manifest("playing")
    params = m.index
    assert params.skip_unreadable and params.close_px > 0  # docs/decisions.md: the reader's gate
    assert m.index_rank_classifier and m.index_suit_classifier and params.factor_weight > 0  # and its speed
    for entry in (m.index_rank_classifier, m.index_suit_classifier):
        assert (m.folder / f"{entry.stem}.onnx").is_file()


def test_the_gated_recogniser_skips_a_far_table_and_still_reads_a_close_up(monkeypatch):
    from vision.evaluate.recognition import render_scenes
    from vision.synth.fixed_scenes import topdown_scene

    rec = Recogniser("playing", backends=("onnxruntime",))
    rec.index_params = replace(rec.index_params, close_px=16.0, skip_unreadable=True)
    calls = []
    read = rec.index_reader.read
    monkeypatch.setattr(rec.index_reader, "read", lambda frames: calls.append(len(frames)) or read(frames))
    ((table, _),) = render_scenes("playing", ("knoll",), [19], size=(1280, 720), scene=topdown_scene)
    photo = cv2.imread(str(corners.split_images(REAL_PHOTOS, "val")[0]))
    assert any(c.face_up for c in rec.recognise(table)) and calls == []
    assert any(c.named_by == "index" for c in rec.recognise(photo)) and calls == [1]


@pytest.mark.parametrize("flags", [["--conf-min", "0.9"], ["--turns-max", "0"]])
def test_index_tune_refuses_a_narrowed_grid_with_nothing_left(tmp_path, capsys, flags):
    from vision.train.cli import main
    real = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "playing-real"
    if not real.is_dir():
        pytest.skip("no shared playing-real dataset")
    assert main(["index-tune", "--real", str(real), *flags]) == 2
    err = capsys.readouterr().err
    assert "no detector confidence" in err and ("0.9" in err or "up to 0" in err)


def test_index_tune_reads_the_tables_of_hands_in_tiles_on_a_freshly_shipped_reader(monkeypatch):
    """`train ship --index` drops the thresholds (close_px 0): the tables must still be read as the
    recogniser will read them, in tiles by the close_px the photographs choose, and get tile_* values."""
    rec = Recogniser("playing", backends=("onnxruntime",))
    rec.index_params = IndexParams(tiles=True, skip_unreadable=True)  # as after `train ship --index`
    ((path, frame, truth),) = list(corners.photo_truths(REAL_PHOTOS, "val"))[:1]
    monkeypatch.setattr(corners, "photo_truths", lambda *a, **k: iter([(path, frame, truth)]))
    result = corners.tune(rec, REAL_PHOTOS, hands=1, turns_max=1)
    assert result["close_px"] > 0 and result["tiles"]
    assert {"tile_min_prob", "tile_split_prob", "tile_factor_weight", "tile_unsure_below"} <= set(result)
