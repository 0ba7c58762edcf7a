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
DEFAULT_ORDER = ("openvino", "onnxruntime", "torch")
"""Preference when nothing is asked for, the fastest first as measured on this project's 2-core CPU
(bench/recognition.py, a 1280 × 720 frame with 21 cards at least half in view, 36 found: OpenVINO 83 ms,
ONNX Runtime 102 ms, PyTorch 121 ms per frame)."""


class Network:
    """A loaded network: call it with a float32 NCHW batch."""

    backend: str
    path: Path

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:  # pragma: no cover - interface
        raise NotImplementedError


def _threads() -> int:
    return int(os.environ.get("FUDABA_THREADS", "0")) or (os.cpu_count() or 1)


class OnnxRuntimeNetwork(Network):
    """ONNX Runtime on the CPU."""

    backend = "onnxruntime"

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.path = path
        self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(o) for o in self._session.run(None, {self._input: np.ascontiguousarray(batch, np.float32)})]


class OpenVinoNetwork(Network):
    """OpenVINO on the CPU, reading the ONNX file, compiled once with its dynamic input shape."""

    backend = "openvino"

    def __init__(self, path: Path) -> None:
        import openvino as ov

        self.path = path
        core = ov.Core()
        compiled = core.compile_model(core.read_model(str(path)), "CPU",
                                      {"INFERENCE_NUM_THREADS": _threads(), "PERFORMANCE_HINT": "LATENCY",
                                       "INFERENCE_PRECISION_HINT": "f32"})
        self._request = compiled.create_infer_request()
        self._outputs = compiled.outputs

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        res = self._request.infer({0: np.ascontiguousarray(batch, np.float32)})
        return [np.array(res[o]) for o in self._outputs]


class TorchNetwork(Network):
    """The ultralytics checkpoint through PyTorch (the fallback; needs the ``train`` extra)."""

    backend = "torch"

    def __init__(self, path: Path) -> None:
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


def load_network(stem: Path, order: Sequence[str] | None = None) -> Network:
    """The first backend of ``order`` that is installed and has ``stem``'s file; ValueError if none."""
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
            return _CLASSES[b](path)
    raise ValueError(f"cannot load {stem}: " + ", ".join(tried)
                     + "; install onnxruntime (pip install 'fudaba[recognise]')")
