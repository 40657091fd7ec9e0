"""Subcommands for games and logs: ``selfplay``, ``check``, ``rules`` (and ``demo --log``)."""

from __future__ import annotations

import io
import sys
from importlib import resources
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from referee.errors import InputError
from referee.eventlog import LogContents, read_records
from referee.events import Call
from referee.judging import JudgedGame, judge_records
from referee.logcheck import check_log_text, summary
from referee.rules import VARIANT_FIELDS, Fault, RuleSet
from referee.selfplay import GameTooLong, SelfPlayConfig
from referee.selfplay.batch import games_jsonl

DEMO_LOG = "demo-game.jsonl"
BUNDLED = "bundled"


def _console(stderr: bool = False) -> Console:
    """A console that is wide enough for the verdict tables when output is not a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else 140)


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    for command in (selfplay, check, rules):
        group.add_command(command)


def _read_log_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.is_file():
        raise InputError("no such log file", path)
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text log (byte {exc.start} is not UTF-8)", path) from None


def _read_log(path: str) -> LogContents:
    return read_records(io.StringIO(_read_log_text(path)), path)


def _verdict_table(game: JudgedGame, all_verdicts: bool) -> Table:
    table = Table(title=f"game {game.start.game}" + (f" (seed {game.start.seed})" if game.start.seed
                                                     is not None else ""), show_lines=False)
    for name, style in (("t (s)", "dim"), ("#", "dim"), ("who", ""), ("event", ""),
                        ("verdict", ""), ("rule", ""), ("what happened", "")):
        table.add_column(name, style=style, no_wrap=name != "what happened")
    calls_by_t: dict[float, list[Call]] = {}
    for c in game.calls:
        calls_by_t.setdefault(c.t, []).append(c)
    for v in game.verdicts:
        shown = all_verdicts or v.code is not None
        if shown:
            style = {"fault": "bold red", "warning": "yellow"}.get(v.outcome, "green")
            kind = game.kinds.get(v.event, "?")
            label = v.code or "legal"
            table.add_row(f"{v.t:8.2f}", str(v.event), str(v.player), kind,
                          f"[{style}]{label}[/]", v.rule or "", v.message)
        for c in calls_by_t.pop(v.t, []):
            table.add_row(f"{c.t:8.2f}", "", "", "[bold cyan]call[/]", f"[cyan]{c.call}[/]", "",
                          f"[cyan]{c.message}[/]")
    return table


def demo_log(log_path: str, faults_only: bool) -> None:
    """Referee a game log (``bundled``: the bundled self-played game) through the rules engine
    and print every verdict; ``spit-referee demo --log`` (the video demo is in refereeing.py).

    The bundled log is a self-played game with deliberate faults (table events only: the
    verdicts shown are worked out now, by the rules engine).
    """
    if log_path == BUNDLED:
        text = resources.files("referee.data").joinpath(DEMO_LOG).read_text(encoding="utf-8")
        contents = read_records(io.StringIO(text), DEMO_LOG)
    else:
        contents = _read_log(log_path)
    console = _console()
    for err in contents.errors:
        console.print(f"[red]bad line[/] {err}")
    for game in judge_records(contents.records):
        console.print(_verdict_table(game, all_verdicts=not faults_only))
        for exc in game.errors:
            console.print(f"[red]inconsistent event[/] {exc}")
        console.print(summary(game), highlight=False)


@click.command()
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the first game.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=1, show_default=True,
              help="How many games (game i uses seed SEED+i).")
@click.option("--fault-rate", type=click.FloatRange(0, 1), default=0.05, show_default=True,
              help="Chance that a bot commits a deliberate fault at each decision.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(list(VARIANT_FIELDS)),
              help="Switch a variant on (repeatable), e.g. --variant V1 --variant V3.")
@click.option("--events-only", is_flag=True, help="Write table events only, no verdicts or calls.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes to play games in (default: one per core).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, allow_dash=True), required=True,
              help="Where to write the JSON Lines log ('-' for standard output).")
def selfplay(seed: int, games: int, fault_rate: float, variants: tuple[str, ...], events_only: bool,
             jobs: int | None, out_path: str) -> None:
    """Two bots play whole games; write their event log (with the referee's verdicts)."""
    try:
        config = SelfPlayConfig(rules=RuleSet.from_variants(variants), fault_rate=fault_rate)
    except ValueError as exc:
        raise InputError(str(exc), "--variant") from None
    texts = games_jsonl(seed, games, config, events_only=events_only, jobs=jobs)
    if out_path == "-":
        for text in texts:
            sys.stdout.write(text)
        return
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as stream, Progress(
        TextColumn("self-play"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        disable=games < 2, transient=True, console=Console(stderr=True),
    ) as bar:
        task = bar.add_task("games", total=games)
        try:
            for text in texts:
                stream.write(text)
                bar.advance(task)
        except GameTooLong as exc:
            raise InputError(str(exc), "selfplay") from None
    click.echo(f"wrote {games} game(s) to {out_path}", err=True)


@click.command()
@click.argument("log", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per game instead of text.")
@click.option("--all", "all_verdicts", is_flag=True, help="List every verdict, not only faults.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes to judge games in (default: one per core).")
def check(log: str, as_json: bool, all_verdicts: bool, jobs: int | None) -> None:
    """Replay LOG through the rules; print every fault with its rule.

    Exits 1 when the log has malformed lines, events that contradict the game state, or
    recorded verdicts that the rules no longer agree with; 0 otherwise. Every good line is
    still judged.
    """
    report = check_log_text(_read_log_text(log), log, as_json=as_json, all_verdicts=all_verdicts,
                            jobs=jobs)
    for line in report.err:
        click.echo(line, err=True)
    if report.out:
        sys.stdout.write("\n".join(report.out) + "\n")
    sys.exit(1 if report.problems else 0)


@click.command()
def rules() -> None:
    """List the fault codes, their rules, and the variants a table can switch on."""
    table = Table(title="faults the referee signals")
    for col in ("code", "rule", "meaning"):
        table.add_column(col)
    for fault in Fault:
        table.add_row(fault.code, fault.rule, fault.description)
    console = _console()
    console.print(table)
    console.print("variants: " + ", ".join(f"{v} ({name})" for v, name in VARIANT_FIELDS.items()))
