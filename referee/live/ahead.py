"""Work that depends on a frame alone, done on a thread of its own ahead of the referee.

The tracker's first step, the remap of the mat into its own pixels and the smaller copies made
from it (:meth:`ZoneTracker.pictures`), needs nothing but the frame. On the 2-core machine it
was the largest part of the referee's step at 1280x720 (docs/pipeline.md, "Speed"). Done here,
while the referee judges the frame before, it uses the second core beside the decoder.

:func:`prepared_ahead` takes the frames of a source and gives them back, in order and each
once, with ``pictures`` made by ``prepare``. A frame whose pictures could not be made (None) is
given without them, and the referee makes them itself (and says what is wrong with the frame).
At most ``depth`` frames wait prepared, so a slow referee still makes a camera source drop
(and count) its oldest frames rather than fall behind. An error in the source or in
``prepare`` is raised where the frames are taken, after the frames before it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Iterable
from dataclasses import replace

import numpy as np

from referee.live.source import Frame
from referee.vision.tracking import TrackerPictures

DEPTH = 2  # frames prepared and waiting: each adds a frame's wait before the referee sees it
JOIN_S = 1.0


class _End:
    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


def prepared_ahead(frames: Iterable[Frame], prepare: Callable[[np.ndarray], TrackerPictures | None],
                   depth: int = DEPTH) -> Generator[Frame, None, None]:
    """``frames``, each with ``pictures=prepare(frame.image)`` made on a thread ahead."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    ready: queue.Queue[Frame | _End] = queue.Queue(depth)
    stop = threading.Event()

    def put(item: Frame | _End) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for frame in frames:
                if stop.is_set() or not put(replace(frame, pictures=prepare(frame.image))):
                    return
        except BaseException as error:  # raised again on the referee's thread
            put(_End(error))
            return
        put(_End())

    thread = threading.Thread(target=work, name="prepare ahead", daemon=True)
    thread.start()
    try:
        while True:
            item = ready.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        stop.set()
        thread.join(JOIN_S)  # it may wait for the source's next frame: it is a daemon
