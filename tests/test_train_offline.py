"""The training recipe end to end with the network blocked: render, train, validate, predict, export
(ONNX, OpenVINO), run the ONNX with ONNX Runtime, classify, kill and resume, config.json.

Each scenario runs in a fresh interpreter (a subprocess, not pytest's process): ultralytics disables
its telemetry whenever it sees pytest, so only a plain process shows what a real ``fudaba train`` does.
That process first installs an audit hook that records every name lookup and every internet-socket
connect and refuses them (as a machine without network would), then drives ``vision.train.cli.main``.
Needs the ``train`` extra (not installed by CI yet): skipped without ultralytics.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("ultralytics")
np = pytest.importorskip("numpy")
ort = pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[1]

# The driver run in the child process. argv[1]: a JSON spec {"out": result file, "mode": "offline" |
# "raw", "steps": [...]}. Steps: ["cli", argv], ["cli-kill", argv, epoch] (SIGKILL right after the
# checkpoint of that 0-based epoch is saved), ["val", weights, data, imgsz], ["predict", weights,
# image, imgsz], ["import"] (import ultralytics: through vision.train.offline unless mode is raw),
# ["probe"] (a deliberate name lookup, to show the hook sees one).
DRIVER = r'''
import json, os, signal, socket, sys

spec = json.loads(sys.argv[1])
attempts = []
NET_EVENTS = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr",
              "socket.connect", "socket.sendto", "socket.sendmsg", "http.client.connect", "urllib.Request"}

def hook(event, args):
    if event not in NET_EVENTS:
        return
    if event in {"socket.connect", "socket.sendto", "socket.sendmsg"}:
        address = args[-1]
        if not isinstance(address, tuple):  # AF_UNIX (local process plumbing), not the network
            return
    attempts.append([event, repr(args)[:200]])
    raise OSError("network blocked by test_train_offline")

sys.addaudithook(hook)
result = {"steps": []}
try:
    from vision.train import cli
    for step in spec["steps"]:
        kind = step[0]
        if kind == "cli":
            result["steps"].append(cli.main(step[1]))
        elif kind in ("cli-kill", "cli-threads"):
            # The command run with one extra ultralytics callback: kill at an epoch, or note torch's threads.
            import torch
            from vision.train import recipe
            if kind == "cli-kill":
                epoch = step[2]
                def kill(trainer, epoch=epoch):
                    if trainer.epoch == epoch:
                        with open(spec["out"], "w") as f:
                            json.dump({**result, "attempts": attempts, "killed_at_epoch": epoch}, f)
                        os.kill(os.getpid(), signal.SIGKILL)
                extra = {"on_model_save": kill}
            else:
                seen = result.setdefault("threads", [])
                extra = {"on_train_epoch_start": lambda trainer: seen.append(torch.get_num_threads())}
            real_train = recipe.train
            recipe.train = lambda rec, data, run_dir, callbacks=None, real_train=real_train, extra=extra: \
                real_train(rec, data, run_dir, extra)
            result["steps"].append(cli.main(step[1]))
        elif kind == "import":
            if spec["mode"] == "raw":
                import ultralytics
            else:
                from vision.train import offline
                offline.import_ultralytics(step[1])
            result["steps"].append("imported")
        elif kind == "val":
            from ultralytics import YOLO
            m = YOLO(step[1]).val(data=step[2], imgsz=step[3], batch=4, plots=False, verbose=False)
            result["steps"].append({"map50": float(m.box.map50), "map": float(m.box.map)})
        elif kind == "predict":
            from ultralytics import YOLO
            r = YOLO(step[1]).predict(step[2], imgsz=step[3], conf=0.001, verbose=False)
            result["steps"].append({"results": len(r), "boxes": len(r[0].boxes), "shape": list(r[0].orig_shape)})
        elif kind == "probe":
            try:
                socket.getaddrinfo("example.org", 443)
                result["steps"].append("resolved")
            except OSError:
                result["steps"].append("refused")
finally:
    with open(spec["out"], "w") as f:
        json.dump({**result, "attempts": attempts}, f)
'''


def drive(tmp: Path, steps: list, mode: str = "offline", timeout: float = 240) -> dict:
    """Run ``steps`` in a fresh interpreter with the network hook; returns its result (steps, attempts)."""
    out = tmp / f"driver-{len(list(tmp.glob('driver-*.json')))}.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_CURRENT_TEST", "YOLO_OFFLINE", "YOLO_CONFIG_DIR")}
    env["PYTHONPATH"] = str(REPO)
    spec = {"out": str(out), "mode": mode, "steps": steps}
    proc = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(spec)], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert out.exists(), f"driver wrote no result (rc {proc.returncode}):\n{proc.stderr[-3000:]}"
    result = json.loads(out.read_text())
    result["returncode"] = proc.returncode
    result["stderr"] = proc.stderr
    result["stdout"] = proc.stdout
    return result


def first_image(folder: Path) -> Path:
    return sorted(folder.glob("*.jpg"))[0]


@pytest.fixture(scope="module")
def detect_run(tmp_path_factory):
    """A tiny detector run: 10 rendered 96-px scenes, 1 epoch at 64 px, validated, predicted, exported."""
    tmp = tmp_path_factory.mktemp("train")
    run = tmp / "runs" / "tiny-detect"
    argv = ["detect", "--deck", "hanafuda", "--render", "10", "--seed", "0", "--size", "96",
            "--imgsz", "64", "--epochs", "1", "--batch", "4", "--out", str(run)]
    data = run / "data" / "synth" / "data.yaml"
    image = run / "data" / "synth" / "images" / "val" / "000000008.jpg"
    steps = [["cli", argv], ["val", str(run / "weights" / "best.pt"), str(data), 64],
             ["predict", str(run / "weights" / "best.pt"), str(image), 64],
             ["cli", ["export", str(run), "--format", "onnx"]],
             ["cli", ["export", str(run), "--format", "openvino"]]]
    return {"run": run, "argv": argv, "result": drive(tmp, steps)}


def test_hook_sees_ultralytics_reach_for_the_network_without_the_offline_setup(tmp_path):
    # The proof below is only worth something if the hook catches what ultralytics does on its own.
    raw = drive(tmp_path, [["probe"], ["import"]], mode="raw")
    assert raw["steps"] == ["refused", "imported"], raw["stderr"][-2000:]
    events = [a[0] for a in raw["attempts"]]
    assert events[0] == "socket.getaddrinfo" and "example.org" in raw["attempts"][0][1]
    assert len(events) > 1, "import ultralytics made no lookup: the hook would prove nothing"


def test_offline_import_makes_no_attempt_and_owns_its_config(tmp_path):
    cfg = tmp_path / "cfg"
    r = drive(tmp_path, [["import", str(cfg)]])
    assert r["steps"] == ["imported"] and r["attempts"] == [], r["stderr"][-2000:]
    settings = json.loads((cfg / "Ultralytics" / "settings.json").read_text())
    assert settings["sync"] is False and settings["api_key"] == ""
    for font in ("Arial.ttf", "Arial.Unicode.ttf"):
        assert (cfg / "Ultralytics" / font).stat().st_size > 100_000  # DejaVuSans, not an empty stand-in


def test_tiny_detector_end_to_end_makes_no_network_attempt(detect_run):
    r, run = detect_run["result"], detect_run["run"]
    assert r["returncode"] == 0, r["stderr"][-3000:]
    assert r["attempts"] == []
    train_rc, val, pred, onnx_rc, ov_rc = r["steps"]
    assert (train_rc, onnx_rc, ov_rc) == (0, 0, 0)
    assert 0.0 <= val["map50"] <= 1.0 and 0.0 <= val["map"] <= val["map50"]
    assert pred["results"] == 1 and pred["shape"] == [96, 96]
    weights = run / "weights"
    for f in ("best.pt", "last.pt", "best.onnx"):
        assert (weights / f).is_file()
    assert (weights / "best_openvino_model" / "best.xml").is_file()
    rows = list(csv.DictReader((run / "results.csv").read_text().splitlines()))
    assert len(rows) == 1 and "metrics/mAP50(B)" in {k.strip() for k in rows[0]}
    assert (run / "ultralytics-config" / "Ultralytics" / "Arial.ttf").is_file()


def test_onnx_export_runs_in_onnxruntime(detect_run):
    run = detect_run["run"]
    session = ort.InferenceSession(str(run / "weights" / "best.onnx"), providers=["CPUExecutionProvider"])
    (inp,) = session.get_inputs()
    assert inp.shape == [1, 3, 64, 64]
    image = np.random.default_rng(0).random((1, 3, 64, 64), dtype=np.float32)
    (out,) = session.run(None, {inp.name: image})
    # 4 box coordinates + 2 classes (card, back) for each of 8² + 4² + 2² anchor cells at strides 8, 16, 32.
    assert out.shape == (1, 4 + 2, 84) and np.isfinite(out).all()


def test_config_json_records_the_exact_run(detect_run):
    run, argv = detect_run["run"], detect_run["argv"]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["command"]["argv"] == argv
    assert cfg["versions"]["ultralytics"] == metadata.version("ultralytics")
    assert cfg["versions"]["torch"] == metadata.version("torch")
    assert len(cfg["versions"]["fudaba"]["commit"] or "") == 40
    spec = cfg["dataset"]["synth"]["spec"]
    assert (spec["deck"], spec["seed"], spec["count"], spec["size"], spec["classes"]) == \
        ("hanafuda", 0, 10, [96, 96], "card")
    assert cfg["dataset"]["synth"]["counts"]["train"]["images"] == 8
    assert cfg["recipe"] == {**cfg["recipe"], "task": "detect", "imgsz": 64, "epochs": 1, "batch": 4,
                             "device": "cpu", "model": "yolo11n.yaml", "fliplr": 0.0}
    args = cfg["train_args"]
    assert args["project"] == str(run.parent.resolve()) and args["name"] == run.name
    assert Path(args["data"]).is_absolute() and Path(args["data"]).is_file()
    assert cfg["resumes"] == []


def test_a_new_run_starts_from_an_earlier_runs_weights(detect_run, tmp_path):
    first = detect_run["run"]
    run = tmp_path / "runs" / "continued"
    argv = ["detect", "--deck", "hanafuda", "--data", str(first / "data" / "synth"),
            "--weights", str(first / "weights" / "best.pt"), "--imgsz", "64", "--epochs", "1", "--batch", "4",
            "--no-plots", "--out", str(run)]
    r = drive(tmp_path, [["cli", argv]])
    assert r["steps"] == [0] and r["attempts"] == [], r["stderr"][-3000:]
    log = r["stdout"] + r["stderr"]
    assert "Transferred" in log and "from pretrained weights" in log
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["recipe"]["model"] == str((first / "weights" / "best.pt").resolve())
    assert cfg["dataset"]["source"] == "given" and cfg["dataset"]["synth"]["spec"]["seed"] == 0
    assert (run / "weights" / "best.pt").is_file()


def _train_from_detector_and_ship(detect_run, tmp_path, task: str):
    """Trains a one-epoch ``task`` (obb) run seeded from the tiny detector, ships it into a
    models folder; returns (the models folder, the run's train label lines)."""
    first = detect_run["run"]
    run, models = tmp_path / "runs" / f"tiny-{task}", tmp_path / "models"
    argv = [task, "--deck", "hanafuda", "--render", "10", "--seed", "0", "--size", "96",
            "--weights", str(first / "weights" / "best.pt"), "--imgsz", "64", "--epochs", "1", "--batch", "4",
            "--no-plots", "--out", str(run)]
    r = drive(tmp_path, [["cli", argv], ["cli", ["ship", str(run), "--deck", "hanafuda", "--models", str(models)]]])
    assert r["steps"] == [0, 0] and r["attempts"] == [], r["stderr"][-3000:]
    log = r["stdout"] + r["stderr"]
    assert "Transferred" in log and "from pretrained weights" in log
    lines = [line for f in sorted((run / "data" / "synth" / "labels" / "train").glob("*.txt"))
             for line in f.read_text().splitlines()]
    return models, lines


def test_an_oriented_detector_starts_from_a_detectors_weights_and_ships(detect_run, tmp_path):
    models, lines = _train_from_detector_and_ship(detect_run, tmp_path, "obb")
    assert lines and all(len(line.split()) == 9 for line in lines)
    entry = json.loads((models / "hanafuda" / "manifest.json").read_text())["detector"]
    assert entry["oriented"] is True and entry["names"] == ["card", "back"]
    session = ort.InferenceSession(str(models / "hanafuda" / "detector.onnx"), providers=["CPUExecutionProvider"])
    image = np.random.default_rng(0).random((2, 3, 96, 128), dtype=np.float32)
    (out,) = session.run(None, {session.get_inputs()[0].name: image})
    # centre, size, 2 class scores and the angle, for each of 12·16 + 6·8 + 3·4 anchor cells
    assert out.shape == (2, 4 + 2 + 1, 252) and np.isfinite(out).all()
    from vision.recognise.detector import decode

    for d in decode(out[0], 1.0, (128, 96), 0.0, 0.7, oriented=True):
        assert d.polygon is not None and len(d.polygon) == 4


def test_classifier_trains_on_rendered_crops_offline(tmp_path):
    run = tmp_path / "tiny-cls"
    argv = ["classify", "--deck", "hanafuda", "--render", "10", "--seed", "0", "--size", "160",
            "--imgsz", "32", "--epochs", "1", "--batch", "8", "--out", str(run)]
    models = tmp_path / "models"
    r = drive(tmp_path, [["cli-threads", argv], ["cli", ["export", str(run), "--format", "onnx"]],
                         ["cli", ["ship", str(run), "--deck", "hanafuda", "--models", str(models)]]])
    assert r["steps"] == [0, 0, 0] and r["attempts"] == [], r["stderr"][-3000:]
    # Every core trains (ultralytics alone would leave one of them idle).
    assert r["threads"] == [os.cpu_count()]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["recipe"]["cpu_threads"] == os.cpu_count()
    assert cfg["recipe"]["model"] == "yolo11n-cls.yaml" and cfg["dataset"]["synth"]["spec"]["classes"] == "recognition"
    names = cfg["dataset"]["synth"]["names"]
    crops = Path(cfg["dataset"]["classify_root"])
    assert sorted(p.name for p in (crops / "val").iterdir()) == sorted(names)  # every class, even if empty
    session = ort.InferenceSession(str(run / "weights" / "best.onnx"), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {session.get_inputs()[0].name: np.zeros((1, 3, 32, 32), np.float32)})
    assert out.shape == (1, len(names))
    # Square classifier crops, both ways up, several per card.
    crop_files = list((crops / "train").glob("*/*.png"))
    assert crop_files and all(f.stem.count("_") == 2 for f in crop_files)
    import cv2
    assert cv2.imread(str(crop_files[0])).shape == (128, 128, 3)
    # Shipped: weights, an ONNX export with a dynamic batch and a second output (the embedding), manifest.
    manifest = json.loads((models / "hanafuda" / "manifest.json").read_text())
    entry = manifest["classifier"]
    assert sorted(entry["names"]) == sorted(names) and entry["side"] == 32 and entry["styles"] == ["mantia"]
    assert (models / "hanafuda" / "classifier.pt").is_file()
    shipped = ort.InferenceSession(str(models / "hanafuda" / "classifier.onnx"), providers=["CPUExecutionProvider"])
    assert [o.name for o in shipped.get_outputs()][1] == "embedding"
    probs, emb = shipped.run(None, {shipped.get_inputs()[0].name: np.random.rand(3, 3, 32, 32).astype(np.float32)})
    assert probs.shape == (3, len(names)) and emb.shape == (3, entry["embedding"])
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4)


