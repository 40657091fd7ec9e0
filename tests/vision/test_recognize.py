"""The card recognition runtime: detections, letterbox, decoding, NMS, the model file's errors.

Models here are tiny real ONNX graphs (``card_model``): a detector with fixed outputs and a
corner-index classifier that reads bright crops as QH and dark ones as 7C, run by onnxruntime
like the trained ones; no torch is needed. The one test that exports a real
(untrained) ultralytics model is skipped when the ``[train]`` extra is not installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest
from card_model import build_card_model, build_index_model

from referee.errors import InputError, MissingPrerequisite
from referee.vision.recognize import (
    BACK,
    CARD,
    CODES,
    DET_BACK,
    DET_CARD,
    DET_HAND,
    DET_INDEX,
    DETECTOR_CLASSES,
    EMPTY,
    FACE_CROP,
    INDEX_CROP,
    Detections,
    Recognizer,
    annotate,
    assign,
    decode,
    face_crop,
    face_model_path,
    index_crop,
    index_model_path,
    join_face,
    letterbox,
    read_image,
)

QH, SEVEN_C = CODES.index("QH"), CODES.index("7C")

#: In 320x320 model-input pixels: a face-up card with an index in its top-left corner, a
#: weaker duplicate of the card (NMS drops it), a back, a hand, a lone index, and noise.
SCENE = [
    (DET_CARD, 160, 160, 100, 140, 0.9),
    (DET_INDEX, 125, 105, 20, 30, 0.8),
    (DET_CARD, 163, 158, 100, 140, 0.7),
    (DET_BACK, 40, 45, 50, 70, 0.85),
    (DET_HAND, 280, 280, 60, 60, 0.6),
    (DET_INDEX, 290, 60, 16, 24, 0.5),
    (DET_INDEX, 200, 300, 10, 10, 0.1),
]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("model") / "cards.onnx", SCENE)


@pytest.fixture(scope="module")
def rec(model_path: Path) -> Recognizer:
    return Recognizer(model_path, threads=1, scales=(1.0,))


def _lit(image: np.ndarray, box: list[float]) -> np.ndarray:
    """``image`` with a white square round ``box`` (each crop the classifier gets is bright)."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1) * 0.8  # over the largest of INDEX_PADS (1.4 x the box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    image[int(cy - side):int(cy + side), int(cx - side):int(cx + side)] = 255
    return image


def test_detect_maps_boxes_back_through_the_letterbox(rec: Recognizer) -> None:
    # 1280x720 into 320x192 (the short side rounded up to the stride): scale 0.25, 6 px of grey
    # above and below
    # the card's index (model input 115..135 x 90..120) is bright in the photo: QH; the lone
    # index is dark: 7C
    found = rec.detect(_lit(np.zeros((720, 1280, 3), np.uint8), [460, 336, 540, 456]))
    by_label = {str(lab): (box, conf) for lab, box, conf in zip(found.label, found.xyxy, found.confidence,
                                                                 strict=True)}
    assert sorted(by_label) == ["7C", "QH", "back", "hand"]
    box, conf = by_label["QH"]
    np.testing.assert_allclose(box, [440, 336, 840, 720], atol=1e-3)  # clipped at the bottom
    assert conf == pytest.approx(0.9, abs=1e-3)  # the card x the classifier, sure of a white crop (p ~ 1)
    np.testing.assert_allclose(by_label["back"][0], [60, 16, 260, 296], atol=1e-3)
    np.testing.assert_allclose(by_label["7C"][0], [1128, 168, 1192, 264], atol=1e-3)
    assert np.all(found.image_index == 0)
    assert set(found[found.is_card].label) == {"QH", "7C"}


