"""Training the card model: render a dataset with the simulator, train YOLO from scratch, export ONNX.

    cfg = load_config("models/train.yaml")
    result = train(cfg, out="models", work=".cache/train/cards")

Steps (``spit-referee train``):

1. :func:`write_dataset` renders ``data.images`` frames with the simulator
   (:func:`referee.sim.dataset.group_scenes`: groups of 8 frames sharing a camera, table,
   light and deck; moments of self-played games and random mid-game tables) and writes YOLO
   labels with this model's classes (:data:`referee.vision.recognize.CLASSES`): every corner
   index that is at least ``data.index_visible`` uncovered, by identity; every face-up card
   (``card``) and face-down card (``back``) at least 35 % visible, whole; every hand. The deck
   ``data.holdout_deck`` is never drawn for training (its groups get a procedural design
   instead), so that evaluation can measure a deck the model has never seen.
2. :func:`train` trains ``model.arch`` (``yolo11n.yaml``: built from its definition, no
   pretrained weights) with ultralytics, validates, and exports ONNX; the weights (.pt and
   .onnx) and a JSON summary go to ``out``.

Offline: ultralytics' settings and caches go to ``YOLO_CONFIG_DIR`` / ``XDG_CACHE_HOME``
(set here, inside the work folder unless already set) with ``YOLO_OFFLINE=1``, before it is
imported; class names are ASCII and plots are off, so no font is fetched. ultralytics and
torch come from the ``[train]`` extra; without them :func:`train` raises
:class:`~referee.errors.MissingPrerequisite` saying how to install them.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from referee.errors import InputError, MissingPrerequisite
from referee.vision.recognize import (
    CODES,
    DET_BACK,
    DET_CARD,
    DET_HAND,
    DET_INDEX,
    DETECTOR_CLASSES,
    FACE_CROP,
    INDEX_CROP,
    face_crop,
    index_crop,
)

log = logging.getLogger(__name__)

#: The corner index, as fractions of the printed face (width, height) from its top-left corner:
#: generous enough for a tall index's suit symbol (the DESIGN hint), measured on the built-in
#: and procedural decks. The same region is taken at the bottom-right corner (rotated index).
INDEX_W, INDEX_H = 0.24, 0.40
MIN_VISIBLE = 0.35  # a whole card is labelled from this visible fraction (as the dataset export)
MIN_BOX_PX = 6
MASK_SCALE = 4  # visibility of an index is computed on a mask this many times smaller
JPEG_QUALITY = 92
TRAIN_EXTRA = 'pip install -e ".[train]"'


# ---------------------------------------------------------------------------- config


@dataclass(frozen=True)
class DataConfig:
    images: int = 6000
    val_fraction: float = 0.1
    size: tuple[int, int] = (1280, 720)
    holdout_deck: str = "feliksh"
    procedural_max: int = 400
    index_visible: float = 0.6
    tile: int = 0  # > 0: train on square tiles of this side cut from each frame at full scale
    tiles_per_image: int = 2
    #: < 1: each index crop for the classifier is cut from the frame as a camera with fewer
    #: pixels per mm would see it, at a fraction drawn from [index_min_scale, 1] (see
    #: :func:`index_crops`); 1 keeps every crop at the render's own resolution
    index_min_scale: float = 1.0


@dataclass(frozen=True)
class ModelConfig:
    arch: str = "yolo11n.yaml"
    imgsz: int = 960
    epochs: int = 60
    batch: int = 16
    patience: int = 20
    workers: int = 2
    device: str = "auto"
    optimizer: str = "auto"
    #: > 0: stop training after this many hours (ultralytics re-fits the epochs and their
    #: learning-rate schedule to it after the first epoch); for a lease of fixed length
    hours: float = 0.0
    cache: bool = False  # decoded images kept in memory: faster where the data loader is the limit
    augment: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ClassifierConfig:
    """The corner-index classifier: 52 identities from a square crop around a detected index."""

    arch: str = "yolo11n-cls.yaml"
    imgsz: int = INDEX_CROP
    epochs: int = 12
    batch: int = 256
    crops_per_frame: int = 16  # readable indices of a frame cut out for it, at random
    workers: int = 2
    optimizer: str = "auto"
    hours: float = 0.0  # > 0: stop training after this many hours (as ModelConfig.hours)
    cache: bool = False
    augment: dict[str, float] = field(default_factory=lambda: {"fliplr": 0.0, "flipud": 0.0, "scale": 0.1,
                                                                "erasing": 0.1})


def _face_classifier() -> ClassifierConfig:
    return ClassifierConfig(imgsz=FACE_CROP, epochs=10, batch=128, crops_per_frame=6)


@dataclass(frozen=True)
class ExportConfig:
    imgsz: int = 960  # the long side a whole photo is run at (the ONNX metadata says so)
    opset: int = 17
    dynamic: bool = True


@dataclass(frozen=True)
class EvalConfig:
    seed: int = 1000
    images: int = 200


@dataclass(frozen=True)
class TrainConfig:
    name: str = "cards"
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    classifier: ClassifierConfig = field(default_factory=ClassifierConfig)
    #: the face classifier: 52 identities from a whole face-up card (its pips and figures)
    face: ClassifierConfig = field(default_factory=_face_classifier)
    export: ExportConfig = field(default_factory=ExportConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: ultralytics training settings a config may give under ``augment``: augmentation and the
#: learning-rate schedule (numbers only; the optimizer is its own key)
AUGMENT_KEYS = frozenset({"fliplr", "flipud", "degrees", "mosaic", "hsv_v", "hsv_s", "hsv_h", "scale",
                          "translate", "shear", "perspective", "mixup", "close_mosaic", "erasing",
                          "lr0", "lrf", "warmup_epochs", "momentum", "weight_decay"})
OPTIMIZERS = ("auto", "SGD", "Adam", "AdamW")


def _section(cls: type, raw: object, where: str, defaults: Any = None) -> Any:
    """A config section from parsed YAML, the keys not given taken from ``defaults`` (an
    instance of ``cls``; default: ``cls()``)."""
    base = cls() if defaults is None else defaults
    if raw is None:
        return base
    if not isinstance(raw, dict):
        raise InputError(f"must be a mapping, got {type(raw).__name__}", where)
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (known: {', '.join(known)})", where)
    values: dict[str, Any] = {}
    for name, value in raw.items():
        default = getattr(base, name)
        key = f"{where}.{name}" if where else name
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, float):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            value = float(value) if ok else value
        elif isinstance(default, str):
            ok = isinstance(value, str) and bool(value)
        elif isinstance(default, tuple):
            ok = (isinstance(value, list | tuple) and len(value) == 2
                  and all(isinstance(v, int) and v > 0 for v in value))
            value = tuple(value) if ok else value
        else:  # augment: a mapping of ultralytics hyper-parameters
            ok = (isinstance(value, dict) and set(value) <= AUGMENT_KEYS
                  and all(isinstance(v, int | float) for v in value.values()))
            if isinstance(value, dict) and not set(value) <= AUGMENT_KEYS:
                bad = sorted(set(value) - AUGMENT_KEYS)[0]
                raise InputError(f"unknown augmentation {bad!r} (known: {', '.join(sorted(AUGMENT_KEYS))})",
                                 key)
        if not ok:
            raise InputError(f"bad value {value!r} (expected like {default!r})", key)
        values[name] = value
    return replace(base, **values)


def parse_config(raw: object, where: str = "config") -> TrainConfig:
    """A :class:`TrainConfig` from parsed YAML; InputError naming the key when it is wrong."""
    if not isinstance(raw, dict):
        raise InputError("must be a mapping of settings", where)
    sections = {"data": DataConfig, "model": ModelConfig, "classifier": ClassifierConfig,
                "face": ClassifierConfig, "export": ExportConfig, "eval": EvalConfig}
    top = {k: v for k, v in raw.items() if k not in sections}
    base = _section(TrainConfig, top, "")
    # the face classifier's own defaults, not the index classifier's
    defaults = {"face": _face_classifier()}
    parts = {k: _section(cls, raw.get(k), k, defaults.get(k)) for k, cls in sections.items()}
    cfg = TrainConfig(name=base.name, seed=base.seed, **parts)
    checks = [
        (cfg.seed >= 0, "seed", "must be >= 0"),
        (cfg.name.isascii() and cfg.name.replace("-", "").replace("_", "").isalnum(), "name",
         "must be ASCII letters, digits, - or _"),
        (cfg.data.images >= 16, "data.images", "must be at least 16"),
        (0 < cfg.data.val_fraction < 0.5, "data.val_fraction", "must lie in (0, 0.5)"),
        (all(s % 2 == 0 and s >= 64 for s in cfg.data.size), "data.size", "sides must be even and >= 64"),
        (0 < cfg.data.index_visible <= 1, "data.index_visible", "must lie in (0, 1]"),
        (cfg.data.procedural_max >= 1, "data.procedural_max", "must be >= 1"),
        (cfg.data.tile == 0 or 64 <= cfg.data.tile <= min(cfg.data.size), "data.tile",
         "must be 0 (whole frames) or a side between 64 and the frame's short side"),
        (cfg.data.tiles_per_image >= 1, "data.tiles_per_image", "must be >= 1"),
        (0.25 <= cfg.data.index_min_scale <= 1, "data.index_min_scale", "must lie in [0.25, 1]"),
        (cfg.model.arch.endswith(".yaml"), "model.arch",
         "must be a model definition (yolo11n.yaml): .pt names download pretrained weights"),
        (cfg.model.imgsz >= 64 and cfg.model.imgsz % 32 == 0, "model.imgsz",
         "must be a multiple of 32, >= 64"),
        (cfg.model.epochs >= 1, "model.epochs", "must be >= 1"),
        *((section.hours >= 0, f"{name}.hours", "must be >= 0 (0: no limit)")
          for name, section in (("model", cfg.model), ("classifier", cfg.classifier), ("face", cfg.face))),
        (cfg.classifier.arch.endswith("-cls.yaml"), "classifier.arch",
         "must be a classifier definition (yolo11n-cls.yaml)"),
        (cfg.classifier.imgsz >= 32 and cfg.classifier.imgsz % 32 == 0, "classifier.imgsz",
         "must be a multiple of 32, >= 32"),
        (cfg.classifier.epochs >= 1, "classifier.epochs", "must be >= 1"),
        (cfg.classifier.batch >= 1, "classifier.batch", "must be >= 1"),
        (cfg.classifier.crops_per_frame >= 1, "classifier.crops_per_frame", "must be >= 1"),
        (cfg.face.arch.endswith("-cls.yaml"), "face.arch",
         "must be a classifier definition (yolo11n-cls.yaml)"),
        (cfg.face.imgsz >= 32 and cfg.face.imgsz % 32 == 0, "face.imgsz", "must be a multiple of 32, >= 32"),
        (cfg.face.epochs >= 1, "face.epochs", "must be >= 1"),
        (cfg.face.batch >= 1, "face.batch", "must be >= 1"),
        (cfg.face.crops_per_frame >= 1, "face.crops_per_frame", "must be >= 1"),
        (cfg.face.optimizer in OPTIMIZERS, "face.optimizer", f"must be one of {', '.join(OPTIMIZERS)}"),
        (cfg.model.optimizer in OPTIMIZERS, "model.optimizer", f"must be one of {', '.join(OPTIMIZERS)}"),
        (cfg.classifier.optimizer in OPTIMIZERS, "classifier.optimizer",
         f"must be one of {', '.join(OPTIMIZERS)}"),
        (cfg.export.imgsz >= 64 and cfg.export.imgsz % 32 == 0, "export.imgsz",
         "must be a multiple of 32, >= 64"),
        (cfg.model.batch >= 1, "model.batch", "must be >= 1"),
        (cfg.model.workers >= 0, "model.workers", "must be >= 0"),
        (cfg.model.device == "auto" or cfg.model.device == "cpu" or cfg.model.device.startswith("cuda")
         or cfg.model.device.isdigit(), "model.device", "must be auto, cpu, cuda:N or N"),
        (cfg.eval.seed != cfg.seed, "eval.seed", "must differ from seed (held-out renders)"),
        (cfg.eval.images >= 1, "eval.images", "must be >= 1"),
    ]
    for ok, key, message in checks:
        if not ok:
            raise InputError(message, f"{where}: {key}")
    if cfg.data.holdout_deck != "none":
        from referee.sim.decks import BUILTIN_DECKS

        if cfg.data.holdout_deck not in BUILTIN_DECKS and not cfg.data.holdout_deck.startswith("procedural:"):
            raise InputError(f"unknown deck {cfg.data.holdout_deck!r} (one of {', '.join(BUILTIN_DECKS)}, "
                             "procedural:N or none)", f"{where}: data.holdout_deck")
    return cfg


def load_config(path: str | Path) -> TrainConfig:
    """Read and check a training config (YAML)."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such config file", str(path)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {str(exc).splitlines()[0]}", str(path)) from None
    return parse_config(raw, str(path))


