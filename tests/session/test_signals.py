"""SIGTERM and SIGINT (Ctrl-C) close a session cleanly: the frame in hand is finished, the segment
closed, session.json gets its end record, and ``verify`` calls the session intact. ``replay``
then exits 128 + the signal (143, 130: it did not reach the end of the video); ``live`` exits 0
(a signal is how a live game ends). The SIGKILL counterpart is test_kill.py, whose helpers
these reuse."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import referee.live.source as source_module
from referee.cli.main import main
from referee.live.ahead import DEPTH
from referee.live.source import Frame, open_video
from referee.session.verify import verify_session
from tests.session.test_kill import FIXTURE, _first_segment_closed, _wait, start_replay

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

FRAMES = 96  # the fixture video's


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", [])


def _replay(out: Path, model: Path) -> subprocess.Popen[bytes]:
    return start_replay(out, model, stdout=subprocess.PIPE)


def _assert_closed_cleanly(out: Path, stopped: str) -> dict[str, Any]:
    report = verify_session(out, decode=True)
    assert report.ok and report.findings == [], report.findings
    ended = report.ended
    assert ended is not None and ended["stopped"] == stopped and ended["error"] is None
    assert all(s.state == "ok" for s in report.segments)
    assert ended["frames"] == sum(s.info.frames or 0 for s in report.segments)
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0 and result.stdout.strip().endswith("verify: intact"), result.stdout
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    assert summary["stopped"] == stopped and summary["frames"] == ended["frames"]
    return summary


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signalled_replay_closes_its_session(model: Path, tmp_path: Path, sent: signal.Signals,
                                               status: int) -> None:
    out = tmp_path / "session"
    proc = _replay(out, model)
    try:
        _wait(_first_segment_closed(out), proc)
        proc.send_signal(sent)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, stderr.decode(errors="replace")
    assert f"stopped by {sent.name} after" in stdout.decode()
    summary = _assert_closed_cleanly(out, sent.name)
    assert 30 <= summary["frames"] < FRAMES  # after the first segment, before the end of the video


class _SignalAt:
    """A camera stand-in: a fixture video's frames, sending ``sent`` to this process at frame ``at``."""

    def __init__(self, path: Path, sent: signal.Signals, at: int) -> None:
        self._source = open_video(path)
        self._sent, self._at = sent, at

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)

    def __iter__(self) -> Iterator[Frame]:
        for frame in self._source:
            if frame.index == self._at:
                os.kill(os.getpid(), self._sent)
            yield frame

    def __enter__(self) -> _SignalAt:
        return self

    def __exit__(self, *exc: object) -> None:
        self._source.close()


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_live_game_ends_with_status_0(model: Path, tmp_path: Path, sent: signal.Signals,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def camera(index: int) -> _SignalAt:
        return _SignalAt(FIXTURE / "video.mp4", sent, 20)

    monkeypatch.setattr(source_module, "open_camera", camera)
    before = signal.getsignal(sent)
    out = tmp_path / "game"
    calibration = str(FIXTURE / "calibration.yaml")
    result = CliRunner().invoke(main, ["live", "--headless", "--calibration", calibration,
                                       "--model", str(model), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    summary = _assert_closed_cleanly(out, sent.name)
    # the signal came as frame 20 was read: it and the frames read ahead of the referee then
    # (at most DEPTH, referee/live/ahead.py) were not judged
    assert 20 - DEPTH <= summary["frames"] <= 20
    assert signal.getsignal(sent) == before  # the handlers are given back
