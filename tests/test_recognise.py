"""Card recognition with the shipped models (ONNX Runtime): loading, rendered frames, batches, the CLI,
the outline geometry, deck profiles and enrolment end to end. No network, no GPU."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from fudaba import cli  # noqa: E402
from vision.cardcrop import upright  # noqa: E402
from vision.enrol_grid import enrol_grid  # noqa: E402
from vision.evaluate.recognition import accuracy, outcomes, render_scenes  # noqa: E402
from vision.recognise import Recogniser, load_profile  # noqa: E402
from vision.recognise.backends import load_network  # noqa: E402
from vision.recognise.detector import Detection  # noqa: E402
from vision.recognise.enrol import assign_grid  # noqa: E402
from vision.recognise.geometry import match  # noqa: E402
from vision.recognise.profile import DeckProfile  # noqa: E402
from vision.synth.artset import find_style  # noqa: E402
from vision.synth.classes import class_of  # noqa: E402
from vision.synth.fixed_scenes import enrolment_scene, topdown_scene  # noqa: E402
from vision.synth.scene import render  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FRAME_SEEDS = (9, 59, 129, 139)
"""Test-split seeds (≡ 9 mod 10): never trained on."""


@pytest.fixture(scope="module")
def rec():
    return Recogniser("hanafuda", backends=("onnxruntime",))


@pytest.fixture(scope="module")
def frames():
    return list(render_scenes("hanafuda", ("mantia",), FRAME_SEEDS, size=(1280, 720), scene=topdown_scene))


@pytest.fixture(scope="module")
def grid_photo(tmp_path_factory):
    scene = enrolment_scene(5, "hanafuda", "mantia", size=(1280, 720))
    r = render(scene, {"mantia": find_style("hanafuda", "mantia")})
    path = tmp_path_factory.mktemp("enrol") / "grid.png"
    cv2.imwrite(str(path), r.image)
    return path, r.labels


def test_shipped_models_load_with_their_manifest(rec):
    m = rec.manifest
    assert rec.backend == "onnxruntime"
    assert (m.folder / "detector.pt").is_file() and (m.folder / "classifier.pt").is_file()
    assert (m.folder / "README.md").is_file(), "every shipped model has a model card"
    assert m.classifier.names[-1] == "back" and "03-plain" in m.classifier.names
    assert m.calibration.temperature > 0 and 0 < m.calibration.unsure_below < 1


def test_recognises_rendered_top_down_frames(rec, frames):
    items = []
    for image, labels in frames:
        cards = rec.recognise(image)
        for c in cards:
            assert len(c.polygon) == 4 and 0 <= c.confidence <= 1
            assert c.face_up == (c.label != "back")
            assert c.card_ids or c.label == "back"
        items += outcomes(labels, cards)
    full = accuracy(items, 1.0)
    assert full["cards"] >= 20
    assert full["accuracy"] >= 0.95, full


def test_a_card_is_named_once_where_the_detector_finds_it_twice(rec, frames):
    from vision.recognise.duplicates import OVERLAP, overlap

    removed = 0
    for image, _ in frames:
        every = rec.whole_cards([image])[0][0]  # every detection named, none left out yet
        once = rec.recognise(image)
        assert all(any(c.polygon == e.polygon for e in every) for c in once)
        up = [c for c in once if c.face_up]
        assert not any(a.label == b.label and overlap(a.box, b.box) >= OVERLAP
                       for i, a in enumerate(up) for b in up[i + 1:])
        removed += len(every) - len(once)
    assert removed >= 1, "these frames hold cards the detector finds twice"


def test_a_batch_gives_what_single_frames_give(rec, frames):
    images = [f[0] for f in frames[:2]]
    batch = rec.recognise_batch(images)
    for image, got in zip(images, batch, strict=True):
        single = rec.recognise(image)
        assert [c.label for c in got] == [c.label for c in single]
        assert np.allclose([c.confidence for c in got], [c.confidence for c in single], atol=1e-4)


def test_an_oriented_detection_is_cut_along_its_own_rectangle(rec, frames):
    image = frames[0][0]
    poly = ((400.0, 200.0), (454.0, 200.0), (454.0, 287.0), (400.0, 287.0))
    det = Detection((400.0, 200.0, 454.0, 287.0), True, 0.9, poly)
    seen = []

    def score(crops):
        seen.append(len(crops))
        return np.full((len(crops), len(rec.classifier.names)), 0.5), np.ones((len(crops), 4))

    polys, probs, embs = rec.named_outlines(image, [det], score)
    assert seen == [1] and np.allclose(polys[0], upright(np.array(poly))) and embs.shape == (1, 4)
    polys, probs, embs = rec.named_outlines(image, [])
    assert polys == [] and probs.shape == (0, len(rec.classifier.names))
    with pytest.raises(ValueError, match="rotated rectangle"):  # an axis-aligned box alone is no outline
        rec.named_outlines(image, [Detection(det.box, True, 0.9)])


def test_recognised_outlines_fit_the_cards(rec):
    """The shipped detector's outlines (its own rotated rectangles) lie within a few percent of the
    card's long side of the true corners, on any-view test scenes."""
    errors = []
    for image, labels in render_scenes("hanafuda", ("mantia",), range(9, 129, 10)):
        dets = rec.detector.detect([image])[0]
        polys = rec.outlines(image, dets)
        truth = [t for t in labels.cards if t.visible >= 0.999]
        for t, i in zip(truth, match([d.box for d in dets], truth), strict=True):
            if i is None:
                continue
            p = upright(np.array(t.polygon))
            long_side = np.linalg.norm(p[1] - p[2])
            errors.append(min(np.linalg.norm(np.roll(polys[i], k, 0) - p, axis=1).mean() for k in (0, 2)) / long_side)
    assert len(errors) >= 30
    assert np.median(errors) < 0.08 and np.mean(np.array(errors) < 0.15) >= 0.9, np.round(sorted(errors), 3)


