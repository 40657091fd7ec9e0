"""The play mat: its layout file (markers and zones in millimetres) and its rendering.

One module reads and checks a layout file (``calibration/default-mat.yaml``) into a frozen
:class:`MatLayout`; every error names the file and the field. :func:`render_mat` draws the
mat top-down, true to the printed sheet, for printing (``spit-referee mat``), for the
simulator, and for tests.

Mat coordinates are millimetres with the origin at the printed mat's top-left corner, x to
the right and y down. Player A sits at the bottom edge (large y), player B at the top.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.players import Player
from referee.vision.fields import Fields, read_yaml_mapping

log = logging.getLogger(__name__)

FORMAT = "spit-referee-mat/1"
DEFAULT_LAYOUT = Path(__file__).resolve().parents[2] / "calibration" / "default-mat.yaml"

STOCK_SLOTS = 5
REQUIRED_ZONES: tuple[str, ...] = tuple(
    [f"{p}.stock{i}" for p in ("A", "B") for i in range(1, STOCK_SLOTS + 1)]
    + ["A.packet", "B.packet", "pile1", "pile2"]
)
_ZONE_ID = re.compile(r"^(?:(?P<owner>[AB])\.(?:stock(?P<slot>[1-5])|packet)|pile(?P<pile>[12]))$")

# Drawing style (not part of the geometry).
_INK = (40, 40, 40)
_LABEL_INK = (150, 150, 150)
_ZONE_FILL = {None: (224, 236, 226), Player.A: (238, 226, 214), Player.B: (214, 230, 240)}
_OUTLINE_MM = 0.8


class ZoneKind(StrEnum):
    STOCK = "stock"
    PACKET = "packet"
    PILE = "pile"


@dataclass(frozen=True)
class Marker:
    """One square ArUco marker, unrotated on the mat (its top edge toward player B)."""

    id: int
    center: tuple[float, float]
    size_mm: float

    def corners(self) -> np.ndarray:
        """The four corners in mat mm, in ArUco's order: top-left, top-right, bottom-right,
        bottom-left (as the marker is printed)."""
        cx, cy = self.center
        h = self.size_mm / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])


@dataclass(frozen=True)
class Zone:
    """A rectangular zone; ``size`` is (width, length) as its owner sees it."""

    id: str
    center: tuple[float, float]
    size: tuple[float, float]
    angle_deg: float
    label: str = ""

    @property
    def owner(self) -> Player | None:
        match = _ZONE_ID.match(self.id)
        return Player(match["owner"]) if match and match["owner"] else None

    @property
    def kind(self) -> ZoneKind:
        if self.id.startswith("pile"):
            return ZoneKind.PILE
        return ZoneKind.PACKET if self.id.endswith("packet") else ZoneKind.STOCK

    @property
    def number(self) -> int | None:
        """The stock slot (1-5) or spit pile (1-2) number; None for a packet."""
        match = _ZONE_ID.match(self.id)
        if match is None:
            return None
        value = match["slot"] or match["pile"]
        return int(value) if value else None

    def polygon(self) -> np.ndarray:
        """Corners in mat mm as the owner sees the zone: their top-left, top-right,
        bottom-right, bottom-left (so a zone rectified in this order reads upright)."""
        w, h = self.size
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + np.array(self.center)


@dataclass(frozen=True)
class Label:
    text: str
    center: tuple[float, float]
    height_mm: float
    angle_deg: float


@dataclass(frozen=True)
class MatLayout:
    """A play mat: its size, markers and zones, all in mat millimetres."""

    name: str
    size_mm: tuple[float, float]
    card_mm: tuple[float, float]
    dictionary: str
    marker_size_mm: float
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    labels: tuple[Label, ...] = ()
    description: str = ""
    source: str = field(default="", compare=False)

    @property
    def marker_ids(self) -> tuple[int, ...]:
        return tuple(m.id for m in self.markers)

    def marker(self, marker_id: int) -> Marker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise KeyError(f"mat {self.name!r} has no marker {marker_id}")

    def zone(self, zone_id: str) -> Zone:
        for z in self.zones:
            if z.id == zone_id:
                return z
        raise KeyError(f"mat {self.name!r} has no zone {zone_id!r}")

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def geometry(self) -> dict[str, Any]:
        """The parts that a calibration depends on (no names, descriptions or labels)."""
        return {
            "size_mm": list(self.size_mm),
            "dictionary": self.dictionary,
            "marker_size_mm": self.marker_size_mm,
            "markers": sorted([m.id, *m.center] for m in self.markers),
            "zones": sorted(
                [z.id, *z.center, *z.size, z.angle_deg % 360] for z in self.zones
            ),
        }

    @cached_property
    def sha256(self) -> str:
        """A hash of :meth:`geometry`, stable across comments, ordering and formatting."""
        text = json.dumps(self.geometry(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def load_layout(path: str | Path | None = None) -> MatLayout:
    """Read and check a mat layout file (the default mat when ``path`` is None)."""
    path = Path(path) if path is not None else DEFAULT_LAYOUT
    return parse_layout(read_yaml_mapping(path, "mat layout"), str(path))


def parse_layout(data: dict[str, Any], source: str) -> MatLayout:
    """Check a parsed layout mapping; InputError names ``source`` and the bad field."""
    f = Fields(data, source)
    fmt = f.text("format")
    if fmt != FORMAT:
        raise f.fail("format", f"expected {FORMAT!r}, got {fmt!r} (not a mat layout?)")
    width, height = f.numbers("size_mm", 2, positive=True)
    card = f.numbers("card_mm", 2, positive=True)

    aruco = f.sub("aruco")
    dictionary = aruco.text("dictionary")
    if not dictionary.startswith("DICT_") or not hasattr(cv2.aruco, dictionary):
        raise aruco.fail("dictionary", f"unknown ArUco dictionary {dictionary!r}")
    dict_size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).bytesList.shape[0]
    marker_size = aruco.number("marker_size_mm", positive=True)
    raw_markers = aruco.raw("markers")
    if not isinstance(raw_markers, list) or len(raw_markers) < 4:
        raise aruco.fail("markers", "expected a list of at least 4 markers")
    markers: list[Marker] = []
    for i, item in enumerate(raw_markers):
        mf = Fields(item, source, f"aruco.markers[{i}]")
        marker_id = mf.integer("id")
        if not 0 <= marker_id < dict_size:
            raise mf.fail("id", f"id {marker_id} is not in {dictionary} (0..{dict_size - 1})")
        if any(m.id == marker_id for m in markers):
            raise mf.fail("id", f"marker id {marker_id} is used twice")
        cx, cy = mf.numbers("center", 2)
        markers.append(Marker(marker_id, (cx, cy), marker_size))

    zf = f.sub("zones")
    zones: list[Zone] = []
    for zone_id in zf.data:
        if not isinstance(zone_id, str) or not _ZONE_ID.match(zone_id):
            raise zf.fail(
                str(zone_id), f"unknown zone id {zone_id!r}; expected one of {REQUIRED_ZONES}"
            )
        one = zf.sub(zone_id)
        cx, cy = one.numbers("center", 2)
        size = one.numbers("size", 2, positive=True)
        angle = one.number("angle_deg") if one.has("angle_deg") else 0.0
        if angle % 90:
            raise one.fail("angle_deg", "zones must be rotated by a multiple of 90 degrees")
        label = str(one.data.get("label", ""))
        zone = Zone(zone_id, (cx, cy), (size[0], size[1]), angle, label)
        if min(zone.size) < min(card) or max(zone.size) < max(card):
            raise one.fail("size", f"{size} mm is smaller than a {card[0]:g} x {card[1]:g} card")
        zones.append(zone)
    missing = [z for z in REQUIRED_ZONES if z not in zf.data]
    if missing:
        raise zf.fail("", f"missing zones: {', '.join(missing)}")

    labels: list[Label] = []
    if f.has("labels"):
        raw_labels = f.raw("labels")
        if not isinstance(raw_labels, list):
            raise f.fail("labels", "expected a list")
        for i, item in enumerate(raw_labels):
            lf = Fields(item, source, f"labels[{i}]")
            lx, ly = lf.numbers("center", 2)
            angle = lf.number("angle_deg") if lf.has("angle_deg") else 0.0
            labels.append(
                Label(lf.text("text"), (lx, ly), lf.number("height_mm", positive=True), angle)
            )

    layout = MatLayout(
        name=f.text("name"),
        size_mm=(width, height),
        card_mm=(card[0], card[1]),
        dictionary=dictionary,
        marker_size_mm=marker_size,
        markers=tuple(markers),
        zones=tuple(zones),
        labels=tuple(labels),
        description=str(data.get("description", "")),
        source=source,
    )
    _check_geometry(layout, f)
    return layout


def _boxes_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Gap between two axis-aligned boxes given as corner arrays (negative when they overlap)."""
    ax0, ay0 = a.min(axis=0)
    ax1, ay1 = a.max(axis=0)
    bx0, by0 = b.min(axis=0)
    bx1, by1 = b.max(axis=0)
    return float(max(bx0 - ax1, ax0 - bx1, by0 - ay1, ay0 - by1))


