"""Render one camera frame of a :class:`~referee.sim.scene.Scene` and its exact truth.

How a frame is made (all pinhole geometry first, the lens last):

1. A *background* in an undistorted canvas a little larger than the image (so that barrel
   distortion has pixels to pull in): the table texture and the mat warped onto the table
   plane, then every settled card with its contact shadow. Cached until the camera, table,
   light direction or settled cards change, which is what makes video fast.
2. Per frame, on a copy: soft shadows of moving cards and hands, the moving cards (warped
   from their small face images into their own ROI, motion-blurred along their velocity),
   and the hands and forearms.
3. The lens: remap through the camera's distortion, defocus, uneven light and vignetting,
   sensor noise, and a JPEG round trip for compression artefacts.

Modules: :mod:`hands` draws hands and their shadows, :mod:`lens` the lens and sensor,
:mod:`raster` holds the shared ROI, blur and compositing helpers; this module owns the
background, the cards and the truth.

Truth comes from the same geometry: each card's corners through ``Camera.project`` (with
distortion), its visible fraction from a low-resolution id buffer drawn in the same order,
each hand's outline, the camera and the table-to-image homography.
"""

from __future__ import annotations

import logging
import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from referee.sim.camera import Camera, table_points
from referee.sim.decks import FACE_H, FACE_W, Deck
from referee.sim.hands import draw_hand, draw_hand_shadow
from referee.sim.lens import apply_lens
from referee.sim.raster import composite, darken, px_per_mm, roi_of, shadow_offset
from referee.sim.scene import CardPose, Lighting, Scene
from referee.sim.textures import draw_clutter, draw_table, fbm

log = logging.getLogger(__name__)

ID_SCALE = 4  # the id buffer is this many times smaller than the canvas
HAND_ID = 10_000
_FACE_SRC = np.float32([[-0.5, -0.5], [FACE_W - 0.5, -0.5], [FACE_W - 0.5, FACE_H - 0.5],
                        [-0.5, FACE_H - 0.5]])


@dataclass(frozen=True)
class CardTruth:
    """One card in one frame.

    ``quad`` holds image pixels (with lens distortion) of the face's corners as printed:
    top-left, top-right, bottom-right, bottom-left, whichever side is up. ``visible`` is the
    fraction of the card inside the image and not covered by cards or hands drawn later.
    """

    card: str
    face_up: bool
    quad: np.ndarray
    visible: float
    tag: str
    moving: bool


@dataclass(frozen=True)
class HandTruth:
    owner: str
    outline: np.ndarray  # (N, 2) image pixels, the outline of hand and forearm


@dataclass(frozen=True)
class FrameTruth:
    frame_index: int
    time: float
    camera: Camera
    homography: np.ndarray  # table mm (z = 0) -> undistorted image pixels
    cards: tuple[CardTruth, ...]
    hands: tuple[HandTruth, ...]

    def visible_cards(self, min_visible: float = 0.05) -> tuple[CardTruth, ...]:
        return tuple(c for c in self.cards if c.visible >= min_visible)

    def to_dict(self, min_visible: float = 0.0) -> dict[str, object]:
        """A compact JSON-ready record: pixels to 0.01, fractions to 0.001."""
        return {
            "frame": self.frame_index, "time": self.time, "camera": self.camera.to_dict(),
            "homography": (self.homography / self.homography[2, 2]).round(9).tolist(),
            "cards": [{"card": c.card, "face_up": c.face_up, "quad": c.quad.round(2).tolist(),
                       "visible": round(c.visible, 3), "tag": c.tag, "moving": c.moving}
                      for c in self.cards if c.visible >= min_visible],
            "hands": [{"owner": h.owner, "outline": h.outline.round(1).tolist()}
                      for h in self.hands],
        }


@dataclass
class _Background:
    key: tuple[object, ...]  # what the base depends on
    margin: int
    k: np.ndarray
    base: np.ndarray  # table and mat only
    maps: tuple[np.ndarray, np.ndarray] | None
    settled: tuple[CardPose, ...] = ()
    image: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 3), np.uint8))
    ids: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int32))
    settled_area: dict[int, float] = field(default_factory=dict)


