"""vision.recognise.index_tiles and IndexReader.read_tiled: a table frame read for corner indices at
its own resolution, in tiles round the cards in doubt."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision.recognise.detector import Detection  # noqa: E402
from vision.recognise.index_reader import INDEX_FRACTION, IndexReader  # noqa: E402
from vision.recognise.index_tiles import MARGIN, MAX_TILES, doubtful, tile_origins, wants_tiles  # noqa: E402


def _card(x0: float, y0: float, w: float = 60.0, h: float = 90.0, unsure: bool = False):
    poly = ((x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h))
    return SimpleNamespace(box=(x0, y0, x0 + w, y0 + h), polygon=poly, unsure=unsure, face_up=True)


def test_cards_apart_and_sure_leave_nothing_in_doubt():
    cards = [_card(0, 0), _card(100, 0), _card(200, 200)]
    assert doubtful(cards) == []
    assert not wants_tiles((1280, 720), 320, cards, 16.0, INDEX_FRACTION)


def test_overlapping_or_unsure_cards_are_in_doubt():
    fan = [_card(100, 100), _card(115, 100)]  # a spread: 75 % of each box shared
    apart = _card(600, 300, unsure=True)
    sure = _card(900, 300)
    assert doubtful(fan + [apart, sure]) == [fan[0].box, fan[1].box, apart.box]
    assert wants_tiles((1280, 720), 320, fan + [sure], 16.0, INDEX_FRACTION)


def test_a_close_up_or_a_small_frame_is_read_whole():
    fan = [_card(100, 100, 300, 450), _card(160, 100, 300, 450)]  # indices of 90 px: 22 px at 320/1280
    assert not wants_tiles((1280, 720), 320, fan, 16.0, INDEX_FRACTION)
    small = [_card(10, 10), _card(25, 10)]
    assert not wants_tiles((600, 400), 320, small, 16.0, INDEX_FRACTION)  # under two detector inputs
    assert not wants_tiles((1280, 720), 320, [], 16.0, INDEX_FRACTION)


def _covered(box, origins, tile):
    return any(ox <= box[0] and oy <= box[1] and box[2] <= ox + tile and box[3] <= oy + tile for ox, oy in origins)


def test_tiles_cover_each_doubtful_box_and_stay_inside_the_frame():
    size, tile = (1280, 720), 320
    boxes = [(100.0, 100.0, 160.0, 190.0), (120.0, 110.0, 180.0, 200.0),  # one tile holds both
             (1200.0, 650.0, 1270.0, 715.0),  # against the corner
             (400.0, 200.0, 1000.0, 500.0)]  # a spread wider than a tile
    origins = tile_origins(size, boxes, tile)
    assert all(0 <= x <= size[0] - tile and 0 <= y <= size[1] - tile for x, y in origins)
    assert len(set(origins)) == len(origins)
    for b in boxes[:3]:
        m = MARGIN * max(b[2] - b[0], b[3] - b[1])
        widened = (max(0, b[0] - m), max(0, b[1] - m), min(size[0], b[2] + m), min(size[1], b[3] + m))
        assert _covered(widened, origins, tile)
    # the wide box: every point of it lies in some tile
    for x in np.linspace(400, 1000, 13):
        for y in np.linspace(200, 500, 7):
            assert any(ox <= x <= ox + tile and oy <= y <= oy + tile for ox, oy in origins)
    assert len(tile_origins(size, boxes[:2], tile)) == 1
    many = [(float(x), float(y), x + 40.0, y + 60.0) for x in range(0, 1240, 80) for y in range(0, 660, 100)]
    assert len(tile_origins(size, many, tile)) <= MAX_TILES
    huge = [(float(x), float(y), x + 40.0, y + 60.0) for x in range(0, 3800, 80) for y in range(0, 2100, 100)]
    assert len(tile_origins((3840, 2160), huge, tile)) == MAX_TILES


class _TileDetector:
    """Finds an index wherever a tile shows a white pixel block (the same index seen by two tiles)."""

    size, iou = 32, 0.5

    def __init__(self):
        self.tiles = []

    def detect(self, tiles):
        self.tiles += tiles
        out = []
        for t in tiles:
            ys, xs = np.nonzero(t[..., 0] > 200)
            out.append([Detection((float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)), True, 0.9)]
                       if len(xs) else [])
        return out


class _Classifier:
    names = ("10C", "AS")
    side = 8

    def classify(self, crops):
        return SimpleNamespace(probs=np.array([[0.1, 0.9] for _ in crops]))


def test_read_tiled_finds_indices_at_the_frames_resolution_and_keeps_each_once():
    frame = np.zeros((80, 120, 3), np.uint8)
    frame[20:30, 40:46] = 255  # one index, inside both tiles below
    det = _TileDetector()
    readings = IndexReader(det, _Classifier()).read_tiled(frame, [(30, 10), (36, 12)])
    assert [t.shape for t in det.tiles] == [(32, 32, 3)] * 2
    (r,) = readings
    assert r.box == (40.0, 20.0, 46.0, 30.0)
    assert np.allclose(r.probs, [0.1, 0.9])
    # a frame smaller than a tile is padded, not refused
    small = np.zeros((20, 20, 3), np.uint8)
    small[5:9, 5:8] = 255
    (r,) = IndexReader(_TileDetector(), _Classifier()).read_tiled(small, [(0, 0)])
    assert r.box == (5.0, 5.0, 8.0, 9.0)


def test_tiles_for_gives_the_cover_of_the_doubtful_cards_or_none():
    from vision.recognise.index_tiles import tiles_for

    fan = [_card(100, 100), _card(115, 100)]
    assert tiles_for((1280, 720), 320, fan, 16.0, INDEX_FRACTION) == tile_origins((1280, 720), doubtful(fan), 320)
    assert tiles_for((1280, 720), 320, [_card(0, 0), _card(300, 0)], 16.0, INDEX_FRACTION) == []
    assert tiles_for((600, 400), 320, fan, 16.0, INDEX_FRACTION) == []
