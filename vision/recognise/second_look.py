"""A second look at the cards the classifier is least sure of.

A card's crop is cut along the outline the detector gives; for a card partly under another, or
seen by a tilted camera, that outline is a few per cent off the card's true corners
(``bench/outline_toll.py``), and a crop cut a little off names a card less surely — sometimes
wrongly. Cards whose highest probability is under :attr:`SecondLook.below` are cut again along
nearby outlines (the outline shrunk and grown about its centre by :attr:`SecondLook.scale`, and
moved by :attr:`SecondLook.shift` of each side's length along each of its two axes, both ways:
six more crops) and the probabilities of all seven crops are pooled: ``mean`` averages them,
``max`` keeps the crop whose answer is the most confident (and its outline). Sure cards, the great
majority, cost nothing more.

The manifest's ``"second_look"`` entry (``{"below": 0.9, "scale": 0.06, "shift": 0.05, "pool":
"mean"}``) switches it on for a deck; absent, recognition takes one look.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POOLS = ("mean", "max")


@dataclass(frozen=True, slots=True)
class SecondLook:
    """When and how a card gets a second look."""

    below: float
    """Highest probability (as the recogniser's scorer gives it) under which a card is looked at again."""
    scale: float = 0.06
    """Relative size change of the shrunk and grown outlines."""
    shift: float = 0.05
    """Move of the shifted outlines, as a fraction of the side they move along."""
    pool: str = "mean"
    """How the crops' probabilities are pooled: ``mean`` or ``max`` (:data:`POOLS`)."""

    def __post_init__(self) -> None:
        if self.pool not in POOLS:
            raise ValueError(f"second look: pool must be one of {', '.join(POOLS)}, not {self.pool!r}")
        if not 0.0 <= self.below <= 1.0:
            raise ValueError(f"second look: below must lie in 0..1, not {self.below}")

    @classmethod
    def from_manifest(cls, entry: dict | None) -> SecondLook | None:
        """The manifest's ``second_look`` entry, or None when it has none."""
        if not entry:
            return None
        return cls(float(entry["below"]), float(entry.get("scale", 0.06)), float(entry.get("shift", 0.05)),
                   str(entry.get("pool", "mean")))

    def as_dict(self) -> dict:
        return {"below": self.below, "scale": self.scale, "shift": self.shift, "pool": self.pool}

    def views(self, polygon) -> list[np.ndarray]:
        """The six outlines near ``polygon`` (4 × 2 px, corners in order) a second look cuts."""
        p = np.asarray(polygon, np.float64).reshape(4, 2)
        c = p.mean(axis=0)
        across = (p[1] - p[0] + p[2] - p[3]) / 2  # first edge's direction, its length
        down = (p[3] - p[0] + p[2] - p[1]) / 2
        out = [(p - c) * (1.0 - self.scale) + c, (p - c) * (1.0 + self.scale) + c]
        for axis in (across, down):
            out += [p + self.shift * axis, p - self.shift * axis]
        return out

    def pooled(self, probs: np.ndarray, embeddings: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """(view kept, probabilities, embedding) from the probabilities and embeddings of a card's
        views, the first being its own outline's: view 0 and the mean for ``mean``, the most
        confident view for ``max``."""
        if self.pool == "max":
            k = int(np.argmax(probs.max(axis=1)))
            return k, probs[k], embeddings[k] if embeddings.size else embeddings
        if not embeddings.size:
            return 0, probs.mean(axis=0), embeddings
        emb = embeddings.mean(axis=0)
        if abs(float(np.linalg.norm(embeddings[0])) - 1.0) < 1e-3:  # normalised embeddings stay normalised
            emb = emb / max(float(np.linalg.norm(emb)), 1e-12)
        return 0, probs.mean(axis=0), emb
