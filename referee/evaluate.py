"""How well the card model reads cards: held-out renders, the left-out deck, real photographs.

    report = evaluate(Recognizer.load(path), load_config("models/train.yaml"), data_dir)

Sets (each a row of the table ``spit-referee evaluate-recognition`` prints; the model card's
figures come from its JSON):

- ``renders``: ``eval.images`` frames rendered from ``eval.seed`` (never a training seed)
  with the training decks. Whole images through :meth:`Recognizer.detect`: a face-up card
  with a readable corner index counts as found when a detection's box overlaps its box at
  IoU >= 0.5; identity accuracy is over the found cards. Zone crops (cards at least 90 %
  visible and not moving, cut out upright with a zone's margin, backs included) through
  :meth:`Recognizer.recognize_zones`: the share labelled exactly.
- ``holdout-deck``: the same with the deck left out of training (``data.holdout_deck``).
- ``edje``: the real photographs of ``real-photos-edje`` (Pascal VOC): whole-card recall at
  IoU 0.5 and RANK accuracy on the cards found (suits are not labelled there; 9 to ace only).
- ``feliksh``: 52 rectified photographs of one real deck, each a zone crop of known identity.
- ``speed``: median milliseconds of a whole 1280x720 image and of a batch of 12 zone crops
  (cut from the bundled recording by the referee's own cropper).
"""

from __future__ import annotations

import logging
import re
import statistics
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import InputError
from referee.vision.recognize import Detections, Recognizer, read_image

log = logging.getLogger(__name__)

IOU = 0.5
EDJE_RANKS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
FELIKSH_SUITS = "SCDH"  # cr1-13 spades, 14-26 clubs, 27-39 diamonds, 40-52 hearts, each A..K
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ZONE_MARGIN = 0.15  # a zone crop is the card's upright rectangle grown by this much each side


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box of ``a`` (n, 4) with every box of ``b`` (m, 4), xyxy."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), np.float32)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return (inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)).astype(np.float32)


def match(truth: np.ndarray, found: np.ndarray, iou: float = IOU) -> list[tuple[int, int]]:
    """Greedy one-to-one pairs (truth row, found row) by descending IoU, each >= ``iou``."""
    m = iou_matrix(truth, found)
    pairs = []
    while m.size and m.max() >= iou:
        i, j = np.unravel_index(int(np.argmax(m)), m.shape)
        pairs.append((int(i), int(j)))
        m[i, :] = -1
        m[:, j] = -1
    return pairs


@dataclass
class Tally:
    """Counts of one set: truth cards, found (IoU >= 0.5), right among found, zone crops."""

    truth: int = 0
    found: int = 0
    right: int = 0
    zones: int = 0
    zones_right: int = 0

    def add_image(self, truth_boxes: np.ndarray, truth_labels: list[str], found: Detections,
                  same: Callable[[str, str], bool]) -> None:
        cards = found[found.is_card]
        self.truth += len(truth_labels)
        for i, j in match(truth_boxes, cards.xyxy):
            self.found += 1
            self.right += bool(same(truth_labels[i], str(cards.label[j])))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cards": self.truth, "found": self.found, "right": self.right,
                               "recall": _ratio(self.found, self.truth),
                               "accuracy_on_found": _ratio(self.right, self.found)}
        if self.zones:
            out |= {"zones": self.zones, "zones_right": self.zones_right,
                    "zone_accuracy": _ratio(self.zones_right, self.zones)}
        return out


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _rank(code: str) -> str:
    return code[:-1] if len(code) >= 2 and code not in ("card", "back", "hand", "empty") else code


