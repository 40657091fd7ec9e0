"""The recorded video fixtures: complete, consistent with their scenarios, re-renderable.

Re-rendering every fixture takes about a minute on two cores, so the default run re-renders
two short ones; set SPIT_REFEREE_ALL_FIXTURES=1 to re-render all of them.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from referee.eventlog import write_records
from referee.sim import truth as files
from referee.sim.contact_sheet import fixture_sheet, key_frame
from referee.sim.fixtures import FPS, SEEDS, SIZE, render_fixture
from referee.sim.scenarios import make_fragment
from referee.sim.video import probe_video

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
NAMES = list(SEEDS)
QUICK = {"slap-same", "race-subframe"}
RERENDER = NAMES if os.environ.get("SPIT_REFEREE_ALL_FIXTURES") else sorted(QUICK)


def _text(records: list) -> str:
    buffer = io.StringIO()
    write_records(buffer, records)
    return buffer.getvalue()


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_complete_and_matches_its_scenario(name: str) -> None:
    folder = ROOT / name
    meta = files.read_meta(folder / files.META)
    assert (meta["scenario"], meta["seed"], meta["size"], meta["fps"]) == (name, SEEDS[name], list(SIZE),
                                                                          str(FPS))
    fragment = make_fragment(name, SEEDS[name])
    expected = files.with_frames(fragment.records, Fraction(FPS))
    assert (folder / files.EVENTS).read_text(encoding="utf-8") == _text(expected)
    info, _ = probe_video(folder / files.VIDEO)
    assert (info.frames, info.size, info.fps) == (meta["frames"], SIZE, float(FPS))
    assert 1.5 <= info.frames / FPS <= 8.0
    assert len(files.read_frames(folder / files.FRAMES)) == meta["frames"]
    cal = files.read_calibration(folder / files.CALIBRATION)
    assert cal.image_size == SIZE


def test_fixtures_stay_small() -> None:
    total = sum(f.stat().st_size for f in ROOT.rglob("*") if f.is_file())
    assert total < 40e6
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in NAMES)


def test_the_same_seed_gives_the_same_video_bytes(tmp_path: Path) -> None:
    """Two runs of the command (fresh processes, as a user runs it) write the same bytes.

    (Rendered twice inside this test process instead, the bytes differed twice in full-suite
    runs and never when run alone: some state earlier tests leave in the process; not found yet.)"""
    name = sorted(QUICK)[0]
    command = [str(Path(sys.executable).parent / "spit-referee"), "simulate", "--scenario", name,
               "--seed", str(SEEDS[name]), "--size", f"{SIZE[0]}x{SIZE[1]}", "--fps", str(FPS)]
    for run in ("first", "second"):
        subprocess.run([*command, "--out", str(tmp_path / run)], check=True, capture_output=True)
    first, second = (tmp_path / run / files.VIDEO for run in ("first", "second"))
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("name", RERENDER)
def test_rerendering_gives_the_same_truth(name: str, tmp_path: Path) -> None:
    result = render_fixture(name, tmp_path)
    new, old = result.out, ROOT / name
    for part in (files.EVENTS, files.FRAMES, files.CALIBRATION):
        assert (new / part).read_bytes() == (old / part).read_bytes(), (
            f"{name}/{part} differs from a fresh render: if the renderer, the motion or the "
            "scenario changed on purpose, re-render: python -m referee.sim.fixtures tests/fixtures")
    a, _ = probe_video(new / files.VIDEO)
    b, _ = probe_video(old / files.VIDEO)
    assert (a.frames, a.size, a.fps) == (b.frames, b.size, b.fps)
    fresh, kept = files.read_meta(new / files.META), files.read_meta(old / files.META)
    for key in ("frames", "deck", "faults", "visuals", "camera_changes", "hidden_cards"):
        assert fresh[key] == kept[key], key


def test_camera_nudge_fixture_has_the_second_calibration() -> None:
    folder = ROOT / "camera-nudge"
    meta = files.read_meta(folder / files.META)
    changes = meta["camera_changes"]
    assert changes[0]["frame"] == 0 and len(changes) > 1
    after = files.read_calibration(folder / changes[-1]["calibration"])
    before = files.read_calibration(folder / files.CALIBRATION)
    frames = files.read_frames(folder / files.FRAMES)
    assert frames[-1]["camera"] != frames[0]["camera"]
    assert abs(after.homography - before.homography).max() > 1e-4


def test_contact_sheet_of_fixtures() -> None:
    folders = [ROOT / "race-1f", ROOT / "lighting"]
    assert key_frame(folders[1]) == 75  # visuals.key_t = 2.5 s
    sheet = fixture_sheet(folders, columns=2, tile=(200, 112))
    assert sheet.shape == (112, 400, 3)
