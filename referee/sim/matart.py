"""The play mat as the simulator draws it: the mat module's top-down render and its zones.

The interface to the mat layout is kept narrow: an image with its size in millimetres
(:class:`~referee.sim.scene.MatArt`) and each zone's centre and facing angle.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from referee.sim.scene import MatArt

Zones = dict[str, tuple[float, float, float]]


@cache
def mat_art(layout_path: str | Path | None = None, px_per_mm: float = 2.0) -> tuple[MatArt, Zones]:
    """Render the mat (the default layout when ``layout_path`` is None) and list its zones."""
    from referee.vision.mat import load_layout, render_mat

    layout = load_layout(layout_path)
    image = render_mat(layout, px_per_mm)
    image.setflags(write=False)
    zones = {z.id: (float(z.center[0]), float(z.center[1]), float(z.angle_deg))
             for z in layout.zones}
    size = (float(layout.size_mm[0]), float(layout.size_mm[1]))
    return MatArt(image, size, layout.name), zones
