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
from referee.sim.raster import blend_premultiplied, darken, motion_blur, px_per_mm, roi_of, shadow_offset
from referee.sim.scene import HandPose, Lighting

Capsules = list[tuple[np.ndarray, float]]


# forearm stations from the wrist to the elbow: (v along the hand, half-width, lift), mm
_ARM = [(-40, 26, 7), (-62, 27.5, 9), (-100, 33, 14), (-150, 37.5, 24), (-215, 39, 48),
        (-280, 38, 85), (-335, 36, 140)]
# fingers: (u across the hand, length, width at the base) for index, middle, ring, little
_FINGERS = [(-28, 62, 17), (-9, 76, 18), (10, 72, 18), (28, 58, 16)]


def hand_shapes(hand: HandPose) -> tuple[Capsules, np.ndarray, np.ndarray]:
    """Hand geometry in the world: finger and thumb chains (joint points from the knuckle to
    the tip, width at the base in mm), the
    palm polygon and the forearm polygon (tapering from the elbow to a narrow wrist), all as
    world points (z up is negative)."""
    s = hand.scale
    a = math.radians(hand.angle)
    fwd = np.array([math.sin(a), -math.cos(a)])
    right = np.array([math.cos(a), math.sin(a)])
    mirror = -1.0 if hand.left else 1.0
    h0 = hand.height

    def w(u: float, v: float, lift: float) -> np.ndarray:
        xy = np.array([hand.x, hand.y]) + right * (u * mirror) + fwd * v
        return np.array([xy[0], xy[1], -(h0 + lift)])

    # a relaxed hand curls its fingers a little at each joint, more when it hovers high
    curl = math.radians(6 + 14 * min(1.0, max(0.0, (h0 - 8) / 60)))

    def finger(u0: float, v0: float, lift0: float, angle: float, length: float,
               drop: float, parts: tuple[float, ...], bend: float, turn: float) -> np.ndarray:
        """Joint points from the knuckle to the tip: each phalanx pitched ``bend`` further
        down and turned ``turn`` further across than the one before it."""
        pitch = math.atan2(drop, length)
        pts = [w(u0 * s, v0 * s, lift0)]
        u, v, lift = u0, v0, lift0
        for i, part in enumerate(parts):
            seg = length * part / math.cos(pitch)
            ang = angle + turn * i
            ph = pitch + bend * i
            u += math.sin(ang) * math.cos(ph) * seg
            v += math.cos(ang) * math.cos(ph) * seg
            lift = max(lift - math.sin(ph) * seg, 0.4 - h0)
            pts.append(w(u * s, v * s, lift))
        return np.stack(pts)

    fingers = []
    for k, (u, length, width) in enumerate(_FINGERS):
        spread = (k - 1.5) * 0.12 * hand.spread
        chain = finger(u, 38, 2, spread, length, 2 + min(h0, 18), (0.45, 0.30, 0.25),
                       curl, -(k - 1.5) * 0.035)
        fingers.append((chain, width * s))
    ta = math.radians(-28 - 30 * hand.spread)
    fingers.append((finger(-36, -5, 4, ta, 52, 4 + min(h0, 10), (0.55, 0.45), curl * 0.5,
                           0.12), 22 * s))
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    palm = np.stack([w(42 * s * float(np.sign(np.cos(x))) * abs(np.cos(x)) ** 0.6,
                       48 * s * float(np.sign(np.sin(x))) * abs(np.sin(x)) ** 0.6, 3)
                     for x in t])
    side = [w(hw * s, v * s, lift) for v, hw, lift in _ARM]
    other = [w(-hw * s, v * s, lift) for v, hw, lift in _ARM]
    arm = np.stack([*other[:1], *side, *other[:0:-1]])  # wrist left, right side, back
    return fingers, palm, arm