# ---------------------------------------------------------------------------- labels


def index_regions(quad: np.ndarray) -> list[np.ndarray]:
    """Image polygons (4x2) of a card's two corner indices (top-left and bottom-right of the
    printed face) from its quad (TL, TR, BR, BL)."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    regions = []
    for x0, y0 in ((0.0, 0.0), (1 - INDEX_W, 1 - INDEX_H)):
        pts = np.array([[x0, y0], [x0 + INDEX_W, y0], [x0 + INDEX_W, y0 + INDEX_H], [x0, y0 + INDEX_H]],
                       np.float32)
        regions.append(cv2.perspectiveTransform(pts[None], m)[0])
    return regions


def _box(pts: np.ndarray, w: int, h: int) -> tuple[float, float, float, float] | None:
    x0, y0 = np.clip(pts.min(0), 0, [w, h])
    x1, y1 = np.clip(pts.max(0), 0, [w, h])
    if x1 - x0 < MIN_BOX_PX or y1 - y0 < MIN_BOX_PX:
        return None
    return (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h


@dataclass(frozen=True)
class CardLabel:
    """One card of a frame as the model should see it: its code (None for a back), its whole
    box when it is labelled (>= :data:`MIN_VISIBLE` visible), its readable corner indices."""

    code: str | None
    box: tuple[float, float, float, float] | None  # normalised cx, cy, w, h
    indices: tuple[tuple[float, float, float, float], ...]
    visible: float
    quad: np.ndarray


def card_labels(truth: Any, size: tuple[int, int], index_visible: float) -> list[CardLabel]:
    """The cards of one rendered frame (a :class:`referee.sim.render.FrameTruth`), top first.

    The truth's cards are in drawing order, so a corner index is covered by the cards drawn
    after it and by the hands; it is readable when ``index_visible`` of it is uncovered."""
    w, h = size
    mw, mh = (w + MASK_SCALE - 1) // MASK_SCALE, (h + MASK_SCALE - 1) // MASK_SCALE
    covered = np.zeros((mh, mw), np.uint8)
    region = np.zeros_like(covered)

    def poly(pts: np.ndarray) -> np.ndarray:
        return np.round(pts / MASK_SCALE * 16).astype(np.int32)  # 4 bits of sub-pixel precision

    for hand in truth.hands:
        if len(hand.outline):
            cv2.fillPoly(covered, [poly(hand.outline)], 1, cv2.LINE_8, 4)
    out: list[CardLabel] = []
    for card in reversed(truth.cards):
        indices = []
        if card.face_up:
            for pts in index_regions(card.quad):
                area = abs(cv2.contourArea(pts.astype(np.float32))) / MASK_SCALE**2
                if area < 1:
                    continue
                region[:] = 0
                cv2.fillPoly(region, [poly(pts)], 1, cv2.LINE_8, 4)
                seen = int(np.count_nonzero(region & (1 - covered)))
                box = _box(pts, w, h)
                if box is not None and seen / area >= index_visible:
                    indices.append(box)
        whole = _box(card.quad, w, h) if card.visible >= MIN_VISIBLE else None
        out.append(CardLabel(card.card if card.face_up else None, whole, tuple(indices), card.visible,
                             card.quad))
        cv2.fillPoly(covered, [poly(card.quad)], 1, cv2.LINE_8, 4)
    return out


def frame_labels(truth: Any, size: tuple[int, int], index_visible: float
                 ) -> list[tuple[int, float, float, float, float]]:
    """The detector's YOLO labels (class, cx, cy, w, h normalised) of one rendered frame:
    readable corner indices (``index``), whole cards (``card`` / ``back``) and hands."""
    return detector_labels(card_labels(truth, size, index_visible), truth, size)


def detector_labels(cards: list[CardLabel], truth: Any, size: tuple[int, int]
                    ) -> list[tuple[int, float, float, float, float]]:
    """:func:`frame_labels` from the frame's :func:`card_labels`."""
    w, h = size
    out: list[tuple[int, float, float, float, float]] = []
    for card in cards:
        if card.code is not None:
            out += [(DET_INDEX, *box) for box in card.indices]
        if card.box is not None:
            out.append((DET_CARD if card.code is not None else DET_BACK, *card.box))
    for hand in truth.hands:
        box = _box(hand.outline, w, h) if len(hand.outline) else None
        if box is not None:
            out.append((DET_HAND, *box))
    return out


