"""vision.synth.hands: four face-up hands of 13 playing cards, fanned or spread, and which of their
corner indices a reader can see."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("cv2")

from vision.synth.hands import HAND, hands_scene, index_truth  # noqa: E402
from vision.synth.labels import CardLabel  # noqa: E402

ART = Path(__file__).resolve().parents[2] / "shared" / "assets"


def test_four_hands_of_thirteen_from_one_deck_and_reproducible() -> None:
    a = hands_scene(810001)
    assert len(a.cards) == 4 * HAND and all(c.look.face_up for c in a.cards)
    assert len({c.look.card_id for c in a.cards}) == 52
    assert hands_scene(810001) == a and hands_scene(810002) != a
    assert hands_scene(810001, tilted=True).camera.tilt_deg >= 18
    with pytest.raises(ValueError, match="playing-card hands"):
        hands_scene(1, "hanafuda", ("mantia",))


def _label(card: str, x: float, z: int, up: bool = True) -> CardLabel:
    poly = ((x, 100.0), (x + 63.0, 100.0), (x + 63.0, 188.0), (x, 188.0))
    return CardLabel(card, up, poly, (x, 100.0, x + 63.0, 188.0), 1.0, z)


def test_an_index_counts_where_enough_of_it_is_uncovered_and_inside_the_picture() -> None:
    """A row spread left to right: each card's top-left index shows past the next card when the
    step is wide enough; a face-down card and a card off the picture count for nothing."""
    cards = [_label("AS", 100, 0), _label("2S", 120, 1), _label("3S", 125, 2), _label("4S", 400, 3, up=False)]
    labels = SimpleNamespace(cards=cards)
    seen = index_truth(labels, (640, 480))
    # AS: its top-left index lies left of 2S (a 20-px step is wider than the index): seen; 2S lies
    # 5 px under 3S, both its indices covered: not seen; 3S on top: seen; 4S face down
    assert seen == {"AS", "3S"}
    labels.cards = [_label("5S", 600, 0)]  # mostly off a 640-px picture: its left index is inside
    assert index_truth(labels, (640, 480)) == {"5S"}
    labels.cards = [_label("6S", 700, 0)]  # wholly off the picture
    assert index_truth(labels, (640, 480)) == set()


@pytest.mark.skipif(not (ART / "playing" / "knoll").is_dir(), reason="needs the shared card art")
def test_a_rendered_scene_shows_most_indices() -> None:
    from vision.synth.artset import find_style
    from vision.synth.scene import render

    rendered = render(hands_scene(810003, "playing", ("knoll",)), {"knoll": find_style("playing", "knoll", str(ART))})
    seen = index_truth(rendered.labels, (1280, 720))
    assert 36 <= len(seen) <= 52
