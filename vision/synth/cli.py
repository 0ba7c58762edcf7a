"""The ``synth`` command line: render datasets and contact sheets.

    synth dataset --deck hanafuda|playing --style mantia[,classic] [--art-dir DIR] --count N
                  --seed S [--size 640|WxH] --out DIR [--obb] [--crops] [--classes SCHEME]
                  [--min-visible F] [--format jpg|png] [--workers N]
    synth sheet --out docs/synth_contact_sheet.jpg [--art-dir DIR] [--seed S] [--outlines]
    synth styles --deck hanafuda|playing [--art-dir DIR]
    synth real-faces --real shared/datasets/playing-real --out DIR [--splits train] [--fill knoll]
                     [--style real] [--variants N]
    synth video --game hachi-hachi [--ruleset R] [--players N] [--rounds 1] [--seed S] [--fps 30]
                [--size 1280x720] [--style mantia] [--art-dir DIR] [--camera top|tilted]
                [--difficulty easy|normal|hard] --out DIR

``main(argv)`` returns a process exit code; ``python -m vision.synth …`` runs it. Styles outside the
package (``classic``, ``kokujou``) are read from ``--art-dir`` (laid out like shared/assets), which
also supplies table textures from its ``backgrounds/`` folder.
"""

from __future__ import annotations

import argparse
import sys
import time

from scorer.games import GAME_MODULES
from vision.synth.classes import SCHEMES


def _size(text: str) -> tuple[int, int]:
    try:
        if "x" in text.lower():
            w, h = (int(v) for v in text.lower().split("x"))
        else:
            w = h = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size {text!r}; expected e.g. 640 or 640x480") from None
    if not (32 <= w <= 8192 and 32 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size {text!r} out of range 32-8192")
    return w, h


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="fudaba synth", description="Synthetic card-table scenes and datasets.")
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dataset", help="render an ultralytics dataset")
    d.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
    d.add_argument("--style", required=True, help="art style(s), comma-separated, e.g. mantia,classic")
    d.add_argument("--art-dir", help="folder laid out like shared/assets with extra styles and backgrounds")
    d.add_argument("--count", type=int, default=100, help="number of images")
    d.add_argument("--seed", type=int, default=0, help="first scene seed (scenes use seed … seed+count-1)")
    d.add_argument("--size", type=_size, default=(640, 640), help="image size: 640 or WxH (pixels)")
    d.add_argument("--out", required=True, help="output folder")
    d.add_argument("--obb", action="store_true", help="oriented boxes (ultralytics OBB) instead of boxes")
    d.add_argument("--crops", action="store_true", help="also write rectified classification crops")
    d.add_argument("--classes", default="recognition", choices=SCHEMES, help="class naming scheme")
    d.add_argument("--min-visible", type=float, default=0.25, help="label cards at least this visible (0-1)")
    d.add_argument("--format", dest="image_format", default="jpg", choices=("jpg", "png"),
                   help="image files: jpg (quality 95, fast) or png (lossless, about 25 ms more per image)")
    d.add_argument("--workers", type=int, default=1, help="processes")
    s = sub.add_parser("sheet", help="render a contact sheet of sample scenes")
    s.add_argument("--out", required=True, help="output image (.jpg or .png)")
    s.add_argument("--art-dir")
    s.add_argument("--seed", type=int, default=1000)
    s.add_argument("--tile", type=int, default=256)
    s.add_argument("--outlines", action="store_true", help="draw the labelled card outlines")
    t = sub.add_parser("styles", help="list the art styles of a deck")
    t.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
    t.add_argument("--art-dir")
    r = sub.add_parser("real-faces", help="cut playing-card faces from real photographs into an art style")
    r.add_argument("--real", required=True, help="a folder like shared/datasets/playing-real (data.yaml, images/, labels/)")
    r.add_argument("--out", required=True, help="art directory to write: <out>/playing/<style>/png/<card id>.png")
    r.add_argument("--splits", default="train", help="the photographs' splits to cut from, comma-separated (default: train;"
                   " val is the held-out acceptance set)")
    r.add_argument("--fill", default="knoll", help="printed style a card no photograph gives is copied from ('' for none)")
    r.add_argument("--style", default="real", help="style name to write (default: real)")
    r.add_argument("--variants", type=int, default=1,
                   help="N styles: STYLE, STYLE-2 … STYLE-N, the k-th with each card's k-th face by pixels (default 1)")
    r.add_argument("--art-dir", help="art directory with the --fill style, when it is not shipped")
    v = sub.add_parser("video", help="render a ground-truth game video from a rules-engine playout")
    v.add_argument("--game", default="hachi-hachi", help=", ".join(GAME_MODULES))
    v.add_argument("--ruleset", help="ruleset name (default: the game's default)")
    v.add_argument("--players", type=int, help="seats (default: 3; Poka 2)")
    v.add_argument("--rounds", type=int, default=1, help="rounds to play (default 1)")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--fps", type=float, default=30.0)
    v.add_argument("--size", type=_size, default=(1280, 720), help="frame size WxH (pixels)")
    v.add_argument("--style", help="art style (default: mantia for hanafuda, knoll for playing cards)")
    v.add_argument("--art-dir")
    v.add_argument("--camera", default="top", choices=("top", "tilted"))
    v.add_argument("--difficulty", default="normal", choices=("easy", "normal", "hard"))
    v.add_argument("--out", required=True, help="output folder: video.mp4, record.jsonl, truth.jsonl")
    return ap