def test_killed_run_resumes_from_last_checkpoint(tmp_path):
    run = tmp_path / "runs" / "killed"
    argv = ["detect", "--deck", "hanafuda", "--render", "10", "--seed", "10", "--size", "96",
            "--imgsz", "64", "--epochs", "3", "--batch", "4", "--out", str(run)]
    killed = drive(tmp_path, [["cli-kill", argv, 0]])
    assert killed["returncode"] == -9 and killed["killed_at_epoch"] == 0 and killed["attempts"] == []
    assert len(list(csv.DictReader((run / "results.csv").read_text().splitlines()))) == 1
    again = drive(tmp_path, [["cli", argv]])
    assert again["steps"] == [2], "a second fresh run into a started run directory must be refused"
    resumed = drive(tmp_path, [["cli", ["detect", "--resume", "--out", str(run)]]])
    assert resumed["steps"] == [0] and resumed["attempts"] == [], resumed["stderr"][-3000:]
    epochs = [int(row["epoch"]) for row in csv.DictReader((run / "results.csv").read_text().splitlines())]
    assert epochs == [1, 2, 3]
    cfg = json.loads((run / "config.json").read_text())
    assert [r["argv"] for r in cfg["resumes"]] == [["detect", "--resume", "--out", str(run)]]
    assert cfg["command"]["argv"] == argv
    wrong = drive(tmp_path, [["cli", ["classify", "--resume", "--out", str(run)]]])
    assert wrong["steps"] == [2] and "is a detect run" in wrong["stderr"]
    finished = drive(tmp_path, [["cli", ["detect", "--resume", "--out", str(run)]]])
    assert finished["steps"] == [2] and "best.pt" in finished["stderr"]
    assert len(json.loads((run / "config.json").read_text())["resumes"]) == 1  # a refused resume is no resume


