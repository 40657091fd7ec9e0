"""Finding the mat's ArUco markers in a frame and fitting the image-to-mat homography.

Detections are plain arrays (ids ``(n,)``, corners ``(n, 4, 2)`` in image pixels, ArUco
corner order). Only ids that the layout names are kept, and an id seen twice in one frame
(a reflection, a second mat) is dropped rather than guessed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from referee.vision.lens import LensModel
from referee.vision.mat import MatLayout

log = logging.getLogger(__name__)

RANSAC_THRESHOLD_MM = 3.0


@dataclass(frozen=True, eq=False)
class MarkerDetections:
    """Markers found in one frame (or averaged over several)."""

    ids: np.ndarray  # (n,) int
    corners: np.ndarray  # (n, 4, 2) float64, image pixels as seen (distorted)

    def __post_init__(self) -> None:
        if self.ids.shape != (len(self.ids),) or self.corners.shape != (len(self.ids), 4, 2):
            raise ValueError(f"bad detection arrays: {self.ids.shape} {self.corners.shape}")

    def __len__(self) -> int:
        return len(self.ids)

    def only(self, keep: np.ndarray) -> MarkerDetections:
        return MarkerDetections(self.ids[keep], self.corners[keep])


@dataclass(frozen=True, eq=False)
class HomographyFit:
    """An image-to-mat homography and how well the markers agree with it."""

    homography: np.ndarray  # 3x3, (undistorted) image pixels -> mat mm
    marker_ids: tuple[int, ...]  # markers that fit (RANSAC inliers)
    rejected_ids: tuple[int, ...]  # markers seen but not fitting (moved, misread)
    errors_mm: np.ndarray  # per used marker: mapped centre vs true centre
    corner_errors_mm: np.ndarray  # per used corner: mapped vs true position

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.errors_mm**2)))

    @property
    def median_mm(self) -> float:
        return float(np.median(self.errors_mm))

    @property
    def max_mm(self) -> float:
        return float(np.max(self.errors_mm))

    @property
    def corner_rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.corner_errors_mm**2)))


class MarkerDetector:
    """Detects one mat layout's markers; build once, call per frame."""

    def __init__(self, layout: MatLayout) -> None:
        self.layout = layout
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 4
        params.cornerRefinementMaxIterations = 50
        params.cornerRefinementMinAccuracy = 0.01
        self._detector = cv2.aruco.ArucoDetector(layout.aruco_dictionary(), params)
        self._known = set(layout.marker_ids)

    def detect(self, frame: np.ndarray) -> MarkerDetections:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        corners, ids, _rejected = self._detector.detectMarkers(gray)
        if ids is None or len(ids) == 0:
            return MarkerDetections(np.zeros(0, np.int64), np.zeros((0, 4, 2)))
        ids = ids.reshape(-1).astype(np.int64)
        pts = np.array(corners, np.float64).reshape(-1, 4, 2)
        unique, counts = np.unique(ids, return_counts=True)
        twice = set(unique[counts > 1].tolist())
        keep = np.array([i in self._known and i not in twice for i in ids.tolist()], bool)
        if twice:
            log.warning("marker ids seen more than once, ignored: %s", sorted(twice))
        order = np.argsort(ids[keep], kind="stable")
        return MarkerDetections(ids[keep][order], pts[keep][order])


def average_detections(frames: Iterable[MarkerDetections]) -> MarkerDetections:
    """Combine detections of a still camera over many frames: each corner is the median of
    its positions over the frames in which its marker was seen."""
    seen: dict[int, list[np.ndarray]] = {}
    for det in frames:
        for marker_id, corners in zip(det.ids.tolist(), det.corners, strict=True):
            seen.setdefault(marker_id, []).append(corners)
    ids = sorted(seen)
    if not ids:
        return MarkerDetections(np.zeros(0, np.int64), np.zeros((0, 4, 2)))
    corners = np.stack([np.median(np.stack(seen[i]), axis=0) for i in ids])
    return MarkerDetections(np.array(ids, np.int64), corners)