#: An index crop for the classifier is cut as the runtime cuts it from a detected box, with
#: the box's centre moved by up to this fraction of its size and its size scaled by up to
#: this much, as a detector's boxes are off by.
CROP_JITTER = 0.08


def index_crops(image: np.ndarray, cards: list[CardLabel], size: tuple[int, int], limit: int,
                rng: np.random.Generator, min_scale: float = 1.0) -> list[tuple[str, np.ndarray]]:
    """Up to ``limit`` (card code, crop) pairs of the readable corner indices of one frame,
    chosen at random, each cut by :func:`referee.vision.recognize.index_crop` from a jittered box.

    With ``min_scale`` < 1 each crop is cut from the frame as a camera with a fraction ``s`` of
    its pixels per mm would give it to the referee (``s`` drawn from [min_scale, 1]): the frame
    is shrunk by ``s`` (area averaging, as a sensor's pixels) and enlarged back (bilinear, as
    the referee's rectified zone crops enlarge the camera's pixels). A 1280x720 render seen by a
    960x540 camera is ``s`` = 0.75."""
    w, h = size
    found = [(card.code, box) for card in cards if card.code is not None for box in card.indices]
    out = []
    for k in rng.permutation(len(found))[:limit]:
        code, (cx, cy, bw, bh) = found[int(k)]
        shift = rng.uniform(-CROP_JITTER, CROP_JITTER, 2)
        scale = rng.uniform(1 - CROP_JITTER, 1 + 2 * CROP_JITTER)
        cx, cy = (cx + shift[0] * bw) * w, (cy + shift[1] * bh) * h
        half_w, half_h = bw * w * scale / 2, bh * h * scale / 2
        box = np.array([cx - half_w, cy - half_h, cx + half_w, cy + half_h], np.float32)
        assert code is not None
        seen = image if min_scale >= 1 else coarser(image, float(rng.uniform(min_scale, 1.0)))
        out.append((code, index_crop(seen, box)))
    return out


