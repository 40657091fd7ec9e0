"""The camera's lens and sensor: distortion, defocus, sharpening, uneven light, noise and
compression, applied to the renderer's undistorted canvas."""

from __future__ import annotations

import math
from functools import lru_cache

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
    if fx.aberration_px > 0.05:  # lateral chromatic aberration: red larger, blue smaller
        img = _aberration(img, fx.aberration_px)
    gain = 1 / 128
    if fx.exposure_drift > 0:  # auto exposure hunting slowly around its target
        ph = (scene.seed % 997) * 0.37
        gain *= 1 + fx.exposure_drift * (math.sin(scene.time * 1.3 + ph)
                                         + 0.5 * math.sin(scene.time * 3.1 + 2 * ph))
    img = cv2.multiply(img, gain_map(scene.lighting, cam.size), scale=gain)
    if fx.noise_sigma > 0:
        bank = noise_bank(cam.size, round(fx.chroma_noise, 2))
        dx, dy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
        tile = bank[dy : dy + cam.height, dx : dx + cam.width]
        sig = cv2.LUT(img, noise_lut(round(fx.noise_sigma, 2)))
        img = cv2.add(img, cv2.multiply(sig, tile), dtype=cv2.CV_8U)
    if fx.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img



@lru_cache(maxsize=4)
def noise_bank(size: tuple[int, int], chroma: float = 0.0) -> np.ndarray:
    """Sensor noise of unit strength a little larger than the image (float32), made once:
    fine grain shared by the channels and per channel (as demosaicing leaves it) plus
    blotchy colour noise ``chroma`` times as strong (what a camera's denoiser leaves of it)."""
    w, h = size
    rng = np.random.default_rng(12345)
    shape = (h + 64, w + 64)
    lum = cv2.GaussianBlur(rng.standard_normal(shape, np.float32), (0, 0), 0.5)
    lum /= lum.std()
    per = cv2.GaussianBlur(rng.standard_normal((*shape, 3), np.float32), (0, 0), 0.5)
    per /= per.std()
    n = 0.75 * lum[..., None] + 0.55 * per
    if chroma > 0:
        blot = cv2.GaussianBlur(rng.standard_normal((*shape, 3), np.float32), (0, 0), 1.6)
        blot -= blot.mean(axis=2, keepdims=True)  # colour only, no brightness
        n += chroma * 0.8 * blot / blot.std()
    return n.astype(np.float32)


@lru_cache(maxsize=16)
def noise_lut(sigma: float) -> np.ndarray:
    """Noise strength per 8-bit level for ``sigma`` at mid grey: shot and read noise of the
    linear signal carried through the camera's gamma, so stronger in the shadows (where read
    noise dominates) and fading toward white (clipped)."""
    v = np.arange(256, dtype=np.float64) / 255
    lin = np.maximum(v, 0.02) ** 2.2
    slope = 2.2 * np.maximum(v, 0.02) ** 1.2  # d(linear)/d(code)
    s = np.sqrt(0.004 * lin + 0.00002) / slope
    s /= s[128]
    s *= 1 - 0.85 * v**12
    return (np.clip(s, 0, 3) * sigma).astype(np.float32).reshape(256, 1)


@lru_cache(maxsize=8)
def _aberration_maps(size: tuple[int, int], px: float, sign: int
                     ) -> np.ndarray:
    w, h = size
    r = np.hypot(w / 2, h / 2)
    s = 1 + sign * px / r
    return np.float32([[s, 0, (1 - s) * (w - 1) / 2], [0, s, (1 - s) * (h - 1) / 2]])


def _aberration(img: np.ndarray, px: float) -> np.ndarray:
    """Scale the red channel up and the blue one down about the centre by ``px`` pixels at
    the corners (a lens bends colours by different amounts)."""
    h, w = img.shape[:2]
    b, g, r = cv2.split(img)
    size = (w, h)
    px = round(px, 2)
    b = cv2.warpAffine(b, _aberration_maps(size, px * 0.5, -1), size, flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    r = cv2.warpAffine(r, _aberration_maps(size, px * 0.5, 1), size, flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return cv2.merge([b, g, r])


@lru_cache(maxsize=16)
def gain_map(light: Lighting, size: tuple[int, int]) -> np.ndarray:
    """Per-pixel, per-channel light gain x128 as uint8 (uneven light, spot, vignette, tint)."""
    w, h = size
    gw, gh = 64, 36
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    u, v = (xx + 0.5) / gw, (yy + 0.5) / gh
    g = light.gain * (1 + light.gradient[0] * (u - 0.5) * 2 + light.gradient[1] * (v - 0.5) * 2)
    sx, sy, sr, ss = light.spot
    spot = ss * np.exp(-((u - sx) ** 2 + ((v - sy) * h / w) ** 2) / max(sr, 1e-3) ** 2)
    sw_ = light.spot_warmth  # the lamp's colour where its light falls
    spot_c = spot[..., None] * np.array([1 - sw_, 1.0, 1 + sw_], np.float32)
    g = g[..., None] * (1 + spot_c)
    r2 = ((u - 0.5) * 2) ** 2 * 0.5 + ((v - 0.5) * 2) ** 2 * 0.5
    g *= (1 - light.vignette * r2)[..., None]
    tint = np.array([1 - light.warmth + light.tint, 1.0 - light.tint,
                     1 + light.warmth + light.tint], np.float32)
    gmap = np.clip(g * tint * 128, 0, 255).astype(np.uint8)
    return cv2.resize(gmap, (w, h), interpolation=cv2.INTER_LINEAR)
