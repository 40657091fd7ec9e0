"""Noticing when the camera has moved, and following small nudges.

The live pipeline calls :meth:`DriftMonitor.check` with a frame every few seconds. The
monitor finds the markers it can see, measures how far they are from where the calibration
expects them, and answers with a :class:`DriftStatus` value, never an exception:

- ``OK``: the markers are where they should be;
- ``NUDGED``: they moved a little (up to ``follow_px``); the homography has been refitted
  and the monitor's calibration updated;
- ``MOVED``: they moved too far to follow safely; the calibration is kept and the camera
  should be put back or recalibrated;
- ``MARKERS_GONE``: too few markers are visible to tell (covered, camera knocked away, lights
  off); the calibration is kept.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from referee.errors import InputError
from referee.vision.calibration import Calibration, FitQuality
from referee.vision.markers import MarkerDetections, MarkerDetector, fit_homography

log = logging.getLogger(__name__)


class DriftState(StrEnum):
    OK = "ok"
    NUDGED = "nudged"
    MOVED = "moved"
    MARKERS_GONE = "markers_gone"

    @property
    def is_alert(self) -> bool:
        return self in (DriftState.MOVED, DriftState.MARKERS_GONE)


@dataclass(frozen=True)
class DriftStatus:
    state: DriftState
    shift_px: float | None  # median distance of marker corners from where they were expected
    shift_mm: float | None  # the same on the mat
    markers_seen: int
    markers_total: int
    message: str

    @property
    def is_alert(self) -> bool:
        return self.state.is_alert


class DriftMonitor:
    """Watches one calibration for camera movement; keeps the followed calibration."""

    def __init__(
        self,
        calibration: Calibration,
        *,
        still_px: float = 1.0,
        follow_px: float = 25.0,
        min_markers: int = 3,
    ) -> None:
        if not 0 < still_px < follow_px:
            raise ValueError("need 0 < still_px < follow_px")
        self._calibration = calibration
        self._detector = MarkerDetector(calibration.layout)
        self.still_px = still_px
        self.follow_px = follow_px
        self.min_markers = min_markers

    @property
    def calibration(self) -> Calibration:
        """The calibration as followed so far (replaced after each nudge)."""
        return self._calibration

    def check(self, frame: np.ndarray) -> DriftStatus:
        """Look at one frame. Raises only for a frame of another size than the calibration's
        (a set-up mistake, not a camera movement)."""
        cal = self._calibration
        size = (frame.shape[1], frame.shape[0])
        if size != cal.image_size:
            raise InputError(
                f"frame is {size[0]}x{size[1]} but the calibration is for "
                f"{cal.image_size[0]}x{cal.image_size[1]}",
                cal.source or None,
            )
        layout = cal.layout
        total = len(layout.markers)
        det = self._detector.detect(frame)
        if len(det) < self.min_markers:
            return DriftStatus(
                DriftState.MARKERS_GONE, None, None, len(det), total,
                f"only {len(det)} of {total} mat markers visible; cannot check the camera",
            )
        shift = marker_shift_px(cal, det)
        shift_mm = px_to_mm(cal, shift)
        if shift <= self.still_px:
            return DriftStatus(
                DriftState.OK, shift, shift_mm, len(det), total,
                f"camera still ({shift:.1f} px, {len(det)} of {total} markers)",
            )
        if shift > self.follow_px:
            log.warning("camera moved %.1f px; not following", shift)
            return DriftStatus(
                DriftState.MOVED, shift, shift_mm, len(det), total,
                f"camera moved {shift:.0f} px (about {shift_mm:.0f} mm on the mat); put it "
                "back or recalibrate",
            )
        fit = fit_homography(det, layout, cal.lens, min_markers=self.min_markers)
        if fit is None:
            return DriftStatus(
                DriftState.MOVED, shift, shift_mm, len(det), total,
                f"camera moved {shift:.1f} px and the visible markers do not agree on a new "
                "position; recalibrate",
            )
        self._calibration = cal.replace(
            homography=fit.homography, markers_used=fit.marker_ids, quality=FitQuality.of(fit)
        )
        log.info("followed a camera nudge of %.1f px", shift)
        return DriftStatus(
            DriftState.NUDGED, shift, shift_mm, len(det), total,
            f"camera nudged {shift:.1f} px (about {shift_mm:.1f} mm); calibration updated",
        )



def marker_shift_px(cal: Calibration, det: MarkerDetections) -> float:
    """Median over the seen markers of how far (mean over corners, image pixels) each lies
    from where the calibration expects it."""
    layout = cal.layout
    expected = cal.mat_to_image(np.concatenate([layout.marker(int(i)).corners() for i in det.ids]))
    seen = det.corners.reshape(-1, 2)
    per_marker = np.linalg.norm(seen - expected, axis=1).reshape(-1, 4).mean(axis=1)
    return float(np.median(per_marker))


def px_to_mm(cal: Calibration, px: float) -> float:
    """Size on the mat of ``px`` image pixels near the mat's centre."""
    cx, cy = (v / 2 for v in cal.layout.size_mm)
    centre = cal.mat_to_image(np.array([[cx, cy]]))[0]
    there = cal.image_to_mat(np.array([centre, centre + [px, 0.0], centre + [0.0, px]]))
    return float(np.mean(np.linalg.norm(there[1:] - there[0], axis=1)))
