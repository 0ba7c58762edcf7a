"""Hachi-hachi round settlement (rules H8; forfeits and buy-outs: rules H4).

Every payment is in points (1 kan = ``kan_size`` points) and multiplied by the round's field.
"X from each opponent" means each paying seat gives X; with ``who_pays="split"`` the payers share
X, the first payer in turn order taking any odd point. Halves (cancel, run-out, hand
compensation) round down to a whole point.

Order of a settlement:

1. Dropout forfeits: the k-th voluntary retiree pays ``forfeit_first + (k−1)·forfeit_step``
   half-kan into the pot; the round winner takes the pot (two players splitting share it).
2. Hand compensation for each forced-out player who showed their hand: ½ teyaku + ½ dekiyaku
   already in hand + 3 points per card of gokō, akatan, aotan (inoshikachō if used) not already
   counted, paid by each active player other than the acting dealer.
3. Teyaku claimed by active players, from each opponent. A claim is checked against the dealt hand
   when all seven cards are known by then (the claim pays what the hand really holds in that
   group; nothing if it holds none); otherwise the claim as shown is paid.
4. A — a dekiyaku was called: shōbu (full, sage interaction), cancel (half), or hands out after
   sage (every holder half; the first sage caller wins). No card-point settlement.
   B — no dekiyaku: the special cases (all eights, double eights, sixteen plains; three players
   only) cancel teyaku and card points; otherwise (captured − 88) each, or with two players the
   loser pays the difference. The winner has the most captured points, ties to the earlier in turn
   order.
5. Achievements (three players, no special case): diving (a claimed group-A teyaku with a triplet
   and no four, then all four cards of a triplet's month captured) and escape (a claimed group-B
   teyaku other than pikaichi, then 89 points or more captured), 1 kan from each opponent. The
   triplet's month is read from the cards known of the dealt hand, which include the shown claim.

Each line comes with a :class:`~scorer.match.Note`, made beside it: the key of its template in
``texts.json`` (``settlement.lines``; a payment's key ends in ``-split`` with ``who_pays="split"``)
and the values it names, seats as :class:`~scorer.match.Said` ``seat`` values (said "seat 2" here),
teyaku and endings as ``name`` values.

Seed-1910 choices: the pot and hand compensation are kept when a special case occurs (the special
cases are off in that ruleset anyway); with two players the seed's game is settled like the
standard two-player game, the loser paying the difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorer.cards import all_cards, card, hanafuda_month
from scorer.hachihachi import dekiyaku as dk
from scorer.hachihachi import teyaku as ty
from scorer.hachihachi.options import Options
from scorer.match import Note, Said

PAR = 88


class Ledger:
    """Accumulates payments between seats and explains each one."""

    def __init__(self, n_seats: int, options: Options, multiplier: int) -> None:
        self.changes = [0] * n_seats
        self.lines: list[str] = []
        self.notes: list[Note] = []
        self.options = options
        self.multiplier = multiplier

    def say(self, line: str, note: Note) -> None:
        """Explain a payment: the line and its note, side by side."""
        self.lines.append(line)
        self.notes.append(note)

    def pay(self, payer: int, payee: int, amount: int) -> None:
        """Move ``amount`` points from ``payer`` to ``payee`` (seats)."""
        self.changes[payer - 1] -= amount
        self.changes[payee - 1] += amount

    def collect(self, payee: int, payers: Sequence[int], amount: int, reason: str, cite: str, note: Note) -> None:
        """``payee`` collects ``amount`` (already × field) from each payer, or split among them.

        ``cite`` names the section of ``docs/rules.md``, e.g. ``(rules H8.4)``; it ends the line.
        ``note`` is the reason as data (its key and the values ``reason`` names); the line's note
        adds ``payee``, ``amount`` and ``payers``.
        """
        if not payers or amount == 0:
            return
        if self.options.who_pays == "split":
            share, extra = divmod(amount, len(payers))
            parts = [share + (1 if i < extra else 0) for i in range(len(payers))]
        else:
            parts = [amount] * len(payers)
        for payer, part in zip(payers, parts, strict=True):
            self.pay(payer, payee, part)
        who = ", ".join(f"seat {p}" for p in payers)
        split = self.options.who_pays == "split"
        each = "in all, split" if split else "from each of"
        self.say(
            f"seat {payee} {reason}: {amount} {each} {who} {cite}",
            Note(note.key + ("-split" if split else ""),
                 (("payee", _seat(payee)), *note.values, ("amount", amount), ("payers", _seats(payers)))),
        )

    def kan(self, half_kan: int) -> int:
        """Half-kan → points, times the field."""
        return half_kan * self.options.kan_size // 2 * self.multiplier


@dataclass(frozen=True, slots=True)
class Ending:
    """How a round ended."""

    kind: str
    """``exhausted``, ``shobu``, ``cancel``, ``one-player`` or ``split``."""
    seat: int | None = None
    """The seat that called shōbu or cancel, or the lone player."""


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """Everything settlement needs to know about a finished round."""

    n_seats: int
    dealer: int
    """The acting dealer (first active seat in turn order)."""
    active: tuple[int, ...]
    """Active seats in turn order."""
    retired: tuple[int, ...]
    """Voluntary retirees in the order they retired."""
    multiplier: int
    captured: dict[int, tuple[str, ...]]
    """Captured cards of each active seat."""
    dealt: dict[int, tuple[str, ...]]
    """What is known of each active seat's dealt hand."""
    claims: tuple[tuple[int, str], ...]
    """(seat, teyaku name) claimed."""
    buyouts: tuple[tuple[int, tuple[str, ...]], ...]
    """(forced-out seat, hand shown)."""
    sage: tuple[int, ...]
    """Seats that called sage, in order."""
    yaku: dict[int, int]
    """Dekiyaku total (kan) of each active seat at the end."""


