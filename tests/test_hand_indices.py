"""vision.train.hand_indices: corner-index tiles and crops cut from rendered tables of hands."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("yaml")

from vision.synth.labels import CardLabel  # noqa: E402
from vision.train.hand_indices import tile_labels, tile_origins, visible_indices  # noqa: E402

ART = Path(__file__).resolve().parents[2] / "shared" / "assets"
BOXES = {c: (0.05, 0.05, 0.2, 0.25) for c in ("AS", "2S", "3S", "4S")}


def _label(card: str, x: float, z: int, up: bool = True) -> CardLabel:
    poly = ((x, 100.0), (x + 60.0, 100.0), (x + 60.0, 180.0), (x, 180.0))
    return CardLabel(card, up, poly, (x, 100.0, x + 60.0, 180.0), 1.0, z)


def test_each_uncovered_index_is_boxed_where_the_card_prints_it():
    # AS under 2S 20 px to its right: AS's top-left index (x 103-112) shows, its other is covered
    cards = [_label("AS", 100, 0), _label("2S", 120, 1), _label("4S", 400, 2, up=False)]
    found = visible_indices(SimpleNamespace(cards=cards), (640, 480), BOXES, scale=1.0)
    assert sorted(c for c, _ in found) == ["2S", "2S", "AS"]
    (as_box,) = [b for c, b in found if c == "AS"]
    assert np.allclose(as_box, (103.0, 104.0, 112.0, 120.0))
    # the bottom-right index of 2S: the same region turned 180°
    assert any(np.allclose(b, (168.0, 160.0, 177.0, 176.0)) for c, b in found if c == "2S")
    # a card half off the picture: its top-left index (x -5 to 4) is more than 40 % outside, its other shows
    (off,) = visible_indices(SimpleNamespace(cards=[_label("3S", -8, 0)]), (640, 480), BOXES, scale=1.0)
    assert off[0] == "3S" and np.allclose(off[1], (40.0, 160.0, 49.0, 176.0))


def test_a_tile_is_labelled_with_the_boxes_mostly_inside_it():
    boxes = [(10.0, 10.0, 20.0, 30.0), (95.0, 10.0, 105.0, 30.0), (98.0, 50.0, 108.0, 70.0)]
    lines = tile_labels((0, 0), 100, boxes)
    # the first whole; the second half inside (not labelled); the third 20 % inside (not labelled)
    assert lines == ["0 0.150000 0.200000 0.100000 0.200000\n"]
    assert len(tile_labels((0, 0), 100, [(92.0, 10.0, 102.0, 30.0)])) == 1  # 80 % inside: clipped to the tile
    origins = tile_origins(np.random.default_rng(0), (1280, 720), 320, boxes)
    assert all(0 <= x <= 960 and 0 <= y <= 400 for x, y in origins) and len(origins) == 4


@pytest.mark.skipif(not (ART / "playing" / "knoll").is_dir(), reason="needs the shared card art")
def test_hands_data_writes_tiles_and_crops_and_resumes(tmp_path):
    from vision.train.hand_indices import hands_data

    counts = hands_data(tmp_path, 2, 720000, art_dir=str(ART), side=32, tune=0.0)
    assert counts["frames"] == 2 and counts["tiles"]["train"] >= 2 and counts["boxes"] > 20
    tiles = sorted((tmp_path / "detect" / "images" / "train").glob("*.jpg"))
    labels = sorted((tmp_path / "detect" / "labels" / "train").glob("*.txt"))
    assert [t.stem for t in tiles] == [p.stem for p in labels]
    crops = list((tmp_path / "crops" / "train").glob("*/*.png"))
    assert len(crops) == counts["crops"]["train"] > 20
    assert {p.parent.name for p in crops} <= {f"{r}{s}" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                                    "J", "Q", "K") for s in "CDHS"}
    again = hands_data(tmp_path, 3, 720000, art_dir=str(ART), side=32, tune=0.0)
    assert again["skipped"] == 2 and again["frames"] == 1
