"""The PyTorch fallback of recognition gives what the ONNX export gives (needs the ``train`` extra:
skipped without ultralytics; CI runs it in the training venv)."""

from __future__ import annotations

import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")
np = pytest.importorskip("numpy")

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.evaluate import render_scenes  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402


def test_torch_fallback_matches_onnx_runtime():
    ((image, _),) = render_scenes("hanafuda", ("mantia",), [59], size=(1280, 720), scene=topdown_scene)
    onnx = Recogniser("hanafuda", backends=("onnxruntime",)).recognise(image)
    torch_rec = Recogniser("hanafuda", backends=("torch",))
    assert torch_rec.backend == "torch"
    got = torch_rec.recognise(image)
    assert len(got) == len(onnx) >= 5
    assert [c.label for c in got] == [c.label for c in onnx]
    assert np.allclose([c.confidence for c in got], [c.confidence for c in onnx], atol=2e-3)
    assert np.allclose([c.box for c in got], [c.box for c in onnx], atol=1.0)


def test_backends_fall_back_in_order():
    rec = Recogniser("hanafuda", backends=("openvino", "onnxruntime", "torch"))
    assert rec.backend in ("openvino", "onnxruntime")
