"""Subcommands on recorded sessions: ``verify``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

LABELS = {"bad": "BAD", "interrupted": "INTERRUPTED", "note": "note"}


def register(group: click.Group) -> None:
    group.add_command(verify)


@click.command()
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--decode", is_flag=True, help="Also decode every segment with OpenCV and count its frames "
              "(slower; the sha256 check already proves a closed segment is as written).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary and findings as JSON.")
def verify(session: str, decode: bool, as_json: bool) -> None:
    """Check a recorded SESSION folder: the event log's hash chain, the video segments, the
    calibration. Exit 0 when everything is intact (a crash's torn last line or lost last
    segment is reported, not an error), 1 naming the first bad line or file."""
    from referee.session.verify import verify_session

    # a segment cut short by a crash is expected here: keep FFmpeg's "partial file" errors quiet
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    report = verify_session(Path(session), decode=decode)
    summary = report.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        for line in _describe(summary):
            click.echo(line)
        for finding in report.findings:
            click.echo(f"{LABELS.get(finding.level, finding.level)}: {finding}")
        first = report.first_bad
        if first is not None:
            click.echo(f"verify: FAILED, first problem: {first}")
        elif report.ended is None or any(f.level == "interrupted" for f in report.findings):
            click.echo("verify: intact up to the interruption")
        else:
            click.echo("verify: intact")
    if not report.ok:
        raise SystemExit(1)


def _describe(s: dict[str, Any]) -> list[str]:
    soft = s.get("software") or {}
    git = soft.get("git") or {}
    version = f"spit-referee {soft.get('version', '?')}"
    if git:
        version += f" (git {str(git.get('commit', ''))[:10]}{', modified' if git.get('modified') else ''})"
    models = ", ".join(f"{m['file']} {str(m['sha256'])[:12]}" for m in s["models"]) or "none recorded"
    lg, video = s["log"], s["video"]
    chain = (f"hash chain intact to line {lg['verified']}" if lg["verified"] == lg["lines"]
             else f"hash chain verified to line {lg['verified']} of {lg['lines']}")
    span = (f", t {video['from_t']:.2f}-{video['to_t']:.2f} s" if video["from_t"] is not None else "")
    ended = s.get("ended")
    return [
        f"session {s['session']} (id {s['id']}), started {s['started']}",
        f"  recorded with {version}; models: {models}",
        f"  log: {lg['lines']} lines, {chain} (head {lg['head'][:16]}...): {lg['games']} games, "
        f"{lg['events']} table events, {lg['verdicts']} verdicts ({lg['faults']} faults), "
        f"{lg['calls']} calls",
        f"  video: {video['segments']} segments ({video['usable']} usable), {video['frames']} frames{span}",
        f"  ended {ended['at']}" if ended else "  not closed: the recording was interrupted",
    ]
