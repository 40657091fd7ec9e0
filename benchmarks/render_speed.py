"""Render speed of the table simulator: median frames per second at 1280x720.

Renders a mid-game scene (about 40 settled cards, moving cards and two hands, lens
distortion, noise and JPEG artefacts) frame after frame with the background cached, as a
video render does, and prints the median fps and the machine.

    .venv/bin/python benchmarks/render_speed.py [--frames 60] [--size 1280x720]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import replace

import cv2

from referee.sim.decks import get_deck
from referee.sim.matart import mat_art
from referee.sim.render import Renderer
from referee.sim.scene import random_scene


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    mat, zones = mat_art()
    scene = random_scene(args.seed, (w, h), mat=mat, zones=zones, moving_cards=2, hands=2)
    renderer = Renderer(get_deck("procedural:1"))
    t0 = time.perf_counter()
    renderer.render(scene)
    first = time.perf_counter() - t0
    times = []
    load_before = os.getloadavg()[0]
    cpu0 = time.process_time()
    for i in range(args.frames):
        moved = tuple(replace(c, x=c.x + 3 * i, y=c.y - 4 * i) for c in scene.moving)
        hands = tuple(replace(hd, x=hd.x + 3 * i, y=hd.y - 4 * i) for hd in scene.hands)
        frame = replace(scene, moving=moved, hands=hands, frame_index=i, time=i / 30)
        t = time.perf_counter()
        renderer.render(frame)
        times.append(time.perf_counter() - t)
    cpu = (time.process_time() - cpu0) / args.frames
    med = statistics.median(times)
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, OpenCV {cv2.__version__}, "
          f"{cv2.getNumThreads()} OpenCV threads")
    print(f"first frame (background, {len(scene.settled)} settled cards): {first * 1000:.0f} ms")
    print(f"{w}x{h}: median {1 / med:.1f} fps ({med * 1000:.1f} ms/frame) over {args.frames} "
          f"frames with {len(scene.moving)} moving cards and {len(scene.hands)} hands")
    print(f"CPU time {cpu * 1000:.1f} ms/frame (all threads); load average "
          f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} (other work on the machine slows it)")


if __name__ == "__main__":
    main()
