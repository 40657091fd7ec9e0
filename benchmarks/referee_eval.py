"""The referee from video to verdicts, scored against the simulator's truth (issue 7's targets).

    .venv/bin/python benchmarks/referee_eval.py                  # fixtures + 20 games, card model
    .venv/bin/python benchmarks/referee_eval.py --oracle         # recognition replaced by the truth
    .venv/bin/python benchmarks/referee_eval.py --sets fixtures  # only the 18 fixtures

Sets: ``fixtures`` (tests/fixtures/*), ``games`` and ``races``. ``games``: ``--games`` self-played
games (seeds from ``--seed``, default 5000, which no test uses), the first ``--seconds`` plus
``--tail`` of each rendered at 960x540 (``--size``) into ``.cache/referee-eval/`` (reused when
there). A game is scored over its first ``--seconds`` only (both logs cut there,
:func:`referee.scoring.window`): the tail lets the referee see the last events of the window
settle, as it would in a game that goes on; without it, a card landing in the clip's last frame
counts as missed. Each clip is refereed by :class:`referee.live.pipeline.Referee` exactly as
``spit-referee replay`` does it (a clip that starts mid-game gets its game so far as the prelude)
and scored with :mod:`referee.scoring`. ``races`` (not run by default): ``--races`` first-touch
races (scenario ``race-eval``) and as many slap races (``slap-eval``), seeds from ``--race-seed``
(default 6000): the seed chooses the gap between the touches (even seeds inside one frame
interval, odd ones 1-4 frame intervals), the pile, the slots and who is first; the games hold too
few races to measure the first-touch and slap-order targets.

Reported: event precision and recall, faults flagged / missed / false, first-touch accuracy
(races >= 1 frame apart and within one frame), slap order, timing error; speed as median
x real time per clip and per-frame milliseconds; fault latency: from the truth instant the
faulted card came to rest on the pile to the moment its verdict left the pipeline (the frame's
time plus that step's processing time), median and p99; for a take-back, from when the card
was lifted off the pile; and, of that, the part after the frame where the tracker saw its zone
settled (the event's ``settled_frame``): waits for other zones and processing, not the hand
that still covers the card; and the same latency in video time (to the verdict's frame, without
its processing), which does not depend on the machine's speed, split at the frame that saw
the zone settled (rest to settled: the tracker; settled to verdict: the observer's waits and
readings again), with each fault timed listed (``faults_timed``: clip, code, card, its rest, its
zone's settle and its verdict's frame, in video seconds). Prints a table and one JSON line;
``--out FILE`` writes the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import scoring  # noqa: E402
from referee.eventlog import write_records  # noqa: E402
from referee.events import TableEvent, Verdict  # noqa: E402
from referee.live.ahead import prepared_ahead  # noqa: E402
from referee.live.pipeline import ModelReader, Referee  # noqa: E402
from referee.live.source import open_video  # noqa: E402
from referee.sim.oracle import TruthZoneReader, game_so_far  # noqa: E402
from referee.sim.truth import read_events, read_frames  # noqa: E402
from referee.vision.calibration import load_calibration  # noqa: E402

CACHE = ROOT / ".cache" / "referee-eval"
#: the evaluation games' frame size: the fixtures' (a card about 60x85 px); ``--size 1280x720``
#: renders them at the referee camera's own size (cached apart)
DEFAULT_SIZE = "960x540"


def render_clip(scenario: str, seed: int, size: str, out: Path, seconds: float | None = None) -> Path:
    """``spit-referee simulate`` of one scenario into ``out``, unless it is there already."""
    if not (out / "meta.json").is_file():
        print(f"rendering {scenario} seed {seed} ...", file=sys.stderr)
        command = [str(Path(sys.executable).parent / "spit-referee"), "simulate", "--scenario", scenario,
                   "--seed", str(seed), "--size", size, "--out", str(out)]
        if seconds is not None:
            command += ["--seconds", str(seconds)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return out


def size_suffix(size: str) -> str:
    return "" if size == DEFAULT_SIZE else f"-{size}"


def render_games(count: int, seed: int, seconds: float, size: str = DEFAULT_SIZE) -> list[Path]:
    """The evaluation games (their first ``seconds``), rendered once into the cache."""
    return [render_clip("selfplay", seed + k, size,
                        CACHE / f"game-{seed + k}-{seconds:g}s{size_suffix(size)}", seconds)
            for k in range(count)]


def render_races(count: int, seed: int, size: str = DEFAULT_SIZE) -> list[Path]:
    """``count`` first-touch races (``race-eval``) and ``count`` slap races (``slap-eval``),
    seeds from ``seed`` (even seeds within one frame interval, odd ones 1-4 frames apart)."""
    return [render_clip(name, seed + k, size, CACHE / f"{name}-{seed + k}{size_suffix(size)}")
            for name in ("race-eval", "slap-eval") for k in range(count)]


def card_places(clip: Path) -> list[tuple[float, str, str, bool]]:
    """(time, card, place, moving) of every card in every frame, from frames.jsonl.gz."""
    return [(float(frame["time"]), card["card"], card["tag"], bool(card["moving"]))
            for frame in read_frames(clip / "frames.jsonl.gz") for card in frame["cards"]]


def settled_at(places: list[tuple[float, str, str, bool]], event: TableEvent) -> float | None:
    """When the faulted event's card settled: a play's card first lying still on its spit pile;
    a take-back's card first seen off the pile (lifted). None when that is not within a second
    after the event's time: the event is not the truth's (a misread card: its code rests
    elsewhere later, and the latency would be negative)."""
    card = str(getattr(event, "card", ""))
    pile = f"pile{getattr(event, 'pile', '')}"
    for t, code, place, moving in places:
        if t > event.t + 1.0:
            return None
        if t < event.t - 0.3 or code != card:
            continue
        if (event.kind == "play" and place == pile and not moving) or (event.kind == "take_back"
                                                                        and place != pile):
            return t
    return None


def referee_clip(clip: Path, reader: Any, until_s: float | None = None,
                 logs: Path | None = None) -> dict[str, Any]:
    """Referee one clip; score it (up to ``until_s`` when given) and time its faults; with
    ``logs``, write the referee's log there as CLIP.events.jsonl (for ``spit-referee score``)."""
    calibration = load_calibration(clip / "calibration.yaml")
    if reader == "oracle":
        reader = TruthZoneReader(clip)
    elif hasattr(reader, "recalibrated"):
        reader.recalibrated(calibration)
    referee = Referee(calibration, reader, prelude=game_so_far(read_events(clip / "events.jsonl")))
    step_ms: list[float] = []
    verdict_out: dict[int, float] = {}  # id(verdict) -> when it left the pipeline
    verdict_frame: dict[int, float] = {}  # id(verdict) -> the time of the frame that gave it
    frame_t: dict[int, float] = {}  # the tracker's frame number -> its time
    t0 = time.perf_counter()
    duration = 0.0
    with open_video(clip / "video.mp4") as source:
        for frame in prepared_ahead(source, referee.prepare):
            step = referee.step(frame)
            step_ms.append(step.seconds * 1000)
            frame_t[step.tracked.frame] = frame.t
            duration = frame.t
            for v in step.verdicts + step.revised:
                verdict_out[id(v)] = frame.t + step.seconds
                verdict_frame[id(v)] = frame.t
    wall = time.perf_counter() - t0
    records = referee.finish()
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        with open(logs / f"{clip.name}.events.jsonl", "w", encoding="utf-8") as stream:
            write_records(stream, records)
    truth, found = scoring.read_log(clip / "events.jsonl"), scoring.EventLog.from_records(records, "found")
    if until_s is not None:
        truth, found = scoring.window(truth, found, until_s)
    score = scoring.score(truth, found, fps=30.0)
    # fault latency: the faulted card's rest on its pile -> its verdict out of the pipeline
    # and from the frame its zone was seen settled (the pipeline's own part of that latency)
    places = card_places(clip)
    latencies, after_settle, in_video = [], [], []
    timed: list[dict[str, Any]] = []  # each fault timed: where its latency in video time went
    judged: list[TableEvent] = []  # the table events of the clip's one game, by number
    for record in records:
        if isinstance(record, TableEvent):
            judged.append(record)
        elif (isinstance(record, Verdict) and record.code and record.event < len(judged)
              and id(record) in verdict_out):
            # (a verdict given anew answers an event judged before: revised=True)
            last_event = judged[record.event]
            rest = settled_at(places, last_event)
            if rest is not None and (until_s is None or last_event.t <= until_s):
                latencies.append((verdict_out[id(record)] - rest) * 1000)
                in_video.append((verdict_frame[id(record)] - rest) * 1000)
                seen = frame_t.get((last_event.evidence or {}).get("settled_frame", -1))
                if seen is not None:
                    after_settle.append((verdict_out[id(record)] - seen) * 1000)
                timed.append({"clip": clip.name, "code": str(record.code), "event": last_event.kind,
                              "card": str(getattr(last_event, "card", "")), "rest_t": round(rest, 4),
                              "settled_t": None if seen is None else round(seen, 4),
                              "verdict_t": round(verdict_frame[id(record)], 4)})
    return {"clip": clip.name, "score": score, "wall_s": wall, "duration_s": duration,
            "speed": duration / wall if wall else None, "step_ms": step_ms, "latency_ms": latencies,
            "after_settle_ms": after_settle, "in_video_ms": in_video, "faults_timed": timed,
            "rejected": len(referee.rejected)}


