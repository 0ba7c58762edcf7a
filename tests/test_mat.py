"""The printable mat (vision/mat.py, ``fudaba mat``): markers where the play area's corners are at
true scale, the PDF's page count and page size per paper, the tiling, and bad arguments."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")
Image = pytest.importorskip("PIL.Image")

from fudaba.cli import main  # noqa: E402
from vision.calibrate import TableCalibrator, find_markers, marker_centre, to_table  # noqa: E402
from vision.markers import QUIET_RATIO, marker_centres  # noqa: E402
from vision.mat import OVERLAP_MM, PAPERS, PRINTER_MARGIN_MM, plan_mat, write_mat  # noqa: E402
from vision.zones import zone_layout  # noqa: E402

PT_PER_MM = 72 / 25.4


def media_boxes(pdf: Path) -> list[tuple[float, float]]:
    """Each page's MediaBox width and height (pt), read from the PDF's text."""
    text = pdf.read_bytes().decode("latin-1")
    return [(float(m[2]) - float(m[0]), float(m[3]) - float(m[1]))
            for m in re.findall(r"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", text)]


@pytest.fixture(scope="module")
def hh3(tmp_path_factory):
    out = tmp_path_factory.mktemp("mat") / "hh3.pdf"
    return write_mat(zone_layout("hachi-hachi", 3), "a3", out, dpi=72, png_dpi=100)


def test_png_shows_markers_0_to_3_on_the_play_area_corners_at_true_scale(hh3):
    img = np.array(Image.open(hh3.png).convert("L"))
    assert Image.open(hh3.png).info["dpi"] == pytest.approx((100, 100), abs=0.01)
    found = find_markers(img)
    assert sorted(found) == [0, 1, 2, 3]
    m = hh3.plan.margin_mm
    truth = marker_centres(hh3.plan.layout.area_mm)
    for k in range(4):
        mm = marker_centre(found[k]) / 100 * 25.4 - m  # px → mm from the image's corner, then table mm
        assert np.linalg.norm(mm - truth[k]) < 1.0
        side = np.linalg.norm(np.diff(np.vstack([found[k], found[k][:1]]), axis=0), axis=1).mean() / 100 * 25.4
        assert abs(side - 40.0) < 1.0  # the 40 mm stated on the sheet
    # Calibrated on its own image, the mat maps its zones' corners back to themselves.
    cal = TableCalibrator(hh3.plan.layout.area_mm, move_frames=1).update(img, 0.0)
    for z in hh3.plan.layout.zones:
        poly = np.array(z.polygon_mm)
        px = (poly + m) * 100 / 25.4
        assert np.abs(to_table(cal, px) - poly).max() < 1.0


@pytest.mark.parametrize("paper,pages,landscape", [("a3", 6, False), ("a4x4", 12, True), ("letter", 15, False)])
def test_pdf_page_count_and_size_per_paper(tmp_path, paper, pages, landscape):
    files = write_mat(zone_layout("hachi-hachi", 4), paper, tmp_path / "m.pdf", dpi=72, png_dpi=40)
    plan = files.plan
    assert plan.landscape is landscape and len(plan.tiles) == plan.rows * plan.columns == pages
    assert files.pages == pages + 1  # the mat's sheets, then the enrolment grid
    boxes = media_boxes(files.pdf)
    assert len(boxes) == pages + 1
    p = PAPERS[paper]
    short, long = p.width_mm * PT_PER_MM, p.height_mm * PT_PER_MM
    sheet = (long, short) if landscape else (short, long)
    for w, h in boxes[:-1]:
        assert w == pytest.approx(sheet[0], abs=1.0) and h == pytest.approx(sheet[1], abs=1.0)
    assert boxes[-1] == (pytest.approx(long, abs=1.0), pytest.approx(short, abs=1.0))  # grid: landscape
    assert files.png.exists() and files.grid_png.exists()


@pytest.mark.parametrize("game,players", [("hachi-hachi", 3), ("hachi-hachi", 7), ("bagaji", 6), ("poka", 2)])
@pytest.mark.parametrize("paper", list(PAPERS))
def test_tiles_cover_the_mat_overlap_and_keep_clear_of_markers(game, players, paper):
    plan = plan_mat(zone_layout(game, players), paper)
    x0, y0, x1, y1 = plan.extent_mm
    sw, sh = plan.sheet_mm
    pw, ph = sw - 2 * PRINTER_MARGIN_MM, sh - 2 * PRINTER_MARGIN_MM
    tiles = {(t.row, t.column): t.window_mm for t in plan.tiles}
    assert tiles[(1, 1)][0] <= x0 and tiles[(1, 1)][1] <= y0
    assert tiles[(plan.rows, plan.columns)][2] >= x1 and tiles[(plan.rows, plan.columns)][3] >= y1
    for (r, c), (a, b, e, f) in tiles.items():
        assert e - a == pytest.approx(pw) and f - b == pytest.approx(ph)
        if c > 1:
            assert tiles[(r, c - 1)][2] - a == pytest.approx(OVERLAP_MM)
        if r > 1:
            assert tiles[(r - 1, c)][3] - b == pytest.approx(OVERLAP_MM)
    w, h = plan.layout.area_mm
    q = plan.marker_mm * QUIET_RATIO / 2
    strips_x = [(tiles[(1, c)][0], tiles[(1, c)][0] + OVERLAP_MM) for c in range(2, plan.columns + 1)]
    strips_y = [(tiles[(r, 1)][1], tiles[(r, 1)][1] + OVERLAP_MM) for r in range(2, plan.rows + 1)]
    for lo, hi in strips_x:
        assert all(hi <= cx - q or lo >= cx + q for cx in (0.0, w))
    for lo, hi in strips_y:
        assert all(hi <= cy - q or lo >= cy + q for cy in (0.0, h))


def test_fudaba_mat_writes_the_files(tmp_path, capsys):
    out = tmp_path / "bagaji.pdf"
    assert main(["mat", "--game", "bagaji", "--players", "4", "--paper", "letter", "--dpi", "72", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}" in text
    assert out.exists() and out.with_suffix(".png").exists() and (tmp_path / "bagaji-grid.png").exists()
    assert "markers 40 mm" in text and "100 %" in text
    assert len(media_boxes(out)) == int(re.search(r"(\d+) pages", text).group(1))


@pytest.mark.parametrize("argv,message", [
    (["--game", "go", "--players", "3"], "unknown game 'go'"),
    (["--game", "hachi-hachi", "--players", "2"], "seats 3-7 players, not 2"),
    (["--game", "poka", "--players", "3"], "seats 2 players, not 3"),
    (["--game", "poka", "--players", "2", "--paper", "a5"], "unknown paper 'a5'; papers: a3, a4x4, letter"),
    (["--game", "poka", "--players", "2", "--deck", "tarot"], "unknown deck 'tarot'"),
    (["--game", "poka", "--players", "2", "--marker-mm", "5"], "marker size must be 15-100 mm"),
])
def test_fudaba_mat_bad_arguments_exit_2_with_the_reason(tmp_path, capsys, argv, message):
    assert main(["mat", *argv, "-o", str(tmp_path / "x.pdf")]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert not (tmp_path / "x.pdf").exists()


def test_fudaba_mat_needs_game_and_players(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["mat", "--game", "poka"])
    assert exc.value.code == 2 and "--players" in capsys.readouterr().err
