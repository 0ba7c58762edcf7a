"""Deck profiles: the user's own card art, as reference embeddings, saved by ``fudaba enrol``.

A profile holds, for each enrolled card, several L2-normalised embeddings of the classifier
(the crop both ways up and slightly disturbed) labelled with its recognition class. It belongs to
the classifier that made it (by the SHA-256 of its ONNX file): another classifier's embeddings
live in another space, so loading a profile for a different model is refused.

File format: one ``.npz`` with arrays ``embeddings`` (K × D float32) and ``labels`` (K, int: class
index), ``head_w``/``head_b`` (the head, when fitted) and ``meta`` (a JSON string: deck, classifier
hash, class names, photos, when). A profile made with a classifier fine-tuned on the deck
(``fudaba enrol --fine-tune``) also names that classifier's ONNX file (``classifier_file`` in
``meta``), kept beside the ``.npz`` as ``<name>-classifier.onnx``; recognition then runs it.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class DeckProfile:
    """Reference embeddings of one physical deck."""

    deck: str
    classifier_sha256: str
    names: tuple[str, ...]
    embeddings: np.ndarray
    labels: np.ndarray
    meta: dict

    head: tuple[np.ndarray, np.ndarray] | None = None
    """(W, b): a linear classifier over the enrolled classes fitted to the references (:func:`fit_head`)."""
    classifier: Path | None = None
    """The ONNX classifier fine-tuned on this deck the embeddings come from; None: the shipped one."""

    def class_scores(self, embeddings: np.ndarray) -> tuple[np.ndarray, float]:
        """(N, classes) scores and the temperature to divide them by: the head's logits (temperature 1)
        when the profile has a head, else the best cosine similarity per class (temperature ``tau``,
        decided by the caller: returned as 0)."""
        if self.head is None:
            return self.class_similarity(embeddings), 0.0
        w, b = self.head
        out = np.full((len(embeddings), len(self.names)), -np.inf, np.float32)
        out[:, self.enrolled] = embeddings @ w.T + b
        return out, 1.0

    def class_similarity(self, embeddings: np.ndarray) -> np.ndarray:
        """(N, classes) best cosine similarity of each embedding to each class's references (−inf: none)."""
        sims = embeddings @ self.embeddings.T
        out = np.full((len(embeddings), len(self.names)), -np.inf, np.float32)
        for c in np.unique(self.labels):
            out[:, c] = sims[:, self.labels == c].max(axis=1)
        return out

    @property
    def enrolled(self) -> np.ndarray:
        """Boolean mask of the classes with references."""
        m = np.zeros(len(self.names), bool)
        m[np.unique(self.labels)] = True
        return m

    @property
    def absent(self) -> np.ndarray:
        """Boolean mask of the classes the owner said their deck does not have (``meta["absent"]``,
        ``fudaba enrol --absent``): recognition lowers them (:func:`lowered`)."""
        gone = set(self.meta.get("absent", ()))
        return np.array([n in gone for n in self.names], bool)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {**self.meta, "deck": self.deck, "classifier_sha256": self.classifier_sha256, "names": list(self.names)}
        meta.pop("classifier_file", None)
        if self.classifier is not None:
            beside = path.with_name(f"{path.stem}-classifier.onnx")
            if Path(self.classifier).resolve() != beside.resolve():
                shutil.copyfile(self.classifier, beside)
            meta["classifier_file"] = beside.name
        head = {} if self.head is None else {"head_w": self.head[0].astype(np.float32),
                                             "head_b": self.head[1].astype(np.float32)}
        np.savez_compressed(path, embeddings=self.embeddings.astype(np.float32), labels=self.labels.astype(np.int32),
                            meta=np.array(json.dumps(meta)), **head)
        return path


def load_profile(path: str | Path) -> DeckProfile:
    """Read a profile written by :meth:`DeckProfile.save`; ValueError saying what the file is instead
    (missing, a folder, not a ``.npz``, an archive without a profile's arrays)."""
    path = Path(path)

    def refused(what: str) -> ValueError:
        return ValueError(f"{path}: {what}; a deck profile is the .npz file `fudaba enrol` writes")

    if not path.exists():
        raise refused("no such file")
    if path.is_dir():
        raise refused("a folder, not a deck profile")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise refused(f"cannot be read ({e.strerror or e})") from None
    if magic != b"PK\x03\x04":  # every .npz is a zip archive
        raise refused("not a deck profile (" + ("a single NumPy array, .npy" if magic == b"\x93NUM"
                                                else "not a .npz archive") + ")")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in ("meta", "embeddings", "labels") if k not in z.files]
            meta = None if missing else json.loads(str(z["meta"]))
            if not missing:
                emb, labels = z["embeddings"], z["labels"]
                head = (z["head_w"], z["head_b"]) if "head_w" in z.files else None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        # not numpy's own words: its advice on allow_pickle says nothing to whoever passed --profile
        raise refused("not a deck profile (a damaged or different .npz archive)") from None
    if missing:
        raise refused(f"not a deck profile (a .npz without {', '.join(missing)})")
    if not isinstance(meta, dict) or not {"deck", "classifier_sha256", "names"} <= set(meta):
        raise refused("not a deck profile (its meta does not name the deck, classifier and classes)")
    if emb.ndim != 2 or len(emb) != len(labels):
        raise refused("not a deck profile (its embeddings and labels disagree)")
    classifier = None
    if meta.get("classifier_file"):
        classifier = path.parent / meta["classifier_file"]
        if not classifier.is_file():
            raise ValueError(f"{path}: its fine-tuned classifier {classifier.name} is missing; keep it beside the profile")
    return DeckProfile(meta["deck"], meta["classifier_sha256"], tuple(meta["names"]), emb, labels, meta, head,
                       classifier)