def _check_geometry(layout: MatLayout, f: Fields) -> None:
    """Everything on the mat, markers keep a quiet zone of one cell, nothing overlaps."""
    width, height = layout.size_mm
    bits = layout.aruco_dictionary().markerSize
    quiet = layout.marker_size_mm / (bits + 2)
    eps = 1e-6
    for i, m in enumerate(layout.markers):
        where = f"aruco.markers[{i}]"
        c = m.corners()
        if c.min() < quiet - eps or c[:, 0].max() > width - quiet + eps or (
            c[:, 1].max() > height - quiet + eps
        ):
            raise f.fail(where, f"marker {m.id} is not inside the mat with a {quiet:g} mm margin")
        for other in layout.markers[:i]:
            if _boxes_gap(c, other.corners()) < quiet - eps:
                raise f.fail(where, f"marker {m.id} is closer than {quiet:g} mm to {other.id}")
        for z in layout.zones:
            if _boxes_gap(c, z.polygon()) < quiet - eps:
                raise f.fail(where, f"marker {m.id} is closer than {quiet:g} mm to zone {z.id}")
    for i, zone in enumerate(layout.zones):
        p = zone.polygon()
        if p.min() < -eps or p[:, 0].max() > width + eps or p[:, 1].max() > height + eps:
            raise f.fail(f"zones.{zone.id}", "zone is not inside the mat")
        for earlier in layout.zones[:i]:
            if _boxes_gap(p, earlier.polygon()) < -eps:
                raise f.fail(f"zones.{zone.id}", f"zone overlaps zone {earlier.id}")


