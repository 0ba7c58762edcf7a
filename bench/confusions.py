"""The shipped recognisers' confusions in sight names: what a real camera's mistakes look like, for the
tracking benchmark to inject.

Each deck's shipped recogniser (``models/<deck>/``) reads:

- ``rendered``: top-down 1280×720 tables with 20 cards (:func:`vision.synth.fixed_scenes.topdown_scene`,
  as bench/recognition.py's ``heldout`` top-down frames), ``--frames`` test-split seeds (≡ 9 mod 10)
  from ``--seed`` on, in every shipped style of the deck (hanafuda ``mantia``, ``classic``,
  ``kokujou``; playing ``knoll``, ``jumbo``; the art from ``--art-dir``). A face-up card at least
  :data:`~vision.recognise.geometry.SEEN_ENOUGH` in view is assessed (as
  :func:`vision.evaluate.recognition.accuracy` counts); its reading is the recognised card its box
  matches (:func:`vision.recognise.geometry.match`, over every true card), else a card named by a
  corner index alone whose index lies inside its outline.
- ``real`` (playing cards only): the val split of ``--real`` (``playing-real``), read as
  bench/recognition.py's ``real`` section reads it: a card is in an image if any of its corner labels
  is. A true card is named right when a recognised face-up card has its name (one holding one of its
  corner labels' centres first); else its reading is the unused recognised face-up card holding the
  centre of one of its corner labels (the most confident), else it is missed.

Answers are compared by sight name (:func:`scorer.table.sight_name`: plains of a month share one),
as the tracker compares them; a card's probabilities are those the stabiliser gives the tracker
(:func:`vision.stabilise.seen_card`: its label and alternatives, backs left out). A true card is
``correct``, ``wrong`` (the name given, that name's probability and the true name's, 0 when it is
not among the card's alternatives) or ``missed`` (no reading, or read as a back). A recognised face-up
card no true card claims is a phantom (a card found twice, a card where there is none); the
probability of its name is kept (and, printed, how many have the name of a true card in view: mostly
a card found twice). Face-down true cards are not assessed: the ones read face up are
counted apart (printed and in ``--json``).

Writes ``bench/data/confusions-<deck>.json`` (inputs of the tracking benchmark, committed) and the
printed figures to ``--json``.

    python bench/confusions.py [--frames 200] [--seed 830000] [--real-images 0]
        [--art-dir ../shared/assets] [--real ../shared/datasets/playing-real] [--decks hanafuda,playing]
        [--data bench/data] [--json bench/out/confusions.json]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.cards import deck as deck_spec  # noqa: E402
from scorer.table import sight_name  # noqa: E402
from vision.evaluate.recognition import render_scenes  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.geometry import SEEN_ENOUGH, match  # noqa: E402
from vision.stabilise import seen_card  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FULL_DECK = {"hanafuda": "hanafuda+blank", "playing": "playing+jokers"}
"""Per deck family, the deck spec holding every card the recogniser can name."""


def test_seeds(first: int, count: int) -> list[int]:
    """``count`` test-split seeds (≡ 9 mod 10) from ``first`` on."""
    start = first + (9 - first) % 10
    return [start + 10 * k for k in range(count)]


def sight_names(deck: str) -> list[str]:
    """Every sight name of a deck family, sorted."""
    return sorted({sight_name(c) for c in deck_spec(FULL_DECK[deck]).cards})


class Tally:
    """Answers per true sight name, and phantoms, of one source."""

    def __init__(self) -> None:
        self.assessed: Counter[str] = Counter()
        self.correct = 0
        self.confusions: dict[str, Counter[str]] = {}
        self.missed: Counter[str] = Counter()
        self.wrong_p: list[float] = []
        self.true_p: list[float] = []
        self.frames = 0
        self.phantoms = 0
        self.phantom_p: list[float] = []
        self.phantoms_named_present = 0
        self.face_down_read_up = 0
        self.seconds = 0.0

    def answer(self, truth: str, card) -> None:
        """A true card of sight name ``truth`` and its reading (a recognised card, or None)."""
        self.assessed[truth] += 1
        if card is None or not card.face_up:
            self.missed[truth] += 1
            return
        probs = dict(seen_card(card))
        if card.label == truth:
            self.correct += 1
            return
        self.confusions.setdefault(truth, Counter())[card.label] += 1
        self.wrong_p.append(round(probs.get(card.label, float(card.confidence)), 3))
        self.true_p.append(round(probs.get(truth, 0.0), 3))

    def phantom(self, card, present: set[str]) -> None:
        """A recognised face-up card no true card claims; ``present``: the frame's true sight names."""
        self.phantoms += 1
        self.phantoms_named_present += card.label in present
        self.phantom_p.append(round(dict(seen_card(card)).get(card.label, float(card.confidence)), 3))

    @property
    def cards(self) -> int:
        return sum(self.assessed.values())

    @property
    def wrong(self) -> int:
        return sum(sum(row.values()) for row in self.confusions.values())

    def add(self, other: Tally) -> None:
        self.assessed += other.assessed
        self.correct += other.correct
        for t, row in other.confusions.items():
            self.confusions.setdefault(t, Counter()).update(row)
        self.missed += other.missed
        self.wrong_p += other.wrong_p
        self.true_p += other.true_p
        self.frames += other.frames
        self.phantoms += other.phantoms
        self.phantom_p += other.phantom_p
        self.phantoms_named_present += other.phantoms_named_present
        self.face_down_read_up += other.face_down_read_up
        self.seconds += other.seconds

    def rates(self) -> dict:
        n = max(1, self.cards)
        return {"cards": self.cards, "correct": self.correct, "wrong": self.wrong, "missed": sum(self.missed.values()),
                "phantoms": self.phantoms, "frames": self.frames, "error_rate": round(self.wrong / n, 5),
                "miss_rate": round(sum(self.missed.values()) / n, 5),
                "phantoms_per_frame": round(self.phantoms / max(1, self.frames), 4),
                "phantoms_named_as_a_card_present": self.phantoms_named_present,
                "face_down_read_up": self.face_down_read_up, "seconds": round(self.seconds, 1)}


