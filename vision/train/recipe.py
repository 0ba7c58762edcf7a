"""The training recipe: which model, which hyper-parameters, and how a run trains, resumes and exports.

A run lives in one directory (``--out runs/NAME``): ultralytics writes ``weights/last.pt`` and
``weights/best.pt``, ``results.csv`` (one row per epoch: losses, precision, recall, mAP50, mAP50-95 or
top-1/top-5 accuracy) and ``args.yaml`` there; this recipe adds ``config.json`` (:mod:`vision.train.record`),
``data/`` (:mod:`vision.train.datasets`) and ``ultralytics-config/`` (settings and fonts, kept out of the
user's home: :mod:`vision.train.offline`). Exports are written next to the weights (``best.onnx``,
``best_openvino_model/``).

Models are built from ultralytics' packaged YAMLs (random initialisation: no pretrained weights can be
downloaded here) or from a checkpoint of an earlier run (``weights``). Resuming continues ``last.pt``
with the hyper-parameters stored in it; to train past the planned epochs, start a new run from
``best.pt`` instead (ultralytics refuses to resume a finished run).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from vision.train import offline, record

TASKS = ("detect", "obb", "classify")
MODEL_YAML = {"detect": "yolo11n.yaml", "obb": "yolo11n-obb.yaml", "classify": "yolo11n-cls.yaml"}
"""The packaged architecture per task (nano: ≈ 0.25 s per image per epoch at 320 px on 2 CPU cores)."""

CLASSIFY_ARGS = {"scale": 0.25, "warmup_epochs": 0.5, "optimizer": "AdamW", "lr0": 0.001}
"""Classify: crops already hold the whole face, so random crops keep 75-100 % of it (``scale``;
ultralytics' default keeps 50-100 %). Runs here are a few epochs over many crops, trained from
scratch: a short warm-up, and AdamW at 0.001 (ultralytics' automatic choice, 0.002 × 5 / (4 + classes),
is meant for fine-tuning pretrained weights and barely moves a random network in a few epochs)."""

EXPORT_FORMATS = ("onnx", "openvino")
CONFIG_DIR = "ultralytics-config"


@dataclass(frozen=True, slots=True)
class Recipe:
    """Hyper-parameters of one training run (ultralytics' defaults for everything not named here)."""

    task: str
    """``detect``, ``obb`` or ``classify``."""
    imgsz: int = 320
    """Network input side (px)."""
    epochs: int = 100
    batch: int = 16
    hours: float | None = None
    """Time budget (hours); ultralytics fits the epoch count and schedule to it after the first epoch."""
    seed: int = 0
    """Training seed (weight init, shuffling, augmentation); runs are deterministic per seed and device."""
    device: str = "cpu"
    """``cpu`` or a CUDA index such as ``0``."""
    workers: int = 0
    """Data-loader processes; on 2 CPU cores they only compete with the model for the cores."""
    patience: int = 50
    """Stop after this many epochs without a better validation fitness."""
    fliplr: float = 0.0
    """Mirror augmentation probability: 0, because a mirrored card face is no real card."""
    plots: bool = True
    weights: str | None = None
    """Start from this checkpoint (``.pt`` of an earlier run) instead of a random initialisation."""
    lr0: float | None = None
    """Initial learning rate; None: :data:`CLASSIFY_ARGS`' 0.001 for classify, ultralytics' own
    choice otherwise. A lower one fine-tunes a trained checkpoint without first undoing it."""
    threads: int | None = None
    """PyTorch CPU threads; None: one per core. (ultralytics' own choice is one fewer than the cores,
    which on a 2-core machine trains on one of them.)"""

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; expected one of {', '.join(TASKS)}")
        if self.imgsz < 32 or self.imgsz % 32:
            raise ValueError(f"--imgsz must be a multiple of 32, at least 32 (got {self.imgsz})")
        if self.epochs < 1 or self.batch < 1:
            raise ValueError("--epochs and --batch must be at least 1")
        if self.hours is not None and self.hours <= 0:
            raise ValueError("--time must be positive (hours)")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"--threads must be at least 1 (got {self.threads})")
        if self.lr0 is not None and not 0 < self.lr0 < 1:
            raise ValueError(f"--lr0 must be between 0 and 1 (got {self.lr0})")
        if self.weights is not None and not Path(self.weights).is_file():
            # ultralytics would take a bare name like 'yolo11n.pt' as a download request.
            raise ValueError(f"--weights {self.weights!r} is not a file")

    @property
    def model_source(self) -> str:
        """What ``YOLO(...)`` is built from: a checkpoint file or the packaged YAML."""
        return str(Path(self.weights).resolve()) if self.weights else MODEL_YAML[self.task]

    def train_args(self, data: str, run_dir: Path) -> dict:
        """The keyword arguments for ``YOLO.train`` (absolute paths; the run lands exactly in ``run_dir``)."""
        run_dir = run_dir.resolve()
        args = {
            "data": data, "epochs": self.epochs, "imgsz": self.imgsz, "batch": self.batch,
            "device": self.device, "workers": self.workers, "seed": self.seed, "deterministic": True,
            "patience": self.patience, "fliplr": self.fliplr, "plots": self.plots,
            "project": str(run_dir.parent), "name": run_dir.name, "exist_ok": True,
        }
        if self.hours is not None:
            args["time"] = self.hours
        if self.task == "classify":
            args.update(CLASSIFY_ARGS)
        if self.lr0 is not None:
            args["lr0"] = self.lr0
            args.setdefault("optimizer", "AdamW")  # ultralytics' "auto" optimizer ignores lr0
        return args

    def as_dict(self) -> dict:
        """The fields, plus the model source and the CPU threads it trains with, for ``config.json``."""
        return {**asdict(self), "model": self.model_source, "cpu_threads": cpu_threads(self.threads)}


def default_device() -> str:
    """``0`` when a CUDA GPU is visible, else ``cpu``."""
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


Callbacks = Mapping[str, Callable]
"""Extra ultralytics callbacks by event name (``on_model_save``, ``on_fit_epoch_end`` …)."""


def cpu_threads(threads: int | None) -> int:
    """The CPU threads a run trains with: ``threads``, or one per core when None."""
    return threads if threads is not None else max(1, os.cpu_count() or 1)


def _yolo(source: str, run_dir: Path, callbacks: Callbacks | None, threads: int | None = None):
    ultralytics = offline.import_ultralytics(run_dir / CONFIG_DIR)
    # ultralytics sets torch's thread count from this module constant when it picks the CPU device.
    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = cpu_threads(threads)
    model = ultralytics.YOLO(source)
    for event, fn in (callbacks or {}).items():
        model.add_callback(event, fn)
    return model


def train(recipe: Recipe, data: str, run_dir: Path, callbacks: Callbacks | None = None):
    """Train a new run into ``run_dir`` (``config.json`` must already be written); returns the trainer's metrics.

    ``weights`` of another task (a detector's checkpoint for an OBB run) seed the packaged
    model of this task with every layer whose name and shape agree (backbone, neck, box and class
    branches); the rest (the OBB angle branch, class layers of another class count)
    start at random."""
    model = _yolo(recipe.model_source, run_dir, callbacks, recipe.threads)
    if recipe.weights and model.task != recipe.task:
        model = _yolo(MODEL_YAML[recipe.task], run_dir, callbacks, recipe.threads).load(recipe.model_source)
    model.train(**recipe.train_args(data, run_dir))
    return model.trainer.metrics


def last_checkpoint(run_dir: Path) -> Path:
    """``run_dir/weights/last.pt``; ValueError if there is none."""
    last = run_dir / "weights" / "last.pt"
    if not last.is_file():
        raise ValueError(f"nothing to resume: {last} does not exist")
    return last


def resume(run_dir: Path, callbacks: Callbacks | None = None, hours: float | None = None):
    """Continue an interrupted run from ``last.pt`` (same data, hyper-parameters, epoch plan); returns metrics.

    ``hours`` replaces the time budget (ultralytics lets a resume change it). ValueError when the run had
    already finished: start a new run with ``weights=best.pt`` to train further.
    """
    last = resumable_checkpoint(run_dir)
    config = record.read_config(run_dir)
    model = _yolo(str(last), run_dir, callbacks, config["recipe"].get("threads"))
    extra = {"time": hours} if hours is not None else {}
    # The dataset named explicitly, so a checkpoint can never send ultralytics looking for another.
    data = config["train_args"]["data"]
    model.train(resume=True, data=data, **extra)
    return model.trainer.metrics


def resumable_checkpoint(run_dir: Path) -> Path:
    """``last.pt`` of an interrupted run; ValueError if it is missing or the run has finished."""
    last = last_checkpoint(run_dir)
    offline.import_ultralytics(run_dir / CONFIG_DIR)  # unpickling a checkpoint imports ultralytics
    if checkpoint_epoch(last) < 0:
        # A finished run's last.pt is stripped of its optimizer and training arguments: ultralytics
        # would fall back to its default dataset (a download) before noticing there is nothing to do.
        raise ValueError(f"{run_dir} finished its planned epochs; train further with a new run "
                         f"--weights {run_dir / 'weights' / 'best.pt'}")
    return last


def checkpoint_epoch(path: Path) -> int:
    """The 0-based epoch a checkpoint was saved after; -1 for a finished (optimizer-stripped) one."""
    import torch

    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    return int(ckpt.get("epoch", -1)) if ckpt.get("optimizer") is not None else -1


def best_weights(run_dir: Path) -> Path:
    """``best.pt`` of a run, else ``last.pt``; ValueError if it has neither."""
    for name in ("best.pt", "last.pt"):
        p = run_dir / "weights" / name
        if p.is_file():
            return p
    raise ValueError(f"{run_dir} has no weights/best.pt or weights/last.pt")


def export(run_dir: Path, fmt: str, imgsz: int) -> Path:
    """Export a run's best weights to ``fmt`` (``onnx``/``openvino``) at ``imgsz``, next to them; returns the path."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    model = _yolo(str(best_weights(run_dir)), run_dir, None)
    return Path(model.export(format=fmt, imgsz=imgsz, device="cpu"))
