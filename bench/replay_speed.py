"""Speed of ``fudaba replay``'s loop on a rendered game clip: frames per second of the whole loop
(reading frames, calibration, stabiliser, tracker), milliseconds per frame in each stage, the
stabiliser's gate (rectify + motion + arms) per frame, milliseconds per recognition and
recognitions per minute of video.

The clip is the first ``--seconds`` of a rendered game (1280 × 720, ``--fps``), written as an mp4
into ``--work`` (kept: a second run reuses it). The acceptance asks for at least 2× real time on
two cores. Run from the checkout:
``python bench/replay_speed.py --game poka --players 2 --seed 101 --seconds 60``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.recognise.recogniser import Recogniser  # noqa: E402
from vision.replay import replay_video  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec  # noqa: E402


def clip(game: str, players: int, seed: int, seconds: float, fps: float, work: Path, art_dir: str | None) -> Path:
    """The first ``seconds`` of a rendered game as an mp4 (rendered once, then reused)."""
    path = work / f"{game}-{players}p-seed{seed}-{seconds:g}s-{fps:g}fps.mp4"
    if path.exists():
        return path
    work.mkdir(parents=True, exist_ok=True)
    video = GameVideo(VideoSpec(game=game, players=players, seed=seed, fps=fps, art_dir=art_dir))
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, video.spec.size)
    for f in range(min(video.frame_count, int(round(seconds * fps)))):
        writer.write(video.render(f)[0])
    writer.release()
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="poka")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--fps", type=float, default=15.0)
    p.add_argument("--art-dir", help="folder laid out like shared/assets (styles, table textures)")
    p.add_argument("--work", type=Path, default=Path("bench/out/replay_clips"))
    p.add_argument("--json", type=Path, default=Path("bench/out/replay_speed.json"))
    args = p.parse_args(argv)
    path = clip(args.game, args.players, args.seed, args.seconds, args.fps, args.work, args.art_dir)
    deck = "playing" if args.game == "bagaji" else "hanafuda"
    started = time.perf_counter()
    rec = Recogniser(deck)
    load_s = time.perf_counter() - started
    s = replay_video(path, args.game, args.players, recogniser=rec)
    minutes = s["seconds"] / 60.0
    out = {
        "clip": str(path), "game": args.game, "players": args.players, "seed": args.seed,
        "video_seconds": s["seconds"], "frames": s["frames"], "wall_seconds": s["wall_seconds"],
        "loop_frames_per_second": round(s["frames"] / s["wall_seconds"], 1),
        "speed_x_real_time": s["speed_x_real_time"],
        "stage_ms_per_frame": s["stage_ms_per_frame"],
        "gate_ms_per_frame": s["gate_ms_per_frame"],
        "recognise_ms_per_reading": s["recognise_ms_per_reading"],
        "recognitions": s["recognitions"], "pile_recognitions": s["pile_recognitions"],
        "recognitions_per_video_minute": round((s["recognitions"] + s["pile_recognitions"]) / max(minutes, 1e-9), 1),
        "states": s["states"], "events": s["events"], "questions": s["questions"], "desyncs": s["desyncs"],
        "recogniser_load_seconds": round(load_s, 2),
    }
    print(json.dumps(out, indent=1))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
