"""``spit-referee dispute``: the report of a contested moment, on a recorded race (race-2f).

The session is the race-2f fixture refereed with perfect recognition and recorded in 1 s
segments (tests/session/_reportdata.py): B's 8C touches pile 2 first, A's 10S is faulted
(F_LOST_TOUCH, P8). The race lies in segment 1 (frames 30-59).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.events import Play
from referee.session import moment as moment_module
from referee.session.evidence import recompute
from referee.session.moment import calibration_at, moment_by_line, read_frames
from referee.session.verify import open_session

from ._reportdata import RACE, copy_session, race_lines, record_fixture

IMG = re.compile(r'<img[^>]*\ssrc="([^"]*)"[^>]*>')


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_fixture(RACE, tmp_path_factory.mktemp("race") / "session")


@pytest.fixture
def session(recorded: Path, tmp_path: Path) -> Path:
    return copy_session(recorded, tmp_path / "session")


def dispute(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["dispute", *args])
    return result.exit_code, result.stdout, result.stderr


def verdict_line(folder: Path) -> int:
    """The line of the faulted play's verdict (the loser's)."""
    lines = (folder / "events.jsonl").read_text().splitlines()
    return next(n for n, text in enumerate(lines, 1) if '"F_LOST_TOUCH"' in text)


def written(folder: Path, *args: str) -> str:
    out = folder.parent / "report.html"
    code, stdout, stderr = dispute(str(folder), *args, "--out", str(out))
    assert code == 0, stderr
    assert f"wrote {out}" in stdout
    return out.read_text(encoding="utf-8")


def test_a_race_is_reported_with_verdict_rule_and_evidence(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    page = written(folder, "--event", str(verdict_line(folder)))
    assert "Dispute: touch race on pile 2" in page
    assert "FAULT F_LOST_TOUCH (P8)" in page and "LEGAL" in page
    assert "First touch: when both players play onto the same spit pile" in page  # P8's text from RULES.md
    assert "B touched first" in page  # the referee's call, from the log
    assert "Recomputed from the settled frame" in page and "blocks of its face" in page
    for section in ("Frames before, at and after", "The contested pile", "Trajectories and contact times",
                    "How sure each piece of evidence is"):
        assert section in page
    assert "no trajectory" not in page  # both cards were followed again


def test_the_page_is_self_contained(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    page = written(folder, "--event", str(verdict_line(folder)))
    assert not re.search(r"https?://", page)
    assert "<script" not in page and "<link" not in page and "url(" not in page and "@import" not in page
    sources = IMG.findall(page)
    assert len(sources) >= 3 + 2 + 1  # three frames, pile crops, the timeline plot
    for src in sources:
        assert src.startswith("data:image/png;base64,")
        raw = np.frombuffer(base64.b64decode(src.split(",", 1)[1]), np.uint8)
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR)
        assert image is not None and image.size > 0


def test_the_trajectories_are_recomputed_as_the_referee_made_them(recorded: Path) -> None:
    session = open_session(recorded)
    lines = race_lines(recorded)
    moment = moment_by_line(session, lines[0])
    assert [n.line for n in moment.events] == lines
    frames = read_frames(session, 0, 84)
    evidence = recompute(calibration_at(session, 0), frames, moment.table_events)
    assert len(evidence.cards) == 2 and evidence.arbitration is not None
    for card in evidence.cards:
        logged = card.logged
        assert card.contact is not None and card.track is not None, card.error
        # the recorded video is re-encoded: a few ms at most
        assert abs(card.contact.t - logged["contact_t"]) < 0.005
    assert str(evidence.arbitration.first) == "B"


@pytest.mark.parametrize("pick", ["play B", "verdict B", "play A", "verdict A", "at"])
def test_every_line_of_a_race_and_its_time_pick_the_same_moment(recorded: Path, pick: str) -> None:
    session = open_session(recorded)
    lines = race_lines(recorded)
    which = {"play B": lines[0], "verdict B": lines[0] + 1, "play A": lines[1], "verdict A": lines[1] + 1}
    if pick == "at":
        play = next(n.record for n in moment_module.numbered(session) if n.line == lines[1])
        assert isinstance(play, Play)
        chosen = moment_module.moment_by_time(session, play.t + 0.03)
    else:
        chosen = moment_by_line(session, which[pick])
    assert [n.line for n in chosen.events] == lines
    assert sorted(chosen.verdicts) == lines


def test_a_time_with_no_event_near_shows_the_frames(recorded: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moment_module, "NEAREST_S", 0.05)
    folder = copy_session(recorded, tmp_path / "s")
    page = written(folder, "--at", "0.6")
    assert "no event" in page and "No table event was recorded" in page
    assert len(IMG.findall(page)) >= 3  # the frames around 0.6 s


@pytest.mark.parametrize("args, message", [
    (["--event", "999"], "--event 999 is out of range: the log has lines 1-"),
    (["--at", "99"], "--at 99 s is outside the session (it holds t 0.00-2.80 s)"),
    (["--at", "-5"], "outside the session"),
    (["--event", "1"], "that line starts a game"),
    ([], "give exactly one of --event N and --at TIME"),
    (["--event", "3", "--at", "1"], "give exactly one of --event N and --at TIME"),
])
def test_bad_choices_are_named(session: Path, args: list[str], message: str) -> None:
    code, _, stderr = dispute(str(session), *args)
    assert code == 2 and message in stderr and stderr.count("\n") == 1, stderr


def test_a_folder_that_is_not_a_session_is_named(tmp_path: Path) -> None:
    code, _, stderr = dispute(str(tmp_path / "nothing"), "--at", "1")
    assert code == 2 and "no such session folder" in stderr and "nothing" in stderr
    (tmp_path / "plain").mkdir()
    code, _, stderr = dispute(str(tmp_path / "plain"), "--at", "1")
    assert code == 2 and "not a session: no session.json" in stderr


def test_a_bad_hash_later_in_the_log_still_lets_the_race_be_disputed(session: Path) -> None:
    path = session / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    edited = len(lines)  # the last line (after the race): an edit breaks the chain there
    lines[-1] = lines[-1].replace('"legal"', '"fault"')
    path.write_text("".join(lines))
    page = written(session, "--event", str(verdict_line(session)))
    assert "the session is damaged" in page and f"events.jsonl line {edited}: does not match its hash" in page
    assert "FAULT F_LOST_TOUCH (P8)" in page
    code, _, stderr = dispute(str(session), "--event", str(edited))
    assert code == 2 and f"line {edited} is not verified" in stderr


def test_a_torn_last_line_is_an_interruption(session: Path) -> None:
    with (session / "events.jsonl").open("a") as f:
        f.write('{"type": "play", "t": 2.7')
    page = written(session, "--event", str(verdict_line(session)))
    assert "the recording was interrupted" in page and "torn" in page
    total = len((session / "events.jsonl").read_text().splitlines())
    code, _, stderr = dispute(str(session), "--event", str(total))
    assert code == 2 and "out of range" in stderr and "torn last line" in stderr


def test_a_missing_segment_leaves_the_log_evidence(session: Path) -> None:
    (session / "video" / "000001.mp4").unlink()  # frames 30-59: the race
    page = written(session, "--event", str(verdict_line(session)))
    assert "video/000001.mp4: missing" in page
    assert "FAULT F_LOST_TOUCH (P8)" in page and "B touched first" in page  # the log still speaks
    assert "no trajectory" in page and "are not in the recording" in page  # and says what is missing


def test_a_truncated_segment_is_named(session: Path) -> None:
    path = session / "video" / "000001.mp4"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    page = written(session, "--event", str(verdict_line(session)))
    assert "video/000001.mp4: truncated" in page and "FAULT F_LOST_TOUCH" in page


# ---------------------------------------------------------------------- in a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WINDOW = (1360, 1400)


def screenshot(page: Path, out: Path) -> np.ndarray:
    """The page as headless Chromium draws it (new headless mode: --headless, --screenshot)."""
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--force-device-scale-factor=1", f"--user-data-dir={out.parent / 'chromium-profile'}",
           f"--screenshot={out}", f"--window-size={WINDOW[0]},{WINDOW[1]}", page.resolve().as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    image = cv2.imread(str(out))
    assert image is not None, f"chromium wrote no screenshot at {out}"
    return image


def embedded(page: str, alt_prefix: str) -> np.ndarray:
    """The first embedded picture whose alt text starts with ``alt_prefix``, as drawn."""
    m = re.search(r'<img src="data:image/png;base64,([^"]+)" width="(\d+)" height="(\d+)" alt="'
                  + re.escape(alt_prefix), page)
    assert m is not None, f"no embedded picture {alt_prefix!r}"
    image = cv2.imdecode(np.frombuffer(base64.b64decode(m.group(1)), np.uint8), cv2.IMREAD_COLOR)
    return cv2.resize(image, (int(m.group(2)), int(m.group(3))), interpolation=cv2.INTER_AREA)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/apt-packages.txt "
                    "lists it; scripts/install.sh installs it)")
def test_the_report_renders_in_chromium(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    html = written(folder, "--event", str(verdict_line(folder)))
    shot = screenshot(folder.parent / "report.html", tmp_path / "shot.png")
    assert shot.shape[:2] == (WINDOW[1], WINDOW[0])
    # the header band (#14213d) spans the top of the page, the title in white on it
    band = shot[5:70, 5:WINDOW[0] - 5].reshape(-1, 3).astype(int)
    header_bgr = np.array([0x3D, 0x21, 0x14])
    assert (np.abs(band - header_bgr).max(axis=1) <= 3).mean() > 0.8
    assert (band.min(axis=1) > 200).sum() > 500  # the title's white letters
    # the fault banner (#b00020) below it
    fault = np.all(np.abs(shot.astype(int) - np.array([0x20, 0x00, 0xB0])) <= 3, axis=2)
    rows = np.flatnonzero(fault.sum(axis=1) > 600)
    assert len(rows) > 20 and rows[0] > 90
    # each of the three frames we drew is on the screen, at its size, below the verdicts
    for alt in re.findall(r'alt="(frame \d+)"', html)[:3]:
        drawn = embedded(html, alt)
        score = cv2.matchTemplate(shot, drawn, cv2.TM_CCOEFF_NORMED)
        _, best, _, (x, y) = cv2.minMaxLoc(score)
        assert best > 0.95, f"{alt} not found in the screenshot (best match {best:.2f})"
        assert y > rows[-1] and 0 <= x < WINDOW[0] - drawn.shape[1]
