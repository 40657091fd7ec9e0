"""Where frames come from: a video file or a camera, read on a thread of their own.

    with open_source("game.mp4") as source:          # or open_source(0) for camera 0
        for frame in source:                         # Frame(index, t, image)
            ...
        print(source.dropped)

Each source decodes on its own thread into a bounded queue, so decoding overlaps the
referee's work on the previous frame. A **file** never drops a frame: when the referee is
slower, the reader waits (a replay is judged on every frame). A **camera** cannot wait: when
the queue is full the oldest frame is dropped and counted, so the referee always works on
the newest picture and reports how many it missed. Times are the source's own: the file's
presentation timestamps, or the capture clock for a camera.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import cv2
import numpy as np

from referee.errors import InputError, MissingPrerequisite

if TYPE_CHECKING:
    from referee.vision.tracking import TrackerPictures

log = logging.getLogger(__name__)

FILE_QUEUE = 8
CAMERA_QUEUE = 4
DECODE_THREADS = 1  # FFmpeg's for a file (open_video)


@dataclass(frozen=True)
class Frame:
    index: int  # 0, 1, 2 ... in the order the source gave them (a camera's dropped frames skip numbers)
    t: float  # seconds, from the source's own timestamps
    image: np.ndarray  # BGR uint8
    #: the tracker's pictures of it, when made ahead (referee/live/ahead.py)
    pictures: TrackerPictures | None = None


_END = object()


class FrameSource:
    """Frames from an opened ``cv2.VideoCapture``, decoded on a thread."""

    def __init__(self, capture: cv2.VideoCapture, name: str, live: bool) -> None:
        self.name = name
        self.live = live
        self._cap = capture
        self.fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0
        self.size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count: int | None = count if count > 0 and not live else None
        self.dropped = 0
        self.decoded = 0
        self.error: str | None = None
        self._queue: queue.Queue[object] = queue.Queue(CAMERA_QUEUE if live else FILE_QUEUE)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name=f"capture {name}", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        t0 = time.monotonic()
        index = 0
        last_t = -1.0
        try:
            while not self._stop.is_set():
                ok, image = self._cap.read()
                if not ok:
                    if self.live:
                        self.error = "the camera stopped giving frames"
                    break
                if self.live:
                    t = time.monotonic() - t0
                else:
                    ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
                    t = ms / 1000.0 if ms > 0 or index == 0 else index / self.fps
                    if t <= last_t:  # a container without usable timestamps
                        t = last_t + 1.0 / self.fps
                last_t = t
                frame = Frame(index, t, image)
                index += 1
                self.decoded += 1
                if self.live:
                    while True:
                        try:
                            self._queue.put_nowait(frame)
                            break
                        except queue.Full:
                            try:
                                self._queue.get_nowait()
                                self.dropped += 1
                            except queue.Empty:
                                pass
                else:
                    while not self._stop.is_set():
                        try:
                            self._queue.put(frame, timeout=0.1)
                            break
                        except queue.Full:
                            continue
        finally:
            while True:
                try:
                    self._queue.put(_END, timeout=0.1)
                    break
                except queue.Full:
                    if self._stop.is_set():
                        break

    def __iter__(self) -> Iterator[Frame]:
        while True:
            item = self._queue.get()
            if item is _END:
                return
            assert isinstance(item, Frame)
            yield item

    def close(self) -> None:
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._queue.get_nowait()
            except queue.Empty:
                self._thread.join(0.05)
        self._cap.release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def open_video(path: str | Path) -> FrameSource:
    """A video file; InputError naming it when it is missing or cannot be decoded."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such video file", str(path))
    # FFmpeg decodes on one thread of its own: the referee's other threads use the second
    # core, and FFmpeg's own threading cost 8.5 ms of CPU a 1280x720 frame against 7.2 on one
    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, DECODE_THREADS])
    if not cap.isOpened():
        cap.release()
        cap = cv2.VideoCapture(str(path))  # another backend
    if not cap.isOpened():
        cap.release()
        raise InputError("not a video OpenCV can decode (mp4, mkv, avi ...)", str(path))
    ok, first = cap.read()
    if not ok or first is None:
        cap.release()
        raise InputError("the video holds no decodable frame", str(path))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
    return FrameSource(cap, str(path), live=False)


def open_camera(index: int) -> FrameSource:
    """Camera number ``index``; MissingPrerequisite when none answers there."""
    cap = cv2.VideoCapture(index)
    if not cap.isOpened():
        cap.release()
        raise MissingPrerequisite(f"no camera answers at index {index} (is it plugged in and free?)")
    return FrameSource(cap, f"camera {index}", live=True)


def open_source(spec: str | int | Path) -> FrameSource:
    """A camera index (an int, or a string of digits) or a video file path."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return open_camera(int(spec))
    return open_video(spec)