def test_recognise_command_prints_json(tmp_path, frames, capsys):
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frames[0][0])
    assert cli.main(["recognise", str(path), "--json", "--backend", "onnxruntime"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["image"] == str(path) and doc["backend"] == "onnxruntime" and doc["cards"]
    assert {"label", "card_ids", "polygon", "confidence", "unsure"} <= set(doc["cards"][0])


def test_recognise_command_says_what_is_wrong(tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("not an image")
    assert cli.main(["recognise", str(bad)]) == 2  # said, and the status says so
    assert "not an image" in capsys.readouterr().err
    assert cli.main(["recognise", str(bad), "--backend", "tensorflow"]) == 2
    assert "unknown backend" in capsys.readouterr().err


def test_network_loading_names_what_it_tried(tmp_path):
    with pytest.raises(ValueError, match="no missing.onnx"):
        load_network(tmp_path / "missing", ("onnxruntime",))


def test_enrolment_end_to_end(rec, grid_photo, tmp_path, capsys):
    photo, labels = grid_photo
    out = tmp_path / "mine.npz"
    assert cli.main(["enrol", "--deck", "hanafuda", str(photo), "--out", str(out), "--practice", "6"]) == 0
    said = capsys.readouterr().out
    assert "48 cards" in said and str(out) in said and "6 practice scenes" in said
    profile = load_profile(out)
    assert profile.deck == "hanafuda" and profile.enrolled.sum() == 37  # 38 faces less the absent blank
    assert profile.meta["practice_scenes"] == 6 and profile.meta["practice_references"] >= 30
    names = rec.classifier.names
    # Every reference sits where the truth says that card lies: check through the profile's labels.
    assert sorted({names[i] for i in profile.labels}) == sorted(
        {n for n in names if n not in ("back", "00-blank")})
    with_profile = Recogniser("hanafuda", backends=("onnxruntime",), profile=out)
    items = outcomes(labels, with_profile.recognise(cv2.imread(str(photo))))
    assert accuracy(items, 1.0)["accuracy"] == 1.0
    # practice scene 4 of 0-5 was kept out of the head's fit to set the profile's own unsure threshold
    cal = profile.meta["calibration"]
    assert 0 < cal["cards"] < profile.meta["practice_references"] and 0.0 < profile.meta["unsure_below"] <= 1.0
    assert with_profile.card_unsure_below == profile.meta["unsure_below"] != rec.card_unsure_below


def test_faces_cut_from_a_grid_photo_are_the_cards_art(rec, grid_photo):
    from vision.recognise.enrol import read_grid

    photo, _ = grid_photo
    reading = read_grid(rec, photo)  # as enrolment reads it
    faces = reading.faces("hanafuda")
    style = find_style("hanafuda", "mantia")
    assert set(faces) == {cell.card_id for cell, _ in reading.cells} and len(faces) == 48

    def grey(img):
        g = cv2.cvtColor(cv2.resize(img[..., :3], (40, 64), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        g = g.astype(np.float64) - g.mean()
        return g / np.linalg.norm(g)

    art = {cid: grey(cv2.imread(style.path(cid), cv2.IMREAD_UNCHANGED)) for cid in faces if style.path(cid)}
    right = 0
    for cid, face in faces.items():
        assert face.shape[:2] == (320, 199) and face.shape[2] == 4
        # the grid may hold a card either way up: each cut face is, one way or the other, most
        # like its own card's art (or the art of a card of the same class: two plains of a month)
        sims = {other: max(float((grey(f) * a).sum()) for f in (face, face[::-1, ::-1])) for other, a in art.items()}
        right += class_of(max(sims, key=sims.get), True, "hanafuda") == class_of(cid, True, "hanafuda")
    assert right >= 0.9 * len(art)


def test_enrolment_reads_a_grid_photographed_from_the_far_side(rec, grid_photo, tmp_path, capsys):
    photo, _ = grid_photo
    turned = tmp_path / "turned.png"
    cv2.imwrite(str(turned), cv2.rotate(cv2.imread(str(photo)), cv2.ROTATE_180))
    assert cli.main(["enrol", "--deck", "hanafuda", str(turned), "--out", str(tmp_path / "t.npz"),
                     "--practice", "0"]) == 0
    assert "read turned 180" in capsys.readouterr().out


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is not None, reason="the train extra is installed here")
def test_a_fine_tune_without_the_train_extra_says_what_to_install(grid_photo, tmp_path, capsys):
    photo, _ = grid_photo
    assert cli.main(["enrol", "--deck", "hanafuda", str(photo), "--out", str(tmp_path / "f.npz"), "--fine-tune"]) == 2
    assert "pip install 'fudaba[train]'" in capsys.readouterr().err
    assert not (tmp_path / "f.npz").exists()


def test_enrolment_refuses_what_is_not_the_grid(tmp_path, frames, capsys):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), frames[0][0])
    assert cli.main(["enrol", "--deck", "hanafuda", str(path), "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "grid" in err
    assert not (tmp_path / "x.npz").exists()


def _grid_polygons(deck: str, turn_deg: float = 0.0, drop: int | None = None):
    cells = enrol_grid(deck)
    a = np.radians(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    polys = []
    for c in cells:
        centre = np.array([c.column * 70.0, c.row * 100.0]) @ rot.T
        polys.append(centre + np.array([[-27, -43], [27, -43], [27, 43], [-27, 43]]) @ rot.T)
    ids = [c.card_id for c in cells]
    if drop is not None:
        del polys[drop], ids[drop]
    return polys, ids


@pytest.mark.parametrize("deck", ["hanafuda", "playing"])
@pytest.mark.parametrize("turn", [0.0, 7.0, -10.0])
def test_grid_assignment_follows_the_canonical_order(deck, turn):
    polys, ids = _grid_polygons(deck, turn)
    order = np.random.default_rng(0).permutation(len(polys))
    pairs = assign_grid([polys[i] for i in order], deck, extras=False)
    assert sorted(cell.card_id == ids[order[i]] for cell, i in pairs) == [True] * len(ids)


def test_grid_assignment_says_which_row_is_short():
    polys, _ = _grid_polygons("hanafuda", drop=20)
    polys.append(np.array([[2000, 0], [2054, 0], [2054, 87], [2000, 87]], float))  # a stray card far off
    with pytest.raises(ValueError, match="rows of"):
        assign_grid(polys, "hanafuda", extras=False)
    with pytest.raises(ValueError, match="found 47 cards"):
        assign_grid(_grid_polygons("hanafuda", drop=3)[0], "hanafuda", extras=False)


def test_profiles_round_trip_and_belong_to_their_classifier(rec, tmp_path):
    names = rec.classifier.names
    emb = np.eye(4, 8, dtype=np.float32)
    p = DeckProfile("hanafuda", "0" * 64, names, emb, np.array([0, 1, 2, 2]), {"photos": []})
    back = load_profile(p.save(tmp_path / "p"))
    assert back.names == names and np.array_equal(back.labels, [0, 1, 2, 2]) and back.embeddings.shape == (4, 8)
    with pytest.raises(ValueError, match="another classifier"):
        rec.use_profile(back)
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a deck profile"):
        load_profile(tmp_path / "junk.npz")


def test_playing_card_models_load_and_name_faces_and_backs():
    rec = Recogniser("playing", backends=("onnxruntime",))
    assert (rec.manifest.folder / "README.md").is_file()
    assert set(rec.classifier.names) >= {"QS", "AS", "JOKER-RED", "BACK"}
    ((image, labels),) = render_scenes("playing", ("knoll",), [19], size=(1280, 720), scene=topdown_scene)
    cards = rec.recognise(image)
    assert cards
    for c in cards:
        assert c.face_up == (c.label != "BACK")
        assert c.card_ids == ((c.label,) if c.face_up else ())
    assert accuracy(outcomes(labels, cards), 0.4)["accuracy"] >= 0.5


def test_onnx_runtime_threads_do_not_spin_between_calls():
    pytest.importorskip("onnxruntime")
    net = load_network(Path(__file__).resolve().parents[1] / "models" / "hanafuda" / "classifier", ("onnxruntime",))
    assert net._session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_with_a_deck_profile_every_crop_is_turned(rec, frames):
    """The manifest turns only the unsure crops; a profile's references were made with every crop
    turned, so recognition with a profile turns every crop too."""
    image, labels = frames[0]
    crops = rec.classifier.crops(image, [np.asarray(c.polygon) for c in labels.cards if c.visible > 0.9][:6])
    network, given = rec.classifier.network, []
    rec.classifier.network = lambda batch: given.append(len(batch)) or network(batch)
    try:
        assert rec.classifier.turn_below is not None
        rec.probabilities(crops)
        alone = sum(given)
        dim = rec.manifest.classifier.embedding
        profile = DeckProfile("hanafuda", rec.classifier_sha256(), rec.classifier.names,
                              np.eye(2, dim, dtype=np.float32), np.array([1, 2]), {"photos": []})
        rec.use_profile(profile)
        given.clear()
        rec.probabilities(crops)
        assert sum(given) == 2 * len(crops) > alone
        assert rec.classifier.turn_below is not None  # set aside only while classifying
    finally:
        rec.use_profile(None)
        rec.classifier.network = network
