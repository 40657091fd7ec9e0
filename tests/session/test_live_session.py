"""``live`` writes a session by default (a fake camera: a short clip of a fixture video)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner

import referee.live.source as source_module
from referee.cli.main import main
from referee.live.source import FrameSource, open_video
from referee.session.verify import verify_session
from referee.sim.video import VideoWriter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "illegal-rank"
FRAMES = 20


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", [])


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    cap = cv2.VideoCapture(str(FIXTURE / "video.mp4"))
    with VideoWriter(path, (960, 540), fps=30) as writer:
        for _ in range(FRAMES):
            ok, image = cap.read()
            assert ok
            writer.write(image)
    cap.release()
    return path


@pytest.fixture
def camera(monkeypatch: pytest.MonkeyPatch, clip: Path) -> None:
    def open_camera(index: int) -> FrameSource:
        return open_video(clip)

    monkeypatch.setattr(source_module, "open_camera", open_camera)


@pytest.mark.parametrize("flag", [[], ["--no-session"]])
def test_live_writes_a_session_by_default(camera: None, model: Path, tmp_path: Path, flag: list[str]) -> None:
    out = tmp_path / "game"
    args = ["live", "--headless", "--calibration", str(FIXTURE / "calibration.yaml"), "--model", str(model),
            "--out", str(out)]
    result = CliRunner().invoke(main, [*args, *flag])
    assert result.exit_code == 0, result.stderr
    assert {"events.jsonl", "annotated.mp4", "summary.json"} <= {p.name for p in out.iterdir()}  # as before
    summary = json.loads((out / "summary.json").read_text())
    if flag:
        assert not (out / "session.json").exists() and "session" not in summary
        return
    report = verify_session(out, decode=True)
    assert report.ok and report.findings == [], report.findings
    assert report.summary()["video"]["frames"] == FRAMES and summary["session"] == report.manifest["id"]
    assert [m["file"] for m in report.manifest["models"]] == ["cards.onnx", "cards-index.onnx"]
    # the same folder is never recorded over
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 2 and "already holds a session" in again.stderr
