"""What is on the table in one frame: a plain description the renderer draws.

All positions are table millimetres in the mat frame (origin at the mat's top-left corner,
x right, y toward player A); heights are millimetres above the table; angles are degrees of
rotation about the vertical, positive turning +x toward +y (clockwise on the mat as printed).
A card at angle 0 reads upright for player A; at 180 for player B.

``settled`` cards are drawn into a cached background (they must not change between frames
that share a background); ``moving`` cards and ``hands`` are drawn every frame, in order. A
card that lies still on a card still sliding beneath it is one of the ``moving`` cards (so
that it is drawn over it) with ``at_rest`` set (its truth says it is not moving).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from referee.sim.camera import Camera, random_camera
from referee.sim.decks import CARD_H_MM, CARD_W_MM
from referee.sim.textures import TableStyle, random_table

CARD_THICKNESS_MM = 0.30


@dataclass(frozen=True)
class CardPose:
    """One card: its identity, where it lies and which side is up.

    ``height`` is that of the card's lowest corner above the table. ``flip_deg`` turns the
    card about its own long axis (a card being turned over: 0 flat, 90 on its edge, 180 the
    other side up) on top of ``face_up``; ``pitch_deg`` tilts it about its short axis (a card
    lifted by one end). ``at_rest``: a card that lies still although it is drawn with the
    moving cards (a card beneath it is still sliding); its truth says it is not moving.
    """

    card: str
    x: float
    y: float
    angle: float = 0.0
    height: float = 0.0
    face_up: bool = True
    flip_deg: float = 0.0
    velocity: tuple[float, float] = (0.0, 0.0)  # mm/s on the table plane, for motion blur
    tag: str = ""  # where it belongs, e.g. "A.stock3"
    pitch_deg: float = 0.0
    at_rest: bool = False

    def corners(self) -> np.ndarray:
        """World points ``(4, 3)`` of the face's corners: top-left, top-right, bottom-right,
        bottom-left of the face as printed.

        The card turns rigidly (``flip_deg`` about its long axis, then ``pitch_deg`` about its
        short axis, lifting the printed bottom edge) and rests on its lowest corner at
        ``height``: a card being turned over pivots on the edge that stays down.
        """
        w, h = CARD_W_MM / 2, CARD_H_MM / 2
        u = np.array([-w, w, w, -w])
        v = np.array([-h, -h, h, h])
        phi = math.radians(self.flip_deg + (0.0 if self.face_up else 180.0))
        theta = math.radians(self.pitch_deg)
        z = u * math.sin(phi)
        u = u * math.cos(phi)
        v, z = v * math.cos(theta) - z * math.sin(theta), v * math.sin(theta) + z * math.cos(theta)
        z = z - z.min()
        a = math.radians(self.angle)
        x = self.x + u * math.cos(a) - v * math.sin(a)
        y = self.y + u * math.sin(a) + v * math.cos(a)
        return np.column_stack([x, y, -(self.height + z)])


@dataclass(frozen=True)
class HandPose:
    """A hand reaching in from its owner's side of the table.

    ``x, y`` is the middle of the palm, ``angle`` the direction the fingers point (degrees, 0
    toward -y, i.e. player A's hand reaching across the table; 180 for B), ``height`` the
    palm's height above the table. ``spread`` opens the fingers (0 together, 1 wide).
    """

    x: float
    y: float
    angle: float = 0.0
    height: float = 30.0
    spread: float = 0.3
    skin: tuple[int, int, int] = (140, 170, 215)
    sleeve: tuple[int, int, int] = (90, 60, 40)
    scale: float = 1.0
    left: bool = False
    velocity: tuple[float, float] = (0.0, 0.0)
    owner: str = "A"


@dataclass(frozen=True)
class Lighting:
    """Light on the table. ``gain`` scales everything; the gradient and spot make it uneven."""

    gain: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)  # relative change across the image, x and y
    spot: tuple[float, float, float, float] = (0.5, 0.5, 0.6, 0.0)  # cx, cy, radius, strength
    vignette: float = 0.2
    warmth: float = 0.0  # >0 warmer (more red), <0 cooler
    light_azimuth_deg: float = 30.0  # where the main light comes from, on the table plane
    light_elevation_deg: float = 60.0
    shadow_strength: float = 0.45
    glare: tuple[float, float, float, float] = (0.5, 0.3, 0.1, 0.0)  # u, v, radius, strength
    # (image fractions) of the lamp's reflection on glossy cards
    tint: float = 0.0  # white balance off along green (<0) to magenta (>0), as cameras err
    spot_warmth: float = 0.0  # the spot's own colour against the room light (>0 a warm lamp)
    lamp_height_mm: float = 0.0  # > 0: the glare sits where the lamp (this high, in the light's
    # direction) is mirrored by the table, so it agrees with the shadows; 0: at glare's u, v


def blend_lighting(a: Lighting, b: Lighting, t: float) -> Lighting:
    """Lighting a fraction ``t`` of the way from ``a`` to ``b`` (a lamp switched on, a cloud,
    someone standing up): every number interpolated linearly."""

    def mix(x: object, y: object) -> object:
        if isinstance(x, tuple):
            return tuple(mix(p, q) for p, q in zip(x, y, strict=True))  # type: ignore[arg-type]
        return float(x) + (float(y) - float(x)) * t  # type: ignore[arg-type]

    return Lighting(**{f: mix(getattr(a, f), getattr(b, f))
                       for f in a.__dataclass_fields__})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Effects:
    noise_sigma: float = 3.0  # sensor noise, grey levels
    exposure_s: float = 1 / 60  # for motion blur
    defocus_sigma: float = 0.6  # pixels
    jpeg_quality: int | None = 80  # compression artefacts; None for none
    sharpen: float = 0.0  # unsharp-mask amount, as webcams do (0 for none)
    chroma_noise: float = 0.0  # blotchy colour noise, relative to noise_sigma
    exposure_drift: float = 0.0  # auto exposure hunting: relative gain swing over seconds
    aberration_px: float = 0.0  # lateral chromatic aberration at the image corner, pixels


@dataclass(frozen=True)
class MatArt:
    """The printed mat: its top-down image and size; it lies at the world origin."""

    image: np.ndarray = field(compare=False, hash=False, repr=False)
    size_mm: tuple[float, float] = (594.0, 420.0)
    name: str = "default"


@dataclass(frozen=True)
class Scene:
    camera: Camera
    table: TableStyle
    lighting: Lighting = Lighting()
    effects: Effects = Effects()
    mat: MatArt | None = None
    settled: tuple[CardPose, ...] = ()
    moving: tuple[CardPose, ...] = ()
    hands: tuple[HandPose, ...] = ()
    time: float = 0.0
    frame_index: int = 0
    seed: int = 0


# --------------------------------------------------------------------------- builders


def stack(cards: Sequence[str], x: float, y: float, angle: float, rng: np.random.Generator,
          top_face_up: bool = True, jitter_mm: float = 1.2, jitter_deg: float = 2.0,
          tag: str = "") -> list[CardPose]:
    """A pile of ``cards`` (bottom first): each a card thickness higher, a little askew."""
    out = []
    for i, code in enumerate(cards):
        top = i == len(cards) - 1
        out.append(CardPose(code, x + float(rng.normal(0, jitter_mm)),
                            y + float(rng.normal(0, jitter_mm)),
                            angle + float(rng.normal(0, jitter_deg)),
                            height=(i + 0.5) * CARD_THICKNESS_MM,
                            face_up=top_face_up and top, tag=tag))
    return out


SKIN_TONES = [(150, 178, 222), (140, 170, 215), (110, 145, 195), (80, 115, 165), (55, 80, 125),
              (40, 60, 95), (150, 180, 225)]
SLEEVES = [(90, 60, 40), (40, 40, 40), (200, 200, 200), (50, 50, 150), (120, 90, 60),
           (60, 120, 60), (150, 100, 170), (30, 60, 110), (230, 230, 230)]

#: Where the zones of the default mat are (from calibration/default-mat.yaml), used when the
#: mat layout module is unavailable.
DEFAULT_ZONES: dict[str, tuple[float, float, float]] = {
    **{f"A.stock{i + 1}": (121 + 88 * i, 359, 0) for i in range(5)},
    **{f"B.stock{i + 1}": (473 - 88 * i, 61, 180) for i in range(5)},
    "A.packet": (464, 250, 0), "B.packet": (130, 170, 180),
    "pile1": (229, 210, 0), "pile2": (365, 210, 0),
}


def random_lighting(rng: np.random.Generator) -> Lighting:
    return Lighting(
        gain=float(rng.uniform(0.75, 1.15)),
        gradient=(float(rng.normal(0, 0.12)), float(rng.normal(0, 0.12))),
        spot=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)),
              float(rng.uniform(0.3, 0.8)), float(rng.uniform(0, 0.3))),
        vignette=float(rng.uniform(0.05, 0.35)), warmth=float(rng.normal(0.03, 0.07)),
        light_azimuth_deg=float(rng.uniform(0, 360)),
        light_elevation_deg=float(rng.uniform(45, 80)),
        shadow_strength=float(rng.uniform(0.25, 0.6)),
        glare=(float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)),
               float(rng.uniform(0.05, 0.2)), float(rng.choice([0.0, rng.uniform(0.15, 0.5)]))),
        tint=float(rng.normal(0, 0.025)), spot_warmth=float(rng.normal(0.05, 0.08)),
        lamp_height_mm=float(rng.uniform(900, 2000)))


def random_effects(rng: np.random.Generator) -> Effects:
    return Effects(noise_sigma=float(rng.uniform(1.0, 5.0)),
                   exposure_s=float(rng.choice([1 / 30, 1 / 60, 1 / 120, 1 / 250],
                                               p=[0.2, 0.4, 0.25, 0.15])),
                   defocus_sigma=float(rng.uniform(0.3, 1.0)),
                   jpeg_quality=int(rng.integers(55, 92)),
                   sharpen=float(rng.choice([0.0, rng.uniform(0.2, 0.8)])),
                   chroma_noise=float(rng.uniform(0.3, 1.2)),
                   exposure_drift=float(rng.choice([0.0, rng.uniform(0.005, 0.03)])),
                   aberration_px=float(rng.choice([0.0, rng.uniform(0.3, 1.2)])))


def random_hand(rng: np.random.Generator, owner: str, target: tuple[float, float],
                height: float | None = None) -> HandPose:
    """A hand of player ``owner`` reaching toward ``target`` (table mm)."""
    base = 0.0 if owner == "A" else 180.0
    return HandPose(x=target[0] + float(rng.normal(0, 10)), y=target[1] + float(rng.normal(0, 10)),
                    angle=base + float(rng.normal(0, 18)),
                    height=float(rng.uniform(5, 60)) if height is None else height,
                    spread=float(rng.uniform(0, 0.8)),
                    skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
                    sleeve=SLEEVES[int(rng.integers(len(SLEEVES)))],
                    scale=float(rng.uniform(0.9, 1.1)), left=bool(rng.random() < 0.3),
                    owner=owner)


def random_layout(rng: np.random.Generator, zones: dict[str, tuple[float, float, float]]
                  | None = None) -> list[CardPose]:
    """A mid-game Spit table: stock piles of varied height, spit packets, two spit piles."""
    from referee.sim.decks import CODES

    zones = zones or DEFAULT_ZONES
    order = list(rng.permutation(CODES))
    out: list[CardPose] = []

    def take(n: int) -> list[str]:
        nonlocal order
        taken, order = order[:n], order[n:]
        return [str(c) for c in taken]

    for who in "AB":
        for i in range(5):
            x, y, a = zones[f"{who}.stock{i + 1}"]
            n = int(rng.integers(0, i + 2))
            if n:
                out += stack(take(n), x, y, a, rng, tag=f"{who}.stock{i + 1}")
        x, y, a = zones[f"{who}.packet"]
        n = int(rng.integers(0, 12))
        if n:
            out += stack(take(n), x, y, a, rng, top_face_up=False, jitter_mm=0.6,
                         tag=f"{who}.packet")
    for pile in ("pile1", "pile2"):
        x, y, _ = zones[pile]
        n = int(rng.integers(1, 9))
        out += stack(take(n), x, y, 0.0, rng, jitter_mm=5, jitter_deg=15, tag=pile)
    return out


def random_scene(seed: int, size: tuple[int, int] = (1280, 720), mat: MatArt | None = None,
                 zones: dict[str, tuple[float, float, float]] | None = None,
                 moving_cards: int = 1, hands: int = 1) -> Scene:
    """A random mid-game frame: table, camera, light, a layout, a card in the air, hands."""
    rng = np.random.default_rng(seed)
    zones = zones or DEFAULT_ZONES
    settled = random_layout(rng, zones)
    used = {c.card for c in settled}
    from referee.sim.decks import CODES

    free = [c for c in CODES if c not in used]
    moving: list[CardPose] = []
    hand_list: list[HandPose] = []
    for i in range(min(moving_cards, len(free))):
        owner = "AB"[i % 2]
        tx, ty, _ = zones[f"pile{1 + int(rng.integers(2))}"]
        frac = float(rng.uniform(0.2, 0.9))
        sy = 359 if owner == "A" else 61
        x = tx + (float(rng.uniform(-200, 200)) * (1 - frac))
        y = ty + (sy - ty) * (1 - frac)
        h = float(rng.uniform(3, 50))
        speed = float(rng.uniform(100, 900))  # mm/s; a quick reach peaks near 1 m/s
        card = CardPose(free[i], x, y, float(rng.uniform(-40, 40)) + (0 if owner == "A" else 180),
                        height=h, velocity=(float(rng.normal(0, 0.3)) * speed,
                                            (-1 if owner == "A" else 1) * speed),
                        flip_deg=float(rng.normal(0, 6)), pitch_deg=float(rng.normal(0, 8)))
        moving.append(card)
        if i < hands:
            hp = random_hand(rng, owner, (x, y + (25 if owner == "A" else -25)), height=h + 12)
            hand_list.append(replace(hp, velocity=card.velocity))
    for j in range(len(hand_list), hands):
        owner = "AB"[j % 2]
        zx, zy, _ = zones[f"{owner}.stock{1 + int(rng.integers(5))}"]
        hand_list.append(random_hand(rng, owner, (zx, zy + (60 if owner == "A" else -60))))
    return Scene(camera=random_camera(rng, size=size), table=random_table(rng),
                 lighting=random_lighting(rng), effects=random_effects(rng), mat=mat,
                 settled=tuple(settled), moving=tuple(moving), hands=tuple(hand_list),
                 seed=seed)