#: A face-up card is cut for the face classifier when this much of it is uncovered (the
#: referee reads a zone's top card with a hand often still over part of it).
FACE_VISIBLE = 0.5
#: ... turned upright (its long side vertical, either way up, as it lies in a zone crop), then
#: askew by up to this many degrees, as a card lies on its zone.
FACE_TILT_DEG = 12.0


def face_crops(image: np.ndarray, cards: list[CardLabel], limit: int, rng: np.random.Generator,
               min_scale: float = 1.0, size: int = FACE_CROP) -> list[tuple[str, np.ndarray]]:
    """Up to ``limit`` (card code, crop) pairs of the face-up cards of one frame at least
    :data:`FACE_VISIBLE` uncovered, chosen at random, each cut by
    :func:`referee.vision.recognize.face_crop` from the jittered box of the card turned
    upright (``min_scale``: as :func:`index_crops`)."""
    found = [card for card in cards if card.code is not None and card.visible >= FACE_VISIBLE]
    out = []
    for k in rng.permutation(len(found))[:limit]:
        card = found[int(k)]
        quad = card.quad.astype(np.float64)
        top = quad[1] - quad[0]
        angle = float(np.degrees(np.arctan2(top[1], top[0])))  # the top edge's slope in the image
        angle += float(rng.uniform(-FACE_TILT_DEG, FACE_TILT_DEG)) + (180.0 if rng.random() < 0.5 else 0.0)
        turn = cv2.getRotationMatrix2D(tuple(float(v) for v in quad.mean(0)), angle, 1.0)
        pts = quad @ turn[:, :2].T + turn[:, 2]
        (x1, y1), (x2, y2) = pts.min(0), pts.max(0)
        bw, bh = x2 - x1, y2 - y1
        shift = rng.uniform(-CROP_JITTER / 2, CROP_JITTER / 2, 2) * (bw, bh)
        scale = rng.uniform(1 - CROP_JITTER / 2, 1 + CROP_JITTER)
        cx, cy = (x1 + x2) / 2 + shift[0], (y1 + y2) / 2 + shift[1]
        box = np.array([cx - bw * scale / 2, cy - bh * scale / 2, cx + bw * scale / 2, cy + bh * scale / 2])
        seen = image if min_scale >= 1 else coarser(image, float(rng.uniform(min_scale, 1.0)))
        assert card.code is not None
        out.append((card.code, face_crop(seen, box, size, turn=turn)))
    return out


