"""Inference backends: the same network run by OpenVINO, ONNX Runtime or PyTorch.

A shipped network is a stem in a model folder (``models/hanafuda/classifier``) with up to three
files: ``<stem>.onnx`` (ONNX Runtime; OpenVINO also reads it), ``<stem>.pt`` (the ultralytics
checkpoint, for the PyTorch fallback). :func:`load_network` tries the backends in the order given
(default :data:`DEFAULT_ORDER`, the fastest first as measured by ``bench/recognition.py``) and
takes the first one that is installed and has its file. Every backend takes a float32 NCHW batch
and returns the network's outputs as NumPy arrays, in the ONNX file's output order: detectors
``(N, 4 + classes, anchors)``; classifiers ``probabilities (N, classes)`` then ``embedding (N, D)``.

PyTorch needs the ``train`` extra (torch and ultralytics); running fudaba never needs it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

BACKENDS = ("onnxruntime", "openvino", "torch")
DEFAULT_ORDER = ("onnxruntime", "openvino", "torch")
"""Preference when nothing is asked for, the fastest first as measured on this project's 2-core CPU by
``bench/backend_order.py`` (2026-12-05, AMD EPYC, AVX2; bench/recognition.py's speed frames, median
of 30 in turn, turn_below 0.9): ONNX Runtime 94.9 / 109.5 ms against OpenVINO 104.6 / 123.2 ms for
hanafuda / playing cards."""


class Network:
    """A loaded network: call it with a float32 NCHW batch."""

    backend: str
    path: Path

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:  # pragma: no cover - interface
        raise NotImplementedError


def _threads() -> int:
    return int(os.environ.get("FUDABA_THREADS", "0")) or (os.cpu_count() or 1)


OPENVINO_PRECISIONS = ("f32", "bf16", "bf16-classifiers", "auto")
DEFAULT_OPENVINO_PRECISION = "f32"
"""What OpenVINO computes in unless ``FUDABA_OPENVINO_PRECISION`` says otherwise: ``f32`` (the
same answers as ONNX Runtime), ``bf16`` (bfloat16 where the CPU has it: AVX512-BF16 or AMX;
f32 elsewhere), ``bf16-classifiers`` (bfloat16 for classifiers, float32 for detectors) or
``auto`` (OpenVINO's own choice for the CPU)."""
KINDS = ("detector", "classifier")


def openvino_precision(kind: str = "classifier") -> str:
    """The OpenVINO precision asked for a network of ``kind`` (``detector`` or ``classifier``):
    ``f32``, ``bf16`` or ``auto``, from ``FUDABA_OPENVINO_PRECISION``, else the default; ValueError
    for a value not in :data:`OPENVINO_PRECISIONS` or an unknown kind."""
    if kind not in KINDS:
        raise ValueError(f"unknown network kind {kind!r}; expected one of {', '.join(KINDS)}")
    value = os.environ.get("FUDABA_OPENVINO_PRECISION", "").strip().lower() or DEFAULT_OPENVINO_PRECISION
    if value not in OPENVINO_PRECISIONS:
        raise ValueError(f"FUDABA_OPENVINO_PRECISION={value!r}: expected one of {', '.join(OPENVINO_PRECISIONS)}")
    if value == "bf16-classifiers":
        return "bf16" if kind == "classifier" else "f32"
    return value


class OnnxRuntimeNetwork(Network):
    """ONNX Runtime on the CPU. Its worker threads sleep between calls instead of spinning
    (``session.intra_op.allow_spinning`` 0): a recogniser holds two to four sessions that run one
    after another, and on 2 cores the threads one session leaves spinning steal the cores of the
    next (bench/recognition.py's speed frame on a 2-core AMD EPYC, 2026-12-05: hanafuda 203 → 121 ms,
    playing cards 300 → 133 ms per frame, the same answers)."""

    backend = "onnxruntime"

    def __init__(self, path: Path, kind: str = "classifier") -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.path = path
        self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(o) for o in self._session.run(None, {self._input: np.ascontiguousarray(batch, np.float32)})]


