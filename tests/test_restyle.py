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


def test_a_limited_turn_keeps_each_colour_near_its_own_hue():
    img = _drawing()
    rng = np.random.default_rng(8)
    red_hue = int(cv2.cvtColor(img, cv2.COLOR_BGR2HSV)[10, 22, 0])  # the ribbon
    for _ in range(30):
        palette = restyle.random_palette(rng, turn=15)
        moved = (int(palette.hue[red_hue]) - red_hue + 90) % 180 - 90
        assert abs(moved) <= 15 + 33, "turn plus the largest warp (18 + 9 + 6 steps)"
    anywhere = {int(restyle.random_palette(np.random.default_rng(s)).hue[red_hue]) // 30 for s in range(40)}
    assert len(anywhere) == 6, "the default turns the circle anywhere"


def test_a_random_convolution_changes_texture_and_keeps_where_the_drawing_is():
    img = _drawing()
    rng = np.random.default_rng(3)
    differs = 0
    for _ in range(20):
        spec = restyle.random_filter(rng)
        assert spec.kernel.shape[:2] == (3, 3) and spec.kernel.shape[2] in restyle.FILTER_SIDES
        assert 0.0 <= spec.keep <= 0.7
        out = restyle.apply_filter(img, spec)
        assert out.shape == img.shape and out.dtype == np.uint8
        differs += not np.array_equal(out, img)
        # the ribbon's edge stays where it was: the filtered image changes most across the drawing's edges
        grad_in = np.abs(np.diff(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float), axis=1))
        grad_out = np.abs(np.diff(out.astype(float), axis=1)).sum(axis=2)
        edges = grad_in > 20
        assert grad_out[edges].mean() > grad_out[~edges].mean(), "edges of the drawing remain edges"
    assert differs >= 18
    keep_all = restyle.RandomFilter(kernel=np.zeros((3, 3, 1, 1), np.float32), keep=1.0)
    assert np.array_equal(restyle.apply_filter(img, keep_all), img), "keep = 1 returns the input"


def test_the_filter_share_is_drawn_apart_from_the_palette_share(tmp_path):
    for run in ("a", "b"):
        (tmp_path / run / "01-crane").mkdir(parents=True)
        for i in range(40):
            cv2.imwrite(str(tmp_path / run / "01-crane" / f"{i:03d}.png"), _drawing())
    plain = restyle.restyle_folder(tmp_path / "a", 0.5, seed=2)
    both = restyle.restyle_folder(tmp_path / "b", 0.5, seed=2, filter_share=0.5)
    assert both["restyled"] == plain["restyled"], "adding filters does not change which crops get palettes"
    assert 8 <= both["filtered"] <= 32 and "filtered" not in plain
    changed = sum(not np.array_equal(cv2.imread(str(f)), _drawing()) for f in (tmp_path / "b").glob("*/*.png"))
    assert changed >= max(both["restyled"], both["filtered"])
    with pytest.raises(ValueError, match="filter share"):
        restyle.restyle_folder(tmp_path / "a", 0.0, seed=0, filter_share=2.0)


def test_bad_share_and_unreadable_files_are_refused_with_their_names(tmp_path):
    with pytest.raises(ValueError, match="within 0"):
        restyle.restyle_folder(tmp_path, 1.5, seed=0)
    (tmp_path / "01-crane").mkdir()
    (tmp_path / "01-crane" / "broken.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match="broken.png"):
        restyle.restyle_folder(tmp_path, 1.0, seed=0)
