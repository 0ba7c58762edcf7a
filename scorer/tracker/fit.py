"""How well a predicted table fits the table seen: the expected table of a (hypothetical) game,
each zone's cost against the camera's table, seat-zone noise and the fit that decides sync.

Cost (natural-log units): for every zone the expected face-up names are paired with the seen cards
(greedily, most probable pairs first, a pair only where it costs less than leaving both unpaired);
a pair costs ``−ln p`` of the expected name; an expected card not seen costs ``miss_cost``, or
``seat_miss_cost`` in a seat zone where it may lie under other cards (it was there before the
change, or the event moved it there from another zone: a captured field card lies under the card
that captured it, which must show); a seen card not expected costs ``extra_cost`` times its most
likely name's probability (a reading the recogniser cannot name is more likely a sliver or a second
outline than a card of its own); each face-down card or stack of difference ``down_cost`` (between
rounds, cards gathered cost nothing); a seat zone's sum is weighted by ``seat_zone_weight``.

*Seat-zone noise:* after a commit, what a seat zone shows that the committed game does not expect,
and the reverse, costs nothing in that zone from then on (a misread sliver of an old capture stays
misread for the rest of the round), unless events still pending change that zone
(:func:`seat_noise`; the tracker keeps it per zone after each commit).

*Sync:* the best hypothesis must fit the latest table within ``max_cost``; where seat zones hold
overlapping capture rows (Hachi-hachi) their part counts at most ``max_cost`` less ``miss_cost``
(:func:`gated`): what capture rows show alone never makes a desync.

Shown hands (claims, buy-outs, Bagaji's showdown: cards a show event lays face up that the engine
no longer places on the table) stay part of the expected table until they are picked up again.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from scorer.match import Match
from scorer.table import TableState, expected_names
from scorer.tracker.options import TrackerOptions
from scorer.tracker.values import Explanation, Predicted, Shown, Under


def predicted(match: Match, shown: Shown) -> Predicted:
    """The table ``match`` implies now, plus the ``shown`` hands still lying."""
    out = expected_names(match.table_places(), match.table_sitout())
    if not shown:
        return out
    out = dict(out)
    for zone, names in shown:
        have, down = out.get(zone, (Counter(), 0))
        out[zone] = (have + Counter(dict(names)), down)
    return out


def add_shown(shown: Shown, hook: tuple[str, list[str]], lying: Predicted) -> Shown:
    """``shown`` plus the cards of a show event that the engine does not place on the table."""
    zone, names = hook
    extra = Counter(names) - lying.get(zone, (Counter(), 0))[0]
    if not extra:
        return shown
    return (*shown, (zone, tuple(sorted(extra.items()))))


def pruned(shown: Shown, table: TableState) -> Shown:
    """Shown hands whose cards still show in their zone (picked-up ones forgotten)."""
    return tuple((z, names) for z, names in shown if any(table.zone(z).names()[n] for n, _ in names))


def visible_names(table: TableState, history: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """Every sight name ``table`` shows (any name a card may have) or a pile showed meanwhile."""
    names = {n for z in table.zones.values() for c in z.up for n, _p in c.probs}
    for seen in history.values():
        names.update(seen)
    return frozenset(names)


def gated(hyp: Explanation, options: TrackerOptions, rows: bool) -> float:
    """The fit that decides whether the tracker is in sync; with ``rows`` (seat zones hold
    overlapping capture rows: :attr:`GameHooks.seat_rows`) seat zones count up to ``max_cost``
    less ``miss_cost`` (slivers are misread and hidden: what the rows show never makes a desync
    unless the field or the piles are wrong too, by about a card)."""
    if not rows:
        return hyp.fit
    return hyp.fit - hyp.seat_fit + min(hyp.seat_fit, options.max_cost - options.miss_cost)


def seat_noise(expected: TableState, seen: TableState) -> dict[str, tuple[Counter[str], Counter[str]]]:
    """Per seat zone: (names seen but not expected, names expected but not seen)."""
    out = {}
    for z in set(expected.zones) | set(seen.zones):
        if not z.startswith("seat:"):
            continue
        e, s = expected.zone(z).names(), seen.zone(z).names()
        if e != s:
            out[z] = (s - e, e - s)
    return out


class Scorer:
    """Costs of predicted tables against one seen table (memoised per zone)."""

    def __init__(self, table: TableState, options: TrackerOptions,
                 noise: dict[str, tuple[Counter[str], Counter[str]]] | None = None) -> None:
        self.options = options
        self.noise = noise or {}
        """Per seat zone, the seat-zone noise (:func:`seat_noise`) that costs nothing."""
        self.zones: dict[str, tuple[list[dict[str, float]], int]] = {
            z: ([dict(c.probs) for c in s.up], s.down) for z, s in table.zones.items()
        }
        self._memo: dict[tuple, float] = {}

    def cost(self, pred: Predicted, gathering: bool = False, under: Under | None = None) -> float:
        """``pred``'s cost against the seen table; ``under``: per seat zone, the expected names that
        may lie hidden under other cards (a miss costs ``seat_miss_cost``; other misses ``miss_cost``)."""
        return self.fit(pred, gathering, under)[0]

    def fit(self, pred: Predicted, gathering: bool = False, under: Under | None = None) -> tuple[float, float]:
        """:meth:`cost`, and its part from seat zones."""
        total = seats = 0.0
        under = under or {}
        for z in sorted(set(pred) | set(self.zones)):  # in order: float sums that do not hang on hashing
            names, down = pred.get(z, (Counter(), 0))
            hidden = under.get(z)
            key = (z, tuple(sorted(names.items())), down, gathering, tuple(sorted(hidden.items())) if hidden else ())
            c = self._memo.get(key)
            if c is None:
                c = self._zone_cost(z, names, down, gathering, hidden or Counter())
                self._memo[key] = c
            total += c
            if z.startswith("seat:"):
                seats += c
        return total, seats

    def _zone_cost(self, zone: str, names: Counter[str], down: int, gathering: bool, hidden: Counter[str]) -> float:
        """One zone's cost (module docstring). Expected names and seen cards are paired greedily, most
        probable first, a pair only where it costs less than leaving both unpaired."""
        o = self.options
        seen, seen_down = self.zones.get(zone, ([], 0))
        seat = zone.startswith("seat:")
        extra_noise, missing_noise = self.noise.get(zone, (Counter(), Counter()))
        tops = [max(d, key=d.__getitem__) if d else None for d in seen]

        def miss(n: str) -> float:
            """What leaving expected ``n`` unpaired would cost were the cards not being gathered
            (while they are, it costs nothing, but the cards that show are still theirs)."""
            if missing_noise[n] > 0:
                return 0.0
            return o.seat_miss_cost if hidden[n] > 0 else o.miss_cost

        def extra(i: int) -> float:
            return 0.0 if tops[i] is not None and extra_noise[tops[i]] > 0 else o.extra_cost * max(seen[i].values(), default=1.0)

        pairs = sorted(((d.get(n, 0.0), i, n) for i, d in enumerate(seen) for n in names if d.get(n, 0.0) > 0.0),
                       reverse=True)
        left = Counter(names)
        used: set[int] = set()
        cost = 0.0
        for p, i, n in pairs:
            if i in used or not left[n]:
                continue
            c = -math.log(max(p, 1e-9))
            if c >= miss(n) + extra(i):
                continue
            used.add(i)
            left[n] -= 1
            cost += c
        if not gathering:
            left = left - missing_noise
            coverable = sum((left & hidden).values())
            cost += o.seat_miss_cost * coverable + o.miss_cost * (sum(left.values()) - coverable)
        for i, d in enumerate(seen):
            if i not in used:
                if tops[i] is not None and extra_noise[tops[i]] > 0:
                    extra_noise = extra_noise - Counter({tops[i]: 1})
                    continue
                cost += o.extra_cost * max(d.values(), default=1.0)
        if not (gathering and seen_down <= down):
            cost += o.down_cost * abs(down - seen_down)
        return cost * (o.seat_zone_weight if seat else 1.0)


def moved_under(under: Under, before: Predicted, after: Predicted) -> Under:
    """``under`` after an event that turned the table ``before`` into ``after``: the cards it moved
    from another zone into a seat zone may lie under the card it brought from a hand or the stock
    (a capture: the played card laid on the field card, both swept into the row); a card that only
    it shows lies on top and must be seen."""
    left: Counter[str] = Counter()
    for z, (names, _down) in before.items():
        if not z.startswith("seat:"):
            left += names - after.get(z, (Counter(), 0))[0]
    out = under
    for z, (names, _down) in after.items():
        if z.startswith("seat:"):
            moved = (names - before.get(z, (Counter(), 0))[0]) & left
            if moved:
                if out is under:
                    out = dict(under)
                out[z] = out.get(z, Counter()) + moved
    return out


def pile_top(zone: tuple[Counter[str], int] | None) -> str | None:
    """The face-up name of a pile zone's predicted top."""
    if zone is None or not zone[0]:
        return None
    return next(iter(zone[0]))
