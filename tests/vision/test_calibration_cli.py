"""The calibration commands: mat, calibrate (--check, --preview), calibrate-lens."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from click.testing import CliRunner, Result
from PIL import Image
from vision_synth import POSES, camera_view, shifted

from referee.cli.main import main
from referee.vision.calibration import load_calibration
from referee.vision.mat import MatLayout


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def scene(layout: MatLayout, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Image files of one camera: the mat, the mat with cards on, nudged, moved, empty."""
    folder = tmp_path_factory.mktemp("scene")
    pose = POSES[1]
    truth = pose.homography(layout)
    frames = {
        "mat": camera_view(layout, truth, blur_sigma=pose.blur_sigma, noise=pose.noise),
        "covered": camera_view(layout, truth, hidden=(0, 3, 4, 6, 7, 9), seed=2),
        "nudged": camera_view(layout, shifted(truth, 4, -3), seed=3),
        "moved": camera_view(layout, shifted(truth, 0, 0, 6), seed=4),
        "empty": np.full((720, 1280, 3), (70, 100, 140), np.uint8),
        "small": cv2.resize(camera_view(layout, truth), (640, 360)),
    }
    paths = {}
    for name, frame in frames.items():
        paths[name] = folder / f"{name}.png"
        cv2.imwrite(str(paths[name]), frame)
    # a short video of the mat (a few frames of the same scene with fresh noise)
    video = folder / "mat.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for seed in range(4):
        writer.write(camera_view(layout, truth, blur_sigma=pose.blur_sigma, seed=seed))
    writer.release()
    paths["video"] = video
    return paths


@pytest.mark.parametrize(
    ("suffix", "paper", "dpi", "page_mm"),
    [(".pdf", "A2", 100, (594, 420)), (".png", "a1", 50, (841, 594)), (".png", "ARCH-C", 50,
                                                                       (609.6, 457.2))],
)
def test_mat_is_drawn_at_true_scale(
    tmp_path: Path, suffix: str, paper: str, dpi: int, page_mm: tuple[float, float]
) -> None:
    out = tmp_path / f"mat{suffix}"
    result = run("mat", "--out", out, "--paper", paper, "--dpi", str(dpi))
    assert result.exit_code == 0, result.output
    assert "594 x 420 mm" in result.output
    if suffix == ".pdf":
        head = out.read_bytes()
        assert head.startswith(b"%PDF")
        box = head.split(b"/MediaBox")[1].split(b"]")[0].strip(b" [").split()
        width_pt, height_pt = float(box[2]), float(box[3])
        assert width_pt / 72 * 25.4 == pytest.approx(page_mm[0], abs=0.5)
        assert height_pt / 72 * 25.4 == pytest.approx(page_mm[1], abs=0.5)
        assert "100 %" in result.output
    else:
        with Image.open(out) as image:
            assert image.size[0] / dpi * 25.4 == pytest.approx(page_mm[0], abs=1)
            assert image.size[1] / dpi * 25.4 == pytest.approx(page_mm[1], abs=1)
            assert image.info["dpi"][0] == pytest.approx(dpi, abs=0.05)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paper", "A3"], "does not fit on A3"),
        (["--paper", "tabloid"], "does not fit on tabloid"),
        (["--paper", "B5"], "Invalid value for '--paper'"),
        (["--dpi", "5"], "Invalid value for '--dpi'"),
        (["--out", "mat.svg"], "--out: expected a .pdf or .png"),
        (["--paper", "A4", "--tile", "--out", "m.png"], "--out: tiles go into one PDF"),
        (["--mat", "no/such.yaml"], "no such mat layout file"),
    ],
)
def test_mat_bad_arguments(tmp_path: Path, args: list[str], message: str) -> None:
    if "--out" not in args:
        args = [*args, "--out", str(tmp_path / "m.pdf")]
    else:
        args = [str(tmp_path / a) if a.startswith("m") else a for a in args]
    result = run("mat", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("paper", "pages"), [("A4", 8), ("letter", 8), ("A3", 4)])
def test_mat_in_pieces_for_a_small_printer(tmp_path: Path, paper: str, pages: int) -> None:
    out = tmp_path / "tiles.pdf"
    result = run("mat", "--paper", paper, "--tile", "--out", out, "--dpi", "50")
    assert result.exit_code == 0, result.output
    assert f"on {pages} pages of {paper}" in result.output
    boxes = out.read_bytes().split(b"/MediaBox")[1:]
    assert len(boxes) == pages


@pytest.mark.parametrize("source", ["mat", "covered", "video"])
def test_calibrate_writes_a_file_and_preview(
    tmp_path: Path, scene: dict[str, Path], layout: MatLayout, source: str
) -> None:
    out = tmp_path / "cal" / "table.yaml"
    preview = tmp_path / "preview.png"
    result = run("calibrate", "--source", scene[source], "--out", out, "--preview", preview,
                 "--frames", "4")
    assert result.exit_code == 0, result.output
    assert "reprojection error on the mat: median" in result.output
    cal = load_calibration(out, layout)
    assert cal.quality.max_mm < 1.0
    if source == "covered":
        assert "5 of 11 markers used (not seen or left out: 0, 3, 4, 6, 7, 9)" in result.output
    data = yaml.safe_load(out.read_text())
    assert data["mat"]["name"] == "default" and data["image_size"] == [1280, 720]
    drawn = cv2.imread(str(preview))
    assert drawn.shape == (720, 1280, 3)
    original = cv2.imread(str(scene["mat" if source == "video" else source]))
    assert np.abs(drawn.astype(int) - original).max() > 100  # something was drawn on it


