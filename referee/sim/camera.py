"""A pinhole camera with lens distortion looking at the table, OpenCV conventions.

World frame = the mat frame: millimetres, origin at the mat's top-left corner, x to the right,
y toward player A (down the mat as printed), z down into the table (right-handed). A point
``h`` mm above the table is at ``z = -h``; :func:`table_points` builds such points.

The camera maps world points to pixels exactly as ``cv2.projectPoints(X, rvec, tvec, K,
dist)``. :meth:`Camera.homography` maps table millimetres (z = 0) to *undistorted* pixels
(``cv2.undistortPoints(..., P=K)`` of the image); with ``dist`` all zero it maps straight to
image pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np


def table_points(xy: np.ndarray, height: np.ndarray | float = 0.0) -> np.ndarray:
    """``(N, 2)`` table mm and heights above the table (mm) to ``(N, 3)`` world points."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    z = -np.broadcast_to(np.asarray(height, np.float64), (len(xy),))
    return np.column_stack([xy, z])


@dataclass(frozen=True)
class Camera:
    """Intrinsics, distortion and pose. Values are tuples so that a camera is hashable."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, float, float, float, float]  # k1 k2 p1 p2 k3
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    # ----------------------------------------------------------------- construction
    @classmethod
    def look_at(cls, position: tuple[float, float, float], target: tuple[float, float, float],
                size: tuple[int, int] = (1280, 720), hfov_deg: float = 60.0,
                roll_deg: float = 0.0,
                dist: tuple[float, float, float, float, float] = (0, 0, 0, 0, 0),
                principal_offset: tuple[float, float] = (0.0, 0.0)) -> Camera:
        """A camera at ``position`` (world mm) looking at ``target``, player B's side up.

        ``hfov_deg`` is the horizontal field of view of the pinhole model; ``roll_deg`` turns
        the image about the optical axis.
        """
        c = np.asarray(position, np.float64)
        z = np.asarray(target, np.float64) - c
        z /= np.linalg.norm(z)
        down = np.array([0.0, 1.0, 0.0])  # image down = toward player A
        y = down - down.dot(z) * z
        if np.linalg.norm(y) < 1e-9:
            raise ValueError("the camera looks along the table's y axis; give another target")
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        r = np.stack([x, y, z])  # rows: camera axes in world coordinates
        if roll_deg:
            a = math.radians(roll_deg)
            rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0],
                           [0, 0, 1]])
            r = rz @ r
        t = -r @ c
        rvec = cv2.Rodrigues(r)[0].ravel()
        w, h = size
        f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
        return cls(w, h, f, f, w / 2 + principal_offset[0], h / 2 + principal_offset[1],
                   tuple(float(v) for v in dist),  # type: ignore[arg-type]
                   tuple(float(v) for v in rvec),  # type: ignore[arg-type]
                   tuple(float(v) for v in t))  # type: ignore[arg-type]

    # ----------------------------------------------------------------- matrices
    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @cached_property
    def K(self) -> np.ndarray:  # noqa: N802 (the usual name)
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], np.float64)

    @cached_property
    def dist_coeffs(self) -> np.ndarray:
        return np.array(self.dist, np.float64)

    @cached_property
    def R(self) -> np.ndarray:  # noqa: N802
        return cv2.Rodrigues(np.array(self.rvec, np.float64))[0]

    @property
    def t(self) -> np.ndarray:
        return np.array(self.tvec, np.float64)

    @cached_property
    def position(self) -> np.ndarray:
        """The camera centre in world mm."""
        return -self.R.T @ self.t

    def homography(self) -> np.ndarray:
        """Table mm (z = 0) to undistorted pixels: ``K [r1 r2 t]``, normalised."""
        h = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return h / h[2, 2]

    # ----------------------------------------------------------------- projection
    def project(self, points: np.ndarray) -> np.ndarray:
        """World points ``(N, 3)`` to image pixels ``(N, 2)``, with lens distortion."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 3)
        img, _ = cv2.projectPoints(pts, np.array(self.rvec), self.t, self.K, self.dist_coeffs)
        return img.reshape(-1, 2)

    def project_pinhole(self, points: np.ndarray, k: np.ndarray | None = None) -> np.ndarray:
        """World points to undistorted pixels (optionally with another intrinsic matrix)."""
        pts = np.asarray(points, np.float64).reshape(-1, 3)
        cam = pts @ self.R.T + self.t
        uv = cam @ (self.K if k is None else k).T
        return uv[:, :2] / uv[:, 2:3]

    def distort_pixels(self, undistorted: np.ndarray, k: np.ndarray | None = None) -> np.ndarray:
        """Undistorted pixels (of intrinsics ``k``, default K) to image pixels."""
        k = self.K if k is None else k
        pts = np.asarray(undistorted, np.float64).reshape(-1, 2)
        norm = np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1],
                                np.ones(len(pts))])
        img, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K,
                                   self.dist_coeffs)
        return img.reshape(-1, 2)

    def in_front(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 3)
        return (pts @ self.R.T + self.t)[:, 2] > 1.0

    def table_footprint(self, k: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Where the corners of a pinhole image of intrinsics ``k`` and ``size`` meet z = 0."""
        w, h = size
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        rays = np.column_stack([corners, np.ones(4)]) @ np.linalg.inv(k).T  # camera frame
        world_dirs = rays @ self.R  # R^T applied to each ray
        c = self.position
        s = -c[2] / world_dirs[:, 2]
        return (c[None, :] + s[:, None] * world_dirs)[:, :2]

    # ----------------------------------------------------------------- distortion
    @property
    def has_distortion(self) -> bool:
        return any(abs(v) > 1e-12 for v in self.dist)

    def distortion_margin(self) -> int:
        """How many pixels the undistorted view reaches beyond the image on any side."""
        if not self.has_distortion:
            return 2
        w, h = self.size
        xs = np.linspace(0, w, 33)
        ys = np.linspace(0, h, 19)
        border = np.concatenate([np.column_stack([xs, np.zeros_like(xs)]),
                                 np.column_stack([xs, np.full_like(xs, h)]),
                                 np.column_stack([np.zeros_like(ys), ys]),
                                 np.column_stack([np.full_like(ys, w), ys])])
        und = cv2.undistortPoints(border.reshape(-1, 1, 2), self.K, self.dist_coeffs,
                                  P=self.K).reshape(-1, 2)
        over = max(0.0, float(-und.min()), float(und[:, 0].max() - w), float(und[:, 1].max() - h))
        return int(math.ceil(over)) + 4

    def remap_tables(self, margin: int) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps from an undistorted canvas (K shifted by ``margin``) to the image.

        Exact per pixel (about 0.1 s at 1280x720; computed once per camera), in OpenCV's
        fixed-point form for a fast remap.
        """
        w, h = self.size
        grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float32),
                                    np.arange(h, dtype=np.float32)), -1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(grid, self.K, self.dist_coeffs, P=self.K).reshape(h, w, 2)
        und += margin
        return cv2.convertMaps(np.ascontiguousarray(und[:, :, 0]),
                               np.ascontiguousarray(und[:, :, 1]), cv2.CV_16SC2)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready record (OpenCV names: K, dist, rvec, tvec; mm and pixels)."""
        return {"size": [self.width, self.height], "K": self.K.round(6).tolist(),
                "dist": list(self.dist), "rvec": list(self.rvec), "tvec": list(self.tvec)}

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Camera:
        k = np.asarray(d["K"], np.float64)
        w, h = d["size"]  # type: ignore[misc]
        return cls(int(w), int(h), float(k[0, 0]), float(k[1, 1]), float(k[0, 2]),
                   float(k[1, 2]), tuple(float(v) for v in d["dist"]),  # type: ignore[arg-type, attr-defined]
                   tuple(float(v) for v in d["rvec"]),  # type: ignore[arg-type, attr-defined]
                   tuple(float(v) for v in d["tvec"]))  # type: ignore[arg-type, attr-defined]

    def nudged(self, shift_mm: tuple[float, float, float] = (0.0, 0.0, 0.0),
               turn_deg: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Camera:
        """The camera knocked: its centre moved by ``shift_mm`` (world) and turned by
        ``turn_deg`` about its own x, y and z axes; intrinsics unchanged."""
        rx, ry, rz = (math.radians(v) for v in turn_deg)
        turn = cv2.Rodrigues(np.array([rx, ry, rz]))[0]
        r = turn @ self.R
        c = self.position + np.asarray(shift_mm, np.float64)
        return self.with_pose(tuple(cv2.Rodrigues(r)[0].ravel()),  # type: ignore[arg-type]
                              tuple(-r @ c))  # type: ignore[arg-type]

    def with_pose(self, rvec: tuple[float, float, float],
                  tvec: tuple[float, float, float]) -> Camera:
        return Camera(self.width, self.height, self.fx, self.fy, self.cx, self.cy, self.dist,
                      tuple(float(v) for v in rvec),  # type: ignore[arg-type]
                      tuple(float(v) for v in tvec))  # type: ignore[arg-type]


def random_camera(rng: np.random.Generator, target: tuple[float, float] = (297.0, 210.0),
                  size: tuple[int, int] = (1280, 720),
                  view_mm: tuple[float, float] = (594.0, 420.0)) -> Camera:
    """A plausible ceiling or tripod camera over the table: rarely exactly overhead.

    ``view_mm`` (the mat's size) must fit in the image, with room to spare for hands and a
    wobbly set-up.
    """
    view_width_mm = max(view_mm[0], view_mm[1] * size[0] / size[1])
    height = float(rng.uniform(650, 1200))
    tilt = math.radians(float(rng.choice([0.0, rng.uniform(0, 6), rng.uniform(3, 22)],
                                         p=[0.05, 0.45, 0.5])))
    azim = float(rng.uniform(0, 2 * math.pi))
    off = height * math.tan(tilt)
    pos = (target[0] + off * math.cos(azim), target[1] + off * math.sin(azim), -height)
    aim = (target[0] + float(rng.normal(0, 15)), target[1] + float(rng.normal(0, 15)), 0.0)
    dist_to = math.dist(pos, aim)
    span = view_width_mm * float(rng.uniform(1.1, 1.4))
    hfov = math.degrees(2 * math.atan(span / 2 / dist_to))
    k1 = float(rng.uniform(-0.2, 0.03))
    dist = (k1, float(rng.uniform(-0.05, 0.08)) * abs(k1) * 3, float(rng.normal(0, 0.0007)),
            float(rng.normal(0, 0.0007)), 0.0)
    return Camera.look_at(pos, aim, size, hfov, roll_deg=float(rng.normal(0, 2.5)), dist=dist,
                          principal_offset=(float(rng.normal(0, 6)), float(rng.normal(0, 4))))
