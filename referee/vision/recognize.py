"""Card recognition at run time: the exported YOLO model (ONNX) run with onnxruntime, no torch.

    rec = Recognizer.load()                      # models/cards.onnx, or Recognizer.load(path)
    found = rec.detect(image)                    # every card in a BGR photo, no calibration
    zones = rec.recognize_zones(crops)           # one row per rectified zone crop

What the model sees (see models/MODEL_CARD.md for why): one detector over the image with
three kinds of object, all from the same forward pass:

- ``index:XX`` (classes 0-51): a card's corner index (rank and suit symbol), by identity.
  The index is standard across decks, so this is what generalises to a deck never seen;
- ``card`` (52): a face-up card, whole, whatever its identity;
- ``back`` (53): a face-down card, whole; ``hand`` (54): a hand or forearm.

:meth:`Recognizer.detect` keeps each whole card and gives it the identity of the best corner
index whose centre lies inside its box (each index serves one card); a face-up card with no
readable index keeps the label ``card``, and an index whose card body was not found (a card
mostly covered) becomes a card of its own with the index's box. A zone crop with no card in
it is ``empty``. The identities come from the index classifier (``NAME-index.onnx``), which
reads each detected index; on zone crops the face classifier (``NAME-face.onnx``) reads the
top card whole too, and its rank and colour are joined with the index's reading.

:class:`Detections` is one dataclass of parallel numpy arrays, checked when built and
filtered with boolean masks (``found[found.confidence > 0.5]``), in the style of supervision.
"""

from __future__ import annotations

import ast
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from referee.cards import FULL_DECK
from referee.errors import InputError, MissingPrerequisite

log = logging.getLogger(__name__)

CODES: tuple[str, ...] = tuple(card.code for card in FULL_DECK)
#: The model's classes, in order: 52 corner indices by identity, then whole cards and hands.
CLASSES: tuple[str, ...] = (*(f"index:{c}" for c in CODES), "card", "back", "hand")
CARD, BACK, HAND = len(CODES), len(CODES) + 1, len(CODES) + 2
EMPTY = -1
#: The detector's classes: where things are. Identity comes from the index classifier.
DETECTOR_CLASSES: tuple[str, ...] = ("index", "card", "back", "hand")
DET_INDEX, DET_CARD, DET_BACK, DET_HAND = range(4)
#: The classifier reads a square crop of this side around a detected corner index ...
INDEX_CROP = 64
#: ... whose side is the index box's longer side times this (room for a box that is a bit off).
INDEX_PAD = 1.2
#: Each index is read at these pads and the readings joined (their geometric mean,
#: normalised: an identity must be read at every pad): a box a bit off, or an index small in
#: its crop, is misread at one scale more often than at all three. On the referee's own zone
#: reads of the 20 evaluation games (stop 24's model runs; the truth's face-up tops), wrong
#: identities fell from 144 to 99 of 1755 reads at 960x540 and from 80 to 40 of 1662 at
#: 1280x720. One pad of 1.0 or 1.1, or two (1.0 and 1.2), gained less; the arithmetic mean
#: as much, but it read fewer cards surely (models/MODEL_CARD.md).
INDEX_PADS: tuple[float, ...] = (1.0, 1.2, 1.4)
#: The face classifier reads a whole face-up card: its box (a little wider, for a box that is
#: a bit off) squeezed into a square of this side. It sees the pips and the court figures,
#: which tell a rank when the corner index is too small to read (game 5009's deck).
FACE_CROP = 64
FACE_PAD = 1.06
#: A zone's card read by its indices and its face: each index's reading joined with the
#: face's rank and colour as p_index^(1 - w) * p_face^w, normalised (w = this; join_face).
#: On the referee's own zone reads of the 20 evaluation games (stop 25's runs), wrong
#: identities fell from 47 to 32 of 1667 at 1280x720 and from 132 to 82 of 1807 at 960x540
#: (models/MODEL_CARD.md: other weights, and the face's whole reading, suits too).
FACE_WEIGHT = 0.33
#: Where the shipped model lives and what it is called.
MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = MODELS_DIR / "cards.onnx"
LETTERBOX_FILL = 114  # ultralytics' grey
ZONE_IMGSZ = 160  # a zone crop is scaled so that its card is about as big as in training frames
STRIDE = 32  # the model's largest stride: a dynamic input's sides are multiples of it


def _label_of(class_id: int) -> str:
    if 0 <= class_id < len(CODES):
        return CODES[class_id]
    if class_id == EMPTY:
        return "empty"
    return CLASSES[class_id]


