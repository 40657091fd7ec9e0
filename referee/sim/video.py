"""Writing simulator frames as H.264 mp4 (PyAV), and reading a video's basic facts back.

OpenCV's pip wheel cannot encode H.264, so frames are encoded with PyAV's ``libx264``. Frame
``i`` gets the presentation time ``i / fps`` exactly: its pts is ``i`` in a time base of
``1 / fps`` (a :class:`~fractions.Fraction`, so 29.97 is ``30000/1001``, never rounded), and
the muxer rescales that to the container's time base without loss. A decoder therefore gives
frame ``i`` the time ``i / fps``, which is what the truth files assume.

The encoder settings (crf, preset, thread count) are fixed and the encoder runs on a thread
of its own (see :class:`VideoWriter`), so the same frames give the same bytes.

    with VideoWriter("clip.mp4", (960, 540), fps=30) as video:
        for frame in frames:          # BGR uint8, (540, 960, 3)
            video.write(frame)
    info = probe_video("clip.mp4")    # decoded with OpenCV: frames, size, fps
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from referee.errors import InputError

log = logging.getLogger(__name__)

DEFAULT_FPS = 30
DEFAULT_CRF = 23
ENCODER_THREADS = 2  # fixed, so that the bytes do not depend on the machine's core count


def parse_fps(value: float | int | str | Fraction) -> Fraction:
    """A frame rate as an exact fraction: ``30``, ``"29.97"`` (-> 30000/1001), ``"30000/1001"``."""
    try:
        if isinstance(value, Fraction):
            fps = value
        elif isinstance(value, str) and "/" in value:
            fps = Fraction(value.strip())
        else:
            fps = Fraction(str(value).strip()).limit_denominator(1001)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"not a frame rate: {value!r} (e.g. 30, 25, 29.97)", "--fps") from None
    if fps in (Fraction(2997, 100), Fraction(5994, 100)):
        fps = Fraction(round(fps) * 1000, 1001)  # NTSC rates, exactly
    if not Fraction(1) <= fps <= Fraction(240):
        raise InputError(f"frame rate {float(fps):g} is outside 1-240", "--fps")
    return fps


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); even sides (H.264 4:2:0) from 64x64 to 3840x2160."""
    parts = text.lower().replace(" ", "").split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise InputError(f"expected WIDTHxHEIGHT such as 1280x720, got {text!r}", "--size")
    w, h = int(parts[0]), int(parts[1])
    if not (64 <= w <= 3840 and 64 <= h <= 2160):
        raise InputError(f"{w}x{h} is outside 64x64 to 3840x2160", "--size")
    if w % 2 or h % 2:
        raise InputError(f"{w}x{h}: width and height must be even for H.264", "--size")
    return w, h


class VideoWriter:
    """An H.264 mp4 writer for BGR frames at a constant, exact frame rate.

    The encoder runs in a thread of its own, fed through a small bounded queue: encoding then
    overlaps the rendering of the next frame, and the bytes repeat. (With the encoder on the
    rendering thread, the same frames gave different bytes from run to run, most likely
    because OpenCV changes the floating-point state of the threads it runs on; on a thread of
    its own x264 gives the same bytes every time.)
    """

    QUEUE_FRAMES = 8

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float | str | Fraction = DEFAULT_FPS,
                 *, crf: int = DEFAULT_CRF, preset: str = "veryfast") -> None:
        import av

        self.path = Path(path)
        self.size = size
        self.fps = parse_fps(fps)
        w, h = size
        if w % 2 or h % 2:
            raise InputError(f"{w}x{h}: width and height must be even for H.264", str(self.path))
        self.frames = 0
        self._container: Any = av.open(str(self.path), mode="w")
        stream = self._container.add_stream("libx264", rate=self.fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.codec_context.time_base = 1 / self.fps
        stream.options = {"crf": str(crf), "preset": preset, "threads": str(ENCODER_THREADS)}
        self._stream = stream
        self._time_base = 1 / self.fps
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(self.QUEUE_FRAMES)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._encode_all, name="video-encoder", daemon=True)
        self._thread.start()

    def _encode_all(self) -> None:
        import av

        index = 0
        try:
            while (frame := self._queue.get()) is not None:
                # OpenCV's conversion to the encoder's planar YUV (BT.601, limited range, as
                # libswscale's) takes 1-1.5 ms less per 1280x720 frame than PyAV's from BGR
                yuv = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420)
                vf = av.VideoFrame.from_ndarray(yuv, format="yuv420p")
                vf.pts = index
                vf.time_base = self._time_base
                for packet in self._stream.encode(vf):
                    self._container.mux(packet)
                index += 1
            for packet in self._stream.encode():
                self._container.mux(packet)
            self._container.close()
        except BaseException as exc:  # handed to the caller by write() or close()
            self._error = exc
            while self._queue.get() is not None:  # let a blocked writer go on to close()
                pass

    def _raise_error(self) -> None:
        if self._error is not None:
            raise OSError(f"{self.path}: encoding failed: {self._error}") from self._error

    def write(self, frame: np.ndarray) -> None:
        """Append one BGR uint8 frame of the writer's size; it is shown at ``index / fps``."""
        self._raise_error()
        if self._container is None:
            raise ValueError(f"{self.path}: the video is closed")
        w, h = self.size
        if frame.shape != (h, w, 3) or frame.dtype != np.uint8:
            raise ValueError(f"expected a ({h}, {w}, 3) uint8 BGR frame, got {frame.shape} {frame.dtype}")
        self._queue.put(np.array(frame, order="C", copy=True))
        self.frames += 1

    def close(self) -> None:
        if self._container is None:
            return
        self._queue.put(None)
        self._thread.join()
        self._container = None
        self._raise_error()
        log.info("wrote %s: %d frames at %s fps", self.path, self.frames, self.fps)

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@dataclass(frozen=True)
class VideoInfo:
    """What OpenCV's decoder makes of a video: every frame decoded and counted."""

    frames: int
    size: tuple[int, int]
    fps: float
    times_s: tuple[float, ...]  # each decoded frame's presentation time


def probe_video(path: str | Path, keep: tuple[int, ...] = ()) -> tuple[VideoInfo, dict[int, np.ndarray]]:
    """Decode every frame with ``cv2.VideoCapture``; return the facts and the frames in ``keep``."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise InputError("OpenCV cannot open this video", str(path))
    kept: dict[int, np.ndarray] = {}
    times: list[float] = []
    size = (0, 0)
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            if len(times) in keep:
                kept[len(times)] = frame
            size = (frame.shape[1], frame.shape[0])
            times.append(cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0)
    finally:
        cap.release()
    return VideoInfo(len(times), size, fps, tuple(times)), kept
