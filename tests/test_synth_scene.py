"""Synthetic scenes: determinism, label truth (re-projected outlines show the labelled art) and
visible fractions of overlapped, occluded and cut-off cards."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from scorer.cards import BLANK, hanafuda_ids, playing_ids  # noqa: E402
from tests.synth_truth import correlations, references  # noqa: E402
from vision.synth.artset import find_style  # noqa: E402
from vision.synth.camera import CameraEffects, CameraPose, homography, project  # noqa: E402
from vision.synth.cardfaces import CardLook  # noqa: E402
from vision.synth.classes import recognition_name  # noqa: E402
from vision.synth.layouts import CardPlacement  # noqa: E402
from vision.synth.lighting import LightSpec  # noqa: E402
from vision.synth.markers import MarkerSpec  # noqa: E402
from vision.synth.occluders import cup  # noqa: E402
from vision.synth.scene import render, sample_scene  # noqa: E402

STYLES = {
    "hanafuda": {"mantia": find_style("hanafuda", "mantia")},
    "playing": {"knoll": find_style("playing", "knoll"), "jumbo": find_style("playing", "jumbo")},
}
FACES = {"hanafuda": hanafuda_ids() + (BLANK,), "playing": playing_ids(jokers=True)}


def _render(seed: int, deck: str = "hanafuda", style: str = "mantia", size=(640, 640)):
    return render(sample_scene(seed, deck, (style,), size), STYLES[deck])


def test_same_seed_gives_identical_png_and_labels():
    a, b = _render(11), _render(11)
    assert cv2.imencode(".png", a.image)[1].tobytes() == cv2.imencode(".png", b.image)[1].tobytes()
    assert a.labels.to_json() == b.labels.to_json()


def test_different_seeds_differ():
    images = [_render(s, size=(320, 320)) for s in (1, 2, 3)]
    for i in range(3):
        for j in range(i + 1, 3):
            assert not np.array_equal(images[i].image, images[j].image)
            assert images[i].labels.to_json() != images[j].labels.to_json()


def test_labels_round_trip_json():
    r = _render(5, "playing", "knoll", (320, 320))
    from vision.synth.labels import SceneLabels

    assert SceneLabels.from_json(r.labels.to_json()) == r.labels


@pytest.mark.parametrize("deck,style,seeds", [("hanafuda", "mantia", range(0, 8)), ("playing", "knoll", range(0, 6)),
                                              ("playing", "jumbo", range(6, 12))])
def test_labelled_outlines_show_the_labelled_card(deck, style, seeds):
    """Rectify every fully visible face-up card by its labelled polygon: it correlates with its own
    art, and best of all faces of the deck (plains of one month are one class)."""
    refs = references(STYLES[deck][style], FACES[deck])
    checked, scores = 0, []
    for seed in seeds:
        r = _render(seed, deck, style)
        for c in r.labels.cards:
            poly = np.array(c.polygon)
            if not c.face_up or c.visible < 0.98 or np.linalg.norm(poly[3] - poly[0]) < 50:
                continue
            corr = correlations(r.image, c.polygon, refs)
            best = max(corr, key=corr.get)
            assert recognition_name(best) == recognition_name(c.card_id), (seed, c.card_id, best)
            assert corr[c.card_id] > 0.45, (seed, c.card_id, corr[c.card_id])
            scores.append(corr[c.card_id])
            checked += 1
    assert checked >= 20
    assert np.median(scores) > 0.9


def _clean_scene(cards, occluders=(), size=(480, 480), tilt=0.0):
    base = sample_scene(3, "hanafuda", ("mantia",), size)
    camera = CameraPose((150.0, 150.0), 500.0, tilt, 30.0, 0.0, 480.0, size)
    return replace(base, cards=tuple(cards), occluders=tuple(occluders), camera=camera, effects=CameraEffects(),
                   light=LightSpec(), markers=MarkerSpec("none"))


def test_clean_cards_match_their_art_closely():
    cards = [CardPlacement(CardLook(cid), (60.0 + 70 * (k % 4), 60.0 + 100 * (k // 4)), 180.0 * (k % 2) + 5 * k)
             for k, cid in enumerate(("01-crane", "03-curtain", "08-moon", "11-rainman", "12-phoenix", "09-sakecup"))]
    r = render(_clean_scene(cards, tilt=25.0), STYLES["hanafuda"])
    refs = references(STYLES["hanafuda"]["mantia"], FACES["hanafuda"])
    for c in r.labels.cards:
        assert c.visible > 0.99
        corr = correlations(r.image, c.polygon, refs)
        assert max(corr, key=corr.get) == c.card_id
        assert corr[c.card_id] > 0.9


def test_visible_fraction_of_overlapped_cards():
    # 54 mm wide cards, the second shifted by 27 mm: the lower card is half covered.
    lower = CardPlacement(CardLook("01-crane"), (150.0, 150.0), 0.0)
    upper = CardPlacement(CardLook("02-warbler"), (177.0, 150.0), 0.0)
    quarter = CardPlacement(CardLook("03-curtain"), (150.0 - 40.5, 150.0 + 65.25), 0.0)  # covers 27×21.75 mm
    r = render(_clean_scene([lower, upper, quarter]), STYLES["hanafuda"])
    vis = {c.card_id: c.visible for c in r.labels.cards}
    expected_lower = 1 - (27 * 87 + 13.5 * 21.75) / (54 * 87)
    assert vis["01-crane"] == pytest.approx(expected_lower, abs=0.02)
    assert vis["02-warbler"] == pytest.approx(1.0, abs=0.01)
    assert vis["03-curtain"] == pytest.approx(1.0, abs=0.01)


def test_visible_fraction_of_pile_and_face_down():
    pile = [CardPlacement(CardLook(cid, face_up=False), (150.0, 150.0), 0.0) for cid in ("01-crane", "02-warbler")]
    r = render(_clean_scene(pile), STYLES["hanafuda"])
    assert [c.face_up for c in r.labels.cards] == [False, False]
    assert r.labels.cards[0].visible < 0.01
    assert r.labels.cards[1].visible > 0.99


def test_visible_fraction_counts_occluders_and_image_border():
    rng = np.random.Generator(np.random.PCG64(1))
    card = CardPlacement(CardLook("08-moon"), (150.0, 150.0), 0.0)
    covered = _clean_scene([card], occluders=[cup(rng, (150.0, 150.0))])
    assert render(covered, STYLES["hanafuda"]).labels.cards[0].visible < 0.6
    # The image's left edge at table x = 150 mm - 240 px / (480/500 px per mm) = -100 mm:
    # a card centred on x = -100 mm is half outside.
    scene = _clean_scene([CardPlacement(CardLook("08-moon"), (-100.0, 150.0), 0.0)])
    hom = homography(scene.camera)
    assert project(hom, np.array([[-100.0, 150.0]]))[0, 0] == pytest.approx(-0.5, abs=0.01)
    assert render(scene, STYLES["hanafuda"]).labels.cards[0].visible == pytest.approx(0.5, abs=0.02)


def test_polygons_follow_the_printed_orientation():
    # A card turned 180° lists its face's top-left corner at the bottom right of the image.
    card = CardPlacement(CardLook("01-crane"), (150.0, 150.0), 180.0)
    poly = np.array(render(_clean_scene([card]), STYLES["hanafuda"]).labels.cards[0].polygon)
    assert poly[0, 0] > poly[2, 0] and poly[0, 1] > poly[2, 1]


def test_markers_are_labelled_and_detectable():
    for seed in range(40):
        scene = sample_scene(seed, "hanafuda", ("mantia",), (640, 640))
        if scene.markers.mode != "none":
            break
    scene = replace(scene, cards=(), occluders=(), effects=CameraEffects(),
                    camera=replace(scene.camera, target_mm=(scene.area_mm[0] / 2, scene.area_mm[1] / 2),
                                   distance_mm=scene.camera.focal_px * 2.0 * max(scene.area_mm) / 640, tilt_deg=10.0),
                    light=LightSpec())
    r = render(scene, STYLES["hanafuda"])
    assert [m.marker_id for m in r.labels.markers] == [0, 1, 2, 3]
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(r.image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for cs, mid in zip(corners, ids.ravel(), strict=True):
        assert np.abs(cs.reshape(4, 2) - np.array(r.labels.markers[mid].corners)).max() < 2.0


def test_both_decks_and_all_layouts_render():
    layouts = set()
    for seed in range(12):
        for deck, style in (("hanafuda", "mantia"), ("playing", "jumbo")):
            r = _render(seed, deck, style, (256, 256))
            layouts.add(r.labels.layout)
            assert r.image.shape == (256, 256, 3)
            for c in r.labels.cards:
                assert 0.0 <= c.visible <= 1.0 and len(c.polygon) == 4
    assert {"game", "scattered", "grid"} <= layouts


def test_unknown_style_is_a_clear_error():
    scene = sample_scene(1, "hanafuda", ("classic",), (128, 128))
    with pytest.raises(ValueError, match="classic"):
        render(scene, STYLES["hanafuda"])
