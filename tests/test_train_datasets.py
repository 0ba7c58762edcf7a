"""Training data plumbing: real-photo class mapping and relabelled links, merged dataset files, class
folders for classification, and the command line's refusals. No training here (see test_train_offline)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
cv2 = pytest.importorskip("cv2")

from vision.synth.classes import class_names  # noqa: E402
from vision.train import datasets  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "datasets" / "playing-real"
SHARED_CSV = REPO.parent / "shared" / "assets" / "cards" / "playing.csv"
REAL_NAMES = ("10C", "AS", "BACK", "BLACK JOKER", "QH")


def fake_real(root: Path) -> Path:
    """A real-style dataset: 3 images (two augmented copies of one photo), corner boxes, its own names."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "data.yaml").write_text(yaml.safe_dump({"path": ".", "train": "images/train", "val": "images/val",
                                                    "nc": len(REAL_NAMES), "names": list(REAL_NAMES)}))
    labels = {"IMG_1_jpg.rf.a": "0 0.5 0.5 0.2 0.1\n3 0.1 0.2 0.1 0.1\n",
              "IMG_1_jpg.rf.b": "1 0.95 0.5 0.2 0.4\n",
              "WIN_2_jpg.rf.c": "2 0.5 0.5 0.5 0.5\n4 0.3 0.3 0.1 0.1\n"}
    for stem, text in labels.items():
        (root / "images" / "train" / f"{stem}.jpg").write_bytes(b"\xff\xd8 not decoded by these tests")
        (root / "labels" / "train" / f"{stem}.txt").write_text(text)
    return root


def test_every_real_class_maps_to_a_card_id_as_the_shared_table_says():
    to_id = datasets.real_name_to_card_id()
    assert to_id["10C"] == "10C" and to_id["BLACK JOKER"] == "JOKER-BLACK" and to_id["BACK"] == "BACK"
    ids = set(class_names("playing", "ids"))
    assert set(to_id.values()) <= ids
    if not REAL.is_dir():
        pytest.skip("shared/datasets/playing-real is not beside this checkout")
    real_names = datasets.read_names(REAL / "data.yaml")
    mapping = datasets.real_class_map(real_names, class_names("playing", "ids"))
    assert len(mapping) == len(real_names) == 55 and len(set(mapping.values())) == 55
    with SHARED_CSV.open() as f:
        shared = {r["cardcounterml_name"]: r["id"] for r in csv.DictReader(f) if r["cardcounterml_name"]}
    assert {n: to_id[n] for n in real_names} == {n: shared[n] for n in real_names}


@pytest.mark.parametrize("obb", [False, True])
def test_real_photos_are_linked_in_place_and_relabelled(tmp_path, obb):
    real = fake_real(tmp_path / "real")
    names = class_names("playing", "recognition")
    out = tmp_path / "run" / "data" / "real"
    summary = datasets.link_real(real, names, out, obb=obb)
    assert summary == {"dir": str(real.resolve()), "photos": 2, "images": 3, "labels": 5}
    link = out / "images" / "train" / "IMG_1_jpg.rf.a.jpg"
    assert link.is_symlink() and link.resolve() == (real / "images" / "train" / "IMG_1_jpg.rf.a.jpg").resolve()
    lines = [line.split() for line in (out / "labels" / "train" / "IMG_1_jpg.rf.a.txt").read_text().splitlines()]
    assert [int(p[0]) for p in lines] == [names.index("10C"), names.index("JOKER-BLACK")]
    if not obb:
        assert lines[0][1:] == ["0.5", "0.5", "0.2", "0.1"]
    else:
        assert [float(v) for v in lines[0][1:]] == pytest.approx([0.4, 0.45, 0.6, 0.45, 0.6, 0.55, 0.4, 0.55])
        # A box past the image edge is clipped, as ultralytics requires for OBB corners.
        edge = (out / "labels" / "train" / "IMG_1_jpg.rf.b.txt").read_text().split()
        assert max(float(v) for v in edge[1:]) == 1.0
    datasets.link_real(real, names, out, obb=obb)  # a second call (a rerun) keeps the links
    assert len(os.listdir(out / "images" / "train")) == 3


def test_real_photos_cannot_merge_into_the_card_scheme(tmp_path):
    real = fake_real(tmp_path / "real")
    with pytest.raises(ValueError, match="'ids' or 'recognition'"):
        datasets.link_real(real, class_names("playing", "card"), tmp_path / "out")


def test_merged_dataset_file_lists_absolute_folders(tmp_path):
    names = class_names("playing", "ids")
    src = tmp_path / "synth"
    (src / "images" / "train").mkdir(parents=True)
    (src / "data.yaml").write_text(yaml.safe_dump({"path": str(src), "train": "images/train", "val": "images/val",
                                                   "names": dict(enumerate(names))}))
    assert datasets.split_dirs(src / "data.yaml", "train") == [(src / "images" / "train").resolve()]
    merged = datasets.detect_yaml(tmp_path / "data.yaml", names,
                                  train=datasets.split_dirs(src / "data.yaml", "train") + [tmp_path / "real"],
                                  val=datasets.split_dirs(src / "data.yaml", "val"), comment="test")
    doc = yaml.safe_load(merged.read_text())
    assert doc["train"] == [str((src / "images" / "train").resolve()), str((tmp_path / "real").resolve())]
    assert doc["val"] == [str((src / "images" / "val").resolve())]
    assert datasets.read_names(merged) == names and doc["nc"] == len(names)


