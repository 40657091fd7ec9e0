"""``spit-referee replay``, ``live`` and ``demo`` from the command line, on real fixture video.

The card model here is the tests' tiny real ONNX pair (tests/vision/card_model.py): it sees
no cards, so these check the plumbing (files, summary, errors), not the judging; the judging
is tested with truth readings in tests/live/ and measured by benchmarks/referee_eval.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.live.run import ANNOTATED_CRF
from referee.vision.recognize import DEFAULT_MODEL, index_model_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "illegal-rank"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", [])


def test_replay_writes_the_log_the_video_and_a_summary(model: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, err = run("replay", str(FIXTURE / "video.mp4"), "--calibration",
                            str(FIXTURE / "calibration.yaml"), "--model", str(model), "--out", str(out),
                            "--board", "console")
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["frames"] == 96 and summary["dropped"] == 0 and summary["speed_x_real_time"] > 0
    lines = (out / "events.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "game_start"
    assert (out / "annotated.mp4").stat().st_size > 10_000
    import cv2  # every frame drawn and encoded, in order (off the referee's thread)
    video = cv2.VideoCapture(str(out / "annotated.mp4"))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 96
    video.release()
    # encoded as configured: x264 writes its settings into the stream
    assert f"crf={ANNOTATED_CRF}.0".encode() in (out / "annotated.mp4").read_bytes()
    assert "96 frames, 0 dropped" in stdout
    code, _, _ = run("check", str(out / "events.jsonl"))
    assert code == 0  # what it wrote is a valid log the rules agree with


def test_replay_with_auto_calibration_finds_the_mat(model: Path, tmp_path: Path) -> None:
    code, _, err = run("replay", str(FIXTURE / "video.mp4"), "--calibration", "auto", "--model", str(model),
                       "--out", str(tmp_path / "o"), "--no-video")
    assert code == 0, err
    assert not (tmp_path / "o" / "annotated.mp4").exists()


def _small_video(path: Path) -> Path:
    from referee.sim.video import VideoWriter

    with VideoWriter(path, (320, 240), fps=30) as writer:
        for _ in range(3):
            writer.write(np.zeros((240, 320, 3), np.uint8))
    return path


@pytest.mark.parametrize(("case", "error"), [
    ("missing video", "no such video file"),
    ("not a video", "not a video OpenCV can decode"),
    ("other size", "the video is 320x240 but the calibration is for 960x540"),
    ("bad prelude", "no such log file"),
    ("bad calibration", "no such"),
])
def test_replay_names_bad_input(model: Path, tmp_path: Path, case: str, error: str) -> None:
    video, calibration = str(FIXTURE / "video.mp4"), str(FIXTURE / "calibration.yaml")
    extra: list[str] = []
    if case == "missing video":
        video = str(tmp_path / "absent.mp4")
    elif case == "not a video":
        (tmp_path / "x.mp4").write_bytes(b"this is not a video")
        video = str(tmp_path / "x.mp4")
    elif case == "other size":
        video = str(_small_video(tmp_path / "small.mp4"))
    elif case == "bad prelude":
        extra = ["--prelude", str(tmp_path / "nothing.jsonl")]
    else:
        calibration = str(tmp_path / "nothing.yaml")
    code, _, err = run("replay", video, "--calibration", calibration, "--model", str(model), "--out",
                       str(tmp_path / "o"), *extra)
    assert code == 2 and error in err and len(err.strip().splitlines()) == 1


def test_replay_without_the_index_model_says_how_to_get_it(tmp_path: Path) -> None:
    detector = build_card_model(tmp_path / "cards.onnx", [], index=False)
    code, _, err = run("replay", str(FIXTURE / "video.mp4"), "--calibration",
                       str(FIXTURE / "calibration.yaml"), "--model", str(detector),
                       "--out", str(tmp_path / "o"))
    assert code == 2 and str(index_model_path(detector)) in err and "spit-referee train" in err


def test_live_without_a_window_says_to_run_headless(tmp_path: Path) -> None:
    code, _, err = run("live", "--camera", "0", "--calibration", str(FIXTURE / "calibration.yaml"),
                       "--out", str(tmp_path / "o"))
    assert code == 2 and "--headless" in err


def test_live_without_a_camera(tmp_path: Path, model: Path) -> None:
    code, _, err = run("live", "--camera", "9", "--headless", "--calibration",
                       str(FIXTURE / "calibration.yaml"), "--model", str(model), "--out", str(tmp_path / "o"))
    assert code == 2 and "no camera answers at index 9" in err


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no card model shipped in models/")
def test_demo_referees_the_bundled_recording(tmp_path: Path) -> None:
    code, stdout, err = run("demo", "--out", str(tmp_path / "d"), "--no-video")
    assert code == 0, err
    assert "verdicts and calls" in stdout and (tmp_path / "d" / "events.jsonl").is_file()