def test_detect_batch_numbers_the_images(rec: Recognizer) -> None:
    small = _lit(np.zeros((320, 320, 3), np.uint8), [115, 90, 135, 120])
    large = _lit(np.zeros((640, 640), np.uint8), [230, 180, 270, 240])
    found = rec.detect_batch([small, large])
    assert sorted(set(found.image_index.tolist())) == [0, 1]
    qh = found[found.label == "QH"]
    np.testing.assert_allclose(qh.xyxy[0], [110, 90, 210, 230], atol=1e-3)
    np.testing.assert_allclose(qh.xyxy[1], [220, 180, 420, 460], atol=1e-3)


def test_recognize_zones_gives_one_row_per_crop(tmp_path: Path) -> None:
    zone = build_card_model(tmp_path / "zone.onnx",
                            [(DET_CARD, 80, 80, 70, 100, 0.9), (DET_INDEX, 55, 45, 14, 20, 0.95)], imgsz=160)
    # the index is read from the crop itself (189x264 into 160: x 0.606, 22 px of grey left
    # and right, so the index is at x 43..66, y 58..91 of the crop), bright in even crops
    crops = [np.zeros((264, 189, 3), np.uint8) for _ in range(12)]
    for crop in crops[::2]:
        _lit(crop, [43, 58, 66, 91])
    rows = Recognizer(zone, threads=1).recognize_zones(crops)
    assert len(rows) == 12 and rows.image_index.tolist() == list(range(12))
    assert rows.label.tolist() == ["QH", "7C"] * 6
    blank = build_card_model(tmp_path / "blank.onnx", [(DET_CARD, 80, 80, 70, 100, 0.1)], imgsz=160)
    rows = Recognizer(blank, threads=1).recognize_zones(crops[:3])
    assert rows.label.tolist() == ["empty"] * 3 and np.all(rows.class_id == EMPTY)
    np.testing.assert_allclose(rows.xyxy[0], [0, 0, 189, 264])
    back = build_card_model(tmp_path / "back.onnx",
                            [(DET_BACK, 80, 80, 70, 100, 0.7), (DET_HAND, 80, 80, 150, 150, 0.9)], imgsz=160)
    assert Recognizer(back, threads=1).recognize_zones(crops[:1]).label.tolist() == ["back"]
    assert len(Recognizer(back, threads=1).recognize_zones([])) == 0


def test_a_zone_s_runner_up_is_the_identity_read_next_most_surely(tmp_path: Path) -> None:
    # a card with both corner indices found: the surer one is bright (QH), the other dark (7C)
    two = build_card_model(tmp_path / "two.onnx", [(DET_CARD, 80, 80, 70, 100, 0.9),
                                                   (DET_INDEX, 55, 45, 14, 20, 0.95),
                                                   (DET_INDEX, 105, 115, 14, 20, 0.6)], imgsz=160)
    crop = _lit(np.zeros((264, 189, 3), np.uint8), [43, 58, 66, 91])
    row = Recognizer(two, threads=1).recognize_zones([crop])
    assert row.label.tolist() == ["QH"] and row.runner_up.tolist() == [SEVEN_C]
    # each: the whole card found (0.9) x its index's reading (both sure)
    assert row.confidence[0] == pytest.approx(0.9, abs=0.01)
    assert row.runner_up_confidence[0] == pytest.approx(0.9, abs=0.01)
    # one index: the runner-up is that crop's second class, read hardly at all
    one = build_card_model(tmp_path / "one.onnx",
                           [(DET_CARD, 80, 80, 70, 100, 0.9), (DET_INDEX, 55, 45, 14, 20, 0.95)], imgsz=160)
    row = Recognizer(one, threads=1).recognize_zones([crop])
    assert row.label.tolist() == ["QH"] and row.runner_up[0] not in (-1, QH)
    assert row.runner_up_confidence[0] < 0.05
    # no identity, no runner-up
    back = build_card_model(tmp_path / "back.onnx", [(DET_BACK, 80, 80, 70, 100, 0.7)], imgsz=160)
    row = Recognizer(back, threads=1).recognize_zones([crop])
    assert row.label.tolist() == ["back"] and row.runner_up.tolist() == [-1]
    assert row.runner_up_confidence.tolist() == [0.0]


