"""Shipping a trained run into ``models/<deck>/``: weights, the ONNX export the recogniser runs, the manifest.

``ship(run, deck, role)`` copies the run's ``best.pt`` to ``models/<deck>/<role>.pt``, exports it
with ultralytics to ONNX with dynamic shapes (any batch; detectors also any input size, a multiple
of 32), and records it in ``manifest.json`` (:mod:`vision.recognise.manifest`). Classifier exports
get a second output, ``embedding`` — the input of the network's last linear layer — which deck
enrolment uses as the card's description. Calibration is written later by ``train calibrate``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from vision.recognise.manifest import file_sha256
from vision.train import recipe, record

ROLES = {"obb": "detector", "classify": "classifier"}
"""Role of a run by its task (the card detector gives rotated rectangles: an OBB run); playing cards
also have ``index_detector`` and ``index_classifier`` (and optionally ``index_rank_classifier`` and
``index_suit_classifier``)."""
INDEX_ROLES = {"detect": "index_detector", "classify": "index_classifier"}
REPO_MODELS = Path(__file__).resolve().parents[2] / "models"
"""Where ``ship`` writes by default: the repository's ``models/``."""
DETECTOR_SIZE = 416
"""Default long side (px) of frames given to the detector."""


def add_embedding_output(path: Path) -> int:
    """Add the last linear layer's input as a second output ``embedding`` of an ONNX classifier; returns its width."""
    import onnx
    from onnx import helper, shape_inference

    model = onnx.load(str(path))
    graph = model.graph
    gemms = [n for n in graph.node if n.op_type in ("Gemm", "MatMul")]
    if not gemms:
        raise ValueError(f"{path}: no linear layer found")
    feature = gemms[-1].input[0]
    inferred = shape_inference.infer_shapes(model)
    width = 0
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        if vi.name == feature:
            dims = vi.type.tensor_type.shape.dim
            width = dims[-1].dim_value if dims else 0
    if width <= 0:
        # The weight of the Gemm tells the width when shape inference cannot.
        init = {i.name: i for i in graph.initializer}
        w = init.get(gemms[-1].input[1])
        if w is None:
            raise ValueError(f"{path}: cannot tell the embedding width")
        width = w.dims[1] if gemms[-1].op_type == "Gemm" and any(
            a.name == "transB" and a.i == 1 for a in gemms[-1].attribute) else w.dims[0]
    identity = helper.make_node("Identity", [feature], ["embedding"], name="embedding_output")
    graph.node.append(identity)
    graph.output.append(helper.make_tensor_value_info("embedding", onnx.TensorProto.FLOAT, ["batch", width]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return int(width)


INDEX_PARTS = ("rank", "suit")
"""What a factor classifier of corner indices reads (``ship --index --part``; :mod:`vision.recognise.index_reader`)."""


def ship(run_dir: Path, deck: str, out: Path | None = None, size: int | None = None, index: bool = False,
         part: str | None = None) -> dict:
    """Ship ``run_dir``'s best weights for ``deck`` (``index``: as a corner-index model; ``part``: as
    its rank or suit classifier, :data:`INDEX_PARTS`); returns the manifest entry written."""
    if part is not None and (not index or part not in INDEX_PARTS):
        raise ValueError(f"--part {part}: only a corner-index classifier (--index) is shipped as the "
                         f"{' or '.join(INDEX_PARTS)} classifier")
    run_dir = run_dir.resolve()
    config = record.read_config(run_dir)
    task = config["recipe"]["task"]
    if index and task not in INDEX_ROLES:
        raise ValueError(f"{run_dir} is a {task} run; corner-index models are detect or classify runs")
    if not index and task not in ROLES:
        raise ValueError(f"{run_dir} is a {task} run; a card detector is an OBB run, a classifier a classify run "
                         "(a detect run ships as the corner-index detector: --index)")
    role = (INDEX_ROLES if index else ROLES)[task]
    if part is not None:
        if task != "classify":
            raise ValueError(f"{run_dir} is a {task} run; an index's {part} is read by a classify run")
        role = f"index_{part}_classifier"
    folder = (out or REPO_MODELS) / deck
    folder.mkdir(parents=True, exist_ok=True)
    best = recipe.best_weights(run_dir)
    imgsz = int(config["recipe"]["imgsz"])
    model = recipe._yolo(str(best), run_dir, None)
    exported = Path(model.export(format="onnx", imgsz=size or imgsz, device="cpu", dynamic=True, simplify=True))
    shutil.copyfile(best, folder / f"{role}.pt")
    onnx_path = folder / f"{role}.onnx"
    shutil.copyfile(exported, onnx_path)
    names = [model.names[i] for i in sorted(model.names)]
    source = {"run": run_dir.name, "argv": config.get("command", {}).get("argv"),
              "git": (config.get("git") or {}).get("commit")}
    if task == "classify":
        width = add_embedding_output(onnx_path)
        synth = (config.get("dataset") or {}).get("synth") or {}
        styles = list((synth.get("spec") or {}).get("styles") or ())
        entry = {"stem": role, "side": imgsz, "names": names, "embedding": width, "sha256": file_sha256(onnx_path),
                 "styles": styles, "source": source}
    else:
        entry = {"stem": role, "size": size or (imgsz if index else DETECTOR_SIZE), "names": names, "conf": 0.3,
                 "iou": 0.7, "trained_at": imgsz, "source": source}
        if task == "obb":
            entry["oriented"] = True  # rotated rectangles (vision.recognise.detector)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {"deck": deck}
    manifest[role] = entry
    if role == "classifier":
        manifest.pop("calibration", None)  # a new classifier needs a new calibration
    if index:
        manifest.pop("index", None)  # new index models need new thresholds (train index-tune)
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return entry
