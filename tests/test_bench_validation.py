"""The rule the validation benches choose settings and models by (bench/validation.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("cv2")

_spec = importlib.util.spec_from_file_location(
    "bench_validation", Path(__file__).resolve().parents[1] / "bench" / "validation.py")
validation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(validation)


def counts(full: int, seen: int) -> dict:
    return {"fully_visible": [full, 100], "visible_40": [seen, 4000], "found_40": 0.99}


def test_a_candidate_passes_only_with_a_quarter_point_more_and_no_fully_visible_card_lost():
    base = counts(99, 3800)
    assert validation.passes(base, counts(99, 3810))  # 10 of 4,000 = 0.25 %
    assert not validation.passes(base, counts(99, 3809))
    assert not validation.passes(base, counts(98, 3900)), "a fully visible card lost is never paid for"
    assert validation.passes(base, counts(100, 3850))


def test_validation_scenes_are_never_test_or_training_scenes():
    from vision.recognise.confidence import val_seeds
    for first in (validation.ANY_VIEW_SEED, validation.TOPDOWN_SEED):
        seeds = val_seeds(first, 50)
        assert all(s % 10 == 8 for s in seeds) and len(set(seeds)) == 50


def test_a_setting_meant_to_change_no_answers_holds_only_within_a_tenth_of_a_point():
    base = counts(99, 3800)
    assert validation.holds(base, counts(99, 3796))  # 4 of 4,000 = 0.1 %
    assert not validation.holds(base, counts(99, 3795))
    assert validation.holds(base, counts(98, 3800)) and not validation.holds(base, counts(97, 3800))


def _bench(name: str):
    import sys
    bench = Path(__file__).resolve().parents[1] / "bench"
    sys.path.insert(0, str(bench))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", bench / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(bench))


def test_detector_views_keeps_one_of_each_only_when_it_removes_duplicates_and_loses_nothing():
    views = _bench("detector_views")

    def row(full, seen, extra):
        return {"both": {**counts(full, seen), "extra_boxes": extra}}

    rows = {"shipped": row(99, 3800, 400), "once": row(99, 3797, 280), "fuse": row(99, 3790, 400),
            "mirror": row(99, 3830, 800), "mirror+fuse": row(99, 3820, 420),
            "fuse+once": row(99, 3790, 280), "mirror+once": row(99, 3812, 300), "mirror+fuse+once": row(99, 3808, 290)}
    # once: 3 cards lost (within 4), 280 boxes left of 400 (at most 300): adopted; then mirror+once
    # (15 more, 10 needed; 300 boxes, at most 308) before mirror+fuse+once (11 more, 290)
    assert views.chosen(rows) == ("once", ["mirror+once", "mirror+fuse+once"])
    rows["once"] = row(99, 3797, 320)  # removes too few duplicates: the views are judged without it
    assert views.chosen(rows) == ("shipped", ["mirror+fuse"])  # mirror alone doubles the boxes no card claims


_speed_spec = importlib.util.spec_from_file_location(
    "bench_index_speed", Path(__file__).resolve().parents[1] / "bench" / "index_speed.py")


def _index_speed():
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    mod = importlib.util.module_from_spec(_speed_spec)
    _speed_spec.loader.exec_module(mod)
    return mod


def test_the_speed_rule_ships_the_best_held_out_f1_of_the_readers_that_fit_the_budget():
    speed = _index_speed()
    budget = speed.BUDGET_MS
    rows = {"A": {"median_ms": budget + 20, "held_out_f1": 0.99},
            "B": {"median_ms": budget - 1, "held_out_f1": 0.97},
            "C": {"median_ms": budget, "held_out_f1": 0.98},
            "D": {"median_ms": budget - 9, "held_out_f1": 0.98},
            "E": {"median_ms": budget - 12, "held_out_f1": 0.96}}
    assert speed.choose(rows) == "C", "the best F1 that fits; a tie goes to the earlier candidate"
    rows["C"]["median_ms"] = budget + 0.1
    assert speed.choose(rows) == "D"
    none_fit = {n: {"median_ms": budget + k, "held_out_f1": 0.9} for k, n in enumerate("ABCDE", 1)}
    assert speed.choose(none_fit) == "A", "when none fits, the fastest"