@dataclass(frozen=True)
class Detections:
    """Parallel arrays, one row per object.

    ``xyxy`` (n, 4) float32 pixels of the input image (or of its own crop, for zones);
    ``class_id`` (n,) int: 0-51 a card's identity in :data:`referee.cards.FULL_DECK` order,
    52 a face-up card whose index was not read, 53 a back, 54 a hand, -1 an empty zone;
    ``label`` (n,) str: the card code (``"QH"``), ``"card"``, ``"back"``, ``"hand"`` or
    ``"empty"``; ``confidence`` (n,) float32 in [0, 1]; ``image_index`` (n,) int: which image
    of a batch the row belongs to (0 for a single image); ``runner_up`` (n,) int: the identity
    (0-51) read next most surely for an identified card, else -1, and
    ``runner_up_confidence`` (n,) float32 its confidence (0 when none): what the referee falls
    back on when the game shows the first reading impossible (a card already face up elsewhere).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    label: np.ndarray
    image_index: np.ndarray
    runner_up: np.ndarray
    runner_up_confidence: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4):
            raise ValueError(f"xyxy must be (n, 4), got {self.xyxy.shape}")
        for name in ("confidence", "class_id", "label", "image_index", "runner_up", "runner_up_confidence"):
            arr = getattr(self, name)
            if arr.shape != (n,):
                raise ValueError(f"{name} must be ({n},), got {arr.shape}")
        if n and not np.all(np.isfinite(self.xyxy)):
            raise ValueError("xyxy holds a NaN or an infinity")
        if n and np.any(self.xyxy[:, 2:] < self.xyxy[:, :2]):
            raise ValueError("xyxy must have x2 >= x1 and y2 >= y1")
        if n and (np.any(self.confidence < 0) or np.any(self.confidence > 1)):
            raise ValueError("confidence must lie in [0, 1]")
        if n and (np.any(self.class_id < EMPTY) or np.any(self.class_id >= len(CLASSES))):
            raise ValueError(f"class_id must lie in [{EMPTY}, {len(CLASSES) - 1}]")
        if n and (np.any(self.runner_up < -1) or np.any(self.runner_up >= len(CODES))):
            raise ValueError(f"runner_up must lie in [-1, {len(CODES) - 1}]")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64),
                   np.zeros(0, dtype="<U5"), np.zeros(0, np.int64), np.zeros(0, np.int64),
                   np.zeros(0, np.float32))

    @classmethod
    def build(cls, xyxy: Sequence[Sequence[float]] | np.ndarray, confidence: Sequence[float] | np.ndarray,
              class_id: Sequence[int] | np.ndarray, image_index: Sequence[int] | np.ndarray | None = None,
              runner_up: Sequence[int] | np.ndarray | None = None,
              runner_up_confidence: Sequence[float] | np.ndarray | None = None) -> Detections:
        """Detections from plain sequences; labels follow from the class ids (no runner-up
        identities unless given)."""
        ids = np.asarray(class_id, np.int64).reshape(-1)
        boxes = np.asarray(xyxy, np.float32).reshape(-1, 4)
        idx = np.zeros(len(ids), np.int64) if image_index is None else np.asarray(image_index, np.int64)
        labels = np.array([_label_of(int(c)) for c in ids], dtype="<U5")
        second = np.full(len(ids), -1, np.int64) if runner_up is None else np.asarray(runner_up, np.int64)
        second_conf = (np.zeros(len(ids), np.float32) if runner_up_confidence is None
                       else np.asarray(runner_up_confidence, np.float32))
        return cls(boxes, np.asarray(confidence, np.float32).reshape(-1), ids, labels, idx, second,
                   second_conf)

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, key: np.ndarray | slice | int) -> Detections:
        """Rows selected by a boolean mask, an index array, a slice or one index."""
        if isinstance(key, int | np.integer):
            key = np.array([key])
        return Detections(self.xyxy[key], self.confidence[key], self.class_id[key], self.label[key],
                          self.image_index[key], self.runner_up[key], self.runner_up_confidence[key])

    @property
    def is_card(self) -> np.ndarray:
        """Mask of face-up cards, identified or not."""
        return (self.class_id >= 0) & (self.class_id <= CARD)

    def cards_json(self) -> list[dict[str, object]]:
        """The rows as ``{"card", "confidence", "box"}`` dicts (the ``detect --json`` form)."""
        return [{"card": str(lab), "confidence": round(float(c), 4),
                 "box": [round(float(v), 1) for v in box]}
                for lab, c, box in zip(self.label, self.confidence, self.xyxy, strict=True)]


# ---------------------------------------------------------------------------- pre/post-processing


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model input: ``input = image * scale + (pad_x, pad_y)``."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        out = xyxy.astype(np.float32).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """``image`` (BGR) scaled to fit ``size`` (width, height) keeping its aspect, centred on grey."""
    w, h = size
    ih, iw = image.shape[:2]
    scale = min(w / iw, h / ih)
    nw, nh = max(1, round(iw * scale)), max(1, round(ih * scale))
    pad_x, pad_y = (w - nw) // 2, (h - nh) // 2
    out = np.full((h, w, 3), LETTERBOX_FILL, np.uint8)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    out[pad_y:pad_y + nh, pad_x:pad_x + nw] = cv2.resize(image, (nw, nh), interpolation=interp)
    return out, Letterbox(scale, float(pad_x), float(pad_y))


def index_crop(image: np.ndarray, xyxy: np.ndarray, size: int = INDEX_CROP, pad: float = INDEX_PAD
               ) -> np.ndarray:
    """The classifier's input for one corner index: the square of side ``pad`` x the box's
    longer side, centred on the box ``xyxy`` (image pixels), scaled to ``size`` x ``size``;
    parts outside the image repeat its edge."""
    x1, y1, x2, y2 = (float(v) for v in xyxy)
    side = max(x2 - x1, y2 - y1, 1.0) * pad
    k = size / side
    m = np.array([[k, 0, size / 2 - k * (x1 + x2) / 2], [0, k, size / 2 - k * (y1 + y2) / 2]], np.float32)
    return cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def face_crop(image: np.ndarray, xyxy: np.ndarray, size: int = FACE_CROP, pad: float = FACE_PAD,
              turn: np.ndarray | None = None) -> np.ndarray:
    """The face classifier's input for one whole card: the box ``xyxy`` (image pixels), each
    side times ``pad`` about its centre, scaled to ``size`` x ``size`` (not keeping its
    aspect: every card box is squeezed alike); parts outside the image repeat its edge.
    ``turn`` (2x3 affine, image pixels -> the pixels ``xyxy`` is given in): the box lies in
    the image so turned (training cuts a card turned upright); default: the image itself."""
    x1, y1, x2, y2 = (float(v) for v in xyxy)
    w, h = max(round((x2 - x1) * pad), 1), max(round((y2 - y1) * pad), 1)
    m = np.array([[1, 0, 0], [0, 1, 0]], np.float64) if turn is None else np.asarray(turn, np.float64).copy()
    m[:, 2] += (w / 2 - (x1 + x2) / 2, h / 2 - (y1 + y2) / 2)
    box = cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if w > size or h > size else cv2.INTER_LINEAR  # area: pips do not alias
    return cv2.resize(box, (size, size), interpolation=interp)


def to_blob(images: Sequence[np.ndarray]) -> np.ndarray:
    """BGR uint8 images of one size to the model's (n, 3, h, w) float32 RGB in [0, 1]."""
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / 255.0


