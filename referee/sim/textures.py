"""Procedural table surfaces: felt, wood and plain tops of varied colours, seeded.

Each texture is drawn in table millimetres at a given resolution; the renderer warps it into
the camera's view once per scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

TABLE_KINDS = ("felt", "wood", "plain")

_FELT = [(60, 110, 35), (90, 80, 20), (40, 40, 120), (70, 70, 70), (110, 60, 40), (40, 85, 60),
         (30, 30, 30), (130, 110, 90)]
_WOOD = [((60, 110, 170), (30, 65, 115)), ((40, 75, 120), (20, 40, 70)),
         ((120, 170, 210), (80, 125, 170)), ((50, 90, 150), (25, 50, 95)),
         ((150, 180, 200), (110, 140, 165)), ((30, 50, 80), (15, 25, 45))]
_PLAIN = [(235, 235, 232), (200, 200, 200), (45, 45, 48), (180, 200, 215), (150, 150, 140),
          (215, 225, 230), (90, 100, 110), (220, 215, 200)]


@dataclass(frozen=True)
class TableStyle:
    kind: str  # felt, wood or plain
    colour: tuple[int, int, int]  # BGR base colour
    dark: tuple[int, int, int]  # BGR second colour (wood grain)
    seed: int
    plank_mm: float = 140.0
    grain_angle_deg: float = 0.0
    clutter: int = 0  # everyday objects around the mat (phones, paper, cups, pens)

    def __post_init__(self) -> None:
        if self.kind not in TABLE_KINDS:
            raise ValueError(f"table kind must be one of {TABLE_KINDS}, not {self.kind!r}")


def random_table(rng: np.random.Generator) -> TableStyle:
    kind = TABLE_KINDS[int(rng.choice(3, p=[0.3, 0.45, 0.25]))]
    jitter = rng.integers(-15, 16, 3)

    def jit(c: tuple[int, int, int]) -> tuple[int, int, int]:
        return tuple(int(np.clip(v + j, 0, 255)) for v, j in zip(c, jitter, strict=True))  # type: ignore[return-value]

    if kind == "felt":
        c = jit(_FELT[int(rng.integers(len(_FELT)))])
        d = c
    elif kind == "wood":
        c0, d0 = _WOOD[int(rng.integers(len(_WOOD)))]
        c, d = jit(c0), jit(d0)
    else:
        c = jit(_PLAIN[int(rng.integers(len(_PLAIN)))])
        d = c
    return TableStyle(kind, c, d, int(rng.integers(1 << 30)), float(rng.uniform(90, 220)),
                      float(rng.choice([0.0, 90.0]) + rng.normal(0, 3)),
                      int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.25, 0.2, 0.15, 0.1])))


def fbm(rng: np.random.Generator, shape: tuple[int, int], base_cells: int = 4,
        octaves: int = 5, persistence: float = 0.5) -> np.ndarray:
    """Smooth fractal noise in about [-1, 1], float32, from upsampled random grids."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    cells = base_cells
    for _ in range(octaves):
        gh = max(2, int(cells * h / max(h, w)) + 2)
        gw = max(2, int(cells * w / max(h, w)) + 2)
        grid = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= persistence
        cells *= 2
    return out / total


