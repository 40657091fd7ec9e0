"""Hands and forearms reaching over the table, drawn as shaded shapes, and their shadows.

A hand is built in the world from a :class:`~referee.sim.scene.HandPose`: a forearm (with a
sleeve from a cuff onward) rising toward the player, a palm, four finger capsules and a thumb,
each with its own height. It is drawn at a third of the canvas resolution (a hand is smooth):
masks, a rounded-body shading lit from the lamp, nails, a faint skin texture and motion blur,
then scaled up and composited. Its shadow is the same shapes dropped onto the table along the
light and blurred at a quarter resolution.
"""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np

from referee.sim.camera import Camera, table_points
from referee.sim.raster import motion_blur, px_per_mm, roi_of, shadow_offset
from referee.sim.scene import HandPose, Lighting

Capsules = list[tuple[np.ndarray, float]]


def hand_shapes(hand: HandPose) -> tuple[Capsules, np.ndarray, np.ndarray]:
    """Hand geometry in the world: finger and thumb capsules (two points, width in mm), the
    palm polygon and the forearm polygon, all as world points (z up is negative)."""
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


def hand_polys(hand: HandPose) -> tuple[Capsules, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`hand_shapes` plus the sleeve: the forearm from a cuff onward, a little wider."""
    fingers, palm, arm = hand_shapes(hand)
    cuff = 0.25 + 0.5 * ((hand.x * 7 + hand.y * 3) % 1.0)  # where the sleeve starts
    sleeve = arm.copy()
    sleeve[0] = arm[0] + (arm[3] - arm[0]) * cuff
    sleeve[1] = arm[1] + (arm[2] - arm[1]) * cuff
    sleeve[:2, :2] += (sleeve[:2, :2] - sleeve[:2, :2].mean(0)) * 0.25
    return fingers, palm, arm, sleeve


def draw_hand(canvas: np.ndarray, ids: np.ndarray, id_scale: int, cam: Camera,
              k: np.ndarray, margin: int, hand: HandPose, hid: int,
              blur: tuple[float, float], light: Lighting) -> np.ndarray:
    """Draw hand and forearm; return the outline in image pixels.

    ``k`` and ``margin`` describe the undistorted canvas; ``ids`` is the renderer's
    visibility buffer (``id_scale`` times smaller), filled with ``hid`` under the hand;
    ``blur`` is the motion smear in canvas pixels. Masks, shading and motion blur are computed
    at a third of the resolution (a hand is smooth) and scaled up for compositing, which
    keeps a large forearm cheap.
    """
    fingers, palm, arm, sleeve = hand_polys(hand)
    pts_all = np.concatenate([palm, arm, sleeve, *[f for f, _ in fingers]])
    if not cam.in_front(pts_all).all():
        return np.zeros((0, 2), np.float32)
    proj = cam.project_pinhole(pts_all, k)
    pad = int(abs(blur[0]) + abs(blur[1])) // 2 + 8
    roi = roi_of(proj, canvas.shape, pad)
    if roi is None:
        return np.zeros((0, 2), np.float32)
    x0, y0, x1, y1 = roi
    f = 3
    off = np.array([x0, y0])
    sw, sh = (x1 - x0 + f - 1) // f, (y1 - y0 + f - 1) // f
    skin = np.zeros((sh, sw), np.uint8)
    cloth = np.zeros_like(skin)

    def small(p3: np.ndarray) -> np.ndarray:
        return (cam.project_pinhole(p3, k) - off) / f

    def poly(mask: np.ndarray, p3: np.ndarray) -> None:
        cv2.fillPoly(mask, [np.round(small(p3) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)

    poly(skin, arm)
    poly(skin, palm)
    scale = px_per_mm(cam, k, np.array([hand.x, hand.y]), hand.height) / f
    # each finger is shaded as its own rounded body, so that fingers read apart
    finger_body = np.zeros(skin.shape, np.float32)
    segs: list[tuple[np.ndarray, np.ndarray, int]] = []
    for seg, width in fingers:
        p = small(seg)
        th = max(2, round(width / f * px_per_mm(cam, k, seg[:, :2].mean(0),
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
    bump = 2.5
    lambert = (-gx * bump * lx - gy * bump * ly + lz) / np.sqrt(
        1 + (gx * bump) ** 2 + (gy * bump) ** 2)
    shade = (0.55 + 0.45 * body) * (0.55 + 0.5 * np.clip(lambert, 0, 1))
    shade *= skin_texture(skin.shape)
    colour = np.zeros((*skin.shape, 3), np.float32)
    for mask, col in ((skin, hand.skin), (cloth, hand.sleeve)):
        colour += (mask.astype(np.float32)[..., None] / 255) * np.array(col, np.float32)
    colour *= shade[..., None]
    finger_details(colour, segs, hand.skin)
    a = union.astype(np.float32) / 255
    premul = np.dstack([colour, a])  # colour is already premultiplied by the masks
    premul = motion_blur(premul, (blur[0] / f, blur[1] / f))
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
    m = margin
    q = (outline - m) / id_scale + m / id_scale
    cv2.fillPoly(ids, [np.round(q).astype(np.int32)], hid)
    pts = outline - m  # undistorted image pixels
    return (cam.distort_pixels(pts) if cam.has_distortion else pts).astype(np.float32)


def draw_hand_shadow(canvas: np.ndarray, cam: Camera, k: np.ndarray, hand: HandPose,
                     light: Lighting) -> None:
    """Darken the table under a hand and forearm, as seen from the lamp: wide and soft."""
    fingers, palm, arm, _ = hand_polys(hand)
    dirs = shadow_offset(light)

    def drop(p3: np.ndarray) -> np.ndarray:
        on = p3[:, :2] + (-p3[:, 2])[:, None] * dirs[None, :]
        return cam.project_pinhole(table_points(on), k)

    shapes = [drop(palm), drop(arm)]
    pts = np.concatenate([*shapes, *[drop(seg) for seg, _ in fingers]])
    sigma = max(1.5, (3 + 0.1 * hand.height) * px_per_mm(cam, k, np.array([hand.x,
                                                                               hand.y])))
    roi = roi_of(pts, canvas.shape, int(3 * sigma) + 20)
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
        th = max(1, round(width / f * px_per_mm(cam, k, seg[:, :2].mean(0))))
        cv2.line(mask, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)),
                 1.0, th, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, sigma / f))
    mask = cv2.resize(mask, (mask.shape[1] * f, mask.shape[0] * f),
                      interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
    strength = light.shadow_strength * float(np.clip(1.1 - hand.height / 250, 0.4, 1.0))
    sub = canvas[y0:y1, x0:x1]
    sub[:] = (sub * (1 - strength * mask)[..., None]).astype(np.uint8)



def finger_details(colour: np.ndarray, segs: list[tuple[np.ndarray, np.ndarray, int]],
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
def skin_texture_bank() -> np.ndarray:
    rng = np.random.default_rng(99)
    tex = cv2.GaussianBlur(rng.standard_normal((512, 512)).astype(np.float32), (0, 0), 2.0)
    return 1 + 0.015 * tex / tex.std()


def skin_texture(shape: tuple[int, ...]) -> np.ndarray:
    """A faint mottled texture for skin and cloth, tiled from a fixed bank."""
    bank = skin_texture_bank()
    h, w = shape[:2]
    reps = (h // 512 + 1, w // 512 + 1)
    return np.tile(bank, reps)[:h, :w] if reps != (1, 1) else bank[:h, :w]