def _group(class_id: np.ndarray) -> np.ndarray:
    """NMS groups: indices compete with indices, whole cards (face up or back) with each other."""
    return np.where(class_id == DET_INDEX, 0, np.where(class_id == DET_HAND, 2, 1))


def decode(output: np.ndarray, conf: float, iou: float, max_det: int = 300
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One image's raw detector output ``(4 + 4, anchors)`` (cx, cy, w, h, class scores) to
    boxes (xyxy, input pixels), scores and detector class ids after the threshold and NMS."""
    if output.ndim != 2 or output.shape[0] != 4 + len(DETECTOR_CLASSES):
        raise ValueError(f"model output must be ({4 + len(DETECTOR_CLASSES)}, anchors), got {output.shape}")
    scores_all = output[4:]
    class_id = scores_all.argmax(0)
    scores = scores_all[class_id, np.arange(scores_all.shape[1])]
    keep = scores >= conf
    if not np.any(keep):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    cx, cy, w, h = output[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).astype(np.float32)
    return nms(xyxy, scores[keep].astype(np.float32), class_id[keep].astype(np.int64), conf, iou, max_det)


def nms(xyxy: np.ndarray, scores: np.ndarray, class_id: np.ndarray, conf: float, iou: float,
        max_det: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Non-maximum suppression within each :func:`_group`; kept rows by descending score."""
    if not len(xyxy):
        return xyxy, scores, class_id
    xywh = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], 1)
    chosen = cv2.dnn.NMSBoxesBatched(xywh.tolist(), scores.tolist(), _group(class_id).tolist(), conf, iou,
                                     top_k=max_det)
    kept = np.asarray(chosen, np.int64).reshape(-1)
    kept = kept[np.argsort(-scores[kept], kind="stable")]
    return xyxy[kept], scores[kept], class_id[kept]


