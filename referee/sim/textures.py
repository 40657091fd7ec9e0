"""Procedural table surfaces: felt, wood and plain tops of varied colours, seeded.

Each texture is drawn in table millimetres at a given resolution; the renderer warps it into
the camera's view once per scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

TABLE_KINDS = ("felt", "wood", "plain", "carpet", "cloth")

_FELT = [(60, 110, 35), (90, 80, 20), (40, 40, 120), (70, 70, 70), (110, 60, 40), (40, 85, 60),
         (30, 30, 30), (130, 110, 90)]
_WOOD = [((60, 110, 170), (30, 65, 115)), ((40, 75, 120), (20, 40, 70)),
         ((120, 170, 210), (80, 125, 170)), ((50, 90, 150), (25, 50, 95)),
         ((150, 180, 200), (110, 140, 165)), ((30, 50, 80), (15, 25, 45))]
_PLAIN = [(235, 235, 232), (200, 200, 200), (45, 45, 48), (180, 200, 215), (150, 150, 140),
          (215, 225, 230), (90, 100, 110), (220, 215, 200)]
# carpets: (pile colour, fleck colour), BGR: beige, brown, grey, blue-grey, dark, striped rug
_CARPET = [((120, 150, 170), (70, 95, 115)), ((70, 100, 130), (40, 60, 85)),
           ((140, 140, 135), (90, 90, 88)), ((120, 105, 90), (75, 65, 55)),
           ((60, 60, 62), (110, 120, 125)), ((150, 175, 190), (40, 45, 50))]
# table cloths: (colour, second colour for a check or stripes)
_CLOTH = [((240, 242, 244), (240, 242, 244)), ((200, 225, 235), (200, 225, 235)),
          ((235, 235, 235), (60, 60, 190)), ((235, 235, 235), (150, 90, 40)),
          ((90, 50, 40), (90, 50, 40)), ((40, 40, 130), (40, 40, 130)),
          ((170, 200, 170), (235, 240, 240))]


@dataclass(frozen=True)
class TableStyle:
    kind: str  # felt, wood, plain (laminate), carpet or cloth
    colour: tuple[int, int, int]  # BGR base colour
    dark: tuple[int, int, int]  # BGR second colour (wood grain, carpet flecks, cloth check)
    seed: int
    plank_mm: float = 140.0  # wood: plank width; carpet: stripe width; cloth: check size
    grain_angle_deg: float = 0.0
    clutter: int = 0  # everyday objects around the mat (phones, paper, cups, pens)

    def __post_init__(self) -> None:
        if self.kind not in TABLE_KINDS:
            raise ValueError(f"table kind must be one of {TABLE_KINDS}, not {self.kind!r}")


def random_table(rng: np.random.Generator) -> TableStyle:
    kind = TABLE_KINDS[int(rng.choice(len(TABLE_KINDS), p=[0.2, 0.35, 0.15, 0.15, 0.15]))]
    jitter = rng.integers(-15, 16, 3)

    def jit(c: tuple[int, int, int]) -> tuple[int, int, int]:
        return tuple(int(np.clip(v + j, 0, 255)) for v, j in zip(c, jitter, strict=True))  # type: ignore[return-value]

    if kind == "felt":
        c = jit(_FELT[int(rng.integers(len(_FELT)))])
        d = c
    elif kind == "wood":
        c0, d0 = _WOOD[int(rng.integers(len(_WOOD)))]
        c, d = jit(c0), jit(d0)
    elif kind == "carpet":
        c0, d0 = _CARPET[int(rng.integers(len(_CARPET)))]
        c, d = jit(c0), jit(d0)
    elif kind == "cloth":
        c0, d0 = _CLOTH[int(rng.integers(len(_CLOTH)))]
        c, d = jit(c0), jit(d0)
    else:
        c = jit(_PLAIN[int(rng.integers(len(_PLAIN)))])
        d = c
    size = {"wood": (90, 220), "carpet": (40, 120), "cloth": (12, 40)}.get(kind, (90, 220))
    return TableStyle(kind, c, d, int(rng.integers(1 << 30)), float(rng.uniform(*size)),
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


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell_px: tuple[float, float]
           ) -> np.ndarray:
    """Unit-variance noise with features about ``cell_px`` (x, y) pixels long: a random grid
    of that spacing, smoothly enlarged (long streaks when x is much larger than y)."""
    h, w = shape
    gw = max(2, int(w / max(cell_px[0], 1e-3)) + 2)
    gh = max(2, int(h / max(cell_px[1], 1e-3)) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    out = cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR if min(cell_px) < 2
                     else cv2.INTER_CUBIC)
    sd = float(out.std())
    return out / sd if sd > 0 else out


def draw_table(style: TableStyle, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The table top over ``size_mm`` (width, height) as BGR uint8 at ``px_per_mm``.

    Photographic detail at the scale a camera sees it: felt with fibres and brushed nap,
    wood with planks, rings, long fibres and pores under a varnish sheen, laminate with fine
    speckle, carpet with loops of yarn and flecks, table cloths with wrinkles, creases and
    sometimes a check."""
    rng = np.random.default_rng(style.seed)
    w = max(8, round(size_mm[0] * px_per_mm))
    h = max(8, round(size_mm[1] * px_per_mm))
    base = np.array(style.colour, np.float32)
    ppm = px_per_mm
    if style.kind == "felt":
        mottle = fbm(rng, (h, w), 3, 4)
        nap = fbm(rng, (h, w), 10, 2)  # brushed patches, lighter or darker with the nap
        fibre = _noise(rng, (h, w), (0.6 * ppm, 0.3 * ppm))
        speck = _noise(rng, (h, w), (1, 1))
        shade = 1 + 0.05 * mottle + 0.06 * nap + 0.05 * fibre + 0.04 * speck
        img = base * shade[..., None]
        img *= 1 + 0.02 * rng.standard_normal((1, 1, 3)).astype(np.float32) * \
            _noise(rng, (h, w), (3 * ppm, 3 * ppm))[..., None]
    elif style.kind == "plain":  # laminate or painted top: even, a fine speckle, a sheen
        mottle = fbm(rng, (h, w), 2, 3)
        speck = _noise(rng, (h, w), (1, 1))
        fleck = np.clip(_noise(rng, (h, w), (0.8 * ppm, 0.8 * ppm)) - 2.2, 0, 1)
        img = base * (1 + 0.03 * mottle + 0.012 * speck - 0.08 * fleck)[..., None]
    elif style.kind == "carpet":
        img = _carpet(rng, style, (h, w), ppm)
    elif style.kind == "cloth":
        img = _cloth(rng, style, (h, w), ppm)
    else:
        img = _wood(rng, style, (h, w), ppm)
    return np.ascontiguousarray(np.clip(img, 0, 255).astype(np.uint8))


