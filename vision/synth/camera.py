"""The camera: pose above the table, the table → image homography, lens and sensor effects.

Table coordinates are millimetres on the table plane: x to the right, y towards the viewer of a
top-down view (down in the image), z into the table. Image coordinates are pixels with OpenCV's
convention (origin at the centre of the top-left pixel). A pinhole camera at ``distance_mm`` from
``target_mm`` looks at it, tilted ``tilt_deg`` from straight down towards ``azimuth_deg`` and rolled
``roll_deg`` about its axis; the table plane then maps to the image by a homography ``H``
(3 × 3, table mm → undistorted image pixels).

Lens distortion is one radial coefficient ``k1`` on radii normalised by the image half-diagonal:
an undistorted point at radius r_u appears at r_d with r_u = r_d (1 + k1 r_d²) (k1 > 0: barrel).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, slots=True)
class CameraPose:
    """Where the camera is and how it sees."""

    target_mm: tuple[float, float]
    """Table point (mm) on the optical axis, at the image centre."""
    distance_mm: float
    """Distance from the camera centre to ``target_mm`` (mm)."""
    tilt_deg: float
    """Angle between the optical axis and the table normal (0 = straight down)."""
    azimuth_deg: float
    """Direction on the table towards which the camera looks when tilted (0 = +x, 90 = +y)."""
    roll_deg: float
    """Rotation of the image about the optical axis."""
    focal_px: float
    """Focal length in pixels."""
    size: tuple[int, int]
    """Image width and height in pixels."""


@dataclass(frozen=True, slots=True)
class CameraEffects:
    """What the lens and sensor do to the image."""

    k1: float = 0.0
    """Radial distortion coefficient (see module docstring); about ±0.1 is a cheap webcam."""
    focus_blur_px: float = 0.0
    """Gaussian sigma of defocus, pixels."""
    motion_px: float = 0.0
    """Length of linear motion blur, pixels (0 = none)."""
    motion_deg: float = 0.0
    """Direction of the motion blur."""
    noise: float = 0.0
    """Sensor noise sigma in grey levels (0-255 scale), partly signal-dependent."""
    jpeg_quality: int = 0
    """JPEG quality of a round trip through the codec (0 = none)."""
    seed: int = 0
    """Seed of the noise pattern."""


def _rotation(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    rot, _ = cv2.Rodrigues((np.asarray(axis, np.float64) * angle_rad).reshape(3, 1))
    return rot


def homography(pose: CameraPose) -> np.ndarray:
    """The 3 × 3 homography from table millimetres to undistorted image pixels."""
    th, az, ro = np.radians([pose.tilt_deg, pose.azimuth_deg, pose.roll_deg])
    # Camera-to-world rotation: start looking straight down (camera x = table x, camera y =
    # table y), tilt about the horizontal axis perpendicular to the azimuth, then roll.
    tilt_axis = np.array([-np.sin(az), np.cos(az), 0.0])
    m = _rotation(tilt_axis, th) @ _rotation(np.array([0.0, 0.0, 1.0]), ro)
    forward = m @ np.array([0.0, 0.0, 1.0])
    target = np.array([pose.target_mm[0], pose.target_mm[1], 0.0])
    centre = target - pose.distance_mm * forward
    r = m.T
    t = -r @ centre
    w, h = pose.size
    k = np.array([[pose.focal_px, 0, (w - 1) / 2], [0, pose.focal_px, (h - 1) / 2], [0, 0, 1]])
    hom = k @ np.column_stack([r[:, 0], r[:, 1], t])
    return hom / hom[2, 2]


def project(hom: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """Table points (N × 2, mm) to image pixels (N × 2) through ``hom``."""
    pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ hom.T
    return q[:, :2] / q[:, 2:3]


def footprint(hom: np.ndarray, size: tuple[int, int], margin: float = 0.05) -> np.ndarray:
    """The table region (4 × 2 mm) that the image sees, enlarged by ``margin`` of the size."""
    w, h = size
    mx, my = margin * w, margin * h
    corners = np.array([[-mx, -my], [w + mx, -my], [w + mx, h + my], [-mx, h + my]])
    return project(np.linalg.inv(hom), corners)


def _half_diag(size: tuple[int, int]) -> float:
    return float(np.hypot(size[0], size[1]) / 2)


def distort_points(pts: np.ndarray, k1: float, size: tuple[int, int]) -> np.ndarray:
    """Undistorted image points (N × 2 px) to where the lens puts them."""
    if k1 == 0.0:
        return np.asarray(pts, np.float64)
    c = np.array([(size[0] - 1) / 2, (size[1] - 1) / 2])
    s = _half_diag(size)
    u = (np.asarray(pts, np.float64) - c) / s
    ru = np.linalg.norm(u, axis=1)
    rd = ru.copy()
    for _ in range(20):  # fixed point of r_d = r_u / (1 + k1 r_d²); converges for |k1| < 0.3
        rd = ru / (1 + k1 * rd * rd)
    scale = np.where(ru > 0, rd / np.maximum(ru, 1e-12), 1.0)
    return c + u * scale[:, None] * s


def distort_image(img: np.ndarray, k1: float, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The image as the lens records it (see module docstring)."""
    if k1 == 0.0:
        return img
    h, w = img.shape[:2]
    s = _half_diag((w, h))
    cx, cy = (w - 1) / 2, (h - 1) / 2
    xs = (np.arange(w, dtype=np.float32) - cx) / s
    ys = (np.arange(h, dtype=np.float32) - cy) / s
    r2 = xs[None, :] ** 2 + ys[:, None] ** 2
    f = 1 + np.float32(k1) * r2
    map_x = (xs[None, :] * f * s + cx).astype(np.float32)
    map_y = (ys[:, None] * f * s + cy).astype(np.float32)
    return cv2.remap(img, map_x, map_y, interpolation, borderMode=cv2.BORDER_REFLECT)


def apply_effects(img: np.ndarray, fx: CameraEffects) -> np.ndarray:
    """Lens distortion, defocus, motion blur, sensor noise and JPEG, in that order (BGR uint8)."""
    out = distort_image(img, fx.k1)
    if fx.focus_blur_px > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), fx.focus_blur_px)
    if fx.motion_px >= 1.5:
        n = int(np.ceil(fx.motion_px)) | 1
        kernel = np.zeros((n, n), np.float32)
        c = n // 2
        dx, dy = np.cos(np.radians(fx.motion_deg)), np.sin(np.radians(fx.motion_deg))
        half = fx.motion_px / 2
        cv2.line(
            kernel,
            (round(c - dx * half), round(c - dy * half)),
            (round(c + dx * half), round(c + dy * half)),
            1.0,
            1,
            cv2.LINE_AA,
        )
        kernel /= kernel.sum()
        out = cv2.filter2D(out, -1, kernel, borderType=cv2.BORDER_REFLECT)
    if fx.noise > 0:
        rng = np.random.Generator(np.random.PCG64(fx.seed))
        # Mostly luminance noise; brighter pixels get more (shot noise).
        grain = rng.standard_normal(out.shape[:2] + (1,), dtype=np.float32)
        sigma = np.float32(fx.noise / 510.0) * out + np.float32(fx.noise * 0.5)
        noisy = out + grain * sigma
        out = np.clip(noisy, 0, 255).astype(np.uint8)
    if fx.jpeg_quality > 0:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
