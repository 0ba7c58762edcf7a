"""``config.json``: the exact configuration a run trained with, written into its run directory.

Keys: ``command`` (argv as given, and the working directory), ``started`` (UTC, ISO 8601), ``versions``
(Python, fudaba's git commit and whether the tree was dirty, and every package that shapes the
result), ``dataset`` (what was rendered — deck, styles, scene seeds, image size, class scheme, counts —
and the real photos merged in), ``recipe`` (:class:`vision.train.recipe.Recipe` fields) and
``train_args`` (the keyword arguments given to ``YOLO.train``). Every resume appends to ``resumes``
(command and time), so one file tells the whole history of a run.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

PACKAGES = ("ultralytics", "torch", "torchvision", "numpy", "opencv-python", "onnx", "onnxruntime", "openvino")
REPO = Path(__file__).resolve().parents[2]


def now() -> str:
    """Current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def git_state(repo: Path = REPO) -> dict:
    """``{"commit", "dirty"}`` of the fudaba checkout, or nulls outside a git work tree."""
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True, timeout=10).stdout.strip()
        status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, check=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(status.strip())}


def versions() -> dict:
    """Python, fudaba (git) and package versions (null for a package that is not installed)."""
    out: dict = {"python": platform.python_version(), "platform": platform.platform(), "fudaba": git_state()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def write_config(run_dir: Path, argv: list[str], dataset: dict, recipe: dict, train_args: dict) -> Path:
    """Write ``run_dir/config.json`` for a new run; returns its path."""
    doc = {
        "command": {"argv": list(argv), "cwd": os.getcwd(), "executable": sys.executable},
        "started": now(),
        "versions": versions(),
        "dataset": dataset,
        "recipe": recipe,
        "train_args": train_args,
        "resumes": [],
    }
    path = run_dir / "config.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    return path


def read_config(run_dir: Path) -> dict:
    """The ``config.json`` of a run; ValueError if the folder is not a run of this recipe."""
    path = run_dir / "config.json"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no config.json: not a vision.train run")
    return json.loads(path.read_text(encoding="utf-8"))


def append_resume(run_dir: Path, argv: list[str], checkpoint: Path) -> dict:
    """Record a resume (command, time, versions, checkpoint) in ``config.json``; returns the new document."""
    doc = read_config(run_dir)
    doc.setdefault("resumes", []).append(
        {"argv": list(argv), "at": now(), "checkpoint": str(checkpoint), "versions": versions()})
    (run_dir / "config.json").write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    return doc