def fit_head(embeddings: np.ndarray, labels: np.ndarray, n_classes: int, steps: int = 400, lr: float = 0.05,
             l2: float = 1e-4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A softmax-regression head over the enrolled classes (in the order of ``np.unique(labels)``),
    fitted to the reference embeddings by full-batch Adam in float32 (the embeddings' own precision;
    twice as fast as float64 on this machine with the same predictions); returns (W, b)."""
    classes = np.unique(labels)
    y = np.searchsorted(classes, labels)
    k, d = len(classes), embeddings.shape[1]
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.01, (k, d)).astype(np.float32)
    b = np.zeros(k, np.float32)
    moments = [(np.zeros_like(w), np.zeros_like(w)), (np.zeros_like(b), np.zeros_like(b))]
    x = np.ascontiguousarray(embeddings, dtype=np.float32)
    xt = np.ascontiguousarray(x.T)
    onehot = np.eye(k, dtype=np.float32)[y]
    n = np.float32(len(x))
    for t in range(1, steps + 1):
        z = x @ w.T + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) / n
        grads = ((xt @ g).T + l2 * w, g.sum(axis=0))
        c1, c2 = 1 - 0.9**t, 1 - 0.999**t
        for param, grad, (m, v) in zip((w, b), grads, moments, strict=True):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= (lr / c1) * m / (np.sqrt(v / c2) + 1e-8)
    return w, b


ABSENT_FACTOR = 1e-3
"""How much a class absent from the deck is lowered: its probability is multiplied by this, then
every row renormalised (a crop is named after it only where nothing else is near)."""


def absent_classes(names: Sequence[str], absent: Sequence[str], enrolled: Sequence[str]) -> list[str]:
    """``absent`` checked against the classifier's ``names`` and the cards enrolled; ValueError
    naming what cannot be absent (an unknown class, a card back, a card that was enrolled)."""
    out = []
    for name in absent:
        if name not in names:
            raise ValueError(f"--absent {name}: not a class of this deck's classifier ({', '.join(sorted(names)[:6])} …)")
        if name.lower() == "back":
            raise ValueError("--absent back: every deck has backs")
        if name in enrolled:
            raise ValueError(f"--absent {name}: that card is on the grid photo, so the deck has it")
        out.append(name)
    return sorted(set(out))


def lowered(probs: np.ndarray, absent: np.ndarray, factor: float = ABSENT_FACTOR) -> np.ndarray:
    """``probs`` (N × classes) with the ``absent`` classes multiplied by ``factor``, rows renormalised."""
    if not absent.any():
        return probs
    out = probs.copy()
    out[:, absent] *= factor
    return out / out.sum(axis=1, keepdims=True)


def blend(probs: np.ndarray, profile_sims: np.ndarray, enrolled: np.ndarray, weight: float, tau: float) -> np.ndarray:
    """Network probabilities blended with a profile's: geometric mix ``p_net^(1−w) · q^w``, renormalised.

    ``q`` spreads the mass the network gives the enrolled classes over them by ``softmax(sim / tau)``;
    classes without references (a card back) keep the network's probability.
    """
    if not enrolled.any():
        return probs
    s = profile_sims[:, enrolled] / tau
    s = s - s.max(axis=1, keepdims=True)
    q_e = np.exp(s)
    q_e /= q_e.sum(axis=1, keepdims=True)
    q = probs.copy()
    q[:, enrolled] = q_e * probs[:, enrolled].sum(axis=1, keepdims=True)
    logp = (1 - weight) * np.log(np.clip(probs, 1e-12, 1)) + weight * np.log(np.clip(q, 1e-12, 1))
    logp -= logp.max(axis=1, keepdims=True)
    p = np.exp(logp)
    return p / p.sum(axis=1, keepdims=True)