def draw_table(style: TableStyle, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The table top over ``size_mm`` (width, height) as BGR uint8 at ``px_per_mm``."""
    rng = np.random.default_rng(style.seed)
    w = max(8, round(size_mm[0] * px_per_mm))
    h = max(8, round(size_mm[1] * px_per_mm))
    base = np.array(style.colour, np.float32)
    if style.kind == "felt":
        mottle = fbm(rng, (h, w), 3, 4)
        grain = rng.standard_normal((h, w)).astype(np.float32)
        grain = cv2.GaussianBlur(grain, (0, 0), 0.6)
        shade = 1 + 0.05 * mottle[..., None] + 0.06 * grain[..., None]
        img = base * shade
    elif style.kind == "plain":
        mottle = fbm(rng, (h, w), 2, 3)
        grain = rng.standard_normal((h, w)).astype(np.float32) * 0.012
        img = base * (1 + 0.03 * mottle[..., None] + grain[..., None])
    else:
        img = _wood(rng, style, (h, w), px_per_mm)
    return np.clip(img, 0, 255).astype(np.uint8)


def _wood(rng: np.random.Generator, style: TableStyle, shape: tuple[int, int],
          px_per_mm: float) -> np.ndarray:
    h, w = shape
    vertical = abs(((style.grain_angle_deg + 45) % 180) - 45) > 45
    if vertical:  # draw with the grain along x, then turn
        h, w = w, h
    light = np.array(style.colour, np.float32)
    dark = np.array(style.dark, np.float32)
    yy = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
    xx = np.arange(w, dtype=np.float32)[None, :] / px_per_mm
    plank_w = style.plank_mm
    plank = np.floor(yy / plank_w).astype(np.int32)
    n_planks = int(plank.max()) + 1
    offs = rng.uniform(0, 1000, n_planks).astype(np.float32)
    period = rng.uniform(3, 9, n_planks).astype(np.float32)
    tone = rng.uniform(-0.12, 0.12, n_planks).astype(np.float32)
    warp = fbm(rng, (h, w), 3, 4) * 6.0
    fine = fbm(rng, (h, w), 40, 3)
    pos = yy + warp + 0.02 * (xx + offs[plank]) + 0.3 * np.sin((xx + offs[plank]) / 90.0) * 8
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * pos / period[plank])
    rings = rings**3
    t = np.clip(0.55 * rings + 0.25 * (fine + 1) / 2 + tone[plank], 0, 1)[..., None]
    img = light * (1 - t) + dark * t
    # seams between planks and a few butt joints
    seam = (yy % plank_w) < max(0.6, 1.5 / px_per_mm)
    img = np.where(seam[..., None] & np.ones((1, w, 1), bool), dark * 0.6, img)
    img *= 1 + 0.04 * fbm(rng, (h, w), 2, 2)[..., None]
    if vertical:
        img = np.ascontiguousarray(np.transpose(img, (1, 0, 2)))
    return img


# --------------------------------------------------------------------------- clutter

CLUTTER_KINDS = ("phone", "paper", "cup", "pen")


def draw_clutter(tex: np.ndarray, origin_mm: tuple[float, float], px_per_mm: float,
                 rng: np.random.Generator, count: int,
                 keep_out_mm: tuple[float, float, float, float]) -> None:
    """Lay ``count`` everyday objects (phones, sheets of paper, cups, pens) on the table
    texture in place, outside ``keep_out_mm`` (x0, y0, x1, y1: the mat and a margin)."""
    h, w = tex.shape[:2]
    ox, oy = origin_mm
    kx0, ky0, kx1, ky1 = keep_out_mm

    def px(pts_mm: np.ndarray) -> np.ndarray:
        return np.round((pts_mm - [ox, oy]) * px_per_mm * 16).astype(np.int32)

    def shape_pts(kind: str, cx: float, cy: float, ang: float) -> tuple[np.ndarray, float]:
        size = {"phone": (72, 148, 9), "paper": (148, 210, 0), "cup": (84, 84, 42),
                "pen": (9, 140, 4)}[kind]
        hw, hh, r = size[0] / 2, size[1] / 2, size[2]
        t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        if kind == "cup":
            pts = np.column_stack([np.cos(t) * hw, np.sin(t) * hh])
        else:  # rounded rectangle
            corners = [(hw - r, hh - r), (-hw + r, hh - r), (-hw + r, -hh + r), (hw - r, -hh + r)]
            pts = np.concatenate([np.column_stack([cx_ + r * np.cos(a), cy_ + r * np.sin(a)])
                                  for (cx_, cy_), a in zip(corners, np.split(t, 4), strict=True)])
        c, s = np.cos(ang), np.sin(ang)
        rot = pts @ np.array([[c, s], [-s, c]])
        return rot + [cx, cy], hw

    for _ in range(count):
        kind = CLUTTER_KINDS[int(rng.integers(len(CLUTTER_KINDS)))]
        radius = {"phone": 84, "paper": 130, "cup": 44, "pen": 72}[kind]
        for _try in range(30):
            cx = ox + rng.uniform(0, w / px_per_mm)
            cy = oy + rng.uniform(0, h / px_per_mm)
            dx = max(kx0 - cx, 0.0, cx - kx1)
            dy = max(ky0 - cy, 0.0, cy - ky1)
            if math.hypot(dx, dy) > radius + 5 and math.hypot(dx, dy) < radius + 120:
                break
        else:
            continue
        ang = float(rng.uniform(0, np.pi))
        pts, _ = shape_pts(kind, cx, cy, ang)
        ux, uy = np.array([np.cos(ang), np.sin(ang)]), np.array([-np.sin(ang), np.cos(ang)])
        centre = np.array([cx, cy])
        # soft contact shadow
        shadow = np.zeros((h, w), np.float32)
        cv2.fillPoly(shadow, [px(pts + [2, 3])], 1.0, cv2.LINE_AA, 4)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 3 * px_per_mm))
        tex[:] = (tex * (1 - 0.45 * shadow[..., None])).astype(np.uint8)
        if kind == "phone":
            body = tuple(int(v) for v in rng.choice([(25, 25, 25), (60, 60, 70), (200, 200, 205),
                                                     (40, 30, 90)]))
            cv2.fillPoly(tex, [px(pts)], body, cv2.LINE_AA, 4)
            screen = centre + (pts - centre) * [0.88, 0.88]
            cv2.fillPoly(tex, [px(screen)], (18, 18, 20), cv2.LINE_AA, 4)
        elif kind == "paper":
            cv2.fillPoly(tex, [px(pts)], (236, 240, 242), cv2.LINE_AA, 4)
            for k in range(int(rng.integers(6, 20))):  # lines of "text"
                y = -90 + k * 9
                x0 = -60.0
                x1 = x0 + float(rng.uniform(40, 120))
                seg = np.stack([centre + ux * x0 + uy * y, centre + ux * x1 + uy * y])
                cv2.polylines(tex, [px(seg)], False, (120, 120, 120),
                              max(1, round(1.5 * px_per_mm)), cv2.LINE_AA, 4)
        elif kind == "cup":
            cv2.fillPoly(tex, [px(pts)], (225, 228, 232), cv2.LINE_AA, 4)
            inner = centre + (pts - centre) * 0.8
            liquid = tuple(int(v) for v in rng.choice([(25, 45, 70), (30, 60, 110),
                                                       (200, 210, 215)]))
            cv2.fillPoly(tex, [px(inner)], liquid, cv2.LINE_AA, 4)
        else:  # pen
            col = tuple(int(v) for v in rng.choice([(150, 60, 20), (20, 20, 160), (30, 30, 30),
                                                    (40, 150, 40)]))
            cv2.fillPoly(tex, [px(pts)], col, cv2.LINE_AA, 4)
