"""``spit-referee detect``, ``train`` and ``evaluate-recognition`` from the command line.

The model is a tiny real ONNX graph with fixed outputs (tests/vision/card_model.py), so these
run without torch and check the plumbing: JSON lines, annotation, errors, the report.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.vision.recognize import DEFAULT_MODEL, DET_BACK, DET_CARD, DET_INDEX

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

#: a face-up card with its index (the photos are light, so the classifier reads it as QH) and a back
SCENE = [(DET_CARD, 160, 100, 100, 140, 0.9), (DET_INDEX, 125, 45, 20, 30, 0.8),
         (DET_BACK, 40, 60, 50, 70, 0.85)]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", SCENE)


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), np.full((640, 640, 3), 200, np.uint8))
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_detect_prints_one_json_line_per_image(model: Path, photo: Path, tmp_path: Path) -> None:
    code, out, err = run("detect", "--json", "--model", str(model), "--annotate", str(tmp_path / "ann"),
                         str(photo), str(photo))
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 2 and lines[0]["image"] == str(photo)
    cards = {c["card"]: c for c in lines[0]["cards"]}
    assert set(cards) == {"QH", "back"}
    assert cards["QH"]["box"] == [220.0, 60.0, 420.0, 340.0]
    assert cards["QH"]["confidence"] == pytest.approx(0.9 * 0.9967, abs=1e-3)  # card x index
    assert cv2.imread(str(tmp_path / "ann" / "table.jpg")).shape == (640, 640, 3)


def test_detect_plain_text(model: Path, photo: Path) -> None:
    code, out, _ = run("detect", "--model", str(model), str(photo))
    assert code == 0 and out.strip() == f"{photo}: 2 cards: QH 0.90, back 0.85"


@pytest.mark.parametrize(("make", "error"), [
    (lambda d: d / "absent.onnx", "no card model at .*absent.onnx: train one with spit-referee train, "
                                  "see models/MODEL_CARD.md"),
    (lambda d: (d / "bad.onnx").write_bytes(b"garbage") and d / "bad.onnx", "bad.onnx: not a readable ONNX"),
])
def test_detect_without_a_usable_model(tmp_path: Path, photo: Path, make: Callable[[Path], Path],
                                       error: str) -> None:
    code, out, err = run("detect", "--model", str(make(tmp_path)), str(photo))
    assert code == 2 and out == ""
    assert err.startswith("spit-referee: error: ") and len(err.strip().splitlines()) == 1
    assert re.search(error, err)


@pytest.mark.skipif(DEFAULT_MODEL.is_file(), reason="a model is shipped in models/")
def test_detect_says_no_model_is_shipped_yet(photo: Path) -> None:
    code, _, err = run("detect", str(photo))
    assert code == 2 and "no card model at" in err and "models/cards.onnx" in err
    assert "spit-referee train" in err


@pytest.mark.parametrize(("content", "error"),
                         [(None, "no such image file"), (b"nope", "not a readable image")])
def test_detect_names_an_unreadable_image(model: Path, tmp_path: Path, content: bytes | None,
                                          error: str) -> None:
    path = tmp_path / "x.jpg"
    if content is not None:
        path.write_bytes(content)
    code, _, err = run("detect", "--model", str(model), str(path))
    assert code == 2 and f"{path}: {error}" in err


def test_train_with_a_bad_config(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("model:\n  arch: yolo11n.pt\n", encoding="utf-8")
    code, _, err = run("train", "--config", str(cfg))
    assert code == 2 and "model.arch: must be a model definition" in err


def test_train_without_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ultralytics", None)
    monkeypatch.setenv("SPIT_REFEREE_CACHE", str(tmp_path / "cache"))
    code, _, err = run("train", "--config", str(Path(__file__).parents[2] / "models" / "smoke.yaml"),
                       "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o"))
    assert code == 2 and 'pip install -e ".[train]"' in err


def test_evaluate_recognition_writes_a_report(model: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    edje, feliksh = data / "real-photos-edje" / "test", data / "real-faces-feliksh"
    edje.mkdir(parents=True)
    feliksh.mkdir()
    cv2.imwrite(str(edje / "a.jpg"), np.full((640, 640, 3), 200, np.uint8))
    (edje / "a.xml").write_text(
        "<annotation><object><name>queen</name><bndbox><xmin>220</xmin><ymin>60</ymin><xmax>420</xmax>"
        "<ymax>340</ymax></bndbox></object><object><name>nine</name><bndbox><xmin>500</xmin><ymin>500</ymin>"
        "<xmax>600</xmax><ymax>600</ymax></bndbox></object></annotation>", encoding="utf-8")
    cv2.imwrite(str(feliksh / "cr51.jpg"), np.full((640, 458, 3), 200, np.uint8))  # the queen of hearts
    report = tmp_path / "eval.json"
    code, out, err = run("evaluate-recognition", "--model", str(model), "--data", str(data),
                         "--sets", "edje,feliksh,speed", "--out", str(report))
    assert code == 0, err
    got = json.loads(report.read_text(encoding="utf-8"))
    assert got["edje"]["cards"] == 2 and got["edje"]["found"] == 1 and got["edje"]["accuracy_on_found"] == 1.0
    assert got["edje"]["recall"] == 0.5
    assert got["feliksh"]["zones"] == 1 and "photo_1280x720_ms" in got["speed"]
    assert "edje" in out and "50.0 %" in out


@pytest.mark.parametrize(("args", "error"), [
    (("--sets", "renders,moon"), "--sets: unknown set 'moon'"),
])
def test_evaluate_recognition_bad_options(model: Path, args: tuple[str, ...], error: str) -> None:
    code, _, err = run("evaluate-recognition", "--model", str(model), *args)
    assert code == 2 and error in err


def test_evaluate_recognition_names_a_bad_annotation(model: Path, tmp_path: Path) -> None:
    edje = tmp_path / "real-photos-edje"
    edje.mkdir()
    cv2.imwrite(str(edje / "a.jpg"), np.zeros((64, 64, 3), np.uint8))
    (edje / "a.xml").write_text("<annotation><object>", encoding="utf-8")
    code, _, err = run("evaluate-recognition", "--model", str(model), "--data", str(tmp_path),
                       "--sets", "edje", "--out", str(tmp_path / "r.json"))
    assert code == 2 and "a.xml: not a Pascal VOC file" in err
