"""Unseen art style: how much a deck-balanced correction learnt from unlabelled frames would help.

A one-style classifier (``--cross MODELS=STYLE``, as in bench/recognition.py) meets a deck of an
art it never saw. Without enrolment nothing tells it the answers, but one thing is known: over
many frames a deck's cards turn up about as often as the deck holds them (each face once, a
month's plains as many as it has). This bench measures what that knowledge is worth, on rendered
**validation** scenes only (seed ≡ 8 mod 10; never a test scene):

1. the face-up crops the detector finds in ``--adapt`` unlabelled scenes of the style (seeds from
   820,008) are classified;
2. Sinkhorn scaling finds one weight per class that makes those answers' class totals match the
   deck's (``balanced_alpha1.0``; ``balanced_alpha0.5`` scales the probabilities' square roots);
3. a linear head is fitted to the crops' embeddings with the balanced answers as labels
   (``head``, keeping answers of balanced probability ≥ each of :data:`HEAD_MIN`), as enrolment
   fits one to a grid photo's;
4. the matched cards of ``--scenes`` other validation scenes (seeds from 800,008) are named by
   the network alone, with the class weights, and by each head (a card the network calls face
   down keeps its answer).

With ``--test`` the cards measured are those of bench/recognition.py's unseen-style test scenes
instead (150 scenes, seed ≡ 9 mod 10 from 700,000), to report after a variant was chosen on the
validation scenes. It chooses nothing and ships nothing: recognition does not adapt this way (docs/recognition.md
says why). ``--min-visible`` 1.0 counts fully visible cards only (from ``SEEN_WHOLE``, as the
benches do).

    python bench/stream_balance.py --cross runs/xe-mantia/models=classic runs/xe-classic/models=mantia
        [--adapt 100] [--scenes 60] [--min-visible 0.4] [--test] [--json bench/out/stream-balance.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recognition import test_seeds  # noqa: E402  (bench/, the script's own folder)
from validation import write  # noqa: E402

from scorer.cards import hanafuda_ids  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.classifier import normalise, temper  # noqa: E402
from vision.recognise.confidence import matched_scores, val_seeds  # noqa: E402
from vision.recognise.evaluate import SEEN_WHOLE, render_scenes  # noqa: E402
from vision.recognise.profile import fit_head  # noqa: E402
from vision.synth.classes import recognition_name  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ADAPT_SEED, EVAL_SEED = 820000, 800000
TEST_SEED, TEST_SCENES = 700000, 150
"""bench/recognition.py's unseen-style test scenes (``--seed``, ``--unseen-scenes``)."""
HEAD_MIN = (0.0, 0.5, 0.8)
"""Least balanced probability of an answer the head is fitted to."""


def deck_prior(names: tuple[str, ...]) -> np.ndarray:
    """Share of a hanafuda deck's 48 cards in each recognition class (0 for the blank and the back)."""
    prior = np.zeros(len(names))
    for card in hanafuda_ids():
        prior[names.index(recognition_name(card))] += 1
    return prior / prior.sum()


def balance(probs: np.ndarray, prior: np.ndarray, iters: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Sinkhorn scaling: (class weights v, balanced answers Q) with Q ∝ probs · v row by row and
    Q's class totals ``len(probs) · prior``. ``probs`` and ``prior`` cover the same classes."""
    target = prior / prior.sum() * len(probs)
    v = np.ones(probs.shape[1])
    for _ in range(iters):
        u = 1.0 / (probs * v).sum(axis=1)
        v = target / (probs * u[:, None]).sum(axis=0)
    q = probs * v
    return v, q / q.sum(axis=1, keepdims=True)


def measure(models: str, style: str, args) -> dict:
    rec = Recogniser("hanafuda", models)
    names = rec.classifier.names
    prior = deck_prior(names)
    face = prior > 0
    probs, embs = [], []
    for image, _ in render_scenes("hanafuda", (style,), val_seeds(ADAPT_SEED, args.adapt), args.art_dir):
        dets = rec.detector.detect([image])[0]
        if dets:
            _, p, e = rec.named_outlines(image, dets, rec.classifier.raw)
            probs.append(p)
            embs.append(e)
    p_adapt = temper(np.concatenate(probs), rec.classifier.temperature)
    e_adapt = normalise(np.concatenate(embs))
    up = p_adapt[:, face].sum(axis=1) > 0.5  # face-up answers only
    p_adapt, e_adapt = p_adapt[up], e_adapt[up]
    seeds = test_seeds(TEST_SEED, TEST_SCENES) if args.test else val_seeds(EVAL_SEED, args.scenes)
    frames, labels = zip(*render_scenes("hanafuda", (style,), seeds, args.art_dir), strict=True)
    p_eval, e_eval, truth = matched_scores(rec, frames, labels, min(args.min_visible, SEEN_WHOLE))
    p_eval, e_eval = temper(p_eval, rec.classifier.temperature), normalise(e_eval)

    down = p_eval[:, face].sum(axis=1) <= 0.5  # cards the network calls face down keep its answer

    def accuracy(p: np.ndarray) -> float:
        named = np.where(down, p_eval.argmax(axis=1), p.argmax(axis=1))
        return round(float((named == truth).mean()), 4)

    out = {"adapt_crops": int(len(p_adapt)), "cards": int(len(truth)), "network": accuracy(p_eval)}
    faces = np.flatnonzero(face)
    for alpha in (1.0, 0.5):
        v, q = balance(p_adapt[:, face] ** alpha, prior[face])
        weighted = np.zeros_like(p_eval)
        weighted[:, face] = p_eval[:, face] ** alpha * v
        out[f"balanced_alpha{alpha}"] = accuracy(weighted)
        labels_q, sure = faces[q.argmax(axis=1)], q.max(axis=1)
        for least in HEAD_MIN:
            keep = sure >= least
            w, b = fit_head(e_adapt[keep], labels_q[keep], len(names), steps=1500, l2=1e-5)
            classes = np.unique(labels_q[keep])
            head = np.zeros_like(p_eval)
            head[:, classes] = e_eval @ w.T + b
            head[:, np.setdiff1d(np.arange(len(names)), classes)] = -np.inf
            out[f"head_alpha{alpha}_min{least}"] = accuracy(head)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cross", nargs="+", required=True, help="MODELS=STYLE: a one-style classifier and the style it never saw")
    ap.add_argument("--adapt", type=int, default=100, help="unlabelled validation scenes to learn the correction from")
    ap.add_argument("--scenes", type=int, default=60, help="validation scenes to measure on")
    ap.add_argument("--min-visible", type=float, default=0.4)
    ap.add_argument("--test", action="store_true", help="measure on the unseen-style test scenes (to report, not to choose)")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "stream-balance.json"))
    args = ap.parse_args()
    table = {}
    for spec in args.cross:
        models, _, style = spec.partition("=")
        table[spec] = measure(models, style, args)
        print(f"{spec} (cards seen ≥ {args.min_visible:.0%}): " + ", ".join(f"{k} {v}" for k, v in table[spec].items()))
    write({"args": {k: v for k, v in vars(args).items() if k != "json"}, "results": table}, Path(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