def test_classification_root_gets_a_folder_for_every_class(tmp_path):
    (tmp_path / "crops" / "train" / "01-crane").mkdir(parents=True)
    names = class_names("hanafuda", "recognition")
    root = datasets.classify_root(tmp_path, names)
    assert root == tmp_path / "crops"
    for split in ("train", "val", "test"):
        assert sorted(p.name for p in (root / split).iterdir()) == sorted(names)
    with pytest.raises(ValueError, match="no classification dataset"):
        datasets.classify_root(tmp_path / "crops" / "val")


@pytest.mark.parametrize(("argv", "message"), [
    (["detect", "--deck", "hanafuda", "--render", "5", "--out", "{tmp}/r"], "at least 10 scenes"),
    (["classify", "--deck", "playing", "--render", "10", "--real", "{tmp}", "--out", "{tmp}/r"],
     "no data.yaml there"),
    (["detect", "--out", "{tmp}/r"], "needs --deck"),
    (["obb", "--resume", "--out", "{tmp}/r"], "no config.json"),
    (["detect", "--deck", "hanafuda", "--data", "{tmp}/nowhere", "--out", "{tmp}/r"], "no ultralytics dataset"),
    (["detect", "--deck", "hanafuda", "--render", "10", "--weights", "yolo11n.pt", "--out", "{tmp}/r"],
     "is not a file"),
    (["export", "{tmp}", "--format", "onnx"], "no config.json"),
    (["detect", "--deck", "hanafuda", "--render", "10", "--restyle", "0.5", "--out", "{tmp}/r"],
     "use it with classify and --render"),
    (["classify", "--deck", "hanafuda", "--data", "{tmp}", "--restyle", "0.5", "--out", "{tmp}/r"],
     "use it with classify and --render"),
    (["classify", "--deck", "hanafuda", "--render", "10", "--restyle", "1.5", "--out", "{tmp}/r"],
     "--restyle is a share, 0 … 1"),
    (["detect", "--deck", "hanafuda", "--render", "10", "--randconv", "0.5", "--out", "{tmp}/r"],
     "use it with classify and --render"),
    (["classify", "--deck", "hanafuda", "--render", "10", "--randconv", "-0.1", "--out", "{tmp}/r"],
     "--randconv is a share, 0 … 1"),
    (["obb", "--deck", "hanafuda", "--render", "10", "--clutter", "1.5", "--out", "{tmp}/r"], "--clutter is a share, 0 … 1"),
    (["obb", "--deck", "hanafuda", "--data", "{tmp}", "--clutter", "0.5", "--out", "{tmp}/r"],
     "--clutter adds things to rendered scenes: use it with --render"),
    (["classify", "--deck", "hanafuda", "--render", "10", "--restyle", "0.5", "--restyle-turn", "-1",
      "--out", "{tmp}/r"], "--restyle-turn is a number of hue steps"),
    (["detect", "--deck", "hanafuda", "--render", "10", "--detected-crops", "--out", "{tmp}/r"],
     "use it with classify"),
])
def test_command_line_refuses_bad_requests_before_training(tmp_path, capsys, argv, message):
    pytest.importorskip("ultralytics")
    from vision.train import cli

    assert cli.main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    assert message in capsys.readouterr().err


def test_detected_crops_are_cut_where_the_shipped_detector_puts_each_rendered_card(tmp_path):
    pytest.importorskip("onnxruntime")
    from vision.synth.classes import class_of
    from vision.synth.labels import SceneLabels
    from vision.train.detected_crops import detected_crops

    data = tmp_path / "synth"
    req = datasets.RenderRequest(deck="hanafuda", count=10, seed=0, size=640, task="classify", classes="recognition",
                                 styles=("mantia",), crop_side=64, crop_copies=1, crop_jitter=0.02,
                                 crop_min_visible=0.35)
    datasets.render(req, data)
    root = datasets.classify_root(data, class_names("hanafuda", "recognition"))
    counts = detected_crops(data, root, "hanafuda", side=64, min_visible=0.35)
    assert counts["train"]["scenes"] == 8 and counts["val"]["scenes"] == 1
    written = sorted(root.glob("*/*/det_*.png"))
    assert len(written) == counts["train"]["crops"] + counts["val"]["crops"]
    truth = {}
    for split in ("train", "val"):
        for f in (data / "truth" / split).glob("*.json"):
            truth[f.stem] = SceneLabels.from_json(f.read_text())
    seen = sum(c.visible >= 0.35 for s, lab in truth.items() for c in lab.cards)
    assert counts["train"]["crops"] + counts["val"]["crops"] + counts["train"]["missed"] + counts["val"]["missed"] == seen
    assert len(written) >= 0.9 * seen  # the shipped detector finds nearly every card of the training art
    for f in written:
        _, stem, z = f.stem.split("_")
        card = next(c for c in truth[stem].cards if c.z == int(z))
        assert f.parent.name == class_of(card.card_id, card.face_up, "hanafuda", "recognition")
        assert f.parent.parent.name == ("val" if int(stem) % 10 == 8 else "train")
        assert cv2.imread(str(f)).shape == (64, 64, 3)
    with pytest.raises(ValueError, match="no rendered truth"):
        detected_crops(tmp_path / "nowhere", root, "hanafuda")