def _seat(seat: int) -> Said:
    return Said("seat", seat)


def _seats(seats: Sequence[int]) -> tuple[Said, ...]:
    return tuple(Said("seat", s) for s in seats)


def _name(teyaku: str) -> Said:
    """A teyaku as a name ``texts.json`` says in each language (its romaji id in English)."""
    return Said("name", teyaku)


def header(active: Sequence[int], ending: Ending) -> tuple[str, Note]:
    """The round's first line (who played, how it ended) and its note."""
    line = (f"playing: seats {', '.join(map(str, active))}" if active else "nobody plays") + f"; ended by {ending.kind}"
    values: tuple[tuple[str, object], ...] = (("ending", Said("name", ending.kind)),)
    if active:
        values = (("seats", Said("seats", tuple(active))), *values)
    if ending.seat:
        line += f" (seat {ending.seat})"
        values = (*values, ("seat", _seat(ending.seat)))
    key = ("playing" if active else "nobody-plays") + ("-by" if ending.seat else "")
    return line, Note(key, values)


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled round (:func:`settlement`)."""

    winner: int | None
    """The round's winner, or None."""
    changes: list[int]
    """Change per seat, index = seat − 1."""
    lines: list[str]
    """The explanation of every payment, in order."""
    notes: list[Note]
    """Each line as data, one per line."""


_POINTS = {c.id: c.points for c in all_cards("hanafuda").values()}


def captured_points(cards: Sequence[str]) -> int:
    """Hachi-hachi card points of a capture pile."""
    return sum(_POINTS[c] for c in cards)


def plain_count(cards: Sequence[str]) -> int:
    """Plains for sixteen plains: every willow card counts as a plain."""
    return sum(1 for c in cards if ty.plain_class(c) == "plain")


def settle(facts: RoundFacts, ending: Ending, options: Options) -> tuple[int | None, list[int], list[str]]:
    """Settle a round: (winner seat or None, change per seat, explanation lines)."""
    done = settlement(facts, ending, options)
    return done.winner, done.changes, done.lines


def settlement(facts: RoundFacts, ending: Ending, options: Options) -> Settlement:
    """Settle a round: winner, changes, lines and their notes."""
    led = Ledger(facts.n_seats, options, facts.multiplier)
    winner = _settle(facts, ending, led)
    return Settlement(winner, led.changes, led.lines, led.notes)


def _settle(facts: RoundFacts, ending: Ending, led: Ledger) -> int | None:
    options = led.options
    if facts.multiplier != 1:
        led.say(f"field ×{facts.multiplier} (rules H3)", Note.of("field", multiplier=facts.multiplier))
    pot = _forfeits(facts, led)
    _compensation(facts, led)

    if ending.kind in ("one-player", "split"):
        winner = ending.seat
        _pot(pot, winner, facts, led)
        return winner

    active = facts.active
    points = {s: captured_points(facts.captured[s]) for s in active}
    has_dekiyaku = ending.kind in ("shobu", "cancel") or any(facts.yaku.get(s, 0) for s in facts.sage)

    special = None
    if not has_dekiyaku and options.special_cases and len(active) == 3:
        special = _special_case(facts, points, led)
    if special is not None:
        _pot(pot, special, facts, led)
        return special

    _teyaku(facts, led, options)

    winner = _dekiyaku(facts, ending, led) if has_dekiyaku else _card_points(facts, points, led)
    if options.achievements and len(active) == 3:
        _achievements(facts, points, led, options)
    _pot(pot, winner, facts, led)
    return winner


