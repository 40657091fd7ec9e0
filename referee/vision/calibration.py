"""A camera calibration: from image pixels to mat millimetres and zones, and its file.

A :class:`Calibration` holds the homography from (undistorted) image pixels to mat mm, the
optional lens model, the mat layout it was made for, and how well the markers fitted. It
maps points both ways, gives each zone's outline in the image, and rectifies a frame or one
zone to a top-down view. :func:`calibrate` makes one from frames; :func:`load_calibration`
and :func:`save_calibration` read and write the YAML file (every error names file and
field; a file made for a different mat layout is refused).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from referee.errors import InputError
from referee.vision.fields import Fields, read_yaml_mapping
from referee.vision.lens import LensModel
from referee.vision.markers import (
    HomographyFit,
    MarkerDetections,
    MarkerDetector,
    average_detections,
    fit_homography,
)
from referee.vision.mat import DEFAULT_LAYOUT, MatLayout, Zone, load_layout

log = logging.getLogger(__name__)

FORMAT = "spit-referee-calibration/1"
MIN_MARKERS = 3


@dataclass(frozen=True)
class FitQuality:
    """Residuals of the marker corners under the fitted homography, in mat mm."""

    rms_mm: float
    median_mm: float
    max_mm: float

    @classmethod
    def of(cls, fit: HomographyFit) -> FitQuality:
        return cls(fit.rms_mm, fit.median_mm, fit.max_mm)


@dataclass(frozen=True, eq=False)
class Calibration:
    """Where the mat lies in the camera image."""

    layout: MatLayout
    image_size: tuple[int, int]  # width, height in pixels
    homography: np.ndarray  # 3x3: undistorted image pixels -> mat mm
    markers_used: tuple[int, ...]
    quality: FitQuality
    lens: LensModel | None = None
    created: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        h = np.asarray(self.homography, np.float64)
        if h.shape != (3, 3) or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-15:
            raise ValueError("homography must be a finite, invertible 3x3 matrix")
        object.__setattr__(self, "homography", h / h[2, 2])

    @property
    def inverse(self) -> np.ndarray:
        """3x3: mat mm -> undistorted image pixels."""
        inv = np.linalg.inv(self.homography)
        return inv / inv[2, 2]

    def replace(self, **changes: Any) -> Calibration:
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ mapping points
    def image_to_mat(self, points: np.ndarray) -> np.ndarray:
        """Image pixels as the camera sees them ``(n, 2)`` -> mat mm ``(n, 2)``."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort_points(pts)
        return _apply(self.homography, pts)

    def mat_to_image(self, points: np.ndarray) -> np.ndarray:
        """Mat mm ``(n, 2)`` -> image pixels as the camera sees them ``(n, 2)``."""
        pts = _apply(self.inverse, np.asarray(points, np.float64).reshape(-1, 2))
        return self.lens.distort_points(pts) if self.lens is not None else pts

    def zone_polygon(self, zone: str | Zone, *, samples_per_edge: int = 1) -> np.ndarray:
        """A zone's outline in image pixels, corners in the owner's order (their top-left
        first). With a lens model, ask for more ``samples_per_edge`` to follow curved edges."""
        z = self.layout.zone(zone) if isinstance(zone, str) else zone
        return self.mat_to_image(_densify(z.polygon(), samples_per_edge))

    def zone_polygons(self, *, samples_per_edge: int = 1) -> dict[str, np.ndarray]:
        return {z.id: self.zone_polygon(z, samples_per_edge=samples_per_edge)
                for z in self.layout.zones}

    # ------------------------------------------------------------------ rectifying
    def rectify(
        self, frame: np.ndarray, px_per_mm: float, *, zone: str | None = None,
        margin_mm: float = 0.0,
    ) -> np.ndarray:
        """A top-down view at ``px_per_mm``: the whole mat (as :func:`render_mat` draws it),
        or one zone turned so that its owner reads it upright, plus ``margin_mm`` around."""
        map_x, map_y = self.rectify_maps(px_per_mm, zone=zone, margin_mm=margin_mm)
        return cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def rectify_maps(
        self, px_per_mm: float, *, zone: str | None = None, margin_mm: float = 0.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``cv2.remap`` maps (float32 image x and y per output pixel) of :meth:`rectify`,
        to compute once and apply to every frame."""
        if not px_per_mm > 0:
            raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
        s = float(px_per_mm)
        if zone is None:
            w_mm, h_mm = self.layout.size_mm
            origin = np.array([-margin_mm, -margin_mm])
            ex, ey = np.array([1.0, 0.0]), np.array([0.0, 1.0])
            w_mm, h_mm = w_mm + 2 * margin_mm, h_mm + 2 * margin_mm
        else:
            z = self.layout.zone(zone)
            poly = z.polygon()
            ex = (poly[1] - poly[0]) / np.linalg.norm(poly[1] - poly[0])
            ey = (poly[3] - poly[0]) / np.linalg.norm(poly[3] - poly[0])
            origin = poly[0] - margin_mm * (ex + ey)
            w_mm, h_mm = z.size[0] + 2 * margin_mm, z.size[1] + 2 * margin_mm
        out_w, out_h = max(1, round(w_mm * s)), max(1, round(h_mm * s))
        # output pixel (u, v) -> mat mm: origin + ((u + 0.5) / s) ex + ((v + 0.5) / s) ey
        out_to_mat = np.array(
            [
                [ex[0] / s, ey[0] / s, origin[0] + 0.5 * (ex[0] + ey[0]) / s],
                [ex[1] / s, ey[1] / s, origin[1] + 0.5 * (ex[1] + ey[1]) / s],
                [0.0, 0.0, 1.0],
            ]
        )
        out_to_img = self.inverse @ out_to_mat
        uu, vv = np.meshgrid(np.arange(out_w, dtype=np.float64), np.arange(out_h, dtype=np.float64))
        img = _apply(out_to_img, np.stack([uu.ravel(), vv.ravel()], axis=1))
        if self.lens is not None:
            img = self.lens.distort_points(img)
        img = img.astype(np.float32)
        return img[:, 0].reshape(out_h, out_w), img[:, 1].reshape(out_h, out_w)

    # ------------------------------------------------------------------ file form
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "created": self.created,
            "source": self.source,
            "mat": {
                "name": self.layout.name,
                "sha256": self.layout.sha256,
                "file": _display_path(self.layout.source),
            },
            "image_size": list(self.image_size),
            "homography": [[float(f"{v:.10g}") for v in row] for row in self.homography],
            "lens": self.lens.to_dict() if self.lens is not None else None,
            "reprojection_error_mm": {
                "rms": round(self.quality.rms_mm, 4),
                "median": round(self.quality.median_mm, 4),
                "max": round(self.quality.max_mm, 4),
            },
            "markers_used": list(self.markers_used),
        }


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    if len(pts) == 0:
        return pts.reshape(0, 2)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)


def _densify(poly: np.ndarray, samples: int) -> np.ndarray:
    if samples <= 1:
        return poly
    out = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        t = np.linspace(0, 1, samples, endpoint=False)[:, None]
        out.append(a + t * (b - a))
    return np.concatenate(out)


def _display_path(source: str) -> str:
    if not source:
        return ""
    p = Path(source).resolve()
    for base in (Path.cwd(), DEFAULT_LAYOUT.parents[1]):
        try:
            return str(p.relative_to(base))
        except ValueError:
            continue
    return str(p)


# ----------------------------------------------------------------------------- computing


def calibrate(
    frames: Iterable[np.ndarray],
    layout: MatLayout,
    *,
    lens: LensModel | None = None,
    source: str = "",
    min_markers: int = MIN_MARKERS,
) -> tuple[Calibration, MarkerDetections]:
    """Calibrate from one or more frames of a still camera (marker corners are averaged over
    the frames). Returns the calibration and the averaged detections it used.

    InputError (naming ``source``) when fewer than ``min_markers`` markers are found or they
    do not agree on one homography.
    """
    detector = MarkerDetector(layout)
    size: tuple[int, int] | None = None
    per_frame: list[MarkerDetections] = []
    for frame in frames:
        frame_size = (frame.shape[1], frame.shape[0])
        if size is not None and frame_size != size:
            raise InputError(f"frame size changed from {size} to {frame_size}", source or None)
        size = frame_size
        per_frame.append(detector.detect(frame))
    if size is None:
        raise InputError("no frames to calibrate from", source or None)
    if lens is not None and lens.image_size != size:
        raise InputError(
            f"the lens calibration is for {lens.image_size[0]}x{lens.image_size[1]} images, "
            f"these frames are {size[0]}x{size[1]}",
            source or None,
        )
    det = average_detections(per_frame)
    total = len(layout.markers)
    if len(det) < min_markers:
        raise InputError(
            f"found {len(det)} of the mat's {total} markers in {len(per_frame)} frame(s); need "
            f"at least {min_markers}. Is the mat '{layout.name}' in view, lit and in focus?",
            source or None,
        )
    fit = fit_homography(det, layout, lens, min_markers=min_markers)
    if fit is None:
        raise InputError(
            f"the {len(det)} markers found do not agree on where the mat is (a second mat, "
            "or markers moved?)",
            source or None,
        )
    if fit.rejected_ids:
        log.warning("markers left out (they do not fit the others): %s", fit.rejected_ids)
    cal = Calibration(
        layout=layout,
        image_size=size,
        homography=fit.homography,
        markers_used=fit.marker_ids,
        quality=FitQuality.of(fit),
        lens=lens,
        created=datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        source=source,
    )
    return cal, det


# ----------------------------------------------------------------------------- the file


def save_calibration(cal: Calibration, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "# Spit referee camera calibration (spit-referee calibrate). homography maps image\n"
        "# pixels (undistorted by lens, when present) to mat millimetres.\n"
    )
    body = yaml.safe_dump(cal.to_dict(), sort_keys=False, default_flow_style=None, width=100)
    path.write_text(header + body, encoding="utf-8")


def load_calibration(path: str | Path, layout: MatLayout | None = None) -> Calibration:
    """Read and check a calibration file.

    ``layout`` is the mat in use; when None, the layout file named in the calibration is
    loaded (``mat.file``, relative to the working directory or the project). Either way the
    layout's hash must match the one the calibration was made with.
    """
    path = Path(path)
    data = read_yaml_mapping(path, "calibration")
    f = Fields(data, str(path))
    fmt = data.get("format")
    if fmt != FORMAT:
        raise f.fail("format", f"expected {FORMAT!r}, got {fmt!r} (not a calibration file?)")
    mat = f.sub("mat")
    name = mat.text("name")
    digest = mat.text("sha256")
    if layout is None:
        layout = _layout_named_in(mat)
    if digest != layout.sha256:
        raise mat.fail(
            "sha256",
            f"made for a different mat layout than {layout.source or layout.name!r} "
            f"(mat {name!r}, hash {digest[:12]} vs {layout.sha256[:12]}); recalibrate with "
            "this mat, or use the layout it was made for",
        )
    w, h = f.numbers("image_size", 2, positive=True)
    if w != int(w) or h != int(h):
        raise f.fail("image_size", f"expected whole pixels, got {[w, h]}")
    matrix = np.array(f.matrix("homography", 3, 3))
    if abs(np.linalg.det(matrix)) < 1e-15 or matrix[2, 2] == 0:
        raise f.fail("homography", "not an invertible homography")
    lens = LensModel.from_fields(f.sub("lens")) if f.has("lens") else None
    err = f.sub("reprojection_error_mm")
    quality = FitQuality(err.number("rms"), err.number("median"), err.number("max"))
    ids = f.raw("markers_used")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise f.fail("markers_used", "expected a list of marker ids")
    unknown = sorted(set(ids) - set(layout.marker_ids))
    if unknown:
        raise f.fail("markers_used", f"markers {unknown} are not on mat {layout.name!r}")
    cal = Calibration(
        layout=layout,
        image_size=(int(w), int(h)),
        homography=matrix,
        markers_used=tuple(ids),
        quality=quality,
        lens=lens,
        created=str(data.get("created", "")),
        source=str(data.get("source", "")),
    )
    corners = cal.mat_to_image(np.array([[0, 0], [layout.size_mm[0], layout.size_mm[1]]]))
    if not np.isfinite(corners).all():
        raise f.fail("homography", "maps the mat to infinity")
    return cal


def _layout_named_in(mat: Fields) -> MatLayout:
    named = mat.text("file") if mat.has("file") else ""
    candidates = [Path(named), DEFAULT_LAYOUT.parents[1] / named] if named else []
    for candidate in candidates:
        if candidate.is_file():
            return load_layout(candidate)
    raise mat.fail(
        "file",
        f"mat layout file {named!r} not found; pass the layout with --mat",
    )
