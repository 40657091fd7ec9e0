"""The recorded video fixtures in tests/fixtures: one clip per scenario, re-renderable.

    .venv/bin/python -m referee.sim.fixtures tests/fixtures            # all of them
    .venv/bin/python -m referee.sim.fixtures tests/fixtures race-1f    # some

Each fixture is :func:`referee.sim.clip.render_clip` of its scenario at :data:`SEEDS`
[name], :data:`SIZE` and :data:`FPS`; the seed also picks the deck, camera, table and light,
so the fixtures between them show every built-in deck and procedural ones. ``README.md``
in the folder lists them (written by :func:`write_readme`).
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from pathlib import Path

from referee.sim.clip import ClipResult, render_clip
from referee.sim.scenarios import SCENARIOS, make_fragment
from referee.sim.truth import META, read_meta

log = logging.getLogger(__name__)

SIZE = (960, 540)
FPS = 30
#: The seed of each fixture (different seeds: different decks, cameras, tables, light).
SEEDS: dict[str, int] = {name: i for i, name in enumerate(
    (n for n, sc in SCENARIOS.items() if sc.fixture), start=1)}


def render_fixture(name: str, root: str | Path) -> ClipResult:
    return render_clip(make_fragment(name, SEEDS[name]), Path(root) / name, SIZE, FPS)


def write_readme(root: str | Path) -> None:
    root = Path(root)
    rows = []
    total = 0
    for name in SEEDS:
        folder = root / name
        if not (folder / META).is_file():
            continue
        meta = read_meta(folder / META)
        size = sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
        total += size
        faults = ", ".join(f"{f['code']} @{f['frame']}" for f in meta["faults"]) or "-"
        rows.append(f"| `{name}` | {meta['summary']} | {meta['seed']} | {meta['deck']} | "
                    f"{meta['frames']} ({meta['duration_s']:.1f} s) | {faults} | {size / 1e6:.2f} |")
    text = f"""# Recorded video fixtures

One folder per scenario of `referee/sim/scenarios.py`, rendered by the simulator
(`spit-referee simulate --scenario NAME --seed SEED --size {SIZE[0]}x{SIZE[1]}`, or all at once
with `.venv/bin/python -m referee.sim.fixtures tests/fixtures`). Each holds:

- `video.mp4`: H.264, {SIZE[0]}x{SIZE[1]}, {FPS} fps, constant rate; frame i shows time i/{FPS} s.
- `events.jsonl`: the game's records (shared schema, docs/events.md) with `frame` on every
  record; events at t = 0 with `evidence: {{"prelude": true}}` lay out the starting table
  (they happened before the clip).
- `calibration.yaml`: the true calibration of the camera the frames were drawn with
  (`referee.vision.calibration.load_calibration` reads it); `calibration-1.yaml` after the
  camera was knocked (camera-nudge; `meta.json` says from which frame).
- `frames.jsonl.gz`: per-frame truth: every visible card's image quad, identity, face
  up/down, visible fraction; every hand's outline (docs/sim-pipeline.md).
- `meta.json`: seed, scenario, deck, size, fps, frames, code version, faults with their
  frames, scene changes, the hidden cards of every deal.

`tests/sim/test_fixtures.py` checks that re-rendering from the seed gives the same truth.
The frame listed with a fault is the frame whose interval contains the touch.

| fixture | what happens | seed | deck | frames | faults (code @frame) | MB |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

All fixtures together: {total / 1e6:.1f} MB.
"""
    (root / "README.md").write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Render the recorded video fixtures.")
    ap.add_argument("root", help="the fixtures folder, e.g. tests/fixtures")
    ap.add_argument("names", nargs="*", help="scenarios to render (default: all)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for name in args.names or list(SEEDS):
        result = render_fixture(name, args.root)
        log.info("%s: %s", name, json.dumps({"frames": result.frames,
                                             "fps": round(result.frames / result.render_s, 1)}))
    write_readme(args.root)


if __name__ == "__main__":
    main()