def _forfeits(facts: RoundFacts, led: Ledger) -> int:
    pot = 0
    for k, seat in enumerate(facts.retired):
        half_kan = led.options.forfeit_first + k * led.options.forfeit_step
        amount = led.kan(half_kan)
        led.changes[seat - 1] -= amount
        pot += amount
        led.say(f"seat {seat} retired (#{k + 1}): {amount} into the pot (rules H4.2)",
                Note.of("retired", seat=_seat(seat), order=k + 1, amount=amount))
    return pot


def _pot(pot: int, winner: int | None, facts: RoundFacts, led: Ledger) -> None:
    if not pot:
        return
    takers = [winner] if winner is not None else list(facts.active)
    share, extra = divmod(pot, len(takers))
    for i, seat in enumerate(takers):
        led.changes[seat - 1] += share + (1 if i < extra else 0)
    led.say(f"pot of {pot} to {', '.join(f'seat {s}' for s in takers)} (rules H8.2)",
            Note.of("pot", pot=pot, takers=_seats(takers)))


def _compensation(facts: RoundFacts, led: Ledger) -> None:
    opts = led.options
    payers = [s for s in facts.active if s != facts.dealer]
    for seat, hand in facts.buyouts:
        found = ty.evaluate(hand, opts.teyaku_scale, opts.standing_triplets, opts.aka_kan)
        held = dk.find(hand, inoshikacho=opts.inoshikacho, nanatan_extra=opts.nanatan_extra)
        counted = set(ty.counted_cards(hand, found))
        if held:
            counted |= {c for c in hand if any(c in s for s in (dk.GOKO, dk.AKATAN, dk.AOTAN, dk.INOSHIKACHO))}
        extra = [c for c in dk.contributing(hand, inoshikacho=opts.inoshikacho) if c not in counted]
        base = (found.points(opts.kan_size) + dk.total_kan(held) * opts.kan_size) // 2 + 3 * len(extra)
        led.collect(seat, payers, base * facts.multiplier, "hand compensation (forced out)", "(rules H8.3)",
                    Note.of("compensation"))


def _teyaku(facts: RoundFacts, led: Ledger, opts: Options) -> None:
    for seat, name in facts.claims:
        if seat not in facts.active:
            continue
        group = ty.group_of(name)
        dealt = facts.dealt.get(seat, ())
        if len(dealt) == 7:
            found = ty.evaluate(dealt, opts.teyaku_scale, opts.standing_triplets, opts.aka_kan)
            got = found.a if group == ty.GROUP_A else found.b
            if got is None:
                led.say(f"seat {seat} claimed {name}: the hand holds no group {group} teyaku, nothing paid (rules H5.7)",
                        Note.of("claim-void", seat=_seat(seat), teyaku=_name(name), group=group))
                continue
            if got.name != name:
                led.say(f"seat {seat} claimed {name}; the hand holds {got.name} (rules H5.7)",
                        Note.of("claim-corrected", seat=_seat(seat), teyaku=_name(name), held=_name(got.name)))
            value = got.half_kan
            name = got.name
        else:
            value = ty.value_half_kan(name, opts.teyaku_scale, opts.aka_kan)
        others = [s for s in facts.active if s != seat]
        led.collect(seat, others, led.kan(value), f"teyaku {name}", "(rules H8.4)", Note.of("teyaku", teyaku=_name(name)))


def _special_case(facts: RoundFacts, points: dict[int, int], led: Ledger) -> int | None:
    active = facts.active
    if all(points[s] == PAR for s in active):
        dealer = facts.dealer
        led.collect(dealer, [s for s in active if s != dealer], led.kan(20), "all eights (sōhachi)", "(rules H8.6)",
                    Note.of("all-eights"))
        return dealer
    for s in active:
        if points[s] >= 168:
            amount = led.kan(20) + (points[s] - 168) * led.options.kan_size * facts.multiplier
            led.collect(s, [o for o in active if o != s], amount, f"double eights ({points[s]} points)", "(rules H8.6)",
                        Note.of("double-eights", points=points[s]))
            return s
    for s in active:
        plains = plain_count(facts.captured[s])
        if plains >= 16:
            amount = led.kan(24) + led.kan(4) * (plains - 16)
            led.collect(s, [o for o in active if o != s], amount, f"sixteen plains ({plains} plains)", "(rules H8.6)",
                        Note.of("sixteen-plains", plains=plains))
            return s
    return None


