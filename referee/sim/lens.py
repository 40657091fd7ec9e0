"""The camera's lens and sensor: distortion, defocus, sharpening, uneven light, noise and
compression, applied to the renderer's undistorted canvas."""

from __future__ import annotations

from functools import cache, lru_cache

import cv2
import numpy as np

from referee.sim.scene import Lighting, Scene


def apply_lens(canvas: np.ndarray, margin: int,
               maps: tuple[np.ndarray, np.ndarray] | None, scene: Scene,
               rng: np.random.Generator) -> np.ndarray:
    """The image the camera records from the undistorted ``canvas`` (``margin`` pixels
    wider on each side): lens distortion through ``maps`` (see
    :meth:`Camera.remap_tables`), defocus, sharpening, uneven light and tint, sensor noise
    and a JPEG round trip."""
    cam = scene.camera
    m = margin
    if maps is not None:
        img = cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR)
    else:
        img = np.ascontiguousarray(canvas[m : m + cam.height, m : m + cam.width])
    fx = scene.effects
    if fx.defocus_sigma > 0.2:
        k = 3 if fx.defocus_sigma < 0.8 else 5
        img = cv2.GaussianBlur(img, (k, k), fx.defocus_sigma)
    if fx.sharpen > 0:  # a webcam's sharpening: halos along edges
        soft = cv2.GaussianBlur(img, (0, 0), 1.5)
        img = cv2.addWeighted(img, 1 + fx.sharpen, soft, -fx.sharpen, 0)
    img = cv2.multiply(img, gain_map(scene.lighting, cam.size), scale=1 / 128)
    if fx.noise_sigma > 0:
        bank = noise_bank(cam.size)
        dx, dy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
        tile = bank[dy : dy + cam.height, dx : dx + cam.width]
        k = fx.noise_sigma / 16
        img = cv2.addWeighted(img, 1.0, tile, k, -128 * k)
    if fx.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img



@cache
def noise_bank(size: tuple[int, int]) -> np.ndarray:
    """Gaussian noise (sigma 16 around 128) a little larger than the image, made once."""
    w, h = size
    rng = np.random.default_rng(12345)
    n = rng.standard_normal((h + 64, w + 64, 3), np.float32) * 16 + 128
    # sensor noise is slightly correlated between neighbours after demosaicing
    n = cv2.GaussianBlur(n, (0, 0), 0.5) * 1.4 - 128 * 0.4
    return np.clip(n, 0, 255).astype(np.uint8)


@lru_cache(maxsize=16)
def gain_map(light: Lighting, size: tuple[int, int]) -> np.ndarray:
    """Per-pixel, per-channel light gain x128 as uint8 (uneven light, spot, vignette, tint)."""
    w, h = size
    gw, gh = 64, 36
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    u, v = (xx + 0.5) / gw, (yy + 0.5) / gh
    g = light.gain * (1 + light.gradient[0] * (u - 0.5) * 2 + light.gradient[1] * (v - 0.5) * 2)
    sx, sy, sr, ss = light.spot
    g *= 1 + ss * np.exp(-((u - sx) ** 2 + ((v - sy) * h / w) ** 2) / max(sr, 1e-3) ** 2)
    r2 = ((u - 0.5) * 2) ** 2 * 0.5 + ((v - 0.5) * 2) ** 2 * 0.5
    g *= 1 - light.vignette * r2
    tint = np.array([1 - light.warmth, 1.0, 1 + light.warmth], np.float32)
    gmap = np.clip(g[..., None] * tint * 128, 0, 255).astype(np.uint8)
    return cv2.resize(gmap, (w, h), interpolation=cv2.INTER_LINEAR)
