"""Table calibration: the homography between camera frames and the play area in table millimetres.

Table coordinates follow :mod:`vision.zones` and :mod:`vision.markers`: millimetres on the table
plane, x to the right, y down in a top-down view; the play area is (0, 0)-(width, height) and
ArUco marker k (DICT_4X4_50) is centred on its corner k, clockwise from the top-left. Frame
coordinates are pixels with OpenCV's convention (origin at the centre of the top-left pixel). The
frame is taken as undistorted: lens distortion is not modelled.

How :class:`TableCalibrator` finds and keeps the homography (all distances in frame pixels):

- **Markers and their size.** The size of the markers is not known in advance (users print their
  own, or tape them on turned a little). With all four markers seen, their centres (the
  intersection of each marker's diagonals) are the four play-area corners: a homography from four
  points. On every frame that confirms or establishes the held homography with all four markers
  in view, each marker's four corners are mapped to table millimetres through that frame's own
  four-centre homography and averaged over frames, which learns each marker's size and turn on
  the table (:attr:`TableCalibrator.marker_sizes_mm`). Once a marker has
  ``min_samples`` such frames, its corners take part: with three or four learnt markers in view,
  the homography is fitted by least squares to their 12 or 16 corners, so three markers confirm or
  re-establish it while a hand covers the fourth. Markers that do not agree with each other (fit
  residual above ``agree_px``, RMS) give no estimate; with four in view, the best three that agree
  are used instead.
- **The estimate of a frame** is summarised by where it puts the four play-area corners (the
  *quad*, 4 × 2 px). Corner displacement between two homographies is the largest distance between
  their quads' corners.
- **Jitter.** An estimate within the tolerance of the held homography confirms it (source
  ``markers``) and the held one is kept unchanged, so the rectified table does not shimmer. The
  tolerance (:attr:`TableCalibrator.tolerance_px`) is ``hold_px``, or ``jitter_k`` times the
  camera's measured jitter when that is larger: the median spread of the last ``window``
  estimates about the held homography, so that a camera that wobbles (a phone on a bendy arm) is
  held at the middle of its wobble instead of being followed frame by frame.
- **Drift.** Once ``window`` estimates have been made since the held homography was last set,
  and the median of the last ``window`` lies ``max(hold_px, tolerance / 2)`` or more from it, the median
  replaces it (``moved=True``): a slow sag of the camera is followed in steps.
- **Moves.** An estimate beyond the tolerance starts or extends a run of candidates; each must lie
  within the tolerance of the run's mean. After ``move_frames`` consecutive candidates the mean of
  their quads becomes the homography and that frame's calibration says ``moved=True`` (once). A
  frame whose estimate confirms the held homography, or that gives no estimate (too few
  markers), ends the run, so a single frame of bad detections never moves it. The first
  homography is adopted by the same rule (``moved`` is False then: nothing moved).
- **Holding.** With too few markers for an estimate (one or two in view, or fewer than four before
  any is learnt, or none) the last good homography is held (source ``held``); ``error_px`` then
  tells how well the visible markers still agree with it.
- **Manual corners.** :meth:`TableCalibrator.set_manual` installs the four clicked play-area
  corners at once (source ``manual``) and keeps them while the markers give no estimate. Markers
  take over as soon as their estimate is established: at once when it lies within the tolerance
  of the manual corners (the markers' homography replaces the clicked one, ``moved`` False),
  otherwise after ``move_frames`` consecutive agreeing estimates, as for a move (``moved`` True).
  A marker homography, once held, is never replaced by the manual corners again unless
  :meth:`~TableCalibrator.set_manual` is called anew.
- **Cadence.** Markers are searched every ``every``-th call of :meth:`TableCalibrator.update`;
  between searches the held calibration is returned with the new time (source ``held`` or
  ``manual``, no markers).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from vision.markers import ARUCO_DICT, MARKER_IDS, marker_centres

SOURCES = ("markers", "held", "manual")


@dataclass(frozen=True, slots=True, eq=False)
class Calibration:
    """The table homography of one frame (arrays read-only)."""

    frame_to_table: np.ndarray
    """3 × 3 float64: frame pixels → table millimetres."""
    table_to_frame: np.ndarray
    """3 × 3 float64: table millimetres → frame pixels (the inverse of ``frame_to_table``)."""
    area_mm: tuple[float, float]
    """Play-area width and height (mm)."""
    markers: tuple[int, ...]
    """Ids of the markers found in this frame (sorted; empty when none, or not searched)."""
    error_px: float
    """RMS reprojection error (px) of this frame's markers under this homography (their learnt
    corners, or their centres while unlearnt); NaN when no marker was measured."""
    t: float
    """Frame time (s)."""
    source: str
    """``markers`` (this frame's markers confirm or established it), ``held`` (the last good
    homography, kept while markers are too few, hidden, skipped or not yet agreed on a move) or
    ``manual`` (the clicked corners)."""
    moved: bool
    """True on the one frame at which an established homography was replaced (the camera moved,
    or markers took over from manual corners): whatever was kept in rectified coordinates is stale."""

    @property
    def corners_px(self) -> np.ndarray:
        """The four play-area corners in the frame (4 × 2 px, clockwise from top-left)."""
        return _project(self.table_to_frame, marker_centres(self.area_mm))


def _project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ np.asarray(hom, np.float64).T
    return q[:, :2] / q[:, 2:3]


def px_per_mm_at(table_to_frame: np.ndarray, x: float, y: float) -> tuple[float, float]:
    """The most and the fewest frame pixels per table millimetre the homography ``table_to_frame``
    (table mm → frame px) gives at table point (``x``, ``y``) mm: the singular values of its
    Jacobian there (the directions in which the camera sees the table in the most and least detail)."""
    hom = np.asarray(table_to_frame, np.float64)
    u, v, w = hom @ (float(x), float(y), 1.0)
    u, v = u / w, v / w
    jac = np.array([[hom[0, 0] - u * hom[2, 0], hom[0, 1] - u * hom[2, 1]],
                    [hom[1, 0] - v * hom[2, 0], hom[1, 1] - v * hom[2, 1]]]) / w
    most, fewest = np.linalg.svd(jac, compute_uv=False)
    return float(most), float(fewest)


def to_table(cal: Calibration, pts_px: np.ndarray) -> np.ndarray:
    """Frame points (N × 2 px) → table points (N × 2 mm)."""
    return _project(cal.frame_to_table, pts_px)


def to_frame(cal: Calibration, pts_mm: np.ndarray) -> np.ndarray:
    """Table points (N × 2 mm) → frame points (N × 2 px)."""
    return _project(cal.table_to_frame, pts_mm)


def view_homography(cal: Calibration, px_per_mm: float, margin_mm: float = 0.0) -> np.ndarray:
    """3 × 3: frame pixels → pixels of :func:`rectify`'s view. View pixel (u, v) shows table point
    ((u + 0.5) / px_per_mm − margin_mm, (v + 0.5) / px_per_mm − margin_mm) mm."""
    if px_per_mm <= 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    off = margin_mm * px_per_mm - 0.5
    view = np.array([[px_per_mm, 0.0, off], [0.0, px_per_mm, off], [0.0, 0.0, 1.0]])
    return view @ cal.frame_to_table


def view_size(cal: Calibration, px_per_mm: float, margin_mm: float = 0.0) -> tuple[int, int]:
    """Width and height (px) of :func:`rectify`'s view: the play area plus ``margin_mm`` on each side."""
    w, h = cal.area_mm
    return (round((w + 2 * margin_mm) * px_per_mm), round((h + 2 * margin_mm) * px_per_mm))


