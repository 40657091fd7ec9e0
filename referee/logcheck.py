"""Checking a log: every game replayed through the rules, faults listed, problems counted.

Games are independent, so a long log is split at its ``game_start`` lines and the games are
judged in several processes; the report keeps the log's order and its line numbers.
"""

from __future__ import annotations

import io
import json
import multiprocessing
from dataclasses import dataclass, field

from referee.eventlog import LogError, read_records, record_to_dict
from referee.judging import JudgedGame, judge_records
from referee.selfplay.batch import default_jobs

_GAME_START = '{"type":"game_start"'


@dataclass
class CheckReport:
    """What ``spit-referee check`` prints: ``out`` to standard output, ``err`` to errors."""

    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    problems: int = 0
    games: int = 0


def summary(game: JudgedGame) -> str:
    faults: dict[str, int] = {}
    for v in game.faults:
        faults[v.code or "?"] = faults.get(v.code or "?", 0) + 1
    rounds = game.final_state.round if game.final_state else 0
    ending = (f"{game.outcome.winner or 'nobody'} won ({game.outcome.reason})" if game.outcome
              else "not finished")
    fault_text = ", ".join(f"{k} x{n}" for k, n in sorted(faults.items())) or "no faults"
    seed = f" (seed {game.start.seed})" if game.start.seed is not None else ""
    return (f"game {game.start.game}{seed}: {len(game.events)} events, {rounds} round(s), {ending}; "
            f"{fault_text}")


def _check_text(args: tuple[str, str, int, bool, bool]) -> CheckReport:
    text, source, first_line, as_json, all_verdicts = args
    contents = read_records(io.StringIO(text), source)
    offset = first_line - 1
    report = CheckReport(problems=len(contents.errors))
    for e in contents.errors:
        report.err.append(f"malformed {LogError(e.source, e.line + offset, e.field, e.message)}")
    lines = [n + offset for n in contents.line_numbers]
    for game in judge_records(contents.records, lines, source):
        report.games += 1
        report.problems += len(game.errors) + len(game.disagreements())
        report.err += [f"inconsistent (game {game.start.game}) {exc}" for exc in game.errors]
        for judged, recorded in game.disagreements():
            was = f"{recorded.outcome} {recorded.code or ''}".strip() if recorded else "no verdict"
            report.err.append(f"changed {source}: game {game.start.game} event {judged.event}: "
                              f"recorded {was}, now {judged.outcome} {judged.code or ''}".rstrip())
        if as_json:
            report.out.append(json.dumps({
                "game": game.start.game,
                "events": len(game.events),
                "winner": game.outcome.winner if game.outcome and game.outcome.winner else None,
                "faults": [record_to_dict(v) for v in game.faults],
                "errors": [str(e) for e in game.errors],
            }))
            continue
        report.out.append(summary(game))
        for v in game.verdicts if all_verdicts else game.faults:
            label = v.code or str(v.outcome)
            report.out.append(f"  t={v.t:9.3f}  #{v.event:<4} {v.player}  {label:<15} {v.rule or '':<4} "
                              f"{v.message}")
    return report


def _game_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, number of the first line) of each game: a game starts at a game_start line."""
    starts = [0]
    at = text.find("\n" + _GAME_START)
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n" + _GAME_START, at + 1)
    bounds = [*starts, len(text)]
    spans: list[tuple[int, int, int]] = []
    line, counted = 1, 0
    for a, b in zip(bounds, bounds[1:], strict=False):
        line += text.count("\n", counted, a)
        counted = a
        if a < b:
            spans.append((a, b, line))
    return spans


#: The log being checked, shared with forked worker processes without copying.
_SHARED_TEXT = ""


def _check_span(args: tuple[int, int, int, str, bool, bool]) -> CheckReport:
    start, end, first_line, source, as_json, all_verdicts = args
    return _check_text((_SHARED_TEXT[start:end], source, first_line, as_json, all_verdicts))


def check_log_text(text: str, source: str, *, as_json: bool = False, all_verdicts: bool = False,
                   jobs: int | None = None) -> CheckReport:
    """Judge every game in a log's text; see :class:`CheckReport`."""
    global _SHARED_TEXT
    spans = _game_spans(text)
    jobs = min(jobs or default_jobs(), max(1, len(spans) // 8))
    tasks = [(a, b, first, source, as_json, all_verdicts) for a, b, first in spans]
    _SHARED_TEXT = text
    try:
        if jobs <= 1:
            reports = list(map(_check_span, tasks))
        else:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                reports = pool.map(_check_span, tasks, chunksize=8)
    finally:
        _SHARED_TEXT = ""
    total = CheckReport()
    for r in reports:
        total.out += r.out
        total.err += r.err
        total.problems += r.problems
        total.games += r.games
    if total.games == 0 and total.problems == 0:
        total.err.append(f"empty {source}: no records")
        total.problems += 1
    return total
