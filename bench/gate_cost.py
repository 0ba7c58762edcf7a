"""Playing cards: what the index gate saves on the speed frame, and what a frame it cannot skip costs.

The speed frame of ``bench/recognition.py`` is recognised with the manifest's ``index`` settings and
with ``skip_unreadable`` set aside (the reader runs, as on a far table of a deck whose whole cards
are never named sure), the two taking turns frame by frame after 3 warm-up frames
(``precision.paired_speed``); medians in ms.

    python bench/gate_cost.py [--models DIR] [--backend onnxruntime] [--repeats 20]
        [--json bench/out/gate-cost.json]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precision import paired_speed  # noqa: E402  (bench/, the script's own folder)
from recognition import SPEED_STYLES, speed_frame  # noqa: E402
from validation import REPO, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.backends import available_backends  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--backend", default=available_backends()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=700000, help="first seed of the speed frame search (bench/recognition.py's)")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "gate-cost.json"))
    args = ap.parse_args()
    frame, info = speed_frame("playing", SPEED_STYLES["playing"], args.seed)
    recs = {name: Recogniser("playing", args.models, (args.backend,)) for name in ("as shipped", "gate set aside")}
    if recs["as shipped"].index_reader is None:
        ap.error("the playing models have no corner-index reader")
    aside = recs["gate set aside"]
    aside.index_params = replace(aside.index_params, skip_unreadable=False)
    medians = paired_speed(recs, frame, args.repeats)
    rows = {k: {"median_ms": ms, "skip_unreadable": recs[k].index_params.skip_unreadable} for k, ms in medians.items()}
    for k, r in rows.items():
        print(f"speed frame, playing, {args.backend}, {k}: median {r['median_ms']} ms of {args.repeats}")
    write({"frame": info, "backend": args.backend, "repeats": args.repeats, "settings": rows}, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
