"""Subcommands that referee a game from video: ``replay`` (a recorded video) and ``live`` (a camera)."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from referee.errors import InputError, MissingPrerequisite
from referee.eventlog import read_records
from referee.events import GameStart, TableEvent
from referee.rules import RuleSet

if TYPE_CHECKING:
    from referee.live.run import StopRequest

DEMO_DIR = "demo"  # referee/data/demo: the bundled recording and its calibration


def register(group: click.Group) -> None:
    for command in (demo, replay, live, train_hand_layering):
        group.add_command(command)


@click.command("train-hand-layering")
@click.option("--seed", type=int, default=20000, show_default=True,
              help="The first slap-race seed rendered (the benchmark's are 6000-6999: keep clear of them).")
@click.option("--seeds", type=click.IntRange(4, 100000), default=800, show_default=True,
              help="How many slap races to render (three pictures each).")
@click.option("--epochs", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Where hand-layering.onnx, .pt and -train.json go (default: models/).")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="The rendered pictures, reused while seeds and frames are unchanged "
                   "(default: .cache/train/hand-layering).")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="torch threads (default: torch's; the shipped model: 1).")
def train_hand_layering(seed: int, seeds: int, epochs: int, out: str | None, work: str | None,
                        threads: int | None) -> None:
    """Render slap races with the simulator and train the model that reads which slapping hand
    lies underneath (rule E2), then export it to ONNX (models/HAND_LAYERING.md).

    Needs the [train] extra (torch): pip install -e ".[train]". On this project's 2-core CPU
    the default (800 races, 20 epochs) takes about half an hour to render and a quarter of an
    hour to train (one thread); the shipped model was made with --threads 1.
    """
    from dataclasses import replace

    from referee.train_hands import HandLayeringConfig
    from referee.train_hands import train_hand_layering as train

    cfg = replace(HandLayeringConfig(), seed=seed, seeds=seeds, epochs=epochs)
    root = Path(__file__).resolve().parents[2]
    with Progress(TextColumn("rendering slap races"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), transient=True, console=Console(stderr=True),
                  disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("render", total=seeds)
        result = train(cfg, out=out or root / "models",
                       work=work or root / ".cache" / "train" / "hand-layering",
                       progress=lambda done, total: bar.update(task, completed=done),
                       log=lambda line: click.echo(line, err=True), threads=threads)
    click.echo(f"model: {result.onnx} (and {result.weights.name}); summary: {result.summary}")
    click.echo(f"validation: {result.validation}")


def _console() -> Console:
    return Console(width=None if sys.stdout.isatty() else 140)


def load_prelude(path: str) -> tuple[RuleSet | None, list[TableEvent]]:
    """The rules and the table events before the video of a game continued from a log: the
    events marked ``"prelude": true`` in their evidence, or every table event when none is."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such log file", path)
    contents = read_records(io.StringIO(p.read_text(encoding="utf-8")), path)
    if contents.errors:
        first = contents.errors[0]
        raise InputError(f"line {first.line}: {first.message}", path)
    rules = next((r.rules for r in contents.records if isinstance(r, GameStart)), None)
    events = [r for r in contents.records if isinstance(r, TableEvent)]
    marked = [e for e in events if (e.evidence or {}).get("prelude")]
    return rules, marked or events


@dataclass(frozen=True)
class GameSoFar:
    """What the video continues: the rules (None: the defaults) and the table events before its
    first frame (none: the first frame is a new round's layout), and the file they came from."""

    rules: RuleSet | None = None
    events: tuple[TableEvent, ...] = ()
    file: str | None = None

    @classmethod
    def read(cls, prelude: str | None) -> GameSoFar:
        """From ``--prelude LOG`` (None: a new game with the default rules)."""
        if prelude is None:
            return cls()
        rules, events = load_prelude(prelude)
        return cls(rules, tuple(events), prelude)


def _calibration(spec: str, video: str, session: Any = None) -> Any:
    from referee.vision.calibration import load_calibration

    if spec == "session":
        if session is None:
            raise InputError("--calibration session needs a session folder to replay", video)
        return session.calibration()
    if spec != "auto":
        return load_calibration(spec)
    import cv2

    from referee.vision.calibration import calibrate
    from referee.vision.mat import load_layout

    frames: list[Any] = []
    if session is not None:
        for frame in session.video():
            frames.append(frame.image)
            if len(frames) == 10:
                break
    else:
        cap = cv2.VideoCapture(video)
        while len(frames) < 10:
            ok, image = cap.read()
            if not ok:
                break
            frames.append(image)
        cap.release()
    if not frames:
        raise InputError("no frame to calibrate from", video)
    cal, _ = calibrate(frames, load_layout(), source=f"{video} (auto)")
    return cal


