"""Lens model (camera matrix and distortion) and lens calibration from board views.

Optional: a webcam's barrel distortion bends the mat's straight lines by a few pixels at the
edges, which a homography alone cannot follow. With a :class:`LensModel` the calibration
removes the distortion from marker corners first and puts it back when drawing.
Boards: a printed chessboard (inner corners ``cols`` x ``rows``) or a ChArUco board.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from referee.errors import InputError
from referee.vision.fields import Fields, read_yaml_mapping

log = logging.getLogger(__name__)

LENS_FORMAT = "spit-referee-lens/1"


@dataclass(frozen=True, eq=False)
class LensModel:
    camera_matrix: np.ndarray  # 3x3
    dist_coeffs: np.ndarray  # (k,) OpenCV order k1 k2 p1 p2 [k3 ...]
    image_size: tuple[int, int]  # width, height the model was made for
    rms_px: float = 0.0

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        """Image pixels as seen -> pixels of an ideal pinhole camera with the same matrix."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return pts.reshape(0, 2)
        out = cv2.undistortPoints(
            pts,
            self.camera_matrix,
            self.dist_coeffs,
            R=None,
            P=self.camera_matrix,
            criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-9),
        )
        return out.reshape(-1, 2)

    def distort_points(self, points: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels -> pixels as the real lens shows them."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return pts
        k = self.camera_matrix
        xn = (pts[:, 0] - k[0, 2]) / k[0, 0]
        yn = (pts[:, 1] - k[1, 2]) / k[1, 1]
        obj = np.stack([xn, yn, np.ones_like(xn)], axis=1).reshape(-1, 1, 3)
        img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return img.reshape(-1, 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "image_size": list(self.image_size),
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.reshape(-1).tolist(),
            "rms_px": round(float(self.rms_px), 4),
        }

    @classmethod
    def from_fields(cls, f: Fields) -> LensModel:
        size = f.numbers("image_size", 2, positive=True)
        matrix = np.array(f.matrix("camera_matrix", 3, 3))
        if matrix[0, 0] <= 0 or matrix[1, 1] <= 0 or matrix[2, 2] != 1 or matrix[2, :2].any():
            raise f.fail("camera_matrix", "not a camera matrix [[fx,0,cx],[0,fy,cy],[0,0,1]]")
        dist = np.array(f.numbers("dist_coeffs"))
        if len(dist) not in (4, 5, 8, 12, 14):
            raise f.fail("dist_coeffs", f"expected 4, 5, 8, 12 or 14 numbers, got {len(dist)}")
        rms = f.number("rms_px") if f.has("rms_px") else 0.0
        return cls(matrix, dist, (int(size[0]), int(size[1])), rms)


def save_lens(lens: LensModel, path: str | Path) -> None:
    data = {"format": LENS_FORMAT, **lens.to_dict()}
    Path(path).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def load_lens(path: str | Path) -> LensModel:
    data = read_yaml_mapping(Path(path), "lens calibration")
    f = Fields(data, str(path))
    if data.get("format") != LENS_FORMAT:
        raise f.fail("format", f"expected {LENS_FORMAT!r}, got {data.get('format')!r}")
    return LensModel.from_fields(f)


# ---------------------------------------------------------------------- boards and fitting


@dataclass(frozen=True)
class Board:
    """A calibration board: ``kind`` is "chessboard" (``cols`` x ``rows`` inner corners) or
    "charuco" (``cols`` x ``rows`` squares, markers ``marker_mm`` from ``dictionary``)."""

    kind: str
    cols: int
    rows: int
    square_mm: float
    marker_mm: float = 0.0
    dictionary: str = "DICT_4X4_50"

    def __post_init__(self) -> None:
        if self.kind not in ("chessboard", "charuco"):
            raise InputError(f"unknown board {self.kind!r}: chessboard or charuco", "--board")
        if self.cols < 3 or self.rows < 3:
            raise InputError("a board needs at least 3 x 3 corners/squares", "--cols/--rows")
        if self.square_mm <= 0:
            raise InputError("must be positive", "--square-mm")
        if self.kind == "charuco" and not 0 < self.marker_mm < self.square_mm:
            raise InputError("must be positive and smaller than --square-mm", "--marker-mm")

    def charuco(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.cols, self.rows), self.square_mm, self.marker_mm, d)

    def object_points(self) -> np.ndarray:
        """Chessboard inner corners in board mm, row by row (z = 0)."""
        grid = np.mgrid[0 : self.cols, 0 : self.rows].T.reshape(-1, 2) * self.square_mm
        return np.hstack([grid, np.zeros((len(grid), 1))]).astype(np.float32)

    def render(self, px_per_mm: float, margin_mm: float = 10.0) -> np.ndarray:
        """The board as a grey image for printing (white margin included)."""
        if self.kind == "charuco":
            size = (
                round((self.cols * self.square_mm + 2 * margin_mm) * px_per_mm),
                round((self.rows * self.square_mm + 2 * margin_mm) * px_per_mm),
            )
            return self.charuco().generateImage(size, marginSize=round(margin_mm * px_per_mm))
        squares_x, squares_y = self.cols + 1, self.rows + 1
        cell = self.square_mm * px_per_mm
        m = round(margin_mm * px_per_mm)
        w, h = round(squares_x * cell) + 2 * m, round(squares_y * cell) + 2 * m
        img = np.full((h, w), 255, np.uint8)
        for r in range(squares_y):
            for c in range(squares_x):
                if (r + c) % 2 == 0:
                    x0, y0 = m + round(c * cell), m + round(r * cell)
                    img[y0 : m + round((r + 1) * cell), x0 : m + round((c + 1) * cell)] = 0
        return img


