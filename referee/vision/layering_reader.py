"""Which of two slapping hands lies underneath, read from one still view by a small learned model.

    reader = LayeringReader.load()                 # models/hand-layering.onnx, onnxruntime
    p = reader.p_a_under(strip)                    # the strip hand_tracks watches, last view
    layering = reader.layering(strip)              # as a Layering for decide_slap

The later hand lands on the first, so the first lies underneath (rule E2). Telling that from
the hands' colours fails when both players have the same skin (and often when they do not:
the colour of a hand is learnt where the two lie apart, which in a fast slap they hardly do),
so a small convolutional network reads it from the picture itself: the strip of the mat round
the slapped pile (:func:`~referee.vision.arbitration.hand_tracks`' strip, its whole height,
A's edge at the bottom) as it looks once both hands lie still. It sees where one hand's outline
runs unbroken across the other and which way that hand's fingers point. It is trained on
simulator renders of slap races (``spit-referee train-hand-layering``; data, figures and
limits in models/HAND_LAYERING.md); its input is standardised per picture and colour channel
(:func:`standardise`), the same in training.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import InputError
from referee.players import Player
from referee.vision.arbitration import Layering
from referee.vision.recognize import onnx_session

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "models" / "hand-layering.onnx"
HINT = ("hand-layering model", "spit-referee train-hand-layering", "models/HAND_LAYERING.md")
#: added to each channel's spread before dividing: a flat picture is not blown up into noise
STD_FLOOR = 8.0


def standardise(strips: np.ndarray) -> np.ndarray:
    """(n, h, w, 3) BGR strips -> (n, 3, h, w) float32, each picture's channels brought to mean
    0 and spread 1 (so a dimmer lamp or a warmer light does not change the answer)."""
    x = np.asarray(strips, np.float32)
    if x.ndim != 4 or x.shape[3] != 3:
        raise ValueError(f"strips must be (n, h, w, 3) BGR, got shape {x.shape}")
    mean = x.mean(axis=(1, 2), keepdims=True)
    spread = x.std(axis=(1, 2), keepdims=True) + STD_FLOOR
    return np.ascontiguousarray(((x - mean) / spread).transpose(0, 3, 1, 2))


@dataclass(frozen=True)
class LayeringReader:
    """The exported model (one input ``(n, 3, h, w)``, one output: the log-odds that A's hand
    lies underneath) and the strip size it was trained on (its metadata ``input_hw``)."""

    path: Path
    session: Any
    input_hw: tuple[int, int]

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 1) -> LayeringReader:
        """MissingPrerequisite when the file is not there, InputError when it is not a model
        exported by ``spit-referee train-hand-layering``."""
        p = Path(path) if path is not None else DEFAULT_PATH
        session: Any = onnx_session(p, threads, HINT)
        raw = session.get_modelmeta().custom_metadata_map.get("input_hw")
        try:
            h, w = (int(v) for v in json.loads(raw))
        except (TypeError, ValueError):
            raise InputError("the ONNX model has no 'input_hw' metadata (not exported by "
                             "spit-referee train-hand-layering)", str(p)) from None
        return cls(p, session, (h, w))

    @staticmethod
    def shared(path: str | Path | None = None) -> LayeringReader:
        """:meth:`load`, once per file in a process (a referee per clip need not load it again)."""
        return _shared(str(Path(path).resolve()) if path is not None else str(DEFAULT_PATH))

    def p_a_under(self, strip: np.ndarray) -> float:
        """P(A's hand lies underneath) for one BGR strip (resized to the model's size when it
        differs: another mat or margin)."""
        img = np.asarray(strip)
        if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise ValueError(f"a strip must be a BGR uint8 picture, got {img.dtype} {img.shape}")
        h, w = self.input_hw
        if img.shape[:2] != (h, w):
            img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        name = self.session.get_inputs()[0].name
        logit = float(np.asarray(self.session.run(None, {name: standardise(img[None])})[0]).ravel()[0])
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))

    def layering(self, strip: np.ndarray, dead_zone: float = 0.1) -> Layering:
        """:meth:`p_a_under` as a :class:`~referee.vision.arbitration.Layering`: no side named
        within ``dead_zone`` of 0.5."""
        p = self.p_a_under(strip)
        under = Player.A if p >= 0.5 + dead_zone else Player.B if p <= 0.5 - dead_zone else None
        reason = (f"{under}'s hand lies underneath, as the layering model reads the picture" if under
                  else f"no clear layering: the layering model reads P(A's hand underneath) {p:.2f}")
        return Layering(under, p if under else 0.5, abs(2 * p - 1) if under else 0.0, {}, reason)


@functools.lru_cache(maxsize=4)
def _shared(path: str) -> LayeringReader:
    return LayeringReader.load(path)
