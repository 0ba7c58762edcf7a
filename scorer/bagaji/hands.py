"""Bagaji hands: card values, the triplet zeroing, the stop test and the six-card wins.

Rules (rules B1.3, B3, B5.2 and B6):

* A card's value is its rank (A = 1 … Q = 12; kings are not in the deck) or, for hanafuda, its
  month in the chosen order (Korean swaps 11 and 12, rules C7).
* A hand's *value* is the sum of its card values with each triplet counted 0; only one triplet per
  value is zeroed, a fourth equal card counts (rules B3; option ``zero-four-of-a-kind`` zeroes all).
  Exposed triplets count 0.
* Stop (before drawing): without any triplet the five cards must sum to ≤ 10; with a triplet
  (concealed, or exposed with 2 cards in hand) the other cards must sum to ≤ 5 (rules B5.2). Generally:
  value ≤ limit, where the limit is 5 when the player holds a triplet and 10 otherwise.
* Six-card wins: two triplets (exposed or concealed; six equal cards count, rules B6.2) score 0; three pairs
  of distinct values (all concealed, rules B6.3) score 0; a straight of six (concealed, no wrap, rules B6.4)
  scores minus its sum; a moon (raw sum of the six, exposed triplet included, ≥ 64, rules B6.5) scores minus
  the raw sum. When several apply, the most favourable (lowest) counts (rules B6.7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from scorer import cards
from scorer.bagaji.options import SEED, BagajiOptions
from scorer.errors import ScorerError
from scorer.games import check_hand_size, more_needed

TWO_TRIPLETS = "two-triplets"
THREE_PAIRS = "three-pairs"
FOUR_AND_PAIR = "four-and-pair"
STRAIGHT = "straight"
MOON = "moon"

HELD = 5
"""Cards held between turns (rules B2.2): the hand a stop is tested on (rules B5.2)."""
DRAWN = 6
"""Cards after drawing (rules B4.2, B6.1): the hand a win is made of, and the most a hand holds."""

WIN_NAMES = {
    TWO_TRIPLETS: "two triplets",
    THREE_PAIRS: "three pairs",
    FOUR_AND_PAIR: "four of a kind and a pair",
    STRAIGHT: "straight of six",
    MOON: "moon",
}


@cache
def value_table(deck_name: str, month_order: str = cards.JAPANESE) -> dict[str, int]:
    """Card id → Bagaji value for a deck (``playing-2x``, ``hanafuda``, ``hanafuda-2x``)."""
    spec = cards.deck(deck_name)
    table = cards.all_cards(spec.family)
    out: dict[str, int] = {}
    for cid in spec.counts_set:
        c = table[cid]
        out[cid] = c.points if spec.family == cards.PLAYING else cards.month_in_order(c.month, month_order)
    return out


# ---------------------------------------------------------------------- value arithmetic
@lru_cache(maxsize=65536)
def hand_value(values: tuple[int, ...], zero_all: bool = False) -> int:
    """Sum of ``values`` with one triplet per value counted 0 (all copies when ``zero_all``)."""
    total = 0
    for v, n in Counter(values).items():
        if n >= 3:
            total += 0 if zero_all else v * (n % 3)
        else:
            total += v * n
    return total


def has_triplet(values: Sequence[int]) -> bool:
    """True when three of ``values`` are equal."""
    return any(n >= 3 for n in Counter(values).values())


@dataclass(frozen=True, slots=True)
class StopCheck:
    """Whether a holding may stop, and why."""

    allowed: bool
    """True when the stop is legal."""
    value: int
    """The holding's value (triplets 0)."""
    limit: int
    """The limit that applies (10 without a triplet, 5 with one, by default)."""
    rule: str
    """Short rule name when refused (``stop-limit``, ``stop-needs-call``); empty when allowed."""
    reason: str
    """Plain words: why the stop is allowed or not."""


