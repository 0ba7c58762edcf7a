"""The training recipe's arguments to ultralytics (no training here: runs without the train extra)."""

from __future__ import annotations

import pytest

from vision.train.recipe import CLASSIFY_ARGS, Recipe


def test_classify_runs_take_the_recipes_learning_rate_unless_one_is_given(tmp_path):
    assert Recipe("classify").train_args("data", tmp_path / "run")["lr0"] == CLASSIFY_ARGS["lr0"]
    gentle = Recipe("classify", lr0=0.0002).train_args("data", tmp_path / "run")
    assert gentle["lr0"] == 0.0002 and gentle["optimizer"] == "AdamW"


def test_a_detector_keeps_ultralytics_learning_rate_unless_one_is_given(tmp_path):
    assert "lr0" not in Recipe("detect").train_args("data", tmp_path / "run")
    args = Recipe("detect", lr0=0.002).train_args("data", tmp_path / "run")
    assert args["lr0"] == 0.002 and args["optimizer"] == "AdamW"  # "auto" would ignore lr0


@pytest.mark.parametrize("lr0", [0.0, -0.1, 1.5])
def test_a_learning_rate_out_of_range_is_refused(lr0):
    with pytest.raises(ValueError, match="--lr0"):
        Recipe("classify", lr0=lr0)


def test_a_run_trains_on_every_core_unless_told_otherwise(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert Recipe("classify").as_dict()["cpu_threads"] == 4
    assert Recipe("classify", threads=1).as_dict()["cpu_threads"] == 1
    with pytest.raises(ValueError, match="--threads"):
        Recipe("classify", threads=0)
