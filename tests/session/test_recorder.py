"""Recording a session (frames in segments, the log, the manifest) and verifying it, damaged or not."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.errors import InputError
from referee.eventlog import read_records_strict
from referee.live.source import Frame
from referee.session.recorder import SessionRecorder
from referee.session.segments import decode_count
from referee.session.verify import open_session, verify_session
from referee.vision.calibration import load_calibration

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CALIBRATION = FIXTURES / "illegal-rank" / "calibration.yaml"
NUDGED = FIXTURES / "camera-nudge" / "calibration-2.yaml"
FPS, FRAMES, SIZE = 30, 45, (160, 120)


def _image(i: int) -> np.ndarray:
    image = np.full((SIZE[1], SIZE[0], 3), (i * 5) % 250, np.uint8)
    cv2.putText(image, str(i), (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    return image


def _record(folder: Path) -> Path:
    """45 frames at 30 fps in 0.5 s segments (3 of 15 frames), the fixture's log, a nudge at frame 20."""
    calibration = load_calibration(CALIBRATION)
    source = SimpleNamespace(fps=FPS, name="synthetic", size=SIZE, live=False)
    recorder = SessionRecorder.create(folder, calibration=calibration, calibration_file=CALIBRATION,
                                      source=source, segment_s=0.5)
    with (FIXTURES / "illegal-rank" / "events.jsonl").open(encoding="utf-8") as f:
        records = read_records_strict(f)
    nudged = load_calibration(NUDGED)
    for i in range(FRAMES):
        frame = Frame(i, i / FPS, _image(i))
        recorder.add_frame(frame)
        for record in records[i:i + 1]:
            recorder.log(record)
        recorder.note_calibration(nudged if i >= 20 else calibration, frame)
    recorder.close()
    return folder


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record(tmp_path_factory.mktemp("rec") / "session")


@pytest.fixture
def session(recorded: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded, tmp_path / "session"))


def test_a_closed_session_is_intact_and_complete(session: Path) -> None:
    report = verify_session(session, decode=True)
    assert report.ok and report.findings == [], report.findings
    summary = report.summary()
    assert summary["log"]["lines"] == summary["log"]["verified"] == 35
    assert summary["video"] == {"segments": 3, "usable": 3, "frames": 45, "from_t": 0.0, "to_t": 44 / FPS}
    assert [s.info.frames for s in report.segments] == [15, 15, 15]
    assert [s.decoded for s in report.segments] == [15, 15, 15]  # OpenCV decodes every segment
    manifest = json.loads((session / "session.json").read_text())
    assert manifest["ended"]["frames"] == 45 and manifest["calibration"]["from"] == str(CALIBRATION)
    assert (session / "calibration.yaml").read_bytes() == CALIBRATION.read_bytes()
    assert (session / "calibration-000020.yaml").is_file()  # the nudge the referee followed
    assert report.index.calibrations[0]["frame"] == 20