def _dekiyaku(facts: RoundFacts, ending: Ending, led: Ledger) -> int:
    active = facts.active
    if ending.kind == "shobu":
        p = ending.seat
        assert p is not None
        value = led.kan(facts.yaku[p] * 2)
        others = [s for s in active if s != p]
        sagers = [s for s in others if s in facts.sage]
        if len(others) == 2 and len(sagers) == 1:
            led.collect(p, sagers, 2 * value if led.options.who_pays == "each" else value,
                        f"shōbu with {facts.yaku[p]} kan of dekiyaku; seat {sagers[0]} had called sage and pays double",
                        "(rules H8.5)", Note.of("shobu-sage", kan=facts.yaku[p], sager=_seat(sagers[0])))
        else:
            led.collect(p, others, value, f"shōbu with {facts.yaku[p]} kan of dekiyaku", "(rules H8.5)",
                        Note.of("shobu", kan=facts.yaku[p]))
        return p
    if ending.kind == "cancel":
        p = ending.seat
        assert p is not None
        led.collect(p, [s for s in active if s != p], led.kan(facts.yaku[p]), f"cancel: half of {facts.yaku[p]} kan of dekiyaku",
                    "(rules H8.5)", Note.of("cancel", kan=facts.yaku[p]))
        return p
    for s in active:
        if facts.yaku.get(s, 0):
            led.collect(s, [o for o in active if o != s], led.kan(facts.yaku[s]), f"hands out after sage: half of {facts.yaku[s]} kan",
                        "(rules H8.5)", Note.of("hands-out", kan=facts.yaku[s]))
    return facts.sage[0]


def _card_points(facts: RoundFacts, points: dict[int, int], led: Ledger) -> int:
    active = facts.active
    best = max(points[s] for s in active)
    winner = next(s for s in active if points[s] == best)
    if len(active) == 2:
        loser = next(s for s in active if s != winner)
        diff = (points[winner] - points[loser]) * facts.multiplier
        if diff:
            led.pay(loser, winner, diff)
        led.say(f"two players: seat {winner} {points[winner]}, seat {loser} {points[loser]}: {diff} to seat {winner} (rules H8.8)",
                Note.of("two-players", winner=_seat(winner), winner_points=points[winner], loser=_seat(loser),
                        loser_points=points[loser], amount=diff))
        return winner
    for s in active:
        delta = (points[s] - PAR) * facts.multiplier
        led.changes[s - 1] += delta
        led.say(f"seat {s} captured {points[s]}: {delta:+d} (rules H8.7)",
                Note.of("captured", seat=_seat(s), points=points[s], change=Said("signed", delta)))
    return winner


def _achievements(facts: RoundFacts, points: dict[int, int], led: Ledger, opts: Options) -> None:
    for seat, name in facts.claims:
        if seat not in facts.active:
            continue
        others = [s for s in facts.active if s != seat]
        got = set(facts.captured[seat])
        if ty.group_of(name) == ty.GROUP_A:
            # The triplets are known from the shown claim even when the rest of the hand is not.
            dealt = facts.dealt.get(seat, ())
            if len(dealt) == 7:
                a = ty.group_a(dealt, opts.teyaku_scale, opts.standing_triplets)
                held = a.name if a else None
            else:
                held = name
            if held is None or held in ("teshi", "ichinishi", "shiso", "kuttsuki"):
                continue
            months = [card(c).month for c in dealt]
            triplet_months = sorted({m for m in months if months.count(m) == 3})
            for m in triplet_months:
                month_cards = set(hanafuda_month(m))
                if month_cards <= got:
                    led.collect(seat, others, led.kan(2), f"diving (tobikomi): captured all of month {m}", "(rules H8.9)",
                                Note.of("diving", month=m))
                    break
        elif name != "pikaichi" and points[seat] >= PAR + 1:
            led.collect(seat, others, led.kan(2), f"escape (nukeyaku): {name} and {points[seat]} points", "(rules H8.9)",
                        Note.of("escape", teyaku=_name(name), points=points[seat]))