@lru_cache(maxsize=65536)
def stop_check(hand: tuple[int, ...], has_meld: bool, options: BagajiOptions = SEED) -> StopCheck:
    """The stop test for concealed values ``hand`` (5, or 2 beside an exposed triplet)."""
    value = hand_value(hand, options.zero_four_of_a_kind)
    if options.stop_requires_call and not has_meld:
        return StopCheck(
            False, value, options.stop_limit, "stop-needs-call",
            "this ruleset lets only a player with an exposed triplet stop (option stop-requires-call, rules B5.1)",
        )
    triplet = has_meld or has_triplet(hand)
    limit = options.stop_limit_triplet if triplet else options.stop_limit
    shown = "+".join(str(v) for v in hand)
    if triplet:
        what = "with a triplet the other cards must sum to"
    else:
        what = "without a triplet the five cards must sum to"
    ok = value <= limit
    reason = f"{shown}: {what} {limit} or less; they sum to {value}"
    return StopCheck(ok, value, limit, "" if ok else "stop-limit", reason + (" (rules B5.2)" if not ok else ""))


def _is_straight(values: Sequence[int], wrap: bool) -> bool:
    distinct = sorted(set(values))
    if len(distinct) != 6:
        return False
    if distinct[-1] - distinct[0] == 5:
        return True
    if wrap:
        present = set(distinct)
        return any(all(((start + k - 1) % 12) + 1 in present for k in range(6)) for start in range(1, 13))
    return False


@lru_cache(maxsize=65536)
def wins(hand: tuple[int, ...], meld: tuple[int, ...] = (), options: BagajiOptions = SEED) -> tuple[tuple[str, int], ...]:
    """Every win type that concealed ``hand`` plus exposed ``meld`` (six cards) forms, with its score.

    Scores are round scores: 0 for two triplets and three pairs, minus the sum for a straight, minus
    the raw sum (or the fixed moon score) for a moon. Empty when the six cards do not win.
    """
    six = hand + meld
    if len(six) != 6:
        return ()
    counts = sorted(Counter(six).values())
    found: list[tuple[str, int]] = []
    if counts == [3, 3] or (counts == [6] and options.six_of_a_kind):
        found.append((TWO_TRIPLETS, 0))
    if not meld:
        if counts == [2, 2, 2]:
            found.append((THREE_PAIRS, 0))
        if counts == [2, 4] and options.four_and_pair_score is not None:
            found.append((FOUR_AND_PAIR, options.four_and_pair_score))
        if _is_straight(six, options.straight_wrap):
            found.append((STRAIGHT, -sum(six)))
    if options.moon_counts_melds or not meld:
        raw = sum(six)
        if raw >= options.moon_threshold:
            found.append((MOON, -(options.moon_fixed_score or raw)))
    return tuple(found)


def best_score(found: Sequence[tuple[str, int]]) -> tuple[str, int] | None:
    """The most favourable (lowest-scoring) win of ``found`` (rules B6.7), or None."""
    if not found:
        return None
    return min(found, key=lambda w: w[1])


@lru_cache(maxsize=65536)
def two_triplets(six: tuple[int, ...], six_of_a_kind: bool = True) -> bool:
    """True when six values form two triplets (a call can only complete this win, rules B7.3)."""
    if len(six) != 6:
        return False
    counts = sorted(Counter(six).values())
    return counts == [3, 3] or (counts == [6] and six_of_a_kind)


@lru_cache(maxsize=65536)
def ready_values(hand: tuple[int, ...], meld: tuple[int, ...], six_of_a_kind: bool = True) -> tuple[int, ...]:
    """Values a player could call to win now: a pair in hand whose third card makes two triplets."""
    if len(hand) + len(meld) != 5:
        return ()
    counts = Counter(hand)
    return tuple(
        sorted(v for v, n in counts.items() if n >= 2 and two_triplets(hand + meld + (v,), six_of_a_kind))
    )


