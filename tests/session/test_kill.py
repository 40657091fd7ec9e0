"""Killing a refereeing process (SIGKILL) leaves a session that verifies, opens and replays up to
that moment. The process is ``spit-referee replay --session`` on a fixture video with the
tests' tiny card model and the fixture's log as prelude (so that the log has lines to keep)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.events import GameStart
from referee.session.segments import decode_count
from referee.session.verify import open_session, verify_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "illegal-rank"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", [])


def _wait(condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the replay ended (status {proc.returncode}) before the moment to kill it: "
                                 + proc.stderr.read().decode(errors="replace") if proc.stderr else "")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the moment to kill never came")
        time.sleep(0.02)


def _started(out: Path) -> Callable[[], bool]:
    return lambda: (out / "session.json").is_file()


def _first_segment_closed(out: Path) -> Callable[[], bool]:
    index = out / "video" / "index.jsonl"
    return lambda: index.is_file() and b'"event":"close"' in index.read_bytes()


def start_replay(out: Path, model: Path, stdout: int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    """`spit-referee replay --session` of the fixture in its own process, 1 s segments."""
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []
    return subprocess.Popen(
        [*nice, sys.executable, "-c", "from referee.cli import main; main()", "replay",
         str(FIXTURE / "video.mp4"), "--calibration", str(FIXTURE / "calibration.yaml"),
         "--model", str(model), "--out", str(out), "--prelude", str(FIXTURE / "events.jsonl"),
         "--no-video", "--session", "--segment-seconds", "1"],
        cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "OPENCV_FFMPEG_LOGLEVEL": "-8"})


@pytest.mark.parametrize("moment", ["as it starts", "after the first segment"])
def test_a_killed_replay_leaves_a_session_that_opens(model: Path, tmp_path: Path, moment: str) -> None:
    out = tmp_path / "session"
    proc = start_replay(out, model)
    try:
        _wait(_started(out) if moment == "as it starts" else _first_segment_closed(out), proc)
        assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stderr is not None:
            proc.stderr.close()

    # verify: intact up to the kill; only what a kill leaves is reported
    report = verify_session(out)
    assert report.ok, report.findings
    assert report.ended is None
    assert {f.level for f in report.findings} <= {"interrupted"}
    assert any(f.where == "session.json" and "no end record" in f.message for f in report.findings)
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0 and "verify: intact up to the interruption" in result.stdout, result.stdout

    # the log: every whole line with its hash verified; the records read back as records
    log = report.log
    assert log.verified >= log.lines - 1
    if log.records:
        assert isinstance(log.records[0], GameStart)

    # the index is readable; every closed segment decodes with OpenCV, frame for frame
    closed = [s for s in report.segments if s.info.closed]
    if moment == "after the first segment":
        assert closed and closed[0].info.first_frame == 0 and closed[0].info.frames == 30
        assert len(log.records) > 14  # the prelude's events and verdicts were logged before the first frame
    for check in closed:
        path = out / "video" / check.info.file
        assert decode_count(path) == check.info.frames
        cap = cv2.VideoCapture(str(path))
        ok, image = cap.read()
        cap.release()
        assert ok and image.shape == (540, 960, 3)

    # the session replays up to the kill, from its own frames and calibration
    frames = sum(1 for _ in open_session(out).video())
    assert frames >= sum(s.info.frames or 0 for s in closed)
    if frames:
        result = CliRunner().invoke(main, ["replay", str(out), "--calibration", "session", "--model",
                                           str(model), "--out", str(tmp_path / "again"), "--no-video"])
        assert result.exit_code == 0, result.stderr
        summary = json.loads((tmp_path / "again" / "summary.json").read_text())
        assert summary["frames"] == frames
