"""The OpenVINO backend and its precision setting (``FUDABA_OPENVINO_PRECISION``).

The parsing runs everywhere; the networks need OpenVINO (the ``openvino`` or ``train`` extra:
skipped without it; CI runs them in the training venv)."""

from __future__ import annotations

import importlib.util

import pytest

from vision.recognise.backends import DEFAULT_OPENVINO_PRECISION, openvino_precision

HAS_OPENVINO = importlib.util.find_spec("openvino") is not None


def test_precision_defaults_and_follows_the_environment(monkeypatch):
    monkeypatch.delenv("FUDABA_OPENVINO_PRECISION", raising=False)
    assert openvino_precision("detector") == openvino_precision("classifier") == DEFAULT_OPENVINO_PRECISION
    monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", " BF16 ")
    assert openvino_precision("detector") == openvino_precision("classifier") == "bf16"
    monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", "bf16-classifiers")
    assert (openvino_precision("detector"), openvino_precision("classifier")) == ("f32", "bf16")
    monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", "f32")
    assert openvino_precision("classifier") == "f32"


def test_a_wrong_precision_or_kind_says_what_is_allowed(monkeypatch):
    monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", "fp8")
    with pytest.raises(ValueError, match=r"FUDABA_OPENVINO_PRECISION='fp8'.*f32, bf16"):
        openvino_precision("classifier")
    monkeypatch.delenv("FUDABA_OPENVINO_PRECISION")
    with pytest.raises(ValueError, match="unknown network kind 'segmenter'"):
        openvino_precision("segmenter")


def _has_bf16() -> bool:
    import openvino as ov

    return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


@pytest.mark.skipif(not HAS_OPENVINO, reason="OpenVINO is not installed here")
@pytest.mark.parametrize("asked", ["f32", "bf16", "bf16-classifiers"])
def test_openvino_compiles_each_network_in_the_precision_asked(monkeypatch, asked):
    from vision.recognise import Recogniser

    monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", asked)
    rec = Recogniser("playing", backends=("openvino",))
    bf16 = _has_bf16()
    want = {"classifier": "bf16" if asked != "f32" and bf16 else "f32",
            "detector": "bf16" if asked == "bf16" and bf16 else "f32"}
    assert rec.backend == "openvino"
    assert rec.classifier.network.precision == rec.index_reader.classifier.network.precision == want["classifier"]
    assert rec.detector.network.precision == rec.index_reader.detector.network.precision == want["detector"]


@pytest.mark.skipif(not HAS_OPENVINO, reason="OpenVINO is not installed here")
def test_bfloat16_names_the_cards_float32_names(monkeypatch):
    np = pytest.importorskip("numpy")
    from vision.evaluate.recognition import render_scenes
    from vision.recognise import Recogniser
    from vision.synth.fixed_scenes import topdown_scene

    ((image, _),) = render_scenes("hanafuda", ("mantia",), [59], size=(1280, 720), scene=topdown_scene)
    found = {}
    for asked in ("f32", "bf16"):
        monkeypatch.setenv("FUDABA_OPENVINO_PRECISION", asked)
        found[asked] = Recogniser("hanafuda", backends=("openvino",)).recognise(image)
    f32, bf16 = found["f32"], found["bf16"]
    assert len(f32) >= 5
    # bfloat16 keeps 8 bits of mantissa: boxes move by a pixel or so, a card near the detector's
    # threshold may come or go, the names of the cards both find agree
    pairs = [(a, min(bf16, key=lambda b, a=a: np.hypot(*(np.subtract(a.box[:2], b.box[:2]))))) for a in f32]
    close = [(a, b) for a, b in pairs if np.abs(np.subtract(a.box, b.box)).max() <= 4]
    assert len(close) >= len(f32) - 1
    assert sum(a.label == b.label for a, b in close) >= len(close) - 1
