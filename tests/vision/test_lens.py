"""Lens calibration from synthetic board views, and calibrating a distorted view with it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_synth import POSES, camera_view, mapping_error_mm, planar_view, pose_homography

from referee.errors import InputError
from referee.vision.calibration import calibrate, load_calibration, save_calibration
from referee.vision.lens import Board, LensModel, calibrate_lens, load_lens, save_lens
from referee.vision.mat import MatLayout

TRUE_K = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
TRUE_LENS = LensModel(TRUE_K, np.array([-0.28, 0.09, 0.0, 0.0, 0.0]), (1280, 720))
# where the board's centre is put (mm off the optical axis) and how it is turned
BOARD_POSES = [
    ((-250, -120), (0.3, -0.2, 0.1)), ((0, -130), (-0.25, 0.3, -0.2)),
    ((220, -120), (0.1, 0.35, 0.25)), ((-250, 90), (-0.3, -0.1, 0.0)),
    ((0, 0), (0.05, 0.0, 0.3)), ((220, 90), (0.35, 0.2, -0.1)),
    ((-120, 40), (-0.2, -0.35, 0.15)), ((120, -20), (0.2, -0.3, -0.25)),
]


def board_views(board: Board, margin_mm: float = 10.0) -> list[np.ndarray]:
    px_per_mm = 8.0
    texture = cv2.cvtColor(board.render(px_per_mm, margin_mm=margin_mm), cv2.COLOR_GRAY2BGR)
    width_mm = texture.shape[1] / px_per_mm
    height_mm = texture.shape[0] / px_per_mm
    views = []
    for (x, y), rvec in BOARD_POSES:
        h = pose_homography(TRUE_K, rvec, (x - width_mm / 2, y - height_mm / 2, 650))
        view = planar_view(texture, px_per_mm, h, lens=TRUE_LENS, background=(90, 90, 90))
        views.append(cv2.GaussianBlur(view, (0, 0), 0.7))
    return views


@pytest.mark.parametrize(
    "board",
    [Board("chessboard", 9, 6, 25.0), Board("charuco", 7, 5, 30.0, 22.0)],
    ids=["chessboard", "charuco"],
)
def test_lens_is_recovered_from_board_views(layout: MatLayout, board: Board) -> None:
    lens, used = calibrate_lens(board_views(board), board)
    assert used >= 7
    assert lens.rms_px < 0.3
    assert lens.image_size == (1280, 720)
    assert np.allclose(np.diag(lens.camera_matrix)[:2], [1000, 1000], rtol=0.02)
    assert np.allclose(lens.camera_matrix[:2, 2], [640, 360], atol=8)
    assert lens.dist_coeffs[0] == pytest.approx(-0.28, abs=0.02)
    # what matters: with the fitted lens, a distorted view of the mat maps within 1 mm
    truth = POSES[0].homography(layout)
    frame = camera_view(layout, truth, lens=TRUE_LENS)
    cal, _ = calibrate([frame], layout, lens=lens)
    assert mapping_error_mm(layout, truth, cal.image_to_mat, lens=TRUE_LENS).max() < 1.0


def test_too_few_board_views_is_a_clear_error() -> None:
    blank = [np.full((720, 1280, 3), 200, np.uint8)] * 3
    with pytest.raises(InputError, match="found in 0 of 3 views"):
        calibrate_lens(blank, Board("chessboard", 9, 6, 25.0))
    with pytest.raises(InputError, match="no views"):
        calibrate_lens([], Board("chessboard", 9, 6, 25.0))


@pytest.mark.parametrize(
    ("kwargs", "where"),
    [
        ({"kind": "circles"}, "--board"),
        ({"cols": 2}, "--cols/--rows"),
        ({"square_mm": 0}, "--square-mm"),
        ({"kind": "charuco", "marker_mm": 30}, "--marker-mm"),
    ],
)
def test_bad_board_settings(kwargs: dict[str, object], where: str) -> None:
    settings: dict[str, object] = {"kind": "chessboard", "cols": 9, "rows": 6, "square_mm": 25.0}
    settings.update(kwargs)
    with pytest.raises(InputError, match=where):
        Board(**settings)  # type: ignore[arg-type]


def test_a_distorted_view_needs_the_lens_model(layout: MatLayout, tmp_path: Path) -> None:
    truth = POSES[0].homography(layout)
    frame = camera_view(layout, truth, lens=TRUE_LENS)
    plain, _ = calibrate([frame], layout)
    error_plain = mapping_error_mm(layout, truth, plain.image_to_mat, lens=TRUE_LENS)
    assert error_plain.max() > 5  # a homography alone cannot follow barrel distortion
    fixed, _ = calibrate([frame], layout, lens=TRUE_LENS)
    error_fixed = mapping_error_mm(layout, truth, fixed.image_to_mat, lens=TRUE_LENS)
    assert error_fixed.max() < 1.0
    # zone outlines follow the curved edges, and the lens survives the file
    path = tmp_path / "cal.yaml"
    save_calibration(fixed, path)
    back = load_calibration(path, layout)
    assert back.lens is not None
    assert np.allclose(back.lens.dist_coeffs, TRUE_LENS.dist_coeffs)
    poly = back.zone_polygon("A.stock1", samples_per_edge=8)
    assert poly.shape == (32, 2)
    top = back.rectify(frame, 1.0)
    assert top.shape == (420, 594, 3)


def test_lens_with_the_wrong_image_size_is_refused(layout: MatLayout) -> None:
    frame = camera_view(layout, POSES[0].homography(layout))
    small = LensModel(TRUE_K, TRUE_LENS.dist_coeffs, (640, 480))
    with pytest.raises(InputError, match="lens calibration is for 640x480"):
        calibrate([frame], layout, lens=small)


def test_lens_file_round_trip_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "lens.yaml"
    save_lens(TRUE_LENS, path)
    back = load_lens(path)
    assert np.allclose(back.camera_matrix, TRUE_K)
    assert back.image_size == (1280, 720)
    path.write_text(path.read_text().replace("spit-referee-lens/1", "other/1"))
    with pytest.raises(InputError, match="field 'format'"):
        load_lens(path)
    path.write_text("format: spit-referee-lens/1\nimage_size: [1280, 720]\n"
                    "camera_matrix: [[1000, 0, 640], [0, 1000, 360], [0, 0, 1]]\n"
                    "dist_coeffs: [0.1, 0.2, 0.3]\n")
    with pytest.raises(InputError, match="field 'dist_coeffs': expected 4, 5, 8"):
        load_lens(path)


def test_printable_boards() -> None:
    chess = Board("chessboard", 9, 6, 25.0).render(4.0, margin_mm=10)
    assert chess.shape == (round(7 * 25 * 4) + 80, round(10 * 25 * 4) + 80)
    charuco = Board("charuco", 7, 5, 30.0, 22.0).render(4.0)
    assert charuco.shape == ((5 * 30 + 20) * 4, (7 * 30 + 20) * 4)
