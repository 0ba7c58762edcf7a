"""ONNX Runtime in 8-bit integers against float32: time per frame, and cards named right if it is faster.

Every shipped network runs in float32. ONNX Runtime can run a statically quantised copy instead
(``onnxruntime.quantization.quantize_static``: QDQ format, weights signed 8-bit per output channel,
activations unsigned 8-bit with ranges measured on calibration inputs). Whether that is faster
depends on the CPU's 8-bit dot products (AVX-VNNI, AVX512-VNNI; plain AVX2 has only slower
emulations), so this bench measures it:

1. records the batches each network of a deck is given while the shipped recogniser (ONNX Runtime)
   reads ``--calibrate`` rendered **training** top-down frames (seeds ≡ 0 mod 10 from 5,000,000:
   never a validation or test scene), and quantises every network that was called with those
   batches as its calibration data, all but its head's decoding (:func:`head_kept_float`); a network
   the frames never call, such as the playing-card index reader that the gate keeps off tables seen
   from afar, stays float32;
2. copies the deck's models folder with the quantised ``.onnx`` files in place of the shipped ones;
3. times ``bench/recognition.py``'s speed frame with both folders on ONNX Runtime, frame by frame
   in turn (median of ``--repeats``).

The rule (committed with this bench, before its first run): 8-bit becomes a shipped option only
where its median time on the speed frame is at most :data:`SPEED_RATIO` of float32's for the deck;
only then are its answers measured, on the rendered **validation** scenes of ``bench/validation.py``
(seed ≡ 8 mod 10: 200 any-view 640 × 640 scenes and 100 top-down 1280 × 720 frames), and it must
hold against float32 there (``validation.holds``: cards seen ≥ 40 % named right at least float32's
count less 0.1 %, fully visible at least float32's less one). A speed setting that is not faster is
not worth an answer lost, so where it is not fast enough nothing else is measured.

(The first run, 2026-12-05, quantised the heads as well: the hanafuda detector then found no card at
all, so its frames took 0.27 of float32's time with nothing named, and the playing detector's stray
boxes made its frames 1.42 times as slow. The heads' decoding has been kept in float32 since; the
rule is unchanged.)

    python bench/int8.py [--decks hanafuda,playing] [--calibrate 8] [--repeats 20] [--json bench/out/int8.json]

Needs ``onnx`` (the ``train`` extra) for the quantisation; the copies are written under
``runs/int8/`` (not shipped).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precision import paired_speed  # noqa: E402  (bench/, the script's own folder)
from recognition import SPEED_STYLES, speed_frame  # noqa: E402
from validation import REPO, add_setting_arguments, holds, rows_of, variants_measured, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.backends import OnnxRuntimeNetwork  # noqa: E402

SPEED_RATIO = 0.85
"""Most time per speed frame 8-bit may take, as a share of float32's (median of a paired run)."""
CALIBRATION_SEED = 5_000_000
"""First seed of the training frames whose network inputs calibrate the 8-bit ranges (≡ 0 mod 10)."""


def recorded_batches(rec: Recogniser, frames: list[np.ndarray]) -> dict[Path, list[np.ndarray]]:
    """The float32 batches each ONNX Runtime network of ``rec`` is given while it reads ``frames``."""
    seen: dict[Path, list[np.ndarray]] = defaultdict(list)
    call = OnnxRuntimeNetwork.__call__

    def recording(self, batch):
        seen[self.path].append(np.ascontiguousarray(batch, np.float32).copy())
        return call(self, batch)

    OnnxRuntimeNetwork.__call__ = recording
    try:
        for frame in frames:
            rec.recognise(frame)
    finally:
        OnnxRuntimeNetwork.__call__ = call
    return dict(seen)


def head_kept_float(path: Path) -> list[str]:
    """Nodes of the network's last module (``/model.N/``, the detect or classify head) left in float32:
    all but its convolutions outside the box decoder (``dfl``). The head's outputs mix box coordinates
    in pixels with class scores in [0, 1] (detectors) or are probabilities read to four decimals
    (the unsure thresholds); one 8-bit range cannot hold either."""
    import onnx

    nodes = onnx.load(str(path)).graph.node
    last = max(int(n.name.split("/")[1].split(".")[1]) for n in nodes if n.name.startswith("/model."))
    head = f"/model.{last}/"
    return [n.name for n in nodes if n.name.startswith(head) and not (n.op_type == "Conv" and "/dfl/" not in n.name)]


