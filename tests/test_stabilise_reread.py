"""The stabiliser's re-reads (vision/stabilise.py, "Re-reads"): drawn tables seen at 2 px per mm, a
recogniser that names a card right only when it sees it at the camera's full resolution."""

from __future__ import annotations

from collections import Counter

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")

from drawn_table import calibration, card_poly  # noqa: E402

from scorer.table import TableState  # noqa: E402
from vision.calibrate import Calibration  # noqa: E402
from vision.stabilise import Stabiliser, frame_px_per_mm  # noqa: E402
from vision.zones import CARD_MM, zone_layout  # noqa: E402

FPS = 15.0
SCALE = 2.0
"""Frame pixels per table mm: more than the recognition view's 1.1."""
MARGIN = 100.0
"""Table (mm) drawn around the play area."""
LAYOUT = zone_layout("poka", 2, "hanafuda")
AW, AH = LAYOUT.area_mm
CARD = CARD_MM["hanafuda"]
TABLE = (60, 110, 60)
SKIN = (150, 180, 225)
RED, BLUE = (0, 0, 255), (255, 0, 0)
PILE = LAYOUT.zone("pile").center_mm
SEAT1 = LAYOUT.zone("seat:1").center_mm
SHARP_PPM = 1.5
"""The recogniser names a card right from this many image px per table mm up."""


def _calibration(t: float) -> Calibration:
    return calibration(LAYOUT.area_mm, t, SCALE, MARGIN)


def _card_poly(centre: tuple[float, float], angle: float = 0.0) -> np.ndarray:
    return card_poly(centre, CARD, angle)


_SHAPE = (round((AH + 2 * MARGIN) * SCALE), round((AW + 2 * MARGIN) * SCALE), 3)
_BASE = np.clip(np.array(TABLE, np.float32) + cv2.GaussianBlur(
    np.random.default_rng(7).normal(0, 8, _SHAPE[:2]).astype(np.float32), (0, 0), 2)[..., None], 0, 255).astype(np.int16)
_NOISE = np.random.default_rng(1).integers(-2, 3, _SHAPE, dtype=np.int16)


def frame(cards=(), arm=None, seed: int = 0) -> np.ndarray:
    """A top-down frame at ``SCALE`` px per mm: ``cards`` (colour, centre mm, angle) drawn in order,
    ``arm`` (seat, hand point mm) reaching from that seat's side; the sensor noise shifts with ``seed``."""
    img = _BASE + np.roll(_NOISE, 7 * (seed % 5), axis=1)
    for colour, centre, angle in cards:
        cv2.fillConvexPoly(img, np.round((_card_poly(centre, angle) + MARGIN) * SCALE).astype(np.int32), colour)
    if arm is not None:
        seat, hand = arm
        entry = (np.array(LAYOUT.seat(seat).arm_entry_mm) + MARGIN) * SCALE
        h = (np.array(hand, float) + MARGIN) * SCALE
        cv2.line(img, tuple(np.round(entry).astype(int)), tuple(np.round(h).astype(int)), SKIN, round(80 * SCALE))
        cv2.circle(img, tuple(np.round(h).astype(int)), round(50 * SCALE), SKIN, -1)
    return np.clip(img, 0, 255).astype(np.uint8)


class Card:
    """A recognised card as the stabiliser reads it."""

    def __init__(self, label, face_up, polygon, confidence, alternatives=()):
        self.label, self.face_up, self.polygon = label, face_up, polygon
        self.confidence, self.alternatives = confidence, alternatives


class Detector:
    """Stands for the recogniser's detector: only its input size (long side, px)."""

    size = 416


