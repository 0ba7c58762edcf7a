"""vision.synth.clutter: things that are not cards laid on the table beside the cards, printed
(knitted, card art, text, pips) or plain, the same table with and without them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision.synth.cardfaces import CARD_SIZE_MM  # noqa: E402
from vision.synth.clutter import KINDS, clutter_scene, make, without_clutter  # noqa: E402
from vision.synth.layouts import card_corners_mm  # noqa: E402
from vision.synth.prints import texture_image  # noqa: E402

ART = Path(__file__).resolve().parents[2] / "shared" / "assets"


def test_the_objects_lie_off_the_cards_and_the_scene_is_reproducible() -> None:
    import cv2

    scene = clutter_scene(820009, "hanafuda", ("mantia",), n=6)
    assert scene == clutter_scene(820009, "hanafuda", ("mantia",), n=6)
    assert 1 <= len(scene.occluders) <= 6 and {o.kind for o in scene.occluders} <= set(KINDS)
    quads = [card_corners_mm(c.center_mm, c.angle_deg, CARD_SIZE_MM["hanafuda"]) for c in scene.cards]
    for o in scene.occluders:
        outline = cv2.convexHull(np.vstack([np.asarray(p.points_mm) for p in o.parts]).astype(np.float32))
        assert all(cv2.intersectConvexConvex(outline, q.astype(np.float32))[0] == 0 for q in quads), o.kind
    bare = without_clutter(scene)
    assert bare.occluders == () and bare.cards == scene.cards and bare.camera == scene.camera


def test_every_kind_is_made_and_its_print_drawn() -> None:
    rng = np.random.default_rng(1)
    for kind in KINDS:
        obj = make(kind, rng, np.array([200.0, 200.0]), "playing")
        for part in obj.parts:
            if part.texture:
                img = texture_image(part, lambda pick, height: np.full((height, height * 2 // 3, 4), 200, np.uint8))
                assert img.shape == (256, 256, 3) and img.dtype == np.uint8 and img.std() > 3, kind
    with pytest.raises(ValueError, match="unknown clutter"):
        make("chair", rng, np.array([0.0, 0.0]), "playing")


@pytest.mark.skipif(not (ART / "hanafuda").is_dir(), reason="needs the shared card art")
def test_a_rendered_table_shows_the_clutter_and_leaves_the_cards_as_they_were() -> None:
    from vision.synth.artset import find_style
    from vision.synth.scene import render

    styles = {"mantia": find_style("hanafuda", "mantia", str(ART))}
    scene = clutter_scene(820019, "hanafuda", ("mantia",), n=5)
    a, b = render(scene, styles), render(without_clutter(scene), styles)
    assert [c.card_id for c in a.labels.cards] == [c.card_id for c in b.labels.cards]
    assert [round(c.visible, 3) for c in a.labels.cards] == [round(c.visible, 3) for c in b.labels.cards]
    assert np.abs(a.image.astype(int) - b.image.astype(int)).mean() > 1.0  # the objects are drawn
