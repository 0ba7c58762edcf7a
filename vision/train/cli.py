"""The ``train`` command line (``fudaba train …``, ``python -m vision.train …``).

    train detect|obb|classify --deck hanafuda|playing (--data DIR | --render N [--seed S] [--size PX]
          [--style A,B] [--art-dir DIR] [--classes SCHEME] [--restyle SHARE [--restyle-turn STEPS]]
          [--randconv SHARE] [--clutter SHARE]) [--real DIR] [--imgsz 320] [--epochs E] [--batch 16] [--time HOURS]
          [--train-seed 0] [--device cpu|0] [--workers N]
          [--patience P] [--weights PT] [--lr0 LR] [--threads N] [--no-plots] --out runs/NAME
    train detect|obb|classify --out runs/NAME --resume [--time HOURS]
    train export runs/NAME --format onnx|openvino [--imgsz PX]
    train corner-data --real DIR --out DIR [--side 64] [--copies 4] [--tune 0.1] [--art jumbo,knoll] [--hands N]
                      [--stretch 0] [--invert 0] [--blur 0] [--factors]
    train ship runs/NAME --deck D [--index [--part rank|suit]] [--size PX] [--models DIR]
    train index-tune --real DIR [--models DIR] [--tune 0.1] [--conf-min 0] [--turns-max 8] [--hands N]
                      [--tiles] [--skip-unreadable]

``--render N`` renders N synthetic scenes (scene seeds S … S+N−1, split by seed mod 10: train 0-7,
val 8) into ``runs/NAME/data/synth`` at ``--size`` px (default: ``--imgsz`` for detect/OBB, 640 for
classify, which trains on the rectified 160-px-tall crops). ``--real DIR`` merges the train split of
the real playing-card photos (``shared/datasets/playing-real``, read in place) into a detect/OBB run.
Default class scheme: ``card`` (card/back) for detect and OBB, ``recognition`` for classify.
``--resume`` continues the run in ``--out`` from its ``last.pt``; every other option but ``--time``
comes from the run itself. ``main(argv)`` returns the exit code: 0 done, 2 bad input or state,
3 training interrupted.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import replace
from pathlib import Path

from vision.synth.classes import SCHEMES

NO_ULTRALYTICS = ("corner-data", "index-tune")
"""Commands that cut data or tune thresholds with the shipped ONNX models: no training environment needed."""
TASKS = {"detect": "a detector (axis-aligned boxes)", "obb": "a detector of oriented boxes",
         "classify": "a classifier of rectified crops"}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="fudaba train", description="Train and export card detectors/classifiers, offline.")
    sub = ap.add_subparsers(dest="command", required=True)
    for task, what in TASKS.items():
        _task_options(sub.add_parser(task, help=f"train {what} (or --resume one)"))
    e = sub.add_parser("export", help="export a run's best weights next to them")
    e.add_argument("run", help="run directory")
    e.add_argument("--format", required=True, choices=("onnx", "openvino"))
    e.add_argument("--imgsz", type=int, help="input side (px); default: the run's --imgsz")
    c = sub.add_parser("corner-data", help="cut the corner-index detector and classifier datasets from the real photos")
    c.add_argument("--real", required=True, help="real playing-card dataset, e.g. ../shared/datasets/playing-real")
    c.add_argument("--out", required=True, help="folder for detect/ and crops/, e.g. runs/corner-data")
    c.add_argument("--side", type=int, default=64, help="classifier crop side (px)")
    c.add_argument("--copies", type=int, default=4, help="turned and shifted crops per train corner box")
    c.add_argument("--tune", type=float, default=0.1, help="fraction of train photographs held out as val")
    c.add_argument("--seed", type=int, default=0, help="seed of the crop disturbances")
    c.add_argument("--art", help="also cut index crops from these shipped styles' faces, e.g. jumbo,knoll")
    c.add_argument("--art-copies", type=int, default=10, help="crops per corner of each art face")
    c.add_argument("--stretch", type=float, default=0.0,
                   help="σ of the log aspect change of the photos' train crops (0: none; photos are stretched to a square)")
    c.add_argument("--invert", type=float, default=0.0, help="fraction of the photos' train crops turned light-on-dark (--art crops keep their own disturbances)")
    c.add_argument("--blur", type=float, default=0.0,
                   help="fraction of the photos' train crops blurred as by a camera out of focus or moving")
    c.add_argument("--hands", type=int, default=0,
                   help="also render this many tables of fanned and spread hands and cut index tiles and crops from them")
    c.add_argument("--hands-seed", type=int, default=720000, help="first seed of the --hands tables (bench uses 810000+)")
    c.add_argument("--hands-copies", type=int, default=1, help="train crops per visible index of a --hands table")
    c.add_argument("--art-dir", help="card art folder (default: the shipped art)")
    c.add_argument("--factors", action="store_true",
                   help="also write rank/ and suit/ classifier datasets of the same crops (symlinks)")
    sh = sub.add_parser("ship", help="copy a run's best weights and their ONNX export into models/<deck>/")
    sh.add_argument("run", help="run directory (a detect or classify run)")
    sh.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
    sh.add_argument("--models", help="models folder (default: the repository's models/)")
    sh.add_argument("--size", type=int, help="detector: long side (px) frames are scaled to (default 416; "
                    "index detectors: their training side)")
    sh.add_argument("--index", action="store_true", help="a playing-card corner-index model (train corner-data)")
    sh.add_argument("--part", choices=("rank", "suit"),
                    help="with --index: the run reads an index's rank or suit (corner-data --factors)")
    it = sub.add_parser("index-tune", help="choose the corner-index thresholds on held-out train photographs")
    it.add_argument("--real", required=True, help="real playing-card dataset, e.g. ../shared/datasets/playing-real")
    it.add_argument("--models", help="models folder (default: the repository's models/)")
    it.add_argument("--tune", type=float, default=0.1, help="held-out fraction, as given to corner-data")
    it.add_argument("--conf-min", type=float, default=0.0,
                    help="only index-detector confidences from this (fewer index crops per frame: a faster reader)")
    it.add_argument("--turns-max", type=int, default=8, help="at most this many views per index (1, 4 or 8)")
    it.add_argument("--hands", type=int, default=0,
                    help="also choose on this many rendered tables of fanned and spread hands (seeds 730000 on)")
    it.add_argument("--art-dir", help="card art and table textures for --hands (default: the shipped art)")
    it.add_argument("--tiles", action="store_true",
                    help="read table frames in tiles at their own resolution (index.tiles; else as the manifest has it)")
    it.add_argument("--skip-unreadable", action="store_true",
                    help="skip frames whose indices are too small to read (index.skip_unreadable; else as the manifest has it)")
    return ap


def _task_options(t: argparse.ArgumentParser) -> None:
    t.add_argument("--out", required=True, help="run directory, e.g. runs/hanafuda-detect")
    t.add_argument("--resume", action="store_true", help="continue the run in --out from weights/last.pt")
    t.add_argument("--deck", choices=("hanafuda", "playing"))
    src = t.add_mutually_exclusive_group()
    src.add_argument("--data", help="existing dataset: folder with data.yaml (detect/OBB) or train/<class>/ (classify)")
    src.add_argument("--render", type=int, metavar="N", help="render N synthetic scenes into the run")
    t.add_argument("--seed", type=int, default=0, help="first scene seed of --render")
    t.add_argument("--size", type=int, help="rendered image side (px)")
    t.add_argument("--style", help="art styles, comma-separated (default: the deck's shipped styles)")
    t.add_argument("--art-dir", help="folder laid out like shared/assets with more styles and table textures")
    t.add_argument("--classes", choices=SCHEMES, help="class scheme of --render")
    t.add_argument("--render-workers", type=int, default=1, help="rendering processes")
    t.add_argument("--crop-side", type=int, default=128,
                   help="classify: side (px) of the square crops rendered per card (0: upright exact crops)")
    t.add_argument("--crop-copies", type=int, default=2, help="classify: crops per card, each disturbed anew")
    t.add_argument("--crop-jitter", type=float, default=0.02,
                   help="classify: polygon disturbance, fraction of the card's long side (detector error)")
    t.add_argument("--crop-min-visible", type=float, default=0.35, help="classify: least visible fraction cropped")
    t.add_argument("--restyle", type=float, default=0.0, metavar="SHARE",
                   help="classify with --render: recolour this share of the rendered train crops with random "
                        "palettes (vision.train.restyle), so the classifier leans on shapes, not one art's colours")
    t.add_argument("--restyle-turn", type=float, default=180.0, metavar="STEPS",
                   help="--restyle: largest turn of the hue circle, in 2° steps (180, the default: any; less keeps "
                        "each colour near its own hue, e.g. 15)")
    t.add_argument("--randconv", type=float, default=0.0, metavar="SHARE",
                   help="classify with --render: pass this share of the rendered train crops (drawn independently "
                        "of --restyle) through a random convolution (vision.train.restyle), so the classifier "
                        "leans on shapes, not one art's textures and line weights")
    t.add_argument("--clutter", type=float, default=0.0, metavar="SHARE",
                   help="with --render: lay one to five things that are not cards (coasters, card boxes printed "
                        "with card art, rule sheets, dice, glasses, cups, phones) beside the cards of this share "
                        "of the scenes, unlabelled")
    t.add_argument("--detected-crops", action="store_true",
                   help="classify with rendered scenes: also cut each card where the shipped detector and outline "
                        "finder put it (vision.train.detected_crops), the crops the classifier gets at run time")
    t.add_argument("--real", help="real playing-card dataset to merge (its train split), e.g. ../shared/datasets/playing-real; "
                   "classify: crops cut by the shipped playing detector, named by their corner labels")
    t.add_argument("--imgsz", type=int, help="network input side (px); default 320, 160 for classify")
    t.add_argument("--epochs", type=int, default=100)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--time", type=float, metavar="HOURS", help="time budget; the schedule is fitted to it")
    t.add_argument("--train-seed", type=int, default=0, help="training seed (init, shuffling, augmentation)")
    t.add_argument("--device", help="cpu or a CUDA index (default: 0 when a GPU is visible, else cpu)")
    t.add_argument("--workers", type=int, help="data-loader processes (default 0 on CPU, 8 on a GPU)")
    t.add_argument("--patience", type=int, default=50, help="stop after this many epochs without improvement")
    t.add_argument("--weights", help="start from this checkpoint (e.g. runs/OLD/weights/best.pt)")
    t.add_argument("--lr0", type=float, help="initial learning rate (default: 0.001 for classify, "
                   "ultralytics' choice otherwise); lower to fine-tune --weights gently")
    t.add_argument("--threads", type=int, help="PyTorch CPU threads (default: one per core; ultralytics alone "
                   "would take one fewer)")
    t.add_argument("--no-plots", action="store_true", help="skip ultralytics' plots")


def _dataset(args: argparse.Namespace, run_dir: Path) -> tuple[str, dict]:
    """Render or locate the data; returns (ultralytics ``data`` argument, its ``config.json`` record)."""
    from vision.train import datasets

    if args.real and not (Path(args.real) / "data.yaml").is_file():
        raise ValueError(f"--real {args.real}: no data.yaml there (expected a folder like shared/datasets/playing-real)")
    for name in ("restyle", "randconv"):
        if getattr(args, name) and (args.task != "classify" or args.render is None):
            raise ValueError(f"--{name} alters rendered classifier crops: use it with classify and --render")
    _check_shares(args, "restyle", "randconv", "clutter")
    if args.clutter and args.render is None:
        raise ValueError("--clutter adds things to rendered scenes: use it with --render")
    if args.detected_crops and args.task != "classify":
        raise ValueError("--detected-crops cuts classifier crops: use it with classify")
    if args.restyle_turn < 0:
        raise ValueError(f"--restyle-turn is a number of hue steps, 0 or more (got {args.restyle_turn})")
    if args.real and args.task == "classify" and (args.deck != "playing" or args.render is None):
        raise ValueError("--real with classify needs --deck playing and rendered crops (--render)")
    if args.render is not None:
        if args.render < 10:
            raise ValueError("--render needs at least 10 scenes: val is the scenes with seed mod 10 = 8")
        styles = tuple(s.strip() for s in args.style.split(",") if s.strip()) if args.style \
            else datasets.DEFAULT_STYLES[args.deck]
        scheme = args.classes or ("recognition" if args.task == "classify" else "card")
        size = args.size or (640 if args.task == "classify" else args.imgsz)
        req = datasets.RenderRequest(deck=args.deck, count=args.render, seed=args.seed, size=size, task=args.task,
                                     classes=scheme, styles=styles, art_dir=args.art_dir,
                                     workers=args.render_workers, crop_side=args.crop_side,
                                     crop_copies=args.crop_copies, crop_jitter=args.crop_jitter,
                                     crop_min_visible=args.crop_min_visible, clutter=args.clutter)
        start = time.perf_counter()
        summary = datasets.render(req, run_dir / "data" / "synth")
        spent = time.perf_counter() - start
        data = run_dir / "data" / "synth"
        print(f"rendered {req.count} scenes into {data} in {spent:.1f} s: "
              + ", ".join(f"{k} {v['images']}" for k, v in summary["counts"].items()))
        record = {"source": "rendered", "dir": str(data.resolve()), "synth": summary, "render_seconds": round(spent, 1)}
    else:
        data = Path(args.data).resolve()
        record = {"source": "given", "dir": str(data), "synth": datasets.synth_summary(data)}
    if args.task == "classify":
        names = tuple(record["synth"]["names"]) if record["synth"] else None
        root = datasets.classify_root(data, names)
        if args.detected_crops:
            from vision.train.detected_crops import detected_crops

            scenes = data if (data / "truth").is_dir() else data.parent
            counts = detected_crops(scenes, root, args.deck, args.crop_side or 128, args.crop_min_visible,
                                    seed=args.seed)
            print("detected crops: " + "; ".join(f"{k} {v['crops']} from {v['scenes']} scenes ({v['missed']} cards missed)"
                                                 for k, v in counts.items()))
            record = {**record, "detected_crops": {**counts, "detector": f"models/{args.deck} (shipped)"}}
        if args.restyle or args.randconv:
            from vision.train.restyle import restyle_folder

            counts = restyle_folder(root / "train", args.restyle, args.seed, args.randconv, args.restyle_turn)
            print(f"restyled {counts['restyled']} of {counts['images']} rendered train crops"
                  + (f", {counts['filtered']} through a random convolution" if args.randconv else ""))
            record = {**record, "restyle": counts}
        if args.real:
            if args.deck != "playing" or not names:
                raise ValueError("--real with classify needs --deck playing and rendered crops (--render)")
            from vision.train.real_crops import real_crops

            counts = real_crops(Path(args.real), root / "train", names, args.crop_side or 128)
            print(f"real photos: {counts['crops']} named crops from {counts['photos']} train images "
                  f"({counts['cards_found']} cards found, {counts['unnamed']} without a corner label, "
                  f"{counts['ambiguous']} with two)")
            record = {**record, "real": {"dir": str(Path(args.real).resolve()), **counts,
                                         "detector": "models/playing (shipped)"}}
        return str(root), {**record, "classify_root": str(root)}
    data_yaml = datasets.dataset_yaml(data)
    if not args.real:
        return str(data_yaml.resolve()), {**record, "data_yaml": str(data_yaml.resolve())}
    if args.deck != "playing":
        raise ValueError("--real holds playing cards: use it with --deck playing")
    names = datasets.read_names(data_yaml)
    real = datasets.link_real(Path(args.real), names, run_dir / "data" / "real", obb=args.task == "obb")
    merged = datasets.detect_yaml(
        run_dir / "data" / "data.yaml", names,
        train=datasets.split_dirs(data_yaml, "train") + [run_dir / "data" / "real" / "images" / "train"],
        val=datasets.split_dirs(data_yaml, "val"),
        comment=f"rendered {data} + real train photos {real['dir']} (val: rendered only)",
    )
    return str(merged.resolve()), {**record, "real": real, "data_yaml": str(merged.resolve())}


def _train(args: argparse.Namespace, argv: list[str]) -> int:
    from vision.train import recipe, record

    run_dir = Path(args.out).resolve()
    if args.resume:
        task = record.read_config(run_dir)["recipe"]["task"]
        if task != args.task:
            raise ValueError(f"{run_dir} is a {task} run, not {args.task}")
        last = recipe.resumable_checkpoint(run_dir)
        record.append_resume(run_dir, argv, last)
        metrics = recipe.resume(run_dir, hours=args.time)
        _report(run_dir, metrics)
        return 0
    if args.deck is None or (args.data is None and args.render is None):
        raise ValueError("a new run needs --deck and --data or --render (or --resume)")
    if (run_dir / "weights" / "last.pt").exists():
        raise ValueError(f"{run_dir} already holds a run: --resume it or choose another --out")
    device = args.device or recipe.default_device()
    rec = recipe.Recipe(
        task=args.task, imgsz=args.imgsz or (160 if args.task == "classify" else 320), epochs=args.epochs,
        batch=args.batch, hours=args.time, seed=args.train_seed, device=device,
        workers=args.workers if args.workers is not None else (0 if device == "cpu" else 8),
        patience=args.patience, plots=not args.no_plots, weights=args.weights, lr0=args.lr0,
        threads=args.threads,
    )
    args.imgsz = rec.imgsz
    run_dir.mkdir(parents=True, exist_ok=True)
    data, dataset_record = _dataset(args, run_dir)
    record.write_config(run_dir, argv, dataset_record, rec.as_dict(), rec.train_args(data, run_dir))
    metrics = recipe.train(rec, data, run_dir)
    _report(run_dir, metrics)
    return 0


def _report(run_dir: Path, metrics: dict | None) -> None:
    shown = {k: round(float(v), 4) for k, v in (metrics or {}).items()
             if k.startswith("metrics/") or k == "fitness"}
    print(f"run {run_dir}: weights in {run_dir / 'weights'}; " + ", ".join(f"{k} {v}" for k, v in shown.items()))


def _export(args: argparse.Namespace) -> int:
    from vision.train import recipe, record

    run_dir = Path(args.run).resolve()
    config = record.read_config(run_dir)
    imgsz = args.imgsz or config["recipe"]["imgsz"]
    path = recipe.export(run_dir, args.format, imgsz)
    print(f"exported {path}")
    return 0


def _ship(args: argparse.Namespace) -> int:
    from vision.train import ship

    entry = ship.ship(Path(args.run), args.deck, Path(args.models) if args.models else None, args.size, args.index,
                      args.part)
    print(f"shipped {args.run} as {args.deck} {entry['stem']}: " + ", ".join(
        f"{k} {v}" for k, v in entry.items() if k in ("size", "side", "embedding", "sha256")))
    return 0


def _check_shares(args: argparse.Namespace, *names: str) -> None:
    """ValueError naming the first option of ``names`` that is not a share (0 … 1)."""
    for name in names:
        value = getattr(args, name)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"--{name} is a share, 0 … 1 (got {value})")


def _corner_data(args: argparse.Namespace) -> int:
    from vision.train import corners

    _check_shares(args, "invert", "blur")
    if args.stretch < 0:
        raise ValueError(f"--stretch is a σ, 0 or more (got {args.stretch})")
    out = Path(args.out)
    det = corners.detect_dataset(Path(args.real), out / "detect", args.tune)
    crops = corners.crop_dataset(Path(args.real), out / "crops", args.side, args.copies, args.tune, args.seed,
                                   args.stretch, args.invert, args.blur)
    print(f"corner-index detector data in {out / 'detect'}: " + "; ".join(
        f"{s} {c['images']} images of {c['photos']} photographs, {c['boxes']} boxes" for s, c in det.items()))
    print(f"corner-index crops in {out / 'crops'}: train {crops['train']}, val {crops['val']}")
    if args.art:
        styles = tuple(s.strip() for s in args.art.split(",") if s.strip())
        n = corners.art_crops(styles, out / "crops" / "train", args.side, args.art_copies, args.seed)
        print(f"index crops from the art of {', '.join(styles)}: {n} more in {out / 'crops' / 'train'}")
    if args.hands:
        from vision.train.hand_indices import hands_data

        h = hands_data(out, args.hands, args.hands_seed, art_dir=args.art_dir, side=args.side,
                       copies=args.hands_copies, tune=args.tune)
        print(f"rendered hands: {h['frames']} tables ({h['skipped']} already written), detector tiles train "
              f"{h['tiles']['train']}, val {h['tiles']['val']} ({h['boxes']} boxes), index crops train "
              f"{h['crops']['train']}, val {h['crops']['val']}")
    if args.factors:
        for part, c in corners.factor_datasets(out / "crops", out).items():
            print(f"{part} classifier data in {out / part}: {c['classes']} classes, {c['images']} crops")
    return 0


def _index_tune(args: argparse.Namespace) -> int:
    from vision.recognise.recogniser import Recogniser
    from vision.train import corners

    rec = Recogniser("playing", args.models, backends=("onnxruntime", "openvino", "torch"))
    if args.tiles or args.skip_unreadable:
        rec.index_params = replace(rec.index_params, tiles=args.tiles or rec.index_params.tiles,
                                   skip_unreadable=args.skip_unreadable or rec.index_params.skip_unreadable)
    result = corners.tune(rec, Path(args.real), args.tune, conf_min=args.conf_min, turns_max=args.turns_max,
                          hands=args.hands, art_dir=args.art_dir)
    corners.write_index(rec, result)
    print(f"index thresholds on {result['images']} held-out train images"
          + (f" and {result['hands']} rendered tables of hands" if result["hands"] else "")
          + f": per-image F1 {result['per_image_f1']:.3f} "
          f"with detector conf {result['conf']}, min_prob {result['min_prob']}, "
          f"{result['turns']} view(s) per index, unread cards kept from confidence {result['unread_min']} "
          f"(in close-ups from {result['close_px']} px), "
          f"readings split from confidence {result['split_prob']}, rank × suit weight {result['factor_weight']}, "
          f"unsure below {result['unsure_below']}; "
          f"written to {rec.manifest.folder / 'manifest.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the train command line; returns the exit code (2 for bad input or state)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    # find_spec, not import: ultralytics must first be imported by vision.train.offline, offline.
    if args.command not in NO_ULTRALYTICS and importlib.util.find_spec("ultralytics") is None:
        print("fudaba train: training needs ultralytics and torch: pip install 'fudaba[train]' into its own virtual "
              "environment (see docs/training.md)", file=sys.stderr)
        return 2
    try:
        if args.command == "export":
            return _export(args)
        if args.command == "ship":
            return _ship(args)
        if args.command == "corner-data":
            return _corner_data(args)
        if args.command == "index-tune":
            return _index_tune(args)
        args.task = args.command
        return _train(args, argv)
    except (ValueError, OSError) as e:
        print(f"fudaba train: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.command != "export":
            print(f"fudaba train: interrupted; continue with: fudaba train {args.command} --resume --out {args.out}",
                  file=sys.stderr)
        return 3
