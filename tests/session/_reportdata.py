"""Recorded sessions for the report tests: a fixture clip refereed with perfect recognition.

The race-2f fixture (85 frames: a touch race on pile 2, B first, A's card faulted under P8) is
refereed by the real pipeline with :class:`~referee.sim.oracle.TruthZoneReader` standing in for
the card model (no model needed), and recorded as a session in 1 s segments, as
``replay --session`` would. About 3 s on the 2-core machine.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

from referee.events import Play, TableEvent
from referee.live.pipeline import Referee
from referee.live.source import open_video
from referee.session.recorder import SessionRecorder
from referee.session.verify import open_session
from referee.sim.oracle import TruthZoneReader, game_so_far
from referee.sim.truth import read_events
from referee.vision.calibration import load_calibration

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RACE = "race-2f"
SEGMENT_S = 1.0


def record_fixture(name: str, folder: Path) -> Path:
    """Referee fixture ``name`` and record it as a session in ``folder``."""
    fixture = FIXTURES / name
    calibration = load_calibration(fixture / "calibration.yaml")
    with open_video(fixture / "video.mp4") as source:
        facts = SimpleNamespace(fps=source.fps, name=str(fixture / "video.mp4"), size=source.size, live=False)
        recorder = SessionRecorder.create(folder, calibration=calibration,
                                          calibration_file=fixture / "calibration.yaml", source=facts,
                                          segment_s=SEGMENT_S)
        referee = Referee(calibration, TruthZoneReader(fixture), on_record=recorder.log,
                          prelude=game_so_far(read_events(fixture / "events.jsonl")))
        for frame in source:
            recorder.add_frame(frame)
            referee.step(frame)
    referee.finish()
    recorder.close()
    return folder


def copy_session(recorded: Path, to: Path) -> Path:
    return Path(shutil.copytree(recorded, to))


def race_lines(folder: Path) -> list[int]:
    """The events.jsonl lines of the race's two plays (the ones with ``race_order``)."""
    log = open_session(folder).report.log
    return [n for n, r in zip(log.line_numbers, log.records, strict=True)
            if isinstance(r, Play) and "race_order" in (r.evidence or {})]


def line_of(folder: Path, kind: str) -> int:
    """The first events.jsonl line holding a table event of ``kind`` that is not the prelude."""
    log = open_session(folder).report.log
    return next(n for n, r in zip(log.line_numbers, log.records, strict=True)
                if isinstance(r, TableEvent) and r.kind == kind and not (r.evidence or {}).get("prelude"))


def record_log(log: Path, folder: Path, frames: int = 10) -> Path:
    """A session holding ``log``'s records (a whole fixture game) and a few small grey frames:
    enough for the game report, which reads only the log."""
    import numpy as np

    from referee.eventlog import read_records_strict
    from referee.live.source import Frame

    calibration_file = FIXTURES / "illegal-rank" / "calibration.yaml"
    source = SimpleNamespace(fps=30, name="synthetic", size=(160, 120), live=False)
    recorder = SessionRecorder.create(folder, calibration=load_calibration(calibration_file),
                                      calibration_file=calibration_file, source=source)
    with log.open(encoding="utf-8") as f:
        records = read_records_strict(f)
    for i in range(frames):
        recorder.add_frame(Frame(i, i / 30, np.full((120, 160, 3), 40 + 10 * i, np.uint8)))
    for record in records:
        recorder.log(record)
    recorder.close()
    return folder
