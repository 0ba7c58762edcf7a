"""One deck on the table: no name given to more cards than the deck holds.

A game is played with one deck, so each hanafuda face lies on the table at most once and each
month's plains at most as often as the deck prints them. Naming each card by its own most likely
class can break that: two cards both named ``08-geese``, the second of which is some other card.
With ``recognition.one_deck`` in the manifest the face-up cards of a frame are named together: of
all ways to give each a face name with no name used more often than the deck holds it, the one
with the highest summed log-probability (a rectangular linear assignment, SciPy's
``linear_sum_assignment``; each name's places are columns). Whether a card is face up stays the
classifier's answer: backs take no part, and no face-up card is made a back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

FLOOR = 1e-12
"""Probability below which a name counts as impossible for a card (its log is taken at this)."""


def assigned(probs: np.ndarray, names: Sequence[str], capacity: Mapping[str, int]) -> np.ndarray:
    """Class index given to each row of ``probs`` (one row per face-up card, columns ``names``): the
    assignment maximising the summed log-probability with class ``n`` given to at most
    ``capacity[n]`` rows (names missing from ``capacity`` are never given). Where there are more
    rows than places, the rows left out keep their own most likely class."""
    probs = np.asarray(probs, np.float64)
    own = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
    columns = [k for k, n in enumerate(names) for _ in range(max(0, int(capacity.get(n, 0))))]
    if len(probs) == 0 or not columns:
        return own
    from scipy.optimize import linear_sum_assignment

    cost = -np.log(np.clip(probs[:, columns], FLOOR, 1.0))
    rows, cols = linear_sum_assignment(cost)
    out = own.copy()
    out[rows] = np.asarray(columns)[cols]
    return out


def capacities(card_ids: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Face name → how many cards of one deck it stands for (``03-plain``: 2), from the recognition
    class → card ids table (:func:`vision.recognise.recogniser.card_ids_of`); the back has none."""
    return {name: len(ids) for name, ids in card_ids.items() if ids}
