"""Subcommands on recorded sessions: ``verify``, ``rejudge``."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from referee.errors import InputError

if TYPE_CHECKING:
    from referee.session.rejudge import Change, Judgement, Rejudgement

LABELS = {"bad": "BAD", "interrupted": "INTERRUPTED", "note": "note"}


def register(group: click.Group) -> None:
    group.add_command(verify)
    group.add_command(rejudge)


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
        (f"  ended {ended['at']}" + (f", stopped by {ended['stopped']}" if ended.get("stopped") else ""))
        if ended else "  not closed: the recording was interrupted",
    ]


@click.command()
@click.argument("session", type=click.Path(file_okay=False))
@click.option("--calibration", "calibration_spec", default="session", show_default=True,
              metavar="session|FILE", help="The calibration the session recorded, or another file.")
@click.option("--model", type=click.Path(dir_okay=False), default=None,
              help="The card model to judge with now (default: models/cards.onnx, with cards-index.onnx "
                   "and cards-face.onnx beside it).")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=5.0), default=0.5, show_default=True,
              help="Seconds apart that the two runs may place the same moment (docs/sessions.md, rejudge).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Keep the new run here: events.jsonl, summary.json and rejudge.json (never the session "
                   "folder; without --out nothing is kept).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def rejudge(session: str, calibration_spec: str, model: str | None, tolerance: float, out_dir: str | None,
            as_json: bool) -> None:
    """Referee a recorded SESSION again with the current card model and rules, and list every
    verdict and call that changed: added, removed, or changed (fault code, player, first-touch
    call). Exit 0 when nothing changed, 1 when something did, 2 on an error.

    The session's folder is only read. A damaged session is rejudged where it is intact; what
    could not be compared is said."""
    from referee.cli.refereeing import GameSoFar, model_files, referee_recording
    from referee.session.recorder import software
    from referee.session.rejudge import recorded_game, version_differences
    from referee.session.rejudge import rejudge as compare_session
    from referee.session.verify import open_session

    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    folder = Path(session)
    opened = open_session(folder)  # InputError (exit 2) when the folder is not a session
    if out_dir is not None:
        _check_out(Path(out_dir), folder)
    game = recorded_game(opened)
    so_far = GameSoFar(game.rules, game.prelude, None)
    with tempfile.TemporaryDirectory(prefix="rejudge-") as scratch:
        done = referee_recording(str(folder), calibration_spec, out_dir or scratch, model=model,
                                 so_far=so_far, annotated=False, opened=opened)
        if done.stop:
            click.echo(f"rejudge: stopped by {done.stop.signal}; nothing compared", err=True)
            raise SystemExit(done.stop.exit_status)
        versions = version_differences(opened.manifest, model_files(model), game.rules, software())
        result = compare_session(opened, done.referee.records, versions=versions,
                                 tolerance=tolerance)
        if out_dir is not None:
            (Path(out_dir) / "rejudge.json").write_text(json.dumps(result.to_json(), indent=1) + "\n",
                                                        encoding="utf-8")
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=1))
    else:
        for line in _rejudge_lines(result, opened.report.findings):
            click.echo(line)
    compared = result.comparison.compared_old + result.comparison.compared_new
    if compared == 0:
        raise InputError("nothing could be compared: " + ("; ".join(result.cover.skipped) or
                                                          "neither run said anything"), str(folder))
    if result.changed:
        raise SystemExit(1)


def _check_out(out: Path, session: Path) -> None:
    """--out may not be the session folder, lie inside it, or hold another session."""
    out_r, session_r = out.resolve(), session.resolve()
    if out_r == session_r or session_r in out_r.parents:
        raise InputError("--out is inside the session folder: a session's record is never written to; "
                         "choose another folder", str(out))
    if (out / "session.json").exists():
        raise InputError("--out holds a session: choose another folder, so that no record is overwritten",
                         str(out))


def _rejudge_lines(result: Rejudgement, findings: list[Any]) -> list[str]:
    c, cover = result.comparison, result.cover
    lines = [f"rejudge {result.folder}"]
    damage = [f for f in findings if f.level == "bad"]
    if damage:
        problems = f"{len(damage)} problem" + ("s" if len(damage) > 1 else "")
        lines.append(f"  the session is damaged ({problems}, first: {damage[0]}); rejudged "
                     "where it is intact (spit-referee verify lists everything)")
    lines.append("  judged now with: " + ("; ".join(result.versions) if result.versions
                                          else "the same models, rules and software as recorded"))
    first, last = cover.first_t, cover.last_t
    span = f"t {first:.2f}-{last:.2f} s" if first is not None and last is not None else "no time"
    lines.append(f"  compared {span}: {c.compared_old} recorded and {c.compared_new} new verdicts and "
                 f"calls, {c.same} the same (matched by kind, pile or slot, and time within "
                 f"{result.tolerance:.2f} s)")
    for why in cover.skipped:
        lines.append(f"  not compared: {why}")
    if c.not_compared_old or c.not_compared_new:
        lines.append(f"  left out there: {len(c.not_compared_old)} recorded, {len(c.not_compared_new)} new")
    lines.extend(line for change in c.changes for line in _change_lines(change))
    counts = result.counts()
    if result.changed:
        n = len(c.changes)
        lines.append(f"rejudge: {n} difference{'s' if n > 1 else ''} ({counts['changed']} changed, "
                     f"{counts['added']} added, {counts['removed']} removed)")
    else:
        lines.append("rejudge: no verdict changed")
    return lines


def _change_lines(change: Change) -> list[str]:
    j = change.judgement
    where = f" on {j.where}" if j.where else ""
    frame = f" (frame {j.frame})" if j.frame is not None else ""
    what = f": {', '.join(change.what)}" if change.what else ""
    head = f"  {change.change.upper()} t {j.t:.2f} s{frame} {j.kind}{where}, rule {change.rule or '-'}{what}"
    return [head, f"      was: {_said(change.old)}", f"      now: {_said(change.new)}"]


def _said(judgement: Judgement | None) -> str:
    if judgement is None:
        return "(nothing)"
    return f"{judgement.verdict}: {judgement.text}"