def _wood(rng: np.random.Generator, style: TableStyle, shape: tuple[int, int],
          px_per_mm: float) -> np.ndarray:
    h, w = shape
    vertical = abs(((style.grain_angle_deg + 45) % 180) - 45) > 45
    if vertical:  # draw with the grain along x, then turn
        h, w = w, h
    ppm = px_per_mm
    light = np.array(style.colour, np.float32)
    dark = np.array(style.dark, np.float32)
    yy = np.arange(h, dtype=np.float32)[:, None] / ppm
    xx = np.arange(w, dtype=np.float32)[None, :] / ppm
    plank_w = style.plank_mm
    plank = np.floor(yy / plank_w).astype(np.int32)
    n_planks = int(plank.max()) + 1
    offs = rng.uniform(0, 1000, n_planks).astype(np.float32)
    period = rng.uniform(2.5, 7, n_planks).astype(np.float32)
    tone = rng.uniform(-0.15, 0.15, n_planks).astype(np.float32)
    centre = rng.uniform(-0.5, 1.5, n_planks).astype(np.float32) * plank_w
    # flat-sawn figure: rings around a centre line far off in the log, swept into arches
    warp = fbm(rng, (h, w), 3, 4) * 5.0
    arch = _noise(rng, (h, w), (220 * ppm, 40 * ppm)) * 14
    dist = np.abs(yy - plank * plank_w - centre[plank]) + arch + warp
    pos = dist + 0.015 * (xx + offs[plank])
    phase = (pos / period[plank]) % 1.0
    late = np.clip((phase - 0.62) / 0.38, 0, 1) ** 1.5  # a ring: light early wood, dark band
    fibre = _noise(rng, (h, w), (25 * ppm, 0.35 * ppm))  # long fibres along the grain
    fine = _noise(rng, (h, w), (6 * ppm, 0.25 * ppm))
    pores = np.clip(_noise(rng, (h, w), (1.6 * ppm, 0.3 * ppm)) - 2.0, 0, 1)
    t = 0.45 * late + 0.18 + 0.07 * fibre + 0.05 * fine + tone[plank]
    t = np.clip(t, 0, 1)[..., None]
    img = light * (1 - t) + dark * t
    img *= (1 - 0.25 * pores)[..., None]
    # seams between planks and butt joints where one board ends
    seam = (yy % plank_w) < max(0.6, 1.2 / ppm)
    joint_x = rng.uniform(200, 1400, n_planks).astype(np.float32)
    joint = np.abs(((xx + offs[plank]) % 1600) - joint_x[plank]) < max(0.5, 1.0 / ppm)
    img = np.where((seam | joint)[..., None], dark * 0.55, img)
    # a varnish sheen: broad light and dark patches
    img *= 1 + 0.05 * fbm(rng, (h, w), 2, 3)[..., None]
    if vertical:
        img = np.ascontiguousarray(np.transpose(img, (1, 0, 2)))
    return img


