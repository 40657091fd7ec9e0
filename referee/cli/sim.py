"""Subcommands of the table simulator: ``simulate`` (a video with its truth) and ``dataset``
(frames and crops with YOLO labels for the card model)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from referee.errors import InputError

DEFAULT_SCENARIO = "selfplay"


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    for command in (simulate, dataset):
        group.add_command(command)


def _progress(label: str) -> Progress:
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), transient=True, console=Console(stderr=True),
                    disable=not sys.stderr.isatty())


def _out_dir(out: str) -> Path:
    """The output folder, created; InputError (``--out``) when it cannot be written."""
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".spit-referee-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"cannot write to {out!r}: {exc.strerror or exc}", "--out") from None
    return path


def _deck(spec: str | None) -> str | None:
    """Check a ``--deck`` value now (a folder is read and checked), before any rendering."""
    if spec is None:
        return None
    from referee.sim.decks import get_deck

    try:
        get_deck(spec)
    except InputError as exc:
        raise InputError(exc.message, f"--deck {exc.where or spec}") from None
    return spec


@click.command()
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Seed of everything random: the game, camera, table, light, deck, motion.")
@click.option("--scenario", default=DEFAULT_SCENARIO, show_default=True,
              help="Which scenario (see --list); 'selfplay' renders a whole self-played game.")
@click.option("--deck", default=None, metavar="NAME|DIR",
              help="kenney, kennard, kennard-bigface, feliksh, procedural:N, or a folder of 52 faces "
                   "(QH.png, 10S.png, ...) and back.png. Default: chosen by the seed.")
@click.option("--size", default="1280x720", show_default=True,
              help="Frame size WIDTHxHEIGHT (even sides; the fixtures use 960x540).")
@click.option("--fps", default="30", show_default=True, help="Frame rate (30, 25, 29.97, 30000/1001).")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Folder for video.mp4, events.jsonl, calibration.yaml, frames.jsonl.gz, meta.json.")
@click.option("--seconds", type=click.FloatRange(0.1, 36_000), default=None,
              help="Render only the first SECONDS of the scenario (e.g. of a whole game).")
@click.option("--list", "list_only", is_flag=True, help="List the scenarios and exit.")
def simulate(seed: int, scenario: str, deck: str | None, size: str, fps: str, out: str | None,
             seconds: float | None, list_only: bool) -> None:
    """Render a simulated game as an overhead H.264 video with its exact truth.

    The same seed (and options) gives the same video and truth.
    """
    from referee.sim.scenarios import SCENARIOS, make_fragment

    if list_only:
        width = max(len(name) for name in SCENARIOS)
        for name, sc in SCENARIOS.items():
            click.echo(f"{name:<{width}}  {sc.summary}")
        return
    if out is None:
        raise InputError("missing the folder to write to (--out DIR)", "--out")
    from referee.sim.clip import render_clip
    from referee.sim.video import parse_fps, parse_size

    frame_size = parse_size(size)
    rate = parse_fps(fps)
    if scenario not in SCENARIOS:
        raise InputError(f"unknown scenario {scenario!r} (spit-referee simulate --list names them)",
                         "--scenario")
    deck = _deck(deck)
    path = _out_dir(out)
    fragment = make_fragment(scenario, seed)
    if seconds is not None:
        fragment = fragment.cut(seconds)
    with _progress(f"{scenario} seed {seed}") as bar:
        task = bar.add_task("frames", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = render_clip(fragment, path, frame_size, rate, deck, progress=step)
    click.echo(f"wrote {result.frames} frames ({result.seconds:.2f} s at {rate} fps, "
               f"{result.frames / max(result.render_s, 1e-9):.1f} frames/s rendered) to {path}", err=True)


@click.command()
@click.option("--count", type=click.IntRange(1, 10_000_000), required=True, help="How many frames.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the whole set.")
@click.option("--size", default="1280x720", show_default=True, help="Frame size WIDTHxHEIGHT.")
@click.option("--val", "val_fraction", type=click.FloatRange(0, 0.9), default=0.2, show_default=True,
              help="Fraction of frames in the validation split.")
@click.option("--out", "out", type=click.Path(file_okay=False), required=True, help="Dataset folder.")
def dataset(count: int, seed: int, size: str, val_fraction: float, out: str) -> None:
    """Write frames and card crops with YOLO labels (52 faces by identity, backs, hands).

    Writes images/{train,val}, labels/{train,val}, crops/{train,val}/CLASS, data.yaml and
    dataset.json; the same seed and count give the same files.
    """
    from referee.sim.dataset import export_dataset
    from referee.sim.video import parse_size

    frame_size = parse_size(size)
    path = _out_dir(out)
    with _progress(f"dataset seed {seed}") as bar:
        task = bar.add_task("frames", total=count)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        summary = export_dataset(path, count, seed=seed, size=frame_size, val_fraction=val_fraction,
                                 progress=step)
    click.echo(f"wrote {summary.images} frames ({summary.train} train, {summary.val} val), "
               f"{summary.labels} labels and {summary.crops} crops to {path}", err=True)
