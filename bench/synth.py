"""Synthetic training images per second at 640×640: render a scene and write its image (JPEG, the
dataset default), labels and truth JSON as ``synth dataset`` does, with 1 and with 2 worker processes;
and game-video frames per second at 1280×720 (``synth video``'s renderer: frame image, labels and
the truth line; with and without the mp4v encoder).

Each configuration warms up (art loaded, caches filled), then renders ``--images`` new scenes per
repeat; the median rate over ``--repeats`` is reported. Target: >= 20 images/s on 2 cores. Video:
one Hachi-hachi video (4 seats, seed 5, normal difficulty) is built, then ``--frames`` consecutive
frames are rendered from each of ``--repeats`` evenly spaced starts (OpenCV using its default
threads); the median rate is reported. Target: >= 30 frames/s on 2 cores. Other work on the machine
lowers the figures: the JSON records the load average.

    python bench/synth.py [--deck hanafuda] [--style mantia] [--art-dir DIR] [--images 60]
                          [--frames 150] [--repeats 5] [--skip-images] [--json bench/out/synth.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.synth import export  # noqa: E402
from vision.synth.export import DatasetSpec  # noqa: E402


def _prepare(out: Path) -> None:
    for kind in ("images", "labels", "truth"):
        for split in export.SPLITS:
            (out / kind / split).mkdir(parents=True, exist_ok=True)


def measure(spec: DatasetSpec, workers: int, images: int, repeats: int) -> list[float]:
    """Images per second for each repeat."""
    rates = []
    if workers == 1:
        export._init(spec)
        for s in range(8):
            export.render_one(10_000_000 + s)
        for r in range(repeats):
            seeds = range(r * images, (r + 1) * images)
            start = time.perf_counter()
            for s in seeds:
                export.render_one(s)
            rates.append(images / (time.perf_counter() - start))
        return rates
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ctx.Pool(workers, initializer=export._init, initargs=(spec,)) as pool:
        list(pool.imap(export.render_one, range(10_000_000, 10_000_000 + 8 * workers), chunksize=1))
        for r in range(repeats):
            seeds = range(r * images, (r + 1) * images)
            start = time.perf_counter()
            list(pool.imap(export.render_one, seeds, chunksize=2))
            rates.append(images / (time.perf_counter() - start))
    return rates


def measure_video(frames: int, repeats: int, encode: bool) -> list[float]:
    """Video frames per second (render + truth JSON line, optionally + mp4v encoding) per repeat."""
    import cv2

    from vision.synth.video import GameVideo, VideoSpec

    video = GameVideo(VideoSpec(game="hachi-hachi", players=4, seed=5, size=(1280, 720), fps=30.0))
    starts = [int(k * (video.frame_count - frames) / max(1, repeats)) for k in range(repeats)]
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        for start in starts:
            writer = cv2.VideoWriter(str(Path(tmp) / "v.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (1280, 720)) if encode else None
            video.render(start)  # the segment's still layer, as in a sequential render
            t0 = time.perf_counter()
            for i in range(start + 1, start + 1 + frames):
                image, truth = video.render(i)
                json.dumps(truth, separators=(",", ":"), sort_keys=True)
                if writer is not None:
                    writer.write(image)
            rates.append(frames / (time.perf_counter() - t0))
            if writer is not None:
                writer.release()
    return rates


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
    ap.add_argument("--style", default="mantia")
    ap.add_argument("--art-dir")
    ap.add_argument("--images", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--frames", type=int, default=150, help="video frames per repeat")
    ap.add_argument("--skip-images", action="store_true", help="measure the video frames only")
    ap.add_argument("--json", default="bench/out/synth.json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = DatasetSpec(deck=args.deck, styles=tuple(args.style.split(",")), out=tmp, art_dir=args.art_dir)
        _prepare(Path(tmp))
        for workers in () if args.skip_images else (1, 2):
            runs = measure(spec, workers, args.images, args.repeats)
            med = statistics.median(runs)
            rows.append({"workers": workers, "images_per_s_median": round(med, 1),
                         "images_per_s_runs": [round(r, 1) for r in runs]})
            print(f"{args.deck} {args.style} 640x640, {workers} worker(s): {med:6.1f} images/s (median of {args.repeats})")
    video_rows = []
    for encode in (False, True):
        runs = measure_video(args.frames, args.repeats, encode)
        med = statistics.median(runs)
        video_rows.append({"encode_mp4v": encode, "frames_per_s_median": round(med, 1),
                           "frames_per_s_runs": [round(r, 1) for r in runs]})
        print(f"video 1280x720 hachi-hachi, {'render + mp4v encode' if encode else 'render'}: {med:6.1f} frames/s "
              f"(median of {args.repeats} x {args.frames} frames)")
    out = {
        "benchmark": "synth training images per second (render + JPEG + labels + truth JSON)",
        "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "size": [640, 640],
        "deck": args.deck,
        "styles": args.style,
        "images_per_repeat": args.images,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "target_images_per_s_2_cores": 20,
        "results": rows,
        "video": {
            "benchmark": "game-video frames per second (frame + labels + truth JSON line; optionally mp4v encoding)",
            "size": [1280, 720],
            "game": "hachi-hachi, 4 seats, seed 5, normal difficulty, top camera",
            "frames_per_repeat": args.frames,
            "target_frames_per_s_2_cores": 30,
            "results": video_rows,
        },
    }
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
