"""The referee's view drawn over the camera picture: zones, what lies on them, events, faults.

    overlay = Overlay(calibration)
    picture = overlay.draw(frame.image, step, referee.observer.state)

Zones are outlined where the calibration puts them (green when settled, amber while a hand or
a card moves over them, red for a second after a fault there) with what the referee believes
lies on top; the last few events and verdicts scroll at the bottom left; a fault shows as a red
banner naming the player, the code and the rule for two seconds; calls (Spit!, round over,
slap winner) as a blue banner. Text is OpenCV's Hershey font: nothing to install or fetch.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from referee.events import Call, Outcome, TableEvent, Verdict
from referee.live.pipeline import StepResult
from referee.vision.calibration import Calibration
from referee.vision.observation import ObserverState

GREEN, AMBER, RED, BLUE, WHITE, BLACK = (60, 200, 60), (0, 170, 255), (40, 40, 230), (230, 140, 30), \
    (255, 255, 255), (0, 0, 0)
FONT = cv2.FONT_HERSHEY_SIMPLEX
BANNER_S = 2.0
TICKER_LINES = 6


@dataclass
class _Banner:
    text: str
    colour: tuple[int, int, int]
    until: float
    zone: str | None = None


def describe(event: TableEvent) -> str:
    """One line for a table event: ``A play 7D slot 3 -> pile 2``."""
    parts = [event.player.value, event.kind]
    for name in ("card", "slot", "from_slot", "to_slot", "pile"):
        value = getattr(event, name, None)
        if value is not None:
            parts.append(f"{name.replace('_slot', '')}:{value}" if name != "card" else str(value))
    return " ".join(parts)


class Overlay:
    """Draws one frame of the referee's view; keeps the recent events and banners between frames."""

    def __init__(self, calibration: Calibration) -> None:
        self.set_calibration(calibration)
        self._ticker: deque[str] = deque(maxlen=TICKER_LINES)
        self._banners: list[_Banner] = []

    def set_calibration(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self._polygons = {zid: np.round(poly).astype(np.int32)
                          for zid, poly in calibration.zone_polygons(samples_per_edge=4).items()}

    def draw(self, image: np.ndarray, step: StepResult, state: ObserverState) -> np.ndarray:
        out = image.copy()
        h, w = out.shape[:2]
        scale = max(0.8, min(w, h) / 500)
        thick = max(1, round(scale * 2))
        self._remember(step)
        fault_zones = {b.zone for b in self._banners if b.zone and b.colour == RED}
        for zid, poly in self._polygons.items():
            obs = step.tracked.zones.get(zid)
            colour = RED if zid in fault_zones else (AMBER if obs is not None and obs.covered else GREEN)
            cv2.polylines(out, [poly.reshape(-1, 1, 2)], True, colour, thick, cv2.LINE_AA)
            label = state.tops.get(zid, "")
            if label and label != "empty":
                x, y = poly.min(axis=0)
                _text(out, label, (int(x) + 3, int(y) + int(18 * scale)), scale * 0.6, colour, thick)
        y = h - 10
        for line in reversed(self._ticker):
            _text(out, line, (10, y), scale * 0.5, WHITE, max(1, thick - 1))
            y -= int(22 * scale)
        by = int(40 * scale)
        for banner in self._banners:
            (tw, th), _ = cv2.getTextSize(banner.text, FONT, scale * 0.8, thick)
            x = (w - tw) // 2
            cv2.rectangle(out, (x - 10, by - th - 10), (x + tw + 10, by + 10), banner.colour, -1)
            cv2.putText(out, banner.text, (x, by), FONT, scale * 0.8, WHITE, thick, cv2.LINE_AA)
            by += th + int(30 * scale)
        _text(out, f"t {step.t:7.2f} s  frame {step.frame}", (10, int(24 * scale)), scale * 0.5, WHITE,
              max(1, thick - 1))
        return out

    def _remember(self, step: StepResult) -> None:
        now = step.t
        self._banners = [b for b in self._banners if b.until > now]
        for event, verdict in zip(step.events, step.verdicts, strict=False):
            mark = "" if verdict.outcome is Outcome.LEGAL else f"  {verdict.code}"
            self._ticker.append(f"{event.t:6.2f}  {describe(event)}{mark}")
            if verdict.outcome is Outcome.FAULT:
                self._banners.append(_Banner(_fault_text(verdict), RED, now + BANNER_S, _zone_of(event)))
        for verdict in step.revised:  # judged again: a card found beneath it
            mark = "legal" if verdict.outcome is Outcome.LEGAL else str(verdict.code)
            self._ticker.append(f"{verdict.t:6.2f}  event {verdict.event} judged again: {mark}")
            if verdict.outcome is Outcome.FAULT:
                self._banners.append(_Banner(_fault_text(verdict), RED, now + BANNER_S))
        for call in step.calls:
            self._banners.append(_Banner(_call_text(call), BLUE, now + BANNER_S))


def _fault_text(verdict: Verdict) -> str:
    return f"FAULT {verdict.player.value}: {verdict.code} ({verdict.rule})"


def _call_text(call: Call) -> str:
    return call.message or call.call.value


def _zone_of(event: TableEvent) -> str | None:
    pile = getattr(event, "pile", None)
    if pile is not None:
        return f"pile{pile}"
    slot = getattr(event, "slot", None) or getattr(event, "to_slot", None)
    return f"{event.player.value}.stock{slot}" if slot else None


def _text(image: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],
          thick: int) -> None:
    """Text on a dark box, readable on any table. (An outline drawn thicker under the text does
    not work: putText advances each glyph by its thickness, so the outline runs longer.)"""
    (tw, th), base = cv2.getTextSize(text, FONT, scale, thick)
    x, y = org
    cv2.rectangle(image, (x - 2, y - th - 3), (x + tw + 2, y + base), BLACK, -1)
    cv2.putText(image, text, org, FONT, scale, colour, thick, cv2.LINE_AA)