def spread(values: list[float]) -> dict[str, Any]:
    """How many, the median and the 99th percentile (ms, rounded; None when there are none)."""
    return {"n": len(values), "median": round(statistics.median(values), 1) if values else None,
            "p99": round(float(np.percentile(values, 99)), 1) if values else None}


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    total = results[0]["score"]
    for r in results[1:]:
        total = total + r["score"]
    counts = total.counts()
    faults = total.faults()
    steps = [ms for r in results for ms in r["step_ms"]]
    lat = [ms for r in results for ms in r["latency_ms"]]
    after = [ms for r in results for ms in r["after_settle_ms"]]
    in_video = [ms for r in results for ms in r["in_video_ms"]]
    timed = [f for r in results for f in r["faults_timed"]]
    # the latency in video time in two parts: the card's rest -> its zone seen settled (the
    # tracker), and that frame -> the verdict's (the observer's waits and readings again)
    to_settle = [(f["settled_t"] - f["rest_t"]) * 1000 for f in timed if f["settled_t"] is not None]
    to_verdict = [(f["verdict_t"] - f["settled_t"]) * 1000 for f in timed if f["settled_t"] is not None]

    def acc(a: Any) -> dict[str, Any]:
        return {"total": a.total, "right": a.right,
                "accuracy": round(a.right / a.total, 4) if a.total else None}

    timing = total.timing()
    return {
        "clips": len(results),
        "events": {"truth": counts.truth, "found": counts.found, "matched": counts.matched,
                   "precision": round(counts.precision, 4) if counts.precision is not None else None,
                   "recall": round(counts.recall, 4) if counts.recall is not None else None},
        "faults": {"truth": faults.total, "flagged": faults.right, "missed": len(total.missed_faults),
                   "false": len(total.false_faults),
                   "withdrawn": len(total.withdrawn_faults),
                   "missed_by_code": dict(Counter(str(f.verdict.code) for f in total.missed_faults)),
                   "false_by_code": dict(Counter(str(f.verdict.code) for f in total.false_faults))},
        "first_touch_apart": acc(total.first_touch(within_frame=False)),
        "first_touch_within_frame": acc(total.first_touch(within_frame=True)),
        "slap_order": acc(total.slap_order()),
        "race_pairs": [r.to_json() for r in total.races],
        "slap_pairs": [r.to_json() for r in total.slaps],
        "timing_ms": {"median": timing.median_ms, "p90": timing.p90_ms, "bias": timing.bias_ms},
        "speed_x_real_time_median": round(statistics.median(r["speed"] for r in results if r["speed"]), 2),
        "step_ms": {"median": round(statistics.median(steps), 2),
                    "p99": round(float(np.percentile(steps, 99)), 2)},
        "fault_latency_ms": spread(lat),
        "fault_after_settle_ms": spread(after),
        "fault_latency_in_video_ms": spread(in_video),
        "fault_rest_to_settled_ms": spread(to_settle),
        "fault_settled_to_verdict_ms": spread(to_verdict),
        "faults_timed": timed,
        "rejected_events": sum(r["rejected"] for r in results),
        "per_clip": [{"clip": r["clip"], "precision": r["score"].counts().precision,
                      "recall": r["score"].counts().recall,
                      "faults_missed": [str(f.verdict.code) for f in r["score"].missed_faults],
                      "faults_false": [str(f.verdict.code) for f in r["score"].false_faults],
                      "speed": round(r["speed"], 2) if r["speed"] else None}
                     for r in results],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="fixtures,games",
                    help="fixtures, games, races (comma-separated; default %(default)s)")
    ap.add_argument("--games", type=int, default=20, help="how many evaluation games")
    ap.add_argument("--seed", type=int, default=5000, help="first game seed (no test uses 5000-5999)")
    ap.add_argument("--races", type=int, default=20,
                    help="the races set: this many first-touch races and as many slap races")
    ap.add_argument("--race-seed", type=int, default=6000,
                    help="first race seed (no test uses 6000-6999; even: within one frame, odd: 1-4 frames)")
    ap.add_argument("--seconds", type=float, default=30.0, help="score the first SECONDS of each game")
    ap.add_argument("--tail", type=float, default=1.0,
                    help="render and referee this many seconds more than are scored")
    ap.add_argument("--size", default=DEFAULT_SIZE,
                    help="the games' frame size, WIDTHxHEIGHT (default %(default)s)")
    ap.add_argument("--oracle", action="store_true", help="recognition from the truth (measures the rest)")
    ap.add_argument("--model", default=None, help="card model (default models/cards.onnx)")
    ap.add_argument("--out", default=None, help="write the JSON report here")
    ap.add_argument("--logs", type=Path, default=None,
                    help="write each clip's referee log here (CLIP.events.jsonl; compare it with the "
                         "clip's events.jsonl by spit-referee score)")
    args = ap.parse_args()
    os.environ.setdefault("YOLO_OFFLINE", "1")
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    reader: Any = "oracle"
    if not args.oracle:
        from referee.vision.recognize import Recognizer

        first = ROOT / "tests" / "fixtures" / "exchange" / "calibration.yaml"
        reader = ModelReader(Recognizer.load(args.model), load_calibration(first))
    report: dict[str, Any] = {"machine": {"processor": platform.processor() or platform.machine(),
                                          "cores": os.cpu_count(), "python": platform.python_version()},
                              "recognition": "truth (oracle)" if args.oracle else "card model"}
    for name in sets:
        until: float | None = None
        if name == "fixtures":
            clips = sorted(p for p in (ROOT / "tests" / "fixtures").iterdir() if (p / "video.mp4").is_file())
        elif name == "games":
            clips = render_games(args.games, args.seed, args.seconds + args.tail, args.size)
            until = args.seconds
        elif name == "races":
            clips = render_races(args.races, args.race_seed, args.size)
        else:
            ap.error(f"unknown set {name!r}")
        results = []
        for clip in clips:
            results.append(referee_clip(clip, reader, until, args.logs))
            r = results[-1]
            c = r["score"].counts()
            print(f"  {name:9s} {clip.name:24s} P {c.precision} R {c.recall}  {r['speed']:.2f}x",
                  file=sys.stderr)
        report[name] = summarise(results)
    for name in sets:
        s = report[name]
        print(f"{name}: {s['clips']} clips; events P {s['events']['precision']} R {s['events']['recall']}; "
              f"faults {s['faults']}; first touch apart {s['first_touch_apart']['accuracy']}, within a frame "
              f"{s['first_touch_within_frame']['accuracy']}; slaps {s['slap_order']['accuracy']}; timing "
              f"{s['timing_ms']}; {s['speed_x_real_time_median']}x real time; step {s['step_ms']} ms; "
              f"fault latency {s['fault_latency_ms']} ms (after its zone settled: "
              f"{s['fault_after_settle_ms']} ms; in video time, without the processing: "
              f"{s['fault_latency_in_video_ms']} ms: rest to settled {s['fault_rest_to_settled_ms']} ms, "
              f"settled to verdict {s['fault_settled_to_verdict_ms']} ms)")
    print(json.dumps(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