def undistorted_corners(det: MarkerDetections, lens: LensModel | None) -> np.ndarray:
    """Corner pixels with the lens distortion removed, ``(n*4, 2)``."""
    pts = det.corners.reshape(-1, 2)
    return lens.undistort_points(pts) if lens is not None else pts


def fit_homography(
    det: MarkerDetections,
    layout: MatLayout,
    lens: LensModel | None = None,
    *,
    min_markers: int = 3,
) -> HomographyFit | None:
    """Fit image -> mat mm from the detected markers; None with fewer than ``min_markers``
    markers that agree with each other. Markers that disagree (RANSAC outliers) are left out
    and named in ``rejected_ids``."""
    if len(det) < min_markers:
        return None
    img = undistorted_corners(det, lens)
    mat = np.concatenate([layout.marker(int(i)).corners() for i in det.ids])
    h, mask = cv2.findHomography(img, mat, cv2.RANSAC, RANSAC_THRESHOLD_MM, maxIters=2000)
    if h is None:
        return None
    inlier_corners = mask.reshape(-1, 4).astype(bool)
    good = inlier_corners.all(axis=1)
    if good.sum() < min_markers:
        return None
    sel = np.repeat(good, 4)
    refined = _refine(img[sel], mat[sel])
    if refined is None:
        return None
    h = refined
    mapped = cv2.perspectiveTransform(img[sel].reshape(-1, 1, 2), h).reshape(-1, 2)
    corner_errors = np.linalg.norm(mapped - mat[sel], axis=1)
    # A marker's centre is where its diagonals cross, in the image as on the mat. Corner
    # finders push all four corners of a blurred marker in or out alike; the centre is free
    # of that bias, so its residual says how well the homography places points.
    centres = diagonal_crossings(img[sel].reshape(-1, 4, 2))
    true_centres = np.array([layout.marker(int(i)).center for i in det.ids[good]])
    mapped_centres = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), h).reshape(-1, 2)
    return HomographyFit(
        homography=h,
        marker_ids=tuple(int(i) for i in det.ids[good]),
        rejected_ids=tuple(int(i) for i in det.ids[~good]),
        errors_mm=np.linalg.norm(mapped_centres - true_centres, axis=1),
        corner_errors_mm=corner_errors,
    )


def _refine(img: np.ndarray, mat: np.ndarray, rounds: int = 3) -> np.ndarray | None:
    """Least squares over every corner (findHomography method 0: linear, then
    Levenberg-Marquardt), allowing for the corner finder's bias.

    Blur makes a corner finder place all four corners of a marker a little inside or outside
    the true ones, by about the same number of pixels everywhere. Left alone, that bias
    stretches far markers more than near ones and tilts the fit. Each round measures the bias
    along the markers' diagonals (the mean residual pointing away from each marker's centre)
    and takes it out of the corners before refitting.
    """
    h, _ = cv2.findHomography(img, mat, 0)
    if h is None:
        return None
    corrected = img
    for _ in range(rounds):
        inv = np.linalg.inv(h)
        predicted = cv2.perspectiveTransform(mat.reshape(-1, 1, 2), inv).reshape(-1, 4, 2)
        centres = diagonal_crossings(predicted)[:, None, :]
        outward = predicted - centres
        outward /= np.linalg.norm(outward, axis=2, keepdims=True)
        residual = img.reshape(-1, 4, 2) - predicted
        bias = float(np.mean(np.sum(residual * outward, axis=2)))
        corrected = (img.reshape(-1, 4, 2) - bias * outward).reshape(-1, 2)
        refit, _ = cv2.findHomography(corrected, mat, 0)
        if refit is None:
            break
        h = refit
    return h / h[2, 2]


def diagonal_crossings(quads: np.ndarray) -> np.ndarray:
    """Where the diagonals (corner 0-2 and 1-3) of each quadrilateral ``(n, 4, 2)`` cross."""
    q = np.asarray(quads, np.float64)
    ones = np.ones(q.shape[:2] + (1,))
    h = np.concatenate([q, ones], axis=2)
    d1 = np.cross(h[:, 0], h[:, 2])
    d2 = np.cross(h[:, 1], h[:, 3])
    p = np.cross(d1, d2)
    return p[:, :2] / p[:, 2:3]