# ----------------------------------------------------------------------------- rendering


def render_mat(layout: MatLayout, px_per_mm: float) -> np.ndarray:
    """Draw the mat top-down as a BGR image at ``px_per_mm``.

    Pixel column j covers mat x from j / px_per_mm to (j + 1) / px_per_mm, so in OpenCV's
    pixel coordinates (centres at integers) a mat point lies at ``x * px_per_mm - 0.5``
    (:func:`mat_pixel`). Markers are drawn with sub-pixel accurate, anti-aliased edges, which
    is what makes rendered views good for measuring calibration accuracy.
    """
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    s = float(px_per_mm)
    width_px = round(layout.size_mm[0] * s)
    height_px = round(layout.size_mm[1] * s)
    image = np.full((height_px, width_px, 3), 255, np.uint8)
    shift = 4
    scale = 1 << shift

    def fixed(points_mm: np.ndarray) -> np.ndarray:
        return np.round((points_mm * s - 0.5) * scale).astype(np.int32)

    line = max(1, round(_OUTLINE_MM * s))
    for z in layout.zones:
        poly = fixed(z.polygon())
        cv2.fillPoly(image, [poly], _ZONE_FILL[z.owner], cv2.LINE_AA, shift)
        cv2.polylines(image, [poly], True, _INK, line, cv2.LINE_AA, shift)
        if z.label:
            length = z.size[1]
            height = min(12.0, length / 8) if z.kind is ZoneKind.STOCK else 6.0
            _draw_text(image, z.label, z.center, height, z.angle_deg, s, _LABEL_INK)
    for lab in layout.labels:
        _draw_text(image, lab.text, lab.center, lab.height_mm, lab.angle_deg, s, _INK)
    dictionary = layout.aruco_dictionary()
    for m in layout.markers:
        _draw_marker(image, dictionary, m, s)
    return image


