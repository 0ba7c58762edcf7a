"""models/<deck>/manifest.json read into one typed, frozen settings object (vision/recognise/manifest.py):
the shipped manifests, and what a manifest may not hold."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from vision.recognise.manifest import (
    UNCALIBRATED,
    Calibration,
    ClassifierSettings,
    DetectorSettings,
    IndexParams,
    Source,
    load_manifest,
)

MODELS = Path(__file__).resolve().parents[1] / "models"


def shipped(deck: str) -> dict:
    return json.loads((MODELS / deck / "manifest.json").read_text(encoding="utf-8"))


def written(tmp_path: Path, doc: dict, deck: str = "playing") -> Path:
    """``doc`` as ``tmp_path/<deck>/manifest.json``; returns the models folder."""
    (tmp_path / deck).mkdir(parents=True, exist_ok=True)
    (tmp_path / deck / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("deck", ["hanafuda", "playing"])
def test_the_shipped_manifests_read_into_typed_frozen_settings(deck):
    m = load_manifest(deck)
    assert isinstance(m.detector, DetectorSettings) and m.detector.oriented and m.detector.size == 416
    assert isinstance(m.classifier, ClassifierSettings) and isinstance(m.classifier.names, tuple)
    assert {"back", "BACK"} & set(m.classifier.names) and m.detector.names[0] == "card"
    assert isinstance(m.classifier.source, Source) and m.classifier.source.argv[0] == "classify"
    assert len(m.classifier.sha256) == 64 and m.classifier.embedding == 1280 and m.styles == m.classifier.styles
    assert isinstance(m.calibration, Calibration) and m.calibration.both_ways and m.calibration.cards > 1000
    assert m.recognition.turn_below == 0.9
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.calibration.temperature = 2.0  # type: ignore[misc]
    if deck == "playing":
        assert isinstance(m.index, IndexParams) and m.index.turns == 8 and m.index.skip_unreadable
        assert m.index.per_image_f1 > 0.9 and m.index_detector.names == ("index",)
        assert not m.recognition.one_deck
    else:
        assert m.index_detector is None and m.recognition.one_deck and m.profile.weight == 0.9


@pytest.mark.parametrize("deck", ["hanafuda", "playing"])
def test_the_shipped_manifests_hold_values_not_prose(deck):
    def keys(d, where=""):
        for k, v in d.items():
            yield f"{where}{k}"
            if isinstance(v, dict):
                yield from keys(v, f"{where}{k}.")

    assert not [k for k in keys(shipped(deck)) if k.endswith("chosen_by")]  # why: docs/decisions.md


def test_the_manifest_refuses_a_key_it_does_not_know(tmp_path):
    doc = shipped("playing")
    doc["index"]["foo"] = 1
    with pytest.raises(ValueError, match=r"playing/manifest\.json: unknown key index\.foo \(known: .*min_prob"):
        load_manifest("playing", written(tmp_path, doc))
    doc = shipped("playing")
    doc["detector"]["fuse"] = True  # a setting that is gone is no setting
    with pytest.raises(ValueError, match=r"unknown key detector\.fuse \(known: conf, iou, names, oriented"):
        load_manifest("playing", written(tmp_path, doc))
    doc = shipped("playing")
    doc["classifier"]["source"]["branch"] = "main"
    with pytest.raises(ValueError, match=r"unknown key classifier\.source\.branch \(known: argv, git, run\)"):
        load_manifest("playing", written(tmp_path, doc))
    doc = shipped("playing")
    doc["recognition"]["one_of_each"] = True
    with pytest.raises(ValueError, match=r"unknown key recognition\.one_of_each"):
        load_manifest("playing", written(tmp_path, doc))
    doc = shipped("playing")
    doc["indices"] = {}
    with pytest.raises(ValueError, match=r"unknown key indices \(known: calibration, classifier, deck, detector"):
        load_manifest("playing", written(tmp_path, doc))


@pytest.mark.parametrize(("section", "key", "value", "expected"), [
    ("detector", "conf", "high", "a number"),
    ("detector", "size", 416.5, "a whole number"),
    ("detector", "oriented", 1, "true or false"),
    ("classifier", "names", "AS KS", "a list of strings"),
    ("calibration", "temperature", None, "a number"),
    ("index", "skip_unreadable", "yes", "true or false"),
    ("recognition", "one_deck", None, "true or false"),
    ("calibration", "both_ways", "true", "true or false"),
])
def test_the_manifest_refuses_a_value_of_the_wrong_type(tmp_path, section, key, value, expected):
    doc = shipped("playing")
    doc[section][key] = value
    with pytest.raises(ValueError, match=rf"manifest\.json: {section}\.{key} is .*: expected {re.escape(expected)}"):
        load_manifest("playing", written(tmp_path, doc))
    doc = shipped("playing")
    doc[section] = [1, 2]
    with pytest.raises(ValueError, match=rf"manifest\.json: {section} is \[1, 2\]: expected an object"):
        load_manifest("playing", written(tmp_path, doc))


@pytest.mark.parametrize("value", [0, 1.5, "0.9", True])
def test_a_turn_threshold_must_be_a_probability_or_null(tmp_path, value):
    doc = shipped("hanafuda")
    doc["recognition"]["turn_below"] = value
    with pytest.raises(ValueError, match="recognition.turn_below"):
        load_manifest("hanafuda", written(tmp_path, doc, "hanafuda"))
    doc["recognition"]["turn_below"] = None
    assert load_manifest("hanafuda", written(tmp_path, doc, "hanafuda")).recognition.turn_below is None


@pytest.mark.parametrize(("section", "key"), [("detector", "stem"), ("classifier", "names"), ("index", "min_prob"),
                                              ("calibration", "unsure_below"), ("classifier.source", "run")])
def test_the_manifest_refuses_a_section_without_a_required_key(tmp_path, section, key):
    doc = shipped("playing")
    entry = doc
    for part in section.split("."):
        entry = entry[part]
    del entry[key]
    with pytest.raises(ValueError, match=rf"manifest\.json: {re.escape(section)} has no {key} \(required: "):
        load_manifest("playing", written(tmp_path, doc))


def test_a_manifest_without_calibration_or_index_thresholds_reads_as_just_shipped(tmp_path):
    doc = shipped("playing")
    del doc["calibration"], doc["index"], doc["recognition"]  # a classifier and index models just shipped
    m = load_manifest("playing", written(tmp_path, doc))
    assert m.calibration == UNCALIBRATED and m.index == IndexParams() and m.recognition.turn_below is None
    del doc["detector"]
    with pytest.raises(ValueError, match="names no detector"):
        load_manifest("playing", written(tmp_path, doc))
    with pytest.raises(ValueError, match="is for deck 'playing', not 'hanafuda'"):
        load_manifest("hanafuda", written(tmp_path, shipped("playing"), "hanafuda"))
