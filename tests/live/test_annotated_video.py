"""The annotated video drawn and encoded off the referee's thread (referee/live/run.py)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.live.overlay import Overlay
from referee.live.pipeline import Referee
from referee.live.run import AnnotatedVideo
from referee.live.source import open_video
from referee.sim.oracle import TruthZoneReader
from referee.vision.calibration import load_calibration

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "take-back"


def _steps(n: int) -> list:
    cal = load_calibration(FIXTURE / "calibration.yaml")
    referee = Referee(cal, TruthZoneReader(FIXTURE))
    out = []
    with open_video(FIXTURE / "video.mp4") as source:
        for frame in source:
            out.append((frame, referee.step(frame), referee))
            if len(out) == n:
                break
    return out


def test_every_frame_is_drawn_with_the_tops_of_its_own_moment(tmp_path: Path) -> None:
    steps = _steps(12)
    referee = steps[0][2]
    video = AnnotatedVideo(tmp_path / "a.mp4", Overlay(referee.calibration), 30.0)
    for frame, step, ref in steps:
        video.add(frame.image, step, ref.observer.state, ref.calibration)
    referee.observer.state.tops.clear()  # what was queued keeps its own copy
    video.close()
    capture = cv2.VideoCapture(str(tmp_path / "a.mp4"))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 12
    ok, first = capture.read()
    capture.release()
    # the overlay is there: the zones' outlines differ from the camera picture
    assert ok and np.mean(np.abs(first.astype(int) - steps[0][0].image.astype(int))) > 1.0


def test_a_failure_on_the_drawing_thread_is_raised_naming_the_video(tmp_path: Path) -> None:
    steps = _steps(3)
    referee = steps[0][2]
    overlay = Overlay(referee.calibration)

    def broken(*args: object) -> np.ndarray:
        raise RuntimeError("no room left")

    overlay.draw = broken  # type: ignore[method-assign]
    video = AnnotatedVideo(tmp_path / "a.mp4", overlay, 30.0)
    with pytest.raises(OSError, match=r"a\.mp4: writing the annotated video failed: no room left"):
        for frame, step, ref in steps * 10:  # add() raises it once the thread has failed ...
            video.add(frame.image, step, ref.observer.state, ref.calibration)
        video.close()  # ... or close() does
