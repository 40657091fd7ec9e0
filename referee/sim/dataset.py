"""Training data for the card model: rendered frames with YOLO labels, and card crops.

    export_dataset("data/sim", count=2000, seed=0)

Layout (what ultralytics expects; ``data.yaml`` has no ``path``, so the folder it lies in is
the dataset root)::

    images/train/000123.jpg   labels/train/000123.txt   (one line per object:
    images/val/...            labels/val/...             class cx cy w h, normalised)
    crops/train/QH/000123-04.jpg ...                     (rectified cards, upright, 126x176)
    data.yaml  dataset.json

Classes: 0-51 the face-up cards by identity in :data:`referee.cards.FULL_DECK` order, named
by their ASCII codes (``AS``, ``10H``, ``QH``, ...); 52 ``back`` (a face-down card); 53
``hand``. A card is labelled when at least :data:`MIN_VISIBLE` of it is visible (not covered
by cards or hands drawn over it, inside the image); its box is its quad's bounding box,
clipped to the image. A crop is written for cards at least :data:`CROP_VISIBLE` visible.

Frames come in groups of :data:`GROUP` that share a camera, table, light and deck (as a video
does; it also lets the renderer reuse its background): three groups in four are moments of a
self-played game in motion (:class:`referee.sim.motion.Choreography`: hands carrying cards,
cards mid-flight and being turned), the fourth random mid-game tables
(:func:`referee.sim.scene.random_scene`). Everything comes from the seed: the same seed and
count give the same files.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import yaml

from referee.sim.camera import random_camera
from referee.sim.decks import BUILTIN_DECKS, CODES, get_deck
from referee.sim.matart import mat_art
from referee.sim.motion import Choreography
from referee.sim.render import FrameTruth, Renderer
from referee.sim.scene import Scene, random_effects, random_lighting, random_scene
from referee.sim.textures import random_table

log = logging.getLogger(__name__)

CLASSES: tuple[str, ...] = (*CODES, "back", "hand")
BACK, HAND = len(CODES), len(CODES) + 1
MIN_VISIBLE = 0.35
CROP_VISIBLE = 0.9
CROP_SIZE = (126, 176)
GROUP = 8
JPEG_QUALITY = 92
MIN_BOX_PX = 6


@dataclass(frozen=True)
class DatasetSummary:
    images: int
    train: int
    val: int
    labels: int
    crops: int
    per_class: dict[str, int]


def yolo_labels(truth: FrameTruth, size: tuple[int, int]) -> list[tuple[int, float, float, float, float]]:
    """(class, cx, cy, w, h) normalised boxes of the labelled cards and hands of one frame."""
    w, h = size
    out = []
    objects: list[tuple[int, np.ndarray]] = []
    for card in truth.cards:
        if card.visible >= MIN_VISIBLE:
            objects.append((CODES.index(card.card) if card.face_up else BACK, card.quad))
    for hand in truth.hands:
        objects.append((HAND, hand.outline))
    for cls, pts in objects:
        if len(pts) == 0:
            continue
        x0, y0 = np.clip(pts.min(0), 0, [w, h])
        x1, y1 = np.clip(pts.max(0), 0, [w, h])
        if x1 - x0 < MIN_BOX_PX or y1 - y0 < MIN_BOX_PX:
            continue
        out.append((cls, (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h))
    return out


def crop_card(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card whose printed corners are ``quad`` (TL, TR, BR, BL), upright, CROP_SIZE."""
    cw, ch = CROP_SIZE
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (cw, ch), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


@cache
def _game(seed: int) -> Choreography:
    return Choreography.from_selfplay(seed)


def _deck_spec(rng: np.random.Generator) -> str:
    choices = (*BUILTIN_DECKS, "procedural")
    spec = choices[int(rng.integers(len(choices)))]
    return f"procedural:{int(rng.integers(0, 400))}" if spec == "procedural" else spec