@pytest.fixture(scope="module")
def saved(scene: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("saved") / "table.yaml"
    assert run("calibrate", "--source", scene["mat"], "--out", out).exit_code == 0
    return out


@pytest.mark.parametrize(
    ("frame", "code", "message"),
    [
        ("mat", 0, "camera has not moved"),
        ("covered", 0, "camera has not moved"),
        ("nudged", 1, "camera has moved: markers are 5.0 px"),
        ("moved", 1, "camera has moved"),
        ("empty", 2, "--source: none of the mat's 11 markers is visible"),
        ("small", 2, "frames are 640x360 but the calibration is for 1280x720"),
    ],
)
def test_check(saved: Path, scene: dict[str, Path], frame: str, code: int, message: str,
               tmp_path: Path) -> None:
    preview = tmp_path / "check.png"
    result = run("calibrate", "--check", saved, "--source", scene[frame], "--preview", preview)
    assert result.exit_code == code, result.output
    assert message in result.output
    if code != 2 or frame == "empty":
        assert preview.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Missing option '--source'"),
        (["--source", "{empty}"], "give --out FILE to calibrate, or --check FILE"),
        (["--source", "{empty}", "--out", "{tmp}/x.yaml"], "found 0 of the mat's 11 markers"),
        (["--source", "{tmp}/none.mp4", "--out", "{tmp}/x.yaml"], "--source: no such file"),
        (["--source", "{bad_image}", "--out", "{tmp}/x.yaml"], "not a readable image"),
        (["--source", "{bad_video}", "--out", "{tmp}/x.yaml"], "not a readable video"),
        (["--source", "{mat}", "--out", "{tmp}/x.txt"], "--out: expected a .yaml"),
        (["--source", "{mat}", "--out", "{tmp}/x.yaml", "--frames", "0"], "Invalid value"),
        (["--source", "{mat}", "--check", "{tmp}/none.yaml"], "no such calibration file"),
        (["--source", "{mat}", "--check", "{bad_image}"], "not a calibration file"),
        (["--source", "{mat}", "--check", "{saved}", "--out", "{tmp}/x.yaml"], "no --out"),
        (["--source", "{mat}", "--out", "{tmp}/x.yaml", "--lens", "{tmp}/no.yaml"],
         "no such lens calibration file"),
        (["--source", "99", "--out", "{tmp}/x.yaml"], "camera 99 could not be opened"),
    ],
)
def test_calibrate_bad_input_is_one_line(
    tmp_path: Path, scene: dict[str, Path], saved: Path, args: list[str], message: str
) -> None:
    (tmp_path / "bad.png").write_bytes(b"not really a png")
    (tmp_path / "bad.mp4").write_bytes(b"not really a video")
    names = {**{k: str(v) for k, v in scene.items()}, "tmp": str(tmp_path), "saved": str(saved),
             "bad_image": str(tmp_path / "bad.png"), "bad_video": str(tmp_path / "bad.mp4")}
    result = run("calibrate", *[a.format(**names) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_check_with_a_mismatched_mat(saved: Path, scene: dict[str, Path], tmp_path: Path) -> None:
    data = yaml.safe_load(Path(load_calibration(saved).layout.source).read_text())
    data["zones"]["pile2"]["center"] = [366, 210]
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(data))
    result = run("calibrate", "--check", saved, "--source", scene["mat"], "--mat", other)
    assert result.exit_code == 2
    assert "field 'mat.sha256': made for a different mat layout" in result.output


def test_calibrate_lens_prints_a_board_and_needs_views(tmp_path: Path) -> None:
    board = tmp_path / "board.png"
    result = run("calibrate-lens", "--print-board", board)
    assert result.exit_code == 0, result.output
    # 9 x 6 inner corners: 10 x 7 squares of 25 mm and a 10 mm margin, at 300 dpi
    assert cv2.imread(str(board), cv2.IMREAD_GRAYSCALE).shape == (2303, 3189)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 200, np.uint8))
    result = run("calibrate-lens", "--source", blank, "--source", blank, "--out",
                 tmp_path / "lens.yaml")
    assert result.exit_code == 2
    assert "found in 0 of 2 views" in result.output
    assert run("calibrate-lens", "--out", tmp_path / "l.yaml").exit_code == 2
    result = run("calibrate-lens", "--board", "charuco", "--marker-mm", "40", "--source", blank,
                 "--out", tmp_path / "l.yaml")
    assert result.exit_code == 2 and "--marker-mm" in result.output


def test_help_texts() -> None:
    for command in ("mat", "calibrate", "calibrate-lens"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "--source" in result.output or "--out" in result.output
