"""Class names for datasets, per deck and naming scheme.

Schemes:
- ``recognition`` (default): what recognition must tell apart (rules/README.md "Cards"): card ids,
  except that interchangeable plain cards are named by their month (``03-plain``; the paulownia
  plains ``12-plain``, the coloured ``12-plain-1`` apart), plus ``00-blank`` and the back. Playing
  cards: every id and the jokers.
- ``ids``: every card id, plains apart (``01-plain-1``, ``01-plain-2``), plus blank/jokers and back.
- ``card``: two classes, ``card`` (any face up) and the back — the first-stage detector.
A face-down card is always the deck's back id: ``back`` (hanafuda) or ``BACK`` (playing).
"""

from __future__ import annotations

from scorer.cards import BLANK, HANAFUDA, hanafuda_ids, playing_ids
from scorer.table import BACK_IDS
from scorer.table import sight_name as recognition_name

SCHEMES = ("recognition", "ids", "card")
__all__ = ["BACK_IDS", "SCHEMES", "class_names", "class_of", "recognition_name"]


def class_names(deck: str, scheme: str = "recognition") -> tuple[str, ...]:
    """All class names of ``deck`` under ``scheme``, in class-index order."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown class scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")
    back = BACK_IDS[deck]
    if scheme == "card":
        return ("card", back)
    faces = hanafuda_ids() + (BLANK,) if deck == HANAFUDA else playing_ids(jokers=True)
    if scheme == "recognition":
        faces = tuple(dict.fromkeys(recognition_name(c) for c in faces))
    return faces + (back,)


def class_of(card_id: str, face_up: bool, deck: str, scheme: str = "recognition") -> str:
    """The class name of a card as it lies."""
    if not face_up:
        return BACK_IDS[deck]
    if scheme == "card":
        return "card"
    return recognition_name(card_id) if scheme == "recognition" else card_id
