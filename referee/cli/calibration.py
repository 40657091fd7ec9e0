"""Subcommands for calibration: print the mat, calibrate the camera and its lens.

``spit-referee mat``            the printable play mat (PDF at true scale, or PNG)
``spit-referee calibrate``      camera -> mat homography from the mat's markers; ``--check``
``spit-referee calibrate-lens`` optional lens model from chessboard or ChArUco views
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click
import cv2
import numpy as np

from referee.errors import InputError, MissingPrerequisite
from referee.vision.matprint import PAPER_MM

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}

_MAT_OPTION = click.option(
    "--mat",
    "mat_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Mat layout file (default: calibration/default-mat.yaml).",
)


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    group.add_command(mat_command)
    group.add_command(calibrate_command)
    group.add_command(calibrate_lens_command)


# ----------------------------------------------------------------------------- mat


@click.command("mat")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the mat: FILE.pdf (true scale, for printing) or FILE.png.",
)
@click.option(
    "--paper",
    default="A2",
    show_default=True,
    type=click.Choice(list(PAPER_MM), case_sensitive=False),
    help="Sheet to print on; the mat is centred on it and must fit at true scale.",
)
@click.option(
    "--tile", is_flag=True,
    help="Print the mat in overlapping pieces on several sheets of --paper (PDF only), "
    "to trim and tape together.",
)
@click.option(
    "--dpi", default=200, show_default=True, type=click.IntRange(50, 1200),
    help="Resolution of the drawing.",
)
@_MAT_OPTION
def mat_command(out: Path, paper: str, tile: bool, dpi: int, mat_path: Path | None) -> None:
    """Draw the printable play mat: markers, stock slots, spit-card packets, spit piles.

    Print the PDF at 100 % ("actual size", no fit-to-page): calibration trusts the printed
    size. The default mat is 594 x 420 mm (A2 landscape); on a smaller printer use --tile.
    """
    from PIL import Image

    from referee.vision.mat import load_layout
    from referee.vision.matprint import single_sheet, tiles

    layout = load_layout(mat_path)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise InputError(f"expected a .pdf or .png file name, got {out.name!r}", "--out")
    if tile and suffix != ".pdf":
        raise InputError("tiles go into one PDF, a page each: use a .pdf name", "--out")
    pages = tiles(layout, paper, dpi) if tile else [single_sheet(layout, paper, dpi)]
    images = [Image.fromarray(cv2.cvtColor(p.image, cv2.COLOR_BGR2RGB)) for p in pages]
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".pdf":
        images[0].save(out, "PDF", resolution=float(dpi), quality=95, save_all=True,
                       append_images=images[1:])
    else:
        images[0].save(out, "PNG", dpi=(dpi, dpi))
    w, h = layout.size_mm
    where = f"{len(pages)} pages of {pages[0].label.split()[0]}" if tile else pages[0].label
    click.echo(f"wrote {out}: mat '{layout.name}' ({w:g} x {h:g} mm) on {where}, {dpi} dpi")
    if suffix == ".pdf":
        click.echo("print at 100 % (actual size, no fit-to-page) so the markers keep their size")


# ----------------------------------------------------------------------------- sources


def _read_frames(source: str, frames: int, what: str = "--source") -> Iterator[np.ndarray]:
    """Frames from a camera index, a video file or an image file."""
    if source.isdigit():
        cap = cv2.VideoCapture(int(source))
        if not cap.isOpened():
            raise MissingPrerequisite(
                f"camera {source} could not be opened; is it connected and free? "
                "(or pass a video or image file to --source)"
            )
        try:
            for _ in range(5):  # let exposure settle
                cap.read()
            for _ in range(frames):
                ok, frame = cap.read()
                if not ok:
                    break
                yield frame
        finally:
            cap.release()
        return
    path = Path(source)
    if not path.exists():
        raise InputError("no such file (expected a camera index, a video or an image)", what)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise InputError(f"{source}: not a readable image", what)
        yield image
        return
    cap = cv2.VideoCapture(str(path))
    try:
        count = 0
        while count < frames:
            ok, frame = cap.read()
            if not ok:
                break
            count += 1
            yield frame
        if count == 0:
            raise InputError(f"{source}: not a readable video or image", what)
    finally:
        cap.release()


def _frames_with_progress(source: str, frames: int, label: str) -> list[np.ndarray]:
    if not source.isdigit() and Path(source).suffix.lower() in IMAGE_SUFFIXES:
        return list(_read_frames(source, frames))
    out: list[np.ndarray] = []
    with click.progressbar(length=frames, label=label, file=sys.stderr) as bar:
        for frame in _read_frames(source, frames):
            out.append(frame)
            bar.update(1)
    if not out:
        raise InputError(f"no frames could be read from {source}", "--source")
    return out


def _write_image(path: Path, image: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise InputError("could not write the image (use .png or .jpg)", str(path))


# ----------------------------------------------------------------------------- calibrate


@click.command("calibrate")
@click.option(
    "--source", required=True,
    help="Camera index (0, 1, ...), video file or image of the mat seen by the camera.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path),
    help="Calibration file to write, e.g. calibration/table1.yaml (not with --check).",
)
@click.option(
    "--check", "check", type=click.Path(dir_okay=False, path_type=Path),
    help="Instead of calibrating, say whether and how far the camera has moved since this "
    "saved calibration. Exit status 0: not moved; 1: moved.",
)
@click.option(
    "--preview", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write this PNG: the frame with the markers found and the zones drawn on it.",
)
@click.option(
    "--lens", "lens_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Lens calibration from `calibrate-lens`, to remove the lens distortion.",
)
@click.option(
    "--frames", default=30, show_default=True, type=click.IntRange(1, 10000),
    help="Frames to average over (video or camera).",
)
@click.option(
    "--tolerance", default=1.5, show_default=True, type=click.FloatRange(0.1, 100),
    help="With --check: pixels the markers may be off before the camera counts as moved.",
)
@_MAT_OPTION
def calibrate_command(
    source: str,
    out: Path | None,
    check: Path | None,
    preview: Path | None,
    lens_path: Path | None,
    frames: int,
    tolerance: float,
    mat_path: Path | None,
) -> None:
    """Find the mat's markers and work out where every zone lies in the camera image.

    Point the camera straight down at the mat; cards and hands may cover some markers, at
    least three must show. Writes the calibration file that the referee uses, and reports
    how well the markers agree (in millimetres on the mat).
    """
    from referee.vision.calibration import calibrate, save_calibration
    from referee.vision.lens import load_lens
    from referee.vision.mat import load_layout
    from referee.vision.preview import draw_preview

    if check is None and out is None:
        raise click.UsageError("give --out FILE to calibrate, or --check FILE to verify one")
    if check is not None and (out is not None or lens_path is not None):
        raise click.UsageError("--check takes the saved calibration as it is: no --out or --lens")
    if check is not None:
        _check(check, source, frames, tolerance, preview, mat_path)
        return
    assert out is not None
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise InputError(f"expected a .yaml file name, got {out.name!r}", "--out")
    layout = load_layout(mat_path)
    lens = load_lens(lens_path) if lens_path is not None else None
    images = _frames_with_progress(source, frames, "reading frames")
    cal, det = calibrate(images, layout, lens=lens, source=_describe(source, len(images)))
    save_calibration(cal, out)
    q = cal.quality
    missing = sorted(set(layout.marker_ids) - set(cal.markers_used))
    click.echo(
        f"wrote {out}: {len(cal.markers_used)} of {len(layout.markers)} markers used"
        + (f" (not seen or left out: {', '.join(map(str, missing))})" if missing else "")
    )
    click.echo(
        f"reprojection error on the mat: median {q.median_mm:.2f} mm, rms {q.rms_mm:.2f} mm, "
        f"max {q.max_mm:.2f} mm"
    )
    if q.max_mm > 2.0:
        click.echo("warning: over 2 mm: is the mat flat, printed at 100 %, the lens distorted?")
    if preview is not None:
        _write_image(preview, draw_preview(images[len(images) // 2], cal, det))
        click.echo(f"wrote {preview}")


def _describe(source: str, count: int) -> str:
    kind = "camera" if source.isdigit() else Path(source).name
    return f"{kind} ({count} frame{'s' if count != 1 else ''})"


def _check(
    cal_path: Path, source: str, frames: int, tolerance: float, preview: Path | None,
    mat_path: Path | None,
) -> None:
    from referee.vision.calibration import load_calibration
    from referee.vision.drift import marker_shift_px, px_to_mm
    from referee.vision.markers import MarkerDetector, average_detections
    from referee.vision.mat import load_layout
    from referee.vision.preview import draw_preview

    layout = load_layout(mat_path) if mat_path is not None else None
    cal = load_calibration(cal_path, layout)
    images = _frames_with_progress(source, frames, "reading frames")
    size = (images[0].shape[1], images[0].shape[0])
    if size != cal.image_size:
        raise InputError(
            f"frames are {size[0]}x{size[1]} but the calibration is for "
            f"{cal.image_size[0]}x{cal.image_size[1]}; set the camera to that size or recalibrate",
            "--source",
        )
    detector = MarkerDetector(cal.layout)
    det = average_detections(detector.detect(im) for im in images)
    if preview is not None:
        _write_image(preview, draw_preview(images[len(images) // 2], cal, det))
    total = len(cal.layout.markers)
    if len(det) == 0:
        raise InputError(
            f"none of the mat's {total} markers is visible; cannot tell where the camera "
            "points (is the mat in view?)",
            "--source",
        )
    shift = marker_shift_px(cal, det)
    mm = px_to_mm(cal, shift)
    if shift <= tolerance:
        click.echo(
            f"camera has not moved: markers within {shift:.1f} px ({mm:.1f} mm) of "
            f"{cal_path} ({len(det)} of {total} markers seen)"
        )
        return
    click.echo(
        f"camera has moved: markers are {shift:.1f} px (about {mm:.1f} mm on the mat) from "
        f"where {cal_path} expects them ({len(det)} of {total} markers seen); recalibrate"
    )
    click.get_current_context().exit(1)


# ----------------------------------------------------------------------------- lens


@click.command("calibrate-lens")
@click.option(
    "--source", "sources", multiple=True,
    help="Views of the board: image files (repeat the option), a video, or a camera index.",
)
@click.option(
    "--board", default="chessboard", show_default=True,
    type=click.Choice(["chessboard", "charuco"]), help="Kind of board.",
)
@click.option(
    "--cols", default=9, show_default=True, type=int,
    help="Chessboard: inner corners across. ChArUco: squares across.",
)
@click.option(
    "--rows", default=6, show_default=True, type=int,
    help="Chessboard: inner corners down. ChArUco: squares down.",
)
@click.option("--square-mm", default=25.0, show_default=True, type=float, help="Square side.")
@click.option("--marker-mm", default=18.0, show_default=True, type=float,
              help="ChArUco marker side.")
@click.option("--frames", default=300, show_default=True, type=click.IntRange(1, 100000),
              help="Video or camera: frames to read.")
@click.option("--every", default=10, show_default=True, type=click.IntRange(1, 1000),
              help="Video or camera: use every n-th frame.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Lens calibration file to write (then pass it to `calibrate --lens`).")
@click.option("--print-board", type=click.Path(dir_okay=False, path_type=Path),
              help="Instead: write the board as a PNG to print (300 dpi).")
def calibrate_lens_command(
    sources: tuple[str, ...], board: str, cols: int, rows: int, square_mm: float,
    marker_mm: float, frames: int, every: int, out: Path | None, print_board: Path | None,
) -> None:
    """Measure the camera's lens distortion from views of a printed board (optional).

    Show the board in 10-20 views: all over the picture, near the corners, tilted. The
    calibration then removes the distortion before fitting the mat.
    """
    from referee.vision.lens import Board, calibrate_lens, save_lens

    spec = Board(board, cols, rows, square_mm, marker_mm if board == "charuco" else 0.0)
    if print_board is not None:
        _write_image(print_board, spec.render(300 / 25.4))
        click.echo(f"wrote {print_board} (print at 300 dpi, 100 %; measure a square)")
        return
    if not sources:
        raise click.UsageError("give --source views of the board (or --print-board FILE)")
    if out is None:
        raise click.UsageError("give --out FILE for the lens calibration")

    def views() -> Iterator[np.ndarray]:
        for source in sources:
            for i, frame in enumerate(_read_frames(source, frames)):
                if i % every == 0:
                    yield frame

    lens, used = calibrate_lens(views(), spec)
    save_lens(lens, out)
    k = lens.camera_matrix
    click.echo(
        f"wrote {out}: board found in {used} views, rms {lens.rms_px:.2f} px, "
        f"fx {k[0, 0]:.0f} fy {k[1, 1]:.0f} px, distortion {np.round(lens.dist_coeffs[:5], 3)}"
    )
    if lens.rms_px > 1.0:
        click.echo("warning: rms over 1 px: check the board is flat and the sizes are right")
