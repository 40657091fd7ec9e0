"""Zone tracking against the simulator's truth, fixture by fixture, and its speed.

    .venv/bin/python benchmarks/tracking_eval.py [FIXTURE ...] [--fixtures tests/fixtures]

Per fixture: occupancy agreement (zone-frames with nothing over the zone in the truth, and all
zone-frames), hand recall (true hand over a zone's centre -> zone reported covered), covered
where the truth has nothing over the zone, player attribution of hand blobs, plays onto a pile
followed by a change record on that pile within 12 frames (and how many frames after), and the
tracker's median ms/frame. Then the median ms/frame on 1280x720 frames (a fixture scaled up,
with its calibration scaled to match), the target pipeline size. docs/tracking.md has the table.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time
from pathlib import Path

import cv2
import numpy as np

from referee.vision.calibration import load_calibration
from referee.vision.trackeval import read_video, score_fixture
from referee.vision.tracking import ZoneTracker

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[1]


def speed_1280(folder: Path, frames: int = 90) -> float:
    """Median ms/frame of the tracker on a fixture's frames scaled to 1280x720."""
    cal = load_calibration(folder / "calibration.yaml")
    w, h = cal.image_size
    sx, sy = 1280 / w, 720 / h
    scale = np.diag([1 / sx, 1 / sy, 1.0])  # 1280x720 pixels -> the fixture's pixels
    big = cal.replace(image_size=(1280, 720), homography=cal.homography @ scale, lens=None)
    video = [cv2.resize(f, (1280, 720)) for f in read_video(folder / "video.mp4")[:frames]]
    tracker = ZoneTracker(big)
    times = []
    for i, f in enumerate(video):
        t0 = time.perf_counter()
        tracker.update(f, i / 30)
        times.append(time.perf_counter() - t0)
    return float(np.median(times[1:]) * 1000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="fixture names (default: all)")
    ap.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures")
    args = ap.parse_args()
    names = args.names or sorted(p.name for p in args.fixtures.iterdir() if (p / "video.mp4").is_file())
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"OpenCV {cv2.__version__}, cv2 threads {cv2.getNumThreads()}")
    print(f"{'fixture':15s} {'frames':>6s} {'occ free':>8s} {'occ all':>8s} {'hand rec':>8s} "
          f"{'cov false':>9s} {'player':>7s} {'plays':>6s} {'delays':18s} {'ms/frame':>8s}")
    all_free = []
    for name in names:
        s = score_fixture(args.fixtures / name)
        all_free.append(s.occupancy_agree)
        delays = ",".join(str(d) for d in s.play_delays) or "-"
        print(f"{s.name:15s} {s.frames:6d} {s.occupancy_agree:8.3f} {s.occupancy_agree_all:8.3f} "
              f"{s.hand_recall:8.3f} {s.hand_false:9.3f} {s.hand_player_right:7.3f} "
              f"{s.plays_found:>2d}/{s.plays:<3d} {delays:18s} {s.ms_per_frame:8.2f}")
    print(f"occupancy agreement (nothing over the zone), mean over fixtures: {np.mean(all_free):.3f}")
    print(f"1280x720 ({names[0]} scaled up): {speed_1280(args.fixtures / names[0]):.2f} ms/frame median")


if __name__ == "__main__":
    main()
