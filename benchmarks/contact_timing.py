"""Contact timing and race order from video (referee/vision/arbitration.py) against the truth.

    .venv/bin/python benchmarks/contact_timing.py [FOLDER ...] [--fixtures tests/fixtures]
    .venv/bin/python benchmarks/contact_timing.py --calibrate DIR [DIR ...]

For every play (prelude excluded) in every clip folder (default: all committed fixtures): the
card's face is cut from its stock slot in the last view before the touch where the zone
tracker saw that slot settled and uncovered; the card is followed through the views up to 8
frames after the touch's frame; its contact time is estimated and compared with the event's
``t`` (the exact first touch). For the race clips (``meta.json`` ``visuals.race``) both cards
are followed and :func:`arbitrate_race` makes the call, compared with the true first player.
Prints a table per play, the error median and p90 (all plays, and the races), the right-order
rate, the machine, and one JSON line.

What comes from the truth: which slot and pile each play used (the pipeline knows them from
zone changes and recognition) and the play's frame, which places the window. The times
themselves come from the video alone.

``--calibrate`` runs the same over other rendered clips (``spit-referee simulate --scenario
race-1f --seed 101 --size 960x540 --out DIR``; the fixtures are held out) with no lead, and
prints the lead (fitted end of the carry minus the true touch) and its spread, the numbers in
``ContactCalibration``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from referee.events import Play, Slap
from referee.players import Player
from referee.sim.truth import read_events, read_frames, read_meta
from referee.vision.arbitration import (
    DEFAULT_CONTACT,
    ContactCalibration,
    ContactEstimate,
    HandSettings,
    HandViews,
    ViewGeometry,
    arbitrate_race,
    arbitrate_slap,
    estimate_contact,
    hand_tracks,
    slot_template,
    track_card,
)
from referee.vision.calibration import load_calibration
from referee.vision.trackeval import read_video
from referee.vision.tracking import TrackedFrame, ZoneTracker

ROOT = Path(__file__).resolve().parents[1]
AFTER_FRAMES = 8  # views after the touch's frame
MAX_BEFORE = 30  # the template view is at most this many frames before the touch's frame


@dataclass
class PlayRow:
    clip: str
    card: str
    player: str
    truth_t: float
    est_t: float | None
    sd: float | None
    end_t: float | None
    quality: float | None
    frames: int
    ms: float
    note: str = ""

    @property
    def error_ms(self) -> float | None:
        return None if self.est_t is None else 1000.0 * (self.est_t - self.truth_t)


@dataclass
class RaceRow:
    clip: str
    gap_ms: float
    truth_first: str
    first: str | None
    confidence: float
    agree: bool | None
    ms: float
    reason: str


@dataclass
class SlapRow:
    clip: str
    pile: int
    players: str
    truth_first: str
    first: str | None
    confidence: float
    agree: bool | None
    errors_ms: dict[str, float | None]
    ms: float
    reason: str
    split_right: float  # share of the hand pixels over the pile's core given to the right player




@dataclass
class Clip:
    name: str
    geometry: ViewGeometry
    views: list[np.ndarray]
    states: list[TrackedFrame]
    tracker: ZoneTracker
    plays: list[Play]
    race: dict[str, object] | None
    slaps: list[Slap]
    folder: Path


def load_clip(folder: Path) -> Clip:
    cal = load_calibration(folder / "calibration.yaml")
    tracker = ZoneTracker(cal)
    views, states = [], []
    for i, frame in enumerate(read_video(folder / "video.mp4")):
        views.append(tracker.rectified(frame))
        states.append(tracker.update(frame, i / 30))
    events = [e for e in read_events(folder / "events.jsonl")
              if not (getattr(e, "evidence", None) or {}).get("prelude")]
    plays = [e for e in events if isinstance(e, Play)]
    slaps = [e for e in events if isinstance(e, Slap)]
    race = read_meta(folder / "meta.json").get("visuals", {}).get("race")
    return Clip(folder.name, ViewGeometry.of(tracker), views, states, tracker, plays, race, slaps, folder)


def split_share(clip: Clip, hands: HandViews, k0: int, x0: float, settings: HandSettings) -> float:
    """Of the pixels over the pile's core that the hand split gave to a player and that lie
    inside exactly one true hand outline (frames.jsonl.gz, mapped to the table), the share
    given to that hand's owner."""
    truth = read_frames(clip.folder / "frames.jsonl.gz")
    cal = clip.tracker.cal
    s, m = settings.px_per_mm, clip.geometry.margin_mm
    h, w = hands.labels.shape[1:]
    right = wrong = 0
    for j, labels in enumerate(hands.labels):
        owned = {"A": np.zeros((h, w), np.uint8), "B": np.zeros((h, w), np.uint8)}
        for hand in truth[k0 + j]["hands"]:
            o = cal.image_to_mat(np.asarray(hand["outline"], np.float64))
            px = np.stack([(o[:, 0] - x0) * s - 0.5, (o[:, 1] + m) * s - 0.5], axis=1)
            cv2.fillPoly(owned[hand["owner"]], [np.round(px).astype(np.int32)], 1)
        a, b = owned["A"].astype(bool), owned["B"].astype(bool)
        for value, mine, other in ((1, a, b), (2, b, a)):
            given = (labels == value) & hands.pile
            right += int((given & mine & ~other).sum())
            wrong += int((given & other & ~mine).sum())
    return right / max(1, right + wrong)