def coarser(image: np.ndarray, s: float) -> np.ndarray:
    """``image`` as a camera with ``s`` times its pixels per mm sees it, at ``image``'s size."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


#: A box cut by a tile's edge is kept when this much of it is inside: whole cards and hands,
#: and corner indices (an index cut in half may no longer show its suit).
KEEP_WHOLE, KEEP_INDEX = 0.5, 0.9


def tile_labels(labels: list[tuple[int, float, float, float, float]], size: tuple[int, int],
                tile: tuple[int, int, int]) -> list[tuple[int, float, float, float, float]]:
    """Frame labels (normalised to ``size``) for the square tile ``(x, y, side)`` of the frame."""
    w, h = size
    x0, y0, side = tile
    out = []
    for cls, cx, cy, bw, bh in labels:
        a = np.array([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
        b = np.clip(a - [x0, y0, x0, y0], 0, side)
        kept = max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) / max((a[2] - a[0]) * (a[3] - a[1]), 1e-9)
        keep = KEEP_INDEX if cls == DET_INDEX else KEEP_WHOLE
        if kept < keep or min(b[2] - b[0], b[3] - b[1]) < MIN_BOX_PX:
            continue
        out.append((cls, (b[0] + b[2]) / 2 / side, (b[1] + b[3]) / 2 / side, (b[2] - b[0]) / side,
                    (b[3] - b[1]) / side))
    return out


# ---------------------------------------------------------------------------- rendering


def _deck_for(deck: str, seed: int, group: int, data: DataConfig, holdout: bool) -> str:
    """The deck a group is drawn with: the held-out deck only for ``holdout`` sets; for
    training, any group that drew the held-out deck or a design past ``procedural_max`` gets a
    procedural design of its own, fixed by the seed and group."""
    if holdout:
        return data.holdout_deck
    number = int(deck.split(":")[1]) if deck.startswith("procedural:") else None
    if deck == data.holdout_deck or (number is not None and number >= data.procedural_max):
        return f"procedural:{zlib.crc32(f'{seed} {group}'.encode()) % data.procedural_max}"
    return deck


def render_frames(seed: int, count: int, data: DataConfig, holdout: bool = False,
                  groups: range | None = None) -> Iterator[tuple[np.ndarray, Any, str]]:
    """``count`` rendered frames (BGR image, FrameTruth, deck spec) from ``seed``; with
    ``groups``, only the frames of those groups of :data:`~referee.sim.dataset.GROUP` (frame
    ``i`` is frame ``i % GROUP`` of group ``i // GROUP`` either way)."""
    from referee.sim.dataset import GROUP, group_scenes
    from referee.sim.decks import get_deck
    from referee.sim.render import Renderer

    renderers: dict[str, Renderer] = {}
    for group in groups if groups is not None else range((count + GROUP - 1) // GROUP):
        deck, scenes = group_scenes(seed, group, data.size)
        deck = _deck_for(deck, seed, group, data, holdout)
        renderer = renderers.get(deck)
        if renderer is None:
            if len(renderers) > 8:
                renderers.clear()
            renderer = renderers[deck] = Renderer(get_deck(deck))
        for k, scene in enumerate(scenes):
            if group * GROUP + k >= count:
                return
            image, truth = renderer.render(scene)
            yield image, truth, deck


def _parts(i: int, image: np.ndarray, labels: list[tuple[int, float, float, float, float]], cfg: TrainConfig
           ) -> Iterator[tuple[str, np.ndarray, list[tuple[int, float, float, float, float]]]]:
    """The frame itself, or its tiles (random places fixed by the seed and frame number)."""
    side = cfg.data.tile
    if not side:
        yield f"{i:06d}", image, labels
        return
    h, w = image.shape[:2]
    rng = np.random.default_rng([cfg.seed, i, 5])
    for t in range(cfg.data.tiles_per_image):
        x, y = int(rng.integers(0, w - side + 1)), int(rng.integers(0, h - side + 1))
        yield f"{i:06d}-{t}", image[y:y + side, x:x + side], tile_labels(labels, (w, h), (x, y, side))


CHUNK = 4  # groups of frames per rendering job


def _write_jpeg(path: Path, image: np.ndarray) -> None:
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 image
        raise RuntimeError("JPEG encoding failed")
    path.write_bytes(jpg.tobytes())


def _write_groups(cfg: TrainConfig, out: str, groups: range, val: set[int]
                  ) -> tuple[dict[str, int], dict[str, int], int]:
    """Render and write the frames of ``groups``; per-class and per-deck counts, frames."""
    from referee.sim.dataset import GROUP

    per_class: dict[str, int] = {}
    decks: dict[str, int] = {}
    root = Path(out)
    n = 0
    frames = render_frames(cfg.seed, cfg.data.images, cfg.data, groups=groups)
    for k, (image, truth, deck) in enumerate(frames):
        i = groups.start * GROUP + k
        split = "val" if i in val else "train"
        cards = card_labels(truth, cfg.data.size, cfg.data.index_visible)
        labels = detector_labels(cards, truth, cfg.data.size)
        for name, part, part_labels in _parts(i, image, labels, cfg):
            _write_jpeg(root / "images" / split / f"{name}.jpg", part)
            (root / "labels" / split / f"{name}.txt").write_text(
                "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in part_labels),
                encoding="ascii")
            for c, *_ in part_labels:
                per_class[DETECTOR_CLASSES[c]] = per_class.get(DETECTOR_CLASSES[c], 0) + 1
        rng = np.random.default_rng([cfg.seed, i, 7])
        crops = index_crops(image, cards, cfg.data.size, cfg.classifier.crops_per_frame, rng,
                            cfg.data.index_min_scale)
        for j, (code, crop) in enumerate(crops):
            _write_jpeg(root / "index" / split / code / f"{i:06d}-{j}.jpg", crop)
            per_class[f"index:{code}"] = per_class.get(f"index:{code}", 0) + 1
        rng = np.random.default_rng([cfg.seed, i, 11])
        for j, (code, crop) in enumerate(face_crops(image, cards, cfg.face.crops_per_frame, rng,
                                                    cfg.data.index_min_scale, cfg.face.imgsz)):
            _write_jpeg(root / "face" / split / code / f"{i:06d}-{j}.jpg", crop)
            per_class[f"face:{code}"] = per_class.get(f"face:{code}", 0) + 1
        decks[deck] = decks.get(deck, 0) + 1
        n += 1
    return per_class, decks, n


def write_dataset(cfg: TrainConfig, out: str | Path, progress: Callable[[int, int], None] | None = None,
                  workers: int = 1) -> dict[str, Any]:
    """Render the training set of ``cfg`` into ``out`` (YOLO layout, ``data.yaml`` with an
    absolute ``path``), in ``workers`` processes; returns what ``dataset.json`` records.
    Skipped when ``out`` already holds the dataset of the same config. The files do not
    depend on ``workers``: every frame comes from the seed and its own number."""
    out = Path(out).resolve()
    key = json.loads(json.dumps({"seed": cfg.seed, "data": asdict(cfg.data),
                                 "classes": list(DETECTOR_CLASSES),
                                 "crops_per_frame": cfg.classifier.crops_per_frame, "crop": INDEX_CROP,
                                 "faces_per_frame": cfg.face.crops_per_frame, "face_crop": cfg.face.imgsz}))
    stamp = out / "dataset.json"
    if stamp.is_file():
        old = json.loads(stamp.read_text(encoding="utf-8"))
        if old.get("key") == key:
            log.info("dataset %s is up to date", out)
            return dict(old)
        shutil.rmtree(out)
    count = cfg.data.images
    n_val = int(round(count * cfg.data.val_fraction))
    val = set(np.random.default_rng([cfg.seed, 99]).permutation(count)[:n_val].tolist())
    for part in ("images", "labels"):
        for split in ("train", "val"):
            (out / part / split).mkdir(parents=True, exist_ok=True)
    for split in ("train", "val"):
        for code in CODES:
            (out / "index" / split / code).mkdir(parents=True, exist_ok=True)
            (out / "face" / split / code).mkdir(parents=True, exist_ok=True)
    per_class = dict.fromkeys([*DETECTOR_CLASSES, *(f"index:{c}" for c in CODES),
                               *(f"face:{c}" for c in CODES)], 0)
    decks: dict[str, int] = {}
    t0 = time.perf_counter()
    from referee.sim.dataset import GROUP

    n_groups = (count + GROUP - 1) // GROUP
    jobs = [(cfg, str(out), range(g, min(g + CHUNK, n_groups)), val) for g in range(0, n_groups, CHUNK)]
    done = 0
    if workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(_write_groups, *job) for job in jobs]
            results = []
            for future in as_completed(futures):
                results.append(future.result())
                done += results[-1][2]
                if progress is not None:
                    progress(done, count)
    else:
        results = []
        for job in jobs:
            results.append(_write_groups(*job))
            done += results[-1][2]
            if progress is not None:
                progress(done, count)
    for counts, deck_counts, _n in results:
        for name, n in counts.items():
            per_class[name] += n
        for deck, n in deck_counts.items():
            decks[deck] = decks.get(deck, 0) + n
    seconds = time.perf_counter() - t0
    (out / "data.yaml").write_text(yaml.safe_dump(
        {"path": str(out), "train": "images/train", "val": "images/val", "nc": len(DETECTOR_CLASSES),
         "names": dict(enumerate(DETECTOR_CLASSES))}, sort_keys=False), encoding="utf-8")
    parts = cfg.data.tiles_per_image if cfg.data.tile else 1
    summary = {"key": key, "images": count * parts, "val": n_val * parts, "frames": count,
               "render_s": round(seconds, 1), "per_class": per_class, "decks": dict(sorted(decks.items()))}
    stamp.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    log.info("dataset: %d frames in %.0f s into %s", count, seconds, out)
    return summary


# ---------------------------------------------------------------------------- training


@dataclass(frozen=True)
class TrainResult:
    onnx: Path  # the detector
    weights: Path
    index_onnx: Path  # the corner-index classifier
    index_weights: Path
    face_onnx: Path  # the face classifier
    face_weights: Path
    summary: Path
    metrics: dict[str, float]


def offline_environment(cache: str | Path) -> None:
    """Point ultralytics and other caches inside ``cache`` and forbid downloads (unless the
    caller already set them); call before ultralytics is imported."""
    cache = Path(cache).resolve()
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cache / "ultralytics"))
    os.environ.setdefault("XDG_CACHE_HOME", str(cache))
    os.environ.setdefault("MPLCONFIGDIR", str(cache / "matplotlib"))
    for var in ("YOLO_CONFIG_DIR", "XDG_CACHE_HOME", "MPLCONFIGDIR"):
        Path(os.environ[var]).mkdir(parents=True, exist_ok=True)