def _inside(poly, x: float, y: float) -> bool:
    import cv2

    return cv2.pointPolygonTest(np.asarray(poly, np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0


def _centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def score_rendered(tally: Tally, labels, cards) -> None:
    """One rendered frame's true cards (``labels``) against the recognised ``cards``."""
    truth = [t for t in labels.cards if t.visible > 0]
    idx = match([c.box for c in cards], truth)
    used = {i for i in idx if i is not None}
    # a card seen only by its corner index (its box the index's) reads the unmatched true card holding it
    loose = [k for k, c in enumerate(cards) if k not in used and c.index_only and c.face_up]
    for ti, t in enumerate(truth):
        if idx[ti] is not None or not t.face_up or t.visible < SEEN_ENOUGH:
            continue
        held = [k for k in loose if k not in used and _inside(t.polygon, *_centre(cards[k].box))]
        if held:
            k = max(held, key=lambda k: (cards[k].label == sight_name(t.card_id), cards[k].confidence))
            idx[ti] = k
            used.add(k)
    for ti, t in enumerate(truth):
        c = cards[idx[ti]] if idx[ti] is not None else None
        if not t.face_up:
            tally.face_down_read_up += c is not None and c.face_up
            continue
        if t.visible >= SEEN_ENOUGH:
            tally.answer(sight_name(t.card_id), c)
    for k, c in enumerate(cards):
        # an index-only card inside a true face-up card of its name is that card seen again, not a phantom
        if k in used or not c.face_up or (c.index_only and any(
                t.face_up and sight_name(t.card_id) == c.label and _inside(t.polygon, *_centre(c.box)) for t in truth)):
            continue
        tally.phantom(c, {sight_name(t.card_id) for t in truth if t.face_up})
    tally.frames += 1


def _holds(card, corner) -> bool:
    """Whether recognised ``card`` holds the corner label box ``corner`` (x0, y0, x1, y1)."""
    if _inside(card.polygon, *_centre(corner)):
        return True
    cx, cy = _centre(card.box)
    return card.index_only and corner[0] <= cx <= corner[2] and corner[1] <= cy <= corner[3]


def score_real(tally: Tally, corners: list[tuple[str, tuple]], cards) -> None:
    """One real photograph's corner labels (``(card id, box)``) against the recognised ``cards``."""
    up = [c for c in cards if c.face_up and c.card_ids]
    boxes: dict[str, list[tuple]] = {}
    for cid, box in corners:
        boxes.setdefault(sight_name(cid), []).append(box)
    holds = [{t for t, bs in boxes.items() if any(_holds(c, b) for b in bs)} for c in up]
    used: set[int] = set()
    reading: dict[str, int | None] = {}
    for t in boxes:  # named right: a card of its name, one holding it first
        named = [k for k, c in enumerate(up) if c.label == t and k not in used]
        if named:
            k = max(named, key=lambda k: (t in holds[k], up[k].confidence))
            reading[t] = k
            used.add(k)
    for t in boxes:
        if t in reading:
            continue
        held = [k for k, c in enumerate(up) if k not in used and t in holds[k]]
        k = max(held, key=lambda k: up[k].confidence) if held else None
        reading[t] = k
        if k is not None:
            used.add(k)
    for t in sorted(boxes):
        tally.answer(t, up[reading[t]] if reading[t] is not None else None)
    for k, c in enumerate(up):
        if k not in used:
            tally.phantom(c, set(boxes))
    tally.frames += 1


def rendered(rec: Recogniser, deck: str, styles, seeds, art_dir) -> dict[str, Tally]:
    out = {}
    for style in styles:
        tally = Tally()
        t0 = time.perf_counter()
        for image, labels in render_scenes(deck, [style], seeds, art_dir, (1280, 720), topdown_scene):
            score_rendered(tally, labels, rec.recognise(image))
        tally.seconds = time.perf_counter() - t0
        r = tally.rates()
        print(f"  {deck} rendered {style}: {r['frames']} frames, {r['cards']} cards: {r['wrong']} wrong "
              f"({_pct(r['error_rate'])}), {r['missed']} missed ({_pct(r['miss_rate'])}), {r['phantoms']} phantoms "
              f"({r['phantoms_per_frame']:.3f} per frame, {r['phantoms_named_as_a_card_present']} named as a card in view), {r['face_down_read_up']} face-down cards read face up; "
              f"{r['seconds']:.0f} s", flush=True)
        out[style] = tally
    return out


def real(rec: Recogniser, root: Path, limit: int | None) -> tuple[Tally, int]:
    import cv2

    from vision.train.corners import corner_labels, split_images

    tally = Tally()
    images = split_images(root, "val")
    if limit is not None:
        images = images[:limit]
    t0 = time.perf_counter()
    for img in images:
        frame = cv2.imread(str(img), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{img}: not an image")
        h, w = frame.shape[:2]
        score_real(tally, corner_labels(root, "val", img, w, h), rec.recognise(frame))
    tally.seconds = time.perf_counter() - t0
    r = tally.rates()
    print(f"  playing real (val, {len(images)} images), {r['cards']} cards: {r['wrong']} wrong "
          f"({_pct(r['error_rate'])}), {r['missed']} missed ({_pct(r['miss_rate'])}), {r['phantoms']} phantoms "
          f"({r['phantoms_per_frame']:.3f} per image, {r['phantoms_named_as_a_card_present']} named as a card in it: a card found twice); {r['seconds']:.0f} s", flush=True)
    return tally, len(images)


def _pct(x) -> str:
    return f"{100 * x:.2f} %"


def commonest(tally: Tally, n: int = 10) -> list[tuple[str, str, int]]:
    pairs = [(t, w, k) for t, row in tally.confusions.items() for w, k in row.items()]
    return sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))[:n]


def data_file(deck: str, commit: str, command: str, sources: dict, tally: Tally, by_source: dict) -> dict:
    """The committed shape (bench/data/confusions-<deck>.json)."""
    return {
        "deck": deck, "commit": commit, "command": command, "sources": sources, "names": sight_names(deck),
        "cards": tally.cards, "correct": tally.correct,
        "confusions": {t: dict(sorted(row.items())) for t, row in sorted(tally.confusions.items())},
        "assessed": dict(sorted(tally.assessed.items())), "missed": dict(sorted(tally.missed.items())),
        "wrong_p": tally.wrong_p, "true_p_when_wrong": tally.true_p,
        "frames": tally.frames, "phantoms": tally.phantoms, "phantom_p": tally.phantom_p,
        "by_source": {k: None if v is None else {key: v.rates()[key] for key in ("cards", "correct", "missed", "phantoms", "frames")}
                      for k, v in by_source.items()},
    }


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "vision/recognise", "vision/evaluate",
                            "vision/synth", "vision/stabilise.py", "vision/cardcrop.py", "models", "scorer/table.py",
                            "scorer/cards.py"],
                           cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    if dirty:
        print(f"warning: uncommitted changes under the recognition code:\n{dirty}", flush=True)
    return out.stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--decks", default="hanafuda,playing", help="deck families, comma-separated")
    ap.add_argument("--frames", type=int, default=200, help="rendered top-down 1280x720 frames per style")
    ap.add_argument("--seed", type=int, default=830000, help="the first rendered seed (test split, no tuning saw 830000+)")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--real", default=str(REPO.parent / "shared" / "datasets" / "playing-real"))
    ap.add_argument("--real-images", type=int, default=None,
                    help="playing: read only the first N images of the real val split (default all; 0: none)")
    ap.add_argument("--data", default=str(REPO / "bench" / "data"), help="folder of confusions-<deck>.json")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "confusions.json"))
    args = ap.parse_args()
    command = "python bench/confusions.py" + ("" if len(sys.argv) == 1 else " " + shlex.join(sys.argv[1:]))
    commit = _commit()
    seeds = test_seeds(args.seed, args.frames)
    printed: dict = {"commit": commit, "command": command}
    for deck in [d.strip() for d in args.decks.split(",") if d.strip()]:
        rec = Recogniser(deck, args.models)
        styles = list(rec.manifest.styles)
        print(f"{deck}: styles {', '.join(styles)}, {len(seeds)} frames each from seed {seeds[0]} ({rec.backend})", flush=True)
        per_style = rendered(rec, deck, styles, seeds, args.art_dir)
        ren = Tally()
        for t in per_style.values():
            ren.add(t)
        real_tally, sources = None, {"rendered": {"frames": ren.frames, "styles": styles, "first_seed": seeds[0]},
                                     "real": None}
        if deck == "playing" and args.real_images != 0:
            root = Path(args.real).resolve()
            real_tally, n = real(rec, root, args.real_images)
            sources["real"] = {"images": n, "path": str(root.relative_to(REPO.parent)) if root.is_relative_to(REPO.parent)
                               else str(root)}
        total = Tally()
        total.add(ren)
        if real_tally is not None:
            total.add(real_tally)
        doc = data_file(deck, commit, command, sources, total, {"rendered": ren, "real": real_tally})
        path = Path(args.data) / f"confusions-{deck}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
        rates = {"all": total.rates(), "rendered": ren.rates(), **({"real": real_tally.rates()} if real_tally else {}),
                 "per_style": {s: t.rates() for s, t in per_style.items()}}
        top = commonest(total)
        for key in ("all", "rendered", "real"):
            if key in rates:
                r = rates[key]
                print(f"{deck} {key}: {r['cards']} cards in {r['frames']} frames: error {_pct(r['error_rate'])}, "
                      f"miss {_pct(r['miss_rate'])}, phantoms {r['phantoms_per_frame']:.3f} per frame")
        wrong = total.wrong
        print(f"{deck}: commonest confusions (true -> read, of {wrong} wrong):")
        for t, w, k in top:
            print(f"  {t} -> {w}: {k} ({_pct(k / max(1, wrong))} of errors)")
        if total.wrong_p:
            print(f"{deck}: wrong answers' probability median {np.median(total.wrong_p):.3f}; true name's median "
                  f"{np.median(total.true_p):.3f}; phantoms' median "
                  f"{np.median(total.phantom_p) if total.phantom_p else float('nan'):.3f} "
                  f"({sum(p >= 0.9 for p in total.phantom_p)} of {total.phantoms} at 0.9 or more)")
        print(f"wrote {path} ({path.stat().st_size} bytes)", flush=True)
        printed[deck] = {**rates, "commonest": [{"true": t, "read": w, "count": k} for t, w, k in top],
                         "wrong_p_median": float(np.median(total.wrong_p)) if total.wrong_p else None,
                         "phantom_p_median": float(np.median(total.phantom_p)) if total.phantom_p else None,
                         "sources": sources, "data": str(path)}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(printed, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
