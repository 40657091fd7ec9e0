"""The tracker's pictures made on a thread ahead of the referee (referee/live/ahead.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from referee.errors import InputError
from referee.live.ahead import prepared_ahead
from referee.live.pipeline import Referee
from referee.live.source import Frame, open_video
from referee.sim.oracle import TruthZoneReader
from referee.vision.calibration import load_calibration
from referee.vision.tracking import TrackerPictures, ZoneTracker

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURE = FIXTURES / "illegal-rank"


def frames(n: int, fail_at: int | None = None) -> Iterator[Frame]:
    for i in range(n):
        if i == fail_at:
            raise OSError("the disk went away")
        yield Frame(i, i / 30, np.full((4, 4, 3), i, np.uint8))


def tag(image: np.ndarray) -> TrackerPictures | None:
    """Pictures that say which frame they were made of (its first pixel), made off the caller's thread."""
    assert threading.current_thread() is not threading.main_thread()
    value = int(image[0, 0, 0])
    if value == 3:
        return None  # a frame they cannot be made of
    grey = np.full((1, 1), value, np.uint8)
    return TrackerPictures(0, image, grey, image, grey.astype(np.float32), {}, 0.001)


def test_frames_come_in_order_each_once_with_their_own_pictures() -> None:
    got = list(prepared_ahead(frames(40), tag, depth=2))
    assert [f.index for f in got] == list(range(40))
    for f in got:
        if f.index == 3:
            assert f.pictures is None
        else:
            assert f.pictures is not None and int(f.pictures.grey[0, 0]) == f.index


def test_an_error_in_the_source_comes_after_the_frames_before_it() -> None:
    seen = []
    with pytest.raises(OSError, match="disk went away"):
        for f in prepared_ahead(frames(10, fail_at=6), tag):
            seen.append(f.index)
    assert seen == [0, 1, 2, 3, 4, 5]


def test_stopping_early_ends_the_thread() -> None:
    before = threading.active_count()
    gen = prepared_ahead(frames(1000), tag, depth=1)
    assert next(gen).index == 0
    gen.close()
    assert threading.active_count() == before


def test_a_depth_under_one_is_refused() -> None:
    with pytest.raises(ValueError, match="depth"):
        next(prepared_ahead(frames(3), tag, depth=0))


def test_pictures_made_ahead_track_as_pictures_made_in_the_step() -> None:
    cal = load_calibration(FIXTURE / "calibration.yaml")
    inline, ahead = ZoneTracker(cal), ZoneTracker(cal)
    with open_video(FIXTURE / "video.mp4") as source:
        for frame in prepared_ahead(source, ahead.pictures):
            assert frame.pictures is not None and ahead.made_with(frame.pictures)
            assert not inline.made_with(frame.pictures)  # another tracker's maps
            a = inline.update(frame.image, frame.t)
            b = ahead.update(frame.image, frame.t, frame.pictures)
            assert a == b
    assert a.frame > 60


def test_a_referee_ignores_pictures_of_an_earlier_calibration_and_a_frame_of_the_wrong_size() -> None:
    cal = load_calibration(FIXTURE / "calibration.yaml")
    referee = Referee(cal, TruthZoneReader(FIXTURE))
    with open_video(FIXTURE / "video.mp4") as source:
        first = next(iter(source))
    # pictures said to have taken 100 s: the step counts them when it uses them
    stale = replace(ZoneTracker(cal).pictures(first.image), seconds=100.0)  # as before a recalibration
    assert referee.step(Frame(0, 0.0, first.image, stale)).seconds < 100
    made = referee.prepare(first.image)
    assert made is not None and referee.tracker.made_with(made)
    assert referee.step(Frame(1, 1 / 30, first.image, replace(made, seconds=100.0))).seconds >= 100
    assert referee.prepare(first.image[:100]) is None  # the step says what is wrong
    with pytest.raises(InputError, match="differs from the calibration's image size"):
        referee.step(Frame(2, 2 / 30, first.image[:100], None))