def template_frame(clip: Clip, zone: str, before: int) -> int:
    """The last view before the card was picked up where the tracker saw its slot settled and
    uncovered: before the change the slot's next settled change record says began (when it
    has settled again already), else before ``before``."""
    lo = max(0, before - MAX_BEFORE)
    end = before - 2
    for k in range(lo, min(len(clip.states), before + AFTER_FRAMES + 1)):
        for ch in clip.states[k].changes:
            if ch.zone == zone and lo < ch.since_frame <= before:
                end = min(end, ch.since_frame - 1)
    for k in range(end, lo - 1, -1):
        z = clip.states[k].zones[zone]
        if z.settled and not z.covered and z.occupied:
            return k
    return lo


def evaluate_play(clip: Clip, play: Play, calibration: ContactCalibration) -> PlayRow:
    assert play.frame is not None and play.slot is not None
    zone = clip.tracker.cal.layout.zone(f"{play.player}.stock{play.slot}")
    k0 = template_frame(clip, zone.id, play.frame)
    k1 = min(len(clip.views), play.frame + AFTER_FRAMES + 1)
    t0 = time.perf_counter()
    template = slot_template(clip.views[k0], zone, clip.geometry, label=str(play.card))
    times = np.arange(k0, k1) / 30.0
    pile = clip.tracker.cal.layout.zone(f"pile{play.pile}").center
    track = track_card(clip.views[k0:k1], times, template, clip.geometry, toward=pile)
    try:
        c: ContactEstimate | None = estimate_contact(track, calibration)
        note = ""
    except ValueError as exc:
        c, note = None, str(exc)
    ms = 1000 * (time.perf_counter() - t0)
    return PlayRow(clip.name, str(play.card), str(play.player), play.t, None if c is None else c.t,
                   None if c is None else c.sd, None if c is None else c.end_t,
                   None if c is None else c.quality, 0 if c is None else c.frames_used, ms, note)


def evaluate_race(clip: Clip, calibration: ContactCalibration) -> RaceRow | None:
    if not clip.race or len(clip.plays) < 2:
        return None
    pile = int(clip.race["pile"])  # type: ignore[call-overload]
    racing = [p for p in clip.plays if p.pile == pile][:2]
    if {str(p.player) for p in racing} != {"A", "B"}:
        return None
    frames = {}
    for p in racing:
        assert p.frame is not None
        frames[Player(p.player)] = template_frame(clip, f"{p.player}.stock{p.slot}", p.frame)
    k0 = min(frames.values())
    k1 = min(len(clip.views), max(p.frame or 0 for p in racing) + AFTER_FRAMES + 1)
    layout = clip.tracker.cal.layout
    templates = {Player(p.player): slot_template(clip.views[frames[Player(p.player)]],
                                                 layout.zone(f"{p.player}.stock{p.slot}"), clip.geometry,
                                                 label=str(p.card)) for p in racing}
    t0 = time.perf_counter()
    ev = arbitrate_race(clip.views[k0:k1], np.arange(k0, k1) / 30.0, templates,
                        {p: k - k0 for p, k in frames.items()}, clip.geometry, calibration=calibration,
                        pile=layout.zone(f"pile{pile}").center)
    ms = 1000 * (time.perf_counter() - t0)
    a = ev.arbitration
    gap = 1000 * float(clip.race["gap_s"])  # type: ignore[arg-type]
    return RaceRow(clip.name, gap, str(clip.race["first"]), None if a.first is None else str(a.first),
                   a.confidence, a.agree, ms, a.reason)


