"""Choreography: the physical actions at the table that carry out a rules-engine playout.

Input: the events of a playout and, after each, the engine's :class:`scorer.places.Places` (where
every card is). Output: a :class:`Timeline`, a gap-free sequence of :class:`Leg` s (seconds from
the start of the video) in which one player's arm reaches, carries cards, hovers or withdraws, and
the time at which each event's action completes (its record ``at``).

What moves is read from the change of places between events (so every game and ruleset works,
forced-out hands and reshuffles included); the event says who acts and what is shown. Places map
to zones by :func:`scorer.table.place_zone`; hands are held off the table and never drawn. Cards of a claim
or buy-out are laid face up in the seat zone, then taken back (claims) or put on the stock.

Bagaji reveal: the engine settles a fully known round at its ending event (``stop``, ``win``, a
winning ``call``, ``exhausted``), so the playout has no ``show`` events; a camera, though, can only
settle the round once the hands lie face up. After such an event every seat that still holds
concealed cards lays them face up (one seat after the other in seat order, starting with the
ender, each by its own arm), side by side in its seat zone after its melds (:meth:`_Builder.reveal_poses`), and they
lie still for :data:`REVEAL_HOLD_S` seconds before the next deal gathers them (or the video ends).
This is choreography only: the events and their ``at`` times are unchanged; the revealed cards
are what an observer's ``show`` events would lay down (places ``shown:N`` are seat zones).

Positions are table millimetres; a card's ``angle_deg`` follows :mod:`vision.synth.layouts`.
Times are rounded to milliseconds so that an event's ``at`` written with three decimals is exact.
Face-down cards in the stock are interchangeable: when a card is drawn, the top card of the stock
pile takes its id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorer.events import Event
from scorer.games import game as game_spec
from scorer.places import Places
from scorer.table import PILE_ZONES, diff, final_places, place_zone
from vision.zones import ZoneLayout

SHOW_EVENTS = ("claim", "buyout")
"""Events whose ``cards`` are laid face up before anything else happens to them."""
LIFT_MM = 35.0
"""Height of a carried card at the middle of its path (for its shadow)."""
REVEAL_ENDINGS = ("stop", "win", "exhausted")
"""Events that end a Bagaji round (besides a winning ``call``)."""
REVEAL_HOLD_S = 3.0
"""How long the revealed hands lie still, no arm over the table, once the last seat's are down (s)."""
REVEAL_GAP_MM = 8.0
"""Space between revealed cards (and after the melds) when the seat zone is long enough."""
REVEAL_MIN_STEP = 0.45
"""Closest spacing of revealed cards in a short zone, in card widths (over half of each shows)."""


@dataclass(frozen=True, slots=True)
class Pose:
    """Where a card lies (or is carried)."""

    center_mm: tuple[float, float]
    angle_deg: float
    face_up: bool


@dataclass(frozen=True, slots=True)
class Settled:
    """A card lying still on the table."""

    uid: int
    """The physical card (stable over the video; its look's wear follows it)."""
    card_id: str
    zone: str
    pose: Pose


@dataclass(frozen=True, slots=True)
class Carry:
    """A card moved during a leg."""

    uid: int
    card_id: str
    start: Pose
    end: Pose
    zone: str | None
    """Zone where it settles, or None when it goes into a hand (off the table)."""

    @property
    def flips(self) -> bool:
        """True when the card turns over on the way."""
        return self.start.face_up != self.end.face_up


@dataclass(frozen=True, slots=True)
class Leg:
    """One stretch of time with one arm (or none) and the cards it carries."""

    t0: float
    """Start (s)."""
    t1: float
    """End (s); the carried cards have settled at ``t1``."""
    seat: int | None
    """Whose arm moves (None: nobody's arm is over the table)."""
    hand_from: tuple[float, float]
    """The arm's hand point at ``t0`` (mm)."""
    hand_to: tuple[float, float]
    """The hand point at ``t1`` (mm)."""
    carries: tuple[Carry, ...]
    settled: tuple[Settled, ...]
    """Cards lying still during the leg, bottom first."""
    hover: bool = False
    """The hand hesitates above the table (a small wandering motion)."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """The whole video's actions."""

    legs: tuple[Leg, ...]
    event_times: tuple[float, ...]
    """For each event, the time (s) at which its action completes."""
    duration: float
    """Total length (s)."""

    def leg_at(self, t: float) -> Leg:
        """The leg under way at time ``t`` (t0 <= t < t1; the last leg after the end)."""
        lo, hi = 0, len(self.legs) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.legs[mid].t0 <= t:
                lo = mid
            else:
                hi = mid - 1
        return self.legs[lo]