def test_real_photos_merge_into_a_playing_card_detector_offline(tmp_path):
    real = REPO.parent / "shared" / "datasets" / "playing-real"
    if not real.is_dir():
        pytest.skip("shared/datasets/playing-real is not beside this checkout")
    small = tmp_path / "playing-real-3"  # three photos keep the test short; the layout is the real one
    for kind in ("images", "labels"):
        (small / kind / "train").mkdir(parents=True)
    (small / "data.yaml").symlink_to(real / "data.yaml")
    for img in sorted((real / "images" / "train").glob("*.jpg"))[:3]:
        (small / "images" / "train" / img.name).symlink_to(img)
        (small / "labels" / "train" / f"{img.stem}.txt").symlink_to(real / "labels" / "train" / f"{img.stem}.txt")
    run = tmp_path / "runs" / "playing"
    argv = ["detect", "--deck", "playing", "--render", "10", "--seed", "0", "--size", "96",
            "--classes", "ids", "--real", str(small), "--imgsz", "64", "--epochs", "1", "--batch", "4",
            "--no-plots", "--out", str(run)]
    r = drive(tmp_path, [["cli", argv]])
    assert r["steps"] == [0] and r["attempts"] == [], r["stderr"][-3000:]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["dataset"]["real"]["images"] == 3 and cfg["dataset"]["real"]["labels"] > 0
    import yaml

    doc = yaml.safe_load((run / "data" / "data.yaml").read_text())
    assert doc["train"][-1] == str(run / "data" / "real" / "images" / "train")
    assert doc["val"] == [str(run / "data" / "synth" / "images" / "val")]  # real val photos stay out
    # ultralytics read the relabelled copies beside the links (its cache lands there), not shared/'s labels.
    assert (run / "data" / "real" / "labels" / "train.cache").is_file()
    assert not (real / "labels" / "train.cache").exists()
