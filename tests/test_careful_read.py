"""The careful reading of a re-read crop (``Recogniser.recognise_carefully``): a playing card's
corner indices are read in tiles at the crop's own resolution over every card found, whatever the
manifest's ``tiles``; hanafuda (no corner reader) is read as always."""

from __future__ import annotations

import pytest

pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from vision.evaluate.recognition import render_scenes  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.geometry import box_area, box_intersection  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402


def _frame(deck: str, style: str, seed: int = 830019):
    image, _labels = next(render_scenes(deck, (style,), [seed], None, (1280, 720), topdown_scene))
    return image


def test_every_card_of_a_crop_is_read_for_its_corner_index_at_its_own_resolution(monkeypatch) -> None:
    rec = Recogniser("playing")
    assert rec.index_reader is not None and not rec.index_params.tiles  # the move loop does not tile
    frame = _frame("playing", "knoll")
    seen: list[list[tuple[int, int]]] = []
    read_tiled = rec.index_reader.read_tiled

    def spy(image, origins, factor_weight=None):
        seen.append(list(origins))
        return read_tiled(image, origins, factor_weight)

    monkeypatch.setattr(rec.index_reader, "read_tiled", spy)
    cards = rec.recognise_carefully(frame)
    assert len(seen) == 1 and seen[0]
    tile = rec.index_reader.detector.size
    tiles = [(x, y, x + tile, y + tile) for x, y in seen[0]]
    found = rec.whole_cards([frame])[0][0]
    assert found and cards
    for card in found:  # each card found lies in the tiles read
        box = tuple(float(v) for v in card.box)
        covered = sum(box_intersection(box, t) for t in tiles)
        assert covered >= 0.9 * box_area(box), box
    assert any(c.face_up and c.named_by != "card" for c in cards)  # some card named by its corner index


def test_a_deck_without_a_corner_reader_is_read_as_always() -> None:
    rec = Recogniser("hanafuda")
    frame = _frame("hanafuda", "mantia")
    assert rec.index_reader is None
    careful = [(c.label, round(c.confidence, 4)) for c in rec.recognise_carefully(frame)]
    assert careful == [(c.label, round(c.confidence, 4)) for c in rec.recognise(frame)]