def _ms(t: float) -> float:
    return round(t, 3)


class _Builder:
    """Keeps the table as it physically is and appends legs."""

    def __init__(self, layout: ZoneLayout, card_mm: tuple[float, float], rng: np.random.Generator) -> None:
        self.layout = layout
        self.card_mm = card_mm
        self.rng = rng
        self.t = 0.0
        self.legs: list[Leg] = []
        self.order = 0
        self.on_table: dict[int, tuple[Settled, int]] = {}  # uid → (settled, stacking order)
        self.ids: dict[int, str] = {}
        self.logical: dict[str, list[int]] = {}  # place → uids, in arrival order
        self.shown: set[int] = set()  # on the table but logically still in a hand
        self.slots: dict[str, dict[int, int]] = {}  # zone → slot index → uid
        self.row_count: dict[str, int] = {}
        self.speed = {s.seat: float(rng.uniform(0.85, 1.2)) for s in layout.seats}
        self.sitout: int | None = None
        self.next_uid = 0
        self.release_point: tuple[float, float] = (0.0, 0.0)

    # ------------------------------------------------------------------ geometry
    def seat_of_zone(self, zone: str) -> int | None:
        return int(zone.split(":")[1]) if zone.startswith("seat:") else None

    def off_point(self, seat: int) -> tuple[float, float]:
        """Where a card held in a hand is: beyond the seat's edge, in the player's lap."""
        s = self.layout.seat(seat)
        ox, oy = s.outward
        return (s.edge_mm[0] + ox * 150.0, s.edge_mm[1] + oy * 150.0)

    def grip(self, seat: int | None, center: tuple[float, float]) -> tuple[float, float]:
        """The hand point that holds a card at ``center``: behind its near edge, seen from the arm."""
        if seat is None:
            return center
        entry = self.layout.seat(seat).arm_entry_mm
        d = np.subtract(center, entry)
        n = float(np.hypot(*d)) or 1.0
        back = self.card_mm[1] / 2 + 15.0
        return (float(center[0] - d[0] / n * back), float(center[1] - d[1] / n * back))

    def row_slots(self, zone: str, uids: list) -> list:
        """(uid, pose, zone) for cards laid face up in rows in ``zone``, one free position each."""
        return [(u, self.slot_pose(zone, True, "rows")[0], zone) for u in uids]

    def slot_pose(self, zone: str, face_up: bool, kind: str) -> tuple[Pose, int | None]:
        """A free position in ``zone`` for a new card (and the slot it takes, if any)."""
        z = self.layout.zone(zone)
        rng = self.rng
        cw, ch = self.card_mm
        xs = [p[0] for p in z.polygon_mm]
        ys = [p[1] for p in z.polygon_mm]
        if zone in PILE_ZONES:
            c = z.center_mm
            jit = 0.8 if zone == "stock" else 3.0
            ang = 1.5 if zone == "stock" else 7.0
            return Pose((c[0] + float(rng.normal(0, jit)), c[1] + float(rng.normal(0, jit))),
                        float(rng.normal(0, ang)), face_up), None
        if zone == "field":
            x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
            cols = max(1, int((x1 - x0 - 10) // (cw + 10)))
            pitch_x = (x1 - x0) / cols
            centres = []
            for layer in range(3):  # full slots, then half-overlapping ones
                for r in range(2):
                    for c in range(cols):
                        x = x0 + pitch_x * (c + 0.5) + layer * cw * 0.45
                        y = (y0 + y1) / 2 + (r - 0.5) * (ch + 12) + layer * 18
                        centres.append((x, y))
            used = self.slots.setdefault(zone, {})
            for k, (x, y) in enumerate(centres):
                if k not in used:
                    return Pose((x + float(rng.normal(0, 2)), y + float(rng.normal(0, 2))),
                                float(rng.normal(0, 3)), face_up), k
            return Pose((float(rng.uniform(x0 + cw, x1 - cw)), float(rng.uniform(y0 + ch / 2, y1 - ch / 2))),
                        float(rng.normal(0, 8)), face_up), None
        # A seat zone: rows of overlapping captures and melds, or a spread row of shown cards.
        seat = self.layout.seat(self.seat_of_zone(zone) or 1)
        ox, oy = seat.outward
        right = (-oy, ox)  # the player's right, seen from above with y down
        length = (max(xs) - min(xs)) if seat.edge in ("bottom", "top") else (max(ys) - min(ys))
        depth = (max(ys) - min(ys)) if seat.edge in ("bottom", "top") else (max(xs) - min(xs))
        c = z.center_mm
        if kind == "show":
            k = self.row_count.get(zone + "/show", 0)
            self.row_count[zone + "/show"] = k + 1
            step = cw * 0.62
            along = -length / 2 + cw / 2 + 6 + k * step
            inward = depth / 2 - ch / 2 - 4 - 30  # nearer the centre than the captures
        else:
            k = self.row_count.get(zone, 0)
            self.row_count[zone] = k + 1
            step = 16.0
            per_row = max(1, int((length - cw - 12) // step) + 1)
            r, col = divmod(k, per_row)
            along = -length / 2 + cw / 2 + 6 + col * step
            inward = -depth / 2 + ch / 2 + 6 + r * 28.0
        # ``inward`` is measured from the zone centre towards the table centre (against outward).
        x = c[0] + right[0] * along - ox * inward
        y = c[1] + right[1] * along - oy * inward
        return Pose((x + float(rng.normal(0, 1)), y + float(rng.normal(0, 1))),
                    seat.angle_deg + float(rng.normal(0, 2.5)), face_up), None

    def reveal_poses(self, zone: str, n: int) -> list[Pose]:
        """Face-up poses for ``n`` cards laid side by side across seat zone ``zone``, after the
        cards already lying there (melds), upright for the seat and centred in the zone's depth:
        :data:`REVEAL_GAP_MM` apart where the zone is long enough, else evenly overlapping (at least
        :data:`REVEAL_MIN_STEP` card widths apart; in the shortest zones, 7-8 seats, the row may
        then reach over the last meld card)."""
        if n <= 0:
            return []
        z = self.layout.zone(zone)
        seat = self.layout.seat(self.seat_of_zone(zone) or 1)
        ox, oy = seat.outward
        right = (-oy, ox)  # the axis along the seat's edge, as in slot_pose
        xs = [p[0] for p in z.polygon_mm]
        ys = [p[1] for p in z.polygon_mm]
        length = (max(xs) - min(xs)) if seat.edge in ("bottom", "top") else (max(ys) - min(ys))
        cw = self.card_mm[0]
        c = z.center_mm
        lo, hi = -length / 2 + 6 + cw / 2, length / 2 - 6 - cw / 2  # range of card centres along
        along_of = [(s.pose.center_mm[0] - c[0]) * right[0] + (s.pose.center_mm[1] - c[1]) * right[1]
                    for s, _ in self.on_table.values() if s.zone == zone]
        if along_of:
            last = max(along_of)
            lo = max(lo, last + cw + REVEAL_GAP_MM)
            if n > 1 and hi - lo < (n - 1) * REVEAL_MIN_STEP * cw:
                lo = max(last + cw + 2.0, hi - (n - 1) * REVEAL_MIN_STEP * cw)  # a smaller gap first
            lo = min(lo, hi - (n - 1) * REVEAL_MIN_STEP * cw)
        step = cw + REVEAL_GAP_MM
        if n > 1 and (n - 1) * step > hi - lo:
            step = max((hi - lo) / (n - 1), REVEAL_MIN_STEP * cw)
        width = (n - 1) * step
        first = lo + max(0.0, (hi - lo - width) / 2)  # centred in the free stretch
        out = []
        for k in range(n):
            along = first + k * step
            x = c[0] + right[0] * along + float(self.rng.normal(0, 0.8))
            y = c[1] + right[1] * along + float(self.rng.normal(0, 0.8))
            out.append(Pose((x, y), seat.angle_deg + float(self.rng.normal(0, 1.2)), True))
        return out

    # ------------------------------------------------------------------ legs
    def settled(self) -> tuple[Settled, ...]:
        return tuple(s for s, _ in sorted(self.on_table.values(), key=lambda v: v[1]))

    def duration(self, seat: int | None, a: tuple[float, float], b: tuple[float, float], base: float = 0.25) -> float:
        dist = float(np.hypot(a[0] - b[0], a[1] - b[1]))
        d = min(1.0, base + dist / 1000.0) * (self.speed.get(seat, 1.0) if seat else 1.0)
        return max(0.2, d)

    def leg(self, seat: int | None, hand_from, hand_to, dur: float, carries: Sequence[Carry] = (),
            hover: bool = False) -> None:
        dur = max(0.05, _ms(dur))
        t0 = self.t
        t1 = _ms(t0 + dur)
        for c in carries:
            self.on_table.pop(c.uid, None)
        self.legs.append(Leg(t0, t1, seat, tuple(map(float, hand_from)), tuple(map(float, hand_to)),
                             tuple(carries), self.settled(), hover))
        self.t = t1
        for c in carries:
            if c.zone is not None:
                self.order += 1
                self.on_table[c.uid] = (Settled(c.uid, c.card_id, c.zone, c.end), self.order)

    def pause(self, dur: float) -> None:
        if dur > 0:
            self.leg(None, (0.0, 0.0), (0.0, 0.0), dur)

    def hand_point(self) -> tuple[float, float]:
        return self.legs[-1].hand_to if self.legs and self.legs[-1].seat is not None else (0.0, 0.0)

    def reach(self, seat: int, point: tuple[float, float]) -> None:
        entry = self.layout.seat(seat).arm_entry_mm
        self.leg(seat, entry, point, self.duration(seat, entry, point, 0.05))

    def move_arm(self, seat: int, a: tuple[float, float], b: tuple[float, float]) -> None:
        if np.hypot(a[0] - b[0], a[1] - b[1]) > 1.0:
            self.leg(seat, a, b, self.duration(seat, a, b, 0.1))

    def withdraw(self, seat: int, point: tuple[float, float]) -> None:
        entry = self.layout.seat(seat).arm_entry_mm
        self.leg(seat, point, entry, self.duration(seat, point, entry, 0.0))

    def hover(self, seat: int, point: tuple[float, float], dur: float) -> float:
        """Reach, hesitate over ``point`` for ``dur`` seconds, withdraw; returns the middle time."""
        self.reach(seat, point)
        mid = _ms(self.t + dur / 2)
        jitter = (point[0] + float(self.rng.normal(0, 25)), point[1] + float(self.rng.normal(0, 25)))
        self.leg(seat, point, jitter, dur, hover=True)
        self.withdraw(seat, jitter)
        return mid

    def arm_over_table(self, seat: int) -> tuple[float, float] | None:
        """The hand point when ``seat``'s arm is still over the table after the last leg."""
        if not self.legs or self.legs[-1].seat != seat:
            return None
        end = self.legs[-1].hand_to
        entry = self.layout.seat(seat).arm_entry_mm
        return None if np.hypot(end[0] - entry[0], end[1] - entry[1]) < 1.0 else end

    def hold(self, seat: int, dur: float) -> None:
        """The arm stays where it is for ``dur`` seconds."""
        p = self.arm_over_table(seat)
        if p is not None:
            self.leg(seat, p, p, dur)

    def carry_group(self, seat: int, items: Sequence[tuple[int, Pose, str | None]], from_hand: bool = False) -> None:
        """Carry ``items`` (uid, end pose, end zone) together from where they lie (or, with
        ``from_hand``, from the player's hand) to their ends. The arm reaches first when it is not
        over the table yet; it stays at ``release_point`` afterwards (call :meth:`withdraw`)."""
        carries = []
        for uid, end, zone in items:
            if from_hand or uid not in self.on_table:
                start = Pose(self.off_point(seat), end.angle_deg, end.face_up)
            else:
                start = self.on_table[uid][0].pose
            carries.append(Carry(uid, self.ids[uid], start, end, zone))
        first, last = carries[-1].start.center_mm, carries[-1].end.center_mm
        g0, g1 = self.grip(seat, first), self.grip(seat, last)
        here = self.arm_over_table(seat)
        if here is not None:
            self.move_arm(seat, here, g0)
        elif not from_hand:
            self.reach(seat, g0)
        dur = self.duration(seat, first, last, 0.2) + (0.15 if any(c.flips for c in carries) else 0.0)
        self.leg(seat, g0, g1, dur, carries)
        self.release_point = g1

    def flip_in_place(self, seat: int, uid: int) -> None:
        """Turn a lying card face up where it lies."""
        s = self.on_table[uid][0]
        up = Pose(s.pose.center_mm, s.pose.angle_deg, True)
        g = self.grip(seat, s.pose.center_mm)
        here = self.arm_over_table(seat)
        if here is not None:
            self.move_arm(seat, here, g)
        else:
            self.reach(seat, g)
        self.leg(seat, g, g, 0.35, [Carry(uid, self.ids[uid], s.pose, up, s.zone)])
        self.release_point = g

    # ------------------------------------------------------------------ bookkeeping
    def new_piece(self, card_id: str) -> int:
        uid = self.next_uid
        self.next_uid += 1
        self.ids[uid] = card_id
        return uid

    def take_logical(self, place: str, card_id: str) -> int:
        """Remove a card from a place's logical list; the uid of the physical card that moves."""
        uids = self.logical.get(place, [])
        if place == "stock":
            # The top face-down card is the one drawn: give it the drawn id.
            top = max(uids, key=lambda u: self.on_table[u][1] if u in self.on_table else -1)
            match = next(u for u in reversed(uids) if self.ids[u] == card_id)
            self.ids[top], self.ids[match] = self.ids[match], self.ids[top]
            uids.remove(top)
            return top
        match = next(u for u in reversed(uids) if self.ids[u] == card_id)
        uids.remove(match)
        return match


def build_timeline(layout: ZoneLayout, card_mm: tuple[float, float], events: Sequence[Event],
                   places: Sequence[Places | None], seed: int, hover_p: float = 0.12) -> Timeline:
    """The timeline of ``events``; ``places[i]`` is where the cards are after event ``i`` (None
    between rounds, or where the round was settled by the event: then the change is worked out
    from the event itself, see :func:`final_places`)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    b = _Builder(layout, card_mm, rng)
    times: list[float] = []
    before: Places | None = None
    dealer = 1
    b.pause(0.6)
    for i, ev in enumerate(events):
        after = places[i]
        if after is None and before is not None:
            after = final_places(layout.game, before, ev)
        seat = getattr(ev, "seat", None)
        dealer = getattr(ev, "dealer", dealer) if ev.TYPE == "deal" else dealer
        if ev.TYPE == "first-player":
            dealer = (ev.seat - 2) % layout.players + 1
        if ev.TYPE == "sit-out":
            b.sitout = ev.seat
        if seat is not None and ev.TYPE != "deal" and rng.random() < hover_p:
            b.hover(seat, _towards_centre(layout, seat, rng), float(rng.uniform(0.4, 1.0)))
            b.pause(float(rng.uniform(0.1, 0.3)))
        if ev.TYPE == "deal":
            at = _deal(b, dealer, after)
        else:
            at = _event(b, ev, seat or dealer, before, after)
        times.append(at)
        b.pause(float(rng.uniform(0.15, 0.5)))
        nxt = events[i + 1] if i + 1 < len(events) else None
        if after is not None and _ends_with_reveal(layout.game, ev) and (nxt is None or nxt.TYPE != "show"):
            _reveal(b, seat or dealer, after)
        before = after if places[i] is not None else None
    b.pause(0.8)
    return Timeline(tuple(b.legs), tuple(times), b.t)


def _ends_with_reveal(game: str, ev: Event) -> bool:
    """True when ``ev`` ends a round whose concealed hands are then laid face up (Bagaji)."""
    return game_spec(game).description.reveal and (ev.TYPE in REVEAL_ENDINGS or (ev.TYPE == "call" and bool(getattr(ev, "win", False))))


def _reveal(b: _Builder, first: int, after: Places) -> None:
    """After a round's end: every seat in seat order from ``first`` (the ender) lays the concealed cards it
    holds in ``after`` face up in its seat zone with its own arm (:meth:`_Builder.reveal_poses`);
    then nothing moves for :data:`REVEAL_HOLD_S` seconds. The cards stay until the next deal
    gathers the table; they count as the seat's ``shown:N`` place."""
    n = b.layout.players
    b.pause(0.5)
    seats = [(first - 1 + k) % n + 1 for k in range(n)]
    todo = [s for s in seats if after[f"hand:{s}"].known]
    for k, seat in enumerate(todo):
        name, zone = f"hand:{seat}", f"seat:{seat}"
        uids = [b.take_logical(name, cid) for cid in after[name].known]
        poses = b.reveal_poses(zone, len(uids))
        b.carry_group(seat, [(u, p, zone) for u, p in zip(uids, poses, strict=True)], from_hand=True)
        b.withdraw(seat, b.release_point)
        b.logical.setdefault(f"shown:{seat}", []).extend(uids)
        if k < len(todo) - 1:
            b.pause(float(b.rng.uniform(0.3, 0.6)))
    b.pause(REVEAL_HOLD_S)


def _towards_centre(layout: ZoneLayout, seat: int, rng: np.random.Generator) -> tuple[float, float]:
    s = layout.seat(seat)
    cx, cy = layout.area_mm[0] / 2, layout.area_mm[1] / 2
    k = float(rng.uniform(0.3, 0.7))
    return (s.edge_mm[0] * (1 - k) + cx * k + float(rng.normal(0, 30)), s.edge_mm[1] * (1 - k) + cy * k + float(rng.normal(0, 30)))


def _deal(b: _Builder, dealer: int, after: Places) -> float:
    """The deal: gather what lies on the table, a face-down deck on the stock, hands dealt as
    face-down packets in front of each seat and picked up, the face-up cards dealt face down and
    turned over."""
    if b.on_table:
        items = []
        for s in b.settled():
            pose, _ = b.slot_pose("stock", False, "pile")
            items.append((s.uid, pose, "stock"))
        b.carry_group(dealer, items)
        b.withdraw(dealer, b.release_point)
        for s in b.settled():
            b.on_table.pop(s.uid)
    b.logical.clear()
    b.shown.clear()
    b.slots.clear()
    b.row_count.clear()
    # The whole deck, face down on the stock spot (shuffled off-camera).
    all_ids = [cid for name in after.names() for cid in after[name].known]
    order = [all_ids[k] for k in b.rng.permutation(len(all_ids))]
    deck = []
    for cid in order:
        uid = b.new_piece(cid)
        pose, _ = b.slot_pose("stock", False, "pile")
        b.order += 1
        b.on_table[uid] = (Settled(uid, cid, "stock", pose), b.order)
        deck.append(uid)
    b.logical["stock"] = list(deck)
    b.pause(0.5)
    # Hands: one face-down packet per seat, put in front of the seat, then picked up.
    packets: dict[int, list[int]] = {}
    for name in after.names():
        if not name.startswith("hand:") or not after[name].known:
            continue
        seat = int(name.split(":")[1])
        uids = [b.take_logical("stock", cid) for cid in after[name].known]
        packets[seat] = uids
    for seat in sorted(packets, key=lambda s: (s - dealer) % b.layout.players):
        zone = f"seat:{seat}"
        c = b.layout.zone(zone).center_mm
        items = [(u, Pose((c[0] + k * 0.4, c[1] - k * 0.4), b.layout.seat(seat).angle_deg + float(b.rng.normal(0, 4)), False), zone)
                 for k, u in enumerate(packets[seat])]
        b.carry_group(dealer, items)
    if packets:
        b.withdraw(dealer, b.release_point)
    for seat in sorted(packets, key=lambda s: (s - dealer) % b.layout.players):
        end = b.off_point(seat)
        items = [(u, Pose(end, b.layout.seat(seat).angle_deg, False), None) for u in packets[seat]]
        b.carry_group(seat, items)
        b.withdraw(seat, b.release_point)
        b.logical[f"hand:{seat}"] = list(packets[seat])
    # Face-up cards: dealt face down, then turned over one by one.
    at = b.t
    for name in after.names():
        zone = place_zone(name, b.sitout)
        if zone is None or name == "stock" or not after[name].known:
            continue
        uids = [b.take_logical("stock", cid) for cid in after[name].known]
        for u in uids:
            pose, slot = b.slot_pose(zone, False, "rows")
            if slot is not None:
                b.slots[zone][slot] = u
            b.carry_group(dealer, [(u, pose, zone)])
        for u in uids:
            b.flip_in_place(dealer, u)
        at = b.t
        b.withdraw(dealer, b.release_point)
        b.logical[name] = list(uids)
    return at


def _free_slot(b: _Builder, uid: int) -> None:
    for slots in b.slots.values():
        for k, u in list(slots.items()):
            if u == uid:
                del slots[k]


def _event(b: _Builder, ev: Event, actor: int, before: Places | None, after: Places | None) -> float:
    """Carry out one event; returns the time its action completes."""
    moves = diff(before, after) if after is not None else []
    shown_cards = tuple(getattr(ev, "cards", ())) if ev.TYPE in SHOW_EVENTS else ()
    # Shown cards of an earlier claim that are still in the hand are taken back first.
    moving = {cid for cid, _, _ in moves}
    back = [u for u in b.shown if b.ids[u] not in moving]
    if back:
        by_seat: dict[int, list[int]] = {}
        for u in back:
            z = b.on_table[u][0].zone
            by_seat.setdefault(b.seat_of_zone(z) or actor, []).append(u)
        for seat, uids in sorted(by_seat.items()):
            end = b.off_point(seat)
            b.carry_group(seat, [(u, Pose(end, b.on_table[u][0].pose.angle_deg, False), None) for u in uids])
            b.withdraw(seat, b.release_point)
            b.shown.difference_update(uids)
        b.row_count = {k: v for k, v in b.row_count.items() if not k.endswith("/show")}
    at = None
    if shown_cards:
        zone = f"seat:{actor}"
        items = []
        for cid in shown_cards:
            uids = b.logical.get(f"hand:{actor}", [])
            u = next(x for x in uids if b.ids[x] == cid and x not in b.shown)
            pose, _ = b.slot_pose(zone, True, "show")
            items.append((u, pose, zone))
            b.shown.add(u)
        b.carry_group(actor, items, from_hand=True)
        at = b.t
        b.withdraw(actor, b.release_point)
        b.pause(0.6)
    if not moves:
        if at is None:
            at = b.hover(actor, _towards_centre(b.layout, actor, b.rng), float(b.rng.uniform(0.5, 1.0)))
        return at
    # Group the moves: who does them, in what order.
    groups: dict[tuple[str, str], list[str]] = {}
    for cid, src, dst in moves:
        groups.setdefault((src, dst), []).append(cid)
    taking = [(k, v) for k, v in groups.items() if k[1].split(":")[0] in ("captured", "meld")]
    dests = {k[1] for k, _ in taking}
    for dst in sorted(dests):
        at = _capture(b, actor, {k: v for k, v in taking if k[1] == dst}, dst)
    rest = [(k, v) for k, v in groups.items() if k[1] not in dests]
    # Other players' moves (forced-out hands to the stock) before the actor's own.
    rest.sort(key=lambda kv: (_hand_seat(kv[0][0]) == actor, kv[0]))
    for (src, dst), cids in rest:
        seat = _hand_seat(src) or _hand_seat(dst) or actor
        zone = place_zone(dst, b.sitout)
        uids = [b.take_logical(src, cid) if src else b.new_piece(cid) for cid in cids]
        for u in uids:
            _free_slot(b, u)
            b.shown.discard(u)
        if zone is None:
            end = b.off_point(seat)
            items = [(u, Pose(end, b.layout.seat(seat).angle_deg, False), None) for u in uids]
        else:
            face_up = zone != "stock"
            kind = "show" if dst.startswith(("shown", "out")) else "rows"
            items = []
            packet = zone in PILE_ZONES and len(uids) > 1
            base, _ = b.slot_pose(zone, face_up, kind) if packet else (None, None)
            for k, u in enumerate(uids):
                if packet:
                    pose = Pose((base.center_mm[0] + k * 0.3, base.center_mm[1] - k * 0.3), base.angle_deg, face_up)
                else:
                    pose, slot = b.slot_pose(zone, face_up, kind)
                    if slot is not None:
                        b.slots[zone][slot] = u
                items.append((u, pose, zone))
        from_hand = src.startswith("hand:") and not any(u in b.on_table for u in uids)
        b.carry_group(seat, items, from_hand=from_hand)
        at = b.t
        b.withdraw(seat, b.release_point)
        b.logical.setdefault(dst, []).extend(uids)
    return at if at is not None else b.t


def _hand_seat(place: str) -> int | None:
    return int(place.split(":")[1]) if place.startswith("hand:") else None


def _capture(b: _Builder, actor: int, groups: dict[tuple[str, str], list[str]], dst: str) -> float:
    """Cards into a seat's captures or melds. Hachi-hachi: the played (or drawn) card is laid on
    the card it matches, then the arm sweeps them into the seat zone. Bagaji: the caller lays its
    pair in the seat zone and then takes the discard to it."""
    zone = place_zone(dst, b.sitout)
    played = [(src, cid) for (src, _), cids in groups.items() for cid in cids if place_zone(src, b.sitout) in (None, "stock")]
    taken = [(src, cid) for (src, _), cids in groups.items() for cid in cids if place_zone(src, b.sitout) not in (None, "stock")]
    seat = actor
    played_uids = []
    for src, cid in played:
        u = b.take_logical(src, cid)
        b.shown.discard(u)
        played_uids.append((src, u))
    taken_uids = []
    for src, cid in taken:
        u = b.take_logical(src, cid)
        _free_slot(b, u)
        taken_uids.append(u)
    if dst.startswith("captured") and taken_uids:
        target = b.on_table[taken_uids[0]][0].pose
        for k, (src, u) in enumerate(played_uids):
            pose = Pose((target.center_mm[0] + 14 + 4 * k, target.center_mm[1] + 10), target.angle_deg + 6, True)
            if src == "stock":
                b.carry_group(seat, [(u, pose, "field")])
            else:
                b.carry_group(seat, [(u, pose, "field")], from_hand=u not in b.on_table)
            b.hold(seat, 0.2)
        b.carry_group(seat, b.row_slots(zone, taken_uids + [u for _, u in played_uids]))
        done = b.t
        b.withdraw(seat, b.release_point)
    else:
        if played_uids:
            b.carry_group(seat, b.row_slots(zone, [u for _, u in played_uids]), from_hand=True)
        if taken_uids:
            b.carry_group(seat, b.row_slots(zone, taken_uids))
        done = b.t
        b.withdraw(seat, b.release_point)
    b.logical.setdefault(dst, []).extend(taken_uids + [u for _, u in played_uids])
    return done


def lerp_angle(a: float, b: float, s: float) -> float:
    """Interpolate angles the short way round."""
    d = (b - a + 180.0) % 360.0 - 180.0
    return a + d * s


def ease(s: float) -> float:
    """Smooth start and stop (0..1 → 0..1)."""
    s = min(1.0, max(0.0, s))
    return s * s * (3 - 2 * s)


def lift(s: float) -> float:
    """Height (mm) of a carried card at fraction ``s`` of its path."""
    return LIFT_MM * math.sin(math.pi * min(1.0, max(0.0, s)))
