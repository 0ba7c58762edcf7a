"""The stabiliser: camera frames → settled table states for the tracker (ARCHITECTURE.md "Data flow").

``Stabiliser(layout, recogniser).push(frame, t, calibration)`` takes every frame with its time (s)
and calibration (:mod:`vision.calibrate`) and returns a :class:`~scorer.table.TableState` while
the table is settled, None otherwise. Table coordinates are millimetres as in :mod:`vision.zones`.

**Views.** Each frame is looked at through two top-down views of the play area plus ``margin_mm``
on every side (so that arms are seen before they reach the markers): the *gate view* at
``gate_px_per_mm`` (small: the frame is first shrunk with area averaging to about that resolution,
then warped, then blurred 5 × 5), computed on every frame; and the *recognition view* at
``px_per_mm``, warped from the full frame only when cards are to be recognised.

**Gate** (every frame, on the gate view; a difference is the largest of the three colour channels'
absolute differences, opened 3 × 3 to drop shimmer along edges):

- *motion*: the difference to the previous frame above ``motion_threshold`` on at least
  ``motion_min_mm2`` of table;
- *foreground*: the difference to the *background* above ``foreground_threshold``. The background
  is the gate view of the last frame with neither motion nor an arm (it follows slow light drift);
  the first one is the first still frame after calibration;
- *arm*: a connected foreground or moving region of at least ``arm_min_mm2`` that touches the
  *border band*: the part of the view more than ``border_mm`` outside the play area, and the
  last pixels before the edge of what the camera sees. Cards never lie there; arms always cross
  it. A still arm stays foreground, hence still an arm. Its seat is found where it crosses the
  play area's edge: the mean of its pixels outside the play area gives the edge it crosses (the
  one it lies farthest beyond), and of the seats on that edge the one whose ``edge_mm`` is
  nearest (any seat's when none sits on that edge). Seats of arms are collected in order, a seat
  repeated in a row kept once, from one emitted state to the next (``TableState.actors``).
- *hand*: the mean of the arm's pixels farthest (top 5 %) from where it crosses the edge. A hand
  moving slower than ``hand_still_mm_s`` between two frames has stopped to take or lay a card:
  its zone joins ``TableState.reached`` of the next emitted state.
- *light change*: foreground over ``relight_fraction`` of the view while nothing moves is a change
  of light, not an arm: the background is taken anew and the table is read again.
- *stale arm*: an arm seen with nothing moving for ``stale_arm_s`` is taken to be part of the
  background (an arm present at the first still frame, later gone, would otherwise stay forever).

**Settling and reading.** The table is *still* from the first frame with no motion and no arm.
It has *changed* when its gate view differs from the one of the last reading (the *reference*)
above ``foreground_threshold`` on at least ``change_min_mm2``. An unchanged still table emits the
cached state at once (or, when a re-read completes on that frame, the state it makes:
"Re-reads"); a slow drift below that area replaces the reference. A changed table is read once it
has been still for ``settle_s``: the recognition view is recognised, again each ``confirm_s``
later, until two readings agree (the same cards, matched by centre distance below ``match_mm``,
with the same face and most likely name) or three have been taken. Cards seen in more than half
of the readings are kept; a card's probabilities are the mean over the readings that saw it.
Motion or an arm before the readings are complete discards them (a lone reading still adds its
pile tops to the history). The combined reading updates the card memory (below), becomes the
cached state and the new reference, and is emitted; it is emitted again, with the frame's time,
on every frame while the table stays still and unchanged.

**Cards in table millimetres.** A recognised card's centre is the mean of its outline's corners
in the recognition view, mapped to table mm; ``layout.zone_of`` gives its zone; cards in no zone
(a cup, a card box, a phone) are left out. Two outlines of the same face whose centres lie within
``match_mm``, turned ``SECOND_OUTLINE_TURN_DEG`` or more from each other, sharing at least half of
the smaller one, are one card (the recogniser sometimes finds a second, turned rectangle over a
card and names it as another): the less confident is left out. Cards stacked in a row lie parallel
and are kept. A face-up card's probabilities (:class:`SeenCard`) are
its label with its confidence and its alternatives, the back left out, divided by their sum when
that exceeds 1; a face-down card counts as one face-down card.

**Memory** (zones where cards stack: the pile zones and the seat zones, not ``field``): each card
the stabiliser holds remembers when it was first seen (``since``); a later card lies on an earlier
one. A card of a reading matches the card held at the same place (centre within ``match_mm``, same
face and, in the pile zones, where cards lie on the same spot, names that share at least
``same_card_p`` of probability), else it is new. A held card no reading sees any more is kept
while a card first seen after it, still on the table, covers at least ``cover_fraction`` of its
outline (a capture row, a pile), provided it was once read lying clear (a card only ever seen
partly hidden may be a misplaced outline and is not kept); it is dropped as soon as nothing later
covers it (the row or pile was taken away). Outside ``field`` a card seen again is named by the
mean of the readings taken while it lay clear (no card first seen after it covering
``cover_fraction`` of it: cards that arrive together are read as they first show); readings taken
while it may be partly hidden count only until it is first read lying clear, and are then dropped:
the classifier tends to name a mostly hidden card after the card on it, and a capture row is read
many times.

*Capture transfer:* when a reading loses face-up ``field`` cards while new face-up cards appear in
seat zones, each lost card goes to the one seat zone with new cards, or, with several, to the one
whose new cards include a card of its month (hanafuda; none of its month or several such zones: it
is left lost). There, each lost card whose name is not among the new cards (one new card answering
for one lost card of its name) is taken to lie under those new cards (a capture: the played card
laid on the field card and both swept into the player's row, the field card mostly hidden). When
every lost card's name arrived, the first lost card is still taken to lie under them if the
recognition view changed since the last reading in that seat zone, outside the new cards' outlines
grown by 3 mm, on ``hidden_min_mm2`` or more (two cards of one name captured: only the top one
shows). Changes between readings are measured on the recognition views (blurred 3 × 3,
``foreground_threshold``, opened 3 × 3). A new card there named like another card it overlaps (the
classifier names a mostly hidden card after the card on it) is renamed to the lost card and put
under it; otherwise the lost card is added under the most confident new card, unseen
(``TableCard.inferred``), until an outline in that zone within half a card's length, matching no
other card and less than half of it changed since the last reading, is found for it. Such a card
keeps the lost card's name and goes when nothing covers it. A new card where a card of the same name
left the same zone (an outline that moved) is no arrival.

**Zones of the state** (rules of :mod:`scorer.table`): in ``stock`` anything counts as one
face-down stack; in the other pile zones the top is the face-up card first seen last (ties: the
most confident), or one face-down stack when no face-up card shows; elsewhere every face-up card
is listed and every face-down card counts.

**Pile history.** While the table is not settled, each pile zone other than the stock with no arm
over it (its rectangle grown by ``border_mm``) and no motion in it for ``pile_still_s``, whose
gate view differs from its reference or that motion or an arm touched since its last reading (a
card laid on one of its colour and rank, a black 4 on a black 4, leaves the coarse gate view as it
was), is recognised alone (a crop of the recognition view around
it, the detector's input size scaled down with the crop so cards keep their size in the
detector's input); its top joins ``TableState.history`` of the next emitted state when it differs
from the last top listed there. The emitted state's own top is listed last.

**Re-reads.** ``reread(zones)`` asks for the cards of those zones (``field``, ``pile``,
``seat:2``…; names not in the layout are ignored) to be recognised again because the game
contradicts their reading (the tracker's ``Update.reread``). Nothing is re-read unless asked. The
zones asked for are re-read at the next frames where the table is still, unchanged since its last
reading (the cached state is emitted meanwhile), and has been still for ``settle_s``; a request
made while the table moves or is being read waits for it. Each zone's bounding rectangle, grown by
half a card's length and kept within the recognition view's table, is warped from the full frame at
the most frame pixels per table mm that the calibration gives at its corners and centre (the
largest singular value of the homography's Jacobian, :func:`frame_px_per_mm`), at least
``px_per_mm``, at most what keeps the crop's longest side within ``reread_max_px``, and recognised
with the detector's input size scaled so that cards keep the size they have in it for the
recognition view (the classifier's crops get the extra pixels), and carefully where the recogniser
can (``recognise_carefully``: a playing card's corner indices read at the crop's own resolution). Its cards in that zone, in table mm,
make a re-reading; the zones asked for at the first re-reading are re-read together, again each
``confirm_s`` later, until two re-readings agree or three have been taken, combined as readings are.
Motion, an arm, a changed table or a new calibration discards the re-readings under way, not the
request. The combined re-reading updates each zone's held cards as a pile reading does ("Memory"),
except that a held card at the same place (centre within ``match_mm``, same face first, then any) is
the same card whatever its names (the table did not change; a pile's covered cards are left out of
that matching) and that, outside ``field``, a card lying clear takes the re-reading's name and keeps
it until it is re-read again (a card partly hidden now keeps a name it was once read lying clear
with; else the re-reading replaces its readings so far). The readings of a re-read card from before
the re-read still match it: in a pile zone, an outline whose names share ``same_card_p`` with their
mean is that card, not a new one. ``field`` has no memory: its next reading of a changed table
names its cards anew. The state is then built anew and emitted (with no pile history: no card
came); it differs from the cached one only where names, probabilities or counts changed. A zone
asked for again while its held cards (numbers, faces, probabilities, coverings) are as its last
re-read left them is not re-read: a still card read twice gives the same answer, so a zone is
re-read at most once per change of its cards.

**A new calibration** (the camera moved, or the calibration was refined) changes the views, not
the table: the gate images kept (previous frame, background, reference) show the same table
points, so they are kept, and what only the new view sees is taken from the next frame. When the
play area's corners move by a gate pixel or more between the two calibrations, the table is read
again.

The recogniser is called with recognition-view images and re-read crops; its ``detector.size``
is set for the duration of a crop's reading and put back.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np

from scorer.table import PILE_ZONES, SeenCard, TableState, ZoneState
from vision.calibrate import Calibration, px_per_mm_at, view_homography, view_size
from vision.recognise.duplicates import TURNED
from vision.recognise.geometry import polygon_area as _area
from vision.recognise.geometry import polygon_overlap as _overlap
from vision.recognise.geometry import polygon_turn as _turn
from vision.zones import CARD_MM, ZoneLayout

Point = tuple[float, float]

BACK_LABELS = ("back", "BACK")
"""Recogniser labels of a card's back."""
STACK_ZONES = PILE_ZONES
"""Zones where only the top card shows."""
SHARED_ZONES = ("field",)
"""Zones where cards lie side by side and a freed place is reused: no memory of covered cards."""
SECOND_OUTLINE_TURN_DEG = TURNED
"""Two overlapping outlines at least this far apart in direction (degrees) may be one card seen twice
(the recogniser's own rule, :func:`vision.recognise.duplicates.one_outline_each`)."""
ARRIVAL_CHANGED = 0.25
"""Least part of a new outline in a seat zone where the view changed since the last reading, for it to
be a card that arrived (less: another outline of cards already held in an overlapping row)."""
PART_OUTLINE = 0.85
PART_INSIDE = 0.6
"""An outline at most ``PART_OUTLINE`` of a held card's area with at least ``PART_INSIDE`` of it over
that card, while another outline covers part of the card, is the held card's visible part; an
outline larger than the card over ``PART_INSIDE`` of it and over half of another outline is the
two cards seen as one."""


