"""Shared by the benches that choose a recognition setting on rendered validation scenes.

Validation scenes have seeds ≡ 8 (mod 10): never trained on, never a test scene. Each scene is
rendered once and recognised under every variant of a setting; a card the detector misses counts
as wrong (:mod:`vision.recognise.evaluate`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from pathlib import Path

from vision.recognise import Recogniser
from vision.recognise.confidence import val_seeds
from vision.recognise.evaluate import SEEN_ENOUGH, accuracy, outcomes, render_scenes, unmatched
from vision.synth.fixed_scenes import topdown_scene

REPO = Path(__file__).resolve().parents[1]
ANY_VIEW_SEED = 3_000_000
"""First seed of the any-view 640 × 640 validation scenes (seeds ≡ 8 mod 10 from here)."""
TOPDOWN_SEED = 3_100_000
"""First seed of the top-down 1280 × 720 validation frames."""


class Outcomes(list):
    """The outcomes of every true card of some scenes, and ``extra``: the recognised cards no true card
    claimed (:func:`vision.recognise.evaluate.unmatched`)."""

    extra: int = 0


def measured(styles: tuple[str, ...], deck: str, variants: dict[Hashable, Callable[[], Recogniser]], seeds,
             art_dir: str, size: tuple[int, int], scene=None) -> dict:
    """Variant → :class:`Outcomes` of the scenes ``seeds`` (drawn in ``styles``), recognised by the
    recogniser ``variants[v]()`` returns (set up for that variant)."""
    items: dict = {v: Outcomes() for v in variants}
    for image, labels in render_scenes(deck, styles, seeds, art_dir, size, scene):
        for v, use in variants.items():
            cards = use().recognise(image)
            items[v] += outcomes(labels, cards)
            items[v].extra += unmatched(labels, cards)
    return items


def variants_measured(styles: tuple[str, ...], deck: str, variants: dict, scenes: int, frames: int,
                      art_dir: str) -> tuple[dict, dict]:
    """(any-view outcomes, top-down outcomes) per variant, on ``scenes`` and ``frames`` validation scenes."""
    any_view = measured(styles, deck, variants, val_seeds(ANY_VIEW_SEED, scenes), art_dir, (640, 640))
    topdown = measured(styles, deck, variants, val_seeds(TOPDOWN_SEED, frames), art_dir, (1280, 720), topdown_scene)
    return any_view, topdown


def summary(items: list) -> dict:
    """Cards named right of those fully visible and of those seen ≥ 40 %, and the detector's share found."""
    full, part = accuracy(items, 1.0), accuracy(items, SEEN_ENOUGH)
    return {"fully_visible": [full["correct"], full["cards"]], "visible_40": [part["correct"], part["cards"]],
            "found_40": round(float(part["detection_recall"]), 4)}


MARGIN = 0.0025
"""Least gain, as a share of the cards seen ≥ 40 %, for a setting or model to pass against another."""


def passes(base: dict, candidate: dict) -> bool:
    """The rule that chooses: whether ``candidate``'s counts (:func:`summary` over both kinds of scene)
    name at least :data:`MARGIN` of the cards seen ≥ 40 % more right than ``base``'s, with no fewer
    fully visible cards named right."""
    need = base["visible_40"][0] + MARGIN * base["visible_40"][1]
    return candidate["visible_40"][0] >= need and candidate["fully_visible"][0] >= base["fully_visible"][0]


HOLD_TOLERANCE = 0.001
"""Most cards seen ≥ 40 % a setting meant to change no answers may name wrong beyond the one it
replaces, as a share of those cards."""


def holds(base: dict, candidate: dict, tolerance: float = HOLD_TOLERANCE) -> bool:
    """The rule for a setting not meant to change answers (speed, duplicates): whether ``candidate``'s
    counts (:func:`summary` over both kinds of scene) lose no more than ``tolerance`` of the cards
    seen ≥ 40 % and one fully visible card against ``base``'s."""
    return (candidate["visible_40"][0] >= base["visible_40"][0] - tolerance * base["visible_40"][1]
            and candidate["fully_visible"][0] >= base["fully_visible"][0] - 1)


def rows_of(variants, any_view: dict, topdown: dict, label: Callable[[Hashable], str]) -> dict:
    """Variant → {any_view, topdown, both} summaries, each printed on a line that starts with ``label(v)``."""
    rows = {}
    for v in variants:
        a, t, both = summary(any_view[v]), summary(topdown[v]), summary(any_view[v] + topdown[v])
        a["extra_boxes"], t["extra_boxes"] = any_view[v].extra, topdown[v].extra
        both["extra_boxes"] = a["extra_boxes"] + t["extra_boxes"]
        rows[v] = {"any_view": a, "topdown": t, "both": both}
        print(f"  {label(v)}: any view {a['fully_visible'][0]}/{a['fully_visible'][1]} fully visible, "
              f"{a['visible_40'][0]}/{a['visible_40'][1]} seen >=40 % (found {a['found_40']:.3f}); top-down "
              f"{t['fully_visible'][0]}/{t['fully_visible'][1]}, {t['visible_40'][0]}/{t['visible_40'][1]} "
              f"(found {t['found_40']:.3f}); together {both['visible_40'][0]}/{both['visible_40'][1]}"
              f"; boxes no card claims {both['extra_boxes']}")
    return rows


def add_scene_arguments(ap, json_name: str, timed: str) -> None:
    """The arguments of a bench that measures on validation scenes and times the speed frame:
    scenes, frames, repeats (timed frames per ``timed``), speed-frame seed, art, and the JSON
    written (``bench/out/<json_name>``)."""
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--repeats", type=int, default=20, help=f"timed frames per {timed}")
    ap.add_argument("--seed", type=int, default=700000, help="first seed of bench/recognition.py's speed frame")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / json_name))


def add_setting_arguments(ap, json_name: str, timed: str) -> None:
    """The arguments of a bench that chooses a setting for both decks: decks, models, real
    photographs, and those of :func:`add_scene_arguments`."""
    ap.add_argument("--decks", default="hanafuda,playing")
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--real", default=str(REPO.parent / "shared" / "datasets" / "playing-real"))
    add_scene_arguments(ap, json_name, timed)


def write(out: dict, path: Path) -> None:
    """Write a bench's figures as JSON to ``path`` (folders made as needed) and say where."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"  written {path}")
