"""Card-face decks for the simulator: every face and a back as a BGRA image of one size.

A :class:`Deck` holds 52 faces and a back, each ``FACE_H x FACE_W`` BGRA uint8 (4 px per mm of
a 63 x 88 mm card) with rounded corners in the alpha channel. Decks come from:

- the committed CC0 and MIT rasters in ``referee/sim/assets/`` (``kenney``, ``kennard``,
  ``kennard-bigface``, ``feliksh``; licences beside each folder),
- :func:`referee.sim.procedural_deck.procedural_deck`, seeded, many designs,
- any folder of 52 images named by card code plus ``back.png`` (:func:`load_deck_dir`,
  the ``--deck DIR`` option).

:func:`get_deck` takes one spec string for all three: ``"kenney"``, ``"procedural:17"`` or a
folder path.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from referee.cards import FULL_DECK, Card
from referee.errors import InputError

log = logging.getLogger(__name__)

CARD_W_MM = 63.0
CARD_H_MM = 88.0
PX_PER_MM = 4
FACE_W = int(CARD_W_MM * PX_PER_MM)  # 252
FACE_H = int(CARD_H_MM * PX_PER_MM)  # 352
CORNER_RADIUS_MM = 3.2

CODES: tuple[str, ...] = tuple(card.code for card in FULL_DECK)
ASSETS = Path(__file__).resolve().parent / "assets"
BUILTIN_DECKS: tuple[str, ...] = ("kenney", "kennard", "kennard-bigface", "feliksh")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


@dataclass(frozen=True)
class Deck:
    """52 card faces and one back, all ``(FACE_H, FACE_W, 4)`` BGRA uint8."""

    name: str
    faces: Mapping[str, np.ndarray]
    back: np.ndarray

    def __post_init__(self) -> None:
        missing = [c for c in CODES if c not in self.faces]
        if missing:
            raise ValueError(f"deck {self.name!r} lacks faces for {', '.join(missing)}")
        for code, img in [*self.faces.items(), ("back", self.back)]:
            if img.shape != (FACE_H, FACE_W, 4) or img.dtype != np.uint8:
                raise ValueError(f"deck {self.name!r}: {code} is {img.shape} {img.dtype}, "
                                 f"expected ({FACE_H}, {FACE_W}, 4) uint8")
            img.setflags(write=False)  # decks are cached and shared: never drawn on

    def face(self, card: str | Card) -> np.ndarray:
        """The face image of ``card`` (a :class:`Card` or a code such as ``"10S"``)."""
        code = card.code if isinstance(card, Card) else Card.parse(card).code
        return self.faces[code]


@cache
def corner_mask() -> np.ndarray:
    """Alpha (uint8) of a card with rounded corners, anti-aliased."""
    scale = 4
    r = int(CORNER_RADIUS_MM * PX_PER_MM * scale)
    big = np.zeros((FACE_H * scale, FACE_W * scale), np.uint8)
    w, h = FACE_W * scale, FACE_H * scale
    cv2.rectangle(big, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    mask = cv2.resize(big, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    mask.setflags(write=False)
    return mask


def to_face(img: np.ndarray) -> np.ndarray:
    """Resize any BGR/BGRA/grey image to a face: BGRA at the face size, rounded corners."""
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.dtype != np.uint8:
        img = cv2.normalize(img, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    interp = cv2.INTER_AREA if img.shape[1] > FACE_W else cv2.INTER_CUBIC
    out = cv2.resize(img, (FACE_W, FACE_H), interpolation=interp)
    out[:, :, 3] = cv2.min(out[:, :, 3], corner_mask())
    return out


def _read_image(path: Path) -> np.ndarray:
    data = np.fromfile(str(path), np.uint8) if path.is_file() else None
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data is not None and data.size else None
    if img is None:
        raise InputError("cannot read this file as an image (missing, empty or corrupt)",
                         str(path))
    h, w = img.shape[:2]
    ratio = (w / h) / (CARD_W_MM / CARD_H_MM)
    if not 0.8 < ratio < 1.25:
        raise InputError(f"a card image should be portrait, about 63:88 (width:height); "
                         f"this one is {w}x{h}", str(path))
    return img


def _find(folder: Path, stem: str) -> Path | None:
    for suffix in IMAGE_SUFFIXES:
        for name in (stem + suffix, stem + suffix.upper()):
            if (folder / name).is_file():
                return folder / name
    return None


def load_deck_dir(folder: str | Path, name: str | None = None) -> Deck:
    """Load a deck from a folder of ``QH.png``, ``10S.png``, ... and ``back.png``.

    ``T`` for ten (``TS.png``) and lower case (``qh.png``) are accepted too; any of
    png/jpg/jpeg/webp/bmp. A missing or unreadable file raises :class:`InputError` naming it.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("no such deck folder (expected 52 faces named QH.png, 10S.png, ... "
                         "and back.png)", str(folder))
    faces: dict[str, np.ndarray] = {}
    for code in CODES:
        stems = [code, code.lower()]
        if code.startswith("10"):
            stems += ["T" + code[2:], "t" + code[2:].lower()]
        path = next((p for s in stems if (p := _find(folder, s)) is not None), None)
        if path is None:
            raise InputError(f"missing face image for {code} (expected {code}.png)", str(folder))
        faces[code] = to_face(_read_image(path))
    back_path = _find(folder, "back")
    if back_path is None:
        raise InputError("missing back image (expected back.png)", str(folder))
    return Deck(name or folder.name, faces, to_face(_read_image(back_path)))


def _reink(grey: np.ndarray, ink_bgr: tuple[int, int, int]) -> np.ndarray:
    """Colour a greyscale print: white paper stays, dark ink becomes ``ink_bgr``."""
    g = grey.astype(np.float32)[:, :, None] / 255.0
    paper = np.array([246, 248, 250], np.float32)
    ink = np.array(ink_bgr, np.float32)
    return (paper * g + ink * (1.0 - g)).clip(0, 255).astype(np.uint8)


@cache
def builtin_deck(name: str) -> Deck:
    """One of the committed decks in :data:`BUILTIN_DECKS`."""
    if name not in BUILTIN_DECKS:
        raise InputError(f"unknown deck {name!r}: built-in decks are {', '.join(BUILTIN_DECKS)}")
    folder = ASSETS / name
    if name != "feliksh":
        return load_deck_dir(folder, name)
    # The photographed Dal Negro deck is greyscale: re-ink the red suits, add a plain back.
    faces = {}
    for code in CODES:
        grey = cv2.imread(str(folder / f"{code}.jpg"), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise InputError("cannot read the committed face image", str(folder / f"{code}.jpg"))
        ink = (40, 30, 200) if code[-1] in "HD" else (30, 25, 25)
        faces[code] = to_face(_reink(grey, ink))
    from referee.sim.procedural_deck import draw_back

    return Deck(name, faces, draw_back(np.random.default_rng(7)))


def get_deck(spec: str | Path) -> Deck:
    """A deck from a spec: a built-in name, ``procedural[:SEED]``, or a folder path."""
    text = str(spec)
    if text in BUILTIN_DECKS:
        return builtin_deck(text)
    if text == "procedural" or text.startswith("procedural:"):
        from referee.sim.procedural_deck import procedural_deck

        seed_text = text.partition(":")[2] or "0"
        try:
            seed = int(seed_text)
        except ValueError:
            raise InputError(f"procedural deck seed must be an integer, not {seed_text!r}",
                             text) from None
        return procedural_deck(seed)
    return load_deck_dir(Path(text))