def _sleeve(arm: np.ndarray, cuff: float) -> np.ndarray:
    """The part of the forearm polygon from ``cuff`` (0 wrist .. 1 elbow) on, a little
    wider (cloth is looser than skin)."""
    n = len(_ARM)
    right = arm[1 : n + 1]
    left = np.concatenate([arm[:1], arm[n + 1 :][::-1]])
    pos = cuff * (n - 1)
    i = min(int(pos), n - 2)
    f = pos - i
    r0 = right[i] + (right[i + 1] - right[i]) * f
    l0 = left[i] + (left[i + 1] - left[i]) * f
    rs = np.concatenate([r0[None], right[i + 1 :]])
    ls = np.concatenate([l0[None], left[i + 1 :]])
    mid = (rs + ls) / 2
    rs = mid + (rs - mid) * 1.14
    ls = mid + (ls - mid) * 1.14
    return np.concatenate([ls[:1], rs, ls[:0:-1]])


def hand_polys(hand: HandPose) -> tuple[Capsules, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`hand_shapes` plus the sleeve: the forearm from a cuff onward, a little wider."""
    fingers, palm, arm = hand_shapes(hand)
    cuff = 0.12 + 0.55 * ((hand.x * 7 + hand.y * 3) % 1.0)  # where the sleeve starts
    return fingers, palm, arm, _sleeve(arm, cuff)


def _capsule(mask: np.ndarray, p0: np.ndarray, p1: np.ndarray, r0: float, r1: float,
             value: float = 255) -> None:
    """Fill a tapered capsule (circles of radii ``r0`` at ``p0`` and ``r1`` at ``p1``)."""
    t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    pts = np.concatenate([p0 + ring * r0, p1 + ring * r1]).astype(np.float32)
    hull = cv2.convexHull(pts)
    cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), value, cv2.LINE_AA, 4)


def draw_hand(canvas: np.ndarray, ids: np.ndarray, id_scale: int, cam: Camera,
              k: np.ndarray, margin: int, hand: HandPose, hid: int,
              blur: tuple[float, float], light: Lighting) -> np.ndarray:
    """Draw hand and forearm; return the outline in image pixels.

    ``k`` and ``margin`` describe the undistorted canvas; ``ids`` is the renderer's
    visibility buffer (``id_scale`` times smaller), filled with ``hid`` under the hand;
    ``blur`` is the motion smear in canvas pixels. Masks, shading and motion blur are computed
    at a third of the resolution (a hand is smooth) and scaled up for compositing, which
    keeps a large forearm cheap.

    Shading: a height map (rounded palm, forearm and fingers, knuckle bumps, tendons on the
    back of the hand, folds in the sleeve) lit from the lamp with a soft sheen; skin is
    warmer and redder at knuckles and fingertips and in its own shade (light scattered under
    the skin), with faint joint creases and nails.
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
    scale = px_per_mm(cam, k, np.array([hand.x, hand.y]), hand.height) / f  # small px per mm
    # each finger is shaded as its own rounded body, so that fingers read apart
    finger_body = np.zeros(skin.shape, np.float32)
    detail = np.zeros(skin.shape, np.float32)  # bumps: knuckles, tendons (height)
    red = np.zeros(skin.shape, np.float32)  # where skin is redder
    crease = np.zeros(skin.shape, np.float32)
    segs: list[tuple[np.ndarray, np.ndarray, int]] = []
    wrist = small(((arm[0] + arm[1]) / 2)[None])[0]
    for j, (seg, width) in enumerate(fingers):
        p = small(seg)
        th = max(2, round(width / f * px_per_mm(cam, k, seg[:, :2].mean(0),
                                                 float(-seg[:, 2].mean()))))
        n_p = len(p) - 1
        radii = [th / 2 * (1 - (0.14 if j < 4 else 0.1) * i / n_p) for i in range(n_p + 1)]
        for i in range(n_p):
            _capsule(skin, p[i], p[i + 1], radii[i], radii[i + 1])
        segs.append((p[-2], p[-1], th))
        d = p[-1] - p[0]
        if float(np.hypot(*d)) < 2:
            continue
        # shade the finger in its own small box
        sigma = max(1.0, th / 4)
        r = th + int(3 * sigma) + 2
        bx0, by0 = max(0, int(p[:, 0].min()) - r), max(0, int(p[:, 1].min()) - r)
        bx1, by1 = min(sw, int(p[:, 0].max()) + r), min(sh, int(p[:, 1].max()) + r)
        if bx0 >= bx1 or by0 >= by1:
            continue
        b0 = np.array([bx0, by0])
        one = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        for i in range(n_p):
            _capsule(one, p[i] - b0, p[i + 1] - b0, radii[i], radii[i + 1])
        fb = cv2.GaussianBlur(one, (0, 0), sigma).astype(np.float32) * (1.9 / 255)
        sub_fb = finger_body[by0:by1, bx0:bx1]
        np.maximum(sub_fb, fb, out=sub_fb)
        # joints: knuckle bumps and redness, creases across the finger
        # (joint, bump, redness, creases): the knuckle, the middle and end joints
        joints = ([(0, 0.035, 0.0, 0), (1, 0.03, 0.15, 2), (2, 0.02, 0.12, 1)] if j < 4
                  else [(1, 0.03, 0.12, 1)])
        for jn, bump_j, red_j, n_crease in joints:
            c = p[jn]
            seg_d = p[min(jn + 1, n_p)] - p[max(jn - 1, 0)]
            u = seg_d / max(float(np.hypot(*seg_d)), 1e-6)
            nrm = np.array([-u[1], u[0]])
            rad = max(1, round(th * (0.42 if jn == 0 else 0.3)))
            ci = tuple(np.round(c * 8).astype(int))
            cv2.circle(detail, ci, rad * 8, bump_j, -1, cv2.LINE_AA, 3)
            if red_j:
                cv2.circle(red, ci, rad * 8, red_j, -1, cv2.LINE_AA, 3)
            half = nrm * th * 0.3
            for off_c in ((-0.06, 0.06) if n_crease == 2 else (0.0,) if n_crease else ()):
                cc = c + u * th * off_c
                cv2.line(crease, tuple(np.round((cc - half) * 8).astype(int)),
                         tuple(np.round((cc + half) * 8).astype(int)), 1.0, 1,
                         cv2.LINE_AA, 3)
        last = p[-1] - p[-2]
        u = last / max(float(np.hypot(*last)), 1e-6)
        tip = p[-1] - u * th * 0.15
        cv2.circle(red, tuple(np.round(tip * 8).astype(int)), max(1, round(th * 0.5)) * 8,
                   0.6, -1, cv2.LINE_AA, 3)
        if j < 4:  # a tendon from the knuckle toward the wrist
            cv2.line(detail, tuple(np.round(p[0] * 8).astype(int)),
                     tuple(np.round((p[0] + (wrist - p[0]) * 0.5) * 8).astype(int)), 0.01,
                     max(1, round(th * 0.18)), cv2.LINE_AA, 3)
    palm_mask = np.zeros_like(skin)
    poly(palm_mask, palm)
    poly(palm_mask, arm)
    poly(cloth, sleeve)
    union = cv2.max(skin, cloth)
    skin = cv2.subtract(union, cloth)  # skin is the rest, so no seam shows at the cuff
    # folds in the sleeve: bands across the forearm's axis, bent by noise
    elbow = small(((arm[len(_ARM)] + arm[len(_ARM) + 1]) / 2)[None])[0]
    axis = elbow - wrist
    alen = max(float(np.hypot(*axis)), 1.0)
    bank = skin_texture_bank()
    folds = np.zeros(skin.shape, np.float32)
    cbox = cv2.boundingRect(cloth)
    if cbox[2] > 0 and cbox[3] > 0:
        cx0, cy0, cw, ch = cbox
        k_a = 1 / alen / max(scale, 1e-3)
        ax_, ay_ = float(axis[0] * k_a), float(axis[1] * k_a)
        seed = float((hand.x * 13 + hand.y * 7) % 50.0)
        along = (np.arange(cx0, cx0 + cw, dtype=np.float32)[None, :] - float(wrist[0])) * ax_ \
            + (np.arange(cy0, cy0 + ch, dtype=np.float32)[:, None] - float(wrist[1])) * ay_ + seed
        wob = _tile(bank[1], skin.shape)[cy0 : cy0 + ch, cx0 : cx0 + cw]
        fl = np.sin((along + 9 * wob) * np.float32(2 * np.pi / 38))
        fl = fl * fl * fl * (0.5 + 0.5 * np.sin(along * np.float32(2 * np.pi / 130)))
        folds[cy0 : cy0 + ch, cx0 : cx0 + cw] = fl
    # rounded shading: darker toward the outline
    body = cv2.GaussianBlur(cv2.max(palm_mask, cloth), (0, 0),
                            max(2.0, 9 * scale)).astype(np.float32) / 255
    body = np.maximum(np.clip(body * 1.7, 0, 1), np.clip(finger_body, 0, 1))
    dsig = max(0.7, 2.2 * scale)
    folds *= cloth.astype(np.float32) * np.float32(0.12 / 255)
    height = (body + cv2.GaussianBlur(detail, (0, 0), dsig) + folds).astype(np.float32)
    # lit like a rounded body: a normal from the slope of the height map, lit from the lamp
    gx = cv2.Sobel(height, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(height, cv2.CV_32F, 0, 1, ksize=3)
    az = math.radians(light.light_azimuth_deg)
    el = math.radians(light.light_elevation_deg)
    lx, ly, lz = math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)
    bump = 1.8
    gx *= bump
    gy *= bump
    inv = 1 / cv2.sqrt(1 + gx * gx + gy * gy)
    ndl = (lz - gx * lx - gy * ly) * inv  # normal . light
    shade = (0.7 + 0.3 * body) * (0.6 + 0.45 * np.clip(ndl, 0, 1))
    shade *= _tile(bank[0], skin.shape)
    # a soft sheen: the lamp's reflection off skin (half vector toward a camera above)
    hz = lz + 1
    hn = math.sqrt(lx * lx + ly * ly + hz * hz)
    spec = np.clip((hz - gx * lx - gy * ly) * inv * (1 / hn), 0, 1)
    spec *= spec
    spec *= spec
    spec = spec * spec * spec  # ** 12
    skin_f = skin.astype(np.float32) * (1 / 255)
    redness = cv2.GaussianBlur(red, (0, 0), dsig) * 0.35 + 0.25 * (1 - body) + \
        0.15 * _tile(bank[1], skin.shape)
    rr = np.clip(redness, 0, 1)
    col = np.array(hand.skin, np.float32)
    warm = col * np.array([0.92, 0.85, 1.05], np.float32)  # BGR: pinker, less green
    # light scattered under the skin: its shade keeps more red than blue (s ** a, about)
    sm1 = shade - 1
    lit = spec * (0.16 * 255) * (0.35 + 0.65 * body)
    dark = 1 - 0.12 * cv2.GaussianBlur(crease, (0, 0), 0.6)
    # the sleeve's cuff stands off the wrist and shades the skin just under it
    occl = cv2.GaussianBlur(cloth, (0, 0), max(1.0, 4 * scale)).astype(np.float32)
    dark *= 1 - occl * np.float32(0.4 / 255)
    cshade = cloth.astype(np.float32) * (1 / 255) * shade * (0.92 + 0.08 * _tile(bank[2],
                                                                                   skin.shape))
    colour = np.empty((*skin.shape, 3), np.float32)
    for c, a_c in enumerate((1.18, 1.05, 0.82)):
        sc = shade * (1 + (a_c - 1) * sm1)
        colour[:, :, c] = ((col[c] + (warm[c] - col[c]) * rr) * sc * dark + lit) * skin_f \
            + cshade * float(hand.sleeve[c])
    finger_details(colour, segs, hand.skin)
    a = union.astype(np.float32) / 255
    if math.hypot(blur[0] / f, blur[1] / f) >= 1.0:
        premul = motion_blur(np.dstack([colour, a]), (blur[0] / f, blur[1] / f))
        colour, a = np.ascontiguousarray(premul[:, :, :3]), np.ascontiguousarray(premul[:, :, 3])
    # colour is already premultiplied by the masks
    big_c = cv2.resize(colour, (sw * f, sh * f), interpolation=cv2.INTER_LINEAR)
    big_a = cv2.resize(a, (sw * f, sh * f), interpolation=cv2.INTER_LINEAR)
    h_, w_ = y1 - y0, x1 - x0
    if big_c.shape[:2] != (h_, w_):
        big_c, big_a = np.ascontiguousarray(big_c[:h_, :w_]), np.ascontiguousarray(big_a[:h_, :w_])
    blend_premultiplied(canvas[y0:y1, x0:x1], big_c, big_a)
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
        cv2.polylines(mask, [np.round(p * 16).astype(np.int32)], False, 1.0, th, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, sigma / f))
    # contact: where a fingertip or the palm is within a few millimetres of the table, a
    # small dark shadow right under it (little light reaches there from anywhere)
    ppm = px_per_mm(cam, k, np.array([hand.x, hand.y]))
    contact = np.zeros_like(mask)
    for seg, width in fingers:
        under = (cam.project_pinhole(table_points(seg[:, :2]), k) - off) / f
        for q, z in zip(under, -seg[:, 2], strict=True):
            v = math.exp(-max(float(z), 0.0) / 5.0)
            if v > 0.05:
                cv2.circle(contact, tuple(np.round(q * 16).astype(int)),
                           max(1, round(width * 0.45 * ppm / f * 16)), v, -1, cv2.LINE_AA, 4)
    if hand.height < 20:
        under = (cam.project_pinhole(table_points(palm[:, :2]), k) - off) / f
        cv2.fillPoly(contact, [np.round(under * 16).astype(np.int32)],
                     0.8 * math.exp(-hand.height / 8.0), cv2.LINE_AA, 4)
    if contact.any():
        contact = cv2.GaussianBlur(contact, (0, 0), max(0.5, 2.5 * ppm / f))
        mask = np.maximum(mask, contact)
    mask = cv2.resize(mask, (mask.shape[1] * f, mask.shape[0] * f),
                      interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
    strength = light.shadow_strength * float(np.clip(1.1 - hand.height / 250, 0.4, 1.0))
    darken(canvas[y0:y1, x0:x1], np.ascontiguousarray(mask), strength)



def finger_details(colour: np.ndarray, segs: list[tuple[np.ndarray, np.ndarray, int]],
                    skin: tuple[int, int, int]) -> None:
    """Nails on the back of each finger (segments: base, tip, width in px): a pinkish bed
    and a paler free edge at the tip."""
    bed = tuple(float(c) * 0.78 + v * 0.22 for c, v in zip(skin, (190, 195, 235), strict=True))
    edge = tuple(float(c) * 0.5 + v * 0.5 for c, v in zip(skin, (225, 232, 240), strict=True))
    for p0, p1, th in segs:
        d = p1 - p0
        length = float(np.hypot(*d))
        if length < 4 or th < 3:
            continue
        u = d / length
        c = p1 - u * th * 0.2
        axes = (max(1, round(th * 0.24 * 8)), max(1, round(th * 0.32 * 8)))
        ang = float(np.degrees(np.arctan2(u[1], u[0])))
        cv2.ellipse(colour, tuple(np.round(c * 8).astype(int)), (axes[1], axes[0]), ang, 0, 360,
                    bed, -1, cv2.LINE_AA, 3)
        e = p1 - u * th * 0.02
        cv2.ellipse(colour, tuple(np.round(e * 8).astype(int)), (max(1, axes[1] // 3), axes[0]),
                    ang, 0, 360, edge, -1, cv2.LINE_AA, 3)


@cache
def skin_texture_bank() -> np.ndarray:
    """Three 512x512 fields around 1: skin mottle (two scales), a smooth field for
    redness and fold wobble, and a cloth weave."""
    rng = np.random.default_rng(99)
    n = rng.standard_normal((3, 512, 512)).astype(np.float32)
    fine = cv2.GaussianBlur(n[0], (0, 0), 1.0)
    coarse = cv2.GaussianBlur(n[1], (0, 0), 8.0)
    mottle = 1 + 0.018 * fine / fine.std() + 0.025 * coarse / coarse.std()
    smooth = cv2.GaussianBlur(n[1], (0, 0), 16.0)
    smooth = smooth / smooth.std() * 0.5
    weave = cv2.GaussianBlur(n[2], (0, 0), 0.7)
    weave = weave / weave.std()
    return np.stack([mottle, smooth, weave]).astype(np.float32)


def _tile(bank: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    h, w = shape[:2]
    reps = (h // 512 + 1, w // 512 + 1)
    return np.tile(bank, reps)[:h, :w] if reps != (1, 1) else bank[:h, :w]


def skin_texture(shape: tuple[int, ...]) -> np.ndarray:
    """A mottled texture for skin, tiled from a fixed bank."""
    return _tile(skin_texture_bank()[0], shape)
