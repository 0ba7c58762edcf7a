"""Card art registry: find an art style by deck and name, load its faces.

Shipped styles live in this package, ``vision/synth/art/<deck>/<style>/<card id>.png`` (see
``art/README.md`` for licences). Extra styles are read at run time from an art directory laid out
like ``shared/assets`` — ``<art dir>/<deck>/<style>/png/<card id>.png`` (or without ``png/``) — and
are never copied into the project (``classic`` and ``kokujou`` have no licence to ship).

Faces are BGRA ``uint8`` images whose frame is the card's outline; alpha is 0 outside the printed
card (rounded corners). Card ids are those of ``scorer.cards``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import HANAFUDA, PLAYING

ART_ROOT = Path(__file__).resolve().parent / "art"
DECKS = (HANAFUDA, PLAYING)


class ArtNotFoundError(ValueError):
    """An art style (or art directory) that does not exist; the message lists what does."""


@dataclass(frozen=True, slots=True)
class ArtStyle:
    """One art set: the PNG face of each card id it draws."""

    deck: str
    """``hanafuda`` or ``playing``."""
    name: str
    """Style name, e.g. ``mantia`` or ``classic``."""
    faces: tuple[tuple[str, str], ...]
    """(card id, PNG path) pairs, sorted by id."""
    shipped: bool
    """True for styles shipped in the package, False for styles read from an art directory."""

    def path(self, card_id: str) -> str | None:
        """The PNG of ``card_id``, or None when this style has no art for it (e.g. a back)."""
        return dict(self.faces).get(card_id)

    @property
    def ids(self) -> tuple[str, ...]:
        """Card ids with art in this style."""
        return tuple(i for i, _ in self.faces)


def _check_deck(deck: str) -> None:
    if deck not in DECKS:
        raise ArtNotFoundError(f"unknown deck {deck!r}; expected one of {', '.join(DECKS)}")


def _style_dirs(deck: str, art_dir: str | Path | None) -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    roots: list[tuple[Path, bool]] = [(ART_ROOT / deck, True)]
    if art_dir is not None:
        root = Path(art_dir)
        if not root.is_dir():
            raise ArtNotFoundError(f"art directory {str(root)!r} does not exist")
        roots.append((root / deck, False))
    for root, shipped in roots:
        if not root.is_dir():
            continue
        for d in sorted(p for p in root.iterdir() if p.is_dir()):
            png = d / "png" if (d / "png").is_dir() else d
            if any(png.glob("*.png")) and d.name not in found:
                found[d.name] = (png, shipped)
    return found


def available_styles(deck: str, art_dir: str | Path | None = None) -> tuple[str, ...]:
    """Names of the styles of ``deck``: shipped ones, then those under ``art_dir``."""
    _check_deck(deck)
    return tuple(_style_dirs(deck, art_dir))


def find_style(deck: str, name: str, art_dir: str | Path | None = None) -> ArtStyle:
    """The style ``name`` of ``deck``; shipped styles win over same-named ones in ``art_dir``."""
    _check_deck(deck)
    dirs = _style_dirs(deck, art_dir)
    if name not in dirs:
        hint = "" if art_dir is not None else " (styles outside the package need --art-dir)"
        raise ArtNotFoundError(
            f"no {deck} art style {name!r}; available: {', '.join(dirs) or 'none'}{hint}"
        )
    png, shipped = dirs[name]
    faces = tuple(sorted((p.stem, str(p)) for p in png.glob("*.png")))
    return ArtStyle(deck=deck, name=name, faces=faces, shipped=shipped)


@lru_cache(maxsize=1024)
def load_face(path: str, height: int) -> np.ndarray:
    """The PNG at ``path`` as BGRA ``uint8``, resized to ``height`` pixels tall (aspect kept).

    Area interpolation when shrinking keeps small renders free of aliasing. Cached per process;
    callers must not modify the returned array.
    """
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ArtNotFoundError(f"cannot read card art {path!r}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    if img.shape[0] != height:
        width = max(2, round(img.shape[1] * height / img.shape[0]))
        interp = cv2.INTER_AREA if height < img.shape[0] else cv2.INTER_CUBIC
        img = cv2.resize(img, (width, height), interpolation=interp)
    img.setflags(write=False)
    return img