def zone_crop(image: np.ndarray, quad: np.ndarray, margin: float = ZONE_MARGIN) -> np.ndarray:
    """The card ``quad`` (TL TR BR BL) warped upright at 2 px/mm-ish, with a zone's margin around."""
    from referee.sim.dataset import CROP_SIZE

    cw, ch = CROP_SIZE
    mx, my = cw * margin, ch * margin
    dst = np.array([[mx, my], [mx + cw, my], [mx + cw, my + ch], [mx, my + ch]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    size = (int(round(cw + 2 * mx)), int(round(ch + 2 * my)))
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def evaluate_renders(rec: Recognizer, cfg: Any, holdout: bool) -> dict[str, Any]:
    """The ``renders`` or ``holdout-deck`` set (see the module doc)."""
    from referee.train import card_labels, render_frames

    tally = Tally()
    w, h = cfg.data.size
    for image, truth, _deck in render_frames(cfg.eval.seed, cfg.eval.images, cfg.data, holdout=holdout):
        labels = [c for c in card_labels(truth, cfg.data.size, cfg.data.index_visible)
                  if c.code is not None and c.box is not None and c.indices]
        boxes = np.array([[(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]
                          for cx, cy, bw, bh in (c.box for c in labels if c.box)], np.float32).reshape(-1, 4)
        tally.add_image(boxes, [str(c.code) for c in labels], rec.detect(image), lambda a, b: a == b)
        settled = [c for c in truth.cards if c.visible >= 0.9 and not c.moving]
        if settled:
            crops = [zone_crop(image, c.quad) for c in settled]
            zones = rec.recognize_zones(crops)
            want = [c.card if c.face_up else "back" for c in settled]
            tally.zones += len(want)
            tally.zones_right += int(sum(str(a) == b for a, b in zip(zones.label, want, strict=True)))
    return tally.as_dict()


def read_voc(path: Path) -> tuple[np.ndarray, list[str]]:
    """Boxes (xyxy) and names of a Pascal VOC annotation file."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(f"not a Pascal VOC file: {exc}", str(path)) from None
    boxes, names = [], []
    for obj in root.iter("object"):
        bb = obj.find("bndbox")
        name = obj.findtext("name", "").strip().lower()
        if bb is None or name not in EDJE_RANKS:
            raise InputError(f"object {name!r} without a box or of an unknown rank", str(path))
        boxes.append([float(bb.findtext(k, "nan")) for k in ("xmin", "ymin", "xmax", "ymax")])
        names.append(EDJE_RANKS[name])
    return np.array(boxes, np.float32).reshape(-1, 4), names


def _image_beside(xml: Path) -> Path | None:
    for suffix in (".JPG", ".jpg", ".jpeg", ".png"):
        if xml.with_suffix(suffix).is_file():
            return xml.with_suffix(suffix)
    return None


def evaluate_edje(rec: Recognizer, folder: Path, limit: int | None = None) -> dict[str, Any]:
    """Whole-card recall at IoU 0.5 and rank accuracy on the found cards, every photo there."""
    xmls = sorted(folder.glob("*/*.xml")) or sorted(folder.glob("*.xml"))
    if not xmls:
        raise InputError("no Pascal VOC .xml files here", str(folder))
    tally = Tally()
    for xml in xmls[:limit]:
        image_path = _image_beside(xml)
        if image_path is None:
            log.warning("%s: no image beside it, skipped", xml)
            continue
        boxes, ranks = read_voc(xml)
        tally.add_image(boxes, ranks, rec.detect(read_image(image_path)), lambda a, b: a == _rank(b))
    return tally.as_dict() | {"photos": len(xmls[:limit])}


def feliksh_identity(path: Path) -> str | None:
    """The card of ``crN.jpg`` (1-13 spades A..K, then clubs, diamonds, hearts)."""
    m = re.fullmatch(r"cr(\d+)", path.stem)
    if not m or not 1 <= int(m.group(1)) <= 52:
        return None
    n = int(m.group(1)) - 1
    return RANKS[n % 13] + FELIKSH_SUITS[n // 13]


def evaluate_feliksh(rec: Recognizer, folder: Path) -> dict[str, Any]:
    """Each photograph as one zone crop of known identity."""
    files = [(p, feliksh_identity(p)) for p in sorted(folder.glob("cr*.jpg"))]
    known = [(p, c) for p, c in files if c is not None]
    if not known:
        raise InputError("no crN.jpg photographs here", str(folder))
    zones = rec.recognize_zones([read_image(p) for p, _ in known])
    right = sum(str(lab) == code for lab, (_, code) in zip(zones.label, known, strict=True))
    ranks = sum(_rank(str(lab)) == _rank(code) for lab, (_, code) in zip(zones.label, known, strict=True))
    return {"zones": len(known), "zones_right": right, "zone_accuracy": _ratio(right, len(known)),
            "rank_accuracy": _ratio(ranks, len(known))}


def _median_ms(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 2)


DEMO = Path(__file__).resolve().parent / "data" / "demo"


def demo_zone_crops(count: int = 12, frame: int = 30) -> list[np.ndarray]:
    """``count`` zone crops cut by the referee's own :class:`ZoneCropper` from frame ``frame``
    of the bundled recording (its cards, backs and empty zones, as the live path sees them)."""
    from referee.vision.calibration import load_calibration
    from referee.vision.zonecrops import ZoneCropper

    cap = cv2.VideoCapture(str(DEMO / "video.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, frame)
    ok, image = cap.read()
    cap.release()
    if not ok:
        raise InputError(f"cannot read frame {frame} of the bundled recording", str(DEMO / "video.mp4"))
    crops = ZoneCropper(load_calibration(DEMO / "calibration.yaml")).cut(image)
    return (crops * (count // len(crops) + 1))[:count]


def benchmark(rec: Recognizer, repeats: int = 10, seed: int = 0) -> dict[str, Any]:
    """Median ms of :meth:`Recognizer.detect` on a 1280x720 image and of
    :meth:`Recognizer.recognize_zones` on 12 zone crops of the bundled recording
    (:func:`demo_zone_crops`: real cards, so the index classifier runs as it does live)."""
    rng = np.random.default_rng(seed)
    photo = rng.integers(0, 255, (720, 1280, 3), np.uint8)
    crops = demo_zone_crops()
    return {"photo_1280x720_ms": _median_ms(lambda: rec.detect(photo), repeats),
            "zones_12_ms": _median_ms(lambda: rec.recognize_zones(crops), repeats),
            "zone_crop": list(crops[0].shape[1::-1]),
            "photo_input": list(rec.imgsz), "threads": rec.session.get_session_options().intra_op_num_threads}


def evaluate(rec: Recognizer, cfg: Any, data_dir: Path | None, sets: tuple[str, ...],
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every requested set (see the module doc); a set whose data is missing is reported so."""
    report: dict[str, Any] = {"model": str(rec.path), "iou": IOU, "eval_seed": cfg.eval.seed,
                              "eval_images": cfg.eval.images, "holdout_deck": cfg.data.holdout_deck}
    steps: dict[str, Callable[[], dict[str, Any]]] = {
        "renders": lambda: evaluate_renders(rec, cfg, holdout=False),
        "holdout-deck": lambda: evaluate_renders(rec, cfg, holdout=True),
        "edje": lambda: _needs(data_dir, "real-photos-edje", lambda p: evaluate_edje(rec, p)),
        "feliksh": lambda: _needs(data_dir, "real-faces-feliksh", lambda p: evaluate_feliksh(rec, p)),
        "speed": lambda: benchmark(rec),
    }
    for name in sets:
        if progress is not None:
            progress(name)
        t0 = time.perf_counter()
        report[name] = steps[name]() | {"seconds": round(time.perf_counter() - t0, 1)}
    return report


def _needs(data_dir: Path | None, sub: str, run: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    if data_dir is None or not (data_dir / sub).is_dir():
        return {"skipped": f"no {sub} folder under {data_dir}"}
    return run(data_dir / sub)


def table_rows(report: dict[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(set, recall, identity or rank accuracy on found, zone accuracy) for printing."""
    def pct(v: object) -> str:
        return f"{100 * v:.1f} %" if isinstance(v, int | float) else "-"

    for name in ("renders", "holdout-deck", "edje", "feliksh"):
        r = report.get(name)
        if r is None:
            continue
        if "skipped" in r:
            yield name, "skipped", str(r["skipped"]), ""
            continue
        yield name, pct(r.get("recall")), pct(r.get("accuracy_on_found")), pct(r.get("zone_accuracy"))