def test_of_a_zone_s_two_likeliest_identities_the_one_reported_surer_names_it(tmp_path: Path) -> None:
    # the surer index (0.95) is read as QH only fairly (a grey crop), the other (0.6) as 7C
    # surely: ranked by index score x reading QH leads (0.95 x ~0.85 > 0.6 x 1.0), but the card
    # (0.9) x each reading puts 7C above QH, and that is what is reported: 7C names it
    two = build_card_model(tmp_path / "two.onnx", [(DET_CARD, 80, 80, 70, 100, 0.9),
                                                   (DET_INDEX, 55, 45, 14, 20, 0.95),
                                                   (DET_INDEX, 105, 115, 14, 20, 0.6)], imgsz=160)
    crop = _lit(np.zeros((264, 189, 3), np.uint8), [43, 58, 66, 91])
    crop[crop == 255] = 150
    row = Recognizer(two, threads=1).recognize_zones([crop])
    assert row.label.tolist() == ["7C"] and row.runner_up.tolist() == [QH]
    assert row.confidence[0] == pytest.approx(0.9, abs=0.01)
    assert 0.5 < row.runner_up_confidence[0] < row.confidence[0] - 0.05


def test_a_fixed_size_model_is_run_at_its_own_size(tmp_path: Path) -> None:
    fixed = Recognizer(build_card_model(tmp_path / "fixed.onnx", SCENE, imgsz=320, fixed=True), threads=1)
    assert fixed.fixed_input and fixed.imgsz == (320, 320)
    # 1280x720 into 320x320: scale 0.25, 70 px of grey above and below
    back = fixed.detect(np.zeros((720, 1280, 3), np.uint8))
    np.testing.assert_allclose(back[back.label == "back"].xyxy[0], [60, 0, 260, 40], atol=1e-3)
    assert fixed.recognize_zones([np.zeros((264, 189, 3), np.uint8)] * 2).label.tolist() == ["7C"] * 2


def test_letterbox_keeps_aspect_and_centres() -> None:
    image = np.full((100, 200, 3), 255, np.uint8)
    boxed, lb = letterbox(image, (320, 320))
    assert boxed.shape == (320, 320, 3) and lb.scale == 1.6 and (lb.pad_x, lb.pad_y) == (0, 80)
    assert boxed[79, 160].tolist() == [114] * 3 and boxed[80, 160].tolist() == [255] * 3
    np.testing.assert_allclose(lb.to_image(np.array([[0, 80, 320, 240]], np.float32)), [[0, 0, 200, 100]])


def _raw(*preds: tuple[int, float, float, float, float, float]) -> np.ndarray:
    out = np.zeros((4 + len(DETECTOR_CLASSES), len(preds)), np.float32)
    for k, (cls, cx, cy, w, h, score) in enumerate(preds):
        out[:4, k] = cx, cy, w, h
        out[4 + cls, k] = score
    return out


def test_nms_suppresses_within_a_group_only() -> None:
    raw = _raw((DET_CARD, 50, 50, 40, 60, 0.9), (DET_BACK, 52, 50, 40, 60, 0.8),  # one whole card, twice
               (DET_INDEX, 40, 30, 10, 15, 0.7), (DET_INDEX, 41, 30, 10, 15, 0.6),  # one index, twice
               (DET_HAND, 50, 50, 40, 60, 0.5))  # a hand over the card survives
    xyxy, scores, cls = decode(raw, conf=0.25, iou=0.5)
    assert cls.tolist() == [DET_CARD, DET_INDEX, DET_HAND]
    np.testing.assert_allclose(xyxy[0], [30, 20, 70, 80])
    assert decode(_raw((DET_CARD, 5, 5, 4, 4, 0.2)), 0.25, 0.5)[0].shape == (0, 4)