def rectify(image: np.ndarray, calibration: Calibration, px_per_mm: float, margin_mm: float = 0.0) -> np.ndarray:
    """The top-down view of the play area, ``px_per_mm`` pixels per millimetre, with ``margin_mm``
    of table around it (see :func:`view_homography` for the pixel ↔ mm rule); outside the frame is black."""
    return cv2.warpPerspective(image, view_homography(calibration, px_per_mm, margin_mm),
                               view_size(calibration, px_per_mm, margin_mm), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT)


@lru_cache(maxsize=1)
def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The calibration markers in ``image`` (BGR or grey uint8): id → its 4 × 2 corners (px,
    float64, sub-pixel), clockwise from the marker's printed top-left. Ids other than 0-3 are
    ignored; an id found twice keeps its larger detection."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(grey)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, i in zip(corners, ids.ravel(), strict=True):
        k = int(i)
        if k not in MARKER_IDS:
            continue
        quad = np.asarray(c, np.float64).reshape(4, 2)
        if k not in out or _area(quad) > _area(out[k]):
            out[k] = quad
    return out


def marker_centre(corners_px: np.ndarray) -> np.ndarray:
    """The centre (px) of a marker seen with these 4 × 2 corners: where its diagonals cross (the
    projection of the printed centre, whatever the perspective)."""
    p0, p1, p2, p3 = np.asarray(corners_px, np.float64)
    d1, d2 = p2 - p0, p3 - p1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-12:
        return np.mean(corners_px, axis=0)
    s = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / den
    return p0 + s * d1


