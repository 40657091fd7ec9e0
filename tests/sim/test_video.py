"""H.264 writing with exact frame times, read back with OpenCV's own decoder."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from referee.errors import InputError
from referee.sim.video import VideoWriter, parse_fps, parse_size, probe_video


def _frame(i: int, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    img = np.full((h, w, 3), 40, np.uint8)
    x = 10 + 12 * i
    img[40:120, x:x + 60] = (30, 200, 240)  # a block that moves 12 px a frame
    img[:, :, 0] = np.uint8(i * 9)
    return img


@pytest.mark.parametrize("fps", ["30", "25", "29.97"])
def test_frames_count_size_and_exact_times(tmp_path, fps: str) -> None:
    size = (320, 240)
    path = tmp_path / "clip.mp4"
    with VideoWriter(path, size, fps) as video:
        for i in range(20):
            video.write(_frame(i, size))
    assert video.frames == 20
    rate = parse_fps(fps)
    info, kept = probe_video(path, keep=(0, 7, 19))
    assert info.frames == 20
    assert info.size == size
    assert info.fps == pytest.approx(float(rate), rel=1e-6)
    for i, t in enumerate(info.times_s):
        assert t == pytest.approx(float(i / rate), abs=1e-6)
    for i, frame in kept.items():  # lossy, but the picture is the one written
        assert np.abs(frame.astype(int) - _frame(i, size).astype(int)).mean() < 4


def test_same_frames_same_video(tmp_path) -> None:
    """x264 through PyAV is not always byte-for-byte repeatable (seen on tiny frames: a few
    grey levels apart), so the same frames must give the same decoded video, near enough."""
    size = (160, 96)
    decoded = []
    for name in ("a.mp4", "b.mp4"):
        with VideoWriter(tmp_path / name, size, 30) as video:
            for i in range(8):
                video.write(_frame(i, size))
        info, frames = probe_video(tmp_path / name, keep=tuple(range(8)))
        assert info.frames == 8
        decoded.append(frames)
    for i in range(8):
        assert np.abs(decoded[0][i].astype(int) - decoded[1][i].astype(int)).max() <= 6


@pytest.mark.parametrize("text, expected, error", [
    ("30", Fraction(30), None),
    ("29.97", Fraction(30000, 1001), None),
    ("30000/1001", Fraction(30000, 1001), None),
    ("59.94", Fraction(60000, 1001), None),
    ("0", None, "outside 1-240"),
    ("fast", None, "not a frame rate"),
    ("1/0", None, "not a frame rate"),
])
def test_parse_fps(text: str, expected: Fraction | None, error: str | None) -> None:
    if error:
        with pytest.raises(InputError, match=error):
            parse_fps(text)
    else:
        assert parse_fps(text) == expected


@pytest.mark.parametrize("text, expected, error", [
    ("1280x720", (1280, 720), None),
    ("960X540", (960, 540), None),
    ("1280", None, "WIDTHxHEIGHT"),
    ("axb", None, "WIDTHxHEIGHT"),
    ("-2x4", None, "WIDTHxHEIGHT"),
    ("961x540", None, "even"),
    ("32x32", None, "outside"),
    ("8000x4000", None, "outside"),
])
def test_parse_size(text: str, expected: tuple[int, int] | None, error: str | None) -> None:
    if error:
        with pytest.raises(InputError, match=error):
            parse_size(text)
    else:
        assert parse_size(text) == expected


def test_wrong_frame_shape_and_odd_size(tmp_path) -> None:
    with pytest.raises(InputError, match="even"):
        VideoWriter(tmp_path / "odd.mp4", (321, 240))
    with VideoWriter(tmp_path / "v.mp4", (320, 240)) as video:
        with pytest.raises(ValueError, match="expected a"):
            video.write(np.zeros((240, 320), np.uint8))
        video.write(_frame(0, (320, 240)))


def test_unreadable_video(tmp_path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(InputError):
        probe_video(bad)
