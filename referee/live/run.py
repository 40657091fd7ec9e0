"""Running the referee over a whole source, writing what it saw (``replay`` and ``live``).

    summary = run(source, referee, out_dir, video=True)

Writes ``OUT/events.jsonl`` (every record as it is made, flushed line by line, so a crash
loses nothing already judged), ``OUT/annotated.mp4`` (the overlay on every frame, drawn and
encoded off the referee's thread: :class:`AnnotatedVideo`) and ``OUT/summary.json`` (frames,
dropped frames, speed, rejected events).
With ``session`` (a :class:`~referee.session.recorder.SessionRecorder`, whose ``log`` is then
the ``writer``), every frame is recorded before it is judged, a calibration the referee moves
to is kept, and the session is closed at the end (docs/sessions.md).

Stopping: inside ``with stop_on_signals() as stop``, SIGINT (Ctrl-C) and SIGTERM only set
``stop``; ``run(..., stop=stop)`` finishes the frame in hand, then ends as at the end of the
source (the annotated video, the log and the session are closed in order, the summary says
``"stopped": "SIGTERM"``). A second signal raises :class:`KeyboardInterrupt` at once (the
session is still closed on the way out).
"""

from __future__ import annotations

import json
import logging
import queue
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, Protocol

import numpy as np

from referee.errors import InputError
from referee.eventlog import record_to_json
from referee.events import Record
from referee.live.ahead import prepared_ahead
from referee.live.overlay import Overlay
from referee.live.pipeline import Referee, StepResult
from referee.live.source import FrameSource
from referee.vision.calibration import Calibration
from referee.vision.observation import ObserverState

if TYPE_CHECKING:
    from referee.session.recorder import SessionRecorder

log = logging.getLogger(__name__)


class RecordSink(Protocol):
    """Where records go as they are made: :class:`RecordWriter`, or a session's chained log."""

    def __call__(self, record: Record) -> None: ...

    def close(self) -> None: ...


class RecordWriter:
    """Appends records to a JSON Lines file, one flushed line each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        try:
            self._stream: IO[str] = path.open("w", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the event log: {exc.strerror}", str(path)) from None

    def __call__(self, record: Record) -> None:
        self._stream.write(record_to_json(record) + "\n")
        self._stream.flush()
        self.count += 1

    def close(self) -> None:
        self._stream.close()


class StopRequest:
    """Set when the refereeing should stop after the frame in hand (a signal, or ``request``)."""

    def __init__(self) -> None:
        self.signal: str | None = None  # the name of what asked, e.g. "SIGTERM"

    def request(self, why: str) -> None:
        if self.signal is None:
            self.signal = why

    def __bool__(self) -> bool:
        return self.signal is not None

    @property
    def exit_status(self) -> int:
        """128 + the signal's number (130 for SIGINT, 143 for SIGTERM), the shell's convention
        for a command a signal ended; 0 when no signal asked."""
        if self.signal is None or not self.signal.startswith("SIG"):
            return 0
        return 128 + int(signal.Signals[self.signal])


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_on_signals(signals: Sequence[signal.Signals] = STOP_SIGNALS) -> Iterator[StopRequest]:
    """While inside, the first of ``signals`` sets the yielded :class:`StopRequest` (``run``
    stops cleanly after the frame in hand); a second raises KeyboardInterrupt. The previous
    handlers come back on the way out. Outside the main thread (where Python cannot take
    signals) it only yields the request."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        if stop:
            raise KeyboardInterrupt(f"{signal.Signals(signum).name} again while stopping")
        stop.request(signal.Signals(signum).name)
        log.warning("%s: stopping after the frame in hand", stop.signal)

    previous = {s: signal.signal(s, handle) for s in signals}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run(source: FrameSource, referee: Referee, out: Path, *, video: bool = True,
        show: Callable[[np.ndarray], bool] | None = None,
        progress: Callable[[int], None] | None = None, writer: RecordSink | None = None,
        session: SessionRecorder | None = None, stop: StopRequest | None = None) -> dict[str, Any]:
    """Referee every frame of ``source``; ``show`` gets each overlay picture (False stops);
    ``progress`` the number of frames done; ``session`` records the session; ``stop``, once
    set, ends it after the frame in hand. Returns the summary it writes."""
    out.mkdir(parents=True, exist_ok=True)
    overlay = Overlay(referee.calibration) if show is not None else None
    writer_video = None
    annotated: AnnotatedVideo | None = None
    steps_ms: list[float] = []
    t_wall = time.perf_counter()
    frames = 0
    last: StepResult | None = None
    frames_in = prepared_ahead(source, referee.prepare)
    try:
        for frame in frames_in:
            if stop:
                break  # asked before this frame came: it is neither recorded nor judged
            if session is not None:
                session.add_frame(frame)
            step = referee.step(frame)
            if session is not None:
                session.note_calibration(referee.calibration, frame)
            last = step
            frames += 1
            steps_ms.append(step.seconds * 1000)
            if show is None and video:  # drawn and encoded off this thread
                if annotated is None:
                    annotated = AnnotatedVideo(out / "annotated.mp4", Overlay(referee.calibration),
                                               source.fps)
                annotated.add(frame.image, step, referee.observer.state, referee.calibration)
            elif overlay is not None:
                if overlay.calibration is not referee.calibration:
                    overlay.set_calibration(referee.calibration)
                picture = overlay.draw(frame.image, step, referee.observer.state)
                if video:
                    if writer_video is None:
                        writer_video = _video_writer(out / "annotated.mp4", picture, source.fps)
                    writer_video.write(_even(picture))
                if show is not None and not show(picture):
                    break
            if progress is not None:
                progress(frames)
            if stop:
                break
    finally:
        frames_in.close()
        referee.finish()
        if annotated is not None:
            annotated.close()
        if writer_video is not None:
            writer_video.close()
        if writer is not None:
            writer.close()
        if session is not None:
            failure = sys.exc_info()[1]  # Ctrl-C is how a live game is stopped: not an error
            error = None if failure is None or isinstance(failure, KeyboardInterrupt) else (
                f"{type(failure).__name__}: {failure}")
            session.close(error=error, stopped=stop.signal if stop else None)
    wall = time.perf_counter() - t_wall
    duration = last.t if last is not None else 0.0
    summary: dict[str, Any] = {
        "source": source.name, "frames": frames, "dropped": source.dropped, "fps": round(source.fps, 3),
        "duration_s": round(duration, 3), "wall_s": round(wall, 2),
        "speed_x_real_time": round(duration / wall, 2) if wall > 0 and duration > 0 else None,
        "step_ms_median": round(statistics.median(steps_ms), 2) if steps_ms else None,
        "step_ms_p99": round(float(np.percentile(steps_ms, 99)), 2) if steps_ms else None,
        "records": len(referee.records),
        "faults": sum(1 for r in referee.records if getattr(r, "code", None)),
        "rejected_events": [str(e) for e in referee.rejected],
        "camera_moved": referee.camera_moved,
    }
    if stop:
        summary["stopped"] = stop.signal
    skipped = getattr(source, "skipped", None)
    if skipped:
        summary["skipped"] = list(skipped)  # a session's segments (or frames) that could not be read
    if session is not None:
        summary["session"] = session.id
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


