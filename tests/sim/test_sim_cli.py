"""spit-referee simulate and dataset, run through click as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from referee.cli import main
from referee.sim import truth as files
from referee.sim.scenarios import SCENARIOS
from referee.sim.video import probe_video


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_list_names_every_scenario() -> None:
    code, out, _ = run("simulate", "--list")
    assert code == 0
    lines = out.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_simulate_writes_a_clip_and_the_same_seed_gives_the_same_truth(tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        code, _, err = run("simulate", "--seed", "3", "--scenario", "race-1f", "--size", "320x180",
                           "--deck", "procedural:5", "--out", str(out))
        assert code == 0, err
        assert "wrote" in err
    meta = files.read_meta(outs[0] / files.META)
    assert (meta["scenario"], meta["seed"], meta["deck"], meta["size"], meta["fps"]) == \
        ("race-1f", 3, "procedural:5", [320, 180], "30")
    for name in (files.EVENTS, files.FRAMES, files.CALIBRATION):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    info, _ = probe_video(outs[0] / files.VIDEO)
    assert (info.frames, info.size, info.fps) == (meta["frames"], (320, 180), 30.0)
    frames = files.read_frames(outs[0] / files.FRAMES)
    assert len(frames) == meta["frames"]
    events = files.read_events(outs[0] / files.EVENTS)
    assert all(e.frame == files.frame_of(e.t, 30) for e in events)  # type: ignore[arg-type]
    assert [f["code"] for f in meta["faults"]] == ["F_LOST_TOUCH"]
    assert files.read_calibration(outs[0] / files.CALIBRATION).image_size == (320, 180)


@pytest.mark.parametrize("args, where", [
    (["--size", "1280x721"], "--size"),
    (["--size", "big"], "--size"),
    (["--fps", "0"], "--fps"),
    (["--scenario", "nope"], "--scenario"),
    (["--deck", "no-such-deck-folder"], "--deck"),
])
def test_simulate_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], where: str) -> None:
    code, out, err = run("simulate", "--seed", "1", "--scenario", "exchange", *args,
                         "--out", str(tmp_path / "o"))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("spit-referee: error:") and where in err
    assert not (tmp_path / "o" / files.VIDEO).exists()


def test_simulate_bad_deck_folder_names_the_missing_face(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    folder = tmp_path / "deck"
    folder.mkdir()
    cv2.imwrite(str(folder / "QH.png"), np.full((88, 63, 3), 255, np.uint8))
    code, _, err = run("simulate", "--scenario", "exchange", "--deck", str(folder),
                       "--out", str(tmp_path / "o"))
    assert code == 2 and "--deck" in err and "missing face image" in err


def test_simulate_the_start_of_a_whole_game(tmp_path: Path) -> None:
    code, _, err = run("simulate", "--seed", "2", "--seconds", "2.5", "--size", "256x144",
                       "--out", str(tmp_path / "game"))
    assert code == 0, err
    meta = files.read_meta(tmp_path / "game" / files.META)
    assert (meta["scenario"], meta["frames"]) == ("selfplay", 75)
    events = files.read_events(tmp_path / "game" / files.EVENTS)
    assert events and max(e.t for e in events) <= 2.5
    assert len(files.read_frames(tmp_path / "game" / files.FRAMES)) == 75


def test_simulate_unwritable_out(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, _, err = run("simulate", "--scenario", "exchange", "--out", str(blocker / "clip"))
    assert code == 2 and "--out" in err and "cannot write" in err
    code, _, err = run("simulate", "--scenario", "exchange")
    assert code == 2 and "--out" in err


def test_dataset_labels_crops_split_and_determinism(tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        code, _, err = run("dataset", "--count", "10", "--seed", "2", "--size", "480x270",
                           "--out", str(out))
        assert code == 0, err
    data = yaml.safe_load((outs[0] / "data.yaml").read_text())
    assert data["nc"] == 54 and data["names"][11] == "QS" and data["names"][52] == "back"
    assert data["names"][53] == "hand" and all(str(n).isascii() for n in data["names"].values())
    summary = json.loads((outs[0] / "dataset.json").read_text())
    assert (summary["train"], summary["val"]) == (8, 2)
    images = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*.jpg"))
    assert len(list((outs[0] / "images" / "val").iterdir())) == 2
    for rel in images + sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*.txt")):
        assert (outs[0] / rel).read_bytes() == (outs[1] / rel).read_bytes(), rel
    classes = set()
    for label in (outs[0] / "labels").rglob("*.txt"):
        for line in label.read_text().splitlines():
            cls, *box = line.split()
            classes.add(int(cls))
            assert all(0 <= float(v) <= 1 for v in box)
    assert 52 in classes and 53 in classes and any(c < 52 for c in classes)
    assert any((outs[0] / "crops" / "train").iterdir())


def test_dataset_bad_input(tmp_path: Path) -> None:
    code, _, err = run("dataset", "--count", "2", "--size", "10x10", "--out", str(tmp_path / "d"))
    assert code == 2 and "--size" in err
    code, _, err = run("dataset", "--count", "0", "--out", str(tmp_path / "d"))
    assert code == 2