def test_assign_gives_each_index_to_one_card() -> None:
    xyxy = np.array([[0, 0, 100, 140], [10, 10, 90, 130], [5, 5, 25, 35], [300, 0, 320, 30]], np.float32)
    scores = np.array([0.9, 0.8, 0.7, 0.6], np.float32)
    cls = np.array([DET_CARD, DET_CARD, DET_INDEX, DET_INDEX])
    codes = np.array([0, 0, QH, SEVEN_C])
    probs = np.array([0, 0, 0.5, 0.9], np.float32)
    boxes, conf, ids, lone = assign(xyxy, scores, cls, codes, probs)
    assert ids.tolist() == [QH, CARD, SEVEN_C] and lone.tolist() == [False, False, True]
    np.testing.assert_allclose(conf, [0.9 * 0.5, 0.8, 0.6 * 0.9], rtol=1e-6)


def test_decode_rejects_an_output_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="model output"):
        decode(np.zeros((10, 5), np.float32), 0.25, 0.5)


@pytest.mark.parametrize(("change", "error"), [
    ({"xyxy": np.zeros((2, 3), np.float32)}, "xyxy must be"),
    ({"confidence": np.array([0.5], np.float32)}, "confidence must be"),
    ({"confidence": np.array([0.5, 1.5], np.float32)}, r"lie in \[0, 1\]"),
    ({"xyxy": np.array([[0, 0, 1, 1], [5, 0, 1, 1]], np.float32)}, "x2 >= x1"),
    ({"xyxy": np.array([[0, 0, 1, np.nan], [0, 0, 1, 1]], np.float32)}, "NaN"),
    ({"class_id": np.array([0, 99])}, "class_id must lie"),
    ({"label": np.array(["QH"])}, "label must be"),
    ({"runner_up": np.array([0, 52])}, "runner_up must lie"),
    ({"runner_up_confidence": np.array([0.5], np.float32)}, "runner_up_confidence must be"),
])
def test_detections_are_checked_when_built(change: dict[str, np.ndarray], error: str) -> None:
    good = Detections.build([[0, 0, 10, 10], [5, 5, 20, 20]], [0.9, 0.4], [QH, BACK])
    fields = {k: getattr(good, k) for k in ("xyxy", "confidence", "class_id", "label", "image_index",
                                            "runner_up", "runner_up_confidence")}
    with pytest.raises(ValueError, match=error):
        Detections(**(fields | change))


def test_detections_filter_with_masks_and_serialise() -> None:
    found = Detections.build([[0, 0, 10, 10], [5, 5, 20, 20], [1, 1, 2, 2]], [0.9, 0.4, 0.8],
                             [QH, BACK, EMPTY])
    assert found.label.tolist() == ["QH", "back", "empty"]
    strong = found[found.confidence > 0.5]
    assert len(strong) == 2 and strong.label.tolist() == ["QH", "empty"]
    assert found[found.is_card].cards_json() == [{"card": "QH", "confidence": 0.9, "box": [0, 0, 10, 10]}]
    assert len(found[1]) == 1 and len(Detections.empty()) == 0


def test_a_missing_model_says_how_to_get_one(tmp_path: Path) -> None:
    with pytest.raises(MissingPrerequisite, match=r"no card model at .*nothing.onnx: train one with "
                                                  r"spit-referee train, see models/MODEL_CARD.md"):
        Recognizer(tmp_path / "nothing.onnx")


@pytest.mark.parametrize(("content", "error"), [
    (b"not an onnx model at all", "not a readable ONNX model"),
    (b"", "not a readable ONNX model"),
])
def test_a_corrupt_model_is_named(tmp_path: Path, content: bytes, error: str) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(content)
    with pytest.raises(InputError, match=error) as info:
        Recognizer(bad)
    assert str(bad) in str(info.value)


def test_a_truncated_model_is_named(tmp_path: Path, model_path: Path) -> None:
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(model_path.read_bytes()[:200])
    with pytest.raises(InputError, match="cut.onnx"):
        Recognizer(cut)