def evaluate_slaps(clip: Clip, settings: HandSettings) -> list[SlapRow]:
    """Per pile that was slapped: the views from 12 frames before the first slap to 7 after
    the last (both hands still lie there), the background 5 frames before that."""
    rows = []
    for pile in sorted({s.pile for s in clip.slaps}):
        on = [s for s in clip.slaps if s.pile == pile]
        k0 = max(0, min(s.frame or 0 for s in clip.slaps) - 12)
        k1 = min(len(clip.views), max(s.frame or 0 for s in clip.slaps) + 8)
        zone = clip.tracker.cal.layout.zone(f"pile{pile}")
        t0 = time.perf_counter()
        ev = arbitrate_slap(clip.views[k0:k1], np.arange(k0, k1) / 30.0, zone, clip.geometry,
                            background=clip.views[max(0, k0 - 5)], players=[Player(s.player) for s in on],
                            settings=settings)
        ms = 1000 * (time.perf_counter() - t0)
        _, hands = hand_tracks(clip.views[k0:k1], np.arange(k0, k1) / 30.0, zone, clip.geometry,
                               background=clip.views[max(0, k0 - 5)], settings=settings)
        split = split_share(clip, hands, k0, float(zone.center[0]) - settings.half_width_mm, settings)
        truth = {str(s.player): s.t for s in on}
        errs = {}
        for p, c in ev.contacts.items():
            if str(p) in truth:
                errs[str(p)] = None if c is None else round(1000 * (c.t - truth[str(p)]), 1)
        a = ev.arbitration
        first = str(min(on, key=lambda s: s.t).player)
        rows.append(SlapRow(clip.name, pile, "".join(sorted(truth)), first,
                            None if a.first is None else str(a.first), a.confidence, a.agree, errs, ms,
                            a.reason, split))
    return rows


def _stats(errors: list[float]) -> dict[str, float]:
    if not errors:
        return {"n": 0}
    e = np.abs(np.array(errors))
    return {"n": len(e), "median_ms": round(float(np.median(e)), 1),
            "p90_ms": round(float(np.percentile(e, 90)), 1), "bias_ms": round(float(np.median(errors)), 1)}


