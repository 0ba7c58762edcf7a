"""The deck enrolment grid: where each card of a deck lies when a user lays the deck out to enrol it.

Hanafuda: 12 columns × 4 rows — one column per month, January on the left, each month's four
cards from top to bottom in the card table's order (``scorer/data/hanafuda.csv``: bright or
animal first, then ribbon, then plains). The blank, when the deck has one, goes below December
(row 5, last column).

Playing cards: 13 columns × 4 rows — ranks A, 2 … 10, J, Q, K from left to right, one row per suit
in the card table's order (spades, hearts, diamonds, clubs). Jokers, when the deck has them, go in
a fifth row, black joker first, from the left.

Rows are counted from the side of the mat the photographer stands at (the top of the photo), columns
from the photographer's left; cards lie upright (either way up: a card turned 180° is the same card).
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.cards import BLANK, HANAFUDA, PLAYING, hanafuda_ids, playing_ids

GRID_COLUMNS = {HANAFUDA: 12, PLAYING: 13}
GRID_ROWS = 4


@dataclass(frozen=True, slots=True)
class GridCell:
    """One card's place in the enrolment grid (0-based)."""

    card_id: str
    row: int
    column: int


def enrol_grid(deck: str, extras: bool = False) -> tuple[GridCell, ...]:
    """The grid of ``deck`` in canonical order; ``extras`` adds the blank (hanafuda) or both jokers (playing)."""
    if deck == HANAFUDA:
        ids = hanafuda_ids()
        cells = [GridCell(cid, i % 4, i // 4) for i, cid in enumerate(ids)]
        if extras:
            cells.append(GridCell(BLANK, GRID_ROWS, GRID_COLUMNS[HANAFUDA] - 1))
        return tuple(cells)
    if deck == PLAYING:
        ids = playing_ids(jokers=False)
        cells = [GridCell(cid, i // 13, i % 13) for i, cid in enumerate(ids)]
        if extras:
            cells += [GridCell(j, GRID_ROWS, k) for k, j in enumerate(playing_ids(jokers=True)[len(ids):])]
        return tuple(cells)
    raise ValueError(f"unknown deck {deck!r}; expected 'hanafuda' or 'playing'")