def test_a_model_of_other_classes_is_refused(tmp_path: Path) -> None:
    coco = build_card_model(tmp_path / "coco.onnx", [], names=[f"thing{i}" for i in range(80)])
    with pytest.raises(InputError, match="not a card detector of this version"):
        Recognizer(coco)
    detector = build_card_model(tmp_path / "cards.onnx", [], index=False)
    with pytest.raises(MissingPrerequisite, match="cards-index.onnx"):
        Recognizer(detector)
    build_index_model(index_model_path(detector), names=[f"c{i}" for i in range(52)])
    with pytest.raises(InputError, match="cards-index.onnx: not a corner-index classifier"):
        Recognizer(detector)


def test_bad_settings_and_images(rec: Recognizer, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="conf"):
        Recognizer(tmp_path / "x.onnx", conf=1.5)
    with pytest.raises(ValueError, match="BGR uint8"):
        rec.detect(np.zeros((10, 10, 3), np.float32))
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    with pytest.raises(InputError, match="broken.jpg: not a readable image"):
        read_image(tmp_path / "broken.jpg")
    with pytest.raises(InputError, match="no such image file"):
        read_image(tmp_path / "absent.jpg")


def test_annotate_draws_without_touching_the_input(rec: Recognizer) -> None:
    image = np.zeros((720, 1280, 3), np.uint8)
    drawn = annotate(image, rec.detect(image))
    assert not image.any() and drawn.any() and drawn.shape == image.shape
    assert cv2.imencode(".jpg", drawn)[0]


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None,
                    reason='needs the [train] extra: pip install -e ".[train]"')