def check_extra() -> None:
    """MissingPrerequisite unless torch and ultralytics can be imported (without importing them)."""
    import importlib.util

    for name in ("torch", "ultralytics"):
        try:
            found = importlib.util.find_spec(name) is not None
        except ValueError:  # in sys.modules as None: imports of it fail
            found = False
        if not found:
            raise MissingPrerequisite(
                f"training needs torch and ultralytics ({name} is missing): {TRAIN_EXTRA}")


def _import_ultralytics() -> Any:
    check_extra()
    try:
        import torch  # noqa: F401
        import ultralytics
    except ImportError as exc:
        raise MissingPrerequisite(f"training needs torch and ultralytics ({exc.name} is missing): "
                                  f"{TRAIN_EXTRA}") from None
    return ultralytics


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def pick_device(setting: str) -> str:
    """``auto``: the first CUDA GPU when there is one, else the CPU."""
    if setting != "auto":
        return setting
    import torch

    return "0" if torch.cuda.is_available() else "cpu"


STAGES = ("detector", "classifier", "face")


def train(cfg: TrainConfig, out: str | Path, work: str | Path, threads: int | None = None,
          progress: Callable[[int, int], None] | None = None, stages: tuple[str, ...] = STAGES,
          from_weights: str | Path | None = None, start_from: str | Path | None = None) -> TrainResult:
    """Render, train, validate and export (see the module doc); weights and summary to ``out``.

    ``threads``: torch threads on a CPU (default: every core this process may use).
    ``stages``: which of the three models to train now; the others are left as it is in ``out``
    (the summary keeps what an earlier run recorded of it). ``from_weights``: do not train the
    one stage given, validate and export these weights instead (a run cut short: ultralytics
    keeps ``last.pt`` of every epoch under ``WORK/runs/NAME*/weights/``). ``start_from``: train
    the one stage given starting from these weights (a local .pt of the same model: an earlier
    run continued with the config's epochs and learning rate) rather than from scratch."""
    work, out = Path(work).resolve(), Path(out).resolve()
    unknown = sorted(set(stages) - set(STAGES))
    if unknown or not stages:
        bad = unknown[0] if unknown else "(none)"
        raise InputError(f"unknown stage {bad!r} (one of {', '.join(STAGES)})", "stages")
    if from_weights is not None:
        if len(stages) != 1:
            raise InputError("give exactly one --stage with --from-weights", "stages")
        if not Path(from_weights).is_file():
            raise InputError("no such weights file", str(from_weights))
    if start_from is not None:
        if len(stages) != 1 or from_weights is not None:
            raise InputError("give exactly one --stage, and no --from-weights, with --start-from", "stages")
        if not Path(start_from).is_file():
            raise InputError("no such weights file", str(start_from))
    offline_environment(os.environ.get("SPIT_REFEREE_CACHE", work / "cache"))
    check_extra()  # before hours of rendering
    cores = threads or _cores()
    t0 = time.perf_counter()
    dataset = write_dataset(cfg, work / "dataset", progress, workers=cores)
    t_data = time.perf_counter() - t0
    _import_ultralytics()  # after the rendering processes: they start without torch
    import torch
    from ultralytics.engine import trainer as trainer_module
    from ultralytics.utils import torch_utils

    device = pick_device(cfg.model.device)
    # ultralytics leaves one core idle (NUM_THREADS = cores - 1) and resets torch to it when it
    # picks the device: on a 2-core machine that halves the speed
    torch.set_num_threads(cores)
    torch_utils.NUM_THREADS = cores  # type: ignore[attr-defined]
    # its AMP self-check loads pretrained yolo26n.pt, which cannot be downloaded here; mixed
    # precision on a CUDA GPU is ultralytics' default and safe for this model
    trainer_module.check_amp = lambda model: True  # type: ignore[attr-defined]
    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / f"{cfg.name}-train.json"
    old = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
    summary: dict[str, Any] = {
        "config": cfg.to_dict(), "device": device, "torch_threads": cores,
        "torch": torch.__version__, "ultralytics": __import__("ultralytics").__version__,
        "dataset": {k: v for k, v in dataset.items() if k != "key"}, "render_s": round(t_data, 1),
        "detector": old.get("detector"), "classifier": old.get("classifier"), "face": old.get("face"),
    }
    paths = {"detector": (out / f"{cfg.name}.onnx", out / f"{cfg.name}.pt"),
             "classifier": (out / f"{cfg.name}-index.onnx", out / f"{cfg.name}-index.pt"),
             "face": (out / f"{cfg.name}-face.onnx", out / f"{cfg.name}-face.pt")}
    runs = work / "runs"
    started: dict[str, str] | None = None
    if start_from is not None:  # the output may overwrite it (models/NAME-index.pt): keep the start
        started = {"weights": str(start_from), "sha256": _sha256(Path(start_from))}
        runs.mkdir(parents=True, exist_ok=True)
        start_from = Path(shutil.copyfile(start_from, runs / f"start-{stages[0]}.pt"))
    if "detector" in stages:
        summary["detector"] = _train_detector(cfg, work / "dataset", runs, device, *paths["detector"],
                                              from_weights=from_weights, start_from=start_from,
                                              earlier=old.get("detector"), started=started)
    for stage, folder, section in (("classifier", "index", cfg.classifier), ("face", "face", cfg.face)):
        if stage in stages:
            summary[stage] = _train_classifier(cfg, section, folder, work / "dataset" / folder, runs, device,
                                               *paths[stage], from_weights=from_weights,
                                               start_from=start_from, earlier=old.get(stage), started=started)
    summary_path.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    metrics = {f"{stage}/{k}": v for stage in STAGES
               for k, v in ((summary[stage] or {}).get("metrics") or {}).items()}
    log.info("trained %s: %s", out, metrics)
    return TrainResult(*paths["detector"], *paths["classifier"], *paths["face"], summary_path, metrics)


