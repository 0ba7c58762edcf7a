"""Video frames, rendered incrementally: a static layer per stretch of still cards, moving parts on top.

The table, mat, markers and zone lines are drawn once. For each leg of the timeline the cards
lying still (with their shadows, any cup or phone, and the light's shading) form a static layer
with an id buffer, cached until the next leg changes them. A frame copies that layer and draws
only what moves inside its bounding rectangle: carried cards (warped into their outlines, narrowed
while they turn over, their shadows offset by their height) and the arm with its shadow. Then the
whole frame gets per-frame effects that cost little: a slight camera shake (an image-space
similarity transform, which is what a small camera rotation looks like), lens distortion and
defocus (hard videos), drifting light (per-channel gains through a lookup table) and sensor noise
(a pre-drawn noise field read at a per-frame offset).

Labels reuse :class:`vision.synth.labels.CardLabel`: polygons in final (shaken, distorted) pixels;
visible fractions count cards, arms, cups and phones (computed before the shake).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth import lighting, occluders
from vision.synth.artset import ArtStyle
from vision.synth.camera import CameraPose, distort_image, distort_points, homography, project
from vision.synth.cardfaces import CardLook, face_image, lod_for
from vision.synth.choreography import Carry, Leg, Pose, Settled, ease, lerp_angle, lift
from vision.synth.labels import CardLabel
from vision.synth.layouts import card_corners_mm
from vision.synth.lighting import LightSpec
from vision.synth.markers import MARKER_IDS, MarkerSpec, marker_corners_mm, marker_image
from vision.synth.occluders import Occluder
from vision.synth.scene import CARD_SHADOW_HEIGHT_MM, paste_quad, polygon_area, shadow_mask
from vision.synth.tables import TableSpec, render_table
from vision.zones import ZoneLayout

_OCCLUDED = -2
_TABLE = -1
_TRANSIT = 100_000  # id-buffer value of carried card k is _TRANSIT + k
ARM_HEIGHT_MM = 90.0
"""Height of an arm above the table, for its shadow."""


@dataclass(frozen=True, slots=True)
class Look:
    """The camera, light and effects of a video (constant, apart from the drift and shake)."""

    camera: CameraPose
    table: TableSpec
    markers: MarkerSpec
    light: LightSpec
    statics: tuple[Occluder, ...]
    """Cups and phones lying on the table all video long."""
    k1: float
    """Lens distortion (``vision.synth.camera``)."""
    focus_blur_px: float
    shake_px: float
    """Amplitude of the camera shake (pixels at the image centre)."""
    drift: float
    """Amplitude of the light drift (relative gain)."""
    noise: float
    """Sensor noise sigma (grey levels)."""
    back: str
    """Card back design."""
    wear: float
    """Wear of the deck (0 = new)."""
    seed: int


@dataclass
class _Static:
    key: tuple
    image: np.ndarray  # uint8 BGR, lit
    buf: np.ndarray  # int32 ids: card z, or _TABLE / _OCCLUDED / markers
    counts: np.ndarray  # visible pixels per settled card
    quads: list[np.ndarray]  # undistorted image corners per settled card


class FrameRenderer:
    """Renders frame images and card labels of one game video."""

    def __init__(self, layout: ZoneLayout, deck: str, card_mm: tuple[float, float], style: ArtStyle,
                 look: Look, arm_seeds: Mapping[int, int]) -> None:
        self.layout = layout
        self.deck = deck
        self.card_mm = card_mm
        self.style = style
        self.look = look
        self.size = look.camera.size
        self.hom = homography(look.camera)
        self.arm_seeds = dict(arm_seeds)
        w, h = self.size
        self.shading = lighting.shading_field(look.light, self.size)
        a = math.radians(look.light.shadow_direction_deg)
        self.shadow_dir = np.array([math.cos(a), math.sin(a)]) * look.light.shadow_slope
        self._faces: dict[tuple, np.ndarray] = {}
        self._static: _Static | None = None
        self._base_img, self._base_buf = self._base()
        rng = np.random.Generator(np.random.PCG64(look.seed))
        pad = 16
        field = rng.standard_normal((h + pad, w + pad, 1), dtype=np.float32) * np.float32(look.noise)
        field = np.repeat(field, 3, axis=2)  # luminance noise, the same in every channel
        self._noise_pos = np.ascontiguousarray(np.clip(field, 0, 255).astype(np.uint8))
        self._noise_neg = np.ascontiguousarray(np.clip(-field, 0, 255).astype(np.uint8))
        self._phase = rng.uniform(0, 2 * np.pi, 8)

    # ------------------------------------------------------------------ layers
    def _base(self) -> tuple[np.ndarray, np.ndarray]:
        """Table, mat with zone outlines, markers (unlit float32) and the id buffer."""
        w, h = self.size
        img = render_table(self.look.table, self.hom, self.size).astype(np.float32)
        buf = np.full((h, w), _TABLE, np.int32)
        mk = self.look.markers
        area = self.layout.area_mm
        if mk.mode == "mat":
            pad = mk.size_mm * 0.9
            aw, ah = area
            mat = project(self.hom, np.array([[-pad, -pad], [aw + pad, -pad], [aw + pad, ah + pad], [-pad, ah + pad]]))
            cv2.fillPoly(img, [np.round(mat * 4).astype(np.int32)], mk.mat_colour, cv2.LINE_AA, shift=2)
            if mk.zone_lines:
                line = tuple(int(c * 0.7) for c in mk.mat_colour)
                for z in self.layout.zones:
                    q = project(self.hom, np.array(z.polygon_mm))
                    cv2.polylines(img, [np.round(q * 4).astype(np.int32)], True, line, 1, cv2.LINE_AA, shift=2)
        if mk.mode != "none":
            quads = project(self.hom, marker_corners_mm(area, mk.size_mm, quiet=True).reshape(-1, 2)).reshape(4, 4, 2)
            for k in MARKER_IDS:
                paste_quad(img, buf, cv2.cvtColor(marker_image(k), cv2.COLOR_GRAY2BGRA), quads[k], -10 - k)
        return img, buf

    def face(self, uid: int, card_id: str, face_up: bool, height: int) -> np.ndarray:
        """The card's image (worn per physical card, cached)."""
        wear = self.look.wear * (0.3 + 0.7 * ((uid * 7919) % 100) / 100) if self.look.wear else 0.0
        key = (card_id, face_up, height, round(wear, 3), uid if wear else 0)
        img = self._faces.get(key)
        if img is None:
            look = CardLook(card_id, face_up, self.look.back, wear, uid, 0.0)
            img = face_image(self.style, look, height)
            if len(self._faces) > 4000:
                self._faces.clear()
            self._faces[key] = img
        return img

    def quad(self, pose: Pose, squeeze: float = 1.0) -> np.ndarray:
        """A card's corners in undistorted image pixels; ``squeeze`` narrows it (turning over)."""
        w, h = self.card_mm
        return project(self.hom, card_corners_mm(pose.center_mm, pose.angle_deg, (w * max(squeeze, 0.02), h)))

    def static(self, settled: tuple[Settled, ...]) -> _Static:
        """The still layer for ``settled`` (cached for consecutive legs with the same cards)."""
        key = tuple((s.uid, s.card_id, s.pose) for s in settled)
        if self._static is not None and self._static.key == key:
            return self._static
        img = self._base_img.copy()
        buf = self._base_buf.copy()
        light = self.look.light
        quads = [self.quad(s.pose) for s in settled]
        if settled:
            off = self.shadow_dir * CARD_SHADOW_HEIGHT_MM
            polys = [project(self.hom, card_corners_mm(s.pose.center_mm, s.pose.angle_deg, self.card_mm) + off) for s in settled]
            mask = shadow_mask(self.size, polys, max(1.0, light.shadow_softness_px * 0.3))
            img *= (1 - 0.6 * light.shadow_strength * mask)[..., None]
        for z, (s, q) in enumerate(zip(settled, quads, strict=True)):
            tall = max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))
            paste_quad(img, buf, self.face(s.uid, s.card_id, s.pose.face_up, lod_for(tall)), q, z)
        if self.look.statics:
            polys = [project(self.hom, np.array(p.points_mm) + self.shadow_dir * o.height_mm)
                     for o in self.look.statics for p in o.parts]
            mask = shadow_mask(self.size, polys, light.shadow_softness_px)
            img *= (1 - light.shadow_strength * np.minimum(mask, 1.0))[..., None]
            for o in self.look.statics:
                for p in o.parts:
                    pts = np.round(project(self.hom, np.array(p.points_mm)) * 4).astype(np.int32)
                    cv2.fillPoly(img, [pts], p.colour, cv2.LINE_AA, shift=2)
                    cv2.fillPoly(buf, [pts], _OCCLUDED, cv2.LINE_8, shift=2)
        img *= self.shading
        counts = np.bincount(buf[buf >= 0].ravel(), minlength=len(settled))
        self._static = _Static(key, np.clip(img, 0, 255).astype(np.uint8), buf, counts, quads)
        return self._static

    # ------------------------------------------------------------------ moving parts
    def carried(self, leg: Leg, s: float) -> list[tuple[Carry, Pose, float, float]]:
        """(carry, pose now, squeeze, height mm) of each card carried at fraction ``s`` of ``leg``."""
        e = ease(s)
        out = []
        for c in leg.carries:
            a, b = c.start.center_mm, c.end.center_mm
            center = (a[0] + (b[0] - a[0]) * e, a[1] + (b[1] - a[1]) * e)
            angle = lerp_angle(c.start.angle_deg, c.end.angle_deg, e)
            face_up, squeeze = c.start.face_up, 1.0
            if c.flips:
                squeeze = abs(math.cos(math.pi * e))
                face_up = c.start.face_up if e < 0.5 else c.end.face_up
            out.append((c, Pose(center, angle, face_up), squeeze, lift(s) + (3.0 if c.zone is None else 0.0)))
        return out

    def arm(self, leg: Leg, s: float) -> Occluder | None:
        """The acting player's arm at fraction ``s`` of ``leg``."""
        if leg.seat is None:
            return None
        e = ease(s)
        a, b = leg.hand_from, leg.hand_to
        hand = (a[0] + (b[0] - a[0]) * e, a[1] + (b[1] - a[1]) * e)
        if leg.hover:
            t = s * 2 * math.pi
            hand = (hand[0] + 12 * math.sin(t * 1.3 + self._phase[0]), hand[1] + 10 * math.sin(t * 0.9 + self._phase[1]))
        seat = self.layout.seat(leg.seat)
        entry = seat.arm_entry_mm
        # The shoulder follows the hand a little along the edge, as a body leans.
        ox, oy = seat.outward
        shift = (hand[0] - seat.edge_mm[0]) * abs(oy) * 0.35, (hand[1] - seat.edge_mm[1]) * abs(ox) * 0.35
        rng = np.random.Generator(np.random.PCG64(self.arm_seeds[leg.seat]))
        return occluders.arm(rng, (entry[0] + shift[0], entry[1] + shift[1]), hand)

    # ------------------------------------------------------------------ a frame
    def render(self, leg: Leg, t: float, frame: int) -> tuple[np.ndarray, list[CardLabel], list[str | None]]:
        """The image at time ``t`` (inside ``leg``), its card labels and each label's zone (None:
        carried)."""
        w, h = self.size
        st = self.static(leg.settled)
        img = st.image.copy()
        counts = st.counts.astype(np.int64)
        s = (t - leg.t0) / max(leg.t1 - leg.t0, 1e-9)
        moving = self.carried(leg, s)
        arm = self.arm(leg, s)
        quads_t = [self.quad(p, sq) for _, p, sq, _ in moving]
        arm_polys = [project(self.hom, np.array(p.points_mm)) for p in arm.parts] if arm else []
        shadow_off = [self.shadow_dir * (hgt + CARD_SHADOW_HEIGHT_MM) for _, _, _, hgt in moving]
        t_counts = np.zeros(len(moving), np.int64)
        if moving or arm:
            light = self.look.light
            arm_shadow = [project(self.hom, np.array(p.points_mm) + self.shadow_dir * ARM_HEIGHT_MM) for p in arm.parts] if arm else []
            card_shadow = [project(self.hom, card_corners_mm(p.center_mm, p.angle_deg, (self.card_mm[0] * max(sq, 0.02), self.card_mm[1])) + off)
                           for (_, p, sq, _), off in zip(moving, shadow_off, strict=True)]
            pts = np.vstack(quads_t + arm_polys + arm_shadow + card_shadow)
            soft = int(3 * light.shadow_softness_px) + 2
            x0, y0 = np.floor(pts.min(axis=0)).astype(int) - soft
            x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + soft + 1
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if x0 < x1 and y0 < y1:
                org = np.array([x0, y0], float)
                shade = self.shading[y0:y1, x0:x1]
                roi = img[y0:y1, x0:x1].astype(np.float32) / shade
                sbuf = st.buf[y0:y1, x0:x1]
                dbuf = sbuf.copy()
                size = (x1 - x0, y1 - y0)
                mask_c = shadow_mask(size, [p - org for p in card_shadow], max(1.0, light.shadow_softness_px * 0.5)) if card_shadow else 0
                mask_a = shadow_mask(size, [p - org for p in arm_shadow], light.shadow_softness_px) if arm_shadow else 0
                mask = np.minimum(0.6 * mask_c + mask_a, 1.0)
                if not np.isscalar(mask):
                    roi *= (1 - light.shadow_strength * mask)[..., None]
                for k, ((c, p, _sq, _), q) in enumerate(zip(moving, quads_t, strict=True)):
                    tall = max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))
                    paste_quad(roi, dbuf, self.face(c.uid, c.card_id, p.face_up, lod_for(tall)), q - org, _TRANSIT + k)
                for part, poly in zip(arm.parts if arm else (), arm_polys, strict=True):
                    pts4 = np.round((poly - org) * 4).astype(np.int32)
                    cv2.fillPoly(roi, [pts4], part.colour, cv2.LINE_AA, shift=2)
                    cv2.fillPoly(dbuf, [pts4], _OCCLUDED, cv2.LINE_8, shift=2)
                roi *= shade
                img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
                changed = dbuf != sbuf
                lost = sbuf[changed & (sbuf >= 0)]
                if lost.size:
                    counts -= np.bincount(lost, minlength=len(counts))[: len(counts)]
                got = dbuf[dbuf >= _TRANSIT] - _TRANSIT
                if got.size:
                    t_counts = np.bincount(got, minlength=len(moving)).astype(np.int64)
        # Per-frame camera and light.
        m = self.shake(t)
        if m is not None:
            img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if self.look.k1:
            img = distort_image(img, self.look.k1)
        if self.look.focus_blur_px > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), self.look.focus_blur_px)
        img = cv2.LUT(img, self.drift_lut(t))
        if self.look.noise > 0:
            ox, oy = (frame * 7) % 16, (frame * 11) % 16
            img = cv2.add(img, self._noise_pos[oy:oy + h, ox:ox + w])
            img = cv2.subtract(img, self._noise_neg[oy:oy + h, ox:ox + w])
        # Labels.
        labels: list[CardLabel] = []
        zones: list[str | None] = []
        entries = [(s_.card_id, s_.pose.face_up, q, int(n), s_.zone) for s_, q, n in zip(leg.settled, st.quads, counts, strict=True)]
        entries += [(c.card_id, p.face_up, q, int(n), None) for (c, p, _, _), q, n in zip(moving, quads_t, t_counts, strict=True)]
        for z, (cid, up, q, n, zone) in enumerate(entries):
            full = polygon_area(q)
            visible = float(min(1.0, n / full)) if full > 0 else 0.0
            poly = q
            if m is not None:
                poly = poly @ m[:, :2].T + m[:, 2]
            poly = distort_points(poly, self.look.k1, self.size)
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            bx0, bx1 = min(max(lo[0], 0.0), w - 1.0), min(max(hi[0], 0.0), w - 1.0)
            by0, by1 = min(max(lo[1], 0.0), h - 1.0), min(max(hi[1], 0.0), h - 1.0)
            labels.append(CardLabel(cid, up, tuple((round(float(x), 2), round(float(y), 2)) for x, y in poly),
                                    (round(float(bx0), 2), round(float(by0), 2), round(float(bx1), 2), round(float(by1), 2)),
                                    round(visible, 4), z))
            zones.append(zone)
        return img, labels, zones

    def shake(self, t: float) -> np.ndarray | None:
        """The 2 × 3 image transform of the camera shake at ``t`` (None without shake)."""
        amp = self.look.shake_px
        if amp <= 0:
            return None
        p = self._phase
        dx = amp * (0.6 * math.sin(2 * math.pi * 0.7 * t + p[2]) + 0.4 * math.sin(2 * math.pi * 2.3 * t + p[3]))
        dy = amp * (0.6 * math.sin(2 * math.pi * 0.5 * t + p[4]) + 0.4 * math.sin(2 * math.pi * 1.9 * t + p[5]))
        rot = 0.05 * amp * math.sin(2 * math.pi * 0.3 * t + p[6])
        w, h = self.size
        m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), rot, 1.0)
        m[:, 2] += (dx, dy)
        return m

    def drift_lut(self, t: float) -> np.ndarray:
        """A 256 × 1 × 3 lookup table: the light's slow drift in brightness and colour at ``t``."""
        d = self.look.drift
        p = self._phase
        g = 1 + d * math.sin(2 * math.pi * t / 23.0 + p[7])
        warm = 0.4 * d * math.sin(2 * math.pi * t / 37.0 + p[0])
        gains = np.array([g * (1 - warm), g, g * (1 + warm)], np.float32)
        ramp = np.arange(256, dtype=np.float32)[:, None] * gains[None, :]
        return np.clip(ramp, 0, 255).astype(np.uint8).reshape(256, 1, 3)
