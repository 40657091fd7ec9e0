"""Training recipe, labels and deck hold-out of referee/train.py (no torch needed, except where said)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
import yaml

from referee.errors import InputError, MissingPrerequisite
from referee.train import (
    FACE_VISIBLE,
    INDEX_H,
    INDEX_W,
    CardLabel,
    DataConfig,
    _deck_for,
    _import_ultralytics,
    _limits,
    card_labels,
    face_crops,
    frame_labels,
    index_crops,
    index_regions,
    load_config,
    parse_config,
    render_frames,
    tile_labels,
    train,
    write_dataset,
)
from referee.vision.recognize import CODES, DET_BACK, DET_CARD, DET_HAND, DET_INDEX, FACE_CROP, INDEX_CROP

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.mark.parametrize("name", ["train.yaml", "train-continue.yaml", "train-gpu.yaml", "train-coarse.yaml",
                                  "train-face.yaml", "smoke.yaml"])
def test_the_committed_configs_load(name: str) -> None:
    cfg = load_config(MODELS / name)
    assert cfg.model.arch == "yolo11n.yaml" and cfg.data.holdout_deck == "feliksh"
    assert cfg.eval.seed != cfg.seed
    assert cfg.model.augment.get("fliplr") == 0.0  # a mirrored index is not a card


@pytest.mark.parametrize(("raw", "error"), [
    ({"model": {"arch": "yolo11n.pt"}}, "model.arch: must be a model definition"),
    ({"model": {"imgsz": 100}}, "model.imgsz: must be a multiple of 32"),
    ({"model": {"epochs": "many"}}, "model.epochs: bad value 'many'"),
    ({"model": {"augment": {"blur": 1}}}, "unknown augmentation 'blur'"),
    ({"model": {"device": "tpu"}}, "model.device"),
    ({"data": {"images": 4}}, "data.images: must be at least 16"),
    ({"data": {"size": [1281, 720]}}, "data.size: sides must be even"),
    ({"data": {"size": [1280]}}, "data.size: bad value"),
    ({"data": {"holdout_deck": "tarot"}}, "unknown deck 'tarot'"),
    ({"data": {"val_fraction": 0.9}}, "data.val_fraction"),
    ({"data": {"index_min_scale": 0.1}}, "data.index_min_scale: must lie in"),
    ({"data": {"index_min_scale": 1.5}}, "data.index_min_scale: must lie in"),
    ({"data": {"colour": "red"}}, "unknown key 'colour'"),
    ({"epochs": 3}, "unknown key 'epochs'"),
    ({"eval": {"seed": 0}}, "eval.seed: must differ from seed"),
    ({"face": {"arch": "yolo11n.yaml"}}, "face.arch: must be a classifier definition"),
    ({"face": {"imgsz": 50}}, "face.imgsz: must be a multiple of 32"),
    ({"face": {"crops_per_frame": 0}}, "face.crops_per_frame: must be >= 1"),
    ({"face": {"size": 64}}, "face: unknown key 'size'"),
    ({"model": {"hours": -0.5}}, "model.hours: must be >= 0"),
    ({"face": {"hours": -1}}, "face.hours: must be >= 0"),
    ({"classifier": {"cache": "ram"}}, "classifier.cache: bad value 'ram'"),
    ({"name": "my model!"}, "name: must be ASCII"),
    ({"data": [1, 2]}, "data: must be a mapping"),
    ([1, 2], "must be a mapping of settings"),
])
def test_bad_configs_name_the_key(raw: object, error: str) -> None:
    with pytest.raises(InputError, match=error):
        parse_config(raw, "cfg.yaml")


def test_a_time_limit_and_the_image_cache_reach_ultralytics() -> None:
    cfg = parse_config({"model": {"hours": 0.05, "cache": True}, "face": {"hours": 0.01}})
    assert _limits(cfg.model) == {"time": 0.05, "cache": "ram"}
    assert _limits(cfg.face) == {"time": 0.01, "cache": False}
    assert _limits(cfg.classifier) == {"time": None, "cache": False}  # the epochs alone
    gpu = load_config(MODELS / "train-gpu.yaml")  # a lease of fixed length: every stage capped
    assert all(s.hours > 0 and s.cache for s in (gpu.model, gpu.classifier, gpu.face))


@pytest.fixture()
def lease() -> object:
    """scripts/train_gpu_lease.py as a module."""
    script = MODELS.parent / "scripts" / "train_gpu_lease.py"
    spec = importlib.util.spec_from_file_location("train_gpu_lease", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lease_script_reads_the_results_table_without_polars(lease: Any, tmp_path: Path) -> None:
    table = tmp_path / "results.csv"
    table.write_text("epoch,time,train/box_loss\n1,20.5,1.25\n2,39.0,1.1\n", encoding="utf-8")
    columns = lease._read_results_csv(SimpleNamespace(csv=table))
    assert columns["epoch"] == [1.0, 2.0] and columns["train/box_loss"] == [1.25, 1.1]
    assert lease._read_results_csv(SimpleNamespace(csv=tmp_path / "none.csv")) == {}


@pytest.mark.parametrize(("args", "error"), [
    (["--budget", "0"], "--budget: must be > 0"),
    (["--budget", "60", "--config", "missing.yaml"], "--config: missing.yaml: no such config file"),
    (["--budget", "60", "--stages", "detector,colour"], "--stages: unknown stage 'colour'"),
    (["--budget", "60", "--models", "nowhere"], "--models: no cards.pt in nowhere"),
])
def test_the_lease_script_names_a_bad_argument(lease: Any, tmp_path: Path, args: list[str], error: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        lease.main([*args, "--out", str(tmp_path / "out"), "--work", str(tmp_path / "work")])
    assert exit_.value.code == 2 and error in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing written before the arguments are checked


def test_config_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such config file"):
        load_config(tmp_path / "absent.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("model: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match="broken.yaml: not valid YAML"):
        load_config(broken)


def test_partial_configs_take_the_defaults() -> None:
    cfg = parse_config({"seed": 3, "model": {"epochs": 5}})
    assert cfg.seed == 3 and cfg.model.epochs == 5 and cfg.model.imgsz == 960
    assert cfg.data == DataConfig()
    # the face classifier's own defaults (not the index classifier's), also under a partial section
    assert (cfg.face.imgsz, cfg.face.crops_per_frame) == (FACE_CROP, 6)
    face = parse_config({"face": {"epochs": 3}}).face
    assert (face.epochs, face.crops_per_frame, face.batch) == (3, 6, 128)


def _card(code: str, quad: list[list[float]], face_up: bool = True, visible: float = 1.0) -> SimpleNamespace:
    return SimpleNamespace(card=code, face_up=face_up, quad=np.array(quad, np.float32), visible=visible)


def _quad(x: float, y: float, w: float = 63, h: float = 88) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def test_index_regions_sit_in_opposite_corners() -> None:
    tl, br = index_regions(np.array(_quad(100, 200, 100, 200), np.float32))
    x1, y1 = 100 + 100 * INDEX_W, 200 + 200 * INDEX_H
    np.testing.assert_allclose(tl, [[100, 200], [x1, 200], [x1, y1], [100, y1]], atol=1e-3)
    np.testing.assert_allclose(br[2], [200, 400], atol=1e-3)


def test_labels_cover_indices_cards_backs_and_hands() -> None:
    size = (640, 480)
    under = _card("QH", _quad(100, 100), visible=0.5)
    # drawn later: covers QH's bottom-right index, leaves its top-left one
    over = _card("7C", _quad(140, 160))
    back = _card("KS", _quad(400, 100), face_up=False)
    hidden = _card("2D", _quad(400, 300), visible=0.0)
    hand = SimpleNamespace(owner="A", outline=np.array(_quad(390, 290, 90, 110), np.float32))
    truth = SimpleNamespace(cards=(under, over, back, hidden), hands=(hand,))
    cards = card_labels(truth, size, index_visible=0.6)
    readable = {c.code: len(c.indices) for c in cards}
    assert readable == {"QH": 1, "7C": 2, None: 0, "2D": 0}  # one covered by 7C; a back; under a hand
    labels = frame_labels(truth, size, index_visible=0.6)
    classes = [c for c, *_ in labels]
    assert classes.count(DET_INDEX) == 3
    assert classes.count(DET_CARD) == 2 and classes.count(DET_BACK) == 1 and classes.count(DET_HAND) == 1
    w, h = size
    qh = next(c for c in cards if c.code == "QH").indices[0]
    assert qh[0] * w == pytest.approx(100 + 63 * INDEX_W / 2, abs=0.5)  # the top-left one
    for _c, cx, cy, bw, bh in labels:
        assert 0 <= cx - bw / 2 and cx + bw / 2 <= 1 and 0 <= cy - bh / 2 and cy + bh / 2 <= 1


def test_cards_off_the_image_are_clipped_or_dropped() -> None:
    truth = SimpleNamespace(cards=(_card("AS", _quad(-50, 10)), _card("3S", _quad(-200, 10))), hands=())
    labels = frame_labels(truth, (320, 240), 0.6)
    assert [c for c, *_ in labels] == [DET_INDEX, DET_CARD]  # only the right-hand index is inside
    assert labels[1][1] - labels[1][3] / 2 == pytest.approx(0)


@pytest.mark.parametrize(("drawn", "holdout", "expected"), [
    ("kenney", False, "kenney"),
    ("procedural:12", False, "procedural:12"),
    ("feliksh", False, "procedural:"),
    ("procedural:450", False, "procedural:"),
    ("kenney", True, "feliksh"),
])
def test_the_holdout_deck_never_reaches_training(drawn: str, holdout: bool, expected: str) -> None:
    deck = _deck_for(drawn, 0, 5, DataConfig(), holdout)
    assert deck.startswith(expected)
    if expected == "procedural:":
        assert int(deck.split(":")[1]) < DataConfig().procedural_max
        assert deck == _deck_for(drawn, 0, 5, DataConfig(), holdout)  # fixed by seed and group


def test_a_small_dataset_is_written_and_reused(tmp_path: Path) -> None:
    cfg = parse_config({"seed": 0, "data": {"images": 16, "size": [320, 180], "val_fraction": 0.25}})
    summary = write_dataset(cfg, tmp_path / "ds")
    assert summary["images"] == 16 and summary["val"] == 4
    assert "feliksh" not in summary["decks"]
    assert len(list((tmp_path / "ds" / "images" / "val").glob("*.jpg"))) == 4
    data = yaml.safe_load((tmp_path / "ds" / "data.yaml").read_text(encoding="utf-8"))
    assert data["nc"] == 4 and data["names"][1] == "card" and Path(data["path"]).is_absolute()
    crops = sorted((tmp_path / "ds" / "index" / "train").glob("*/*.jpg"))
    assert crops and {p.parent.name for p in crops} <= set(CODES)
    assert cv2.imread(str(crops[0])).shape == (INDEX_CROP, INDEX_CROP, 3)
    assert sum(summary["per_class"][f"index:{c}"] for c in CODES) == len(
        list((tmp_path / "ds" / "index").glob("*/*/*.jpg")))
    faces = sorted((tmp_path / "ds" / "face").glob("*/*/*.jpg"))
    assert faces and sum(summary["per_class"][f"face:{c}"] for c in CODES) == len(faces)
    assert cv2.imread(str(faces[0])).shape == (FACE_CROP, FACE_CROP, 3)
    labels = (tmp_path / "ds" / "labels" / "train" / "000000.txt").read_text(encoding="ascii")
    first = (tmp_path / "ds" / "images" / "train" / "000000.jpg").stat().st_mtime_ns
    assert write_dataset(cfg, tmp_path / "ds")["render_s"] == summary["render_s"]  # up to date: kept
    assert (tmp_path / "ds" / "images" / "train" / "000000.jpg").stat().st_mtime_ns == first
    assert (tmp_path / "ds" / "labels" / "train" / "000000.txt").read_text(encoding="ascii") == labels


def test_the_continued_recipe_reuses_the_first_stages_dataset() -> None:
    first, second = load_config(MODELS / "train.yaml"), load_config(MODELS / "train-continue.yaml")
    assert (first.seed, first.data) == (second.seed, second.data)  # the dataset key: nothing re-rendered
    assert second.classifier.augment["lr0"] < first.classifier.augment["lr0"]


@pytest.mark.parametrize(("stages", "kwargs", "error"), [
    (("classifier", "detector"), {"start_from": "x.pt"}, "exactly one --stage"),
    (("classifier",), {"start_from": "x.pt", "from_weights": "y.pt"}, "no --from-weights"),
    (("classifier",), {"start_from": "missing.pt"}, "no such weights file"),
    (("detector", "detector"), {"from_weights": "y.pt"}, "exactly one --stage"),
    (("classify",), {}, "unknown stage 'classify'"),
])
def test_bad_stage_arguments_fail_before_any_work(tmp_path: Path, stages: tuple[str, ...],
                                                  kwargs: dict[str, str], error: str) -> None:
    for name in ("x.pt", "y.pt"):
        (tmp_path / name).write_bytes(b"weights")
    args = {k: str(tmp_path / v) for k, v in kwargs.items()}
    with pytest.raises(InputError, match=error):
        train(parse_config({}), out=tmp_path / "out", work=tmp_path / "work", stages=stages, **args)
    assert not (tmp_path / "work").exists() and not (tmp_path / "out").exists()


def test_holdout_renders_use_the_holdout_deck() -> None:
    data = DataConfig(size=(320, 180))
    assert {deck for *_, deck in render_frames(1000, 2, data, holdout=True)} == {"feliksh"}


def test_training_without_the_extra_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingPrerequisite, match=r'pip install -e "\.\[train\]"'):
        _import_ultralytics()


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None,
                    reason='needs the [train] extra: pip install -e ".[train]"')
def test_with_the_extra_ultralytics_imports() -> None:
    assert _import_ultralytics().__version__


def test_tiles_keep_whole_indices_and_most_of_a_card() -> None:
    size = (1000, 500)
    labels = [(DET_CARD, 0.1, 0.2, 0.1, 0.2),  # x 50..150, y 50..150
              (DET_INDEX, 0.06, 0.13, 0.02, 0.06),  # x 50..70, y 50..80
              (DET_INDEX, 0.145, 0.27, 0.01, 0.06)]  # x 140..150: cut by the tile
    got = tile_labels(labels, size, (0, 0, 145))
    assert [c for c, *_ in got] == [DET_CARD, DET_INDEX]
    np.testing.assert_allclose(got[1][1:], [60 / 145, 65 / 145, 20 / 145, 30 / 145], atol=1e-6)
    # too little of the card is inside; the 7C index is whole
    assert [(c, round(x * 200)) for c, x, *_ in tile_labels(labels, size, (120, 0, 200))] == [(DET_INDEX, 25)]


def test_a_tiled_dataset_has_tiles_per_frame(tmp_path: Path) -> None:
    cfg = parse_config({"seed": 0, "data": {"images": 16, "size": [320, 180], "val_fraction": 0.25,
                                            "tile": 96, "tiles_per_image": 2}})
    summary = write_dataset(cfg, tmp_path / "ds")
    assert summary["images"] == 32 and summary["frames"] == 16 and summary["val"] == 8
    tiles = sorted((tmp_path / "ds" / "images" / "train").glob("*.jpg"))
    assert len(tiles) == 24 and tiles[0].name == "000000-0.jpg"
    assert cv2.imread(str(tiles[0])).shape == (96, 96, 3)
    with pytest.raises(InputError, match="data.tile"):
        parse_config({"data": {"size": [320, 180], "tile": 200}})


def test_rendering_in_processes_writes_the_same_files(tmp_path: Path) -> None:
    # 2 jobs of 4 groups of 8 frames, the second one short
    cfg = parse_config({"seed": 2, "data": {"images": 44, "size": [128, 72], "val_fraction": 0.25}})
    one = write_dataset(cfg, tmp_path / "one", workers=1)
    two = write_dataset(cfg, tmp_path / "two", workers=2)
    assert one["per_class"] == two["per_class"] and one["decks"] == two["decks"]
    for sub in ("labels/train", "labels/val", "images/train"):
        names = sorted(p.name for p in (tmp_path / "one" / sub).iterdir())
        assert names == sorted(p.name for p in (tmp_path / "two" / sub).iterdir()) and names
        for name in names:
            a, b = tmp_path / "one" / sub / name, tmp_path / "two" / sub / name
            if sub.startswith("labels"):
                assert a.read_bytes() == b.read_bytes()
            else:  # pixels may differ by a rounding between processes (OpenCV), never more
                diff = cv2.imread(str(a)).astype(int) - cv2.imread(str(b)).astype(int)
                assert np.abs(diff).mean() < 0.5, name


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_index_crops_can_be_cut_as_a_coarser_camera_sees_them() -> None:
    # a fine checkerboard where an index lies: a coarser camera blurs it, at the crop's usual size
    image = np.full((180, 320, 3), 255, np.uint8)
    cells = (np.indices((40, 24)).sum(0) % 2 * 255).astype(np.uint8)
    image[40:80, 100:124] = cells[..., None]
    card = CardLabel("7C", None, ((112 / 320, 60 / 180, 24 / 320, 40 / 180),), 1.0, np.zeros((4, 2)))

    def cut(min_scale: float) -> np.ndarray:
        (code, crop), = index_crops(image, [card], (320, 180), 1, np.random.default_rng(3), min_scale)
        assert code == "7C" and crop.shape == (INDEX_CROP, INDEX_CROP, 3)
        return crop

    sharp = cut(1.0)
    (_, default), = index_crops(image, [card], (320, 180), 1, np.random.default_rng(3))
    np.testing.assert_array_equal(default, sharp)  # the default cuts as before
    coarse = cut(0.5)
    assert _sharpness(coarse) < 0.5 * _sharpness(sharp)
    # the same place: the blurred board still averages to the same grey where it lay
    assert abs(float(coarse.mean()) - float(sharp.mean())) < 10


@pytest.mark.parametrize("angle", [0.0, 30.0, 95.0, -140.0])
def test_face_crops_show_the_card_upright_and_filling_the_crop(angle: float) -> None:
    # a card, red above and blue below, turned by ``angle`` on a green table
    w, h = 40, 56
    face = np.zeros((h, w, 3), np.uint8)
    face[: h // 2] = (0, 0, 255)
    face[h // 2:] = (255, 0, 0)
    centre = np.array([160.0, 90.0])
    t = np.radians(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    quad = (np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) - (w / 2, h / 2)) @ rot.T + centre
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad.astype(np.float32))
    image = np.full((180, 320, 3), (0, 160, 0), np.uint8)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (320, 180)) > 127
    image[mask] = cv2.warpPerspective(face, m, (320, 180))[mask]
    card = CardLabel("7C", None, (), 1.0, quad.astype(np.float32))
    hidden = CardLabel("8C", None, (), FACE_VISIBLE - 0.1, quad.astype(np.float32))
    back = CardLabel(None, None, (), 1.0, quad.astype(np.float32))
    for seed in range(6):
        crops = face_crops(image, [hidden, back, card], 5, np.random.default_rng(seed))
        assert [code for code, _ in crops] == ["7C"]  # not the covered card, not the back
        crop = crops[0][1].astype(int)
        assert crop.shape == (FACE_CROP, FACE_CROP, 3)
        green = (crop[..., 1] > 100) & (crop[..., 0] < 100) & (crop[..., 2] < 100)
        assert green.mean() < 0.45  # the card fills the crop, askew by up to FACE_TILT_DEG (at 12: 0.4)
        mid = FACE_CROP // 2
        top = crop[4:mid - 8, mid - 6:mid + 6].mean((0, 1))
        bottom = crop[mid + 8:-4, mid - 6:mid + 6].mean((0, 1))
        red_top = top[2] > 150 and bottom[0] > 150  # upright ...
        blue_top = top[0] > 150 and bottom[2] > 150  # ... or upside down, never on its side
        assert red_top or blue_top, (top, bottom)