def find_board(frame: np.ndarray, board: Board) -> tuple[np.ndarray, np.ndarray] | None:
    """Image points and matching board points of one view, or None if the board is not seen."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if board.kind == "chessboard":
        flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
        found, corners = cv2.findChessboardCorners(
            gray, (board.cols, board.rows), flags=flags | cv2.CALIB_CB_FAST_CHECK
        )
        if not found:
            return None
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 0.01)
        corners = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), criteria)
        return corners.reshape(-1, 2).astype(np.float32), board.object_points()
    detector = cv2.aruco.CharucoDetector(board.charuco())
    ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
    if ch_ids is None or len(ch_ids) < 6:
        return None
    obj = np.asarray(board.charuco().getChessboardCorners())[ch_ids.reshape(-1)]
    return ch_corners.reshape(-1, 2).astype(np.float32), np.asarray(obj, np.float32)


def calibrate_lens(
    views: Iterable[np.ndarray], board: Board, *, min_views: int = 5
) -> tuple[LensModel, int]:
    """Fit a lens model from views of a board; returns the model and the number of views
    in which the board was found. InputError when too few views show the board."""
    image_pts: list[np.ndarray] = []
    object_pts: list[np.ndarray] = []
    size: tuple[int, int] | None = None
    total = 0
    for frame in views:
        total += 1
        size = (frame.shape[1], frame.shape[0])
        found = find_board(frame, board)
        if found is not None:
            image_pts.append(found[0])
            object_pts.append(found[1])
    if size is None:
        raise InputError("no views to calibrate from", "--source")
    if len(image_pts) < min_views:
        raise InputError(
            f"the {board.kind} was found in {len(image_pts)} of {total} views; need at least "
            f"{min_views} (check --cols/--rows: they count inner corners for a chessboard, "
            "squares for ChArUco)",
            "--source",
        )
    # k3 is fixed at zero: with the board seldom in the very corners of the picture, a free
    # k3 fits noise there and bends the edges of the view the wrong way.
    rms, matrix, dist, _, _ = cv2.calibrateCamera(
        object_pts, image_pts, size, None, None, flags=cv2.CALIB_FIX_K3
    )
    log.info("lens calibrated from %d views, rms %.3f px", len(image_pts), rms)
    return LensModel(matrix, dist.reshape(-1), size, float(rms)), len(image_pts)