def _reader(model: str | None, calibration: Any) -> Any:
    from referee.live.pipeline import ModelReader
    from referee.vision.recognize import Recognizer

    return ModelReader(Recognizer.load(model), calibration)


def model_files(model: str | None) -> list[Path]:
    from referee.vision.recognize import DEFAULT_MODEL, face_model_path, index_model_path

    detector = Path(model) if model else DEFAULT_MODEL
    return [detector, index_model_path(detector), face_model_path(detector)]


def _open_input(video: str, opened: Any = None) -> tuple[Any, Any]:
    """The frames of VIDEO: a video file, or a recorded session folder (its intact segments).
    ``opened``: the session, already opened (and its damage told) by the caller."""
    from referee.live.source import open_video

    path = Path(video)
    if opened is None and path.is_dir():
        from referee.session.verify import open_session

        opened = open_session(path)  # InputError when the folder is not a session
        if not opened.report.ok:
            first = opened.report.first_bad
            Console(stderr=True).print(f"[yellow]warning:[/] the session is damaged ({first}); replaying "
                                       "what is intact (spit-referee verify lists everything)")
    if opened is None:
        return open_video(video), None
    source = opened.video()
    if source.size == (0, 0):
        raise InputError("no recorded frame can be read: every segment is missing or cannot be decoded "
                         "(spit-referee verify lists them)", video)
    return source, opened


@dataclass
class Setup:
    """What ``_refereeing`` gives ``replay`` and ``live``: the referee, the output folder, the
    record writer, the session recorder (or None), and the stop request SIGINT/SIGTERM set."""

    referee: Any
    out: Path
    writer: Any
    recorder: Any
    stop: StopRequest


@contextmanager
def _refereeing(out_dir: str, board_spec: str | None, record_session: bool, segment_s: float, *,
                calibration: Any, calibration_spec: str, model: str | None, so_far: GameSoFar,
                source: Any) -> Iterator[Setup]:
    """What ``replay`` and ``live`` set up alike: the output folder, the board, the record writer
    (and session recorder), the :class:`Referee`; the recorder and the board are closed after.
    From here on SIGINT and SIGTERM only ask the refereeing to stop (``Setup.stop``), so that
    the session is closed in order (docs/sessions.md, "Stopping")."""
    from referee.live.pipeline import Referee
    from referee.live.run import stop_on_signals

    with stop_on_signals() as stop:
        reader = _reader(model, calibration)
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        board = _board(board_spec)
        recorder = None
        try:
            writer, recorder = _log_writer(out, record_session, segment_s, calibration=calibration,
                                           calibration_spec=calibration_spec, model=model, rules=so_far.rules,
                                           source=source, prelude=so_far.file)
            referee = Referee(calibration, reader, rules=so_far.rules, board=board, prelude=so_far.events,
                              on_record=writer)
            yield Setup(referee, out, writer, recorder, stop)
        finally:
            if recorder is not None:
                recorder.close(stopped=stop.signal)  # a no-op when run closed it
            if board is not None:
                board.close()


def _log_writer(out: Path, record_session: bool, segment_s: float, *, calibration: Any,
                calibration_spec: str, model: str | None, rules: RuleSet | None, source: Any,
                prelude: str | None) -> tuple[Any, Any]:
    """(the record writer, the session recorder or None): with a session, its chained log."""
    from referee.live.run import RecordWriter

    if not record_session:
        return RecordWriter(out / "events.jsonl"), None
    from referee.session.recorder import SessionRecorder

    cal_file = calibration_spec if calibration_spec not in ("auto", "session") else None
    if calibration_spec == "session":
        cal_file = str(Path(source.name) / "calibration.yaml")
    recorder = SessionRecorder.create(out, calibration=calibration, calibration_file=cal_file,
                                      models=model_files(model), rules=rules, source=source, prelude=prelude,
                                      segment_s=segment_s)
    return recorder.log, recorder


def _board(spec: str | None) -> Any:
    if spec is None:
        return None
    from referee.board import open_board

    return open_board(spec)


_common = [
    click.option("--board", "board_spec", default=None, metavar="PORT|console",
                 help="Signal faults and calls on the LED/buzzer board at PORT, or print them (console)."),
    click.option("--model", type=click.Path(dir_okay=False), default=None,
                 help="The card model (default: models/cards.onnx, with cards-index.onnx and "
                      "cards-face.onnx beside it)."),
    click.option("--prelude", type=click.Path(dir_okay=False), default=None,
                 help="A log of the game so far, when the video starts mid-game (face-down cards and pile "
                      "sizes cannot be seen); without it the first frame is read as a new round's layout."),
    click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
                 help="Folder for events.jsonl, annotated.mp4 and summary.json."),
]


