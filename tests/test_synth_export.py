"""Synthetic datasets: structure ultralytics loads, labels in range, seed splits that cannot leak,
deterministic files, the CLI and the art registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.synth import cli  # noqa: E402
from vision.synth.artset import ArtNotFoundError, available_styles, find_style  # noqa: E402
from vision.synth.cardfaces import CardLook, back_face, blank_face, face_image, worn  # noqa: E402
from vision.synth.classes import class_names, class_of  # noqa: E402
from vision.synth.export import SPLITS, DatasetSpec, split_of, write_dataset  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED_ASSETS = REPO.parent / "shared" / "assets"


def parse_data_yaml(text: str) -> dict:
    """The few keys of an ultralytics data.yaml that we write (a tiny parser, no PyYAML needed)."""
    import json

    out: dict = {"names": {}}
    in_names = False
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("  ") and in_names:
            k, v = line.strip().split(":", 1)
            out["names"][int(k)] = json.loads(v.strip())
            continue
        key, _, value = line.partition(":")
        in_names = key == "names"
        if not in_names:
            value = value.strip()
            out[key] = json.loads(value) if value.startswith('"') else int(value) if value.isdigit() else value
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds")
    write_dataset(DatasetSpec("hanafuda", ("mantia",), str(out), count=20, seed=0, size=(320, 320), crops=True))
    return out


def test_dataset_structure_loads(dataset):
    data = parse_data_yaml((dataset / "data.yaml").read_text())
    names = class_names("hanafuda", "recognition")
    assert data["path"] == str(dataset.resolve())
    assert (data["train"], data["val"], data["test"]) == ("images/train", "images/val", "images/test")
    assert data["nc"] == len(names) and [data["names"][i] for i in range(len(names))] == list(names)
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        assert yaml.safe_load((dataset / "data.yaml").read_text())["names"] == data["names"]
    n_images = 0
    for split in SPLITS:
        images = sorted((dataset / "images" / split).glob("*.jpg"))
        n_images += len(images)
        for img in images:
            label = dataset / "labels" / split / (img.stem + ".txt")
            assert label.exists() and (dataset / "truth" / split / (img.stem + ".json")).exists()
            assert split_of(int(img.stem)) == split
            for line in label.read_text().splitlines():
                parts = line.split()
                assert len(parts) == 5 and 0 <= int(parts[0]) < len(names)
                assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])
    assert n_images == 20


def test_crops_are_rectified_cards_in_class_folders(dataset):
    names = set(class_names("hanafuda", "recognition"))
    folders = [p for split in SPLITS for p in (dataset / "crops" / split).iterdir()]
    assert folders and all(p.name in names for p in folders)
    crop = cv2.imread(str(next(iter(folders[0].glob("*.png")))))
    assert crop.shape == (160, 99, 3)


def test_obb_labels(tmp_path):
    write_dataset(DatasetSpec("playing", ("jumbo",), str(tmp_path), count=6, seed=40, size=(256, 256), obb=True))
    lines = [ln for p in (tmp_path / "labels").rglob("*.txt") for ln in p.read_text().splitlines()]
    assert lines
    for line in lines:
        parts = line.split()
        assert len(parts) == 9 and 0 <= int(parts[0]) < len(class_names("playing"))
        assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])


def test_split_is_a_function_of_the_seed_alone():
    assert [split_of(s) for s in range(10)] == ["train"] * 8 + ["val", "test"]
    assert all(split_of(s) == split_of(s + 10 * k) for s in range(10) for k in range(1, 5))


def test_overlapping_datasets_do_not_leak(tmp_path):
    """Two runs with overlapping seed ranges put each shared seed in the same split with the same
    bytes; the union's splits are disjoint."""
    a, b = tmp_path / "a", tmp_path / "b"
    write_dataset(DatasetSpec("hanafuda", ("mantia",), str(a), count=12, seed=100, size=(128, 128)))
    write_dataset(DatasetSpec("hanafuda", ("mantia",), str(b), count=12, seed=106, size=(128, 128), workers=2))
    seen: dict[str, str] = {}
    for root in (a, b):
        for split in SPLITS:
            for img in (root / "images" / split).glob("*.jpg"):
                assert seen.setdefault(img.stem, split) == split
    shared = 0
    for split in SPLITS:
        for img in (a / "images" / split).glob("*.jpg"):
            twin = b / "images" / split / img.name
            if twin.exists():
                shared += 1
                assert twin.read_bytes() == img.read_bytes()
                assert (b / "labels" / split / (img.stem + ".txt")).read_bytes() == \
                    (a / "labels" / split / (img.stem + ".txt")).read_bytes()
    assert shared == 6


def test_class_names():
    assert class_of("03-plain-2", True, "hanafuda") == "03-plain"
    assert class_of("12-plain-1", True, "hanafuda") == "12-plain-1"
    assert class_of("12-plain-3", True, "hanafuda") == "12-plain"
    assert class_of("12-plain-3", True, "hanafuda", "ids") == "12-plain-3"
    assert class_of("08-moon", False, "hanafuda") == "back"
    assert class_of("QH", False, "playing") == "BACK"
    assert class_of("QH", True, "playing", "card") == "card"
    assert len(class_names("hanafuda")) == 39 and len(class_names("hanafuda", "ids")) == 50
    with pytest.raises(ValueError, match="scheme"):
        class_names("hanafuda", "nope")


