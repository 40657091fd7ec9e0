"""Laying the mat out on paper: one sheet at true scale, or tiles for a small printer.

A mat that fits the sheet is centred on it. One that does not can be tiled: each page holds
a piece of the mat inside a printer-safe margin, neighbouring pieces overlap by
``OVERLAP_MM``, and a thin line on each page marks where the next piece starts, so that the
pages can be trimmed on that line and taped edge to edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from referee.errors import InputError
from referee.vision.mat import MatLayout, check_fits, render_mat

# Sheet sizes in mm (portrait width x height).
PAPER_MM: dict[str, tuple[float, float]] = {
    "A0": (841, 1189),
    "A1": (594, 841),
    "A2": (420, 594),
    "A3": (297, 420),
    "A4": (210, 297),
    "letter": (215.9, 279.4),
    "legal": (215.9, 355.6),
    "tabloid": (279.4, 431.8),
    "ARCH-C": (457.2, 609.6),
    "ARCH-D": (609.6, 914.4),
}
MARGIN_MM = 10.0  # kept blank on tiled pages: most printers cannot print to the edge
OVERLAP_MM = 10.0


def paper_named(name: str) -> tuple[str, tuple[float, float]]:
    for known, size in PAPER_MM.items():
        if known.lower() == name.lower():
            return known, size
    raise InputError(f"unknown paper {name!r}; one of {', '.join(PAPER_MM)}", "--paper")


@dataclass(frozen=True)
class Page:
    image: np.ndarray  # BGR, the whole sheet
    size_mm: tuple[float, float]  # width, height of the sheet as drawn (landscape or not)
    label: str


def single_sheet(layout: MatLayout, paper: str, dpi: int) -> Page:
    """The mat centred on one sheet; InputError naming ``--paper`` when it does not fit."""
    name, sheet = paper_named(paper)
    if not check_fits(layout, sheet):
        w, h = layout.size_mm
        fits = [n for n, s in PAPER_MM.items() if check_fits(layout, s)]
        raise InputError(
            f"the mat '{layout.name}' is {w:g} x {h:g} mm and does not fit on {name} "
            f"({sheet[0]:g} x {sheet[1]:g} mm) at true scale; use one of: {', '.join(fits)}, "
            "or --tile to print it in pieces",
            "--paper",
        )
    landscape = layout.size_mm[0] > layout.size_mm[1]
    sheet_w, sheet_h = (max(sheet), min(sheet)) if landscape else (min(sheet), max(sheet))
    s = dpi / 25.4
    drawing = render_mat(layout, s)
    page = np.full((round(sheet_h * s), round(sheet_w * s), 3), 255, np.uint8)
    top = (page.shape[0] - drawing.shape[0]) // 2
    left = (page.shape[1] - drawing.shape[1]) // 2
    page[top : top + drawing.shape[0], left : left + drawing.shape[1]] = drawing
    return Page(page, (sheet_w, sheet_h), f"{name} {'landscape' if landscape else 'portrait'}")


def tiles(layout: MatLayout, paper: str, dpi: int) -> list[Page]:
    """The mat in overlapping pieces on sheets of ``paper``, row by row from the top-left."""
    name, sheet = paper_named(paper)
    best: tuple[int, float, float, int, int] | None = None
    for sheet_w, sheet_h in (sheet, sheet[::-1]):
        usable_w, usable_h = sheet_w - 2 * MARGIN_MM, sheet_h - 2 * MARGIN_MM - 8
        if usable_w <= OVERLAP_MM * 2 or usable_h <= OVERLAP_MM * 2:
            continue
        cols = max(1, math.ceil((layout.size_mm[0] - OVERLAP_MM) / (usable_w - OVERLAP_MM)))
        rows = max(1, math.ceil((layout.size_mm[1] - OVERLAP_MM) / (usable_h - OVERLAP_MM)))
        if best is None or rows * cols < best[0]:
            best = (rows * cols, sheet_w, sheet_h, rows, cols)
    if best is None:
        raise InputError(f"{name} is too small to tile on", "--paper")
    _, sheet_w, sheet_h, rows, cols = best
    s = dpi / 25.4
    mat = render_mat(layout, s)
    piece_w = (layout.size_mm[0] + (cols - 1) * OVERLAP_MM) / cols
    piece_h = (layout.size_mm[1] + (rows - 1) * OVERLAP_MM) / rows
    pages = []
    for r in range(rows):
        for c in range(cols):
            x0 = c * (piece_w - OVERLAP_MM)
            y0 = r * (piece_h - OVERLAP_MM)
            page = np.full((round(sheet_h * s), round(sheet_w * s), 3), 255, np.uint8)
            px0, py0 = round(x0 * s), round(y0 * s)
            px1 = min(mat.shape[1], round((x0 + piece_w) * s))
            py1 = min(mat.shape[0], round((y0 + piece_h) * s))
            piece = mat[py0:py1, px0:px1]
            top, left = round((MARGIN_MM + 8) * s), round(MARGIN_MM * s)
            page[top : top + piece.shape[0], left : left + piece.shape[1]] = piece
            grey = (150, 150, 150)
            thin = max(1, round(0.2 * s))
            # trim lines: where this piece's right and bottom neighbours begin
            if c + 1 < cols:
                u = left + round(((c + 1) * (piece_w - OVERLAP_MM) - x0) * s)
                cv2.line(page, (u, top), (u, top + piece.shape[0]), grey, thin)
            if r + 1 < rows:
                v = top + round(((r + 1) * (piece_h - OVERLAP_MM) - y0) * s)
                cv2.line(page, (left, v), (left + piece.shape[1], v), grey, thin)
            cv2.rectangle(page, (left, top), (left + piece.shape[1], top + piece.shape[0]),
                          grey, thin)
            lines = [
                f"Spit mat '{layout.name}': row {r + 1} of {rows}, column {c + 1} of {cols}. "
                "Print at 100 %.",
                "Trim the left and top edges of the frame; lay them on the neighbours' grey lines.",
            ]
            _write_lines(page, lines, left, round(MARGIN_MM * s), page.shape[1] - 2 * left,
                         2.5 * s)
            pages.append(Page(page, (sheet_w, sheet_h), f"{name} piece {r + 1},{c + 1}"))
    return pages


def _write_lines(
    page: np.ndarray, lines: list[str], left: int, top: int, width: int, cap_px: float
) -> None:
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = cap_px / 22
    widest = max(cv2.getTextSize(line, font, scale, 1)[0][0] for line in lines)
    scale = min(scale, scale * width / max(1, widest))
    thickness = max(1, round(scale * 1.2))
    step = round(scale * 22 * 1.5)
    for i, line in enumerate(lines):
        cv2.putText(page, line, (left, top + round(scale * 22) + i * step), font, scale,
                    (60, 60, 60), thickness, cv2.LINE_AA)
