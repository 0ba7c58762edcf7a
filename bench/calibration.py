"""Table calibration on rendered game videos: accuracy in table mm, moves and time per frame.

For each camera (top, tilted) and difficulty (normal, hard) and each of ``--seeds`` Hachi-hachi
videos (3 seats, 15 fps, 1280 × 720), the first ``--frames`` frames are fed to a default
:class:`vision.calibrate.TableCalibrator`. Truth is the renderer's own mapping of each frame: the
camera's homography, that frame's shake and, on hard videos, the lens distortion (which no
homography can follow). Per frame with a calibration, the error is the largest distance (mm)
between a 9 × 7 grid of play-area points and where the calibration puts their true pixels;
reported: median and 95th percentile over frames, the worst frame, the frames before the first
calibration, ``moved`` flags per video (the cameras are never nudged, so every one is the
calibrator following shake) and the calibrator's time per frame (marker search included).

    python bench/calibration.py [--seeds 3] [--frames 150] [--json bench/out/calibration.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibrate import TableCalibrator, to_table  # noqa: E402
from vision.synth.camera import distort_points, project  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec  # noqa: E402


def run(camera: str, difficulty: str, seed: int, frames: int) -> dict:
    v = GameVideo(VideoSpec(game="hachi-hachi", players=3, seed=seed, fps=15, camera=camera, difficulty=difficulty))
    cal = TableCalibrator(v.layout.area_mm)
    aw, ah = v.layout.area_mm
    grid = np.stack(np.meshgrid(np.linspace(0, aw, 9), np.linspace(0, ah, 7)), -1).reshape(-1, 2)
    errs, moves, first, spent = [], 0, None, 0.0
    n = min(frames, v.frame_count)
    for i in range(n):
        image, _ = v.render(i)
        t0 = time.perf_counter()
        c = cal.update(image, v.time(i))
        spent += time.perf_counter() - t0
        if c is None:
            continue
        first = i if first is None else first
        moves += c.moved
        shake = v.renderer.shake(v.time(i))
        hom = (np.vstack([shake, [0, 0, 1]]) if shake is not None else np.eye(3)) @ v.renderer.hom
        px = distort_points(project(hom, grid), v.look.k1, v.look.camera.size)
        errs.append(float(np.linalg.norm(to_table(c, px) - grid, axis=1).max()))
    return {"camera": camera, "difficulty": difficulty, "seed": seed, "frames": n, "first_calibrated": first,
            "moved": moves, "k1": round(v.look.k1, 3), "shake_px": v.look.shake_px, "errors_mm": errs,
            "ms_per_frame": round(spent / n * 1000, 2), "marker_mm": round(v.look.markers.size_mm, 2),
            "learnt_marker_mm": {str(k): round(s, 2) for k, s in cal.marker_sizes_mm.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--json", default="bench/out/calibration.json")
    args = ap.parse_args()
    out: dict = {"frames": args.frames, "seeds": args.seeds, "settings": []}
    for difficulty in ("normal", "hard"):
        for camera in ("top", "tilted"):
            runs = [run(camera, difficulty, 1000 + s, args.frames) for s in range(args.seeds)]
            errs = np.concatenate([r["errors_mm"] for r in runs])
            row = {"camera": camera, "difficulty": difficulty,
                   "median_mm": round(float(np.median(errs)), 2), "p95_mm": round(float(np.percentile(errs, 95)), 2),
                   "max_mm": round(float(errs.max()), 2), "moved_per_video": [r["moved"] for r in runs],
                   "first_calibrated": [r["first_calibrated"] for r in runs],
                   "ms_per_frame": round(float(np.mean([r["ms_per_frame"] for r in runs])), 1),
                   "runs": [{k: v for k, v in r.items() if k != "errors_mm"} for r in runs]}
            out["settings"].append(row)
            print(f"{difficulty:6s} {camera:6s}: error median {row['median_mm']} mm, p95 {row['p95_mm']} mm, "
                  f"max {row['max_mm']} mm; moved per video {row['moved_per_video']}; "
                  f"{row['ms_per_frame']} ms/frame", flush=True)
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
