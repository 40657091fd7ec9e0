"""Procedurally drawn card decks: one seed, one deck design; many seeds, many designs.

What varies between designs is what a recogniser must cope with on an unseen deck: the corner
index (font, size, weight, width, position, suit below or beside the rank, two or four
corners), suit-symbol shapes, pip size and spacing, ink and paper colours, the ace and the
court-card art (simple generated figures), borders and the back pattern.

Fonts are the TrueType/OpenType files of permissively licensed Debian font packages found on
this machine (see :data:`FONT_FAMILIES`; GPL fonts are never used, so rendered images may be
committed) plus OpenCV's built-in Hershey fonts, which are always there.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from referee.sim.decks import CODES, FACE_H, FACE_W, PX_PER_MM, Deck, corner_mask

log = logging.getLogger(__name__)

S = 2  # supersampling factor while drawing
W, H = FACE_W * S, FACE_H * S
MM = PX_PER_MM * S  # drawing pixels per millimetre

#: Font folders (under /usr/share/fonts) whose licences allow committing rendered glyphs:
#: DejaVu (Bitstream Vera licence), Liberation (OFL), Lato (OFL), Carlito (OFL),
#: Caladea (Apache-2.0), Open Sans (Apache-2.0), EB Garamond (OFL).
FONT_FAMILIES = ("dejavu", "liberation", "liberation2", "lato", "crosextra", "open-sans",
                 "ebgaramond")
FONT_ROOTS = (Path("/usr/share/fonts"),)
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)

Mask = np.ndarray  # uint8, 0..255


@cache
def installed_fonts() -> tuple[str, ...]:
    """Paths of the usable font files on this machine, sorted (deterministic per machine)."""
    found: list[str] = []
    for root in FONT_ROOTS:
        for family in FONT_FAMILIES:
            for ext in ("ttf", "otf"):
                found += [str(p) for p in (root).glob(f"*/{family}/*.{ext}")]
    skip = ("Mono", "Math", "Symbol", "Initials", "Hairline", "Thin", "ExtraLight", "Light")
    return tuple(sorted(p for p in set(found) if not any(s in Path(p).name for s in skip)))


# --------------------------------------------------------------------------- text


@dataclass(frozen=True)
class FontSpec:
    path: str | None  # a TrueType file, or None for a Hershey font
    hershey: int = cv2.FONT_HERSHEY_SIMPLEX
    thickness: float = 1.0  # Hershey stroke weight, relative
    condense: float = 1.0  # horizontal scale of the glyphs
    italic: float = 0.0  # shear


def text_mask(text: str, font: FontSpec, height_px: int) -> Mask:
    """A tight mask of ``text`` whose ink is ``height_px`` tall."""
    height_px = max(height_px, 6)
    if font.path is not None:
        from PIL import Image, ImageDraw, ImageFont

        size = height_px * 2
        try:
            pil_font = ImageFont.truetype(font.path, size)
        except OSError:
            log.warning("cannot load font %s; using a Hershey font", font.path)
            return text_mask(text, FontSpec(None), height_px)
        x0, y0, x1, y1 = pil_font.getbbox(text)
        img = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
        ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, font=pil_font, fill=255)
        mask = np.asarray(img)
    else:
        scale = 4.0
        thick = max(1, round(font.thickness * scale * 2))
        (tw, th), base = cv2.getTextSize(text, font.hershey, scale, thick)
        mask = np.zeros((th + base + 2 * thick + 4, tw + 2 * thick + 4), np.uint8)
        cv2.putText(mask, text, (thick + 2, th + thick + 2), font.hershey, scale, 255, thick,
                    cv2.LINE_AA)
    ys, xs = np.nonzero(mask > 40)
    if ys.size == 0:
        return np.zeros((height_px, height_px // 2), np.uint8)
    mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = mask.shape
    new_w = max(2, round(w * height_px / h * font.condense))
    mask = cv2.resize(mask, (new_w, height_px), interpolation=cv2.INTER_AREA)
    if font.italic:
        shear = font.italic
        pad = int(abs(shear) * height_px) + 1
        m = np.float32([[1, -shear, shear * height_px if shear > 0 else 0], [0, 1, 0]])
        mask = cv2.warpAffine(mask, m, (new_w + pad, height_px))
    return mask


# --------------------------------------------------------------------------- suit symbols


@dataclass(frozen=True)
class SuitStyle:
    width: float  # width / height of the symbol
    lobe: float  # heart/spade lobe fullness
    stem: float  # spade/club stem flare
    diamond_bow: float  # inward curvature of diamond sides
    glyph_font: str | None  # draw the suits from this font's glyphs instead


SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def _heart_pts(lobe: float, n: int = 60) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - lobe * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], 1)


def suit_mask(suit: str, height_px: int, style: SuitStyle) -> Mask:
    """A tight mask of a suit symbol ``height_px`` tall, drawn upright."""
    if style.glyph_font is not None:
        return text_mask(SUIT_GLYPHS[suit], FontSpec(style.glyph_font), height_px)
    k = 4  # supersample the polygon
    hh = max(height_px, 4) * k
    ww = int(hh * style.width) + 2
    canvas = np.zeros((hh + 2, ww + 2), np.uint8)

    def fill(pts: np.ndarray) -> None:
        cv2.fillPoly(canvas, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)

    def fit(pts: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        lo, hi = pts.min(0), pts.max(0)
        p = (pts - lo) / (hi - lo)
        return np.stack([x0 + p[:, 0] * (x1 - x0), y0 + p[:, 1] * (y1 - y0)], 1)

    if suit == "H":
        fill(fit(_heart_pts(style.lobe), 1, 1, ww, hh))
    elif suit == "D":
        cx, cy = ww / 2 + 1, hh / 2 + 1
        pts = []
        corners = [(cx, 1), (ww, cy), (cx, hh), (1, cy)]
        for i in range(4):
            (ax, ay), (bx, by) = corners[i], corners[(i + 1) % 4]
            for s in np.linspace(0, 1, 12, endpoint=False):
                mx, my = ax + (bx - ax) * s, ay + (by - ay) * s
                bow = style.diamond_bow * math.sin(math.pi * s)
                pts.append((mx + (cx - mx) * bow, my + (cy - my) * bow))
        fill(np.array(pts))
    elif suit == "S":
        body = _heart_pts(style.lobe) * [1, -1]
        fill(fit(body, 1, 1, ww, hh * 0.8))
        flare = style.stem * ww * 0.22
        fill(np.array([[ww / 2 - 0.04 * ww, hh * 0.6], [ww / 2 + 0.04 * ww, hh * 0.6],
                       [ww / 2 + flare, hh], [ww / 2 - flare, hh]]))
    else:  # clubs: three balls and a stem
        r = ww * 0.235
        cx = ww / 2 + 1
        for x, y in ((cx, r + 1), (cx - 1.05 * r, hh * 0.47), (cx + 1.05 * r, hh * 0.47)):
            cv2.circle(canvas, (round(x), round(y)), round(r), 255, -1, cv2.LINE_AA)
        fill(np.array([[cx - 0.35 * r, r * 1.2], [cx + 0.35 * r, r * 1.2],
                       [cx + 0.3 * r, hh * 0.6], [cx - 0.3 * r, hh * 0.6]]))
        flare = style.stem * ww * 0.2
        fill(np.array([[cx - 0.05 * ww, hh * 0.5], [cx + 0.05 * ww, hh * 0.5],
                       [cx + flare, hh], [cx - flare, hh]]))
    small = cv2.resize(canvas, (max(2, canvas.shape[1] // k), max(2, canvas.shape[0] // k)),
                       interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(small > 20)
    return small[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


# --------------------------------------------------------------------------- compositing


def stamp(img: np.ndarray, mask: Mask, x: float, y: float, colour: tuple[int, ...],
          anchor: str = "tl") -> None:
    """Paint ``colour`` through ``mask`` onto ``img`` at (x, y) (top-left or centre anchor)."""
    h, w = mask.shape
    if anchor == "c":
        x, y = x - w / 2, y - h / 2
    x0, y0 = round(x), round(y)
    x1, y1 = x0 + w, y0 + h
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, img.shape[1]), min(y1, img.shape[0])
    if cx0 >= cx1 or cy0 >= cy1:
        return
    m = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0].astype(np.float32)[:, :, None] / 255
    roi = img[cy0:cy1, cx0:cx1]
    col = np.array(colour[: roi.shape[2]], np.float32)
    roi[:] = (roi * (1 - m) + col * m).astype(np.uint8)


def rot180(mask: Mask) -> Mask:
    return np.ascontiguousarray(mask[::-1, ::-1])


# --------------------------------------------------------------------------- design


@dataclass(frozen=True)
class Design:
    seed: int
    paper: tuple[int, int, int]
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    font: FontSpec
    rank_h_mm: float
    suit_h_ratio: float
    index_x_mm: float  # centre of the index column from the left edge
    index_y_mm: float  # top of the rank from the top edge
    index_gap_mm: float
    suit_beside: bool
    four_corners: bool
    suit: SuitStyle
    pip_h_mm: float
    pip_box: tuple[float, float, float, float]  # left, top, right, bottom in mm
    ace_h_mm: float
    border: tuple[int, int, int] | None
    border_inset_mm: float
    court_palette: tuple[tuple[int, int, int], ...]
    back_seed: int


_REDS = [(35, 30, 200), (40, 20, 180), (60, 45, 215), (30, 10, 160), (50, 40, 190), (45, 60, 225)]
_BLACKS = [(20, 20, 20), (35, 30, 25), (50, 35, 20), (10, 10, 10), (45, 45, 45)]


def make_design(seed: int) -> Design:
    """Draw one deck design from ``seed``."""
    rng = np.random.default_rng(seed)
    fonts = installed_fonts()
    if fonts and rng.random() < 0.75:
        font = FontSpec(fonts[int(rng.integers(len(fonts)))],
                        condense=float(rng.uniform(0.75, 1.2)),
                        italic=float(rng.choice([0.0, 0.0, 0.0, 0.15])))
    else:
        font = FontSpec(None, hershey=int(rng.choice(HERSHEY)),
                        thickness=float(rng.uniform(0.5, 1.6)),
                        condense=float(rng.uniform(0.7, 1.2)))
    tint = rng.uniform(0, 1)
    paper = (int(245 - 25 * tint * rng.uniform(0.5, 1)), int(248 - 10 * tint), int(250 - 3 * tint))
    suit_beside = bool(rng.random() < 0.12)
    rank_h = float(rng.uniform(5.0, 7.0) if suit_beside else rng.uniform(5.5, 12.5))
    ix = float(rng.uniform(3.5, 5.5)) + 0.3 * max(rank_h - 7.0, 0.0)
    glyph_fonts = [f for f in fonts if "DejaVuSans" in f and "Bold" in f or f.endswith(
        "DejaVuSans.ttf")]
    suit = SuitStyle(width=float(rng.uniform(0.75, 1.05)), lobe=float(rng.uniform(3.5, 6.0)),
                     stem=float(rng.uniform(0.5, 1.3)), diamond_bow=float(rng.uniform(0, 0.3)),
                     glyph_font=(glyph_fonts[int(rng.integers(len(glyph_fonts)))]
                                 if glyph_fonts and rng.random() < 0.25 else None))
    pip_h = float(rng.uniform(8.5, 12.5))
    left = max(float(rng.uniform(13, 17)), 2 * ix + 0.5 + 0.45 * pip_h)
    top = float(rng.uniform(8, 14)) + (8 if suit_beside else 0)
    border = None
    if rng.random() < 0.3:
        border = tuple(int(c) for c in rng.choice([_BLACKS[0], _REDS[0], (140, 60, 20),
                                                   (30, 120, 160)]))
    palette = tuple(tuple(int(c) for c in col) for col in [
        rng.choice(_REDS), (int(rng.uniform(120, 190)), int(rng.uniform(60, 110)), 20),
        (40, int(rng.uniform(170, 215)), int(rng.uniform(220, 250))), rng.choice(_BLACKS),
        (int(rng.uniform(60, 120)), int(rng.uniform(130, 170)), int(rng.uniform(40, 90)))])
    return Design(
        seed=seed, paper=paper, red=_REDS[int(rng.integers(len(_REDS)))],
        black=_BLACKS[int(rng.integers(len(_BLACKS)))], font=font, rank_h_mm=rank_h,
        suit_h_ratio=float(rng.uniform(0.55, 0.95)), index_x_mm=ix,
        index_y_mm=float(rng.uniform(2.5, 5.5)), index_gap_mm=float(rng.uniform(0.4, 1.8)),
        suit_beside=suit_beside, four_corners=bool(rng.random() < 0.15), suit=suit,
        pip_h_mm=pip_h,
        pip_box=(left, top, 63 - left, 88 - top), ace_h_mm=float(rng.uniform(14, 34)),
        border=border, border_inset_mm=float(rng.uniform(2.5, 5)), court_palette=palette,
        back_seed=int(rng.integers(1 << 30)))


# --------------------------------------------------------------------------- faces

_PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0), (0.5, 1)],
    3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1),
        (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _index(img: np.ndarray, d: Design, rank: str, suit: str, ink: tuple[int, int, int]) -> None:
    rank_m = text_mask(rank, d.font, round(d.rank_h_mm * MM))
    max_w = round((2 * d.index_x_mm - 1.5) * MM)
    if rank_m.shape[1] > max_w and not d.suit_beside:  # squeeze a wide "10" into the column
        rank_m = cv2.resize(rank_m, (max_w, rank_m.shape[0]), interpolation=cv2.INTER_AREA)
    suit_m = suit_mask(suit, round(d.rank_h_mm * d.suit_h_ratio * MM), d.suit)
    gap = d.index_gap_mm * MM
    top = d.index_y_mm * MM
    cx = d.index_x_mm * MM
    if d.suit_beside:
        w = rank_m.shape[1] + gap + suit_m.shape[1]
        x0 = max(cx - w / 2, 2.0 * MM)
        parts = [(rank_m, x0, top),
                 (suit_m, x0 + rank_m.shape[1] + gap,
                  top + (rank_m.shape[0] - suit_m.shape[0]) / 2)]
    else:
        parts = [(rank_m, cx - rank_m.shape[1] / 2, top),
                 (suit_m, cx - suit_m.shape[1] / 2, top + rank_m.shape[0] + gap)]
    corners = [(False, False), (True, True)]
    if d.four_corners:
        corners += [(True, False), (False, True)]
    for flip_x, flip_y in corners:
        for m, x, y in parts:
            mm = m
            xx, yy = x, y
            if flip_x:
                xx = W - x - m.shape[1]
            if flip_y:
                yy = H - y - m.shape[0]
                mm = rot180(m)
            stamp(img, mm, xx, yy, ink)


def _pips(img: np.ndarray, d: Design, n: int, suit: str, ink: tuple[int, int, int]) -> None:
    m = suit_mask(suit, round(d.pip_h_mm * MM), d.suit)
    left, t, r, b = (v * MM for v in d.pip_box)
    t += m.shape[0] / 2
    b -= m.shape[0] / 2
    for px, py in _PIPS[n]:
        x, y = left + (r - left) * px, t + (b - t) * py
        stamp(img, rot180(m) if py > 0.5 else m, x, y, ink, "c")


def _ace(img: np.ndarray, d: Design, suit: str, ink: tuple[int, int, int],
         rng: np.random.Generator) -> None:
    h = d.ace_h_mm * (1.35 if suit == "S" else 1.0)
    m = suit_mask(suit, round(h * MM), d.suit)
    if suit == "S" and rng.random() < 0.5:  # an ornate ace of spades: ring and flourishes
        h = min(h, 30.0)
        m = suit_mask(suit, round(h * MM), d.suit)
        rx, ry = min(h * 0.75, 21.0), min(h * 0.8, 30.0)
        cv2.ellipse(img, (W // 2, H // 2), (round(rx * MM), round(ry * MM)), 0, 0,
                    360, ink, max(2, round(0.6 * MM)), cv2.LINE_AA)
        for k in range(8):
            a = k * math.pi / 4
            p = (round(W / 2 + math.cos(a) * (rx + 3) * MM),
                 round(H / 2 + math.sin(a) * (ry + 3) * MM))
            cv2.circle(img, p, round(1.2 * MM), ink, -1, cv2.LINE_AA)
    stamp(img, m, W / 2, H / 2, ink, "c")


def _court(img: np.ndarray, d: Design, rank: str, suit: str, ink: tuple[int, int, int],
           rng: np.random.Generator) -> None:
    """A simple double-headed court figure inside a frame."""
    x0, t, r, b = (round(v * MM) for v in (d.pip_box[0] - 2, d.pip_box[1] - 2,
                                           d.pip_box[2] + 2, d.pip_box[3] + 2))
    pal = list(d.court_palette)
    rng.shuffle(pal)
    half = np.full((H // 2 - t, r - x0, 3), d.paper, np.uint8)
    hw, hh = half.shape[1], half.shape[0]
    skin = (int(rng.uniform(150, 200)), int(rng.uniform(185, 215)), int(rng.uniform(225, 250)))
    # body: a robe trapezoid with stripes
    body = np.array([[hw * 0.12, hh], [hw * 0.88, hh], [hw * 0.75, hh * 0.55], [hw * 0.25,
                                                                               hh * 0.55]])
    cv2.fillPoly(half, [body.astype(np.int32)], pal[0], cv2.LINE_AA)
    for k in range(int(rng.integers(2, 5))):
        y = int(hh * (0.62 + 0.09 * k))
        cv2.line(half, (int(hw * 0.2), y), (int(hw * 0.8), y), pal[1], max(2, hw // 40))
    cv2.fillPoly(half, [np.array([[hw * 0.4, hh * 0.55], [hw * 0.6, hh * 0.55], [hw * 0.5,
                                                                                hh * 0.9]],
                                 np.int32)], pal[2], cv2.LINE_AA)
    # head
    hc = (hw // 2, int(hh * 0.4))
    hr = int(hw * 0.13)
    cv2.circle(half, hc, hr, skin, -1, cv2.LINE_AA)
    cv2.circle(half, hc, hr, ink, max(1, hw // 90), cv2.LINE_AA)
    for ex in (-1, 1):
        cv2.circle(half, (hc[0] + ex * hr // 3, hc[1] - hr // 6), max(1, hr // 8), (20, 20, 20),
                   -1)
    cv2.ellipse(half, (hc[0], hc[1] + hr // 3), (hr // 3, hr // 6), 0, 0, 180, (40, 40, 150),
                max(1, hr // 10))
    if rank == "K":  # crown with points and a beard
        pts = [[hc[0] - hr, hc[1] - hr // 2]]
        for k in range(5):
            pts.append([hc[0] - hr + k * hr // 2, hc[1] - int(hr * (1.9 if k % 2 == 0 else 1.3))])
        pts.append([hc[0] + hr, hc[1] - hr // 2])
        cv2.fillPoly(half, [np.array(pts, np.int32)], pal[2], cv2.LINE_AA)
        cv2.ellipse(half, (hc[0], hc[1] + hr // 2), (hr, hr // 2), 0, 0, 180, pal[3], -1)
    elif rank == "Q":  # rounded crown and hair
        cv2.ellipse(half, (hc[0], hc[1] - hr // 2), (int(hr * 1.05), int(hr * 0.9)), 0, 180, 360,
                    pal[3], -1, cv2.LINE_AA)
        cv2.ellipse(half, (hc[0], hc[1] - hr), (hr, hr // 2), 0, 180, 360, pal[2], -1,
                    cv2.LINE_AA)
        for k in range(3):
            cv2.circle(half, (hc[0] - hr // 2 + k * hr // 2, hc[1] - int(hr * 1.45)),
                       max(2, hr // 6), pal[0], -1, cv2.LINE_AA)
    else:  # jack: a flat cap with a feather
        cv2.rectangle(half, (hc[0] - hr, hc[1] - int(hr * 1.3)), (hc[0] + hr, hc[1] - hr // 2),
                      pal[1], -1)
        cv2.ellipse(half, (hc[0] + hr, hc[1] - int(hr * 1.5)), (hr // 2, hr // 5), -30, 0, 360,
                    pal[2], -1, cv2.LINE_AA)
    # suit emblem beside the figure
    em = suit_mask(suit, int(hh * 0.22), d.suit)
    stamp(half, em, hw * 0.16, hh * 0.25, ink, "c")
    sep = max(2, round(0.4 * MM))
    img[t : H // 2, x0:r] = half
    img[H // 2 : H // 2 + hh, x0:r] = half[::-1, ::-1]
    cv2.line(img, (x0, H // 2), (r, H // 2), ink, sep // 2)
    cv2.rectangle(img, (x0, t), (r, H - t - 1), ink, sep, cv2.LINE_AA)


def draw_face(d: Design, code: str) -> np.ndarray:
    """One face of design ``d`` as BGRA at the face size."""
    rank, suit = code[:-1], code[-1]
    rng = np.random.default_rng([d.seed, CODES.index(code)])
    img = np.empty((H, W, 3), np.uint8)
    img[:] = d.paper
    ink = d.red if suit in "HD" else d.black
    if d.border is not None:
        inset = round(d.border_inset_mm * MM)
        cv2.rectangle(img, (inset, inset), (W - inset, H - inset), d.border, max(2, MM // 3),
                      cv2.LINE_AA)
    if rank == "A":
        _ace(img, d, suit, ink, rng)
    elif rank in "JQK":
        _court(img, d, rank, suit, ink, rng)
    else:
        _pips(img, d, int(rank), suit, ink)
    _index(img, d, rank, suit, ink)
    small = cv2.resize(img, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    out = cv2.cvtColor(small, cv2.COLOR_BGR2BGRA)
    out[:, :, 3] = corner_mask()
    return out


def draw_back(rng: np.random.Generator) -> np.ndarray:
    """A card back: a coloured pattern inside a white margin."""
    colours = [(40, 30, 170), (140, 60, 20), (40, 110, 30), (30, 30, 30), (110, 40, 90),
               (150, 100, 30)]
    col = colours[int(rng.integers(len(colours)))]
    paper = (240, 244, 246)
    img = np.empty((H, W, 3), np.uint8)
    img[:] = paper
    m = round(rng.uniform(2.5, 5.5) * MM)
    inner = np.empty((H - 2 * m, W - 2 * m, 3), np.uint8)
    ih, iw = inner.shape[:2]
    kind = int(rng.integers(4))
    light = tuple(int(c + (255 - c) * 0.55) for c in col)
    inner[:] = col
    yy, xx = np.mgrid[0:ih, 0:iw].astype(np.float32)
    period = rng.uniform(2.5, 6) * MM
    if kind == 0:  # diagonal lattice
        a = (np.sin((xx + yy) * np.pi / period) * np.sin((xx - yy) * np.pi / period)) > 0.3
    elif kind == 1:  # dots
        a = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)) > 0.5
    elif kind == 2:  # concentric frames
        d = np.minimum(np.minimum(xx, iw - xx), np.minimum(yy, ih - yy))
        a = (d // (period / 2)) % 2 == 0
    else:  # checker of diamonds
        a = ((xx + yy) // period + (xx - yy + 10000) // period) % 2 == 0
    inner[a] = light
    if rng.random() < 0.5:  # a central emblem
        cv2.ellipse(inner, (iw // 2, ih // 2), (iw // 4, ih // 5), 0, 0, 360, paper, -1,
                    cv2.LINE_AA)
        cv2.ellipse(inner, (iw // 2, ih // 2), (iw // 4, ih // 5), 0, 0, 360, col,
                    max(2, MM // 2), cv2.LINE_AA)
    img[m : H - m, m : W - m] = inner
    small = cv2.resize(img, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    out = cv2.cvtColor(small, cv2.COLOR_BGR2BGRA)
    out[:, :, 3] = corner_mask()
    return out


@cache
def procedural_deck(seed: int) -> Deck:
    """The deck design number ``seed`` (deterministic on one machine's set of fonts)."""
    d = make_design(seed)
    faces = {code: draw_face(d, code) for code in CODES}
    return Deck(f"procedural:{seed}", faces, draw_back(np.random.default_rng(d.back_seed)))