def test_art_registry():
    assert set(available_styles("hanafuda")) == {"mantia"}
    assert {"knoll", "jumbo"} <= set(available_styles("playing"))
    from scorer.cards import hanafuda_ids, playing_ids

    assert set(hanafuda_ids()) <= set(find_style("hanafuda", "mantia").ids)
    assert set(playing_ids(jokers=True)) <= set(find_style("playing", "knoll").ids)
    with pytest.raises(ArtNotFoundError, match="--art-dir"):
        find_style("hanafuda", "classic")
    with pytest.raises(ArtNotFoundError, match="does not exist"):
        find_style("hanafuda", "classic", "/nonexistent/art")


@pytest.mark.skipif(not (SHARED_ASSETS / "hanafuda" / "classic").is_dir(), reason="shared/assets not beside the repo")
def test_styles_from_an_art_dir_are_read_in_place():
    style = find_style("hanafuda", "classic", SHARED_ASSETS)
    assert not style.shipped and len(style.ids) == 48
    assert all(str(SHARED_ASSETS) in path for _, path in style.faces)
    assert not (REPO / "vision" / "synth" / "art" / "hanafuda" / "classic").exists()


def test_procedural_cards():
    blank = blank_face("hanafuda", 96)
    assert blank.shape == (96, 60, 4) and blank[0, 0, 3] < 128 and blank[48, 30, 3] == 255
    for design in ("black", "brown", "red"):
        assert back_face("hanafuda", design, 96).shape == (96, 60, 4)
    assert back_face("playing", "BACK-RED", 96).shape[0] == 96
    face = face_image(find_style("hanafuda", "mantia"), CardLook("08-moon"), 192)
    w1, w2 = worn(face, 1.0, 5), worn(face, 1.0, 5)
    assert np.array_equal(w1, w2) and not np.array_equal(w1, worn(face, 1.0, 6))
    assert w1.shape == face.shape and w1[0, 0, 3] == 0


def test_cli_dataset_and_errors(tmp_path, capsys):
    out = tmp_path / "cli"
    assert cli.main(["dataset", "--deck", "playing", "--style", "knoll", "--count", "3", "--seed", "7",
                     "--size", "160", "--out", str(out), "--crops"]) == 0
    assert (out / "data.yaml").exists() and len(list((out / "images").rglob("*.jpg"))) == 3
    assert cli.main(["dataset", "--deck", "hanafuda", "--style", "nope", "--out", str(tmp_path / "x")]) == 2
    assert "no hanafuda art style 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["dataset", "--deck", "hanafuda", "--style", "mantia", "--size", "big", "--out", str(tmp_path)])


def test_python_m_entry_point():
    done = subprocess.run([sys.executable, "-m", "vision.synth", "styles", "--deck", "playing"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "knoll" in done.stdout.split()


@pytest.mark.parametrize("style", ["mantia", "classic", "kokujou"])
def test_the_coloured_paulownia_plain_is_12_plain_1_in_every_style(style):
    """shared/rules: ``12-plain-1`` is the coloured (yellow-band) paulownia plain, whatever the art calls it."""
    if style != "mantia" and not (SHARED_ASSETS / "hanafuda" / style).is_dir():
        pytest.skip(f"{style} art lives in ../shared/assets")
    art = find_style("hanafuda", style, SHARED_ASSETS if SHARED_ASSETS.is_dir() else None)

    def band_colour(card: str) -> float:
        face = face_image(art, CardLook(card), 300)
        hsv = cv2.cvtColor(face[int(face.shape[0] * 0.8):int(face.shape[0] * 0.95)], cv2.COLOR_BGR2HSV)
        warm = (hsv[..., 0] >= 8) & (hsv[..., 0] <= 35) & (hsv[..., 1] >= 100)
        return float(warm.mean())

    assert band_colour("12-plain-1") > 0.3 > band_colour("12-plain-2")


def test_clutter_lies_beside_the_cards_unlabelled(tmp_path):
    """With ``clutter`` 1 every scene gets things that are not cards where no card lies: the images
    change, the labels (cards only) stay as they were; ``with_clutter`` keeps the scene's own occluders."""
    from vision.synth.clutter import KINDS, with_clutter
    from vision.synth.scene import sample_scene

    bare, busy = tmp_path / "bare", tmp_path / "busy"
    write_dataset(DatasetSpec("hanafuda", ("mantia",), str(bare), count=4, seed=300, size=(256, 256), obb=True))
    write_dataset(DatasetSpec("hanafuda", ("mantia",), str(busy), count=4, seed=300, size=(256, 256), obb=True, clutter=1.0))
    labels = sorted((bare / "labels").rglob("*.txt"))
    assert labels and [p.read_text() for p in labels] == [(busy / p.relative_to(bare)).read_text() for p in labels]
    images = sorted((bare / "images").rglob("*.jpg"))
    assert any(not np.array_equal(cv2.imread(str(p)), cv2.imread(str(busy / p.relative_to(bare)))) for p in images)
    scene = sample_scene(301, "hanafuda", ("mantia",))
    more = with_clutter(scene, np.random.default_rng(0), 3)
    assert more.occluders[:len(scene.occluders)] == scene.occluders
    added = more.occluders[len(scene.occluders):]
    assert 1 <= len(added) <= 3 and all(o.kind in KINDS for o in added)
