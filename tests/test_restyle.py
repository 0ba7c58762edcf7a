"""Restyled classifier crops: colour changes, drawing kept, reproducible per file."""

from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.train import restyle  # noqa: E402


def _drawing() -> np.ndarray:
    """A small 'card': cream paper, a green pine, a red ribbon, black ink lines."""
    img = np.full((48, 32, 3), (215, 235, 245), np.uint8)
    cv2.rectangle(img, (2, 20), (14, 44), (60, 150, 40), -1)
    cv2.rectangle(img, (18, 4), (28, 30), (40, 30, 210), -1)
    cv2.line(img, (0, 46), (31, 2), (10, 10, 10), 1)
    return img


def test_a_palette_changes_colours_and_keeps_brightness_order_and_greys():
    img = _drawing()
    rng = np.random.default_rng(4)
    for _ in range(20):
        out = restyle.apply_palette(img, restyle.random_palette(rng))
        assert out.shape == img.shape and out.dtype == np.uint8
        v_in = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)[..., 2].astype(int).ravel()
        v_out = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)[..., 2].astype(int).ravel()
        order = np.argsort(v_in, kind="stable")
        assert np.all(np.diff(v_out[order]) >= -2), "brightness order kept (up to rounding)"
    hues = {tuple(restyle.apply_palette(img, restyle.random_palette(np.random.default_rng(s)))[30, 8])
            for s in range(10)}
    assert len(hues) >= 8, "the pine's colour differs from palette to palette"
    grey = np.zeros((4, 4, 3), np.uint8)
    grey[:2] = 255
    assert np.array_equal(restyle.apply_palette(grey, restyle.random_palette(rng)), grey), "black and white stay"


def test_restyling_a_folder_is_reproducible_and_touches_the_share_asked(tmp_path):
    for run in ("a", "b"):
        for cls in ("01-crane", "02-plain"):
            (tmp_path / run / cls).mkdir(parents=True)
            for i in range(30):
                cv2.imwrite(str(tmp_path / run / cls / f"{i:03d}.png"), _drawing())
    counts = restyle.restyle_folder(tmp_path / "a", 0.5, seed=7)
    assert counts["images"] == 60 and 15 <= counts["restyled"] <= 45
    assert restyle.restyle_folder(tmp_path / "b", 0.5, seed=7) == counts
    changed = 0
    for f in sorted((tmp_path / "a").glob("*/*.png")):
        a, b = cv2.imread(str(f)), cv2.imread(str(tmp_path / "b" / f.parent.name / f.name))
        assert np.array_equal(a, b), f"{f.name}: the same file restyled the same way"
        changed += not np.array_equal(a, _drawing())
    assert changed == counts["restyled"]
    assert restyle.restyle_folder(tmp_path / "b", 0.0, seed=1)["restyled"] == 0


def test_bad_share_and_unreadable_files_are_refused_with_their_names(tmp_path):
    with pytest.raises(ValueError, match="within 0"):
        restyle.restyle_folder(tmp_path, 1.5, seed=0)
    (tmp_path / "01-crane").mkdir()
    (tmp_path / "01-crane" / "broken.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match="broken.png"):
        restyle.restyle_folder(tmp_path, 1.0, seed=0)