def group_scenes(seed: int, group: int, size: tuple[int, int]) -> tuple[str, list[Scene]]:
    """The deck and the :data:`GROUP` scenes of one group of frames."""
    rng = np.random.default_rng([seed, group, 17])
    mat, zones = mat_art()
    deck = _deck_spec(rng)
    if group % 4 == 3:
        scenes = [random_scene(int(rng.integers(2**31)), size, mat=mat, zones=zones,
                               moving_cards=int(rng.integers(0, 3)), hands=int(rng.integers(0, 3)))
                  for _ in range(GROUP)]
        return deck, scenes
    choreo = _game(seed * 1000 + group // 4)
    base = Scene(camera=random_camera(rng, size=size), table=random_table(rng),
                 lighting=random_lighting(rng), effects=random_effects(rng), mat=mat,
                 seed=int(rng.integers(2**31)))
    times = np.sort(rng.uniform(0.0, choreo.duration, GROUP))
    return deck, [replace(choreo.at(float(t)).scene(base, frame_index=k), time=float(t))
                  for k, t in enumerate(times)]


def export_dataset(out: str | Path, count: int, seed: int = 0, size: tuple[int, int] = (1280, 720),
                   val_fraction: float = 0.2, progress: Callable[[int, int], None] | None = None
                   ) -> DatasetSummary:
    """Render ``count`` frames with labels and crops into ``out`` (see the module doc)."""
    out = Path(out)
    n_val = int(round(count * val_fraction))
    val = set(np.random.default_rng([seed, 99]).permutation(count)[:n_val].tolist())
    for part in ("images", "labels", "crops"):
        for split in ("train", "val"):
            (out / part / split).mkdir(parents=True, exist_ok=True)
    per_class = dict.fromkeys(CLASSES, 0)
    labels = crops = 0
    renderers: dict[str, Renderer] = {}
    done = 0
    for group in range((count + GROUP - 1) // GROUP):
        deck, scenes = group_scenes(seed, group, size)
        renderer = renderers.get(deck)
        if renderer is None:
            renderer = renderers[deck] = Renderer(get_deck(deck))
        for scene in scenes:
            if done >= count:
                break
            split = "val" if done in val else "train"
            name = f"{done:06d}"
            image, truth = renderer.render(scene)
            ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            assert ok
            (out / "images" / split / f"{name}.jpg").write_bytes(jpg.tobytes())
            boxes = yolo_labels(truth, size)
            (out / "labels" / split / f"{name}.txt").write_text(
                "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in boxes),
                encoding="ascii")
            for cls, *_ in boxes:
                per_class[CLASSES[cls]] += 1
            labels += len(boxes)
            for k, card in enumerate(truth.cards):
                if card.visible < CROP_VISIBLE or card.moving:
                    continue
                cls_name = card.card if card.face_up else "back"
                folder = out / "crops" / split / cls_name
                folder.mkdir(exist_ok=True)
                ok, jpg = cv2.imencode(".jpg", crop_card(image, card.quad),
                                       [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
                (folder / f"{name}-{k:02d}.jpg").write_bytes(jpg.tobytes())
                crops += 1
            done += 1
            if progress is not None:
                progress(done, count)
    data = {"train": "images/train", "val": "images/val", "nc": len(CLASSES),
            "names": dict(enumerate(CLASSES))}
    (out / "data.yaml").write_text(
        "# Spit referee synthetic card dataset (spit-referee dataset); root = this folder\n"
        + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    summary = DatasetSummary(count, count - n_val, n_val, labels, crops, per_class)
    (out / "dataset.json").write_text(json.dumps(
        {"seed": seed, "count": count, "size": list(size), "train": summary.train, "val": summary.val,
         "labels": labels, "crops": crops, "min_visible": MIN_VISIBLE, "per_class": per_class},
        indent=1) + "\n", encoding="utf-8")
    log.info("dataset: %d frames, %d labels, %d crops in %s", count, labels, crops, out)
    return summary