_segment_option = click.option(
    "--segment-seconds", "segment_s", type=click.FloatRange(min=0.5), default=10.0, show_default=True,
    help="With a session: the length of each video segment (closed segments are whole; a crash "
         "loses at most the last second or so of the one being written).")


def _with_common(f: Any) -> Any:
    for option in reversed(_common):
        f = option(f)
    return f


@click.command()
@click.argument("video", type=click.Path())
@click.option("--calibration", "calibration_spec", required=True, metavar="FILE|auto|session",
              help="A calibration file (spit-referee calibrate), or auto: find the mat's markers in the "
                   "video's first frames (no lens model), or session: the one a session folder recorded.")
@_with_common
@click.option("--no-video", is_flag=True, help="Do not write annotated.mp4 (faster).")
@click.option("--session", "record_session", is_flag=True,
              help="Make --out a session too: the frames in video segments, the calibration and model "
                   "versions, a hash-chained event log (spit-referee verify; docs/sessions.md).")
@_segment_option
def replay(video: str, calibration_spec: str, board_spec: str | None, model: str | None, prelude: str | None,
           out_dir: str, no_video: bool, record_session: bool, segment_s: float) -> None:
    """Referee a recorded VIDEO (or a session folder): events, verdicts and an annotated video in --out.

    A session folder replays its intact segments with the frame numbers and times it recorded;
    --calibration session uses the calibration it recorded. SIGINT (Ctrl-C) or SIGTERM stop it
    after the frame in hand, with everything closed (a session too); it then exits 130 or 143."""
    done = referee_recording(video, calibration_spec, out_dir, model=model, so_far=GameSoFar.read(prelude),
                             board_spec=board_spec, annotated=not no_video, record_session=record_session,
                             segment_s=segment_s)
    _report(done.referee, done.summary, done.out)
    for skipped in done.summary.get("skipped", []):
        _console().print(f"[yellow]not replayed:[/] {skipped}")
    if done.stop:
        _console().print(f"stopped by {done.stop.signal} after {done.summary.get('frames', 0)} frames")
        raise SystemExit(done.stop.exit_status)


@dataclass
class Refereed:
    """A recording refereed to the end (or until a signal stopped it)."""

    referee: Any
    summary: dict[str, Any]
    out: Path
    stop: StopRequest
    session: Any  # the session folder replayed (referee.session.verify.Session), or None