def _fit(model: Any, **kwargs: Any) -> tuple[Path, int, float]:
    """Train; the best (else last) weights, the epochs run and the seconds taken."""
    t0 = time.perf_counter()
    model.train(**kwargs)
    seconds = time.perf_counter() - t0
    trainer: Any = model.trainer
    best = Path(trainer.best if Path(trainer.best).is_file() else trainer.last)
    return best, int(getattr(trainer, "epoch", kwargs["epochs"] - 1)) + 1, seconds


def _stage_summary(epochs_run: int, seconds: float, metrics: dict[str, float], onnx_path: Path, pt_path: Path,
                   started: dict[str, str] | None = None, earlier: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "epochs_run": epochs_run, "train_s": round(seconds, 1),
        "per_epoch_s": round(seconds / max(epochs_run, 1), 1), "metrics": metrics,
        "onnx_bytes": onnx_path.stat().st_size, "pt_bytes": pt_path.stat().st_size}
    if started is not None:  # a continued run: what it started from, and the runs before
        summary["started_from"] = started
        summary["earlier"] = earlier
    return summary


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _initial(arch: str, start_from: str | Path | None, task: str) -> Any:
    """The model a stage trains: built from its definition, or the weights it continues."""
    from ultralytics import YOLO

    if start_from is None:
        return YOLO(arch, task=task)
    try:
        model = YOLO(str(start_from), task=task)
    except Exception as exc:  # noqa: BLE001 - torch and ultralytics raise many kinds
        raise InputError(f"cannot load these weights to continue from: {exc}", str(start_from)) from exc
    if model.task != task:
        raise InputError(f"these are {model.task} weights, not {task}", str(start_from))
    return model