def test_an_exported_ultralytics_model_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real export path (untrained yolo11n with our classes) gives what the runtime expects."""
    monkeypatch.setenv("YOLO_OFFLINE", "1")
    for var in ("YOLO_CONFIG_DIR", "XDG_CACHE_HOME", "MPLCONFIGDIR"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    yolo = YOLO("yolo11n.yaml", task="detect")
    yolo.model = DetectionModel("yolo11n.yaml", nc=len(DETECTOR_CLASSES), verbose=False)
    yolo.model.names = dict(enumerate(DETECTOR_CLASSES))
    yolo.model.task = "detect"
    yolo.model.args = {"imgsz": 128, "data": ""}
    yolo.model.pt_path = str(tmp_path / "cards.pt")
    path = Path(yolo.export(format="onnx", imgsz=128, dynamic=True, simplify=False, device="cpu", opset=17))
    from ultralytics.nn.tasks import ClassificationModel

    cls = YOLO("yolo11n-cls.yaml", task="classify")
    cls.model = ClassificationModel("yolo11n-cls.yaml", nc=len(CODES), verbose=False)
    cls.model.names = dict(enumerate(sorted(CODES)))
    cls.model.task = "classify"
    cls.model.args = {"imgsz": INDEX_CROP, "data": ""}
    cls.model.pt_path = str(tmp_path / "cls" / "cards-index.pt")
    (tmp_path / "cls").mkdir()
    exported = Path(cls.export(format="onnx", imgsz=INDEX_CROP, dynamic=True, simplify=False, device="cpu",
                               opset=17))
    exported.replace(index_model_path(path))
    real = Recognizer(path, threads=1)
    probs = real.index_probabilities([np.zeros((INDEX_CROP, INDEX_CROP, 3), np.uint8)] * 2)
    assert probs.shape == (2, len(CODES)) and np.all((probs >= 0) & (probs <= 1))
    np.testing.assert_allclose(probs.sum(1), 1, atol=1e-4)
    assert real.imgsz == (128, 128) and not real.fixed_input
    assert isinstance(real.detect(np.zeros((72, 128, 3), np.uint8)), Detections)
    assert len(real.recognize_zones([np.zeros((100, 70, 3), np.uint8)] * 3)) == 3


def test_index_crop_is_a_square_round_the_box() -> None:
    image = np.zeros((100, 200, 3), np.uint8)
    image[40:60, 90:100] = 255  # a 10 x 20 "index"
    crop = index_crop(image, np.array([90, 40, 100, 60], np.float32))
    assert crop.shape == (INDEX_CROP, INDEX_CROP, 3)
    # side 20 * 1.2 = 24 px -> 64: the index fills the middle 10/24 x 20/24 of the crop
    assert crop[32, 32].tolist() == [255] * 3 and crop[32, 10].tolist() == [0] * 3
    assert crop[2, 32].tolist() == [0] * 3
    edge = index_crop(image, np.array([0, 0, 10, 10], np.float32), 32)  # outside: the edge repeated
    assert edge.shape == (32, 32, 3) and not edge.any()


def test_an_index_is_read_at_each_pad_and_its_readings_joined(model_path: Path) -> None:
    # a bright 20 x 20 index on black: its crop at pad 1.0 is all bright (QH); at 1.4 (28 px)
    # half of the crop is black, and the fake classifier (softmax of the crop's mean) reads QH
    # far less surely
    image = np.zeros((100, 200, 3), np.uint8)
    image[40:60, 90:110] = 255
    box = np.array([90, 40, 110, 60], np.float32)
    one = {pad: Recognizer(model_path, threads=1, index_pads=(pad,)).read_indices([(image, box)])[0]
           for pad in (1.0, 1.2, 1.4)}
    assert one[1.0][QH] > 0.99 and one[1.4][QH] < 0.9
    three = Recognizer(model_path, threads=1).read_indices([(image, box), (image, box + 60)])
    assert three.shape == (2, len(CODES))
    joint = np.cbrt((one[1.0] + 1e-6) * (one[1.2] + 1e-6) * (one[1.4] + 1e-6))  # geometric mean
    np.testing.assert_allclose(three[0], joint / joint.sum(), atol=1e-3)  # the eps, added twice here
    assert one[1.4][QH] < three[0][QH] < one[1.0][QH]
    assert three[1].argmax() == SEVEN_C  # the second box, off the square: dark
    assert Recognizer(model_path, threads=1).read_indices([]).shape == (0, len(CODES))
    with pytest.raises(ValueError, match="index_pads"):
        Recognizer(model_path, index_pads=())


def test_whole_images_are_run_at_each_scale_and_merged(model_path: Path) -> None:
    """The fake model finds the same things at both scales (as a real one does for objects of
    a size it knows): merged, each is found once, where one scale finds it."""
    image = _lit(np.zeros((720, 1280, 3), np.uint8), [460, 336, 540, 456])
    one = Recognizer(model_path, threads=1, scales=(1.0,)).detect(image)
    two = Recognizer(model_path, threads=1, scales=(1.0, 0.5)).detect(image)
    assert sorted(two.label.tolist()) == sorted(one.label.tolist()) == ["7C", "QH", "back", "hand"]
    for label in one.label:
        np.testing.assert_allclose(two[two.label == label].xyxy, one[one.label == label].xyxy, atol=8)
    with pytest.raises(ValueError, match="scales"):
        Recognizer(model_path, scales=(1.5,))


def test_a_zone_s_card_is_read_by_its_index_and_its_face_joined(tmp_path: Path) -> None:
    # the index (0.95) is read as QH only fairly (a grey square); the card's face, mostly black,
    # is read as 7C surely by the face classifier: joined, 7C names the card
    detector = build_card_model(tmp_path / "cards.onnx", [(DET_CARD, 80, 80, 70, 100, 0.9),
                                                         (DET_INDEX, 55, 45, 14, 20, 0.95)], imgsz=160)
    crop = _lit(np.zeros((264, 189, 3), np.uint8), [43, 58, 66, 91])
    crop[crop == 255] = 150
    alone = Recognizer(detector, threads=1).recognize_zones([crop])  # no NAME-face.onnx: indices alone
    assert alone.label.tolist() == ["QH"] and alone.runner_up.tolist() == [SEVEN_C]
    build_index_model(face_model_path(detector), bright="KS", dark="7C", size=FACE_CROP)
    rec = Recognizer(detector, threads=1)  # found beside the detector
    assert rec.face_path == face_model_path(detector)
    row = rec.recognize_zones([crop])
    assert row.label.tolist() == ["7C"] and row.runner_up.tolist() == [QH]
    # the reported confidence: the card found (0.9) x the joined reading
    xyxy, _, cls = rec._locate([crop], (160, 160))[0]
    card, index = xyxy[cls == DET_CARD][0], xyxy[cls == DET_INDEX][0]
    face = rec.face_probabilities([(crop, card)])[0]
    assert face[SEVEN_C] > 0.99 and face_crop(crop, card).shape == (FACE_CROP, FACE_CROP, 3)
    read = Recognizer(detector, threads=1, face_path=False).read_indices([(crop, index)])
    assert row.confidence[0] == pytest.approx(0.9 * join_face(read, face)[0, SEVEN_C], abs=0.01)
    # weight 0, or no face classifier asked for: as the indices alone
    for other in (Recognizer(detector, threads=1, face_weight=0.0),
                  Recognizer(detector, threads=1, face_path=False)):
        assert other.recognize_zones([crop]).label.tolist() == ["QH"]
    # a back or an empty zone has no face to read
    back = build_card_model(tmp_path / "back.onnx", [(DET_BACK, 80, 80, 70, 100, 0.7)], imgsz=160)
    build_index_model(face_model_path(back), bright="KS", dark="7C", size=FACE_CROP)
    assert Recognizer(back, threads=1).recognize_zones([crop]).label.tolist() == ["back"]


def test_join_face_takes_the_rank_and_colour_of_the_face() -> None:
    def reading(**p: float) -> np.ndarray:
        out = np.full(len(CODES), 0.001, np.float32)
        for code, v in p.items():
            out[CODES.index(code.replace("_", ""))] = v
        return out

    # the index reads 5S nearly as surely as 6S; the face shows six black pips, and reads the
    # suit wrong (clubs): 6S, of the index's suit
    index = np.stack([reading(_6S=0.5, _5S=0.45), reading(_7C=0.9)])
    joined = join_face(index, reading(_6C=0.9), 0.5)
    np.testing.assert_allclose(joined.sum(1), 1.0, atol=1e-5)
    assert CODES[joined[0].argmax()] == "6S" and joined[0, CODES.index("6S")] > 0.8  # (5S: 0.06)
    assert CODES[joined[1].argmax()] == "7C"  # a sure index outweighs a face of another rank
    # each identity: (index)^(1-w) x (the mean of the face's reading of it and its twin)^w
    face = reading(_6C=0.9)
    face_rc = np.array([(face[CODES.index(c[:-1] + ("S" if c[-1] == "C" else "C" if c[-1] == "S"
                                                    else "D" if c[-1] == "H" else "H"))] + face[k]) / 2
                        for k, c in enumerate(CODES)])
    expected = np.sqrt((index + 1e-6) * (face_rc + 1e-6))
    np.testing.assert_allclose(joined, expected / expected.sum(1, keepdims=True), rtol=1e-3)
    # weight 0: the index alone
    np.testing.assert_allclose(join_face(index, face, 0.0), index / index.sum(1, keepdims=True), rtol=1e-3)


def test_a_bad_face_classifier_is_named(tmp_path: Path) -> None:
    detector = build_card_model(tmp_path / "cards.onnx", [])
    with pytest.raises(MissingPrerequisite, match="elsewhere.onnx"):
        Recognizer(detector, face_path=tmp_path / "elsewhere.onnx")  # asked for by name: must be there
    build_index_model(face_model_path(detector), names=[f"c{i}" for i in range(52)])
    with pytest.raises(InputError, match="cards-face.onnx: not a card-face classifier"):
        Recognizer(detector)
    face_model_path(detector).write_bytes(b"not an onnx model")
    with pytest.raises(InputError, match="cards-face.onnx: not a readable ONNX model"):
        Recognizer(detector)
    with pytest.raises(ValueError, match="face_weight"):
        Recognizer(detector, face_weight=1.5)
