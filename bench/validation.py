"""Shared by the benches that choose a recognition setting on rendered validation scenes.

Validation scenes have seeds ≡ 8 (mod 10): never trained on, never a test scene. Each scene is
rendered once and recognised under every variant of a setting; a card the detector misses counts
as wrong (:mod:`vision.recognise.evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path

from vision.recognise import Recogniser
from vision.recognise.calibrate import val_seeds
from vision.recognise.evaluate import SEEN_ENOUGH, accuracy, outcomes, render_scenes
from vision.synth.fixed_scenes import topdown_scene

REPO = Path(__file__).resolve().parents[1]
ANY_VIEW_SEED = 3_000_000
"""First seed of the any-view 640 × 640 validation scenes (seeds ≡ 8 mod 10 from here)."""
TOPDOWN_SEED = 3_100_000
"""First seed of the top-down 1280 × 720 validation frames."""


def measured(styles: tuple[str, ...], deck: str, variants: dict[Hashable, Callable[[], Recogniser]], seeds,
             art_dir: str, size: tuple[int, int], scene=None) -> dict:
    """Variant → outcomes of every card of the scenes ``seeds`` (drawn in ``styles``), recognised by
    the recogniser ``variants[v]()`` returns (set up for that variant)."""
    items: dict = {v: [] for v in variants}
    for image, labels in render_scenes(deck, styles, seeds, art_dir, size, scene):
        for v, use in variants.items():
            items[v] += outcomes(labels, use().recognise(image))
    return items


def variants_measured(styles: tuple[str, ...], deck: str, variants: dict, scenes: int, frames: int,
                      art_dir: str) -> tuple[dict, dict]:
    """(any-view outcomes, top-down outcomes) per variant, on ``scenes`` and ``frames`` validation scenes."""
    any_view = measured(styles, deck, variants, val_seeds(ANY_VIEW_SEED, scenes), art_dir, (640, 640))
    topdown = measured(styles, deck, variants, val_seeds(TOPDOWN_SEED, frames), art_dir, (1280, 720), topdown_scene)
    return any_view, topdown


def training_styles(rec: Recogniser) -> tuple[str, ...]:
    """The art styles the recogniser's classifier was trained on (its manifest's)."""
    return tuple(rec.manifest.classifier.get("styles") or ())


def summary(items: list) -> dict:
    """Cards named right of those fully visible and of those seen ≥ 40 %, and the detector's share found."""
    full, part = accuracy(items, 1.0), accuracy(items, SEEN_ENOUGH)
    return {"fully_visible": [full["correct"], full["cards"]], "visible_40": [part["correct"], part["cards"]],
            "found_40": round(float(part["detection_recall"]), 4)}