# ---------------------------------------------------------------------- fudaba hand
@dataclass(frozen=True)
class HandReport:
    """``fudaba hand bagaji CARD...``: values, stop test (5 cards), wins (6 cards).

    ``to_json()`` is ``{"game": "bagaji", "deck": name, "month_order": order, "cards": [ids],
    "values": [ints], "value": int, "triplets": [values zeroed], "stop": {"allowed": bool, "value":
    int, "limit": int, "reason": str} | null, "wins": [{"type": str, "name": str, "score": int}],
    "round_score": int | null, "complete": bool, "needs": str | null}``. ``stop`` is set for five
    cards only; ``wins`` and ``round_score`` for six cards only (``round_score`` null when six cards
    do not win). Five or six cards are a full hand; 1-4 are short: ``complete`` false, and
    ``needs`` says how many more the stop test and a winning hand need.
    """

    deck: str
    month_order: str
    cards: tuple[str, ...]
    values: tuple[int, ...]
    value: int
    triplets: tuple[int, ...]
    stop: StopCheck | None
    found: tuple[tuple[str, int], ...] = field(default=())

    @property
    def complete(self) -> bool:
        """True for a full hand: five held cards or six after drawing."""
        return len(self.cards) >= HELD

    @property
    def needs(self) -> str | None:
        """What a short hand lacks, in one sentence; None for a full hand."""
        if self.complete:
            return None
        n = len(self.cards)
        return (
            f"a Bagaji hand has {HELD} cards ({DRAWN} after drawing); {more_needed(HELD - n)} needed "
            f"for the stop test and {DRAWN - n} for a winning hand"
        )

    @property
    def round_score(self) -> int | None:
        """The score of the best win (six cards), None when there is none."""
        best = best_score(self.found)
        return None if best is None else best[1]

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form documented on the class."""
        stop = None
        if self.stop is not None:
            stop = {
                "allowed": self.stop.allowed,
                "value": self.stop.value,
                "limit": self.stop.limit,
                "reason": self.stop.reason,
            }
        return {
            "game": "bagaji",
            "deck": self.deck,
            "month_order": self.month_order,
            "cards": list(self.cards),
            "values": list(self.values),
            "value": self.value,
            "triplets": list(self.triplets),
            "stop": stop,
            "wins": [{"type": t, "name": WIN_NAMES[t], "score": s} for t, s in self.found],
            "round_score": self.round_score if len(self.cards) == 6 else None,
            "complete": self.complete,
            "needs": self.needs,
        }

    def lines(self) -> list[str]:
        """Human-readable lines."""
        out = [
            f"Bagaji hand ({self.deck}): {' '.join(self.cards)}",
            f"values: {' '.join(str(v) for v in self.values)}",
        ]
        zeroed = f" (triplet of {', '.join(str(t) for t in self.triplets)} counts 0)" if self.triplets else ""
        out.append(f"hand value: {self.value}{zeroed}")
        if self.stop is not None:
            verdict = "allowed" if self.stop.allowed else "not allowed"
            out.append(f"stop: {verdict} — {self.stop.reason}")
        if len(self.cards) == 6:
            if self.found:
                for t, s in self.found:
                    out.append(f"wins as {WIN_NAMES[t]}: round score {s}")
                out.append(f"round score (most favourable): {self.round_score}")
            else:
                out.append("no winning six-card hand")
        if self.needs:
            out.append(f"incomplete hand: {self.needs}.")
        return out


def evaluate_hand(card_ids: Sequence[str], options: BagajiOptions | None = None) -> HandReport:
    """Evaluate 1-6 concealed cards (ids of the options' deck, in any case: ``qh`` is ``QH``) for
    ``fudaba hand``.

    A full Bagaji hand is the five cards held between turns (the stop test, rules B2.2, B5.2) or
    the six after drawing (the winning hands, rules B4.2, B6.1). The rule for short hands, the same
    in every game (:class:`scorer.games.HandReport`): 1 to 4 cards are evaluated as far as they can
    be (values and hand value; no stop test, no wins) and the report says ``complete`` false with
    what a full hand ``needs``; none, or more than 6 (no Bagaji hand holds more), raise
    :class:`~scorer.errors.ScorerError`.
    """
    opts = options or SEED
    spec = cards.deck(opts.deck_name)
    ids = tuple(card_ids)
    check_hand_size("Bagaji", len(ids), DRAWN, f"{HELD} held, {DRAWN} after drawing")
    ids = tuple(spec.canonical(cid, "Bagaji") for cid in ids)
    have = spec.counts
    for cid, n in Counter(ids).items():
        if n > have[cid]:
            raise ScorerError(f"{cid} appears {n} times but the {spec.name} deck holds {have[cid]}")
    table = value_table(spec.name, opts.month_order)
    values = tuple(table[c] for c in ids)
    key = tuple(sorted(values))
    counts = Counter(values)
    triplets = tuple(sorted(v for v, n in counts.items() for _ in range(n // 3) if n >= 3))
    return HandReport(
        deck=spec.name,
        month_order=opts.month_order,
        cards=ids,
        values=values,
        value=hand_value(key, opts.zero_four_of_a_kind),
        triplets=triplets,
        stop=stop_check(key, False, opts) if len(ids) == 5 else None,
        found=wins(key, (), opts) if len(ids) == 6 else (),
    )