class CardLike(Protocol):
    """What the stabiliser reads of a recognised card (:class:`vision.recognise.cards.RecognisedCard`)."""

    label: str
    face_up: bool
    polygon: tuple[tuple[float, float], ...]
    confidence: float
    alternatives: tuple[tuple[str, float], ...]


class RecogniserLike(Protocol):
    """A recogniser: names the cards of one top-down BGR image."""

    def recognise(self, frame: np.ndarray) -> Sequence[CardLike]: ...


@dataclass(frozen=True, slots=True)
class TableCard:
    """A card the stabiliser holds, in table coordinates."""

    probs: tuple[tuple[str, float], ...]
    """Face up: (sight name, probability), most likely first, summing to at most 1; face down: ()."""
    face_up: bool
    centre_mm: Point
    """Mean of the outline's corners (mm)."""
    polygon_mm: tuple[Point, ...]
    """Outline (mm), four corners."""
    zone: str | None
    """The zone holding the centre (None: outside every zone)."""
    since: float
    """Frame time (s) of the reading that first saw it."""
    covered: bool = False
    """Not seen by the last reading: kept because a later card covers it."""
    uid: int = 0
    """Stable number of this physical card while the stabiliser holds it."""
    inferred: bool = False
    """Never seen here: a field card taken to lie under the cards that appeared in this seat zone
    when it vanished (module docstring, "Memory")."""

    @property
    def confidence(self) -> float:
        """Probability of the most likely name (1 for a face-down card)."""
        return self.probs[0][1] if self.probs else 1.0

    @property
    def name(self) -> str | None:
        """The most likely sight name (None when face down)."""
        return self.probs[0][0] if self.probs else None


@dataclass(frozen=True, slots=True)
class StabiliserStats:
    """Work done so far."""

    frames: int = 0
    """Frames pushed with a calibration."""
    states: int = 0
    """Table states emitted."""
    readings: int = 0
    """Whole-view recognitions."""
    pile_readings: int = 0
    """Pile-zone recognitions (history)."""
    gate_ms: float = 0.0
    """Time spent in the gate view: shrink, warp, blur, motion, foreground, arms (ms, total)."""
    recognise_ms: float = 0.0
    """Time spent reading: recognition-view warps and the recogniser (ms, total; re-reads not included)."""
    rereads: int = 0
    """Zone re-readings at full camera resolution (module docstring, "Re-reads"): one per zone per
    reading; a re-read takes two or three."""
    reread_ms: float = 0.0
    """Time spent re-reading: the zones' warps and the recogniser (ms, total)."""


@dataclass(slots=True)
class _Reading:
    """One card in a reading, in table mm."""

    probs: dict[str, float]
    face_up: bool
    centre: np.ndarray
    polygon: np.ndarray
    zone: str | None
    seen: int = 1


@dataclass(slots=True)
class _Geometry:
    """Everything that follows from one calibration and frame size."""

    key: bytes
    step: int
    """The frame is shrunk by this whole factor (area averaging) before the gate view's warp."""
    small_hom: np.ndarray
    small_size: tuple[int, int]
    view_hom: np.ndarray
    view_size: tuple[int, int]
    band: np.ndarray
    outside: np.ndarray
    valid: np.ndarray
    valid_px: int
    table_to_frame: np.ndarray
    pile_rects: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    reread_crops: dict[str, tuple[tuple[float, float, float, float], float]] = field(default_factory=dict)
    """Zone → (its re-read rectangle (x0, y0, x1, y1) mm, the re-read's px per mm), filled when first asked."""


def seen_card(card: CardLike) -> tuple[tuple[str, float], ...]:
    """A face-up recognised card's probabilities: its label at its confidence and its alternatives,
    backs left out, divided by their sum when it exceeds 1, most likely first; () for a back."""
    if not card.face_up:
        return ()
    pairs: dict[str, float] = {}
    for name, p in ((card.label, card.confidence), *card.alternatives):
        if name in BACK_LABELS or p <= 0.0:
            continue
        pairs[name] = max(pairs.get(name, 0.0), float(p))
    total = sum(pairs.values())
    if total > 1.0:
        pairs = {n: p / total for n, p in pairs.items()}
    return tuple(sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])))


def _shared(a: dict[str, float], b: dict[str, float]) -> float:
    """Probability two name distributions share (sum of the smaller of each name's two)."""
    return sum(min(p, b.get(n, 0.0)) for n, p in a.items())


def _convex(poly: np.ndarray) -> np.ndarray:
    hull = cv2.convexHull(np.asarray(poly, np.float32))
    return hull.reshape(-1, 2).astype(np.float64)


def frame_px_per_mm(table_to_frame: np.ndarray, points_mm: Iterable[Point]) -> float:
    """The most frame pixels per table millimetre that the homography ``table_to_frame`` (table mm →
    frame px) gives at any of ``points_mm`` (:func:`vision.calibrate.px_per_mm_at`)."""
    return max((px_per_mm_at(table_to_frame, x, y)[0] for x, y in points_mm), default=0.0)