class AnnotatedVideo:
    """The annotated video, drawn and encoded off the referee's thread: each frame goes, with
    its step and a copy of what the observer believes lies on the zones, through a small
    bounded queue to a thread that draws the overlay and hands the picture to the encoder
    (a thread of its own too). At 1280x720 the drawing took 1.2-1.5 ms a frame of the
    referee's thread; writing the video held a replay under 2x real time (docs/pipeline.md).
    An error there (the disk full) is raised by the next :meth:`add` or by :meth:`close`."""

    QUEUE_FRAMES = 8

    def __init__(self, path: Path, overlay: Overlay, fps: float) -> None:
        self.path, self.overlay, self.fps = path, overlay, fps
        self._writer: Any = None
        self._queue: queue.Queue[tuple[np.ndarray, StepResult, ObserverState, Calibration] | None] = \
            queue.Queue(self.QUEUE_FRAMES)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._draw_all, name="annotated-video", daemon=True)
        self._thread.start()

    def add(self, image: np.ndarray, step: StepResult, state: ObserverState,
            calibration: Calibration) -> None:
        """Queue one frame (``state`` is copied: the observer goes on changing it)."""
        self._raise_error()
        self._queue.put((image, step, ObserverState(tops=dict(state.tops)), calibration))

    def _draw_all(self) -> None:
        try:
            while (item := self._queue.get()) is not None:
                image, step, state, calibration = item
                if self.overlay.calibration is not calibration:
                    self.overlay.set_calibration(calibration)
                picture = self.overlay.draw(image, step, state)
                if self._writer is None:
                    self._writer = _video_writer(self.path, picture, self.fps)
                self._writer.write(_even(picture))
        except BaseException as exc:  # handed to the referee's thread by add() or close()
            self._error = exc
            while self._queue.get() is not None:  # let a blocked add() go on to close()
                pass

    def _raise_error(self) -> None:
        if self._error is not None:
            raise OSError(f"{self.path}: writing the annotated video failed: {self._error}") from self._error

    def close(self) -> None:
        """Draw and encode what is queued, then close the video."""
        self._queue.put(None)
        self._thread.join()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._raise_error()


def _even(picture: np.ndarray) -> np.ndarray:
    h, w = picture.shape[:2]
    return picture[: h - h % 2, : w - w % 2]


#: x264 preset of the annotated video: the encoder shares the two cores with the referee, and
#: "veryfast" held a 1280x720 replay to 1.3x real time (docs/pipeline.md)
ANNOTATED_PRESET = "ultrafast"
#: ... and its quality: the 31 s 1280x720 game 5000 took 24 MB at x264's default 23 and 6.2 MB
#: at 28, its overlay text and card indices as readable (stop 25, docs/pipeline.md)
ANNOTATED_CRF = 28


def _video_writer(path: Path, picture: np.ndarray, fps: float) -> Any:
    from referee.sim.video import VideoWriter

    h, w = _even(picture).shape[:2]
    return VideoWriter(path, (w, h), fps=round(fps, 3) if fps else 30, preset=ANNOTATED_PRESET,
                       crf=ANNOTATED_CRF)
