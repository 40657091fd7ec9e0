"""The drift monitor: still camera, small nudges followed, large moves and lost markers
reported as values."""

from __future__ import annotations

import numpy as np
import pytest
from vision_synth import POSES, camera_view, mapping_error_mm, shifted

from referee.errors import InputError
from referee.vision.calibration import Calibration, calibrate
from referee.vision.drift import DriftMonitor, DriftState
from referee.vision.mat import MatLayout

POSE = POSES[1]  # tilted, blurred, noisy


@pytest.fixture(scope="module")
def start(layout: MatLayout) -> tuple[Calibration, np.ndarray]:
    truth = POSE.homography(layout)
    frame = camera_view(layout, truth, blur_sigma=POSE.blur_sigma, noise=POSE.noise)
    cal, _ = calibrate([frame], layout)
    return cal, truth


def view(layout: MatLayout, truth: np.ndarray, *, hidden: tuple[int, ...] = (),
         seed: int = 3) -> np.ndarray:
    return camera_view(layout, truth, hidden=hidden, blur_sigma=POSE.blur_sigma,
                       noise=POSE.noise, seed=seed)


def test_still_camera_is_ok(layout: MatLayout, start: tuple[Calibration, np.ndarray]) -> None:
    cal, truth = start
    monitor = DriftMonitor(cal)
    status = monitor.check(view(layout, truth, hidden=(0, 5, 9)))
    assert status.state is DriftState.OK and not status.is_alert
    assert status.shift_px is not None and status.shift_px < 0.5
    assert status.markers_seen == 8 and status.markers_total == 11
    assert monitor.calibration is cal


@pytest.mark.parametrize(
    ("dx", "dy", "turn", "hidden"),
    [
        (3.0, 0.0, 0.0, ()),
        (-2.0, 4.0, 0.0, ()),
        (0.0, 0.0, 0.4, ()),
        (5.0, -3.0, 0.3, (0, 3, 4, 6, 7, 9)),
        (12.0, 8.0, 0.0, (1, 2, 5)),
    ],
)
def test_a_nudge_is_followed(
    layout: MatLayout, start: tuple[Calibration, np.ndarray],
    dx: float, dy: float, turn: float, hidden: tuple[int, ...],
) -> None:
    cal, truth = start
    monitor = DriftMonitor(cal)
    moved = shifted(truth, dx, dy, turn)
    status = monitor.check(view(layout, moved, hidden=hidden))
    assert status.state is DriftState.NUDGED and not status.is_alert
    assert status.shift_px is not None and status.shift_px > monitor.still_px
    if not turn:
        assert status.shift_px == pytest.approx(np.hypot(dx, dy), abs=0.5)
    assert "calibration updated" in status.message
    followed = monitor.calibration
    assert followed is not cal
    assert mapping_error_mm(layout, moved, followed.image_to_mat).max() < 1.5
    # the next look at the same scene finds the camera still
    assert monitor.check(view(layout, moved, seed=9)).state is DriftState.OK


@pytest.mark.parametrize(("dx", "dy", "turn"), [(60.0, 0.0, 0.0), (0.0, -40.0, 0.0),
                                                (0.0, 0.0, 8.0)])
def test_a_large_move_is_reported_not_followed(
    layout: MatLayout, start: tuple[Calibration, np.ndarray], dx: float, dy: float, turn: float,
) -> None:
    cal, truth = start
    monitor = DriftMonitor(cal)
    status = monitor.check(view(layout, shifted(truth, dx, dy, turn)))
    assert status.state is DriftState.MOVED and status.is_alert
    assert status.shift_px is not None and status.shift_px > 25
    assert status.shift_mm is not None and status.shift_mm > 10
    assert "recalibrate" in status.message
    assert monitor.calibration is cal


@pytest.mark.parametrize(
    "frame_kind", ["blank", "all covered", "two left"],
)
def test_markers_gone_is_an_alert_value(
    layout: MatLayout, start: tuple[Calibration, np.ndarray], frame_kind: str
) -> None:
    cal, truth = start
    frame = {
        "blank": lambda: np.zeros((720, 1280, 3), np.uint8),
        "all covered": lambda: view(layout, truth, hidden=tuple(range(11))),
        "two left": lambda: view(layout, truth, hidden=tuple(range(2, 11))),
    }[frame_kind]()
    monitor = DriftMonitor(cal)
    status = monitor.check(frame)
    assert status.state is DriftState.MARKERS_GONE and status.is_alert
    assert status.shift_px is None
    assert "of 11 mat markers visible" in status.message
    assert monitor.calibration is cal


def test_settings_and_frame_size_are_checked(start: tuple[Calibration, np.ndarray]) -> None:
    with pytest.raises(ValueError):
        DriftMonitor(start[0], still_px=5, follow_px=2)
    with pytest.raises(InputError, match="frame is 640x480 but the calibration is for 1280x720"):
        DriftMonitor(start[0]).check(np.zeros((480, 640, 3), np.uint8))