def _carpet(rng: np.random.Generator, style: TableStyle, shape: tuple[int, int],
            ppm: float) -> np.ndarray:
    """Loop pile: blobs of yarn a couple of millimetres across, flecked with a second yarn,
    sometimes in broad stripes (a rug)."""
    h, w = shape
    pile = np.array(style.colour, np.float32)
    fleck = np.array(style.dark, np.float32)
    loops = _noise(rng, (h, w), (1.1 * ppm, 1.1 * ppm))
    loops = np.tanh(1.6 * loops)  # rounded loops with dark gaps between them
    fine = _noise(rng, (h, w), (1, 1))
    mix = np.clip(_noise(rng, (h, w), (1.3 * ppm, 1.3 * ppm)) - 1.1, 0, 1)
    if rng.random() < 0.35:  # a striped rug
        across = _noise(rng, (h, w), (80 * ppm, 80 * ppm)) * 2
        stripe = np.sin((np.arange(h, dtype=np.float32)[:, None] / ppm + across)
                        * (2 * np.pi / style.plank_mm))
        mix = np.clip(np.clip(stripe * 6, -1, 1) * 0.5 + 0.5 + 0.8 * loops * 0.3, 0, 1)
    img = pile * (1 - mix[..., None]) + fleck * mix[..., None]
    shade = 1 + 0.16 * loops + 0.07 * fine + 0.05 * fbm(rng, (h, w), 3, 3)
    return img * shade[..., None]


