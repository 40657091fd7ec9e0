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

Truth comes from the same geometry: each card's corners through ``Camera.project`` (with
distortion), its visible fraction from a low-resolution id buffer drawn in the same order,
each hand's outline, the camera and the table-to-image homography.
"""

from __future__ import annotations

import logging
import math
import zlib
from dataclasses import dataclass, field
from functools import cache, lru_cache

import cv2
import numpy as np

from referee.sim.camera import Camera, table_points
from referee.sim.decks import FACE_H, FACE_W, Deck
from referee.sim.scene import CardPose, HandPose, Lighting, Scene
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
            self._hand_shadow(canvas, bg, cam, hand, light)
        areas = dict(bg.settled_area)
        for i, card in enumerate(scene.moving):
            quad = self._draw_card(canvas, bg, cam, card, scene.effects.exposure_s, light)
            areas[n_settled + i] = self._draw_id(ids, bg, quad, n_settled + i)
        hand_outlines = []
        for j, hand in enumerate(scene.hands):
            outline = self._draw_hand(canvas, ids, bg, cam, hand, HAND_ID + j,
                                      scene.effects.exposure_s, light)
            hand_outlines.append(HandTruth(hand.owner, outline))
        image = self._lens(canvas, bg, scene, rng)
        counts = np.bincount(ids[ids >= 0].ravel(), minlength=n_settled + len(scene.moving))
        cards = []
        for i, card in enumerate((*scene.settled, *scene.moving)):
            corners = card.corners()
            quad = cam.project(corners).astype(np.float32)
            area = areas.get(i, 0.0)
            vis = float(min(1.0, counts[i] / area)) if area > 0 else 0.0
            cards.append(CardTruth(card.card, _face_visible(cam, corners), quad, vis, card.tag,
                                   i >= n_settled))
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
        g = (base + gx * rx + gy * ry)[..., None]
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
        warped = warped * (0.93 * tint * (1 + 0.025 * mottle[..., None])) + 4
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
        roi = _roi(dst, canvas.shape, pad)
        if roi is None:
            return dst
        x0, y0, x1, y1 = roi
        m = cv2.getPerspectiveTransform(_FACE_SRC, quad - np.float32([x0, y0]))
        warped = cv2.warpPerspective(self._shaded(src_img, card.card), m, (x1 - x0, y1 - y0),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0, 0))
        if light.glare[3] > 0:
            warped = _glare(warped, light, cam, bg.margin, x0, y0)
        _composite(canvas[y0:y1, x0:x1], warped, blur)
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
        dirs = _shadow_offset(light)
        heights = -points[:, 2]
        on_table = points[:, :2] + heights[:, None] * dirs[None, :] + 0.25 * dirs[None, :]
        poly = cam.project_pinhole(table_points(on_table), bg.k)
        scale = _px_per_mm(cam, bg, on_table.mean(0))
        sigma = max(0.6, sigma_mm * scale)
        roi = _roi(poly, canvas.shape, int(3 * sigma) + 2)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 1.0,
                     cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        sub = canvas[y0:y1, x0:x1]
        sub[:] = (sub * (1 - strength * mask)[..., None]).astype(np.uint8)

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

    # ------------------------------------------------------------------ hands
    def _hand_shapes(self, hand: HandPose) -> tuple[list[tuple[np.ndarray, float]],
                                                     np.ndarray, np.ndarray]:
        """Hand geometry in the world: finger capsules (two points, width mm), palm polygon,
        skin forearm polygon and sleeve polygon, all as world points."""
        s = hand.scale
        a = math.radians(hand.angle)
        fwd = np.array([math.sin(a), -math.cos(a)])
        right = np.array([math.cos(a), math.sin(a)])
        mirror = -1.0 if hand.left else 1.0
        h0 = hand.height

        def w(u: float, v: float, lift: float) -> np.ndarray:
            xy = np.array([hand.x, hand.y]) + right * (u * mirror) + fwd * v
            return np.array([xy[0], xy[1], -(h0 + lift)])

        fingers = []
        for k, (u, length, width) in enumerate([(-28, 62, 17), (-9, 76, 18), (10, 72, 18),
                                                (28, 58, 16)]):
            spread = (k - 1.5) * 0.12 * hand.spread
            base = w(u * s, 38 * s, 2)
            tip = w((u + math.sin(spread) * length) * s, (38 + math.cos(spread) * length) * s,
                    -min(h0, 18))
            fingers.append((np.stack([base, tip]), width * s))
        ta = math.radians(-28 - 30 * hand.spread)
        tb = w(-36 * s, -5 * s, 4)
        tt = w((-36 + math.sin(ta) * 52) * s, (-5 + math.cos(ta) * 52) * s, -min(h0, 10))
        fingers.append((np.stack([tb, tt]), 22 * s))
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        palm = np.stack([w(42 * s * float(np.sign(np.cos(x))) * abs(np.cos(x)) ** 0.6,
                           48 * s * float(np.sign(np.sin(x))) * abs(np.sin(x)) ** 0.6, 3)
                         for x in t])
        wrist_v, elbow_v = -46 * s, -330 * s
        arm = np.stack([w(-30 * s, wrist_v, 8), w(30 * s, wrist_v, 8), w(42 * s, elbow_v, 140),
                        w(-42 * s, elbow_v, 140)])
        return fingers, palm, arm

    def _hand_polys(self, cam: Camera, bg: _Background, hand: HandPose,
                    project: bool = True) -> tuple[list[tuple[np.ndarray, float]], np.ndarray,
                                                   np.ndarray, np.ndarray]:
        fingers, palm, arm = self._hand_shapes(hand)
        cuff = 0.25 + 0.5 * ((hand.x * 7 + hand.y * 3) % 1.0)  # where the sleeve starts
        sleeve = arm.copy()
        sleeve[0] = arm[0] + (arm[3] - arm[0]) * cuff
        sleeve[1] = arm[1] + (arm[2] - arm[1]) * cuff
        sleeve[:2, :2] += (sleeve[:2, :2] - sleeve[:2, :2].mean(0)) * 0.25
        return fingers, palm, arm, sleeve

    def _draw_hand(self, canvas: np.ndarray, ids: np.ndarray, bg: _Background, cam: Camera,
                   hand: HandPose, hid: int, exposure_s: float, light: Lighting) -> np.ndarray:
        """Draw hand and forearm; return the outline in image pixels.

        Masks, shading and motion blur are computed at a third of the resolution (a hand is smooth)
        and scaled up for compositing, which keeps a large forearm cheap.
        """
        fingers, palm, arm, sleeve = self._hand_polys(cam, bg, hand)
        pts_all = np.concatenate([palm, arm, sleeve, *[f for f, _ in fingers]])
        if not cam.in_front(pts_all).all():
            return np.zeros((0, 2), np.float32)
        proj = cam.project_pinhole(pts_all, bg.k)
        blur = self._blur_vector(cam, bg, hand.x, hand.y, hand.height, hand.velocity,
                                 exposure_s)
        pad = int(abs(blur[0]) + abs(blur[1])) // 2 + 8
        roi = _roi(proj, canvas.shape, pad)
        if roi is None:
            return np.zeros((0, 2), np.float32)
        x0, y0, x1, y1 = roi
        f = 3
        off = np.array([x0, y0])
        sw, sh = (x1 - x0 + f - 1) // f, (y1 - y0 + f - 1) // f
        skin = np.zeros((sh, sw), np.uint8)
        cloth = np.zeros_like(skin)

        def small(p3: np.ndarray) -> np.ndarray:
            return (cam.project_pinhole(p3, bg.k) - off) / f

        def poly(mask: np.ndarray, p3: np.ndarray) -> None:
            cv2.fillPoly(mask, [np.round(small(p3) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)

        poly(skin, arm)
        poly(skin, palm)
        scale = _px_per_mm(cam, bg, np.array([hand.x, hand.y]), hand.height) / f
        # each finger is shaded as its own rounded body, so that fingers read apart
        finger_body = np.zeros(skin.shape, np.float32)
        segs: list[tuple[np.ndarray, np.ndarray, int]] = []
        for seg, width in fingers:
            p = small(seg)
            th = max(2, round(width / f * _px_per_mm(cam, bg, seg[:, :2].mean(0),
                                                     float(-seg[:, 2].mean()))))
            p0, p1 = tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int))
            cv2.line(skin, p0, p1, 255, th, cv2.LINE_AA)
            segs.append((p[0], p[1], th))
            # shade the finger in its own small box
            sigma = max(1.0, th / 4)
            r = th + int(3 * sigma) + 2
            bx0, by0 = max(0, min(p0[0], p1[0]) - r), max(0, min(p0[1], p1[1]) - r)
            bx1, by1 = min(sw, max(p0[0], p1[0]) + r), min(sh, max(p0[1], p1[1]) + r)
            if bx0 >= bx1 or by0 >= by1:
                continue
            one = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
            cv2.line(one, (p0[0] - bx0, p0[1] - by0), (p1[0] - bx0, p1[1] - by0), 255, th,
                     cv2.LINE_AA)
            fb = cv2.GaussianBlur(one, (0, 0), sigma).astype(np.float32) * (1.9 / 255)
            sub_fb = finger_body[by0:by1, bx0:bx1]
            np.maximum(sub_fb, fb, out=sub_fb)
        palm_mask = np.zeros_like(skin)
        poly(palm_mask, palm)
        poly(palm_mask, arm)
        poly(cloth, sleeve)
        skin = cv2.subtract(skin, cloth)
        union = cv2.max(skin, cloth)
        # rounded shading: darker toward the outline; a faint texture of skin and cloth
        body = cv2.GaussianBlur(cv2.max(palm_mask, cloth), (0, 0),
                                max(2.0, 9 * scale)).astype(np.float32) / 255
        body = np.maximum(np.clip(body * 1.7, 0, 1), np.clip(finger_body, 0, 1))
        # lit like a rounded body: a normal from the slope of the body map, lit from the lamp
        gx = cv2.Sobel(body, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(body, cv2.CV_32F, 0, 1, ksize=3)
        az = math.radians(light.light_azimuth_deg)
        el = math.radians(light.light_elevation_deg)
        lx, ly, lz = math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)
        k = 2.5
        lambert = (-gx * k * lx - gy * k * ly + lz) / np.sqrt(1 + (gx * k) ** 2 + (gy * k) ** 2)
        shade = (0.55 + 0.45 * body) * (0.55 + 0.5 * np.clip(lambert, 0, 1))
        shade *= _skin_texture(skin.shape)
        colour = np.zeros((*skin.shape, 3), np.float32)
        for mask, col in ((skin, hand.skin), (cloth, hand.sleeve)):
            colour += (mask.astype(np.float32)[..., None] / 255) * np.array(col, np.float32)
        colour *= shade[..., None]
        _finger_details(colour, segs, hand.skin)
        a = union.astype(np.float32) / 255
        premul = np.dstack([colour, a])  # colour is already premultiplied by the masks
        premul = _motion_blur(premul, (blur[0] / f, blur[1] / f))
        big = cv2.resize(premul, (sw * f, sh * f), interpolation=cv2.INTER_LINEAR)
        big = big[: y1 - y0, : x1 - x0]
        sub = canvas[y0:y1, x0:x1]
        alpha = big[:, :, 3:4]
        sub[:] = np.clip(sub * (1 - alpha) + big[:, :, :3], 0, 255).astype(np.uint8)
        # id buffer and outline
        contours, _ = cv2.findContours((union > 127).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return np.zeros((0, 2), np.float32)
        outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64) * f
        outline += off + (f - 1) / 2
        m = bg.margin
        q = (outline - m) / ID_SCALE + m / ID_SCALE
        cv2.fillPoly(ids, [np.round(q).astype(np.int32)], hid)
        pts = outline - m  # undistorted image pixels
        return (cam.distort_pixels(pts) if cam.has_distortion else pts).astype(np.float32)

    def _hand_shadow(self, canvas: np.ndarray, bg: _Background, cam: Camera, hand: HandPose,
                     light: Lighting) -> None:
        fingers, palm, arm, _ = self._hand_polys(cam, bg, hand)
        dirs = _shadow_offset(light)

        def drop(p3: np.ndarray) -> np.ndarray:
            on = p3[:, :2] + (-p3[:, 2])[:, None] * dirs[None, :]
            return cam.project_pinhole(table_points(on), bg.k)

        shapes = [drop(palm), drop(arm)]
        pts = np.concatenate([*shapes, *[drop(seg) for seg, _ in fingers]])
        sigma = max(1.5, (3 + 0.1 * hand.height) * _px_per_mm(cam, bg, np.array([hand.x,
                                                                                   hand.y])))
        roi = _roi(pts, canvas.shape, int(3 * sigma) + 20)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        off = np.array([x0, y0])
        f = 4  # hand shadows are wide and soft: draw and blur them at low resolution
        mask = np.zeros(((y1 - y0 + f - 1) // f, (x1 - x0 + f - 1) // f), np.float32)
        for p in shapes:
            cv2.fillPoly(mask, [np.round((p - off) / f * 16).astype(np.int32)], 1.0,
                         cv2.LINE_AA, 4)
        for seg, width in fingers:
            p = (drop(seg) - off) / f
            th = max(1, round(width / f * _px_per_mm(cam, bg, seg[:, :2].mean(0))))
            cv2.line(mask, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)),
                     1.0, th, cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, sigma / f))
        mask = cv2.resize(mask, (mask.shape[1] * f, mask.shape[0] * f),
                          interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
        k = light.shadow_strength * float(np.clip(1.1 - hand.height / 250, 0.4, 1.0))
        sub = canvas[y0:y1, x0:x1]
        sub[:] = (sub * (1 - k * mask)[..., None]).astype(np.uint8)

    # ------------------------------------------------------------------ lens and sensor
    def _lens(self, canvas: np.ndarray, bg: _Background, scene: Scene,
              rng: np.random.Generator) -> np.ndarray:
        cam = scene.camera
        m = bg.margin
        if bg.maps is not None:
            img = cv2.remap(canvas, bg.maps[0], bg.maps[1], cv2.INTER_LINEAR)
        else:
            img = np.ascontiguousarray(canvas[m : m + cam.height, m : m + cam.width])
        fx = scene.effects
        if fx.defocus_sigma > 0.2:
            k = 3 if fx.defocus_sigma < 0.8 else 5
            img = cv2.GaussianBlur(img, (k, k), fx.defocus_sigma)
        if fx.sharpen > 0:  # a webcam's sharpening: halos along edges
            soft = cv2.GaussianBlur(img, (0, 0), 1.5)
            img = cv2.addWeighted(img, 1 + fx.sharpen, soft, -fx.sharpen, 0)
        img = cv2.multiply(img, _gain_map(scene.lighting, cam.size), scale=1 / 128)
        if fx.noise_sigma > 0:
            bank = _noise_bank(cam.size)
            dx, dy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
            tile = bank[dy : dy + cam.height, dx : dx + cam.width]
            k = fx.noise_sigma / 16
            img = cv2.addWeighted(img, 1.0, tile, k, -128 * k)
        if fx.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img


# ---------------------------------------------------------------------- helpers


def _glare(layer: np.ndarray, light: Lighting, cam: Camera, margin: int, x0: int,
           y0: int) -> np.ndarray:
    """Brighten a glossy card layer toward white where the lamp's reflection falls."""
    gu, gv, gr, gs = light.glare
    cx, cy = margin + gu * cam.width, margin + gv * cam.height
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