class OpenVinoNetwork(Network):
    """OpenVINO on the CPU, reading the ONNX file, compiled once with its dynamic input shape, in
    the precision :func:`openvino_precision` asks for (``precision`` says which it runs in)."""

    backend = "openvino"

    def __init__(self, path: Path, kind: str = "classifier") -> None:
        import openvino as ov

        self.path = path
        core = ov.Core()
        asked = openvino_precision(kind)
        config = {"INFERENCE_NUM_THREADS": _threads(), "PERFORMANCE_HINT": "LATENCY"}
        if asked == "bf16" and "BF16" not in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES"):
            asked = "f32"
        if asked != "auto":
            config["INFERENCE_PRECISION_HINT"] = asked
        compiled = core.compile_model(core.read_model(str(path)), "CPU", config)
        hint = compiled.get_property("INFERENCE_PRECISION_HINT")
        self.precision = hint.to_string() if hasattr(hint, "to_string") else str(hint)
        self._request = compiled.create_infer_request()
        self._outputs = compiled.outputs

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        res = self._request.infer({0: np.ascontiguousarray(batch, np.float32)})
        return [np.array(res[o]) for o in self._outputs]


class TorchNetwork(Network):
    """The ultralytics checkpoint through PyTorch (the fallback; needs the ``train`` extra)."""

    backend = "torch"

    def __init__(self, path: Path, kind: str = "classifier") -> None:
        import torch

        from vision.train import offline

        if "ultralytics" not in sys.modules:  # imported already: whoever did chose its settings
            offline.import_ultralytics(Path.home() / ".cache" / "fudaba" / "ultralytics")
        torch.set_num_threads(_threads())
        ckpt = torch.load(str(path), map_location="cpu", weights_only=False)
        self.path = path
        self._torch = torch
        self._model = (ckpt.get("ema") or ckpt["model"]).float().fuse().eval()
        self._embedding: list = []
        head = self._model.model[-1]
        if hasattr(head, "linear"):  # classifier: also return the linear layer's input, the embedding
            head.linear.register_forward_hook(lambda _m, inp, _out: self._embedding.append(inp[0]))

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        self._embedding.clear()
        with self._torch.inference_mode():
            out = self._model(self._torch.from_numpy(np.ascontiguousarray(batch, np.float32)))
        first = out[0] if isinstance(out, (tuple, list)) else out
        outputs = [first.numpy()]
        if self._embedding:
            outputs.append(self._embedding[0].numpy())
        return outputs


_CLASSES = {"onnxruntime": OnnxRuntimeNetwork, "openvino": OpenVinoNetwork, "torch": TorchNetwork}
_MODULE = {"onnxruntime": "onnxruntime", "openvino": "openvino", "torch": "torch"}
_SUFFIX = {"onnxruntime": ".onnx", "openvino": ".onnx", "torch": ".pt"}


def available_backends() -> tuple[str, ...]:
    """The backends whose library is installed (torch also needs ultralytics)."""
    out = []
    for b in BACKENDS:
        if importlib.util.find_spec(_MODULE[b]) is None:
            continue
        if b == "torch" and importlib.util.find_spec("ultralytics") is None:
            continue
        out.append(b)
    return tuple(out)


def load_network(stem: Path, order: Sequence[str] | None = None, kind: str = "classifier") -> Network:
    """The first backend of ``order`` that is installed and has ``stem``'s file; ValueError if none.
    ``kind`` (``detector`` or ``classifier``) chooses OpenVINO's precision (:func:`openvino_precision`)."""
    order = tuple(order or DEFAULT_ORDER)
    unknown = [b for b in order if b not in BACKENDS]
    if unknown:
        raise ValueError(f"unknown backend {unknown[0]!r}; expected one of {', '.join(BACKENDS)}")
    installed = available_backends()
    tried = []
    for b in order:
        path = stem.with_suffix(_SUFFIX[b])
        if b not in installed:
            tried.append(f"{b} (not installed)")
        elif not path.is_file():
            tried.append(f"{b} (no {path.name})")
        else:
            return _CLASSES[b](path, kind)
    raise ValueError(f"cannot load {stem}: " + ", ".join(tried)
                     + "; install onnxruntime (part of fudaba's install: pip install .)")