def quantised(src: Path, dst: Path, batches: list[np.ndarray]) -> None:
    """Write ``src`` quantised to 8 bits (QDQ, per-channel weights) at ``dst``, ranges from ``batches``,
    its head's decoding kept in float32 (:func:`head_kept_float`)."""
    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter({name: b} for b in batches)

        def get_next(self):
            return next(self._it, None)

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    nodes_to_exclude=head_kept_float(src))


def training_frames(deck: str, styles: tuple[str, ...], count: int, art_dir: str) -> list[np.ndarray]:
    """``count`` rendered top-down 1280 × 720 training frames (seeds ≡ 0 mod 10), styles in turn."""
    from vision.synth.artset import find_style
    from vision.synth.fixed_scenes import topdown_scene
    from vision.synth.scene import render

    out = []
    for i in range(count):
        style = styles[i % len(styles)]
        scene = topdown_scene(CALIBRATION_SEED + 10 * i, deck, (style,), n_cards=48)
        out.append(render(scene, {style: find_style(deck, style, art_dir)}).image)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_setting_arguments(ap, "int8.json", "precision")
    ap.add_argument("--calibrate", type=int, default=8, help="rendered training frames calibrating the ranges")
    ap.add_argument("--work", default=str(REPO / "runs" / "int8"), help="where the quantised copies go")
    args = ap.parse_args()
    shipped_root = Path(args.models).resolve() if args.models else REPO / "models"
    out: dict = {"calibrate": args.calibrate, "repeats": args.repeats, "speed_ratio_asked": SPEED_RATIO, "decks": {}}
    t0 = time.perf_counter()
    for deck in [d for d in args.decks.split(",") if d]:
        f32 = Recogniser(deck, args.models, ("onnxruntime",))
        batches = recorded_batches(f32, training_frames(deck, f32.manifest.styles, args.calibrate, args.art_dir))
        copy = Path(args.work) / "models"
        shutil.rmtree(copy / deck, ignore_errors=True)
        shutil.copytree(shipped_root / deck, copy / deck)
        done = []
        for path, got in sorted(batches.items()):
            quantised(path, copy / deck / path.name, got)
            done.append(path.name)
        print(f"{deck}: quantised {', '.join(done)} on {sum(len(b) for b in batches.values())} calibration "
              f"batches from {args.calibrate} training frames")
        int8 = Recogniser(deck, str(copy), ("onnxruntime",))
        frame, about = speed_frame(deck, SPEED_STYLES[deck], args.seed)
        ms = paired_speed({"f32": f32, "int8": int8}, frame, args.repeats)
        ratio = round(ms["int8"] / ms["f32"], 3)
        row: dict = {"quantised": done, "speed": {**about, "median_ms": ms}, "speed_ratio": ratio,
                     "fast_enough": ratio <= SPEED_RATIO}
        print(f"  speed frame (seed {about['seed']}, ONNX Runtime, median of {args.repeats} in turn): "
              f"f32 {ms['f32']} ms, int8 {ms['int8']} ms, ratio {ratio} "
              f"({'fast enough' if ratio <= SPEED_RATIO else 'not fast enough'}: ≤ {SPEED_RATIO} asked)")
        if ratio <= SPEED_RATIO:
            recs = {"f32": f32, "int8": int8}
            any_view, topdown = variants_measured(f32.manifest.styles, deck, {p: (lambda r=r: r) for p, r in recs.items()},
                                                  args.scenes, args.frames, args.art_dir)
            rows = rows_of(tuple(recs), any_view, topdown, str)
            row["validation"] = rows
            row["holds"] = bool(holds(rows["f32"]["both"], rows["int8"]["both"]))
            print(f"  int8 {'holds' if row['holds'] else 'does not hold'} against f32 on the validation scenes")
        row["adopt"] = bool(row["fast_enough"] and row.get("holds", False))
        out["decks"][deck] = row
    out["seconds"] = round(time.perf_counter() - t0, 1)
    for deck, row in out["decks"].items():
        print(f"{deck}: {'8-bit becomes an option' if row['adopt'] else 'float32 stays (8-bit not adopted)'}")
    write(out, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