def _done_run(weights: str | Path) -> tuple[Path, int, float]:
    """A cut-short run's weights, the epochs it ran and the seconds they took (ultralytics'
    results.csv beside the weights folder)."""
    import csv

    path = Path(weights)
    rows = []
    results = path.parent.parent / "results.csv"
    if results.is_file():
        with results.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    seconds = float(rows[-1].get("time", 0) or 0) if rows else 0.0
    return path, len(rows), seconds


def _save_weights(best: Path, pt_path: Path) -> None:
    """The weights without the optimizer's state (a run cut short keeps it: 26 MB, not 5)."""
    from ultralytics.utils.torch_utils import strip_optimizer

    strip_optimizer(best, s=str(pt_path))
    if not pt_path.is_file():  # not an ultralytics checkpoint: keep it as it is
        shutil.copyfile(best, pt_path)


def _limits(section: ModelConfig | ClassifierConfig) -> dict[str, Any]:
    """ultralytics' time limit (hours; None: the epochs alone) and image cache of a section."""
    return {"time": section.hours or None, "cache": "ram" if section.cache else False}


def _train_detector(cfg: TrainConfig, data: Path, runs: Path, device: str, onnx_path: Path, pt_path: Path,
                    from_weights: str | Path | None = None, start_from: str | Path | None = None,
                    earlier: dict[str, Any] | None = None, started: dict[str, str] | None = None
                    ) -> dict[str, Any]:
    from ultralytics import YOLO

    m = cfg.model
    best, epochs_run, seconds = _done_run(from_weights) if from_weights else _fit(
        _initial(m.arch, start_from, "detect"), data=str(data / "data.yaml"), epochs=m.epochs,
        imgsz=m.imgsz, batch=m.batch, patience=m.patience, workers=m.workers, device=device, seed=cfg.seed,
        deterministic=True, pretrained=start_from is not None, plots=False, amp=device != "cpu",
        project=str(runs), name=cfg.name, exist_ok=True, verbose=False, optimizer=m.optimizer,
        **_limits(m), **m.augment)
    model = YOLO(str(best), task="detect")
    val = model.val(data=str(data / "data.yaml"), imgsz=m.imgsz, batch=m.batch, device=device, plots=False,
                    verbose=False, project=str(runs), name=f"{cfg.name}-val", exist_ok=True)
    metrics = {k.replace("metrics/", "").replace("(B)", ""): round(float(v), 5)
               for k, v in val.results_dict.items()}
    exported = Path(model.export(format="onnx", imgsz=cfg.export.imgsz, dynamic=cfg.export.dynamic,
                                 opset=cfg.export.opset, simplify=False, device="cpu"))
    shutil.copyfile(exported, onnx_path)
    _save_weights(best, pt_path)
    return _stage_summary(epochs_run, seconds, metrics, onnx_path, pt_path, started, earlier)


def _train_classifier(cfg: TrainConfig, c: ClassifierConfig, kind: str, data: Path, runs: Path, device: str,
                      onnx_path: Path, pt_path: Path, from_weights: str | Path | None = None,
                      start_from: str | Path | None = None, earlier: dict[str, Any] | None = None,
                      started: dict[str, str] | None = None) -> dict[str, Any]:
    """One of the classifiers (``kind``: ``index`` or ``face``, its crops in ``data``)."""
    from ultralytics import YOLO

    best, epochs_run, seconds = _done_run(from_weights) if from_weights else _fit(
        _initial(c.arch, start_from, "classify"), data=str(data), epochs=c.epochs, imgsz=c.imgsz,
        batch=c.batch, workers=c.workers, device=device, seed=cfg.seed, deterministic=True,
        pretrained=start_from is not None, plots=False, amp=device != "cpu", project=str(runs),
        name=f"{cfg.name}-{kind}", exist_ok=True, verbose=False,
        optimizer=c.optimizer, **_limits(c), **c.augment)
    model = YOLO(str(best), task="classify")
    val = model.val(data=str(data), imgsz=c.imgsz, batch=c.batch, device=device, plots=False, verbose=False,
                    project=str(runs), name=f"{cfg.name}-{kind}-val", exist_ok=True)
    metrics = {k.replace("metrics/", ""): round(float(v), 5) for k, v in val.results_dict.items()}
    exported = Path(model.export(format="onnx", imgsz=c.imgsz, dynamic=True, opset=cfg.export.opset,
                                 simplify=False, device="cpu"))
    shutil.copyfile(exported, onnx_path)
    _save_weights(best, pt_path)
    return _stage_summary(epochs_run, seconds, metrics, onnx_path, pt_path, started, earlier)