class Renderer:
    """Draws frames with one deck; keeps the background of the last scene it drew."""

    def __init__(self, deck: Deck, back_deck: Deck | None = None) -> None:
        self.deck = deck
        self.back = (back_deck or deck).back
        self._bg: _Background | None = None
        self._shade_cache: dict[tuple[int, str], np.ndarray] = {}

    # ------------------------------------------------------------------ public
    def render(self, scene: Scene) -> tuple[np.ndarray, FrameTruth]:
        """The frame (BGR uint8, camera size) and its truth. Deterministic per scene."""
        cam = scene.camera
        bg = self._background(scene)
        canvas = bg.image.copy()
        ids = bg.ids.copy()
        rng = np.random.default_rng([scene.seed, scene.frame_index, 7])
        light = scene.lighting
        n_settled = len(scene.settled)
        for card in scene.moving:
            self._card_shadow(canvas, bg, cam, card, light)
        for hand in scene.hands:
            draw_hand_shadow(canvas, cam, bg.k, hand, light)
        areas = dict(bg.settled_area)
        for i, card in enumerate(scene.moving):
            quad = self._draw_card(canvas, bg, cam, card, scene.effects.exposure_s, light)
            areas[n_settled + i] = self._draw_id(ids, bg, quad, n_settled + i)
        hand_outlines = []
        for j, hand in enumerate(scene.hands):
            blur = self._blur_vector(cam, bg, hand.x, hand.y, hand.height, hand.velocity,
                                     scene.effects.exposure_s)
            outline = draw_hand(canvas, ids, ID_SCALE, cam, bg.k, bg.margin, hand, HAND_ID + j,
                                blur, light)
            hand_outlines.append(HandTruth(hand.owner, outline))
        image = apply_lens(canvas, bg.margin, bg.maps, scene, rng)
        counts = np.bincount(ids[ids >= 0].ravel(), minlength=n_settled + len(scene.moving))
        cards = []
        for i, card in enumerate((*scene.settled, *scene.moving)):
            corners = card.corners()
            quad = cam.project(corners).astype(np.float32)
            area = areas.get(i, 0.0)
            vis = float(min(1.0, counts[i] / area)) if area > 0 else 0.0
            cards.append(CardTruth(card.card, _face_visible(cam, corners), quad, vis, card.tag,
                                   i >= n_settled and not card.at_rest))
        truth = FrameTruth(scene.frame_index, scene.time, cam, cam.homography(), tuple(cards),
                           tuple(hand_outlines))
        return image, truth

    def _shaded(self, face: np.ndarray, code: str) -> np.ndarray:
        """The face (or back) with a gentle light ramp of its own, as a card is never quite
        flat; fixed per card and deck, so a card keeps its look from frame to frame."""
        key = (id(face), code)
        cached = self._shade_cache.get(key)
        if cached is not None:
            return cached
        rng = np.random.default_rng(zlib.crc32(f"{self.deck.name} {code}".encode()))
        gx, gy = rng.normal(0, 0.05, 2)
        base = rng.uniform(0.93, 1.02)
        rx, ry = _ramp()
        # a card is never flat: a slight bow along one axis lights it unevenly; paper grain
        bow = rng.normal(0, 0.05)
        along = rx if rng.random() < 0.5 else ry
        g = base + gx * rx + gy * ry + bow * (along * along * 4 - 1 / 3) + _paper_grain()
        # the rounded edge of the card stock catches less light
        g = (g * _edge_falloff())[..., None]
        out = face.copy()
        out[:, :, :3] = np.clip(face[:, :, :3] * g, 0, 255).astype(np.uint8)
        self._shade_cache[key] = out
        return out

    # ------------------------------------------------------------------ background
    def _background(self, scene: Scene) -> _Background:
        """The background for ``scene``: table, mat and settled cards, in the canvas.

        Two levels of cache: the base (table and mat) lasts while the camera, table, mat and
        light direction do; the settled cards are redrawn on it when they change, and when
        cards were only added on top (a card came to rest) just the new ones are drawn.
        """
        light = scene.lighting
        key = (scene.camera, scene.table, scene.mat.name if scene.mat else None,
               id(scene.mat.image) if scene.mat else None,
               light.light_azimuth_deg, light.light_elevation_deg, light.shadow_strength,
               light.glare, self.deck.name)
        bg = self._bg
        if bg is None or bg.key != key:
            bg = self._base(scene, key)
            self._bg = bg
        if bg.settled == scene.settled:
            return bg
        old = bg.settled
        if len(scene.settled) >= len(old) and scene.settled[: len(old)] == old \
                and bg.image.size:
            start = len(old)
        else:
            start = 0
            bg.image = bg.base.copy()
            hc, wc = bg.base.shape[:2]
            bg.ids = np.full((hc // ID_SCALE + 1, wc // ID_SCALE + 1), -1, np.int32)
            bg.settled_area = {}
        cam = scene.camera
        for i in range(start, len(scene.settled)):
            card = scene.settled[i]
            self._card_shadow(bg.image, bg, cam, card, light)
            quad = self._draw_card(bg.image, bg, cam, card, 0.0, light)
            bg.settled_area[i] = self._draw_id(bg.ids, bg, quad, i)
        bg.settled = scene.settled
        log.debug("background: drew settled cards %d..%d", start, len(scene.settled))
        return bg

    def _base(self, scene: Scene, key: tuple[object, ...]) -> _Background:
        cam = scene.camera
        m = cam.distortion_margin()
        k = cam.K.copy()
        k[0, 2] += m
        k[1, 2] += m
        wc, hc = cam.width + 2 * m, cam.height + 2 * m
        maps = cam.remap_tables(m) if cam.has_distortion else None
        bg = _Background(key, m, k, np.zeros((hc, wc, 3), np.uint8), maps)
        hom = k @ np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.t])
        self._draw_table(bg, cam, hom, scene)
        if scene.mat is not None:
            self._draw_mat(bg, hom, scene)
        bg.image = bg.base.copy()
        bg.ids = np.full((hc // ID_SCALE + 1, wc // ID_SCALE + 1), -1, np.int32)
        return bg

    def _draw_table(self, bg: _Background, cam: Camera, hom: np.ndarray, scene: Scene) -> None:
        hc, wc = bg.base.shape[:2]
        foot = cam.table_footprint(bg.k, (wc, hc))
        centre = np.array([297.0, 210.0])
        foot = np.clip(foot, centre - 1500, centre + 1500)
        x0, y0 = foot.min(0) - 20
        x1, y1 = foot.max(0) + 20
        # texture resolution: about the image's own scale at the mat centre, capped
        p = cam.project_pinhole(table_points(np.array([centre, centre + [1, 0]])), bg.k)
        ppm = float(np.clip(np.linalg.norm(p[1] - p[0]) * 1.2, 0.5, 3.0))
        area = (x1 - x0) * (y1 - y0) * ppm * ppm
        if area > 4e6:
            ppm *= math.sqrt(4e6 / area)
        tex = draw_table(scene.table, (x1 - x0, y1 - y0), ppm)
        if scene.table.clutter:
            mat_w, mat_h = scene.mat.size_mm if scene.mat else (594.0, 420.0)
            draw_clutter(tex, (float(x0), float(y0)), ppm,
                         np.random.default_rng(scene.table.seed + 1), scene.table.clutter,
                         (0.0, 0.0, mat_w, mat_h))
        t = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]])
        cv2.warpPerspective(tex, hom @ t, (wc, hc), bg.base, cv2.INTER_LINEAR,
                            cv2.BORDER_REFLECT)

    def _draw_mat(self, bg: _Background, hom: np.ndarray, scene: Scene) -> None:
        assert scene.mat is not None
        img = scene.mat.image
        s = img.shape[1] / scene.mat.size_mm[0]
        t = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1]])
        hc, wc = bg.base.shape[:2]
        # the mat lies a little above the table and casts a thin contact shadow
        w, h = scene.mat.size_mm
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        self._soft_shadow(bg.base, bg, scene.camera, table_points(corners, 1.0), 1.5,
                          scene.lighting.shadow_strength * 0.8, scene.lighting)
        warped = cv2.warpPerspective(img, hom @ t, (wc, hc), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.full(img.shape[:2], 255, np.uint8), hom @ t, (wc, hc),
                                   flags=cv2.INTER_LINEAR)
        # printed matte paper: a touch darker than pure white, slightly mottled and tinted
        rng = np.random.default_rng(zlib.crc32(f"mat {scene.table.seed}".encode()))
        mottle = fbm(rng, (hc // 8 + 1, wc // 8 + 1), 3, 4)
        mottle = cv2.resize(mottle, (wc, hc), interpolation=cv2.INTER_LINEAR)
        tint = np.array([1.0, 1.0, 1.0]) + rng.normal(0, 0.015, 3)
        relief = _paper_relief(rng, scene, hom, (wc, hc))
        shade = (1 + 0.025 * mottle + relief).astype(np.float32)
        warped = warped * (0.93 * tint).astype(np.float32) * shade[..., None] + 4
        a = mask.astype(np.float32)[..., None] / 255
        bg.base[:] = np.clip(bg.base * (1 - a) + warped * a, 0, 255).astype(np.uint8)

    # ------------------------------------------------------------------ cards
    def _draw_card(self, canvas: np.ndarray, bg: _Background, cam: Camera, card: CardPose,
                   exposure_s: float, light: Lighting) -> np.ndarray:
        corners = card.corners()
        if not cam.in_front(corners).all():
            return np.zeros((0, 2), np.float32)
        dst = cam.project_pinhole(corners, bg.k).astype(np.float32)
        if _face_visible(cam, corners):
            src_img = self.deck.face(card.card)
            quad = dst
        else:
            src_img = self.back
            quad = dst[[1, 0, 3, 2]]
        blur = self._blur_vector(cam, bg, card.x, card.y, card.height, card.velocity, exposure_s)
        pad = int(math.ceil(abs(blur[0]) + abs(blur[1]))) // 2 + 2
        roi = roi_of(dst, canvas.shape, pad)
        if roi is None:
            return dst
        x0, y0, x1, y1 = roi
        m = cv2.getPerspectiveTransform(_FACE_SRC, quad - np.float32([x0, y0]))
        warped = cv2.warpPerspective(self._shaded(src_img, card.card), m, (x1 - x0, y1 - y0),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0, 0))
        if light.glare[3] > 0:
            warped = _glare(warped, light, cam, bg.margin, x0, y0)
        composite(canvas[y0:y1, x0:x1], warped, blur)
        return dst

    def _blur_vector(self, cam: Camera, bg: _Background, x: float, y: float, h: float,
                     velocity: tuple[float, float], exposure_s: float) -> tuple[float, float]:
        if exposure_s <= 0 or (velocity[0] == 0 and velocity[1] == 0):
            return (0.0, 0.0)
        d = (velocity[0] * exposure_s, velocity[1] * exposure_s)
        p = cam.project_pinhole(table_points(np.array([[x - d[0] / 2, y - d[1] / 2],
                                                       [x + d[0] / 2, y + d[1] / 2]]), h), bg.k)
        v = p[1] - p[0]
        return (float(v[0]), float(v[1]))

    def _card_shadow(self, canvas: np.ndarray, bg: _Background, cam: Camera, card: CardPose,
                     light: Lighting) -> None:
        corners = card.corners()
        self._soft_shadow(canvas, bg, cam, corners, 0.6 + 0.08 * card.height,
                          light.shadow_strength * (0.9 if card.height < 2 else 0.8), light)

    def _soft_shadow(self, canvas: np.ndarray, bg: _Background, cam: Camera,
                     points: np.ndarray, sigma_mm: float, strength: float,
                     light: Lighting, polys: list[np.ndarray] | None = None) -> None:
        """Darken the table under ``points`` (world, one convex polygon) seen from the light."""
        dirs = shadow_offset(light)
        heights = -points[:, 2]
        on_table = points[:, :2] + heights[:, None] * dirs[None, :] + 0.25 * dirs[None, :]
        poly = cam.project_pinhole(table_points(on_table), bg.k)
        scale = px_per_mm(cam, bg.k, on_table.mean(0))
        sigma = max(0.6, sigma_mm * scale)
        roi = roi_of(poly, canvas.shape, int(3 * sigma) + 2)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 1.0,
                     cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        darken(canvas[y0:y1, x0:x1], mask, strength)

    def _draw_id(self, ids: np.ndarray, bg: _Background, quad: np.ndarray, i: int) -> float:
        if len(quad) == 0:
            return 0.0
        m = bg.margin
        q = (quad - m) / ID_SCALE + m / ID_SCALE
        cv2.fillPoly(ids, [np.round(q * 16).astype(np.int32)], i, cv2.LINE_8, 4)
        # area inside the image part of the canvas (the id buffer counts only there)
        w = (bg.base.shape[1] - 2 * m) / ID_SCALE
        h = (bg.base.shape[0] - 2 * m) / ID_SCALE
        o = m / ID_SCALE
        rect = np.float32([[o, o], [o + w, o], [o + w, o + h], [o, o + h]])
        hull = cv2.convexHull(q.astype(np.float32))
        area, _ = cv2.intersectConvexConvex(hull, rect)
        return float(area)

# ---------------------------------------------------------------------- helpers


def _glare(layer: np.ndarray, light: Lighting, cam: Camera, margin: int, x0: int,
           y0: int) -> np.ndarray:
    """Brighten a glossy card layer toward white where the lamp's reflection falls."""
    gu, gv, gr, gs = light.glare
    cx, cy = _glare_centre(light, cam)
    cx, cy = cx + margin, cy + margin
    r2 = max(gr * cam.width, 1.0) ** 2
    h, w = layer.shape[:2]
    yy = (np.arange(y0, y0 + h, dtype=np.float32) - cy)[:, None] ** 2
    xx = (np.arange(x0, x0 + w, dtype=np.float32) - cx)[None, :] ** 2
    g = gs * np.exp(-(xx + yy) / r2)
    if float(g.max()) < 0.01:
        return layer
    out = layer.copy()
    rgb = out[:, :, :3].astype(np.float32)
    out[:, :, :3] = (rgb + (255 - rgb) * g[..., None]).astype(np.uint8)
    return out


def _paper_relief(rng: np.random.Generator, scene: Scene, hom: np.ndarray,
                  size: tuple[int, int]) -> np.ndarray:
    """Relative shading of a paper mat lying not quite flat, in canvas pixels: gentle waves
    lit from the lamp, the paper's fibres, sometimes the creases of its folding and a corner
    or two lifting off the table."""
    assert scene.mat is not None
    wc, hc = size
    light = scene.lighting
    az = math.radians(light.light_azimuth_deg)
    lx, ly = math.cos(az), math.sin(az)
    # waves: a smooth height field; its slope toward the light brightens, away darkens
    wave = fbm(rng, (hc // 16 + 2, wc // 16 + 2), 3, 3)
    gx = cv2.Sobel(wave, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(wave, cv2.CV_32F, 0, 1, ksize=3)
    lit = gx * lx + gy * ly
    lit = cv2.resize(lit / max(float(lit.std()), 1e-6), (wc, hc), interpolation=cv2.INTER_CUBIC)
    fibre = cv2.GaussianBlur(rng.standard_normal((hc, wc), np.float32), (0, 0), 0.7)
    relief = 0.02 * lit + 0.02 * fibre / max(float(fibre.std()), 1e-6)
    w, h = scene.mat.size_mm
    ridge = np.zeros((hc, wc), np.float32)
    n_folds = int(rng.choice([0, 1, 2], p=[0.45, 0.35, 0.2]))
    lines = [((w / 2, 0.0), (w / 2, h)), ((0.0, h / 2), (w, h / 2))][: n_folds]
    for a, b in lines:
        pa = cv2.perspectiveTransform(np.float64([[a, b]]), hom)[0]
        d = pa[1] - pa[0]
        nrm = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-6)
        side = 1.0 if nrm[0] * lx + nrm[1] * ly > 0 else -1.0
        for sgn in (1.0, -1.0):
            q = pa + nrm * sgn * 1.2
            cv2.line(ridge, tuple(np.round(q[0] * 8).astype(int)),
                     tuple(np.round(q[1] * 8).astype(int)), side * sgn, 2, cv2.LINE_AA, 3)
    if n_folds:
        relief += 0.05 * cv2.GaussianBlur(ridge, (0, 0), 1.0)
    # corners lifting: shading that grows toward the corner, lit or in shade
    for cx, cy in ((0, 0), (w, 0), (w, h), (0, h)):
        if rng.random() < 0.6:
            continue
        r_mm = float(rng.uniform(25, 60))
        amount = float(rng.uniform(-0.08, 0.06))
        c = cv2.perspectiveTransform(np.float64([[[cx, cy], [cx + r_mm, cy]]]), hom)[0]
        r = float(np.hypot(*(c[1] - c[0])))
        x0, y0 = int(max(0, c[0][0] - r)), int(max(0, c[0][1] - r))
        x1, y1 = int(min(wc, c[0][0] + r + 1)), int(min(hc, c[0][1] + r + 1))
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        dist = np.sqrt((xx - c[0][0]) ** 2 + (yy - c[0][1]) ** 2) / max(r, 1.0)
        relief[y0:y1, x0:x1] += amount * np.clip(1 - dist, 0, 1) ** 2
    return relief


@lru_cache(maxsize=64)
def _glare_centre(light: Lighting, cam: Camera) -> tuple[float, float]:
    """Image pixels (undistorted) of the lamp's reflection in the table plane: the lamp
    stands ``lamp_height_mm`` above the mat centre's level in the light's direction, and the
    camera sees its mirror image through the table; without a height, glare's u, v."""
    gu, gv = light.glare[:2]
    if light.lamp_height_mm <= 0:
        return gu * cam.width, gv * cam.height
    h = light.lamp_height_mm
    az = math.radians(light.light_azimuth_deg)
    el = math.radians(max(light.light_elevation_deg, 10))
    reach = h / math.tan(el)
    mirror = np.array([297.0 + math.cos(az) * reach, 210.0 + math.sin(az) * reach, h])
    c = cam.position
    s = -c[2] / (mirror[2] - c[2])
    p = c + (mirror - c) * s
    uv = cam.project_pinhole(p[None])[0]
    return float(uv[0]), float(uv[1])


@lru_cache(maxsize=4)
def _ramp() -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32)
    return (xx / FACE_W - 0.5), (yy / FACE_H - 0.5)


@lru_cache(maxsize=1)
def _paper_grain() -> np.ndarray:
    rng = np.random.default_rng(5)
    n = cv2.GaussianBlur(rng.standard_normal((FACE_H, FACE_W)).astype(np.float32), (0, 0), 0.8)
    return 0.012 * n / n.std()


@lru_cache(maxsize=1)
def _edge_falloff() -> np.ndarray:
    """1 inside the card, falling to about 0.85 over the outermost half millimetre."""
    inner = np.zeros((FACE_H, FACE_W), np.uint8)
    cv2.rectangle(inner, (2, 2), (FACE_W - 3, FACE_H - 3), 255, -1)
    inner = cv2.GaussianBlur(inner, (0, 0), 1.2).astype(np.float32) / 255
    return 0.85 + 0.15 * inner


def _face_visible(cam: Camera, corners: np.ndarray) -> bool:
    """True when the printed face points toward the camera."""
    a = (corners[1] - corners[0]).tolist()
    b = (corners[3] - corners[0]).tolist()
    normal = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    to_cam = (cam.position - corners.mean(0)).tolist()  # face normal (world) . toward camera
    return normal[0] * to_cam[0] + normal[1] * to_cam[1] + normal[2] * to_cam[2] < 0


def render_frame(scene: Scene, deck: Deck) -> tuple[np.ndarray, FrameTruth]:
    """Render one frame of ``scene`` with ``deck`` (a fresh renderer; use :class:`Renderer`
    to draw many frames that share a background)."""
    return Renderer(deck).render(scene)
