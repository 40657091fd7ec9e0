"""The game report: a whole recorded session as a self-contained HTML page.

    path, facts = write_report(Path("games/g1"), out=Path("report.html"))

Rounds (a round ends at the referee's ``round_end`` call), per player and round the plays,
faults (by code and rule), warnings, slaps and piles taken; every call; a timeline plot of
the game (each player's events on a lane, faults marked, round ends and calls as lines); and
every table event with its verdict and its events.jsonl line, the N that ``spit-referee
dispute SESSION --event N`` takes. Only the records whose hashes verified are used; damage is
said at the top of the page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.events import (
    BOOKKEEPING_KINDS,
    Call,
    CallKind,
    GameStart,
    Outcome,
    Play,
    Slap,
    TableEvent,
    TakePile,
    Verdict,
)
from referee.live.overlay import describe
from referee.players import Player
from referee.session import html as h
from referee.session.moment import Numbered, numbered
from referee.session.verify import Session, open_session

MARKERS = {"play": "o", "move": ">", "turn": ".", "spit": "D", "take_back": "<", "slap": "^",
           "take_pile": "s", "deal": "|", "correct": "x"}


@dataclass
class PlayerRound:
    plays: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    warnings: int = 0
    slaps: int = 0
    piles: list[int] = field(default_factory=list)
    events: int = 0


@dataclass
class Round:
    game: int
    number: int
    start_t: float
    end_t: float | None = None
    players: dict[Player, PlayerRound] = field(
        default_factory=lambda: {Player.A: PlayerRound(), Player.B: PlayerRound()})
    calls: list[Numbered] = field(default_factory=list)


@dataclass
class Game:
    """What the log says happened, in rounds; the events with their verdicts."""

    rounds: list[Round]
    events: list[tuple[Numbered, Verdict | None]]
    calls: list[Numbered]


def summarise(records: list[Numbered]) -> Game:
    """Rounds, per-player counts, events with verdicts and calls from the numbered records."""
    rounds: list[Round] = []
    events: list[tuple[Numbered, Verdict | None]] = []
    calls: list[Numbered] = []
    game = -1
    current: Round | None = None
    pending: dict[int, int] = {}  # a game's event index -> its position in ``events``
    count = 0
    for item in records:
        r = item.record
        if isinstance(r, GameStart):
            game, count, pending = game + 1, 0, {}
            current = None
            continue
        if current is None:
            current = Round(max(game, 0), sum(1 for x in rounds if x.game == max(game, 0)) + 1, r.t)
            rounds.append(current)
        if isinstance(r, TableEvent):
            pending[count] = len(events)
            count += 1
            events.append((item, None))
            _count_event(current, r)
        elif isinstance(r, Verdict) and r.event in pending:
            ev_item, _ = events[pending[r.event]]
            events[pending[r.event]] = (ev_item, r)
            _count_verdict(current, r)
        elif isinstance(r, Call):
            calls.append(item)
            current.calls.append(item)
            if r.call is CallKind.ROUND_END:
                current.end_t = r.t
                current = None
    return Game(rounds, events, calls)


def _count_event(rnd: Round, ev: TableEvent) -> None:
    if ev.kind in BOOKKEEPING_KINDS:
        return
    who = rnd.players[ev.player]
    who.events += 1
    if isinstance(ev, Slap):
        who.slaps += 1
    elif isinstance(ev, TakePile):
        who.piles.append(ev.pile)


def _count_verdict(rnd: Round, verdict: Verdict) -> None:
    who = rnd.players[verdict.player]
    if verdict.outcome is Outcome.FAULT:
        who.faults[f"{verdict.code} ({verdict.rule})"] += 1
    elif verdict.outcome is Outcome.WARNING:
        who.warnings += 1


def _plays(game: Game) -> Counter[tuple[int, Player]]:
    """Legal plays per (round index, player)."""
    out: Counter[tuple[int, Player]] = Counter()
    for item, verdict in game.events:
        ev = item.record
        if isinstance(ev, Play) and verdict is not None and verdict.outcome is Outcome.LEGAL:
            k = _round_of(game, ev.t)
            out[(k, ev.player)] += 1
    return out


def _round_of(game: Game, t: float) -> int:
    for k, rnd in enumerate(game.rounds):
        if rnd.end_t is None or t <= rnd.end_t:
            return k
    return len(game.rounds) - 1


def write_report(folder: Path, *, out: Path | None = None) -> tuple[Path, str]:
    """Write the game report of ``folder`` (default ``report.html`` in it); returns the path
    and a one-line summary."""
    session = open_session(folder)
    game = summarise(numbered(session))
    for (k, player), n in _plays(game).items():
        game.rounds[k].players[player].plays = n
    page = report_page(session, game)
    return page.write(out or folder / "report.html"), _facts(game)


def _facts(game: Game) -> str:
    faults = Counter({p: sum(sum(r.players[p].faults.values()) for r in game.rounds) for p in Player})
    plays = Counter({p: sum(r.players[p].plays for r in game.rounds) for p in Player})
    return (f"{len(game.rounds)} round(s), {len(game.events)} table events; plays A {plays[Player.A]}, "
            f"B {plays[Player.B]}; faults A {faults[Player.A]}, B {faults[Player.B]}")


def report_page(session: Session, game: Game) -> h.Page:
    page = h.Page(f"Game report: {session.folder.name}",
                  subtitle=f"session {session.folder} (id {session.manifest.get('id')}), started "
                           f"{session.manifest.get('started')}")
    h.session_warnings(session, page)
    page.add(f'<div class="verdict" style="background:{h.HEADER_COLOUR}">{h.esc(_facts(game))}</div>')
    page.section("Rounds", _rounds(game))
    page.section("Timeline of the game", _timeline(game))
    page.section("Calls", _calls(game))
    page.section("Every event (N: the line for spit-referee dispute --event N)", _events(game))
    page.section("The session", h.session_facts(session))
    return page


def _rounds(game: Game) -> str:
    if not game.rounds:
        return h.missing("The log holds no table events.")
    rows = []
    for rnd in game.rounds:
        end = f"{rnd.end_t:.2f} s" if rnd.end_t is not None else "not ended in the recording"
        for p in Player:
            who = rnd.players[p]
            faults = ", ".join(f"{code} x{n}" for code, n in sorted(who.faults.items())) or "none"
            piles = ", ".join(f"pile {n}" for n in who.piles) or "none"
            rows.append([f"game {rnd.game + 1}, round {rnd.number}", f"{rnd.start_t:.2f} s - {end}", str(p),
                         who.events, who.plays, faults, who.warnings, who.slaps, piles])
    return h.table(rows, ["round", "time", "player", "events", "legal plays", "faults", "warnings",
                          "slaps", "piles taken"])


def _calls(game: Game) -> str:
    if not game.calls:
        return h.missing("The referee made no call in this recording (Spit!, round over, slap winner, "
                         "piles).")
    rows = [[c.line, f"{c.record.t:.2f} s", getattr(c.record, "call", ""), getattr(c.record, "message", "")]
            for c in game.calls]
    return h.table(rows, ["line", "t", "call", "message"])


def _events(game: Game) -> str:
    rows = []
    for item, verdict in game.events:
        ev = item.record
        assert isinstance(ev, TableEvent)
        prelude = " (prelude)" if (ev.evidence or {}).get("prelude") else ""
        outcome = "no verdict" if verdict is None else (
            verdict.outcome.value + (f" {verdict.code} ({verdict.rule})" if verdict.code else ""))
        style = "" if verdict is None or verdict.outcome is Outcome.LEGAL else ' style="color:#b00020"'
        rows.append([str(item.line), f"{ev.t:.3f}", h.esc(ev.player), h.esc(describe(ev)) + prelude,
                     f"<b{style}>{h.esc(outcome)}</b>", h.esc(verdict.message if verdict else "")])
    return h.table(rows, ["N", "t (s)", "who", "event", "verdict", "message"], raw=True)


def _timeline(game: Game) -> str:
    if not game.events:
        return h.missing("No table events: nothing to plot.")
    fig, ax = h.new_figure(1180, 300)
    lanes = {Player.A: 1.0, Player.B: 0.0}
    seen: set[str] = set()
    for item, verdict in game.events:
        ev = item.record
        assert isinstance(ev, TableEvent)
        _plot_event(ax, ev, verdict, lanes[ev.player], seen)
    for c in game.calls:
        assert isinstance(c.record, Call)
        style = "-" if c.record.call is CallKind.ROUND_END else ":"
        ax.axvline(c.record.t, color="#555555", linestyle=style, linewidth=1)
        ax.text(c.record.t, 1.35, c.record.call.value, rotation=0, fontsize=8, color="#333333")
    ax.set_yticks([0, 1], ["B", "A"])
    ax.set_ylim(-0.5, 1.55)
    ax.set_xlabel("game time (s)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set_title("Every table event by player (red: a fault; lines: the referee's calls)", fontsize=10)
    fig.tight_layout()
    return h.plot_tag(fig, alt="timeline of the game")


def _plot_event(ax: Any, ev: TableEvent, verdict: Verdict | None, y: float, seen: set[str]) -> None:
    fault = verdict is not None and verdict.outcome is Outcome.FAULT
    colour = "#b00020" if fault else h.PLAYER_COLOURS[ev.player]
    label = "fault" if fault else ev.kind
    ax.plot([ev.t], [y], MARKERS.get(ev.kind, "x"), color=colour, markersize=11 if fault else 7,
            markeredgecolor="black" if fault else colour, label=None if label in seen else label)
    seen.add(label)
    if fault and verdict is not None:
        ax.annotate(str(verdict.code), (ev.t, y), textcoords="offset points", xytext=(4, 8), fontsize=8,
                    color="#b00020")
