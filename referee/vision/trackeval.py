"""Scoring :class:`~referee.vision.tracking.ZoneTracker` against the simulator's truth.

Truth per zone and frame, from ``frames.jsonl.gz``: *occupied* when a card that is not moving
has a quad covering the zone's centre; *hand over* when a hand outline covers it; *moving card
over* when a moving card's quad covers it. Change truth from ``events.jsonl``: a play lands on
``pile{n}`` at the event's frame.
"""

from __future__ import annotations

import logging
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.events import Play
from referee.players import Player
from referee.sim.truth import read_events, read_frames
from referee.vision.calibration import Calibration, load_calibration
from referee.vision.tracking import TrackedFrame, TrackerSettings, ZoneTracker

log = logging.getLogger(__name__)


@dataclass
class ZoneTruth:
    occupied: bool
    hand: Player | None
    moving_card: bool


def zone_truth(cal: Calibration, frame: dict[str, Any]) -> dict[str, ZoneTruth]:
    centres = {z.id: cal.mat_to_image(np.array([z.center]))[0] for z in cal.layout.zones}
    out: dict[str, ZoneTruth] = {}
    for zid, c in centres.items():
        pt = (float(c[0]), float(c[1]))
        occ = moving = False
        for card in frame["cards"]:
            quad = np.asarray(card["quad"], np.float32)
            if cv2.pointPolygonTest(quad, pt, False) >= 0:
                if card.get("moving"):
                    moving = True
                else:
                    occ = True
        hand: Player | None = None
        for h in frame["hands"]:
            outline = np.asarray(h["outline"], np.float32)
            if len(outline) >= 3 and cv2.pointPolygonTest(outline, pt, False) >= 0:
                hand = Player(h["owner"])
        out[zid] = ZoneTruth(occ, hand, moving)
    return out


@dataclass
class FixtureScore:
    name: str
    frames: int
    occupancy_agree: float  # over zone-frames with nothing over the zone (truth)
    occupancy_agree_all: float  # over all zone-frames
    hand_recall: float  # zone-frames with a true hand over: tracker says covered
    hand_false: float  # zone-frames with nothing over (truth): tracker says covered
    hand_player_right: float  # hand blobs over a zone whose truth hand has the same owner
    plays: int
    plays_found: int  # a change record on the play's pile within `window` frames after it
    play_delays: list[int] = field(default_factory=list)
    changes: int = 0
    ms_per_frame: float = 0.0
    per_frame: list[TrackedFrame] = field(default_factory=list, repr=False)


def read_video(path: str | Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    cap.release()
    return frames


def score_fixture(folder: str | Path, settings: TrackerSettings | None = None,
                  window: int = 12) -> FixtureScore:
    folder = Path(folder)
    cal = load_calibration(folder / "calibration.yaml")
    video = read_video(folder / "video.mp4")
    truth = read_frames(folder / "frames.jsonl.gz")
    events = read_events(folder / "events.jsonl")
    tracker = ZoneTracker(cal, settings)
    fps = 30.0
    results: list[TrackedFrame] = []
    times = []
    for i, f in enumerate(video):
        t0 = _time.perf_counter()
        results.append(tracker.update(f, i / fps))
        times.append(_time.perf_counter() - t0)
    n = min(len(results), len(truth))
    agree = total = agree_all = total_all = 0
    hand_tp = hand_n = false_cov = free_n = 0
    player_ok = player_n = 0
    for i in range(n):
        tz = zone_truth(cal, truth[i])
        r = results[i]
        blob_of = {z: h.player for h in r.hands for z in h.zones}
        for zid, t in tz.items():
            o = r.zones[zid]
            total_all += 1
            agree_all += o.occupied == t.occupied
            free = t.hand is None and not t.moving_card
            if free:
                total += 1
                agree += o.occupied == t.occupied
                free_n += 1
                false_cov += o.covered
            if t.hand is not None:
                hand_n += 1
                hand_tp += o.covered
            if zid in blob_of and t.hand is not None:
                player_n += 1
                player_ok += blob_of[zid] is t.hand
    plays = [e for e in events if isinstance(e, Play) and not (e.evidence or {}).get("prelude")]
    found = 0
    delays: list[int] = []
    change_frames: dict[str, list[int]] = {}
    for r in results:
        for c in r.changes:
            change_frames.setdefault(c.zone, []).append(c.frame)
    for p in plays:
        assert p.frame is not None
        hits = [f for f in change_frames.get(f"pile{p.pile}", []) if p.frame <= f <= p.frame + window]
        if hits:
            found += 1
            delays.append(hits[0] - p.frame)
    return FixtureScore(
        name=folder.name, frames=n,
        occupancy_agree=agree / max(total, 1), occupancy_agree_all=agree_all / max(total_all, 1),
        hand_recall=hand_tp / max(hand_n, 1), hand_false=false_cov / max(free_n, 1),
        hand_player_right=player_ok / max(player_n, 1),
        plays=len(plays), plays_found=found, play_delays=delays,
        changes=sum(len(v) for v in change_frames.values()),
        ms_per_frame=float(np.median(times[1:]) * 1000) if len(times) > 1 else 0.0,
        per_frame=results,
    )
