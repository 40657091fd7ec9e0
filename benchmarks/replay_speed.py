"""How fast `spit-referee replay` referees a 1280x720, 30 fps video on this machine (issue 7's
speed target: at least 2x real time).

    .venv/bin/python benchmarks/replay_speed.py                 # 3 runs without and 3 with the video
    .venv/bin/python benchmarks/replay_speed.py --runs 5 --modes no-video

The video is the evaluation game of seed 5000 at 1280x720 (``.cache/referee-eval/``, rendered
by ``benchmarks/referee_eval.py``'s way when missing, about 2.5 min), or ``--clip DIR`` (a
simulated clip: video.mp4 and calibration.yaml). Each run is the real command in a process of
its own (``replay --board console``, the shipped card model), run one after the other; what is
reported is what its ``summary.json`` says: x real time over the refereeing (decoding,
tracking, recognition, the rules, the log and, with the video, drawing and encoding; not the
start-up) and the step's median milliseconds. Prints the median of the runs per mode, the
machine, and one JSON line; ``--out FILE`` writes the JSON. The machine's speed varies from
day to day (docs/pipeline.md): compare code on one machine, back to back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from referee_eval import render_games  # noqa: E402
from selfplay_check import machine  # noqa: E402

MODES = ("no-video", "video")


def replay_once(clip: Path, video: bool) -> dict[str, Any]:
    command = str(Path(sys.executable).parent / "spit-referee")
    with tempfile.TemporaryDirectory(prefix="replay-speed-") as out:
        args = [command, "replay", str(clip / "video.mp4"), "--calibration", str(clip / "calibration.yaml"),
                "--board", "console", "--out", out] + ([] if video else ["--no-video"])
        done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"replay failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        summary: dict[str, Any] = json.loads((Path(out) / "summary.json").read_text())
        return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clip", type=Path, default=None,
                    help="a simulated clip (video.mp4, calibration.yaml); default: game 5000 at 1280x720")
    ap.add_argument("--runs", type=int, default=3, help="runs per mode (default 3)")
    ap.add_argument("--modes", default=",".join(MODES), help="no-video, video or both (comma-separated)")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON report here")
    args = ap.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in MODES for m in modes):
        ap.error(f"--modes: expected some of {', '.join(MODES)}, got {args.modes!r}")
    if args.runs < 1:
        ap.error(f"--runs must be at least 1, got {args.runs}")
    clip = args.clip or render_games(1, 5000, 31.0, "1280x720")[0]
    if not (clip / "video.mp4").is_file() or not (clip / "calibration.yaml").is_file():
        ap.error(f"--clip {clip}: expected video.mp4 and calibration.yaml there")
    report: dict[str, Any] = {"clip": str(clip), "machine": machine(), "load_before": os.getloadavg()[0],
                              "modes": {}}
    for mode in modes:
        runs = []
        for k in range(args.runs):
            s = replay_once(clip, video=mode == "video")
            runs.append({"x_real_time": s["speed_x_real_time"], "step_ms_median": s["step_ms_median"],
                         "frames": s["frames"], "dropped": s["dropped"]})
            print(f"{mode:8s} run {k + 1}/{args.runs}: {s['speed_x_real_time']}x real time, "
                  f"step median {s['step_ms_median']} ms", file=sys.stderr)
        report["modes"][mode] = {
            "runs": runs,
            "x_real_time_median": statistics.median(r["x_real_time"] for r in runs),
            "step_ms_median": statistics.median(r["step_ms_median"] for r in runs),
        }
    print(f"{clip.name} on {report['machine']} (load {report['load_before']:.2f} before):")
    for mode, r in report["modes"].items():
        xs = ", ".join(f"{x['x_real_time']}" for x in r["runs"])
        print(f"  {mode:8s} median {r['x_real_time_median']}x real time (runs {xs}); "
              f"step median {r['step_ms_median']} ms")
    line = json.dumps(report)
    print(line)
    if args.out:
        args.out.write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