@lru_cache(maxsize=4)
def _ramp() -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32)
    return (xx / FACE_W - 0.5), (yy / FACE_H - 0.5)


def _face_visible(cam: Camera, corners: np.ndarray) -> bool:
    """True when the printed face points toward the camera."""
    normal = np.cross(corners[1] - corners[0], corners[3] - corners[0])  # face normal (world)
    to_cam = cam.position - corners.mean(0)
    return bool(normal.dot(to_cam) < 0)


def _shadow_offset(light: Lighting) -> np.ndarray:
    """Table-plane shift of a shadow per mm of height (away from the light)."""
    az = math.radians(light.light_azimuth_deg)
    el = math.radians(max(light.light_elevation_deg, 10))
    return -np.array([math.cos(az), math.sin(az)]) / math.tan(el)


def _px_per_mm(cam: Camera, bg: _Background, xy: np.ndarray, height: float = 0.0) -> float:
    p = cam.project_pinhole(table_points(np.array([xy, np.asarray(xy) + [1.0, 0.0]]), height),
                            bg.k)
    return float(np.linalg.norm(p[1] - p[0]))


def _roi(points: np.ndarray, shape: tuple[int, ...], pad: int
         ) -> tuple[int, int, int, int] | None:
    x0 = max(0, int(math.floor(points[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(points[:, 1].min())) - pad)
    x1 = min(shape[1], int(math.ceil(points[:, 0].max())) + pad + 1)
    y1 = min(shape[0], int(math.ceil(points[:, 1].max())) + pad + 1)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _motion_blur(img: np.ndarray, vec: tuple[float, float]) -> np.ndarray:
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


def _composite(roi: np.ndarray, layer: np.ndarray, blur: tuple[float, float]) -> None:
    """Alpha-blend a BGRA ``layer`` onto ``roi`` in place, motion-blurred along ``blur``."""
    if math.hypot(*blur) < 1.0:
        a = layer[:, :, 3:4].astype(np.float32) * (1 / 255)
        roi[:] = (roi * (1 - a) + layer[:, :, :3] * a).astype(np.uint8)
        return
    f = layer.astype(np.float32) * (1 / 255)
    f[:, :, :3] *= f[:, :, 3:4] * 255
    f = _motion_blur(f, blur)
    roi[:] = np.clip(roi * (1 - f[:, :, 3:4]) + f[:, :, :3], 0, 255).astype(np.uint8)


def _finger_details(colour: np.ndarray, segs: list[tuple[np.ndarray, np.ndarray, int]],
                    skin: tuple[int, int, int]) -> None:
    """Nails on the back of each finger (segments: base, tip, width in px). Knuckle creases
    were tried and dropped: at the hand's reduced resolution they read as bricks."""
    nail = tuple(float(c) * 0.8 + v * 0.2 for c, v in zip(skin, (205, 210, 235), strict=True))
    for p0, p1, th in segs:
        d = p1 - p0
        length = float(np.hypot(*d))
        if length < 4 or th < 4:
            continue
        u = d / length
        c = p1 - u * th * 0.15
        axes = (max(1, round(th * 0.22)), max(1, round(th * 0.3)))
        ang = float(np.degrees(np.arctan2(u[1], u[0])))
        cv2.ellipse(colour, tuple(np.round(c).astype(int)), (axes[1], axes[0]), ang, 0, 360,
                    nail, -1, cv2.LINE_AA)


@cache
def _skin_texture_bank() -> np.ndarray:
    rng = np.random.default_rng(99)
    tex = cv2.GaussianBlur(rng.standard_normal((512, 512)).astype(np.float32), (0, 0), 2.0)
    return 1 + 0.015 * tex / tex.std()


def _skin_texture(shape: tuple[int, ...]) -> np.ndarray:
    """A faint mottled texture for skin and cloth, tiled from a fixed bank."""
    bank = _skin_texture_bank()
    h, w = shape[:2]
    reps = (h // 512 + 1, w // 512 + 1)
    return np.tile(bank, reps)[:h, :w] if reps != (1, 1) else bank[:h, :w]


@cache
def _noise_bank(size: tuple[int, int]) -> np.ndarray:
    """Gaussian noise (sigma 16 around 128) a little larger than the image, made once."""
    w, h = size
    rng = np.random.default_rng(12345)
    n = rng.standard_normal((h + 64, w + 64, 3), np.float32) * 16 + 128
    # sensor noise is slightly correlated between neighbours after demosaicing
    n = cv2.GaussianBlur(n, (0, 0), 0.5) * 1.4 - 128 * 0.4
    return np.clip(n, 0, 255).astype(np.uint8)


@lru_cache(maxsize=16)
def _gain_map(light: Lighting, size: tuple[int, int]) -> np.ndarray:
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


def render_frame(scene: Scene, deck: Deck) -> tuple[np.ndarray, FrameTruth]:
    """Render one frame of ``scene`` with ``deck`` (a fresh renderer; use :class:`Renderer`
    to draw many frames that share a background)."""
    return Renderer(deck).render(scene)