def referee_recording(video: str, calibration_spec: str, out_dir: str, *, model: str | None = None,
                      so_far: GameSoFar | None = None, board_spec: str | None = None, annotated: bool = True,
                      record_session: bool = False, segment_s: float = 10.0,
                      opened: Any = None) -> Refereed:
    """Referee a video file or a session folder's frames to ``out_dir``, with a progress bar on
    a terminal: the one path of ``replay`` and ``rejudge``. ``opened``: the session folder,
    already opened by the caller."""
    from referee.live.run import run

    source, session = _open_input(video, opened)
    calibration = _calibration(calibration_spec, video, session)
    if tuple(calibration.image_size) != tuple(source.size):
        source.close()
        raise InputError(f"the video is {source.size[0]}x{source.size[1]} but the calibration is for "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]}", calibration_spec)
    with _refereeing(out_dir, board_spec, record_session, segment_s, calibration=calibration,
                     calibration_spec=calibration_spec, model=model, so_far=so_far or GameSoFar(),
                     source=source) as setup:
        with source, Progress(TextColumn("refereeing"), BarColumn(), MofNCompleteColumn(),
                              TextColumn("frames"), TimeRemainingColumn(), transient=True,
                              console=Console(stderr=True), disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("replay", total=source.frame_count)
            summary = run(source, setup.referee, setup.out, video=annotated, writer=setup.writer,
                          session=setup.recorder, progress=lambda n: bar.update(task, completed=n),
                          stop=setup.stop)
    return Refereed(setup.referee, summary, setup.out, setup.stop, session)


@click.command()
@click.option("--log", "log_path", default=None, metavar="LOG|bundled",
              help="Referee a game log through the rules instead (bundled: a self-played game with faults).")
@click.option("--faults-only", is_flag=True, help="With --log: only faults and calls.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="demo-out", show_default=True,
              help="Folder for events.jsonl, annotated.mp4 and summary.json.")
@click.option("--no-video", is_flag=True, help="Do not write annotated.mp4.")
def demo(log_path: str | None, faults_only: bool, out_dir: str, no_video: bool) -> None:
    """Referee the bundled recording: a race to a spit pile, one frame apart, and its fault.

    Uses the bundled calibration and card model and the console board (signals are printed as
    they happen), writes --out, then prints every verdict. See referee/data/demo/README.md.
    """
    if log_path is not None:
        from referee.cli.game import demo_log

        demo_log(log_path, faults_only)
        return
    from importlib import resources

    folder = resources.files("referee.data").joinpath(DEMO_DIR)
    video, calibration = str(folder.joinpath("video.mp4")), str(folder.joinpath("calibration.yaml"))
    ctx = click.get_current_context()
    ctx.invoke(replay, video=video, calibration_spec=calibration, board_spec="console", model=None,
               prelude=None, out_dir=out_dir, no_video=no_video, record_session=False, segment_s=10.0)


@click.command()
@click.option("--camera", type=click.IntRange(0), default=0, show_default=True, help="Camera index.")
@click.option("--calibration", "calibration_spec", required=True, type=click.Path(dir_okay=False),
              help="The calibration file of this camera and mat (spit-referee calibrate).")
@_with_common
@click.option("--headless", is_flag=True, help="No window: write the files only (Ctrl-C stops).")
@click.option("--session/--no-session", "record_session", default=True, show_default=True,
              help="Make --out a session: the camera's frames in video segments, the calibration and model "
                   "versions, a hash-chained event log (spit-referee verify; docs/sessions.md).")
@_segment_option
def live(camera: int, calibration_spec: str, board_spec: str | None, model: str | None, prelude: str | None,
         out_dir: str, headless: bool, record_session: bool, segment_s: float) -> None:
    """Referee a game from a camera, with a live overlay window (q stops) or --headless.

    --out becomes a session folder (unless --no-session): what the camera saw and every record,
    kept so that a crash loses at most a few seconds of video and an edit shows (spit-referee verify).
    Ctrl-C (SIGINT) or SIGTERM end the game: the frame in hand is finished, everything is closed,
    and the exit status is 0."""
    import cv2

    from referee.live.run import run
    from referee.live.source import open_camera
    from referee.vision.calibration import load_calibration

    calibration = load_calibration(calibration_spec)
    show = None
    if not headless:
        if not _has_gui(cv2):
            raise MissingPrerequisite("this OpenCV build has no windows (opencv-python-headless): run with "
                                      "--headless, or pip install opencv-python for the live window")

        def show(picture: Any) -> bool:
            cv2.imshow("spit-referee", picture)
            return cv2.waitKey(1) & 0xFF != ord("q")

    source = open_camera(camera)
    with _refereeing(out_dir, board_spec, record_session, segment_s, calibration=calibration,
                     calibration_spec=calibration_spec, model=model, so_far=GameSoFar.read(prelude),
                     source=source) as setup:
        with source:
            try:
                summary = run(source, setup.referee, setup.out, video=True, show=show, writer=setup.writer,
                              session=setup.recorder, stop=setup.stop)
            except KeyboardInterrupt:  # a second Ctrl-C while stopping: the session is still closed
                summary = {"stopped": "KeyboardInterrupt"}
    _report(setup.referee, summary, setup.out)


def _has_gui(cv2: Any) -> bool:
    info = cv2.getBuildInformation()
    gui = next((line for line in info.splitlines() if line.strip().startswith("GUI:")), "")
    return bool(gui) and "NONE" not in gui.upper()


def _report(referee: Any, summary: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    from referee.events import Call, TableEvent, Verdict

    console = _console()
    table = Table(title="verdicts and calls")
    for name in ("t (s)", "frame", "who", "what", "verdict"):
        table.add_column(name, no_wrap=name != "what")
    last_event: TableEvent | None = None
    for record in referee.records:
        if isinstance(record, TableEvent):
            last_event = record
        elif isinstance(record, Verdict) and last_event is not None:
            if (last_event.evidence or {}).get("prelude"):
                continue
            style = {"fault": "bold red", "warning": "yellow"}.get(record.outcome, "green")
            verdict = f"[{style}]{record.code or 'legal'}[/]" + (f" ({record.rule})" if record.rule else "")
            table.add_row(f"{record.t:7.2f}", str(record.frame), str(record.player), record.message, verdict)
        elif isinstance(record, Call):
            table.add_row(f"{record.t:7.2f}", str(record.frame), "", f"[cyan]{record.message}[/]",
                          "[cyan]call[/]")
    console.print(table)
    speed = summary.get("speed_x_real_time")
    console.print(f"{summary.get('frames', 0)} frames, {summary.get('dropped', 0)} dropped"
                  + (f", {speed}x real time" if speed else "")
                  + f"; {len(referee.rejected)} events rejected as impossible. Written to {out}/")