class Stabiliser:
    """Frames in, settled table states out (rules in the module docstring)."""

    def __init__(self, layout: ZoneLayout, recogniser: RecogniserLike, *, px_per_mm: float = 1.1,
                 margin_mm: float = 70.0, settle_s: float = 0.3, confirm_s: float = 0.06,
                 pile_still_s: float = 0.2, gate_px_per_mm: float = 0.25, motion_threshold: float = 22.0,
                 foreground_threshold: float = 30.0, motion_min_mm2: float = 600.0, arm_min_mm2: float = 2000.0,
                 change_min_mm2: float | None = None, border_mm: float = 30.0, relight_fraction: float = 0.5,
                 stale_arm_s: float = 10.0, match_mm: float | None = None, same_card_p: float = 0.2,
                 cover_fraction: float = 0.15,
                 hidden_min_mm2: float | None = None, hand_still_mm_s: float = 400.0,
                 reread_max_px: int = 2000) -> None:
        """``px_per_mm``: recognition view resolution (px per mm); ``margin_mm``: table shown beyond
        the play area on each side (mm); ``settle_s``: stillness before a changed table is read (s);
        ``confirm_s``: time between readings (s); ``pile_still_s``: a pile's local stillness before
        it is read alone (s); ``gate_px_per_mm``: gate view resolution; thresholds are colour
        levels (0-255); areas are table mm²; ``change_min_mm2`` defaults to a quarter of a card,
        ``hidden_min_mm2`` to a tenth; ``hand_still_mm_s``: a hand slower than this (mm/s) has stopped;
        ``match_mm`` to 20 % of a card's short side (mm); ``reread_max_px``: the longest side (px)
        of a zone's re-read crop (module docstring, "Re-reads")."""
        if px_per_mm <= 0 or gate_px_per_mm <= 0 or margin_mm < 0:
            raise ValueError("px_per_mm and gate_px_per_mm must be positive, margin_mm not negative")
        if settle_s < 0 or confirm_s < 0 or pile_still_s < 0:
            raise ValueError("settle_s, confirm_s and pile_still_s cannot be negative")
        if reread_max_px < 64:
            raise ValueError("reread_max_px must be at least 64")
        self.layout = layout
        self.recogniser = recogniser
        self.px_per_mm = float(px_per_mm)
        self.margin_mm = float(margin_mm)
        self.settle_s = float(settle_s)
        self.confirm_s = float(confirm_s)
        self.pile_still_s = float(pile_still_s)
        self.gate_px_per_mm = float(gate_px_per_mm)
        self.motion_threshold = float(motion_threshold)
        self.foreground_threshold = float(foreground_threshold)
        self.motion_min_mm2 = float(motion_min_mm2)
        self.arm_min_mm2 = float(arm_min_mm2)
        cw, ch = CARD_MM[layout.deck]
        self.change_min_mm2 = float(change_min_mm2 if change_min_mm2 is not None else cw * ch / 4)
        self.border_mm = float(border_mm)
        self.relight_fraction = float(relight_fraction)
        self.stale_arm_s = float(stale_arm_s)
        self.match_mm = float(match_mm if match_mm is not None else 0.2 * min(cw, ch))
        self.same_card_p = float(same_card_p)
        self.cover_fraction = float(cover_fraction)
        self.hidden_min_mm2 = float(hidden_min_mm2 if hidden_min_mm2 is not None else cw * ch / 10)
        self.hand_still_mm_s = float(hand_still_mm_s)
        self.reread_max_px = int(reread_max_px)
        self._piles = tuple(z.name for z in layout.zones if z.name in STACK_ZONES and z.name != "stock")
        self.reset()

    # ------------------------------------------------------------------ public
    def reset(self) -> None:
        """Forget everything seen (cards, background, arms, history); keeps the settings."""
        self._geo: _Geometry | None = None
        self._fill: np.ndarray | None = None
        self._changed: np.ndarray | None = None
        self._view: np.ndarray | None = None
        self._last_view: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._background: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._pile_ref: dict[str, np.ndarray] = {}
        self._pile_quiet: dict[str, float | None] = {z: None for z in self._piles}
        self._pile_touched: dict[str, bool] = {z: False for z in self._piles}
        self._still_since: float | None = None
        self._arm_still_since: float | None = None
        self._readings: list[tuple[float, list[_Reading]]] = []
        self._cards: list[TableCard] = []
        self._evidence: dict[int, tuple[dict[str, float], float, tuple[tuple[str, float], ...] | None, bool]] = {}
        """uid → (weighted sums of its readings' probabilities, their total weight, pinned
        probabilities of a transferred or re-read card, whether it was once read lying clear)."""
        self._next_uid = 0
        self._state: TableState | None = None
        self._actors: list[int] = []
        self._reached: set[str] = set()
        self._hands: dict[int, tuple[Point, float]] = {}
        self._history: dict[str, list[str]] = {}
        self._last_arms: tuple[int, ...] = ()
        self._phase = "uncalibrated"
        self._stats = StabiliserStats()
        self._reread_asked: set[str] = set()
        self._reread_zones: frozenset[str] = frozenset()
        """The zones of the re-read under way (fixed at its first re-reading)."""
        self._rereadings: list[tuple[float, list[_Reading]]] = []
        self._reread_done: dict[str, tuple] = {}
        """Zone → :meth:`_zone_key` of its cards as its last re-read left them."""

    @property
    def cards(self) -> tuple[TableCard, ...]:
        """The cards held now (seen by the last reading, or kept under later cards)."""
        return tuple(self._cards)

    @property
    def arms(self) -> tuple[int, ...]:
        """Seats of the arms over the table in the last frame pushed."""
        return self._last_arms

    @property
    def phase(self) -> str:
        """``uncalibrated``, ``moving`` (motion, no arm), ``arm``, ``settling`` (still, changed,
        readings under way) or ``settled`` (the last push returned a state)."""
        return self._phase

    @property
    def stats(self) -> StabiliserStats:
        """Work done so far."""
        return self._stats

    @property
    def state(self) -> TableState | None:
        """The cached state of the last complete reading (None before the first)."""
        return self._state

    @property
    def rereading(self) -> frozenset[str]:
        """Zones asked to be re-read and not re-read yet (module docstring, "Re-reads")."""
        return frozenset(self._reread_asked)

    def reread(self, zones: Iterable[str]) -> None:
        """Recognise the cards of ``zones`` (zone names: ``field``, ``pile``, ``seat:2``…) again at full
        camera resolution at the next frames where the table is still, because the game contradicts
        their reading (module docstring, "Re-reads"). A zone already re-read with its cards as they
        are now, or not in the layout, is left out."""
        names = {z.name for z in self.layout.zones}
        for z in zones:
            if z in names and not self._reread_settled(z):
                self._reread_asked.add(z)

    def push(self, image: np.ndarray, t: float, calibration: Calibration | None) -> TableState | None:
        """Take frame ``image`` (BGR uint8) seen at ``t`` (s) under ``calibration``; return the
        settled table state, or None while something moves, an arm is over the table, a changed
        table is being read, or before the first calibration."""
        if calibration is None:
            self._phase = "uncalibrated"
            return None
        started = time.perf_counter()
        geo = self._geometry(calibration, image.shape)
        small = self._small(image, geo)
        if self._fill is not None:
            for kept in (self._prev, self._background, self._reference):
                if kept is not None:
                    kept[self._fill] = small[self._fill]
            self._fill = None
        first = self._prev is None
        moving_mask = self._moving(small)
        moving = self._mm2(int(np.count_nonzero(moving_mask))) >= self.motion_min_mm2
        # the first frame of a view has nothing to compare with: it moves, and shows no arm yet
        arms, arm_mask, fg_area, hands = ([], None, 0, {}) if first else self._arms(small, moving_mask, geo)
        if self._background is not None and not moving and fg_area > self.relight_fraction * geo.valid_px:
            self._relit(small)
            arms, arm_mask = [], None
        if arms and not moving:
            if self._arm_still_since is None:
                self._arm_still_since = t
            elif t - self._arm_still_since >= self.stale_arm_s:
                self._background = small.copy()
                arms, arm_mask = [], None
        else:
            self._arm_still_since = None
        if not moving and (self._background is None or not arms):
            self._background = small.copy()
        self._last_arms = tuple(arms)
        for seat in arms:
            if not self._actors or self._actors[-1] != seat:
                self._actors.append(seat)
        self._follow_hands({s: hands[s] for s in arms if s in hands}, t)
        self._add_ms("gate_ms", started)
        self._stats = _bump(self._stats, frames=1)
        if moving or arms:
            self._still_since = None
            self._unsettled(t)
            self._pile_watch(image, small, moving_mask, arm_mask, t, geo)
            self._phase = "arm" if arms else "moving"
            return None
        if self._still_since is None:
            self._still_since = t
        for z in self._piles:
            self._pile_quiet[z] = None
        if self._state is not None and not self._differs(small, self._reference, geo):
            self._readings.clear()
            self._reference = small.copy()
            if self._reread_step(image, geo, t):
                self._state = self._table(t)
            return self._emit(t)
        self._rereadings.clear()  # the table changed: re-readings of the one before are void
        self._phase = "settling"
        if t - self._still_since < self.settle_s - 1e-9:
            return None
        if self._readings and t - self._readings[-1][0] < self.confirm_s - 1e-9:
            return None
        self._readings.append((t, self._read(image, geo, None)))
        combined = self._combined([r for _, r in self._readings])
        if combined is None:
            return None
        self._readings.clear()
        view = self._view
        last = self._last_view
        self._changed = None
        if last is not None and last.shape == view.shape:
            blur = (3, 3)
            self._changed = self._diff(cv2.GaussianBlur(view, blur, 0), cv2.GaussianBlur(last, blur, 0),
                                       self.foreground_threshold)
        self._remember(combined, t, None)
        self._changed = None
        self._last_view = view
        self._reference = small.copy()
        for z in self._piles:
            self._pile_ref[z] = self._crop_small(small, z, geo)
        self._state = self._table(t)
        return self._emit(t, fresh=True)

    # ------------------------------------------------------------------ emitting
    def _emit(self, t: float, fresh: bool = False) -> TableState:
        assert self._state is not None
        history: dict[str, tuple[str, ...]] = {}
        if fresh:
            for z in self._piles:
                names = list(self._history.get(z, []))
                top = self._state.zone(z).up
                if top and (not names or names[-1] != top[0].name):
                    names.append(top[0].name)
                if names:
                    history[z] = tuple(names)
        state = TableState(self._state.zones, float(t), tuple(self._actors), history, frozenset(self._reached))
        self._actors = []
        self._reached = set()
        if fresh:
            self._history = {}
        self._phase = "settled"
        self._stats = _bump(self._stats, states=1)
        return state

    def _table(self, t: float) -> TableState:
        by_zone: dict[str, list[TableCard]] = {}
        for c in self._cards:
            if c.zone is not None:
                by_zone.setdefault(c.zone, []).append(c)
        zones: dict[str, ZoneState] = {}
        for z, cards in by_zone.items():
            if z == "stock":
                zones[z] = ZoneState((), 1)
                continue
            up = [c for c in cards if c.face_up]
            if z in STACK_ZONES:
                if up:
                    top = max(up, key=lambda c: (c.since, c.confidence))
                    zones[z] = ZoneState((SeenCard(top.probs),), 0)
                else:
                    zones[z] = ZoneState((), 1)
                continue
            zones[z] = ZoneState(tuple(SeenCard(c.probs) for c in sorted(up, key=lambda c: c.centre_mm)),
                                 sum(1 for c in cards if not c.face_up))
        return TableState({z: s for z, s in zones.items() if not s.empty}, t)

    def _pile_top(self, zone: str) -> str | None:
        up = [c for c in self._cards if c.zone == zone and c.face_up]
        if not up:
            return None
        return max(up, key=lambda c: (c.since, c.confidence)).name

    # ------------------------------------------------------------------ the gate
    def _geometry(self, cal: Calibration, shape: tuple[int, ...]) -> _Geometry:
        key = cal.frame_to_table.tobytes() + bytes(str(shape[:2]), "ascii")
        if self._geo is not None and self._geo.key == key:
            return self._geo
        h, w = shape[:2]
        centre = np.array([[cal.area_mm[0] / 2, cal.area_mm[1] / 2], [cal.area_mm[0] / 2 + 10, cal.area_mm[1] / 2]])
        q = np.column_stack([centre, np.ones(2)]) @ cal.table_to_frame.T
        q = q[:, :2] / q[:, 2:]
        frame_px_per_mm = float(np.linalg.norm(q[1] - q[0])) / 10.0
        step = max(1, int(frame_px_per_mm / (1.5 * self.gate_px_per_mm)))
        shrink = 1.0 / step
        scale = np.diag([shrink, shrink, 1.0])
        scale[0, 2] = scale[1, 2] = 0.5 * shrink - 0.5
        small_hom = view_homography(cal, self.gate_px_per_mm, self.margin_mm) @ np.linalg.inv(scale)
        small_size = view_size(cal, self.gate_px_per_mm, self.margin_mm)
        sw, sh = w // step, h // step
        valid = cv2.warpPerspective(np.full((sh, sw), 255, np.uint8), small_hom, small_size, flags=cv2.INTER_NEAREST)
        valid = valid > 0
        edge = valid & ~cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=2).astype(bool)
        u = (np.arange(small_size[0]) + 0.5) / self.gate_px_per_mm - self.margin_mm
        v = (np.arange(small_size[1]) + 0.5) / self.gate_px_per_mm - self.margin_mm
        aw, ah = cal.area_mm
        dx = np.maximum(-u, u - aw)[None, :]
        dy = np.maximum(-v, v - ah)[:, None]
        beyond = np.maximum(dx, dy)
        band = valid & ((beyond > self.border_mm) | edge)
        outside = valid & (beyond > 0)
        geo = _Geometry(key, step, small_hom, small_size,
                        view_homography(cal, self.px_per_mm, self.margin_mm), view_size(cal, self.px_per_mm, self.margin_mm),
                        band, outside, valid, int(np.count_nonzero(valid)), np.array(cal.table_to_frame))
        for z in self._piles:
            xs = [p[0] for p in self.layout.zone(z).polygon_mm]
            ys = [p[1] for p in self.layout.zone(z).polygon_mm]
            geo.pile_rects[z] = (min(xs), min(ys), max(xs), max(ys))
        old, self._geo = self._geo, geo
        if old is not None:
            self._regeometry(old, geo, cal)
        return geo

    def _regeometry(self, old: _Geometry, new: _Geometry, cal: Calibration) -> None:
        """A new calibration: the gate images show the same table points as before, so they are
        kept (what only the new view sees is filled in from the next frame); a shift of a gate
        pixel or more, or a changed view size, has the table read again."""
        corners = np.array([[0.0, 0.0], [cal.area_mm[0], 0.0], [cal.area_mm[0], cal.area_mm[1]], [0.0, cal.area_mm[1]]])
        px = np.column_stack([corners, np.ones(4)]) @ old.table_to_frame.T
        mm = np.column_stack([px[:, :2] / px[:, 2:], np.ones(4)]) @ cal.frame_to_table.T
        shift = float(np.max(np.linalg.norm(mm[:, :2] / mm[:, 2:] - corners, axis=1)))
        self._readings.clear()
        self._rereadings.clear()
        if old.small_size != new.small_size:
            self._prev = self._background = self._reference = None
            self._pile_ref.clear()
            return
        self._fill = new.valid & ~old.valid
        if shift >= 1.0 / self.gate_px_per_mm:
            self._reference = None
            self._pile_ref.clear()

    def _small(self, image: np.ndarray, geo: _Geometry) -> np.ndarray:
        src = image
        if geo.step > 1:
            h, w = image.shape[:2]
            k = geo.step
            src = cv2.resize(image[: h - h % k, : w - w % k], (w // k, h // k), interpolation=cv2.INTER_AREA)
        out = cv2.warpPerspective(src, geo.small_hom, geo.small_size, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT)
        return cv2.GaussianBlur(out, (5, 5), 0)

    @staticmethod
    def _diff(a: np.ndarray, b: np.ndarray, threshold: float) -> np.ndarray:
        d = cv2.absdiff(a, b)
        if d.ndim == 3:
            c0, c1, c2 = cv2.split(d)
            d = cv2.max(cv2.max(c0, c1), c2)
        mask = (d > threshold).astype(np.uint8)
        return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))

    def _mm2(self, pixels: int) -> float:
        """Table area (mm²) of ``pixels`` gate-view pixels."""
        return pixels / (self.gate_px_per_mm ** 2)

    def _moving(self, small: np.ndarray) -> np.ndarray:
        prev, self._prev = self._prev, small
        if prev is None:
            return np.ones(small.shape[:2], np.uint8)
        return self._diff(small, prev, self.motion_threshold)

    def _arms(self, small: np.ndarray, moving: np.ndarray, geo: _Geometry,
              ) -> tuple[list[int], np.ndarray | None, int, dict[int, Point]]:
        """(seats of arms in order of size, the arms' mask, foreground pixels, each seat's hand:
        the mean of its largest arm's pixels farthest (top 5 %) from where it crosses the edge, mm)."""
        if self._background is None:
            fg = moving
        else:
            fg = self._diff(small, self._background, self.foreground_threshold) | moving
        fg_area = int(np.count_nonzero(fg))
        if not fg_area:
            return [], None, 0, {}
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        min_px = self.arm_min_mm2 * self.gate_px_per_mm ** 2
        touching = np.unique(labels[geo.band & (labels > 0)])
        found: list[tuple[int, int, int, Point]] = []
        mask = np.zeros(fg.shape, bool)
        ppm, m = self.gate_px_per_mm, self.margin_mm
        for k in touching:
            if stats[k, cv2.CC_STAT_AREA] < min_px:
                continue
            comp = labels == k
            where = self._seat_of(comp & geo.outside)
            if where is None:
                continue
            seat, (cx, cy) = where
            mask |= comp
            ys, xs = np.nonzero(comp)
            px, py = (xs + 0.5) / ppm - m, (ys + 0.5) / ppm - m
            dist = np.hypot(px - cx, py - cy)
            far = dist >= np.percentile(dist, 95)
            found.append((int(stats[k, cv2.CC_STAT_AREA]), int(k), seat, (float(px[far].mean()), float(py[far].mean()))))
        seats: list[int] = []
        hands: dict[int, Point] = {}
        for _, _, seat, hand in sorted(found, reverse=True):
            if seat not in seats:
                seats.append(seat)
                hands[seat] = hand
        return seats, (mask if found else None), fg_area, hands

    def _follow_hands(self, hands: dict[int, Point], t: float) -> None:
        """Note the zone of each hand that moves slower than ``hand_still_mm_s`` (it stops to take
        or lay a card) in ``TableState.reached``."""
        for seat, (x, y) in hands.items():
            prev = self._hands.get(seat)
            if prev is not None and t > prev[1]:
                (px, py), pt = prev
                if math.hypot(x - px, y - py) / (t - pt) < self.hand_still_mm_s:
                    zone = self.layout.zone_of((x, y))
                    if zone is not None:
                        self._reached.add(zone)
        self._hands = {seat: (hand, t) for seat, hand in hands.items()}

    def _seat_of(self, crossing: np.ndarray) -> tuple[int, Point] | None:
        """The seat of an arm whose pixels outside the play area are ``crossing`` (module
        docstring), and their mean (mm)."""
        ys, xs = np.nonzero(crossing)
        if not len(xs):
            return None
        x = float(np.mean(xs) + 0.5) / self.gate_px_per_mm - self.margin_mm
        y = float(np.mean(ys) + 0.5) / self.gate_px_per_mm - self.margin_mm
        aw, ah = self.layout.area_mm
        beyond = {"left": -x, "right": x - aw, "top": -y, "bottom": y - ah}
        edge = max(beyond, key=lambda e: beyond[e])
        seats = [s for s in self.layout.seats if s.edge == edge] or list(self.layout.seats)
        return min(seats, key=lambda s: math.hypot(s.edge_mm[0] - x, s.edge_mm[1] - y)).seat, (x, y)

    def _relit(self, small: np.ndarray) -> None:
        self._background = small.copy()
        self._reference = None
        for z in self._piles:
            self._pile_ref.pop(z, None)

    def _differs(self, small: np.ndarray, ref: np.ndarray | None, geo: _Geometry) -> bool:
        if ref is None:
            return True
        mask = self._diff(small, ref, self.foreground_threshold)
        return self._mm2(int(np.count_nonzero(mask))) >= self.change_min_mm2

    def _unsettled(self, t: float) -> None:
        """Motion or an arm: readings and re-readings under way are dropped (a re-read asked for
        stays asked); a lone reading leaves its pile tops."""
        self._rereadings.clear()
        if len(self._readings) == 1:
            cards = self._readings[0][1]
            for z in self._piles:
                tops = [c for c in cards if c.face_up and c.zone == z]
                if tops:
                    top = max(tops, key=lambda c: max(c.probs.values(), default=0.0))
                    self._note_top(z, max(top.probs, key=top.probs.get))
        self._readings.clear()

    def _note_top(self, zone: str, name: str | None) -> None:
        if name is None:
            return
        seen = self._history.setdefault(zone, [])
        if not seen or seen[-1] != name:
            seen.append(name)

    # ------------------------------------------------------------------ piles while arms move
    def _crop_small(self, small: np.ndarray, zone: str, geo: _Geometry) -> np.ndarray:
        x0, y0, x1, y1 = self._rect_px(geo.pile_rects[zone], self.gate_px_per_mm, small.shape, 0.0)
        return small[y0:y1, x0:x1].copy()

    def _rect_px(self, rect: tuple[float, float, float, float], ppm: float, shape: tuple[int, ...],
                 grow_mm: float) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = rect
        m = self.margin_mm
        h, w = shape[:2]
        return (max(0, int((x0 - grow_mm + m) * ppm)), max(0, int((y0 - grow_mm + m) * ppm)),
                min(w, int(math.ceil((x1 + grow_mm + m) * ppm))), min(h, int(math.ceil((y1 + grow_mm + m) * ppm))))

    def _pile_watch(self, image: np.ndarray, small: np.ndarray, moving: np.ndarray, arm_mask: np.ndarray | None,
                    t: float, geo: _Geometry) -> None:
        for z in self._piles:
            x0, y0, x1, y1 = self._rect_px(geo.pile_rects[z], self.gate_px_per_mm, small.shape, 0.0)
            gx0, gy0, gx1, gy1 = self._rect_px(geo.pile_rects[z], self.gate_px_per_mm, small.shape, self.border_mm)
            busy = bool(moving[y0:y1, x0:x1].any()) or (arm_mask is not None and bool(arm_mask[gy0:gy1, gx0:gx1].any()))
            if busy:
                self._pile_quiet[z] = None
                self._pile_touched[z] = True
                continue
            if self._pile_quiet[z] is None:
                self._pile_quiet[z] = t
            if t - self._pile_quiet[z] < self.pile_still_s - 1e-9:  # type: ignore[operator]
                continue
            crop = small[y0:y1, x0:x1]
            ref = self._pile_ref.get(z)
            # a card laid on one of its colour and rank does not change the gate view (a card is about
            # 16 × 22 px there): a pile a hand was over is read once it is still, changed or not
            if ref is not None and ref.shape == crop.shape and not self._differs(crop, ref, geo) \
                    and not self._pile_touched[z]:
                continue
            self._pile_touched[z] = False
            self._pile_ref[z] = crop.copy()
            self._remember(self._read(image, geo, z), t, z)
            self._stats = _bump(self._stats, pile_readings=1)
            self._note_top(z, self._pile_top(z))

    # ------------------------------------------------------------------ reading
    def _read(self, image: np.ndarray, geo: _Geometry, zone: str | None) -> list[_Reading]:
        """Recognise the recognition view (or, for ``zone``, a crop around it); cards in table mm."""
        started = time.perf_counter()
        ppm = self.px_per_mm
        vw, vh = geo.view_size
        if zone is None:
            x0 = y0 = 0
            view = cv2.warpPerspective(image, geo.view_hom, geo.view_size, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT)
            cards = list(self.recogniser.recognise(view))
            self._view = view
        else:
            pad = 0.5 * max(CARD_MM[self.layout.deck])
            x0, y0, x1, y1 = self._rect_px(geo.pile_rects[zone], ppm, (vh, vw), pad)
            shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
            view = cv2.warpPerspective(image, shift @ geo.view_hom, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT)
            cards = self._recognise_crop(view, ppm, geo)
        out = self._in_table(cards, (x0 + 0.5, y0 + 0.5), ppm, (-self.margin_mm, -self.margin_mm), zone)
        self._add_ms("recognise_ms", started)
        if zone is None:
            self._stats = _bump(self._stats, readings=1)
        return out

    def _recognise_crop(self, crop: np.ndarray, ppm: float, geo: _Geometry, careful: bool = False) -> list[CardLike]:
        """Recognise ``crop`` (``ppm`` px per table mm), the detector's input size (when the
        recogniser has one) scaled so that cards keep the size they have in its input for the whole
        recognition view; the size is put back afterwards. ``careful`` (a re-read): with the
        recogniser's ``recognise_carefully`` where it has one (playing cards' corner indices read at
        the crop's own resolution)."""
        read = getattr(self.recogniser, "recognise_carefully", None) if careful else None
        with self._detector_size(max(crop.shape[:2]) * self.px_per_mm / (ppm * max(geo.view_size))):
            return list(read(crop) if read is not None else self.recogniser.recognise(crop))

    @contextmanager
    def _detector_size(self, factor: float) -> Iterator[None]:
        """The recogniser's ``detector.size`` times ``factor`` (a multiple of 32, at least 64) for the
        duration; nothing when the recogniser has no such detector."""
        detector = getattr(self.recogniser, "detector", None)
        old = getattr(detector, "size", None)
        if not isinstance(old, int):
            yield
            return
        detector.size = max(64, int(round(old * factor / 32)) * 32)  # type: ignore[union-attr]
        try:
            yield
        finally:
            detector.size = old  # type: ignore[union-attr]

    def _in_table(self, cards: Sequence[CardLike], offset_px: Point, ppm: float, origin_mm: Point,
                  zone: str | None) -> list[_Reading]:
        """Recognised cards of an image whose pixel (u, v) shows table point ((u + offset) / ppm +
        origin) mm, in table mm: cards in no zone (or, for ``zone``, in another) left out, one outline
        per card (:meth:`_one_outline_per_card`)."""
        out = []
        for c in cards:
            poly = (np.asarray(c.polygon, np.float64).reshape(-1, 2) + offset_px) / ppm + origin_mm
            centre = poly.mean(axis=0)
            where = self.layout.zone_of((float(centre[0]), float(centre[1])))
            if where is None or (zone is not None and where != zone):
                continue
            out.append(_Reading(dict(seen_card(c)), bool(c.face_up), centre, _convex(poly), where))
        return self._one_outline_per_card(out)

    # ------------------------------------------------------------------ re-reads
    def _reread_crop(self, zone: str, geo: _Geometry) -> tuple[tuple[float, float, float, float], float]:
        """(rectangle (x0, y0, x1, y1) mm, px per mm) of ``zone``'s re-read: its bounding rectangle
        grown by half a card's length, within the recognition view's table; the most frame pixels
        per mm the camera gives at its corners and centre, at least ``px_per_mm``, at most what keeps
        its longest side within ``reread_max_px``."""
        known = geo.reread_crops.get(zone)
        if known is not None:
            return known
        poly = self.layout.zone(zone).polygon_mm
        pad = 0.5 * max(CARD_MM[self.layout.deck])
        m = self.margin_mm
        w_mm, h_mm = (n / self.px_per_mm - m for n in geo.view_size)
        x0 = max(-m, min(p[0] for p in poly) - pad)
        y0 = max(-m, min(p[1] for p in poly) - pad)
        x1 = min(w_mm, max(p[0] for p in poly) + pad)
        y1 = min(h_mm, max(p[1] for p in poly) + pad)
        camera = frame_px_per_mm(geo.table_to_frame, ((x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2)))
        ppm = max(self.px_per_mm, min(camera, self.reread_max_px / max(x1 - x0, y1 - y0)))
        geo.reread_crops[zone] = ((x0, y0, x1, y1), ppm)
        return geo.reread_crops[zone]

    def _read_full(self, image: np.ndarray, geo: _Geometry, zone: str) -> list[_Reading]:
        """Re-read ``zone``: its re-read rectangle warped from the full frame at the re-read's px per
        mm (:meth:`_reread_crop`) and recognised; its cards in table mm."""
        (x0, y0, x1, y1), ppm = self._reread_crop(zone, geo)
        size = (max(1, math.ceil((x1 - x0) * ppm)), max(1, math.ceil((y1 - y0) * ppm)))
        to_crop = np.array([[ppm, 0.0, -x0 * ppm - 0.5], [0.0, ppm, -y0 * ppm - 0.5], [0.0, 0.0, 1.0]])
        crop = cv2.warpPerspective(image, to_crop @ np.linalg.inv(geo.table_to_frame), size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT)
        return self._in_table(self._recognise_crop(crop, ppm, geo, careful=True), (0.5, 0.5), ppm, (x0, y0), zone)

    def _zone_key(self, zone: str) -> tuple:
        """What a re-read of ``zone`` would read again: its held cards (uid, face, covered, probabilities)."""
        return tuple(sorted((c.uid, c.face_up, c.covered, c.probs) for c in self._cards if c.zone == zone))

    def _reread_settled(self, zone: str) -> bool:
        """Whether ``zone`` was re-read and its cards have not changed since."""
        return zone in self._reread_done and self._reread_done[zone] == self._zone_key(zone)

    def _reread_step(self, image: np.ndarray, geo: _Geometry, t: float) -> bool:
        """On a still, unchanged table: take the next re-reading of the zones asked for when one is
        due; whether a re-read was completed and its zones' cards replaced (module docstring, "Re-reads")."""
        if not self._rereadings:
            self._reread_asked = {z for z in self._reread_asked if not self._reread_settled(z)}
            if not self._reread_asked or self._still_since is None or t - self._still_since < self.settle_s - 1e-9:
                return False
            self._reread_zones = frozenset(self._reread_asked)
        elif t - self._rereadings[-1][0] < self.confirm_s - 1e-9:
            return False
        started = time.perf_counter()
        zones = sorted(self._reread_zones)
        reading = [c for z in zones for c in self._read_full(image, geo, z)]
        self._add_ms("reread_ms", started)
        self._stats = _bump(self._stats, rereads=len(zones))
        self._rereadings.append((t, reading))
        combined = self._combined([r for _, r in self._rereadings])
        if combined is None:
            return False
        self._rereadings.clear()
        for z in zones:
            self._remember([c for c in combined if c.zone == z], t, z, reread=True)
            self._reread_done[z] = self._zone_key(z)
        self._reread_asked -= self._reread_zones
        self._reread_zones = frozenset()
        return True

    def _one_outline_per_card(self, cards: list[_Reading]) -> list[_Reading]:
        """The cards of one reading, a second outline of a card left out: of two outlines of the same
        face whose centres lie within ``match_mm``, turned :data:`SECOND_OUTLINE_TURN_DEG` or more from
        each other and sharing at least half of the smaller one, the less confident (module
        docstring, "Cards in table millimetres")."""
        ranked = sorted(cards, key=lambda c: -max(c.probs.values(), default=1.0))
        kept: list[_Reading] = []
        for c in ranked:
            area = _area(c.polygon)
            if not any(k.face_up == c.face_up and float(np.hypot(*(k.centre - c.centre))) <= self.match_mm
                       and _turn(k.polygon, c.polygon) >= SECOND_OUTLINE_TURN_DEG
                       and _overlap(k.polygon, c.polygon) >= 0.5 * min(area, _area(k.polygon)) for k in kept):
                kept.append(c)
        keep = {id(k) for k in kept}
        return [c for c in cards if id(c) in keep]

    def _pairs(self, a: Sequence[_Reading | TableCard], b: Sequence[_Reading],
               parts: set[tuple[int, int]] | None = None, by_place: bool = False) -> list[tuple[int, int]]:
        """Pairs (index in a, index in b) of the same card, nearest first, in four passes:
        centres within ``match_mm``, same face and, in the pile zones (where cards lie on the same
        spot), names sharing at least ``same_card_p`` with the held card's or with its readings
        before a re-read (:meth:`_read_as`) (``by_place``, a re-read of a still table: any names,
        and then any face); then, in one zone, the same most likely
        name within 2.5 × ``match_mm`` (an outline of a partly hidden card moves between
        readings); then a held card and an outline of a part of it or of it merged with a card
        over it (:data:`PART_OUTLINE`; those pairs go into ``parts``); then an inferred card (module docstring, "Memory") and an outline in its zone
        within half a card's length, less than half of which changed since the last reading (a
        card laid now is no hidden one)."""
        used_a: set[int] = set()
        used_b: set[int] = set()
        pairs: list[tuple[int, int]] = []
        centres = [np.asarray(x.centre_mm if isinstance(x, TableCard) else x.centre) for x in a]
        inferred = [isinstance(x, TableCard) and x.inferred for x in a]

        def take(cand: list[tuple[float, int, int]]) -> None:
            for _, i, j in sorted(cand):
                if i not in used_a and j not in used_b:
                    used_a.add(i)
                    used_b.add(j)
                    pairs.append((i, j))

        cand = []
        for i, x in enumerate(a):
            if inferred[i]:
                continue
            xp = dict(x.probs)
            for j, y in enumerate(b):
                d = float(np.hypot(*(centres[i] - y.centre)))
                if d > self.match_mm or x.face_up != y.face_up:
                    continue
                if x.face_up and x.zone in STACK_ZONES and not by_place and _shared(xp, y.probs) < self.same_card_p \
                        and not self._read_as(x, y.probs):
                    continue
                cand.append((d, i, j))
        take(cand)
        if by_place:
            take([(d, i, j) for i, x in enumerate(a) if not inferred[i] for j, y in enumerate(b)
                  if (d := float(np.hypot(*(centres[i] - y.centre)))) <= self.match_mm])
        cand = []
        for i, x in enumerate(a):
            if i in used_a or inferred[i] or not x.face_up:
                continue
            for j, y in enumerate(b):
                d = float(np.hypot(*(centres[i] - y.centre)))
                if j not in used_b and y.face_up and y.zone == x.zone and d <= 2.5 * self.match_mm \
                        and _top(dict(x.probs)) == _top(y.probs):
                    cand.append((d, i, j))
        take(cand)
        # a held card seen only as part of an outline: shrunk to the part that later or nearby
        # cards leave visible, or merged with the outline of a card that now overlaps it
        cand = []
        for i, x in enumerate(a):
            if i in used_a or inferred[i] or not x.face_up or not isinstance(x, TableCard) or x.zone in STACK_ZONES:
                continue
            held = np.asarray(x.polygon_mm)
            held_area = _area(held)
            for j, y in enumerate(b):
                if j in used_b or not y.face_up or y.zone != x.zone:
                    continue
                area, inside = _area(y.polygon), _overlap(y.polygon, held)
                others = [_overlap(o.polygon, held) for k, o in enumerate(b) if k != j]
                part = 0 < area <= PART_OUTLINE * held_area and inside >= PART_INSIDE * area \
                    and any(v >= self.cover_fraction * held_area for v in others)
                merged = area > held_area and inside >= PART_INSIDE * held_area and any(
                    k != j and _overlap(o.polygon, y.polygon) >= 0.5 * _area(o.polygon) for k, o in enumerate(b))
                if part or merged:
                    cand.append((float(np.hypot(*(centres[i] - y.centre))), i, j))
        before = len(pairs)
        take(cand)
        if parts is not None:
            parts.update(pairs[before:])
        reach = 0.5 * max(CARD_MM[self.layout.deck])
        cand = []
        for i, x in enumerate(a):
            if not inferred[i]:
                continue
            for j, y in enumerate(b):
                d = float(np.hypot(*(centres[i] - y.centre)))
                if j not in used_b and y.face_up and y.zone == x.zone and d <= reach and self._changed_part(y.polygon) < 0.5:
                    cand.append((d, i, j))
        take(cand)
        return pairs

    def _read_as(self, x: _Reading | TableCard, probs: dict[str, float]) -> bool:
        """Whether ``x`` is a held card with a pinned name whose readings before it (what the
        recognition view calls it: a re-read card) share at least ``same_card_p`` with ``probs``."""
        if not isinstance(x, TableCard):
            return False
        sums, weight, pinned, _ = self._evidence.get(x.uid, ({}, 0.0, None, False))
        return pinned is not None and weight > 0 and _shared({n: p / weight for n, p in sums.items()}, probs) >= self.same_card_p

    def _changed_part(self, polygon_mm: np.ndarray) -> float:
        """The part of an outline (mm) where the recognition view changed since the last reading
        (0 when unknown)."""
        if self._changed is None:
            return 0.0
        mask = np.zeros(self._changed.shape, np.uint8)
        cv2.fillPoly(mask, [self._view_px(polygon_mm)], 1)
        n = int(np.count_nonzero(mask))
        return int(np.count_nonzero(mask & self._changed)) / n if n else 0.0

    def _view_px(self, polygon_mm: np.ndarray) -> np.ndarray:
        """An outline (mm) in recognition-view pixels, for ``cv2.fillPoly``."""
        return np.round((np.asarray(polygon_mm) + self.margin_mm) * self.px_per_mm - 0.5).astype(np.int32)

    def _summary(self, cards: Sequence[_Reading]) -> tuple:
        """What a reading says of the table: per zone, the stock's presence, a pile's most confident
        face-up name (or a face-down stack), or the sorted names and face-down count."""
        by_zone: dict[str, list[_Reading]] = {}
        for c in cards:
            if c.zone is not None:
                by_zone.setdefault(c.zone, []).append(c)
        out = []
        for z, cs in sorted(by_zone.items()):
            up = [c for c in cs if c.face_up]
            if z == "stock":
                out.append((z, "stack"))
            elif z in STACK_ZONES:
                out.append((z, _top(max(up, key=lambda c: max(c.probs.values(), default=0.0)).probs) if up else "stack"))
            else:
                out.append((z, tuple(sorted(str(_top(c.probs)) for c in up)), len(cs) - len(up)))
        return tuple(out)

    def _combined(self, readings: list[list[_Reading]]) -> list[_Reading] | None:
        """The readings taken so far combined (module docstring), or None when another is needed."""
        last = self._summary(readings[-1])
        agree = any(self._summary(r) == last for r in readings[:-1])
        if not agree and len(readings) < 3:
            return None
        base = [_Reading(dict(c.probs), c.face_up, c.centre, c.polygon, c.zone, 1) for c in readings[0]]
        sums = [dict(c.probs) for c in base]
        for other in readings[1:]:
            pairs = self._pairs(base, other)
            matched = {j for _, j in pairs}
            for i, j in pairs:
                base[i].seen += 1
                for n, p in other[j].probs.items():
                    sums[i][n] = sums[i].get(n, 0.0) + p
            for j, o in enumerate(other):
                if j not in matched:
                    base.append(_Reading(dict(o.probs), o.face_up, o.centre, o.polygon, o.zone, 1))
                    sums.append(dict(o.probs))
        out = []
        for c, s in zip(base, sums, strict=True):
            if 2 * c.seen <= len(readings):
                continue
            c.probs = {n: p / c.seen for n, p in s.items()}
            out.append(c)
        return out

    def _remember(self, cards: list[_Reading], t: float, zone: str | None, reread: bool = False) -> None:
        """Update the held cards with a reading (all zones, or only ``zone``) taken at ``t``;
        ``reread``: a re-read of ``zone`` (module docstring, "Re-reads")."""
        frozen = self._unchanged_seat_zones() if zone is None else set()
        cards = [c for c in cards if c.zone not in frozen]
        keep = [c for c in self._cards if (zone is not None and c.zone != zone) or c.zone in frozen]
        old = [c for c in self._cards if (zone is None or c.zone == zone) and c.zone not in frozen]
        # a re-read sees what the last reading saw: a pile's covered cards are not among them
        seen_before = [c for c in old if not (reread and c.covered and c.zone in STACK_ZONES)]
        parts: set[tuple[int, int]] = set()
        pairs = {j: i for i, j in self._pairs(seen_before, cards, parts, by_place=reread)}
        result: list[TableCard] = []
        as_held: set[int] = set()
        for j, r in enumerate(cards):
            centre = (float(r.centre[0]), float(r.centre[1]))
            probs = tuple(sorted(r.probs.items(), key=lambda kv: (-kv[1], kv[0])))[:4]
            if j in pairs:
                held = seen_before[pairs[j]]
                since, uid = held.since, held.uid
                self._evidence.setdefault(uid, ({}, 0.0, None, False))
                if (pairs[j], j) in parts or (held.face_up and r.face_up and _part_outline(held, r)):
                    # an outline of a part of the card, or of it and a card over it: the card as held
                    result.append(replace(held, covered=False))
                    as_held.add(uid)
                    continue
            else:
                if r.zone is not None and r.zone.startswith("seat:") and self._changed is not None \
                        and self._changed_part(r.polygon) < ARRIVAL_CHANGED:
                    continue  # an outline where nothing changed: a new sliver of cards held, no card come
                since, uid = t, self._new_uid()
            result.append(TableCard(probs, r.face_up, centre, tuple((float(x), float(y)) for x, y in r.polygon),
                                    self.layout.zone_of(centre), since, False, uid))
        matched = {seen_before[i].uid for i in pairs.values()}
        left = [c for c in old if c.uid not in matched]
        # Newest first: a card is kept under a later card that is itself present or kept.
        for c in sorted(left, key=lambda c: -c.since):
            if c.zone is not None and c.zone not in SHARED_ZONES and self._trusted(c) and self._covered(c, result):
                result.append(replace(c, covered=True))
        if zone is None:
            result = self._transfer(result, left, t)
        final = []
        for c in result:
            if c.face_up and not c.covered and c.zone not in SHARED_ZONES:
                c = replace(c, probs=self._named(c, result, fresh=reread and c.uid not in as_held))
            elif not c.face_up and not c.covered:
                self._evidence.setdefault(c.uid, ({}, 0.0, None, True))
            final.append(c)
        self._cards = keep + final
        live = {c.uid for c in self._cards}
        self._evidence = {k: v for k, v in self._evidence.items() if k in live}

    def _named(self, c: TableCard, cards: Sequence[TableCard], fresh: bool = False) -> tuple[tuple[str, float], ...]:
        """A seen card's probabilities: the mean of its readings while it lay clear, or of those while
        it may have been partly hidden when it was never read lying clear (module docstring, "Memory");
        ``fresh`` (a re-read's ``c.probs``): lying clear, its name from now on (pinned) until the next
        re-read; partly hidden, it replaces the readings that would count, unless the card has a
        clear or pinned name (module docstring, "Re-reads")."""
        sums, weight, pinned, clear = self._evidence.get(c.uid, ({}, 0.0, None, False))
        hidden = self._covered(c, cards)
        if fresh and not hidden:
            # the readings kept say what the recognition view calls it (:meth:`_read_as`)
            self._evidence[c.uid] = (sums, weight, c.probs, True)
            return c.probs
        if fresh and not clear and pinned is None:
            self._evidence[c.uid] = (dict(c.probs), 1.0, None, False)
            return c.probs
        if pinned is not None:
            return pinned
        if not (hidden and clear and weight > 0):
            if not hidden and not clear:
                sums, weight = {}, 0.0  # the first clear reading replaces the hidden ones
            sums = dict(sums)
            for n, p in c.probs:
                sums[n] = sums.get(n, 0.0) + p
            weight += 1.0
            self._evidence[c.uid] = (sums, weight, None, clear or not hidden)
        return tuple(sorted(((n, p / weight) for n, p in sums.items()), key=lambda kv: (-kv[1], kv[0])))[:4]

    def _trusted(self, c: TableCard) -> bool:
        """Whether a card no reading sees may be kept under later cards: it was once read lying
        clear, or it was put there by a capture transfer."""
        ev = self._evidence.get(c.uid)
        return c.inferred or (ev is not None and (ev[2] is not None or ev[3]))

    def _hidden_arrival(self, zone: str, hosts: Sequence[TableCard]) -> bool:
        """Whether the recognition view changed since the last reading in ``zone`` outside the new
        cards' outlines (grown by 3 mm) on at least ``hidden_min_mm2``: something arrived there unseen."""
        if self._changed is None:
            return False
        shape = self._changed.shape
        inside = np.zeros(shape, np.uint8)
        cv2.fillPoly(inside, [self._view_px(self.layout.zone(zone).polygon_mm)], 1)
        seen = np.zeros(shape, np.uint8)
        for c in hosts:
            cv2.fillPoly(seen, [self._view_px(c.polygon_mm)], 1)
        grow = 2 * round(3.0 * self.px_per_mm) + 1
        seen = cv2.dilate(seen, np.ones((grow, grow), np.uint8))
        extra = int(np.count_nonzero(self._changed & inside & (1 - seen)))
        return extra / self.px_per_mm ** 2 >= self.hidden_min_mm2

    def _unchanged_seat_zones(self) -> set[str]:
        """Seat zones where the recognition view changed on less than ``hidden_min_mm2`` since the
        last reading (lines of change 2 mm thin or less left out): their cards are held as they were (a new reading of an overlapping row only
        names its slivers differently)."""
        if self._changed is None:
            return set()
        # thin lines of change along card edges are the camera shifting by a pixel, not a card
        solid = cv2.morphologyEx(self._changed, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        out = set()
        for z in self.layout.zones:
            if not z.name.startswith("seat:"):
                continue
            inside = np.zeros(solid.shape, np.uint8)
            cv2.fillPoly(inside, [self._view_px(z.polygon_mm)], 1)
            if np.count_nonzero(solid & inside) / self.px_per_mm ** 2 < self.hidden_min_mm2:
                out.add(z.name)
        return out

    def _new_uid(self) -> int:
        self._next_uid += 1
        return self._next_uid

    def _transfer(self, result: list[TableCard], left: list[TableCard], t: float) -> list[TableCard]:
        """Field cards that vanished while new cards appeared in seat zones went under them
        (module docstring, "Memory")."""
        new = [c for c in result if c.since == t and c.face_up and not c.covered]
        gone = [c for c in left if c.face_up and c.zone in SHARED_ZONES]
        # a card seen again where one of its name left the same zone is no arrival
        lost = Counter((c.zone, c.name) for c in left)
        arrivals = []
        for c in new:
            if lost[(c.zone, c.name)]:
                lost[(c.zone, c.name)] -= 1
            else:
                arrivals.append(c)
        dest = {c.zone for c in arrivals if c.zone is not None and c.zone.startswith("seat:")}
        if not gone or not dest:
            return result
        by_zone: dict[str, list[TableCard]] = {}
        for v in gone:
            to = sorted(dest) if len(dest) == 1 else sorted(
                z for z in dest if any(_month(c.name) == _month(v.name) is not None for c in arrivals if c.zone == z))
            if len(to) == 1:
                by_zone.setdefault(to[0], []).append(v)
        result = list(result)
        for z, lost_here in sorted(by_zone.items()):
            self._carry_under(result, z, lost_here, [c for c in arrivals if c.zone == z], t)
        return result

    def _carry_under(self, result: list[TableCard], z: str, gone: list[TableCard], hosts: list[TableCard],
                     t: float) -> None:
        """Put the lost field cards ``gone`` under the cards that arrived in seat zone ``z`` (in place)."""
        names = Counter(c.name for c in hosts)
        unseen = []
        for v in gone:  # a lost card whose name arrived is that card, seen, unless more arrived than shows
            if names[v.name]:
                names[v.name] -= 1
            else:
                unseen.append(v)
        if not unseen and self._hidden_arrival(z, hosts):
            unseen = gone[:1]
        hosts = list(hosts)
        for v in unseen:
            # two new outlines with one name: one of them is the hidden card (an older card's
            # reading says nothing here: its name is its memory's, not this reading's)
            dup = [c for c in hosts if any(o.uid != c.uid and o.name == c.name
                                           and _overlap(np.asarray(c.polygon_mm), np.asarray(o.polygon_mm))
                                           >= self.cover_fraction * _area(np.asarray(c.polygon_mm)) for o in hosts)]
            if dup:
                d = min(dup, key=lambda c: c.confidence)
                renamed = replace(d, probs=v.probs, since=t - 1e-6)
                result[result.index(d)] = renamed
                hosts.remove(d)
                self._evidence[renamed.uid] = ({}, 0.0, v.probs, True)
            elif hosts:
                host = max(hosts, key=lambda c: c.confidence)
                added = TableCard(v.probs, True, host.centre_mm, host.polygon_mm, z, t - 1e-6, True, self._new_uid(), True)
                self._evidence[added.uid] = ({}, 0.0, v.probs, True)
                result.append(added)

    def _covered(self, c: TableCard, others: Sequence[TableCard]) -> bool:
        """Whether a card first seen after ``c`` covers at least ``cover_fraction`` of it."""
        area = _area(np.asarray(c.polygon_mm))
        if area <= 0:
            return False
        poly = np.asarray(c.polygon_mm)
        for o in others:
            if o.uid == c.uid or o.since <= c.since:
                continue
            if _overlap(poly, np.asarray(o.polygon_mm)) >= self.cover_fraction * area:
                return True
        return False

    def _add_ms(self, name: str, started: float) -> None:
        self._stats = _bump(self._stats, **{name: (time.perf_counter() - started) * 1000.0})


def _part_outline(held: TableCard, reading: _Reading) -> bool:
    """Whether ``reading``'s outline is clearly smaller or larger than ``held``'s: a part of the card
    (the rest hidden) or the card and one overlapping it, seen as one."""
    area, was = _area(reading.polygon), _area(np.asarray(held.polygon_mm))
    return was > 0 and (area <= PART_OUTLINE * was or area >= was / PART_OUTLINE)


def _month(name: str | None) -> str | None:
    """The month of a hanafuda sight name (``08`` of ``08-moon``); None for other names."""
    return name[:2] if name and name[:2].isdigit() and name[2:3] == "-" else None


def _top(probs: dict[str, float]) -> str | None:
    return max(probs, key=lambda n: probs[n]) if probs else None


def _bump(stats: StabiliserStats, **add: float) -> StabiliserStats:
    values = {k: getattr(stats, k) + v for k, v in add.items()}
    return StabiliserStats(**{**{f: getattr(stats, f) for f in StabiliserStats.__dataclass_fields__}, **values})
