"""The truth files written beside every simulated video, and reading them back.

A clip folder holds::

    video.mp4            H.264, constant frame rate; frame i is shown at i / fps
    events.jsonl         the game's records in the shared schema (referee/eventlog.py), with
                         ``frame`` set on every record: the frame whose interval contains t
    calibration.yaml     the TRUE calibration the frames were drawn with, in the format
                         referee.vision.calibration loads (homography and lens model)
    calibration-N.yaml   after the camera was knocked (camera-nudge): the calibration from
                         the change listed in meta.json on
    frames.jsonl.gz      per-frame truth: one JSON object per frame (see below)
    meta.json            seed, scenario, deck, size, fps, frame count, code version, scene
                         changes over time, the hidden cards of every deal

Frame interval i is ``[i / fps, (i + 1) / fps)``, so an event at ``t`` is evidence in frame
``floor(t * fps)`` (times within a microsecond below a boundary count as on it: the records
hold times to a microsecond).

``frames.jsonl.gz`` is :meth:`FrameTruth.to_dict` per frame, made compact: only cards with
some part visible (``visible > 0``), and ``camera`` and ``homography`` (table mm to
undistorted pixels) only in frame 0 and in frames where they changed. :func:`read_frames`
fills them in again. Gzip with no timestamp, so the same frames give the same bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from referee.errors import InputError
from referee.eventlog import read_records_strict, write_records
from referee.events import Record
from referee.sim.camera import Camera
from referee.sim.render import FrameTruth
from referee.vision.calibration import Calibration, FitQuality, load_calibration, save_calibration
from referee.vision.lens import LensModel
from referee.vision.mat import MatLayout

META_FORMAT = "spit-referee-sim/1"
VIDEO, EVENTS, CALIBRATION, FRAMES, META = (
    "video.mp4", "events.jsonl", "calibration.yaml", "frames.jsonl.gz", "meta.json")
_EPS_S = 1e-6


def frame_of(t: float, fps: Fraction) -> int:
    """The frame whose interval ``[i / fps, (i + 1) / fps)`` contains time ``t``."""
    return max(0, math.floor((Fraction(t) + Fraction(_EPS_S)) * fps))


def with_frames(records: Iterable[Record], fps: Fraction) -> list[Record]:
    """Every record with ``frame`` set from its time."""
    return [replace(r, frame=frame_of(r.t, fps)) for r in records]


def write_events(path: str | Path, records: Iterable[Record]) -> int:
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        return write_records(stream, records)


def read_events(path: str | Path) -> list[Record]:
    with open(path, encoding="utf-8") as stream:
        return read_records_strict(stream, str(path))


# ----------------------------------------------------------------------------- calibration


def true_calibration(camera: Camera, layout: MatLayout, source: str = "simulator") -> Calibration:
    """The calibration a perfect ``spit-referee calibrate`` would make of ``camera``: the
    world frame is the mat frame, so image -> mat is the inverse of the camera's table
    homography, with the camera's own lens model (k3 is always 0 in the simulator)."""
    h = np.linalg.inv(camera.homography())
    lens = None
    if camera.has_distortion:
        lens = LensModel(camera.K.copy(), np.array(camera.dist, np.float64), camera.size, 0.0)
    return Calibration(layout=layout, image_size=camera.size, homography=h / h[2, 2],
                       markers_used=layout.marker_ids, quality=FitQuality(0.0, 0.0, 0.0),
                       lens=lens, created="", source=source)


def write_calibration(path: str | Path, camera: Camera, layout: MatLayout, source: str) -> None:
    save_calibration(true_calibration(camera, layout, source), path)


def read_calibration(path: str | Path, layout: MatLayout | None = None) -> Calibration:
    return load_calibration(path, layout)


# ----------------------------------------------------------------------------- frame truth


def _frame_dict(truth: FrameTruth, previous: FrameTruth | None) -> dict[str, Any]:
    """:meth:`FrameTruth.to_dict` for the visible cards, numbers rounded as plain floats
    (pixels to 0.01, so that a float32 quad does not print as 377.1099853515625)."""
    d: dict[str, Any] = {"frame": truth.frame_index, "time": truth.time}
    if previous is None or previous.camera != truth.camera:
        d["camera"] = truth.camera.to_dict()
        d["homography"] = (truth.homography / truth.homography[2, 2]).round(9).tolist()
    d["cards"] = [{"card": c.card, "face_up": c.face_up,
                   "quad": c.quad.astype(np.float64).round(2).tolist(),
                   "visible": round(c.visible, 3), "tag": c.tag, "moving": c.moving}
                  for c in truth.cards if c.visible > 0]
    d["hands"] = [{"owner": h.owner, "outline": h.outline.astype(np.float64).round(1).tolist()}
                  for h in truth.hands]
    return d


class FramesWriter:
    """Writes ``frames.jsonl.gz`` one frame at a time (deterministic bytes)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._raw = open(self.path, "wb")  # noqa: SIM115 (closed in close())
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0,
                                 compresslevel=9)
        self._text = io.TextIOWrapper(self._gz, encoding="utf-8", newline="\n")
        self._previous: FrameTruth | None = None
        self.frames = 0

    def write(self, truth: FrameTruth) -> None:
        self._text.write(json.dumps(_frame_dict(truth, self._previous), separators=(",", ":"),
                                    allow_nan=False) + "\n")
        self._previous = truth
        self.frames += 1

    def close(self) -> None:
        if self._raw.closed:
            return
        self._text.flush()
        self._text.detach()
        self._gz.close()
        self._raw.close()

    def __enter__(self) -> FramesWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def iter_frames(path: str | Path) -> Iterator[dict[str, Any]]:
    """Each frame's truth, with ``camera`` and ``homography`` filled in from earlier frames."""
    camera: Any = None
    homography: Any = None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            for number, line in enumerate(stream, start=1):
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"not valid JSON: {exc.msg}", f"{path}:{number}") from None
                if "camera" in d:
                    camera, homography = d["camera"], d["homography"]
                elif camera is None:
                    raise InputError("the first frame has no camera", f"{path}:{number}")
                else:
                    d["camera"], d["homography"] = camera, homography
                yield d
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read the frame truth: {exc}", str(path)) from None


def read_frames(path: str | Path) -> list[dict[str, Any]]:
    return list(iter_frames(path))


# ----------------------------------------------------------------------------- meta


def write_meta(path: str | Path, meta: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps({"format": META_FORMAT, **meta}, indent=1) + "\n",
                          encoding="utf-8")


def read_meta(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the clip's meta.json: {exc}", str(path)) from None
    if not isinstance(data, dict) or data.get("format") != META_FORMAT:
        raise InputError(f"not a simulator meta.json (expected format {META_FORMAT!r})", str(path))
    return data
