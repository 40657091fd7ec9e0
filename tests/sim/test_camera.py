"""Camera: pose and homography agree; distortion maps invert projectPoints."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.sim.camera import Camera, random_camera, table_points

MAT_POINTS = np.array([[0, 0], [594, 0], [594, 420], [0, 420], [297, 210], [100, 300],
                       [500, 50.5]], np.float64)


def test_overhead_camera_looks_at_its_target() -> None:
    cam = Camera.look_at((297, 210, -1000), (297, 210, 0), (1280, 720), 60)
    p = cam.project(table_points(np.array([[297, 210], [397, 210], [297, 310]])))
    assert np.allclose(p[0], [640, 360], atol=1e-6)
    assert p[1][0] > 640 and abs(p[1][1] - 360) < 1e-6  # +x to the right
    assert p[2][1] > 360 and abs(p[2][0] - 640) < 1e-6  # +y (toward player A) down
    assert np.allclose(cam.position, [297, 210, -1000])


@pytest.mark.parametrize("seed", range(6))
def test_homography_matches_projection(seed: int) -> None:
    cam = random_camera(np.random.default_rng(seed))
    h = cam.homography()
    pts = np.column_stack([MAT_POINTS, np.ones(len(MAT_POINTS))]) @ h.T
    via_h = pts[:, :2] / pts[:, 2:]
    # the homography is the pinhole part: it equals the undistorted projection
    assert np.allclose(cam.project_pinhole(table_points(MAT_POINTS)), via_h, atol=1e-6)
    image = cam.project(table_points(MAT_POINTS))
    und = cv2.undistortPoints(image.reshape(-1, 1, 2), cam.K, cam.dist_coeffs,
                              P=cam.K).reshape(-1, 2)
    assert np.allclose(und, via_h, atol=0.05)
    # and solvePnP on the same points recovers the pose
    ok, rvec, tvec = cv2.solvePnP(table_points(MAT_POINTS), image, cam.K, cam.dist_coeffs)
    assert ok and np.allclose(tvec.ravel(), cam.tvec, atol=0.5)


@pytest.mark.parametrize("seed", range(3))
def test_distort_pixels_inverts_undistort(seed: int) -> None:
    cam = random_camera(np.random.default_rng(seed))
    pts = table_points(MAT_POINTS[1:], 5.0)
    assert np.allclose(cam.distort_pixels(cam.project_pinhole(pts)), cam.project(pts), atol=1e-6)


def test_remap_tables_point_back_to_the_undistorted_canvas() -> None:
    cam = random_camera(np.random.default_rng(4), size=(320, 180))
    m = cam.distortion_margin()
    map1, map2 = cam.remap_tables(m)
    fx, fy = cv2.convertMaps(map1, map2, cv2.CV_32FC1)
    k = cam.K.copy()
    k[:2, 2] += m
    pts = table_points(np.array([[297, 210], [150, 120], [450, 330]]))
    image = cam.project(pts)
    canvas = cam.project_pinhole(pts, k)
    for (u, v), want in zip(image, canvas, strict=True):
        iu, iv = int(round(u)), int(round(v))
        if 0 <= iu < 320 and 0 <= iv < 180:
            got = np.array([fx[iv, iu], fy[iv, iu]])
            # the map is per pixel centre; allow the rounding of (u, v)
            assert np.linalg.norm(got - want) < 1.0
    assert m >= 2


def test_camera_round_trips_through_a_dict() -> None:
    import json

    cam = random_camera(np.random.default_rng(9))
    back = Camera.from_dict(json.loads(json.dumps(cam.to_dict())))
    pts = table_points(MAT_POINTS)
    assert np.allclose(back.project(pts), cam.project(pts), atol=1e-6)


def test_a_nudged_camera_moves_the_image_a_little() -> None:
    cam = random_camera(np.random.default_rng(2))
    same = cam.nudged()
    pts = table_points(MAT_POINTS)
    assert np.allclose(same.project(pts), cam.project(pts), atol=1e-6)
    moved = cam.nudged((5.0, -3.0, 0.0), (0.5, 0.0, 1.0))
    shift = np.linalg.norm(moved.project(pts) - cam.project(pts), axis=1)
    assert 1.0 < shift.max() < 60.0
    assert np.allclose(moved.position, cam.position + [5.0, -3.0, 0.0])