def assign(xyxy: np.ndarray, scores: np.ndarray, class_id: np.ndarray, index_code: np.ndarray,
           index_prob: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Whole cards with the identity of a corner index inside them (see the module doc).

    ``class_id`` are detector classes; ``index_code`` / ``index_prob`` give each row the
    classifier's identity (0-51) and probability (used for index rows only). Returns boxes,
    confidences and output class ids (identity, :data:`CARD`, :data:`BACK`, :data:`HAND`) and a
    mask of the rows that are a lone corner index (no card body found around it). A card's
    confidence is the detector's for the card times the classifier's for its index."""
    whole = np.flatnonzero(class_id != DET_INDEX)
    index = np.flatnonzero(class_id == DET_INDEX)
    used = np.zeros(len(class_id), bool)
    out_box: list[np.ndarray] = []
    out_conf: list[float] = []
    out_cls: list[int] = []
    as_output = {DET_CARD: CARD, DET_BACK: BACK, DET_HAND: HAND}
    for i in whole[np.argsort(-scores[whole], kind="stable")]:
        cid, conf = as_output[int(class_id[i])], float(scores[i])
        if cid == CARD and len(index):
            x1, y1, x2, y2 = xyxy[i]
            centres = (xyxy[index, :2] + xyxy[index, 2:]) / 2
            inside = index[(centres[:, 0] >= x1) & (centres[:, 0] <= x2) & (centres[:, 1] >= y1)
                           & (centres[:, 1] <= y2) & ~used[index]]
            if len(inside):
                best = inside[np.argmax(scores[inside] * index_prob[inside])]
                used[best] = True
                cid, conf = int(index_code[best]), conf * float(index_prob[best])
        out_box.append(xyxy[i])
        out_conf.append(conf)
        out_cls.append(cid)
    for j in index[~used[index]]:
        out_box.append(xyxy[j])
        out_conf.append(float(scores[j] * index_prob[j]))
        out_cls.append(int(index_code[j]))
    if not out_box:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64), np.zeros(0, bool)
    lone = np.arange(len(out_box)) >= len(whole)
    return (np.stack(out_box).astype(np.float32), np.array(out_conf, np.float32),
            np.array(out_cls, np.int64), lone)


# ---------------------------------------------------------------------------- the models


def _thread_count() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else (os.cpu_count() or 1), 4))


CARD_MODEL_HINT = ("card model", "spit-referee train", "models/MODEL_CARD.md")


def onnx_session(path: Path, threads: int, hint: tuple[str, str, str] = CARD_MODEL_HINT) -> object:
    """An onnxruntime session of ``path``; MissingPrerequisite or InputError naming the file.
    ``hint``: what the model is, the command that trains it, and its model card."""
    what, command, card = hint
    if not path.is_file():
        raise MissingPrerequisite(f"no {what} at {path}: train one with {command}, see {card}")
    try:
        import onnxruntime as ort
    except ImportError:  # pragma: no cover - a dependency of the package
        raise MissingPrerequisite("onnxruntime is not installed: pip install -e .") from None
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # two sessions run one after the other (detector, classifier): a pool left spinning after its
    # run takes the cores from the next one (2 cores, paired runs: 12 zone crops 70 -> 52 ms
    # median; a whole photo, one session, 84 -> 91 ms)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for a bad file
        raise InputError(f"not a readable ONNX model ({str(exc).splitlines()[0][:160]}); "
                         f"train one with {command} or restore the file", str(path)) from None


def _names(session: object, path: Path) -> tuple[str, ...]:
    """The class names an ultralytics export writes into the model's metadata."""
    raw = session.get_modelmeta().custom_metadata_map.get("names")  # type: ignore[attr-defined]
    if raw is None:
        raise InputError("the ONNX model has no 'names' metadata (not exported by spit-referee train)",
                         str(path))
    try:
        parsed = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        raise InputError(f"unreadable 'names' metadata {raw[:60]!r}", str(path)) from None
    if isinstance(parsed, dict):
        return tuple(str(parsed[k]) for k in sorted(parsed))
    return tuple(str(n) for n in parsed)


def index_model_path(detector: str | Path) -> Path:
    """Where the index classifier of a detector lives: ``NAME-index.onnx`` beside ``NAME.onnx``."""
    detector = Path(detector)
    return detector.with_name(f"{detector.stem}-index{detector.suffix}")


def face_model_path(detector: str | Path) -> Path:
    """Where the face classifier of a detector lives: ``NAME-face.onnx`` beside ``NAME.onnx``."""
    detector = Path(detector)
    return detector.with_name(f"{detector.stem}-face{detector.suffix}")


class Recognizer:
    """The card models, loaded once; :meth:`detect` and :meth:`recognize_zones` run them.

    ``path`` is the detector (``models/cards.onnx``); the corner-index classifier is read from
    ``index_path``, by default ``NAME-index.onnx`` beside it; the face classifier from
    ``face_path``, by default ``NAME-face.onnx`` beside it when that file is there (without
    it, zones are read by their indices alone); ``face_path=False``: none."""

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = 0.5,
                 threads: int | None = None, index_path: str | Path | None = None,
                 scales: Sequence[float] = (1.0, 0.5), index_pads: Sequence[float] = INDEX_PADS,
                 face_path: str | Path | Literal[False] | None = None,
                 face_weight: float = FACE_WEIGHT) -> None:
        if not 0 < conf < 1 or not 0 < iou <= 1:
            raise ValueError(f"conf must lie in (0, 1) and iou in (0, 1], got {conf}, {iou}")
        if not scales or any(not 0 < s <= 1 for s in scales):
            raise ValueError(f"scales must lie in (0, 1], got {scales}")
        if not index_pads or any(not 0.5 <= p <= 3 for p in index_pads):
            raise ValueError(f"index_pads must lie in [0.5, 3], got {index_pads}")
        if not 0 <= face_weight <= 1:
            raise ValueError(f"face_weight must lie in [0, 1], got {face_weight}")
        self.face_weight = face_weight
        self.index_pads = tuple(index_pads)
        self.path = Path(path)
        self.index_path = Path(index_path) if index_path is not None else index_model_path(self.path)
        self.conf, self.iou, self.scales = conf, iou, tuple(scales)
        n_threads = threads or _thread_count()
        self.session: Any = onnx_session(self.path, n_threads)
        names = _names(self.session, self.path)
        if names != DETECTOR_CLASSES:
            raise InputError(f"not a card detector of this version: its classes are {names[:4]}... "
                             f"({len(names)}), expected {DETECTOR_CLASSES}; retrain with spit-referee train",
                             str(self.path))
        self.index_session, self.index_codes, self.index_size = self._classifier(
            self.index_path, n_threads, "a corner-index classifier")
        if face_path is None:
            default = face_model_path(self.path)
            face_path = default if default.is_file() else False
        self.face_path = None if face_path is False else Path(face_path)
        self.face_session: Any = None
        if self.face_path is not None:
            self.face_session, self.face_codes, self.face_size = self._classifier(
                self.face_path, n_threads, "a card-face classifier")
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.imgsz = self._imgsz(self.session.get_modelmeta().custom_metadata_map, inp.shape)
        log.info("card models %s, %s, %s: input %s, %d threads", self.path, self.index_path,
                 self.face_path or "no face classifier", self.imgsz, n_threads)

    def _classifier(self, path: Path, threads: int, what: str) -> tuple[Any, np.ndarray, int]:
        """A 52-identity classifier's session, its output columns' identities (0-51) and its
        crop side (fixed by the graph, else the ``imgsz`` its export wrote in the metadata)."""
        session: Any = onnx_session(path, threads)
        names = _names(session, path)
        if sorted(names) != sorted(CODES):
            raise InputError(f"not {what}: its classes are {names[:4]}... ({len(names)}), expected the "
                             "52 card codes; retrain with spit-referee train", str(path))
        shape = session.get_inputs()[0].shape
        size = int(shape[2]) if isinstance(shape[2], int) else self._imgsz(
            session.get_modelmeta().custom_metadata_map, shape)[0]
        return session, np.array([CODES.index(n) for n in names], np.int64), size

    @classmethod
    def load(cls, path: str | Path | None = None, **kwargs: Any) -> Recognizer:
        """The model at ``path``, or the shipped one (:data:`DEFAULT_MODEL`)."""
        return cls(path or DEFAULT_MODEL, **kwargs)

    def _imgsz(self, meta: dict[str, str], shape: list[object]) -> tuple[int, int]:
        """(width, height) of a whole-image input: fixed by the graph, else from the metadata."""
        h, w = shape[2], shape[3]
        if isinstance(h, int) and isinstance(w, int):
            return w, h
        try:
            size = ast.literal_eval(meta.get("imgsz", "[640, 640]"))
            return (int(size[1]), int(size[0])) if isinstance(size, list | tuple) else (int(size), int(size))
        except (ValueError, SyntaxError, TypeError, IndexError):
            return 640, 640

    @property
    def fixed_input(self) -> bool:
        shape = self.session.get_inputs()[0].shape
        return all(isinstance(s, int) for s in shape[2:])

    def _auto_size(self, images: Sequence[np.ndarray], scale: float = 1.0) -> tuple[int, int]:
        """The input for whole images: the long side at the model's size (times ``scale``), the
        short side only as long as the images need, rounded up to the stride (a 1280x720 photo
        at 960 is run at 960x544, not 960x960: 43 % less work)."""
        long = max(self.imgsz) * scale
        fit = min(long / max(im.shape[:2]) for im in images)
        w = max(round(im.shape[1] * fit) for im in images)
        h = max(round(im.shape[0] * fit) for im in images)
        return max(STRIDE, -(-w // STRIDE) * STRIDE), max(STRIDE, -(-h // STRIDE) * STRIDE)

    def _run(self, session: Any, blob: np.ndarray, width: int) -> np.ndarray:
        batch = session.get_inputs()[0].shape[0]
        if isinstance(batch, int) and batch < len(blob):  # exported with a fixed batch size
            return np.concatenate([self._run(session, blob[i:i + batch], width)
                                   for i in range(0, len(blob), batch)])
        out = session.run(None, {session.get_inputs()[0].name: blob})[0]
        if out.ndim < 2 or out.shape[0] != blob.shape[0] or out.shape[1] != width:
            path = {id(self.session): self.path, id(self.index_session): self.index_path}.get(
                id(session), self.face_path)
            raise InputError(f"unexpected model output {out.shape} for input {blob.shape}", str(path))
        return out

    def index_probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(n, 52) float32: each corner-index crop's probability of each identity (columns in
        :data:`CODES` order)."""
        return self._identities(self.index_session, self.index_codes, crops)

    def face_probabilities(self, faces: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """(n, 52) float32: each whole face-up card's probability of each identity, for (image,
        box) pairs (:func:`face_crop`); all zeros when there is no face classifier."""
        if self.face_session is None:
            return np.zeros((len(faces), len(CODES)), np.float32)
        return self._identities(self.face_session, self.face_codes,
                                [face_crop(image, box, self.face_size) for image, box in faces])

    def _identities(self, session: Any, codes: np.ndarray, crops: Sequence[np.ndarray]) -> np.ndarray:
        """A classifier's (n, 52) probabilities of ``crops``, its columns put in :data:`CODES` order."""
        if not crops:
            return np.zeros((0, len(CODES)), np.float32)
        raw = self._run(session, to_blob(crops), len(CODES))
        probs = np.zeros_like(raw, dtype=np.float32)
        probs[:, codes] = raw
        return probs.clip(0, 1)

    def read_indices(self, indices: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """(n, 52) float32: each corner index's probability of each identity, for (image, box)
        pairs (the box in the image's pixels): its crops at each of ``index_pads`` read in one
        batch, and their probabilities joined (:data:`INDEX_PADS`)."""
        crops = [index_crop(image, box, self.index_size, pad) for image, box in indices
                 for pad in self.index_pads]
        probs = self.index_probabilities(crops).reshape(len(indices), len(self.index_pads), len(CODES))
        joint = np.exp(np.log(probs + 1e-6).mean(1))
        out: np.ndarray = (joint / joint.sum(1, keepdims=True)).astype(np.float32)
        return out

    def detect(self, image: np.ndarray) -> Detections:
        """Every card (and hand) in one BGR image; boxes in the image's pixels."""
        return self.detect_batch([image])

    def detect_batch(self, images: Sequence[np.ndarray], size: tuple[int, int] | None = None
                     ) -> Detections:
        """:meth:`detect` for several images at once (``image_index`` says which)."""
        return concat(self._detect(images, size))

    def _locate(self, images: Sequence[np.ndarray], size: tuple[int, int]
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The detector at one input size: per image, boxes (image pixels), scores, classes."""
        boxed = [letterbox(im, size) for im in images]
        out = self._run(self.session, to_blob([b for b, _ in boxed]), 4 + len(DETECTOR_CLASSES))
        found = []
        for raw, (_, lb) in zip(out, boxed, strict=True):
            xyxy, scores, cls = decode(raw, self.conf, self.iou)
            found.append((lb.to_image(xyxy), scores, cls))
        return found

    def _detect(self, images: Sequence[np.ndarray], size: tuple[int, int] | None) -> list[Detections]:
        """Per image: its detections.

        Whole images are run at each of ``scales`` (the detector learnt cards of one range of
        sizes; a close-up photo's cards are found at the smaller scale) and the boxes merged."""
        if not images:
            return []
        images = [_bgr(im) for im in images]
        if self.fixed_input:
            sizes = [self.imgsz]
        elif size is not None:
            sizes = [size]
        else:
            sizes = list(dict.fromkeys(self._auto_size(images, s) for s in self.scales))
        per_size = [self._locate(images, sz) for sz in sizes]
        located = []
        for k, image in enumerate(images):
            parts = [found[k] for found in per_size]
            xyxy = np.concatenate([p[0] for p in parts]).reshape(-1, 4)
            scores = np.concatenate([p[1] for p in parts])
            cls = np.concatenate([p[2] for p in parts])
            if len(sizes) > 1:
                xyxy, scores, cls = nms(xyxy, scores, cls, self.conf, self.iou)
            h, w = image.shape[:2]
            xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
            xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
            located.append((xyxy, scores, cls))
        read = self.read_indices([(images[k], box) for k, (xyxy, _, cls) in enumerate(located)
                                  for box in xyxy[cls == DET_INDEX]])
        codes = read.argmax(1)
        probs = read[np.arange(len(codes)), codes]
        out, start = [], 0
        for k, (xyxy, scores, cls) in enumerate(located):
            n = int(np.count_nonzero(cls == DET_INDEX))
            code, prob = np.zeros(len(cls), np.int64), np.zeros(len(cls), np.float32)
            code[cls == DET_INDEX], prob[cls == DET_INDEX] = codes[start:start + n], probs[start:start + n]
            start += n
            boxes, conf, ids, _ = assign(xyxy, scores, cls, code, prob)
            out.append(Detections.build(boxes, conf, ids, np.full(len(ids), k)))
        return out

    def recognize_zones(self, crops: Sequence[np.ndarray], size: int = ZONE_IMGSZ) -> Detections:
        """One row per zone crop (rectified, a card about upright in it): the card on top
        (its identity, ``card`` when unread, or ``back``) or ``empty`` (box = the whole crop,
        confidence = how sure it is that no card is there).

        The detector runs on the crops scaled to ``size`` (the crop's long side: at 160 a card of
        a live zone crop is about 80 x 115 pixels; at 96 the fixtures' events recall fell from
        0.92 to 0.79). The card on top is the whole card (face up or back) the detector is
        surest of; only the corner indices inside it are read, from the crop itself, each at the
        pads of :meth:`read_indices`. With no whole card, the surest lone index is taken (a card
        mostly covered). The readings' support
        (each index's score times its reading, joined with the card's face when there is a face
        classifier: :func:`join_face`) ranks the two likeliest identities; of those, the
        one reported surer (the card's score, not its index's, times the reading) names it:
        in the evaluation games' zone readings (stop 23's model runs, 960x540 and 1280x720) the
        runner-up was reported surer 31 times, and the truth was the runner-up 16 times, the
        first 9 times."""
        if not crops:
            return Detections.empty()
        images = [_bgr(c) for c in crops]
        shape = self.imgsz if self.fixed_input else (size, size)
        located = self._locate(images, shape)
        tops: list[tuple[np.ndarray, float, int, np.ndarray]] = []  # box, score, class, indices
        reads: list[tuple[np.ndarray, np.ndarray]] = []
        for k, (xyxy, scores, cls) in enumerate(located):
            whole = np.flatnonzero((cls == DET_CARD) | (cls == DET_BACK))
            index = np.flatnonzero(cls == DET_INDEX)
            if len(whole):
                top = whole[np.argmax(scores[whole])]
                if cls[top] == DET_CARD and len(index):
                    x1, y1, x2, y2 = xyxy[top]
                    centres = (xyxy[index, :2] + xyxy[index, 2:]) / 2
                    index = index[(centres[:, 0] >= x1) & (centres[:, 0] <= x2)
                                  & (centres[:, 1] >= y1) & (centres[:, 1] <= y2)]
                else:
                    index = index[:0]
                tops.append((xyxy[top], float(scores[top]), int(cls[top]), index))
            elif len(index):
                tops.append((xyxy[index[0]], float(scores[index[0]]), DET_INDEX, index))
            else:
                tops.append((np.array([0, 0, images[k].shape[1], images[k].shape[0]], np.float32),
                             1.0 - self.conf, -1, index))
            reads.extend((images[k], xyxy[i]) for i in tops[-1][3])
        probs = self.read_indices(reads)
        with_face = [k for k, top in enumerate(tops) if top[2] == DET_CARD and len(top[3])]
        faces = {} if self.face_session is None else dict(zip(
            with_face, self.face_probabilities([(images[k], tops[k][0]) for k in with_face]), strict=True))
        boxes, confs, ids, seconds, second_confs, start = [], [], [], [], [], 0
        as_output = {DET_CARD: CARD, DET_BACK: BACK, -1: EMPTY}
        for k, (box, score, det_cls, index) in enumerate(tops):
            n = len(index)
            cid, conf, second, second_conf = as_output.get(det_cls, CARD), score, -1, 0.0
            if n:
                xyxy, scores, _ = located[k]
                if k in faces:  # each index's reading joined with the card's face
                    probs[start:start + n] = join_face(probs[start:start + n], faces[k], self.face_weight)
                # each identity's support: its surest index (the index found x read as it)
                support = scores[index, None] * probs[start:start + n]
                per_code = support.max(0)
                cid, second = (int(c) for c in np.argsort(per_code)[::-1][:2])
                best, other = int(support[:, cid].argmax()), int(support[:, second].argmax())
                if det_cls == DET_INDEX:  # a lone index: its own box
                    box = xyxy[index[best]]
                found = [score if det_cls == DET_CARD else float(scores[index[r]]) for r in (best, other)]
                conf = found[0] * float(probs[start + best, cid])
                second_conf = found[1] * float(probs[start + other, second])
                if second_conf > conf:  # ranked by the index found, reported by the card found
                    cid, second, conf, second_conf = second, cid, second_conf, conf
            start += n
            boxes.append(box)
            confs.append(min(max(conf, 0.0), 1.0))
            ids.append(cid)
            seconds.append(second)
            second_confs.append(min(max(second_conf, 0.0), 1.0))
        return Detections.build(np.array(boxes, np.float32), confs, ids, np.arange(len(tops)), seconds,
                                second_confs)


def _same_rank_and_colour() -> np.ndarray:
    """(52, 52): 1 where two identities share rank and colour (7C and 7S; 7H and 7D)."""
    key = [(code[:-1], code[-1] in "HD") for code in CODES]
    return np.array([[a == b for b in key] for a in key], np.float32)


SAME_RANK_AND_COLOUR = _same_rank_and_colour()


def join_face(index_probs: np.ndarray, face: np.ndarray, weight: float = FACE_WEIGHT) -> np.ndarray:
    """Readings of a card's corner indices ((n, 52) rows) joined with the reading of its face
    ((52,)): p_index^(1 - weight) * p_face^weight, each row normalised (an identity must be
    read by both). Of the face's reading only its rank and colour count (each identity gets
    the mean of its own and its twin's, 7C and 7S): small pips tell clubs from spades, hearts
    from diamonds, badly (the face classifier's validation crops: rank 94 %, suit 79 % right),
    and which of the two it is, the index says."""
    face = SAME_RANK_AND_COLOUR @ face / 2
    joint = np.exp((1 - weight) * np.log(index_probs + 1e-6) + weight * np.log(face[None] + 1e-6))
    out: np.ndarray = (joint / joint.sum(1, keepdims=True)).astype(np.float32)
    return out


def _bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 image, got {image.shape} {image.dtype}")
    return image


def concat(parts: Sequence[Detections]) -> Detections:
    """One :class:`Detections` of the rows of ``parts``, in order."""
    if not parts:
        return Detections.empty()
    return Detections(np.concatenate([p.xyxy for p in parts]).reshape(-1, 4),
                      np.concatenate([p.confidence for p in parts]),
                      np.concatenate([p.class_id for p in parts]),
                      np.concatenate([p.label for p in parts]).astype("<U5"),
                      np.concatenate([p.image_index for p in parts]),
                      np.concatenate([p.runner_up for p in parts]),
                      np.concatenate([p.runner_up_confidence for p in parts]))


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file; InputError naming the file when it cannot be read."""
    data = np.fromfile(str(path), np.uint8) if Path(path).is_file() else None
    if data is None:
        raise InputError("no such image file", str(path))
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise InputError("not a readable image (JPEG, PNG, ...)", str(path))
    return image


def annotate(image: np.ndarray, found: Detections) -> np.ndarray:
    """A copy of ``image`` with each detection's box and label drawn."""
    out = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 500))
    for box, lab, conf in zip(found.xyxy, found.label, found.confidence, strict=True):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        colour = (0, 200, 0) if lab not in ("card", "back", "hand", "empty") else (0, 160, 255)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick)
        text = f"{lab} {conf:.2f}"
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, thick)
        cv2.rectangle(out, (x1, max(0, y1 - th - 4)), (x1 + tw + 2, y1), colour, -1)
        cv2.putText(out, text, (x1 + 1, y1 - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, (0, 0, 0), thick,
                    cv2.LINE_AA)
    return out
