"""Which backend recognition tries first: OpenVINO against ONNX Runtime, timed in turn on the speed frame.

Both read the same ONNX files and give the same answers to within float rounding, so the only
question is time. For each deck this bench loads the shipped models once per installed backend
(PyTorch is the fallback, not a candidate), recognises bench/recognition.py's speed frame (a
top-down 1280 × 720 table with at least 20 cards at least half in view) with each in turn, frame by
frame, after 3 warm-up frames, and reports the medians and their ratio.

The rule (committed before this bench's first run): :data:`vision.recognise.backends.DEFAULT_ORDER`
puts first the backend whose median is the lower on **both** decks' speed frames; where the decks
disagree, the order stays as it is. Timings are of this machine on the day, in one run; the JSON
records the CPU they came from.

    python bench/backend_order.py [--decks hanafuda,playing] [--repeats 30] [--json bench/out/backend_order.json]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precision import paired_speed  # noqa: E402  (bench/, the script's own folder)
from recognition import SPEED_STYLES, speed_frame  # noqa: E402
from validation import REPO, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.backends import DEFAULT_ORDER, available_backends  # noqa: E402

CANDIDATES = ("openvino", "onnxruntime")


def cpu_name() -> str:
    """The CPU's model name as the kernel gives it (Linux), else the platform's word for it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decks", default="hanafuda,playing")
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--repeats", type=int, default=30, help="timed frames per backend")
    ap.add_argument("--seed", type=int, default=700000, help="first seed of bench/recognition.py's speed frame")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "backend_order.json"))
    args = ap.parse_args()
    backends = [b for b in CANDIDATES if b in available_backends()]
    if len(backends) < 2:
        raise SystemExit(f"needs both {' and '.join(CANDIDATES)} installed (pip install 'fudaba[recognise,openvino]')")
    decks = [d for d in args.decks.split(",") if d]
    out: dict = {"cpu": cpu_name(), "repeats": args.repeats, "order_before": list(DEFAULT_ORDER), "decks": {}}
    t0 = time.perf_counter()
    first: list[str] = []
    for deck in decks:
        recs = {b: Recogniser(deck, args.models, (b,)) for b in backends}
        frame, about = speed_frame(deck, SPEED_STYLES[deck], args.seed)
        ms = paired_speed(recs, frame, args.repeats)
        fastest = min(ms, key=ms.get)
        first.append(fastest)
        out["decks"][deck] = {**about, "median_ms": ms, "fastest": fastest,
                              "ratio_onnxruntime_to_openvino": round(ms["onnxruntime"] / ms["openvino"], 3)}
        print(f"{deck}: speed frame (seed {about['seed']}), median of {args.repeats}: "
              + ", ".join(f"{b} {ms[b]} ms" for b in backends) + f"; fastest {fastest}")
    agreed = first[0] if first and all(b == first[0] for b in first) else None
    order = ((agreed,) + tuple(b for b in DEFAULT_ORDER if b != agreed)) if agreed else DEFAULT_ORDER
    out.update(first=agreed, order=list(order), seconds=round(time.perf_counter() - t0, 1))
    print(f"CPU: {out['cpu']}; default order: {', '.join(order)}"
          + ("" if agreed else " (the decks disagree: unchanged)"))
    write(out, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
