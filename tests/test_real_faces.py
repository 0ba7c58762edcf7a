"""Faces cut from photographs (vision/synth/real_faces.py): a printed face laid on a table and
photographed at a slant, its two corner indices labelled as in ``playing-real``, comes back upright
and whole; a card without both indices, or cut wrong, gives none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.synth.artset import find_style, load_face  # noqa: E402
from vision.synth.real_faces import FACE_HEIGHT, border_spread, cut_faces  # noqa: E402

NAMES = ["5H", "BACK", "KS", "2C"]
FACE_W = round(FACE_HEIGHT * 63 / 88)
INDEX = (0.03, 0.025, 0.17, 0.21)
"""Where a knoll face prints its index (x0, y0, x1, y1 as fractions of the card)."""


def _photo(face_id: str, corners: np.ndarray, table: int = 60, size: int = 640) -> tuple[np.ndarray, list[tuple]]:
    """A ``size``² photograph of the knoll face ``face_id`` with its corners (TL, TR, BR, BL of the
    upright card) at ``corners``, on a plain table of grey ``table`` with some texture; the two
    index boxes (x0, y0, x1, y1 px) as the set labels them."""
    face = load_face(find_style("playing", "knoll").path(face_id), FACE_HEIGHT)
    h, w = face.shape[:2]
    hom = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), corners.astype(np.float32))
    rng = np.random.default_rng(1)
    img = np.clip(rng.normal(table, 6, (size, size, 3)), 0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(face, hom, (size, size))
    alpha = warped[..., 3:4].astype(np.float32) / 255
    img = (warped[..., :3] * alpha + img * (1 - alpha)).astype(np.uint8)
    boxes = []
    for x0, y0, x1, y1 in (INDEX, (1 - INDEX[2], 1 - INDEX[3], 1 - INDEX[0], 1 - INDEX[1])):
        pts = cv2.perspectiveTransform(np.float32([[[x0 * w, y0 * h], [x1 * w, y0 * h], [x1 * w, y1 * h],
                                                    [x0 * w, y1 * h]]]), hom)[0]
        boxes.append((*pts.min(axis=0), *pts.max(axis=0)))
    return img, boxes


def _dataset(root: Path, photos: dict[str, list[tuple[np.ndarray, list[tuple[str, tuple]]]]]) -> Path:
    """A folder laid out like ``playing-real``: each photograph's copies and their labels."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: .\ntrain: images/train\nnc: {len(NAMES)}\nnames: {NAMES!r}\n")
    for name, copies in photos.items():
        for k, (img, labels) in enumerate(copies):
            stem = f"{name}_jpg.rf.{k:032x}"
            cv2.imwrite(str(root / "images" / "train" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
            size = img.shape[1], img.shape[0]
            lines = [f"{NAMES.index(c)} {(b[0] + b[2]) / 2 / size[0]:.6f} {(b[1] + b[3]) / 2 / size[1]:.6f} "
                     f"{(b[2] - b[0]) / size[0]:.6f} {(b[3] - b[1]) / size[1]:.6f}" for c, b in labels]
            (root / "labels" / "train" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    return root


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference (grey levels) of two faces seen at 72 × 100 px, margins left out."""
    ga, gb = (cv2.cvtColor(cv2.resize(x[..., :3], (72, 100), interpolation=cv2.INTER_AREA),
                           cv2.COLOR_BGR2GRAY).astype(np.float32)[5:-5, 4:-4] for x in (a, b))
    return float(np.mean(np.abs(ga - gb)))


SLANTED = np.array([[230, 120], [450, 160], [420, 470], [170, 430]], np.float64)
"""A card seen at a slant: its corners TL, TR, BR, BL in the photograph."""


def test_a_slanted_card_comes_back_upright_whole_and_labelled_by_its_indices(tmp_path: Path) -> None:
    half_turn = np.roll(SLANTED, 2, axis=0) + [0, 40]  # the same card lying the other way up
    img_a, boxes_a = _photo("5H", SLANTED)
    img_b, boxes_b = _photo("KS", half_turn, table=120)
    grey = cv2.cvtColor(cv2.cvtColor(img_a, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    real = _dataset(tmp_path / "real", {
        "IMG_1": [(grey, [("5H", b) for b in boxes_a]), (img_a, [("5H", b) for b in boxes_a])],
        "IMG_2": [(img_b, [("KS", b) for b in boxes_b])],
    })
    report = cut_faces(real, tmp_path / "art", fill=find_style("playing", "knoll"))
    assert report.photographs == 2 and report.written == ("5H", "KS")
    assert "2C" in report.filled and "5H" not in report.filled
    for card in ("5H", "KS"):
        cut = cv2.imread(str(tmp_path / "art" / "playing" / "real" / "png" / f"{card}.png"), cv2.IMREAD_UNCHANGED)
        assert cut.shape == (FACE_HEIGHT, FACE_W, 4)
        printed = load_face(find_style("playing", "knoll").path(card), FACE_HEIGHT)
        # upright or turned half round, as a playing card looks the same both ways; never on its side
        assert min(_agreement(cut, printed), _agreement(cut, printed[::-1, ::-1])) < 12, card
        other = load_face(find_style("playing", "knoll").path("KS" if card == "5H" else "5H"), FACE_HEIGHT)
        assert _agreement(cut, other) > 30
    five = cv2.imread(str(tmp_path / "art" / "playing" / "real" / "png" / "5H.png"))
    assert float(np.mean(np.abs(five[..., 2].astype(int) - five[..., 0]))) > 10  # the copy in colour was cut
    rows = (tmp_path / "art" / "playing" / "real" / "faces.csv").read_text().splitlines()
    assert rows[0] == "id,photograph,area_px" and any(r.startswith("5H,train/IMG_1_jpg.rf.") for r in rows)
    assert any(r.startswith("2C,copied from the knoll style") for r in rows)
    assert "CC BY 4.0" in (tmp_path / "art" / "playing" / "real" / "ATTRIBUTION.md").read_text()
    style = find_style("playing", "real", tmp_path / "art")
    assert {"5H", "KS", "2C"} <= set(style.ids)


def test_no_face_without_both_indices_in_opposite_corners(tmp_path: Path) -> None:
    img, boxes = _photo("5H", SLANTED)
    one_corner = [("5H", boxes[0])]
    side_by_side = [("5H", boxes[0]), ("5H", (boxes[0][0] + 150, boxes[0][1] + 20, boxes[0][2] + 150, boxes[0][3] + 20))]
    real = _dataset(tmp_path / "real", {"IMG_1": [(img, one_corner)], "IMG_2": [(img, side_by_side)]})
    report = cut_faces(real, tmp_path / "art")
    assert report.written == () and report.filled == () and "5H" in report.missing


def test_a_margin_with_table_in_it_is_not_plain() -> None:
    face = load_face(find_style("playing", "knoll").path("5H"), FACE_HEIGHT)
    assert border_spread(face) < 10
    framed = np.array(face)
    framed[:, : FACE_W // 25 * 2, :3] = (20, 60, 120)  # a strip of wooden table down one side
    assert border_spread(framed) > 22


def test_variants_show_each_card_as_other_photographs_caught_it(tmp_path: Path) -> None:
    near, boxes_near = _photo("5H", SLANTED)
    far, boxes_far = _photo("5H", (SLANTED - 300) * 0.6 + 300)  # the same card, smaller in its photograph
    ks, boxes_ks = _photo("KS", SLANTED, table=120)
    real = _dataset(tmp_path / "real", {"IMG_1": [(far, [("5H", b) for b in boxes_far])],
                                        "IMG_2": [(near, [("5H", b) for b in boxes_near])],
                                        "IMG_3": [(ks, [("KS", b) for b in boxes_ks])]})
    report = cut_faces(real, tmp_path / "art", variants=3)
    assert report.written == ("5H", "KS")

    def source(style: str, card: str) -> str:
        rows = (tmp_path / "art" / "playing" / style / "faces.csv").read_text().splitlines()
        return next(r.split(",")[1] for r in rows if r.startswith(card + ","))

    assert source("real", "5H").startswith("train/IMG_2_") and source("real-2", "5H").startswith("train/IMG_1_")
    assert source("real-3", "5H") == source("real-2", "5H")  # no third photograph: its last
    assert source("real", "KS") == source("real-2", "KS") == source("real-3", "KS")
