"""Small raster helpers shared by the renderer's layers: ROIs, motion blur, compositing.

Coordinates are pixels of the renderer's undistorted canvas, whose intrinsics ``k`` are the
camera's shifted by the canvas margin.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.sim.camera import Camera, table_points
from referee.sim.scene import Lighting


def shadow_offset(light: Lighting) -> np.ndarray:
    """Table-plane shift of a shadow per mm of height (away from the light)."""
    az = math.radians(light.light_azimuth_deg)
    el = math.radians(max(light.light_elevation_deg, 10))
    return -np.array([math.cos(az), math.sin(az)]) / math.tan(el)


def px_per_mm(cam: Camera, k: np.ndarray, xy: np.ndarray, height: float = 0.0) -> float:
    """Canvas pixels per table millimetre at ``xy`` and ``height`` (along x)."""
    p = cam.project_pinhole(table_points(np.array([xy, np.asarray(xy) + [1.0, 0.0]]), height),
                            k)
    return float(np.linalg.norm(p[1] - p[0]))


def roi_of(points: np.ndarray, shape: tuple[int, ...], pad: int
           ) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) around ``points`` grown by ``pad``, clipped to ``shape``;
    None when nothing of it is inside."""
    x0 = max(0, int(math.floor(points[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(points[:, 1].min())) - pad)
    x1 = min(shape[1], int(math.ceil(points[:, 0].max())) + pad + 1)
    y1 = min(shape[0], int(math.ceil(points[:, 1].max())) + pad + 1)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def motion_blur(img: np.ndarray, vec: tuple[float, float]) -> np.ndarray:
    """Box-blur float ``img`` along ``vec`` (pixels, the whole smear), centred.

    Recursive doubling: averaging with a copy shifted by L/2, then L/4, ... down to about a
    pixel gives evenly spaced taps under a pixel apart (no ghost copies) in log2(L) warps.
    """
    length = math.hypot(*vec)
    if length < 1.0:
        return img
    levels = max(1, math.ceil(math.log2(length)))
    unit = np.array(vec, np.float64) / 2**levels
    h, w = img.shape[:2]

    def shifted(a: np.ndarray, d: np.ndarray) -> np.ndarray:
        m = np.float32([[1, 0, d[0]], [0, 1, d[1]]])
        return cv2.warpAffine(a, m, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT)

    out = shifted(img, -unit * (2**levels - 1) / 2)  # centre the smear on the object
    for k in range(levels):
        out = (out + shifted(out, unit * 2**k)) * 0.5
    return out


def composite(roi: np.ndarray, layer: np.ndarray, blur: tuple[float, float]) -> None:
    """Alpha-blend a BGRA ``layer`` onto ``roi`` in place, motion-blurred along ``blur``."""
    if math.hypot(*blur) < 1.0:
        a = cv2.extractChannel(layer, 3)
        a = cv2.merge([a, a, a])
        colour = cv2.multiply(cv2.cvtColor(layer, cv2.COLOR_BGRA2BGR), a, scale=1 / 255)
        keep = cv2.multiply(roi, cv2.bitwise_not(a), scale=1 / 255)
        roi[:] = cv2.add(keep, colour)
        return
    f = layer.astype(np.float32) * (1 / 255)
    f[:, :, :3] *= f[:, :, 3:4] * 255
    f = motion_blur(f, blur)
    blend_premultiplied(roi, np.ascontiguousarray(f[:, :, :3]), np.ascontiguousarray(f[:, :, 3]))


def darken(roi: np.ndarray, mask: np.ndarray, strength: float) -> None:
    """Multiply ``roi`` (uint8, in place) by ``1 - strength * mask`` (float32 in [0, 1])."""
    gain = cv2.addWeighted(mask, -strength, mask, 0.0, 1.0)
    roi[:] = cv2.multiply(roi, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)


def blend_premultiplied(roi: np.ndarray, colour: np.ndarray, alpha: np.ndarray) -> None:
    """``roi = roi * (1 - alpha) + colour`` in place (uint8 ``roi``; float32 ``colour``
    already multiplied by ``alpha``, ``alpha`` (h, w) or (h, w, 1))."""
    a = alpha.reshape(alpha.shape[:2])
    keep = cv2.addWeighted(a, -1.0, a, 0.0, 1.0)
    kept = cv2.multiply(roi, cv2.merge([keep, keep, keep]), dtype=cv2.CV_32F)
    roi[:] = cv2.add(kept, np.ascontiguousarray(colour), dtype=cv2.CV_8U)
