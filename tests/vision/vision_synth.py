"""Synthetic camera views of the play mat with a known homography (test helper).

A view is the mat drawn by ``render_mat`` and warped by a known homography (mat mm -> image
pixels), optionally through a distorting lens, then blurred and made noisy, as a camera would
see it. Cards and hands are drawn on the mat before the warp to hide chosen markers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from referee.vision.lens import LensModel
from referee.vision.mat import MatLayout, render_mat

SIZE = (1280, 720)
TEXTURE_PX_PER_MM = 6.0
SUPERSAMPLE = 2
TABLE_BGR = (70, 100, 140)  # a wooden table around the mat


@dataclass(frozen=True)
class Pose:
    """A camera pose given by where the mat's corners land in the image (TL, TR, BR, BL)."""

    name: str
    corners: tuple[tuple[float, float], ...]
    blur_sigma: float = 0.8
    noise: float = 3.0

    def homography(self, layout: MatLayout) -> np.ndarray:
        """Mat mm -> image pixels."""
        w, h = layout.size_mm
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        dst = np.array(self.corners, np.float32)
        return cv2.getPerspectiveTransform(src.astype(np.float32), dst).astype(np.float64)


POSES = [
    Pose("overhead", ((165, 32), (1115, 32), (1115, 688), (165, 688))),
    Pose("tilted", ((215, 40), (1065, 40), (1150, 690), (130, 690)), blur_sigma=1.2, noise=5),
    Pose("turned", ((200, 90), (1080, 20), (1150, 640), (150, 700)), blur_sigma=1.0),
    Pose("oblique", ((330, 110), (950, 110), (1240, 700), (40, 700)), blur_sigma=1.4, noise=6),
    Pose("portrait", ((930, 40), (930, 680), (380, 680), (380, 40)), noise=4),
]


@lru_cache(maxsize=8)
def mat_texture(layout: MatLayout, hidden: tuple[int, ...] = ()) -> np.ndarray:
    """The mat at TEXTURE_PX_PER_MM with cards (white) and hands (skin) over ``hidden``."""
    tex = render_mat(layout, TEXTURE_PX_PER_MM)
    s = TEXTURE_PX_PER_MM
    for i, marker_id in enumerate(hidden):
        color = (235, 235, 240) if i % 2 == 0 else (120, 150, 200)
        poly_mm = card_over(layout, marker_id, angle=10.0 + 25 * i)
        pts = np.round((poly_mm * s - 0.5) * 16).astype(np.int32)
        cv2.fillPoly(tex, [pts], color, cv2.LINE_AA, 4)
    tex.setflags(write=False)
    return tex


def card_over(layout: MatLayout, marker_id: int, angle: float = 12.0) -> np.ndarray:
    """A card-sized rectangle (mat mm) lying over a marker, a little askew."""
    cx, cy = layout.marker(marker_id).center
    w, h = 63.0, 88.0
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ rot.T + np.array([cx + 8, cy - 5])


def camera_view(
    layout: MatLayout,
    mat_to_image: np.ndarray,
    *,
    hidden: tuple[int, ...] = (),
    blur_sigma: float = 0.8,
    noise: float = 3.0,
    lens: LensModel | None = None,
    seed: int = 0,
    size: tuple[int, int] = SIZE,
) -> np.ndarray:
    """Render what a camera sees; ``mat_to_image`` maps mat mm to (undistorted) pixels."""
    rng = np.random.default_rng(seed)
    tex = mat_texture(layout, tuple(hidden))
    img = planar_view(tex, TEXTURE_PX_PER_MM, mat_to_image, lens=lens, size=size)
    if blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    if noise > 0:
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img


def planar_view(
    texture: np.ndarray,
    tex_px_per_mm: float,
    plane_to_image: np.ndarray,
    *,
    lens: LensModel | None = None,
    size: tuple[int, int] = SIZE,
    background: tuple[int, ...] = TABLE_BGR,
) -> np.ndarray:
    """A flat texture (``tex_px_per_mm``) seen by a camera: ``plane_to_image`` maps plane mm
    to ideal pixels, ``lens`` then distorts. Supersampled, so edges are anti-aliased."""
    s = tex_px_per_mm
    k = SUPERSAMPLE
    tex_to_plane = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1]])
    up = np.array([[k, 0, (k - 1) / 2], [0, k, (k - 1) / 2], [0, 0, 1]])
    big_size = (size[0] * k, size[1] * k)
    if lens is None:
        big = cv2.warpPerspective(
            texture, up @ plane_to_image @ tex_to_plane, big_size, flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT, borderValue=background,
        )
    else:
        ideal = _ideal_pixels(lens, size)
        to_tex = np.linalg.inv(plane_to_image @ tex_to_plane)
        src = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), to_tex).reshape(-1, 2)
        maps = src.astype(np.float32).reshape(big_size[1], big_size[0], 2)
        big = cv2.remap(texture, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    return cv2.resize(big, size, interpolation=cv2.INTER_AREA)


_IDEAL_CACHE: dict[tuple[bytes, tuple[int, int]], np.ndarray] = {}


def _ideal_pixels(lens: LensModel, size: tuple[int, int]) -> np.ndarray:
    """For every supersampled pixel of a distorted view, where it lies in the ideal image
    (computed once per lens and size: undistorting millions of points is slow)."""
    key = (lens.camera_matrix.tobytes() + lens.dist_coeffs.tobytes(), size)
    if key not in _IDEAL_CACHE:
        k = SUPERSAMPLE
        uu, vv = np.meshgrid(np.arange(size[0] * k), np.arange(size[1] * k))
        small = np.stack([(uu.ravel() - (k - 1) / 2) / k, (vv.ravel() - (k - 1) / 2) / k], 1)
        _IDEAL_CACHE[key] = lens.undistort_points(small)
    return _IDEAL_CACHE[key]


def pose_homography(camera_matrix: np.ndarray, rvec: tuple[float, float, float],
                    tvec: tuple[float, float, float]) -> np.ndarray:
    """Plane (z = 0, mm) -> ideal pixels for a camera at pose (rvec, tvec)."""
    r, _ = cv2.Rodrigues(np.array(rvec, np.float64))
    h = camera_matrix @ np.column_stack([r[:, 0], r[:, 1], np.array(tvec, np.float64)])
    return h / h[2, 2]


def mapping_error_mm(
    layout: MatLayout,
    true_mat_to_image: np.ndarray,
    image_to_mat: Callable[[np.ndarray], np.ndarray],
    lens: LensModel | None = None,
) -> np.ndarray:
    """Errors (mm) on a 10 mm grid over the whole mat: true position vs the position the
    calibration gives for the pixel where that point appears."""
    w, h = layout.size_mm
    xs, ys = np.meshgrid(np.arange(0, w + 0.1, 10.0), np.arange(0, h + 0.1, 10.0))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
    img = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), true_mat_to_image).reshape(-1, 2)
    if lens is not None:
        img = lens.distort_points(img)
    return np.linalg.norm(image_to_mat(img) - grid, axis=1)


def shifted(h: np.ndarray, dx: float, dy: float, turn_deg: float = 0.0) -> np.ndarray:
    """``h`` (mat -> image) followed by an image-plane move: turn about the centre, shift."""
    c = np.array([SIZE[0] / 2, SIZE[1] / 2])
    a = np.radians(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    move = np.eye(3)
    move[:2, :2] = rot
    move[:2, 2] = c - rot @ c + [dx, dy]
    return move @ h
