"""Deck enrolment with a fine-tune: the shipped classifier trained a few minutes more on the user's deck.

The faces cut from the grid photos (:func:`vision.recognise.enrol.read_grid`) become art styles;
``train classify`` renders practice scenes with them and fine-tunes the shipped classifier's
``.pt`` on their crops (offline, like every run, :mod:`vision.train.offline`); ``train ship``
exports it to ONNX with its embedding output; then :func:`vision.recognise.enrol.enrol` builds the
profile with that classifier, which the profile names and keeps beside its ``.npz``.

The work lives in ``<profile>-work/`` until the profile is written: a run cut short (a closed
laptop) continues from its last epoch when the same command is given again (the same photos, by
their SHA-256; a work folder left by other photos is started afresh). Needs the ``train``
extra (ultralytics, torch); recognition with the result needs only ONNX Runtime.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from vision.recognise.enrol import EnrolledPhoto, enrol, read_grid, save_faces
from vision.recognise.manifest import file_sha256
from vision.recognise.profile import DeckProfile, load_profile
from vision.recognise.recogniser import Recogniser

FINE_TUNE_SCENES = 300
"""Scenes rendered with the deck's faces for the fine-tune (about 20 crops each)."""
FINE_TUNE_SEED = 95_000_000
"""First scene seed of the fine-tune's renders (of the deck's own faces; far from the seeds the bench tests on)."""
FINE_TUNE_MINUTES = 8.0
"""Training time; the epoch count (:data:`FINE_TUNE_EPOCHS` planned) is refitted to it."""
FINE_TUNE_EPOCHS = 10


def work_dir(out: Path) -> Path:
    """Where the fine-tune of the profile ``out`` keeps its run until the profile is written."""
    return out.with_name(f"{out.stem}-work")


def prepare_work(out: Path, deck: str, photos: Sequence[str | Path], scenes: int) -> Path:
    """The work folder of the fine-tune of ``out``, kept when it holds a fine-tune of the same photos
    (SHA-256 of each file), deck and scene count, else emptied (another fine-tune's leftovers)."""
    work = work_dir(out)
    same = json.dumps({"deck": deck, "photos": [file_sha256(Path(p)) for p in photos], "scenes": scenes})
    stamp = work / "photos.json"
    if work.exists() and (not stamp.is_file() or stamp.read_text(encoding="utf-8") != same):
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    stamp.write_text(same, encoding="utf-8")
    return work


def fine_tune(recogniser: Recogniser, photos: Sequence[str | Path], out: str | Path, extras: bool = False,
              minutes: float = FINE_TUNE_MINUTES, scenes: int = FINE_TUNE_SCENES, practice_scenes: int | None = None,
              seed: int = 0, workers: int = 2, absent: Sequence[str] = ()) -> tuple[DeckProfile, list[EnrolledPhoto]]:
    """Fine-tune ``recogniser``'s shipped classifier on the deck of the grid ``photos``, then enrol
    with it; returns the profile (saved to ``out`` with its classifier beside it) and the report.

    ValueError naming the photo and the problem for a photo that is not the grid.
    """
    from vision.train import cli, recipe

    out = Path(out)
    if out.suffix != ".npz":
        out = out.with_suffix(".npz")
    deck = recogniser.deck
    recogniser.use_profile(None)
    grids = [read_grid(recogniser, p, extras) for p in photos]
    work = prepare_work(out, deck, photos, scenes)
    art = work / "art" / deck
    styles = []
    for k, grid in enumerate(grids):
        save_faces(grid.faces(deck), art / f"enrolled-{k}")
        styles.append(f"enrolled-{k}")
    run = work / "run"
    weights = recogniser.manifest.classifier_stem.with_suffix(".pt")
    if not weights.is_file():
        raise ValueError(f"{weights}: the shipped classifier's weights are needed to fine-tune it")
    last = run / "weights" / "last.pt"
    if last.is_file() and recipe.checkpoint_epoch(last) >= 0:
        code = cli.main(["classify", "--out", str(run), "--resume"])
    elif not last.is_file():
        shutil.rmtree(run, ignore_errors=True)  # cut short while rendering: start again
        code = cli.main(["classify", "--deck", deck, "--render", str(scenes), "--seed", str(FINE_TUNE_SEED),
                         "--style", ",".join(styles), "--art-dir", str(work / "art"), "--weights", str(weights),
                         "--imgsz", str(recogniser.classifier.side), "--batch", "64",
                         "--epochs", str(FINE_TUNE_EPOCHS), "--time", f"{minutes / 60:.4f}",
                         "--render-workers", str(workers), "--no-plots", "--out", str(run)])
    else:
        code = 0  # trained already; the profile was not written yet
    if code != 0:
        raise ValueError(f"fine-tuning failed (exit {code}); run the same command again to continue from {run}")
    models = work / "models"
    if cli.main(["ship", str(run), "--deck", deck, "--models", str(models)]) != 0:
        raise ValueError(f"could not export the fine-tuned classifier of {run}")
    recogniser.use_classifier(models / deck / "classifier.onnx")
    try:
        profile, report = enrol(recogniser, photos, extras=extras, seed=seed, practice_scenes=practice_scenes,
                                absent=absent)
        profile = _with_meta(profile, {"fine_tune": {"scenes": scenes, "minutes": minutes, "seed": FINE_TUNE_SEED,
                                                     "base_classifier": recogniser.manifest.classifier.sha256}})
        profile.save(out)
    finally:
        recogniser.use_classifier(None)
    shutil.rmtree(work, ignore_errors=True)
    # "named right before enrolment": by the shipped classifier, not the fine-tuned one
    return load_profile(out), [replace(r, agreed=g.agreed) for r, g in zip(report, grids, strict=True)]


def _with_meta(profile: DeckProfile, extra: dict) -> DeckProfile:
    return replace(profile, meta={**profile.meta, **extra})