def _cloth(rng: np.random.Generator, style: TableStyle, shape: tuple[int, int],
           ppm: float) -> np.ndarray:
    """A table cloth: plain or checked, with the creases of its folding, soft wrinkles lit
    from one side and a fine weave."""
    h, w = shape
    a = np.array(style.colour, np.float32)
    b = np.array(style.dark, np.float32)
    yy = np.arange(h, dtype=np.float32)[:, None] / ppm
    xx = np.arange(w, dtype=np.float32)[None, :] / ppm
    img = np.broadcast_to(a, (h, w, 3)).astype(np.float32)
    if not np.array_equal(a, b):
        size = style.plank_mm
        cx = ((xx // size) % 2).astype(np.float32)
        cy = ((yy // size) % 2).astype(np.float32)
        check = (cx + cy) * 0.5  # gingham: 0, half or full second colour
        img = a * (1 - check[..., None]) + b * check[..., None]
    # wrinkles: a warped height field, lit by its slope
    hgt = fbm(rng, (h, w), 3, 3) + 0.5 * _noise(rng, (h, w), (120 * ppm, 25 * ppm))
    lit = cv2.Sobel(hgt, cv2.CV_32F, 1, 0, ksize=3)
    lit = lit / max(float(lit.std()), 1e-6)
    # creases from folding: thin ridges on a grid, one side lit
    fold = max(w, h) / ppm / float(rng.integers(3, 6))
    ox, oy = rng.uniform(0, fold, 2)
    dx = (xx + ox) % fold - fold / 2
    dy = (yy + oy) % fold - fold / 2
    ridge = np.tanh(dx / 3.0) * np.exp(-dx * dx / 40.0) + \
        0.7 * np.tanh(dy / 3.0) * np.exp(-dy * dy / 40.0)
    weave = _noise(rng, (h, w), (1, 1))
    shade = 1 + 0.035 * lit + 0.04 * ridge + 0.025 * weave
    return img * shade[..., None]


# --------------------------------------------------------------------------- clutter

CLUTTER_KINDS = ("phone", "paper", "cup", "pen")


def _glossy(tex: np.ndarray, poly16: np.ndarray, colour: tuple[int, int, int],
            rng: np.random.Generator) -> None:
    """Fill ``poly16`` (pixels x16) with ``colour`` and a soft band of reflected light."""
    x, y, w, h = cv2.boundingRect(poly16 // 16)
    x0, y0 = max(0, x - 1), max(0, y - 1)
    x1, y1 = min(tex.shape[1], x + w + 2), min(tex.shape[0], y + h + 2)
    if x0 >= x1 or y0 >= y1:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [poly16 - np.array([x0 * 16, y0 * 16], np.int32)], 1.0, cv2.LINE_AA, 4)
    a = float(rng.uniform(0, np.pi))
    yy, xx = np.mgrid[0 : y1 - y0, 0 : x1 - x0].astype(np.float32)
    t = (xx * np.cos(a) + yy * np.sin(a)) / max(w, h, 1)
    band = np.exp(-((t - float(rng.uniform(0.2, 0.8))) ** 2) / 0.02) * float(rng.uniform(30, 80))
    fill = np.array(colour, np.float32) + band[..., None]
    sub = tex[y0:y1, x0:x1].astype(np.float32)
    tex[y0:y1, x0:x1] = np.clip(sub * (1 - mask[..., None]) + fill * mask[..., None], 0,
                                255).astype(np.uint8)


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
        hw, hh = {"phone": (36, 74), "paper": (74, 105), "cup": (42, 42), "pen": (4.5, 70)}[kind]
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
            edge = centre + (pts - centre) * [0.97, 0.985]
            lighter = tuple(min(255, int(v * 1.25 + 12)) for v in body)
            cv2.polylines(tex, [px(edge)], True, lighter, max(1, round(0.8 * px_per_mm)),
                          cv2.LINE_AA, 4)
            if rng.random() < 0.6:  # face up: a dark glass screen with a soft reflection
                screen = centre + (pts - centre) * [0.9, 0.93]
                _glossy(tex, px(screen), (18, 18, 20), rng)
            else:  # face down: the camera bump in a corner
                bump = centre + ux * (-hw + 20) + uy * (-hh + 28)
                for d in (-7, 7):
                    c = px((bump + uy * d)[None])[0]
                    cv2.circle(tex, tuple(int(v) for v in c), round(5.5 * px_per_mm * 16),
                               (20, 20, 22), -1, cv2.LINE_AA, 4)
        elif kind == "paper":
            cv2.fillPoly(tex, [px(pts)], (236, 240, 242), cv2.LINE_AA, 4)
            ink = (95, 95, 100) if rng.random() < 0.8 else (140, 80, 40)
            thick = max(1, round(1.4 * px_per_mm))
            y = -hh + 18.0
            while y < hh - 18:  # lines of words, paragraphs now and then
                x, end_x = -hw + 14.0, hw - 14 - float(rng.uniform(0, 40) if rng.random() < 0.2
                                                       else rng.uniform(0, 6))
                while x < end_x:
                    x1 = min(end_x, x + float(rng.uniform(3, 14)))
                    seg = np.stack([centre + ux * x + uy * y, centre + ux * x1 + uy * y])
                    cv2.polylines(tex, [px(seg)], False, ink, thick, cv2.LINE_AA, 4)
                    x = x1 + 2.2
                y += 6.0 + (6.0 if rng.random() < 0.12 else 0.0)
        elif kind == "cup":
            cv2.fillPoly(tex, [px(pts)], (225, 228, 232), cv2.LINE_AA, 4)
            handle = np.stack([centre + ux * (hw - 4) - uy * 9, centre + ux * (hw + 14) - uy * 9,
                               centre + ux * (hw + 14) + uy * 9, centre + ux * (hw - 4) + uy * 9])
            cv2.fillPoly(tex, [px(handle)], (205, 208, 212), cv2.LINE_AA, 4)
            inner = centre + (pts - centre) * 0.86
            cv2.fillPoly(tex, [px(inner)], (170, 174, 180), cv2.LINE_AA, 4)  # the inner wall
            liquid = tuple(int(v) for v in rng.choice([(25, 45, 70), (30, 60, 110),
                                                       (200, 210, 215)]))
            surface = centre + (pts - centre) * 0.78 + ux * 2 + uy * 2
            cv2.fillPoly(tex, [px(surface)], liquid, cv2.LINE_AA, 4)
            cv2.polylines(tex, [px(centre + (pts - centre) * 0.93)], True, (248, 250, 252),
                          max(1, round(1.2 * px_per_mm)), cv2.LINE_AA, 4)  # the rim
        else:  # pen
            col = tuple(int(v) for v in rng.choice([(150, 60, 20), (20, 20, 160), (30, 30, 30),
                                                    (40, 150, 40)]))
            cv2.fillPoly(tex, [px(pts)], col, cv2.LINE_AA, 4)
