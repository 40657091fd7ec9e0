"""How much a spit pile's picture differs each time it settles, against whether the top changed.

    .venv/bin/python benchmarks/pile_settles.py --games 20 --seed 5140 --size 1280x720

For the tracker's ``change_level_pile`` and ``faint_level_pile`` (referee/vision/tracking.py):
the games of ``benchmarks/referee_eval.py`` (rendered into ``.cache/referee-eval/`` when not
there yet) are tracked with :class:`referee.vision.tracking.ZoneTracker` alone, and each time a
spit pile settles after a busy spell the mean grey difference between its two settled views is
set beside the truth: whether the pile's top card differs between the frame before the spell
and the frame it settled. Prints each settle (``--all``) or only those a level would get wrong,
then per level how many settles whose top changed differ no more (a change missed at that level)
and how many whose top did not differ more (read for nothing), and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from referee_eval import DEFAULT_SIZE, render_games  # noqa: E402

from referee.live.source import open_video  # noqa: E402
from referee.sim.truth import iter_frames  # noqa: E402
from referee.vision.calibration import load_calibration  # noqa: E402
from referee.vision.tracking import ZoneTracker  # noqa: E402

PILES = ("pile1", "pile2")
LEVELS = (2.0, 3.0, 4.0, 5.0, 6.0)


def pile_tops(clip: Path) -> list[dict[str, str]]:
    """Per frame, the top card of each spit pile by the truth (the last still card tagged
    there; a face-down card ends in ``~``)."""
    tops = []
    for frame in iter_frames(clip / "frames.jsonl.gz"):
        top: dict[str, str] = {}
        for card in frame["cards"]:
            if card["tag"] in PILES and not card["moving"]:
                top[card["tag"]] = card["card"] + ("" if card["face_up"] else "~")
        tops.append(top)
    return tops


def settles(clip: Path) -> list[dict[str, object]]:
    """Each time a spit pile settled after a busy spell: its difference and the truth."""
    tops = pile_tops(clip)
    tracker = ZoneTracker(load_calibration(clip / "calibration.yaml"))
    out: list[dict[str, object]] = []
    last = None
    with open_video(clip / "video.mp4") as frames:
        for frame in frames:
            before = {z: tracker.settled_view(z) for z in PILES}
            tracked = tracker.update(frame.image, frame.t)
            for zone, reference in before.items():
                if last is None or last.zones[zone].settled or not tracked.zones[zone].settled \
                        or reference is None:
                    continue
                change = next((c for c in tracked.changes if c.zone == zone), None)
                view = tracker.settled_view(zone)  # the view it settled with
                assert view is not None
                since = last.zones[zone].busy_since
                busy_from = max(0, (tracked.frame if since is None else since) - 2)
                was, now = tops[busy_from].get(zone), tops[min(tracked.frame, len(tops) - 1)].get(zone)
                out.append({"clip": clip.name, "zone": zone, "frame": tracked.frame,
                            "difference": round(float(np.mean(np.abs(view - reference))), 2),
                            "reported": None if change is None else ("faint" if change.faint else "change"),
                            "was": was, "now": now, "top_changed": was != now and now is not None})
            last = tracked
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="how many games (default 20)")
    ap.add_argument("--seed", type=int, default=5000, help="the first game's seed (default 5000)")
    ap.add_argument("--seconds", type=float, default=31.0, help="seconds of each game (default 31)")
    ap.add_argument("--size", default=DEFAULT_SIZE, help=f"video size (default {DEFAULT_SIZE})")
    ap.add_argument("--all", action="store_true", help="print every settle")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    rows: list[dict[str, object]] = []
    clips = render_games(args.games, args.seed, args.seconds, args.size)
    for k, clip in enumerate(clips, 1):
        found = settles(clip)
        rows += found
        print(f"[{k}/{len(clips)}] {clip.name}: {len(found)} pile settles", file=sys.stderr, flush=True)
    for row in rows:
        changed, reported = row["top_changed"], row["reported"]
        if args.all or (changed and reported != "change") or (not changed and reported):
            print(json.dumps(row))
    came = [float(r["difference"]) for r in rows if r["top_changed"]]  # type: ignore[arg-type]
    none = [float(r["difference"]) for r in rows if not r["top_changed"]]  # type: ignore[arg-type]
    per_level = {f"{level:g}": {"top_changed_below": sum(d <= level for d in came),
                                "unchanged_above": sum(d > level for d in none)} for level in LEVELS}
    for level, counts in per_level.items():
        print(f"level {level:>3}: {counts['top_changed_below']:3d} of {len(came)} settles with the top "
              f"changed differ no more; {counts['unchanged_above']:3d} of {len(none)} with it unchanged "
              "differ more")
    print(json.dumps({"games": len(clips), "settles": len(rows), "top_changed": len(came),
                      "levels": per_level}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
