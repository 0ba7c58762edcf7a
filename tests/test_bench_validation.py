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
    from vision.recognise.calibrate import val_seeds
    for first in (validation.ANY_VIEW_SEED, validation.TOPDOWN_SEED):
        seeds = val_seeds(first, 50)
        assert all(s % 10 == 8 for s in seeds) and len(set(seeds)) == 50
