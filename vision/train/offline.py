"""Make ultralytics run with no network at all: no weights, fonts, hub, AMP check or telemetry.

What reaches for the network, measured here (/work/shared/design/ULTRALYTICS.md), and what stops it:

- ``import ultralytics`` resolves two DNS names to decide whether it is online: ``YOLO_OFFLINE=1``.
- Missing packages would be pip-installed on the fly: ``YOLO_AUTOINSTALL=false``.
- Every ``train()`` looks for ``Arial.ttf`` (``Arial.Unicode.ttf`` for non-ASCII class names) in its
  config dir and downloads it when missing: matplotlib's DejaVuSans is copied there under both names.
  DejaVu has no CJK glyphs, so class names stay ASCII.
- Usage analytics (``settings["sync"]``), the Platform uploader (an API key in the environment or the
  settings) and logger integrations (settings flags) are switched off.
- On CUDA the AMP check downloads ``yolo26n.pt``: it is replaced by one that trusts CUDA AMP.
- OpenVINO conversion sends telemetry through ``openvino_telemetry``; OpenVINO falls back to its own
  no-op stub when that module cannot be imported, which ``sys.modules[...] = None`` arranges.

The settings file, fonts and matplotlib cache live under a project-owned directory (``config_dir``),
never in the user's home. Environment variables are read once, when ultralytics is first imported, so
:func:`import_ultralytics` must run before anything else imports it; a later call in the same process
reuses the directory chosen first and only checks that the fonts are there.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")
"""The font files ultralytics asks for (plots, labels); both are served by DejaVuSans."""

INTEGRATIONS = ("clearml", "comet", "dvc", "hub", "mlflow", "neptune", "raytune", "tensorboard", "wandb")
"""Settings flags of logger integrations; every one is switched off."""


def dejavu_font() -> Path:
    """Matplotlib's bundled DejaVuSans.ttf, found without importing matplotlib (whose cache dir is set later)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("matplotlib is not installed; it comes with the 'train' extra (ultralytics)")
    font = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    if not font.is_file():
        raise RuntimeError(f"matplotlib ships no DejaVuSans.ttf at {font}")
    return font


def install_fonts(settings_dir: Path) -> None:
    """Put the fonts ultralytics looks for into its settings dir (``$YOLO_CONFIG_DIR/Ultralytics``)."""
    settings_dir.mkdir(parents=True, exist_ok=True)
    source = dejavu_font()
    for name in FONT_NAMES:
        target = settings_dir / name
        if not target.is_file() or target.stat().st_size != source.stat().st_size:
            shutil.copyfile(source, target)


def set_environment(config_dir: Path) -> None:
    """The environment ultralytics, matplotlib and OpenVINO read at import time."""
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ["MPLCONFIGDIR"] = str(config_dir / "matplotlib")
    os.environ.pop("ULTRALYTICS_API_KEY", None)
    # A module set to None in sys.modules raises ImportError on import: OpenVINO then uses its stub.
    sys.modules.setdefault("openvino_telemetry", None)


def _offline_check_amp(model) -> bool:
    """AMP on CUDA without the reference-model download; never on CPU/MPS (ultralytics' own rule)."""
    return next(model.parameters()).device.type == "cuda"


def import_ultralytics(config_dir: str | Path) -> ModuleType:
    """Import ultralytics made offline, with its settings under ``config_dir``; returns the module.

    ``config_dir`` becomes ``YOLO_CONFIG_DIR`` (settings in ``config_dir/Ultralytics``) unless ultralytics
    was already imported in this process, in which case the directory chosen then stays in force.
    """
    config_dir = Path(config_dir).resolve()
    if "ultralytics" not in sys.modules:
        set_environment(config_dir)
        install_fonts(config_dir / "Ultralytics")
    elif os.environ.get("YOLO_OFFLINE") != "1":
        raise RuntimeError("ultralytics was imported before vision.train.offline could make it offline")
    import ultralytics
    from ultralytics.engine import trainer
    from ultralytics.utils import SETTINGS, USER_CONFIG_DIR

    install_fonts(Path(USER_CONFIG_DIR))
    off = {"sync": False, "api_key": ""}
    off.update({k: False for k in INTEGRATIONS if k in SETTINGS})
    if any(SETTINGS.get(k) != v for k, v in off.items()):
        SETTINGS.update(off)
    trainer.check_amp = _offline_check_amp
    return ultralytics