class SharpRecogniser:
    """Finds cards by their colour. A card seen at ``SHARP_PPM`` image px per mm or more is named
    right (``names``); seen at less, by ``blurry`` where that names it (a systematic misreading of
    the recognition view). Records each call: (image shape, detector size, px per mm of the cards)."""

    def __init__(self, names: dict[tuple[int, int, int], str], blurry: dict[str, str] | None = None) -> None:
        self.names = names
        self.blurry = dict(blurry or {})
        self.detector = Detector()
        self.calls: list[tuple[tuple[int, int], int, list[float]]] = []

    def recognise(self, view: np.ndarray) -> list[Card]:
        out, scales = [], []
        for colour, name in self.names.items():
            lo = np.clip(np.array(colour) - 30, 0, 255).astype(np.uint8)
            hi = np.clip(np.array(colour) + 30, 0, 255).astype(np.uint8)
            n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.inRange(view, lo, hi))
            for k in range(1, n):
                if stats[k, cv2.CC_STAT_AREA] < 400:
                    continue
                pts = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
                rect = cv2.minAreaRect(pts)
                ppm = max(rect[1]) / max(CARD)
                scales.append(ppm)
                label = name if ppm >= SHARP_PPM else self.blurry.get(name, name)
                other = self.blurry.get(name, "01-crane") if label == name else name
                poly = tuple(map(tuple, cv2.boxPoints(rect).tolist()))
                out.append(Card(label, True, poly, 0.9, ((other, 0.05),)))
        self.calls.append((view.shape[:2], self.detector.size, scales))
        return out


class Table:
    """Feeds frames to a stabiliser at 15 fps and keeps what came back."""

    def __init__(self, stab: Stabiliser) -> None:
        self.stab = stab
        self.t = 0.0
        self.pushed = 0

    def push(self, cards=(), arm=None) -> TableState | None:
        st = self.stab.push(frame(cards, arm, seed=self.pushed), self.t, _calibration(self.t))
        self.pushed += 1
        self.t += 1 / FPS
        return st

    def hold(self, seconds: float, cards=(), arm=None) -> list[TableState | None]:
        return [self.push(cards, arm) for _ in range(round(seconds * FPS))]


def _last(states: list[TableState | None]) -> TableState:
    got = [s for s in states if s is not None]
    assert got, "no state emitted"
    return got[-1]


def _view_long_px(stab: Stabiliser) -> float:
    return max(AW, AH) * stab.px_per_mm + 2 * stab.margin_mm * stab.px_per_mm


# ---------------------------------------------------------------------- the scale
def test_frame_px_per_mm_is_the_most_detail_the_homography_gives():
    assert frame_px_per_mm(np.diag([2.5, 2.5, 1.0]), [(0.0, 0.0), (300.0, 100.0)]) == pytest.approx(2.5)
    assert frame_px_per_mm(np.diag([3.0, 1.5, 1.0]), [(10.0, 10.0)]) == pytest.approx(3.0)
    # a tilted camera: the near side (larger y here) shows more pixels per mm; the largest counts
    hom = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, -0.001, 1.0]])
    near, far = frame_px_per_mm(hom, [(0.0, 400.0)]), frame_px_per_mm(hom, [(0.0, 0.0)])
    assert near > far == pytest.approx(2.0)
    assert frame_px_per_mm(hom, [(0.0, 0.0), (0.0, 400.0)]) == pytest.approx(near)
    # the largest stretch of a finite-difference Jacobian, in whatever direction it lies
    hom = np.array([[2.0, 0.3, 5.0], [-0.2, 1.8, 9.0], [0.0004, -0.001, 1.0]])
    p = np.array([100.0, 300.0])

    def to_frame(q):
        u = hom @ (q[0], q[1], 1.0)
        return u[:2] / u[2]

    jac = np.column_stack([(to_frame(p + d) - to_frame(p - d)) / 2e-3 for d in (np.array([1e-3, 0.0]), np.array([0.0, 1e-3]))])
    assert frame_px_per_mm(hom, [tuple(p)]) == pytest.approx(np.linalg.svd(jac, compute_uv=False)[0], rel=1e-6)


