"""``spit-referee score``: a referee's event log scored against the simulator's truth."""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console
from rich.table import Table

from referee import scoring
from referee.events import TableEvent
from referee.scoring import Accuracy, Score, Unmatched

#: Unmatched events listed in the text report (all of them are in --json).
SHOWN_UNMATCHED = 20


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    group.add_command(score)


def _console() -> Console:
    return Console(width=None if sys.stdout.isatty() else 120, highlight=False, soft_wrap=True)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def _ms(x: float | None, signed: bool = False) -> str:
    return "n/a" if x is None else f"{x:+.1f} ms" if signed else f"{x:.1f} ms"


def describe(event: TableEvent) -> str:
    """``play A 10S slot 1 -> pile 2``: an event in a few words."""
    parts = [event.kind, str(event.player)]
    card = getattr(event, "card", None)
    if card is not None:
        parts.append(card.code)
    where = []
    for name, label in (("slot", "slot"), ("from_slot", "slot"), ("to_slot", "slot"), ("pile", "pile")):
        value = getattr(event, name, None)
        if value is not None:
            where.append(f"{label} {value}")
    if where:
        parts.append(" -> ".join(where))
    return " ".join(parts)


def _events_table(result: Score) -> Table:
    table = Table(title="table events")
    for name in ("type", "truth", "found", "matched", "precision", "recall"):
        table.add_column(name, justify="left" if name == "type" else "right")
    for kind in result.kinds():
        c = result.counts(kind)
        table.add_row(kind, str(c.truth), str(c.found), str(c.matched), _pct(c.precision), _pct(c.recall))
    c = result.counts()
    table.add_row("[bold]all[/]", str(c.truth), str(c.found), str(c.matched), f"[bold]{_pct(c.precision)}[/]",
                  f"[bold]{_pct(c.recall)}[/]", end_section=True)
    return table


def _calls_table(result: Score, frame: str) -> Table:
    table = Table(title="close calls")
    for name in ("call", "judged", "right", "accuracy"):
        table.add_column(name, justify="left" if name == "call" else "right")
    rows: list[tuple[str, Accuracy]] = [
        (f"first touch, >= 1 frame apart ({frame})", result.first_touch(within_frame=False)),
        ("first touch, within 1 frame", result.first_touch(within_frame=True)),
        ("slap order", result.slap_order()),
    ]
    for name, acc in rows:
        table.add_row(name, str(acc.total), str(acc.right), _pct(acc.accuracy))
    return table


def _unmatched_table(result: Score) -> Table:
    table = Table(title="unmatched events (missed: in the truth only; invented: found only)")
    for name in ("side", "game", "#", "t (s)", "event", "nearest on the other side"):
        table.add_column(name, justify="right" if name in ("game", "#", "t (s)") else "left")
    rows = [("missed", u) for u in result.missed] + [("invented", u) for u in result.invented]
    for side, u in rows[:SHOWN_UNMATCHED]:
        table.add_row(side, str(u.ref.game), str(u.ref.index), f"{u.ref.event.t:.3f}", describe(u.ref.event),
                      _nearest(u))
    if len(rows) > SHOWN_UNMATCHED:
        table.add_row("...", "", "", "", f"{len(rows) - SHOWN_UNMATCHED} more (--json lists all)", "")
    return table


def _nearest(u: Unmatched) -> str:
    if u.nearest is None:
        return "-"
    dt = u.nearest.event.t - u.ref.event.t
    return f"#{u.nearest.index} {describe(u.nearest.event)} ({dt:+.3f} s): {', '.join(u.differs)}"


def _print_text(result: Score, truth: str, events: str) -> None:
    console = _console()
    fps = "?" if result.fps is None else f"{result.fps:g}"
    console.print(f"{events} scored against {truth}: {result.games} game(s), tolerance "
                  f"{result.tolerance_s:g} s, {fps} fps ({result.fps_from})")
    console.print(_events_table(result))
    faults = result.faults()
    console.print(f"faults: {faults.total} in the truth, {faults.right} flagged ({_pct(faults.accuracy)}), "
                  f"{len(result.missed_faults)} missed, {len(result.false_faults)} false, "
                  f"{len(result.withdrawn_faults)} withdrawn (judged again)")
    for label, refs in (("missed fault", result.missed_faults), ("false fault", result.false_faults),
                        ("withdrawn fault", result.withdrawn_faults)):
        for f in refs:
            console.print(f"  {label}: game {f.game} event {f.verdict.event} t={f.t:.3f} {f.verdict.player} "
                          f"{f.verdict.code}")
    console.print(_calls_table(result, f"1 frame = {1000 / result.fps:.1f} ms" if result.fps else "?"))
    timing = result.timing()
    console.print(f"timing over {timing.matched} matched events: |dt| median {_ms(timing.median_ms)}, "
                  f"90th percentile {_ms(timing.p90_ms)}, max {_ms(timing.max_ms)}; "
                  f"bias {_ms(timing.bias_ms, signed=True)}")
    if result.missed or result.invented:
        console.print(_unmatched_table(result))


@click.command()
@click.option("--truth", "truth_path", type=click.Path(dir_okay=False), required=True,
              help="The truth log (a fixture's events.jsonl; fps from meta.json beside it).")
@click.option("--events", "events_path", type=click.Path(dir_okay=False), required=True,
              help="The referee's output log to score.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (docs/scoring.md) instead of text.")
@click.option("--tolerance", "tolerance_s", type=float, default=scoring.DEFAULT_TOLERANCE_S,
              show_default=True, metavar="SECONDS", help="Largest |t difference| for two events to match.")
@click.option("--fps", type=float, default=None,
              help="Frame rate for the one-frame race split (default: meta.json beside the truth, else 30).")
@click.option("--until", "until_s", type=float, default=None, metavar="SECONDS",
              help="Score only the events up to this time on both sides (a recording that runs on "
                   "past the part to be scored).")
def score(truth_path: str, events_path: str, as_json: bool, tolerance_s: float, fps: float | None,
          until_s: float | None) -> None:
    """Score a referee's event log (EVENTS) against the truth (TRUTH).

    Reports precision and recall of table events, fault detection, first-touch and slap-order
    accuracy, and timing error. Exits 0 whenever scoring succeeded (the score is data); bad
    input exits 2 with one line.
    """
    result = scoring.score_files(truth_path, events_path, tolerance_s=tolerance_s, fps=fps, until_s=until_s)
    for warning in result.warnings:
        click.echo(f"spit-referee: warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps({"truth": truth_path, "events": events_path, **result.to_json()}))
    else:
        _print_text(result, truth_path, events_path)
