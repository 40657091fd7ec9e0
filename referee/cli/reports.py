"""Subcommands that write HTML reports of recorded sessions: ``dispute`` and ``report``.

Both pages are self-contained (docs/reports.md): open them in any browser, no server, no
network. Errors (no such session, a line out of range, a time outside the session) are
:class:`~referee.errors.InputError`, printed by the command group as one line.
"""

from __future__ import annotations

import os
from pathlib import Path

import click


def register(group: click.Group) -> None:
    group.add_command(dispute)
    group.add_command(report)


def _quiet_ffmpeg() -> None:
    # a segment cut short by a crash is expected: keep FFmpeg's "partial file" errors quiet
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


@click.command()
@click.argument("session", type=click.Path(file_okay=False))
@click.option(
    "--event",
    "line",
    type=click.IntRange(min=1),
    metavar="N",
    help="The line number N of a record in the session's events.jsonl (as verify, check and "
    "report show it): an event, its verdict, or a call after it.",
)
@click.option(
    "--at",
    "at",
    type=float,
    metavar="TIME",
    help="A moment in seconds of game time: the nearest event within 1 s, or the frames there.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    default=None,
    help="The HTML file to write (default: dispute-lineN.html or dispute-tT.html in SESSION).",
)
def dispute(session: str, line: int | None, at: float | None, out: str | None) -> None:
    """A self-contained HTML report of one contested moment of a recorded SESSION: the verdict
    and its rule, the frames before, at and after the contact, the contested pile, both cards'
    trajectories and contact times, the layering, and how sure each piece of evidence is."""
    from referee.errors import InputError
    from referee.session.dispute import write_dispute

    if (line is None) == (at is None):
        raise InputError("give exactly one of --event N and --at TIME", "dispute")
    _quiet_ffmpeg()
    path, moment = write_dispute(Path(session), event=line, at=at, out=Path(out) if out else None)
    lines = ", ".join(str(n.line) for n in moment.events) or "none"
    click.echo(f"dispute: {moment.chosen}; events on lines {lines}")
    click.echo(f"wrote {path}")


@click.command()
@click.argument("session", type=click.Path(file_okay=False))
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    default=None,
    help="The HTML file to write (default: report.html in SESSION).",
)
def report(session: str, out: str | None) -> None:
    """A self-contained HTML report of a whole recorded SESSION: rounds, plays and faults per
    player, piles taken, every event with its log line, and a timeline of the game."""
    from referee.session.report import write_report

    _quiet_ffmpeg()
    path, facts = write_report(Path(session), out=Path(out) if out else None)
    click.echo(f"report: {facts}")
    click.echo(f"wrote {path}")