def _video(args: argparse.Namespace) -> int:
    from scorer.games import game
    from vision.synth.video import VideoSpec, write_video

    spec_game = game(args.game)
    players = args.players or max(spec_game.min_players, min(3, spec_game.max_players))
    spec = VideoSpec(game=spec_game.name, ruleset=args.ruleset, players=players, rounds=args.rounds, seed=args.seed,
                     fps=args.fps, size=args.size, style=args.style, art_dir=args.art_dir, camera=args.camera,
                     difficulty=args.difficulty)
    start = time.perf_counter()
    summary = write_video(spec, args.out)
    spent = time.perf_counter() - start
    print(f"wrote {summary['video']} ({summary['frames']} frames, {summary['seconds']:.1f} s of video) with "
          f"{summary['record']} and {summary['truth']} in {spent:.1f} s ({summary['frames'] / spent:.1f} frames/s)")
    return 0


def _real_faces(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vision.synth.artset import find_style
    from vision.synth.real_faces import cut_faces

    real = Path(args.real)
    if not (real / "data.yaml").is_file():
        raise ValueError(f"--real {args.real}: no data.yaml there (expected a folder like shared/datasets/playing-real)")
    fill = find_style("playing", args.fill, args.art_dir) if args.fill else None
    splits = tuple(s.strip() for s in args.splits.split(",") if s.strip())
    start = time.perf_counter()
    if not 1 <= args.variants <= 20:
        raise ValueError("--variants must be between 1 and 20")
    report = cut_faces(real, Path(args.out), splits, args.style, fill, args.variants)
    print(f"cut {report.faces} faces from {report.photographs} photographs in {time.perf_counter() - start:.1f} s; "
          f"{len(report.written)} cards from a photograph, written to {Path(args.out) / 'playing' / args.style}"
          + (f" and {args.variants - 1} more styles ({args.style}-2 …)" if args.variants > 1 else "")
          + (f"; copied from {fill.name}: {' '.join(report.filled)}" if report.filled else "")
          + (f"; no face for {' '.join(c for c in report.missing if c not in report.filled)}"
             if set(report.missing) - set(report.filled) else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the synth command line; returns the exit code (2 for bad input)."""
    args = _parser().parse_args(argv)
    try:
        import cv2  # noqa: F401
    except ImportError:
        print("fudaba synth: needs OpenCV and NumPy, part of fudaba's install: reinstall it (pip install .)", file=sys.stderr)
        return 2
    from vision.synth.artset import ArtNotFoundError, available_styles

    try:
        if args.command == "styles":
            print("\n".join(available_styles(args.deck, args.art_dir)))
            return 0
        if args.command == "video":
            return _video(args)
        if args.command == "real-faces":
            return _real_faces(args)
        if args.command == "sheet":
            import cv2

            from vision.synth.sheet import contact_sheet

            img = contact_sheet(args.art_dir, args.seed, tile=args.tile, outlines=args.outlines)
            params = [cv2.IMWRITE_JPEG_QUALITY, 82] if args.out.lower().endswith((".jpg", ".jpeg")) else []
            if not cv2.imwrite(args.out, img, params):
                print(f"fudaba synth: cannot write {args.out!r}", file=sys.stderr)
                return 2
            print(f"wrote {args.out} ({img.shape[1]}x{img.shape[0]})")
            return 0
        from vision.synth.export import DatasetSpec, write_dataset

        styles = tuple(s.strip() for s in args.style.split(",") if s.strip())
        if not 0 <= args.min_visible <= 1:
            raise ValueError("--min-visible must be between 0 and 1")
        spec = DatasetSpec(
            deck=args.deck, styles=styles, out=args.out, count=args.count, seed=args.seed, size=args.size,
            art_dir=args.art_dir, obb=args.obb, crops=args.crops, classes=args.classes,
            min_visible=args.min_visible, image_format=args.image_format, workers=max(1, args.workers),
        )
        start = time.perf_counter()
        summary = write_dataset(spec)
        spent = time.perf_counter() - start
        c = summary["counts"]
        print(f"wrote {args.count} images to {args.out} in {spent:.1f} s ({args.count / spent:.1f}/s): "
              + ", ".join(f"{k} {v['images']} images {v['labels']} labels" + (f" {v['crops']} crops" if args.crops else "")
                          for k, v in c.items()))
        return 0
    except (ArtNotFoundError, ValueError, OSError) as e:
        print(f"fudaba synth: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