def calibrate(folders: list[Path]) -> None:
    zero = replace(DEFAULT_CONTACT, lead_s=0.0, lead_sd_s=0.001)
    hand_zero = HandSettings(lead_s=0.0)
    leads, fit_sd = [], []
    slap_leads: list[float] = []
    for folder in folders:
        clip = load_clip(folder)
        for srow in evaluate_slaps(clip, hand_zero):
            for p, e in srow.errors_ms.items():
                print(f"{clip.name:22s} slap {p} on pile {srow.pile}: stop - touch "
                      f"{'-' if e is None else f'{e:6.1f} ms'}")
                if e is not None:
                    slap_leads.append(e / 1000.0)
        for play in clip.plays:
            row = evaluate_play(clip, play, zero)
            if row.end_t is None or row.sd is None:
                print(f"{clip.name:22s} {row.card:4s} {row.player}  no estimate: {row.note}")
                continue
            lead = row.end_t - row.truth_t
            leads.append(lead)
            fit_sd.append(row.sd)
            print(f"{clip.name:22s} {row.card:4s} {row.player}  end - touch {1000 * lead:6.1f} ms  "
                  f"fit sd {1000 * row.sd:5.1f} ms  quality {row.quality:.2f}")
    if slap_leads:
        sl = np.array(slap_leads)
        smad = 1.4826 * float(np.median(np.abs(sl - np.median(sl))))
        print(f"slaps {len(sl)}: stop - touch median {1000 * np.median(sl):.1f} ms, "
              f"robust sd {1000 * smad:.1f} ms, "
              f"10-90 % {1000 * np.percentile(sl, 10):.1f}..{1000 * np.percentile(sl, 90):.1f} ms")
        print(json.dumps({"calibration_slaps": len(sl), "slap_lead_s": round(float(np.median(sl)), 4),
                          "slap_lead_robust_sd_s": round(smad, 4)}))
    if not leads:
        return
    arr = np.array(leads)
    mad = 1.4826 * float(np.median(np.abs(arr - np.median(arr))))
    print(f"plays {len(arr)}: lead median {1000 * np.median(arr):.1f} ms, mean {1000 * arr.mean():.1f} ms, "
          f"sd {1000 * arr.std(ddof=1):.1f} ms, robust sd {1000 * mad:.1f} ms, "
          f"10-90 % {1000 * np.percentile(arr, 10):.1f}..{1000 * np.percentile(arr, 90):.1f} ms; "
          f"median fit sd {1000 * np.median(fit_sd):.1f} ms")
    print(json.dumps({"calibration_plays": len(arr), "lead_s": round(float(np.median(arr)), 4),
                      "lead_sd_s": round(float(arr.std(ddof=1)), 4), "lead_robust_sd_s": round(mad, 4)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path, help="clip folders (default: every fixture)")
    ap.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures")
    ap.add_argument("--calibrate", action="store_true",
                    help="measure the lead on these folders (no lead applied)")
    args = ap.parse_args()
    folders = args.folders or sorted(p for p in args.fixtures.iterdir() if (p / "video.mp4").is_file())
    if args.calibrate:
        calibrate(folders)
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"OpenCV {cv2.__version__}, cv2 threads {cv2.getNumThreads()}")
    print(f"{'clip':15s} {'card':4s} {'pl':2s} {'truth s':>8s} {'est s':>8s} {'err ms':>7s} {'sd ms':>6s} "
          f"{'q':>5s} {'n':>3s} {'ms':>6s}")
    rows: list[PlayRow] = []
    races: list[RaceRow] = []
    slaps: list[SlapRow] = []
    for folder in folders:
        clip = load_clip(folder)
        for play in clip.plays:
            r = evaluate_play(clip, play, DEFAULT_CONTACT)
            rows.append(r)
            if r.est_t is None:
                print(f"{r.clip:15s} {r.card:4s} {r.player:2s} {r.truth_t:8.3f} {'-':>8s}  "
                      f"no estimate: {r.note}")
            else:
                print(f"{r.clip:15s} {r.card:4s} {r.player:2s} {r.truth_t:8.3f} {r.est_t:8.3f} "
                      f"{r.error_ms:7.1f} {1000 * (r.sd or 0):6.1f} {r.quality or 0:5.2f} {r.frames:3d} "
                      f"{r.ms:6.1f}")
        race = evaluate_race(clip, DEFAULT_CONTACT)
        if race is not None:
            races.append(race)
        slaps.extend(evaluate_slaps(clip, HandSettings()))
    print()
    print(f"{'race':15s} {'gap ms':>6s} {'truth':>5s} {'call':>5s} {'conf':>6s} {'agree':>6s} {'ms':>6s}")
    for r in races:
        print(f"{r.clip:15s} {r.gap_ms:6.1f} {r.truth_first:>5s} {r.first or '-':>5s} {r.confidence:6.3f} "
              f"{str(r.agree):>6s} {r.ms:6.1f}")
    print()
    print(f"{'slap':18s} {'pile':>4s} {'who':>4s} {'truth':>5s} {'call':>5s} {'conf':>6s} {'agree':>6s} "
          f"{'errors ms':24s} {'split':>5s} {'ms':>6s}")
    for r in slaps:
        errs = ", ".join(f"{p} {'-' if e is None else e}" for p, e in r.errors_ms.items())
        print(f"{r.clip:18s} {r.pile:4d} {r.players:>4s} {r.truth_first:>5s} {r.first or '-':>5s} "
              f"{r.confidence:6.3f} {str(r.agree):>6s} {errs:24s} {r.split_right:5.2f} {r.ms:6.1f}")
    race_clips = {r.clip for r in races}
    err_all = [r.error_ms for r in rows if r.error_ms is not None]
    err_race = [r.error_ms for r in rows if r.error_ms is not None and r.clip in race_clips]
    right = sum(r.first == r.truth_first for r in races)
    wrong = sum(r.first is not None and r.first != r.truth_first for r in races)
    err_slap = [e for r in slaps for e in r.errors_ms.values() if e is not None]
    same = [r for r in slaps if len(r.players) == 2]
    summary = {
        "plays": len(rows), "estimated": len(err_all), "all": _stats(err_all), "races": _stats(err_race),
        "race_order_right": right, "race_order_wrong": wrong, "race_no_call": len(races) - right - wrong,
        "races_n": len(races),
        "slaps": _stats(err_slap), "slap_same_pile_right": sum(r.first == r.truth_first for r in same),
        "slap_same_pile_wrong": sum(r.first is not None and r.first != r.truth_first for r in same),
        "slap_same_pile_n": len(same),
        "slap_same_pile_split_right_median": round(float(np.median([r.split_right for r in same])), 3)
        if same else None,
        "ms_per_play_median": round(float(np.median([r.ms for r in rows])), 1) if rows else None,
        "ms_per_race_median": round(float(np.median([r.ms for r in races])), 1) if races else None,
        "machine": platform.processor() or platform.machine(), "cores": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
    }
    s_all, s_race, s_slap = _stats(err_all), _stats(err_race), _stats(err_slap)
    print()
    print(f"touch time error, all plays ({len(err_all)} of {len(rows)} estimated): "
          f"median {s_all.get('median_ms')} ms, p90 {s_all.get('p90_ms')} ms; "
          f"race plays: median {s_race.get('median_ms')} ms, p90 {s_race.get('p90_ms')} ms")
    print(f"race order right {right}/{len(races)}, wrong {wrong}, no call {len(races) - right - wrong}")
    print(f"slap touch error ({len(err_slap)} slaps): median {s_slap.get('median_ms')} ms, "
          f"p90 {s_slap.get('p90_ms')} ms; same-pile slap order right {summary['slap_same_pile_right']}"
          f"/{len(same)}, wrong {summary['slap_same_pile_wrong']}")
    print(f"machine: {summary['machine']}, {summary['cores']} cores, load {summary['load_1min']}")
    print(json.dumps(summary, default=lambda v: None if isinstance(v, float) and math.isnan(v) else v))


if __name__ == "__main__":
    main()
