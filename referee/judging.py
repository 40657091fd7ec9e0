"""Replaying a log's table events through the rules engine.

A log holds one or more games, each opened by a ``game_start`` record (a log without one is
judged as one game under the default rules). Table events are judged afresh; verdicts and
calls already in the log are kept to compare against, so a log written by an older referee
(or edited by hand) shows where today's rules disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from referee.events import Call, GameStart, Record, TableEvent, Verdict
from referee.rules import Game, GameOutcome, InconsistentEvent, Judgement, RuleSet
from referee.rules.hindsight import Hindsight, judged_in_place


@dataclass
class JudgedGame:
    """One game of a log, judged again."""

    start: GameStart
    events: list[TableEvent] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    recorded_verdicts: list[Verdict] = field(default_factory=list)
    errors: list[InconsistentEvent] = field(default_factory=list)
    kinds: dict[int, str] = field(default_factory=dict)  # verdict.event -> the judged event's kind
    outcome: GameOutcome | None = None
    final_state: Game | None = None

    @property
    def faults(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.code is not None]

    def disagreements(self) -> list[tuple[Verdict, Verdict | None]]:
        """(judged, recorded) pairs whose outcome or code differ, for events with a record.

        Verdicts are matched by time and player, not by event number, so a log line lost to
        corruption does not shift every later comparison.
        """
        recorded = {(v.t, v.player): v for v in self.recorded_verdicts}
        if not recorded:
            return []
        out: list[tuple[Verdict, Verdict | None]] = []
        for v in self.verdicts:
            r = recorded.get((v.t, v.player))
            if r is None or (r.outcome, r.code) != (v.outcome, v.code):
                out.append((v, r))
        return out


def judge_records(records: Iterable[Record], line_numbers: list[int] | None = None,
                  source: str | None = None) -> Iterator[JudgedGame]:
    """Judge every game in a stream of records, one :class:`JudgedGame` per game.

    An event that contradicts the state is kept in ``errors`` and skipped (the state is left
    as it was), so one bad event does not spoil the rest of the game. With ``line_numbers``
    (the line of each record in ``source``) an error names its line.
    """
    records = list(records)
    # the engine's states are kept only for a log with an event found beneath judged ones (a
    # copy of the state, about 1 ms, per event would slow `check` of many self-played games)
    marked = any(isinstance(r, TableEvent) and judged_in_place(r) for r in records)
    hindsight = Hindsight() if marked else None
    current: JudgedGame | None = None
    game: Game | None = None
    for index, record in enumerate(records):
        if isinstance(record, GameStart):
            if current is not None:
                yield _finish(current, game)
            current, game = JudgedGame(record), Game(record.rules)
            if hindsight is not None:
                hindsight.clear()
            continue
        if current is None or game is None:
            current = JudgedGame(GameStart(t=0.0, rules=RuleSet()))
            game = Game(current.start.rules)
        if isinstance(record, Verdict):
            current.recorded_verdicts.append(record)
        elif isinstance(record, TableEvent):
            current.events.append(record)
            try:
                judgement, revised, game = _judge(hindsight, game, record)
            except InconsistentEvent as exc:
                if line_numbers is not None:
                    exc = InconsistentEvent(exc.message, f"{source}:{line_numbers[index]}: {exc.where}")
                current.errors.append(exc)
                continue
            current.verdicts.append(judgement.verdict)
            for again in revised:  # one verdict per event: the one given anew replaces it
                current.verdicts = [again if v.event == again.event else v for v in current.verdicts]
            current.kinds[judgement.verdict.event] = record.kind
            current.calls.extend(judgement.calls)
    if current is not None:
        yield _finish(current, game)


def _judge(hindsight: Hindsight | None, game: Game, event: TableEvent
           ) -> tuple[Judgement, tuple[Verdict, ...], Game]:
    """``event``'s judgement, the verdicts given anew and the state after: an event found beneath
    events already judged (``found_beneath`` in its evidence), or refused until such an event
    was judged (``refused_until``), is judged in its place, as the referee judged it
    (:mod:`referee.rules.hindsight`); when it cannot be, as it comes."""
    if hindsight is None:
        return game.apply(event), (), game
    if judged_in_place(event):
        try:
            late = hindsight.judge_in_place(game, event)
        except InconsistentEvent:
            late = None
        if late is not None:
            return late.judgement, late.revised, late.game
    return hindsight.apply(game, event), (), game


def _finish(judged: JudgedGame, game: Game | None) -> JudgedGame:
    judged.outcome = game.outcome if game else None
    judged.final_state = game
    return judged