def test_the_recorded_frames_come_back_with_their_numbers_and_times(session: Path) -> None:
    opened = open_session(session)
    frames = list(opened.video())
    assert [f.index for f in frames] == list(range(FRAMES))
    assert [f.t for f in frames] == [i / FPS for i in range(FRAMES)]  # exact: from the index
    for f in frames[::7]:
        assert abs(float(f.image.mean()) - float(_image(f.index).mean())) < 3
    assert opened.calibration().image_size == load_calibration(CALIBRATION).image_size
    assert len(opened.records) == 35


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _edit_index(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"frames":15', b'"frames":16')
    path.write_bytes(b"".join(lines))


def _edit_log(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[4] = lines[4].replace(b'"legal"', b'"fault"')
    path.write_bytes(b"".join(lines))


def _tear_log(path: Path) -> None:
    with path.open("ab") as f:
        f.write(b'{"type":"verdict","t":1.2')


@pytest.mark.parametrize(("case", "file", "damage", "where", "message", "frames"), [
    ("missing segment", "video/000001.mp4", Path.unlink, "video/000001.mp4",
     "missing: the index closed it with 15 frames (frames 15-29, t 0.50-0.97 s); the other segments are "
     "intact",
     30),
    ("truncated segment", "video/000001.mp4", _truncate, "video/000001.mp4", "truncated", None),
    ("altered segment", "video/000002.mp4", _flip, "video/000002.mp4", "altered: same size", None),
    ("edited index", "video/index.jsonl", _edit_index, "video/index.jsonl line 2",
     "does not match its hash: the line was edited; left out", 45),
    ("bad log hash", "events.jsonl", _edit_log, "events.jsonl line 5", "does not match its hash", 45),
    ("altered calibration", "calibration.yaml", _flip, "calibration.yaml", "altered", 45),
    ("missing moved-to calibration", "calibration-000020.yaml", Path.unlink, "calibration-000020.yaml",
     "missing (a calibration the referee moved to)", 45),
])
def test_damage_is_named_and_the_rest_stays_usable(session: Path, case: str, file: str,
                                                   damage: Callable[[Path], None], where: str, message: str,
                                                   frames: int | None) -> None:
    damage(session / file)
    report = verify_session(session)
    assert not report.ok, case
    first = report.first_bad
    assert first is not None and first.where == where and message in first.message, (case, report.findings)
    got = list(open_session(session).video())
    if frames is not None:
        assert len(got) == frames, case
    else:
        assert len(got) >= 30, case  # the intact segments, and what still decodes of the damaged one
    if file != "events.jsonl":
        assert len(open_session(session).records) == 35, case


def test_a_truncated_segment_still_gives_its_whole_fragments(session: Path) -> None:
    path = session / "video" / "000001.mp4"
    _truncate(path)
    assert 0 < decode_count(path) < 15 or decode_count(path) == 0
    finding = verify_session(session).first_bad
    assert finding is not None and "of 15 frames still decode" in finding.message


def test_a_torn_last_line_is_an_interruption_not_damage(session: Path) -> None:
    _tear_log(session / "events.jsonl")
    report = verify_session(session)
    assert report.ok
    assert [(f.level, f.where) for f in report.findings] == [("interrupted", "events.jsonl line 36")]
    assert "torn" in report.findings[0].message and len(report.log.records) == 35


def _verify(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.stdout, result.stderr


def test_verify_command(session: Path, tmp_path: Path) -> None:
    code, out, _ = _verify(str(session))
    assert code == 0 and out.strip().endswith("verify: intact"), out
    assert "35 lines, hash chain intact to line 35" in out and "3 segments (3 usable), 45 frames" in out
    code, out, _ = _verify(str(session), "--json")
    assert code == 0 and json.loads(out)["ok"] is True

    _tear_log(session / "events.jsonl")
    code, out, _ = _verify(str(session))
    assert code == 0 and "INTERRUPTED: events.jsonl line 36: torn" in out
    assert "intact up to the interruption" in out

    _edit_log(session / "events.jsonl")
    code, out, _ = _verify(str(session))
    assert code == 1 and "verify: FAILED, first problem: events.jsonl line 5: does not match its hash" in out

    code, _, err = _verify(str(tmp_path / "absent"))
    assert code == 2 and "no such session folder" in err
    (tmp_path / "plain").mkdir()
    code, _, err = _verify(str(tmp_path / "plain"))
    assert code == 2 and "not a session: no session.json" in err
    (session / "session.json").write_text("{not json")
    code, _, err = _verify(str(session))
    assert code == 2 and "session.json is unreadable" in err and "spit-referee check" in err


def test_a_session_is_never_overwritten(session: Path) -> None:
    calibration = load_calibration(CALIBRATION)
    with pytest.raises(InputError, match="already holds a session"):
        SessionRecorder.create(session, calibration=calibration)