def marker_cells(dictionary: cv2.aruco.Dictionary, marker_id: int) -> np.ndarray:
    """The marker's black/white cells including its one-cell black border (uint8 0/255)."""
    cells = dictionary.markerSize + 2
    return cv2.aruco.generateImageMarker(dictionary, marker_id, cells)


def _draw_marker(image: np.ndarray, dictionary: cv2.aruco.Dictionary, m: Marker, s: float) -> None:
    cells = marker_cells(dictionary, m.id)
    n = cells.shape[0]
    up = 16  # supersample so that linear interpolation gives a one-pixel anti-aliased edge
    src = np.kron(cells, np.ones((up, up), np.uint8))
    x0, y0 = m.corners()[0]
    side_px = m.size_mm * s
    k = side_px / (n * up)
    # src pixel centre (j) covers [j, j+1) source units -> dst u = (x0*s - 0.5) + (j+0.5)*k
    # Source pixel q (edges at q +- 0.5) lands at u = k*q + t: the marker's outer edges go
    # exactly to its mat edges x0*s - 0.5 and (x0 + size)*s - 0.5.
    tx = x0 * s - 0.5 + 0.5 * k
    ty = y0 * s - 0.5 + 0.5 * k
    left, top = max(0, math.floor(x0 * s) - 1), max(0, math.floor(y0 * s) - 1)
    right = min(image.shape[1], math.ceil((x0 * s) + side_px) + 2)
    bottom = min(image.shape[0], math.ceil((y0 * s) + side_px) + 2)
    matrix = np.array([[k, 0, tx - left], [0, k, ty - top]], np.float64)
    patch = cv2.warpAffine(
        src,
        matrix,
        (right - left, bottom - top),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    region = image[top:bottom, left:right]
    np.minimum(region, patch[:, :, None], out=region)


def _draw_text(
    image: np.ndarray,
    text: str,
    center_mm: tuple[float, float],
    height_mm: float,
    angle_deg: float,
    s: float,
    color: tuple[int, int, int],
) -> None:
    """Centre ``text`` (capital height ``height_mm``) at a mat point, turned by a multiple of
    90 degrees (180 reads upright for player B)."""
    font = cv2.FONT_HERSHEY_DUPLEX
    cap_px = max(4.0, height_mm * s)
    scale = cap_px / 22.0  # Hershey duplex capitals are about 22 px high at scale 1
    thickness = max(1, round(cap_px / 10))
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    pad = thickness + 2
    patch = np.full((th + base + 2 * pad, tw + 2 * pad, 3), 255, np.uint8)
    cv2.putText(patch, text, (pad, pad + th), font, scale, color, thickness, cv2.LINE_AA)
    patch = np.rot90(patch, k=-round(angle_deg / 90) % 4)  # clockwise, like zone angles
    ph, pw = patch.shape[:2]
    cx, cy = center_mm[0] * s, center_mm[1] * s
    left, top = round(cx - pw / 2), round(cy - ph / 2)
    y0, x0 = max(0, top), max(0, left)
    y1, x1 = min(image.shape[0], top + ph), min(image.shape[1], left + pw)
    if y1 <= y0 or x1 <= x0:
        return
    sub = patch[y0 - top : y1 - top, x0 - left : x1 - left]
    region = image[y0:y1, x0:x1]
    np.minimum(region, sub, out=region)


def mat_pixel(points_mm: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Pixel coordinates of mat points in an image drawn by :func:`render_mat`."""
    return np.asarray(points_mm, np.float64) * px_per_mm - 0.5


def check_fits(layout: MatLayout, sheet_mm: tuple[float, float]) -> bool:
    """Whether the mat fits on a sheet in either orientation."""
    w, h = layout.size_mm
    sw, sh = sheet_mm
    tol = 0.5
    return (w <= sw + tol and h <= sh + tol) or (w <= sh + tol and h <= sw + tol)


__all__ = [
    "DEFAULT_LAYOUT",
    "Label",
    "MatLayout",
    "Marker",
    "Zone",
    "ZoneKind",
    "check_fits",
    "load_layout",
    "marker_cells",
    "mat_pixel",
    "parse_layout",
    "render_mat",
]
