"""Drawing a calibration over a camera frame, for a person to check it by eye."""

from __future__ import annotations

import cv2
import numpy as np

from referee.players import Player
from referee.vision.calibration import Calibration
from referee.vision.markers import MarkerDetections

_ZONE_BGR = {Player.A: (255, 140, 0), Player.B: (0, 140, 255), None: (60, 200, 60)}
_FOUND_BGR = (0, 220, 0)
_MISSING_BGR = (0, 0, 255)


def draw_preview(
    frame: np.ndarray,
    calibration: Calibration | None,
    detections: MarkerDetections | None,
) -> np.ndarray:
    """The frame with the zones (outlined, named) and the markers: found ones in green with
    their id, markers the calibration expects but did not find in red."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(out.shape[:2]) / 1280
    thick = max(1, round(2 * scale))
    font = cv2.FONT_HERSHEY_SIMPLEX
    if calibration is not None:
        for zone in calibration.layout.zones:
            poly = calibration.zone_polygon(zone, samples_per_edge=12)
            pts = np.round(poly * 16).astype(np.int32)
            cv2.polylines(out, [pts], True, _ZONE_BGR[zone.owner], thick, cv2.LINE_AA, 4)
            corners = zone.polygon()  # owner's top edge first: label between it and the centre
            at_mm = 0.6 * np.array(zone.center) + 0.4 * (corners[0] + corners[1]) / 2
            at = calibration.mat_to_image(at_mm[None])[0]
            _label(out, zone.id, at, 0.5 * scale, _ZONE_BGR[zone.owner], font)
    found = set(detections.ids.tolist()) if detections is not None else set()
    if detections is not None:
        for marker_id, quad in zip(detections.ids.tolist(), detections.corners, strict=True):
            pts = np.round(quad * 16).astype(np.int32)
            cv2.polylines(out, [pts], True, _FOUND_BGR, thick, cv2.LINE_AA, 4)
            cv2.circle(out, tuple(np.round(quad[0]).astype(int)), thick + 2, _FOUND_BGR, -1)
            _label(out, str(marker_id), quad.mean(axis=0), 0.6 * scale, _FOUND_BGR, font)
    if calibration is not None:
        for m in calibration.layout.markers:
            if m.id in found:
                continue
            quad = calibration.mat_to_image(m.corners())
            pts = np.round(quad * 16).astype(np.int32)
            cv2.polylines(out, [pts], True, _MISSING_BGR, thick, cv2.LINE_AA, 4)
            _label(out, f"{m.id}?", quad.mean(axis=0), 0.6 * scale, _MISSING_BGR, font)
    return out


def _label(
    img: np.ndarray, text: str, at: np.ndarray, size: float, color: tuple[int, int, int], font: int
) -> None:
    thick = max(1, round(2 * size))
    (tw, th), _ = cv2.getTextSize(text, font, size, thick)
    org = (int(at[0] - tw / 2), int(at[1] + th / 2))
    cv2.putText(img, text, org, font, size, (255, 255, 255), thick + 3, cv2.LINE_AA)
    cv2.putText(img, text, org, font, size, color, thick, cv2.LINE_AA)
