"""The hand-layering model (referee/vision/layering_reader.py) against the truth: which slapping
hand lies underneath, read from the still view after a slap race.

    .venv/bin/python benchmarks/hand_layering.py --clips '.cache/referee-eval/slap-eval-*-1280x720'
    .venv/bin/python benchmarks/hand_layering.py --render 30000:30100

``--clips``: rendered slap-race clips (``spit-referee simulate --scenario slap-eval``; the
benchmark's, made by ``benchmarks/referee_eval.py --sets races``): each clip's real video is
decoded, the frame ``--after`` frames after the later slap cut to the hand strip round the
slapped pile as the referee cuts it, and read. ``--render A:B``: slap races rendered afresh
from seeds A to B-1 with the training's placement of the hands (anywhere on each other,
:class:`~referee.train_hands.HandLayeringConfig`), three pictures each. The first slapper's
hand lies underneath. Prints the accuracy where the hands' outlines overlap, the share read
at least 0.9 sure and their accuracy, the pictures read wrong, the median time per reading,
the machine, and one JSON line.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from referee.events import Slap
from referee.players import Player
from referee.sim.truth import read_events, read_frames
from referee.train_hands import HandLayeringConfig, StripRectifier, render_samples, scores, targets
from referee.vision.calibration import load_calibration
from referee.vision.layering_reader import LayeringReader
from referee.vision.trackeval import read_video


def clip_pictures(folders: list[Path], after: int) -> tuple[list[np.ndarray], list[float], list[str]]:
    """Per clip with two slaps on one pile: its strip, the target (1: B underneath; 0.5 when
    the true hand outlines share no pixel), its name."""
    import cv2

    strips, target, names = [], [], []
    for folder in folders:
        slaps = [e for e in read_events(folder / "events.jsonl") if isinstance(e, Slap)]
        if len(slaps) != 2 or slaps[0].pile != slaps[1].pile:
            continue
        cal = load_calibration(folder / "calibration.yaml")
        k = max(s.frame or 0 for s in slaps) + after
        frame = next((f for i, f in enumerate(read_video(folder / "video.mp4")) if i == k), None)
        if frame is None:
            continue
        outlines = {h["owner"]: np.asarray(h["outline"], np.float64)
                    for h in read_frames(folder / "frames.jsonl.gz")[k]["hands"]}
        masks = []
        for owner in ("A", "B"):
            m = np.zeros(frame.shape[:2], np.uint8)
            if owner in outlines:
                cv2.fillPoly(m, [np.round(outlines[owner]).astype(np.int32)], 1)
            masks.append(m)
        first = Player(min(slaps, key=lambda s: s.t).player)
        rectify = StripRectifier(cal, float(cal.layout.zone(f"pile{slaps[0].pile}").center[0]))
        strips.append(rectify(frame))
        target.append(float(first is Player.B) if (masks[0] & masks[1]).any() else 0.5)
        names.append(folder.name)
    return strips, target, names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", default=None, help="a glob of slap-race clip folders")
    ap.add_argument("--render", default=None, help="A:B: render slap races from seeds A to B-1")
    ap.add_argument("--after", type=int, default=7, help="frames after the later slap (default 7)")
    ap.add_argument("--model", default=None, help="the ONNX model (default: models/hand-layering.onnx)")
    args = ap.parse_args()
    if not args.clips and not args.render:
        ap.error("give --clips or --render")
    reader = LayeringReader.load(args.model)
    if args.clips:
        folders = sorted(Path(p) for p in glob.glob(args.clips))
        if not folders:
            ap.error(f"no clip folders match {args.clips}")
        strips, target, names = clip_pictures(folders, args.after)
        what = f"{len(folders)} clips {args.clips}"
    else:
        a, b = (int(v) for v in args.render.split(":"))
        samples = render_samples(HandLayeringConfig(seed=a, seeds=b - a))
        strips, target = list(samples.strips), list(targets(samples, HandLayeringConfig()))
        names = [f"seed {s}" for s in samples.seeds]
        what = f"slap races rendered from seeds {a}-{b - 1}"
    times, p_b = [], []
    for strip in strips:
        t0 = time.perf_counter()
        p_b.append(1.0 - reader.p_a_under(strip))
        times.append(1000 * (time.perf_counter() - t0))
    t = np.array(target, np.float32)
    p = np.array(p_b)
    result = scores(p, t)
    wrong = [(n, round(float(q), 3)) for n, q, tt in zip(names, p, t, strict=True)
             if tt != 0.5 and (q > 0.5) != (tt > 0.5)]
    print(f"{what}: {len(strips)} pictures, {int((t == 0.5).sum())} where the hands do not overlap")
    print(f"accuracy {result.get('accuracy')}; read at least 0.9 sure: {result.get('sure_share')} of them, "
          f"accuracy {result.get('sure_accuracy')}")
    for n, q in wrong:
        print(f"  wrong: {n} P(B underneath) {q}")
    median = float(np.median(times)) if times else float("nan")
    print(f"median {median:.2f} ms per reading on {platform.processor() or platform.machine()}, "
          f"{len(os.sched_getaffinity(0))} cores")
    print(json.dumps({"what": what, **result, "wrong": wrong, "median_ms": round(median, 2)}))


if __name__ == "__main__":
    main()