# ---------------------------------------------------------------------- re-reads
@pytest.mark.parametrize("zone", ["seat:1", "pile"])
def test_a_zone_asked_for_is_read_again_at_full_resolution_and_its_names_replace_a_misreading(zone):
    rec = SharpRecogniser({RED: "08-moon", BLUE: "03-curtain"}, blurry={"08-moon": "08-plain"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    where = LAYOUT.zone(zone).center_mm
    cards = [(RED, where, 0.0)]
    before = _last(table.hold(1.2, cards))
    assert before.names() == {zone: Counter({"08-plain": 1})}  # two readings agreed on the misreading
    held = [c for c in stab.cards if c.zone == zone]
    assert all(ppm < SHARP_PPM for _, _, scales in rec.calls for ppm in scales)
    calls = len(rec.calls)
    stab.reread([zone])
    assert stab.rereading == {zone}
    after = table.hold(1.0, cards)
    assert all(s is not None for s in after)  # the settled table is emitted throughout
    assert after[-1].names() == {zone: Counter({"08-moon": 1})}
    assert stab.rereading == frozenset() and stab.stats.rereads == 2 and stab.stats.reread_ms > 0
    # the crop: the zone's rectangle grown by half a card's length, at the frame's 2 px per mm
    rereads = rec.calls[calls:]
    assert len(rereads) == 2
    xs = [p[0] for p in LAYOUT.zone(zone).polygon_mm]
    ys = [p[1] for p in LAYOUT.zone(zone).polygon_mm]
    pad = max(CARD) / 2
    w_mm = min(max(xs) + pad, AW + stab.margin_mm) - max(min(xs) - pad, -stab.margin_mm)
    h_mm = min(max(ys) + pad, AH + stab.margin_mm) - max(min(ys) - pad, -stab.margin_mm)
    for shape, size, scales in rereads:
        assert shape == (int(np.ceil(h_mm * SCALE)), int(np.ceil(w_mm * SCALE)))
        assert scales and all(ppm == pytest.approx(SCALE, rel=0.03) for ppm in scales)
        # the detector sees cards as large as in the whole recognition view (its size a multiple of 32)
        view_scale = Detector.size * stab.px_per_mm / _view_long_px(stab)
        assert abs(size * SCALE / max(shape) - view_scale) <= 16 * SCALE / max(shape) + 1e-9
    assert rec.detector.size == Detector.size  # put back
    # the same physical card, renamed; nothing left under it
    now = [c for c in stab.cards if c.zone == zone]
    assert [c.uid for c in now] == [c.uid for c in held] and not any(c.covered for c in now)


def test_the_recognition_view_naming_it_as_before_keeps_the_re_read_name():
    rec = SharpRecogniser({RED: "08-moon", BLUE: "03-curtain"}, blurry={"08-moon": "08-plain"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    cards = [(RED, PILE, 0.0)]
    table.hold(1.2, cards)
    stab.reread(["pile"])
    assert _last(table.hold(0.6, cards)).names() == {"pile": Counter({"08-moon": 1})}
    uid = next(c.uid for c in stab.cards if c.zone == "pile")
    # a card laid in a seat zone: the whole table is read again, the pile misread again as before
    table.hold(0.6, cards, arm=(1, (SEAT1[0], SEAT1[1] - 60)))
    later = _last(table.hold(1.2, [*cards, (BLUE, SEAT1, 0.0)]))
    assert later.names() == {"pile": Counter({"08-moon": 1}), "seat:1": Counter({"03-curtain": 1})}
    assert [c.uid for c in stab.cards if c.zone == "pile"] == [uid] and not later.history


def test_a_re_read_that_reads_the_same_changes_nothing():
    rec = SharpRecogniser({RED: "08-moon"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    cards = [(RED, SEAT1, 0.0)]
    before = _last(table.hold(1.2, cards))
    stab.reread(["seat:1"])
    after = table.hold(0.6, cards)
    assert stab.stats.rereads == 2
    assert all(s is not None and s.zones == before.zones and s.signature() == before.signature() for s in after)


def test_no_re_read_unless_asked_and_an_unchanged_zone_is_re_read_once():
    rec = SharpRecogniser({RED: "08-moon", BLUE: "03-curtain"}, blurry={"08-moon": "08-plain"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    cards = [(RED, SEAT1, 0.0)]
    table.hold(2.0, cards)
    calls = len(rec.calls)
    table.hold(1.0, cards)
    assert stab.stats.rereads == 0 and len(rec.calls) == calls  # a still table is not read again
    stab.reread(["seat:1", "seat:7", "nowhere"])  # zones not in the layout are ignored
    assert stab.rereading == {"seat:1"}
    table.hold(0.6, cards)
    assert stab.stats.rereads == 2
    # asked again with nothing changed there: a still card re-read gives the same answer
    stab.reread(["seat:1"])
    assert stab.rereading == frozenset()
    table.hold(1.0, cards)
    assert stab.stats.rereads == 2 and len(rec.calls) == calls + 2
    # a zone whose cards are unchanged stays re-read after a change elsewhere
    table.hold(0.6, cards, arm=(2, (PILE[0], PILE[1] - 60)))
    changed = [*cards, (BLUE, PILE, 0.0)]
    assert _last(table.hold(1.2, changed)).names() == {"seat:1": Counter({"08-moon": 1}),
                                                       "pile": Counter({"03-curtain": 1})}
    stab.reread(["seat:1"])
    assert stab.rereading == frozenset()
    # a card added to the zone: its cards changed, a re-read is taken again
    table.hold(0.6, changed, arm=(1, (SEAT1[0], SEAT1[1] - 60)))
    more = [*changed, (BLUE, (SEAT1[0] + 120, SEAT1[1]), 0.0)]
    table.hold(1.2, more)
    stab.reread(["seat:1"])
    assert stab.rereading == {"seat:1"}
    last = _last(table.hold(0.6, more))
    assert stab.stats.rereads == 4
    assert last.zone("seat:1").names() == Counter({"08-moon": 1, "03-curtain": 1})


def test_motion_during_a_re_read_discards_it_and_it_is_taken_when_still_again():
    rec = SharpRecogniser({RED: "08-moon"}, blurry={"08-moon": "08-plain"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    cards = [(RED, SEAT1, 0.0)]
    table.hold(1.2, cards)
    stab.reread(["seat:1"])
    while stab.stats.rereads == 0:
        assert table.push(cards) is not None
    # an arm comes before the second re-reading: the first is dropped, the request kept
    during = table.hold(0.6, cards, arm=(2, (PILE[0], PILE[1] - 60)))
    assert all(s is None for s in during) and stab.stats.rereads == 1
    assert stab.rereading == {"seat:1"}
    assert stab.state is not None and stab.state.names() == {"seat:1": Counter({"08-plain": 1})}
    # still again (the table unchanged): after settle_s, two re-readings that agree
    back = table.hold(1.0, cards)
    assert back[0] is None  # the first frame after motion is not still yet
    assert _last(back).names() == {"seat:1": Counter({"08-moon": 1})}
    assert stab.stats.rereads == 3 and stab.rereading == frozenset()
    k = next(i for i, s in enumerate(back) if s is not None and s.names() == {"seat:1": Counter({"08-moon": 1})})
    assert k / FPS >= stab.settle_s


def test_a_request_made_while_the_table_moves_waits_for_it_to_settle():
    rec = SharpRecogniser({RED: "08-moon", BLUE: "03-curtain"}, blurry={"08-moon": "08-plain"})
    stab = Stabiliser(LAYOUT, rec)
    table = Table(stab)
    table.hold(1.2, [(RED, SEAT1, 0.0)])
    table.hold(0.3, [(RED, SEAT1, 0.0)], arm=(2, (PILE[0], PILE[1] - 60)))
    stab.reread(["seat:1"])
    table.hold(0.3, [(RED, SEAT1, 0.0)], arm=(2, (PILE[0], PILE[1] - 60)))
    assert stab.stats.rereads == 0 and stab.rereading == {"seat:1"}
    # the table changed meanwhile: it is read, then the zone re-read
    last = _last(table.hold(1.5, [(RED, SEAT1, 0.0), (BLUE, PILE, 0.0)]))
    assert last.names() == {"seat:1": Counter({"08-moon": 1}), "pile": Counter({"03-curtain": 1})}
    assert stab.stats.rereads == 2


@pytest.mark.parametrize(("max_px", "ppm"), [(900, 900 / 553.0), (400, 1.1)])
def test_the_re_read_scale_is_capped_and_never_below_the_view(max_px, ppm):
    rec = SharpRecogniser({RED: "08-moon"})
    stab = Stabiliser(LAYOUT, rec, reread_max_px=max_px)
    table = Table(stab)
    table.hold(1.2, [(RED, SEAT1, 0.0)])
    stab.reread(["seat:1"])
    table.hold(0.6, [(RED, SEAT1, 0.0)])
    assert stab.stats.rereads == 2
    # seat:1 is 466 mm wide, 553 mm with half a card's length on either side
    shape, _, scales = rec.calls[-1]
    assert max(shape) == int(np.ceil(553.0 * ppm))
    assert scales[0] == pytest.approx(ppm, rel=0.03)


def test_bad_re_read_settings_are_refused():
    with pytest.raises(ValueError):
        Stabiliser(LAYOUT, SharpRecogniser({}), reread_max_px=10)