def _homography4(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3 × 3 homography (float64, h33 = 1) taking four points ``src`` exactly to ``dst``."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst, strict=True)):
        a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * i], b[2 * i + 1] = u, v
    return np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)


def _area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _plausible(quad: np.ndarray) -> bool:
    """A convex quad, clockwise on screen as the play area is (a camera never mirrors the table)."""
    if not np.isfinite(quad).all():
        return False
    e = np.roll(quad, -1, axis=0) - quad
    cross = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    return bool((cross > 0).all())


def _displacement(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b, axis=1).max())


@dataclass(slots=True)
class _Learnt:
    total: np.ndarray = field(default_factory=lambda: np.zeros((4, 2)))
    count: int = 0

    @property
    def corners(self) -> np.ndarray:
        return self.total / max(self.count, 1)


class TableCalibrator:
    """The table homography of a stream of frames, re-found continuously and smoothed (rules in
    the module docstring). ``area_mm`` is the play area's width and height."""

    def __init__(self, area_mm: tuple[float, float], *, every: int = 1, hold_px: float = 1.25,
                 agree_px: float = 3.0, move_frames: int = 3, min_samples: int = 3,
                 max_samples: int = 200, window: int = 30, jitter_k: float = 3.0) -> None:
        """``every``: search markers on every ``every``-th frame. ``hold_px``: an estimate whose
        corner displacement from the held homography is below this confirms it unchanged.
        ``agree_px``: markers agree with each other below this fit residual (RMS).
        ``move_frames``: consecutive agreeing candidates needed to adopt a homography (1 adopts at once: for single still images).
        ``min_samples``: confirming frames before a marker's corners are used; ``max_samples``:
        the learnt corners then follow a running mean of this many frames. ``window`` and
        ``jitter_k``: how many estimates measure the camera's jitter and drift, and the multiple of
        the jitter tolerated (module docstring)."""
        w, h = (float(v) for v in area_mm)
        if not (w > 0 and h > 0):
            raise ValueError(f"the play area must have a positive width and height, got {area_mm}")
        if every < 1 or move_frames < 1 or min_samples < 1 or max_samples < min_samples:
            raise ValueError("every, move_frames and min_samples must be at least 1, max_samples at least min_samples")
        if hold_px <= 0 or agree_px <= 0 or jitter_k <= 0:
            raise ValueError("hold_px, agree_px and jitter_k must be positive")
        if window < 2:
            raise ValueError("window must be at least 2 estimates")
        self.area_mm = (w, h)
        self.every = every
        self.hold_px = hold_px
        self.agree_px = agree_px
        self.move_frames = move_frames
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.jitter_k = jitter_k
        self._corners_mm = marker_centres(self.area_mm)
        self._quad: np.ndarray | None = None
        self._source = "markers"
        self._pending: list[np.ndarray] = []
        self._residuals: deque[np.ndarray] = deque(maxlen=window)
        self._since: deque[np.ndarray] = deque(maxlen=window)
        self._jitter = 0.0
        self._learnt: dict[int, _Learnt] = {}
        self._calls = 0
        self._last: Calibration | None = None

    # ------------------------------------------------------------------ public
    @property
    def current(self) -> Calibration | None:
        """The last calibration returned (None before the first)."""
        return self._last

    @property
    def tolerance_px(self) -> float:
        """The corner displacement (px) below which an estimate confirms the held homography:
        ``hold_px``, or ``jitter_k`` × the camera's measured jitter when that is larger."""
        return max(self.hold_px, self.jitter_k * self._jitter)

    @property
    def marker_sizes_mm(self) -> dict[int, float]:
        """Learnt side of each marker's black square (mm, mean of its four sides), for markers with
        at least ``min_samples`` confirming frames."""
        out = {}
        for k, lr in sorted(self._learnt.items()):
            if lr.count >= self.min_samples:
                c = lr.corners
                out[k] = float(np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).mean())
        return out

    def update(self, image: np.ndarray, t: float) -> Calibration | None:
        """The calibration of ``image`` (BGR or grey) at time ``t`` (s); None while none is established."""
        self._calls += 1
        if self._quad is not None and (self._calls - 1) % self.every:
            return self._emit(t, {}, self._held_source(), False)
        return self.update_markers(find_markers(image), t)

    def update_markers(self, found: Mapping[int, np.ndarray], t: float) -> Calibration | None:
        """As :meth:`update`, from markers already found (id → 4 × 2 corners px, as :func:`find_markers`)."""
        found = {int(k): np.asarray(v, np.float64).reshape(4, 2) for k, v in found.items() if int(k) in MARKER_IDS}
        est = self._estimate(found)
        cur = self._quad
        if est is None:
            self._pending.clear()
            return None if cur is None else self._emit(t, found, self._held_source(), False)
        if cur is not None:
            self._residuals.append(est - cur)
            self._measure_jitter()
        self._since.append(est)
        tol = self.tolerance_px
        if cur is not None and _displacement(est, cur) < tol:
            self._pending.clear()
            moved = False
            if self._source == "manual":  # markers take over, within jitter of the clicked corners
                self._quad = est
                self._source = "markers"
            elif len(self._since) == self._since.maxlen:
                arr = np.array(self._since)
                centre = (np.percentile(arr, 10, axis=0) + np.percentile(arr, 90, axis=0)) / 2
                if _displacement(centre, cur) >= max(self.hold_px, tol / 2):
                    self._quad = centre  # the camera drifted, or shakes about another centre
                    self._since.clear()
                    moved = True
            self._learn(found)
            return self._emit(t, found, "markers", moved)
        if self._pending and _displacement(est, np.mean(self._pending, axis=0)) >= tol:
            self._pending.clear()
        self._pending.append(est)
        if len(self._pending) < self.move_frames:
            return None if cur is None else self._emit(t, found, self._held_source(), False)
        self._quad = np.mean(self._pending, axis=0)
        self._source = "markers"
        self._since.clear()
        self._since.extend(self._pending)
        self._pending.clear()
        self._learn(found)
        return self._emit(t, found, "markers", cur is not None)

    def set_manual(self, corners_px: np.ndarray, t: float = 0.0) -> Calibration:
        """Install the play area's four corners clicked in the frame (4 × 2 px, clockwise from
        top-left) as the calibration (source ``manual``) and return it; markers take over later by
        the rule in the module docstring. ValueError unless they form a convex, clockwise quad."""
        quad = np.asarray(corners_px, np.float64)
        if quad.shape != (4, 2):
            raise ValueError(f"manual calibration needs 4 corners (x, y) in px, got shape {quad.shape}")
        if not _plausible(quad):
            raise ValueError("the manual corners must form a convex quadrilateral, clockwise from the "
                             "play area's top-left corner as seen in the frame")
        moved = self._quad is not None and _displacement(quad, self._quad) >= self.hold_px
        self._quad = quad.copy()
        self._source = "manual"
        self._pending.clear()
        self._since.clear()
        return self._emit(t, {}, "manual", moved)

    # ------------------------------------------------------------------ internals
    def _measure_jitter(self) -> None:
        """The camera's jitter (px): the median, over the last ``window`` estimates, of how far
        each lies from their median offset to the held homography (its worst corner); measured
        once at least 8 (or ``move_frames``) estimates are in, kept until then."""
        r = self._residuals
        if len(r) >= min(max(self.move_frames, 8), r.maxlen):
            arr = np.array(r)
            centre = np.median(arr, axis=0)
            self._jitter = float(np.median(np.linalg.norm(arr - centre, axis=2).max(axis=1)))

    def _held_source(self) -> str:
        return "manual" if self._source == "manual" else "held"

    def _learnt_corners(self, k: int) -> np.ndarray | None:
        lr = self._learnt.get(k)
        return lr.corners if lr is not None and lr.count >= self.min_samples else None

    def _fit(self, found: Mapping[int, np.ndarray], ids: tuple[int, ...]) -> tuple[np.ndarray | None, float]:
        """(quad, RMS residual px) of the least-squares homography on the learnt corners of ``ids``."""
        src = np.concatenate([self._learnt_corners(k) for k in ids])
        dst = np.concatenate([found[k] for k in ids])
        hom, _ = cv2.findHomography(src, dst, 0)
        if hom is None:
            return None, float("inf")
        res = float(np.sqrt(np.mean(np.sum((_project(hom, src) - dst) ** 2, axis=1))))
        return _project(hom, self._corners_mm), res

    def _estimate(self, found: Mapping[int, np.ndarray]) -> np.ndarray | None:
        """This frame's quad (4 × 2 px), or None when its markers are too few or disagree."""
        learnt = tuple(k for k in sorted(found) if self._learnt_corners(k) is not None)
        if len(learnt) >= 3:
            quad, res = self._fit(found, learnt)
            if quad is not None and res < self.agree_px and _plausible(quad):
                return quad
            if len(learnt) == 4:
                fits = [self._fit(found, tuple(k for k in learnt if k != drop)) for drop in learnt]
                good = [(r, q) for q, r in fits if q is not None and r < self.agree_px and _plausible(q)]
                if good:
                    return min(good, key=lambda rq: rq[0])[1]
            return None
        if len(found) == 4:
            quad = np.array([marker_centre(found[k]) for k in MARKER_IDS])
            return quad if _plausible(quad) else None
        return None

    def _learn(self, found: Mapping[int, np.ndarray]) -> None:
        """Add this frame's marker corners, in table mm through the homography of this frame's own
        four centres (so that learning never feeds on the held homography's error)."""
        if len(found) < 4:
            return
        quad = np.array([marker_centre(found[k]) for k in MARKER_IDS])
        if not _plausible(quad):
            return
        inv = np.linalg.inv(_homography4(self._corners_mm, quad))
        for k, c in found.items():
            lr = self._learnt.setdefault(k, _Learnt())
            if lr.count >= self.max_samples:  # running mean over the last ~max_samples frames
                lr.total *= (self.max_samples - 1) / self.max_samples
                lr.count = self.max_samples - 1
            lr.total += _project(inv, c)
            lr.count += 1

    def _table_to_frame(self) -> np.ndarray:
        assert self._quad is not None
        return _homography4(self._corners_mm, self._quad)

    def _error(self, found: Mapping[int, np.ndarray], hom: np.ndarray) -> float:
        sq: list[np.ndarray] = []
        for k, c in found.items():
            ref = self._learnt_corners(k)
            if ref is not None:
                sq.append(np.sum((_project(hom, ref) - c) ** 2, axis=1))
            else:
                sq.append(np.sum((_project(hom, self._corners_mm[k]) - marker_centre(c)) ** 2, axis=1))
        return float(np.sqrt(np.mean(np.concatenate(sq)))) if sq else float("nan")

    def _emit(self, t: float, found: Mapping[int, np.ndarray], source: str, moved: bool) -> Calibration:
        fwd = self._table_to_frame()
        inv = np.linalg.inv(fwd)
        inv /= inv[2, 2]
        fwd.setflags(write=False)
        inv.setflags(write=False)
        cal = Calibration(inv, fwd, self.area_mm, tuple(sorted(found)), self._error(found, fwd), float(t), source, moved)
        self._last = cal
        return cal
