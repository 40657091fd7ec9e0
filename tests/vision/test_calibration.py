"""Calibration from synthetic camera views with known homographies: accuracy, hidden
markers, mapping, rectifying, and the calibration file."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import yaml
from vision_synth import POSES, Pose, camera_view, mapping_error_mm

from referee.errors import InputError
from referee.vision.calibration import (
    Calibration,
    calibrate,
    load_calibration,
    save_calibration,
)
from referee.vision.mat import MatLayout, load_layout, render_mat

log = logging.getLogger(__name__)

# Every other marker (and the centre one), by a mix of cards and hands.
HALF_HIDDEN = (0, 3, 4, 6, 7, 9)
OTHER_HALF = (1, 2, 5, 8, 10)


@pytest.fixture(scope="module")
def overhead(layout: MatLayout) -> tuple[Calibration, np.ndarray, np.ndarray]:
    """A calibration from the overhead pose, the frame, and the true mat -> image map."""
    pose = POSES[0]
    truth = pose.homography(layout)
    frame = camera_view(layout, truth, blur_sigma=pose.blur_sigma, noise=pose.noise)
    cal, _ = calibrate([frame], layout, source="overhead")
    return cal, frame, truth


@pytest.mark.parametrize("pose", POSES, ids=[p.name for p in POSES])
def test_reprojection_error_under_1mm_over_the_whole_mat(layout: MatLayout, pose: Pose) -> None:
    truth = pose.homography(layout)
    frame = camera_view(layout, truth, blur_sigma=pose.blur_sigma, noise=pose.noise, seed=1)
    assert frame.shape == (720, 1280, 3)
    cal, det = calibrate([frame], layout)
    errors = mapping_error_mm(layout, truth, cal.image_to_mat)
    log.info("%s: %d markers, true error median %.3f max %.3f mm, reported rms %.3f mm",
             pose.name, len(det), np.median(errors), errors.max(), cal.quality.rms_mm)
    assert len(det) >= 8
    assert errors.max() < 1.0
    assert cal.quality.max_mm < 1.0


@pytest.mark.parametrize("pose", POSES[:4], ids=[p.name for p in POSES[:4]])
@pytest.mark.parametrize("hidden", [HALF_HIDDEN, OTHER_HALF], ids=["half", "other-half"])
def test_zones_right_with_half_the_markers_hidden(
    layout: MatLayout, pose: Pose, hidden: tuple[int, ...]
) -> None:
    truth = pose.homography(layout)
    frame = camera_view(layout, truth, hidden=hidden, blur_sigma=pose.blur_sigma, noise=pose.noise)
    cal, det = calibrate([frame], layout)
    assert not set(det.ids.tolist()) & set(hidden)
    for zone in layout.zones:
        true_poly = cv2.perspectiveTransform(zone.polygon().reshape(-1, 1, 2), truth)
        true_poly = true_poly.reshape(-1, 2)
        # every zone corner within 2 px of the truth, and in the right owner's order
        assert np.abs(cal.zone_polygon(zone.id) - true_poly).max() < 2.0, zone.id
        # and within 2 mm on the mat: under a third of the slot's 6.5 mm margin round a card
        error_mm = np.linalg.norm(cal.image_to_mat(true_poly) - zone.polygon(), axis=1)
        assert error_mm.max() < 2.0, zone.id


def test_averaging_frames_of_a_video(layout: MatLayout) -> None:
    pose = POSES[3]  # the oblique one, noisiest
    truth = pose.homography(layout)
    frames = [camera_view(layout, truth, blur_sigma=1.4, noise=8, seed=s) for s in range(6)]
    single, _ = calibrate(frames[:1], layout)
    averaged, _ = calibrate(frames, layout)
    err_single = mapping_error_mm(layout, truth, single.image_to_mat)
    err_avg = mapping_error_mm(layout, truth, averaged.image_to_mat)
    assert err_avg.max() < 1.0
    assert np.median(err_avg) <= np.median(err_single) * 1.1


@pytest.mark.parametrize(
    ("hidden", "message"),
    [
        (tuple(range(11)), "found 0 of the mat's 11 markers"),
        (tuple(range(2, 11)), "found 2 of the mat's 11 markers"),
    ],
)
def test_too_few_markers_is_a_clear_error(
    layout: MatLayout, hidden: tuple[int, ...], message: str
) -> None:
    frame = camera_view(layout, POSES[0].homography(layout), hidden=hidden)
    with pytest.raises(InputError, match=message) as caught:
        calibrate([frame], layout, source="table.png")
    assert str(caught.value).startswith("table.png: ")


def test_blank_frame_and_no_frames(layout: MatLayout) -> None:
    with pytest.raises(InputError, match="found 0"):
        calibrate([np.full((720, 1280, 3), 128, np.uint8)], layout)
    with pytest.raises(InputError, match="no frames"):
        calibrate([], layout)


def test_points_map_both_ways(overhead: tuple[Calibration, np.ndarray, np.ndarray]) -> None:
    cal, _, truth = overhead
    pts = np.array([[0, 0], [594, 420], [297, 210], [100.5, 333.25]])
    assert np.allclose(cal.image_to_mat(cal.mat_to_image(pts)), pts, atol=1e-6)
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth).reshape(-1, 2)
    assert np.abs(cal.mat_to_image(pts) - img).max() < 1.0
    assert cal.image_to_mat(np.zeros((0, 2))).shape == (0, 2)


def test_rectified_mat_matches_the_printed_mat(
    layout: MatLayout, overhead: tuple[Calibration, np.ndarray, np.ndarray]
) -> None:
    cal, frame, _ = overhead
    top = cal.rectify(frame, 1.0)
    assert top.shape == (420, 594, 3)
    truth = render_mat(layout, 1.0)
    a = cv2.GaussianBlur(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), (0, 0), 2).astype(float)
    b = cv2.GaussianBlur(cv2.cvtColor(truth, cv2.COLOR_BGR2GRAY), (0, 0), 2).astype(float)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.95


def test_rectified_zone_reads_upright_for_its_owner(
    layout: MatLayout, overhead: tuple[Calibration, np.ndarray, np.ndarray]
) -> None:
    cal, frame, _ = overhead
    a3 = cal.rectify(frame, 4.0, zone="A.stock3")
    b3 = cal.rectify(frame, 4.0, zone="B.stock3")
    assert a3.shape == b3.shape == (408, 304, 3)
    # both slots print the label "3" upright for their owner, so the two views look alike
    ga = cv2.cvtColor(a3, cv2.COLOR_BGR2GRAY).astype(float)
    gb = cv2.cvtColor(b3, cv2.COLOR_BGR2GRAY).astype(float)
    assert np.corrcoef(ga.ravel(), gb.ravel())[0, 1] > 0.8
    flipped = np.rot90(gb, 2)
    assert np.corrcoef(ga.ravel(), flipped.ravel())[0, 1] < np.corrcoef(ga.ravel(), gb.ravel())[0, 1]
    with_margin = cal.rectify(frame, 2.0, zone="pile1", margin_mm=10)
    assert with_margin.shape == (round(132 * 2), round(110 * 2), 3)


# ----------------------------------------------------------------------------- the file


def test_file_round_trip(tmp_path: Path, overhead: tuple[Calibration, np.ndarray, np.ndarray]) -> None:
    cal, _, _ = overhead
    path = tmp_path / "table.yaml"
    save_calibration(cal, path)
    text = path.read_text()
    assert "format: spit-referee-calibration/1" in text
    back = load_calibration(path, cal.layout)
    assert np.allclose(back.homography, cal.homography, rtol=1e-8)
    assert back.image_size == (1280, 720)
    assert back.markers_used == cal.markers_used
    assert back.quality.rms_mm == pytest.approx(cal.quality.rms_mm, abs=1e-4)
    assert back.quality.max_mm == pytest.approx(cal.quality.max_mm, abs=1e-4)
    # without a layout, the file's own mat reference is followed
    assert load_calibration(path).layout.sha256 == cal.layout.sha256


def _edit(path: Path, change: Any) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def _put(key: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = key.split(".")
        node = data
        for p in parents:
            node = node[p]
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (_put("format", "spit-referee-mat/1"), "format", "not a calibration file"),
        (_put("format", None), "format", "not a calibration file"),
        (_put("homography", [[1, 0, 0], [0, 1, 0]]), "homography", "3 rows of 3"),
        (_put("homography", [[0, 0, 0], [0, 0, 0], [0, 0, 1]]), "homography", "invertible"),
        (_put("homography", [[1, 0, 0], [0, "x", 0], [0, 0, 1]]), "homography", "number"),
        (_put("image_size", [1280]), "image_size", "2 numbers"),
        (_put("image_size", [1280.5, 720]), "image_size", "whole pixels"),
        (_put("mat.sha256", "0" * 64), "mat.sha256", "different mat layout"),
        (_put("mat", None), "mat", "missing"),
        (_put("reprojection_error_mm.rms", "small"), "reprojection_error_mm.rms", "number"),
        (_put("markers_used", [1, 2, 99]), "markers_used", "not on mat"),
        (_put("lens", {"camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}), "lens.image_size",
         "missing"),
        (_put("lens", {"image_size": [1280, 720], "camera_matrix": [[0, 0, 0], [0, 1, 0], [0, 0, 1]],
                       "dist_coeffs": [0, 0, 0, 0]}), "lens.camera_matrix", "not a camera matrix"),
    ],
)
def test_corrupt_calibration_files_name_the_field(
    tmp_path: Path, overhead: tuple[Calibration, np.ndarray, np.ndarray],
    change: Any, field: str, message: str,
) -> None:
    cal, _, _ = overhead
    path = tmp_path / "table.yaml"
    save_calibration(cal, path)
    _edit(path, change)
    with pytest.raises(InputError) as caught:
        load_calibration(path, cal.layout)
    assert f"{path}: field '{field}'" in str(caught.value)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not UTF-8"),
        (b"homography: [1, 2", "YAML does not parse"),
        (b"just a sentence", "expected a YAML mapping"),
        (b"name: some other tool's config\nversion: 3\n", "not a calibration file"),
    ],
)
def test_foreign_files_are_refused(tmp_path: Path, layout: MatLayout, content: bytes,
                                   message: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_calibration(path, layout)


def test_missing_file(tmp_path: Path, layout: MatLayout) -> None:
    with pytest.raises(InputError, match="no such calibration file"):
        load_calibration(tmp_path / "none.yaml", layout)


def test_a_different_mat_layout_is_detected(
    tmp_path: Path, overhead: tuple[Calibration, np.ndarray, np.ndarray]
) -> None:
    cal, _, _ = overhead
    path = tmp_path / "table.yaml"
    save_calibration(cal, path)
    data = yaml.safe_load(cal.layout.source and Path(cal.layout.source).read_text())
    data["zones"]["pile1"]["center"] = [230, 210]
    other = tmp_path / "other-mat.yaml"
    other.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError, match="made for a different mat layout") as caught:
        load_calibration(path, load_layout(other))
    assert "field 'mat.sha256'" in str(caught.value)
    _edit(path, _put("mat.file", "nowhere/mat.yaml"))
    with pytest.raises(InputError, match="field 'mat.file'.*not found"):
        load_calibration(path)


def test_sample_calibration_in_the_repository_loads(layout: MatLayout) -> None:
    sample = Path(__file__).resolve().parents[2] / "calibration" / "sample-overhead-1280x720.yaml"
    cal = load_calibration(sample)
    assert cal.layout.sha256 == layout.sha256
    assert cal.image_size == (1280, 720)
    inside = cal.mat_to_image(np.array([[0, 0], [594, 420]]))
    assert ((inside >= 0) & (inside <= [1280, 720])).all()
