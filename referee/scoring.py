"""Scoring a referee's event log against the simulator's truth (``spit-referee score``).

Both logs use the one event schema (docs/events.md) and are read through
:mod:`referee.eventlog`. What is measured (docs/scoring.md has the definitions in full):

- **table events**: precision and recall, overall and per event type. Two events match when
  type, player and the identity fields (slot, pile, card, from_slot, to_slot) are equal and
  their times differ by at most the tolerance; matching is one-to-one, greedy by smallest
  time difference, within the same game (the n-th ``game_start`` of each log).
- **faults**: truth fault verdicts flagged by a found fault verdict with the same code and
  player about the matched event (or, failing that, within the tolerance in time); missed
  faults and false faults.
- **first touch** (P8) and **slap order** (E2): pairs of truth plays (slaps) by different
  players onto the same pile within the game's race window; right when both are matched and
  the found times are in the same order.
- **timing**: |dt| over matched events (median, 90th percentile, max) and the mean signed dt.

Events laid out before the clip (``evidence`` with ``"prelude": true``) are ignored on both
sides, and so are the referee's corrections of its own readings (``correct``): they are not
something a player did. The results are plain data (:class:`Score`); :func:`score_many` adds up many pairs of
logs for an evaluation over many clips.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from referee.cards import Card
from referee.errors import InputError
from referee.eventlog import LogContents, read_records, record_to_dict
from referee.events import (
    BOOKKEEPING_KINDS,
    TABLE_EVENTS,
    GameStart,
    Outcome,
    Play,
    Record,
    Slap,
    TableEvent,
    Verdict,
)

DEFAULT_TOLERANCE_S = 0.25
DEFAULT_FPS = 30.0
#: The fields, besides type and player, that say which event it was (each type has some of them).
IDENTITY_FIELDS = ("slot", "pile", "card", "from_slot", "to_slot")
#: Every table event type a player makes, in the order of docs/events.md.
EVENT_TYPES: tuple[str, ...] = tuple(k for k in TABLE_EVENTS if k not in BOOKKEEPING_KINDS)
#: Logged times are rounded (to 0.1 ms or finer); a race this close to one frame interval
#: counts as one frame apart, so that touches in consecutive frames are not called sub-frame.
ROUNDING_SLACK_S = 1e-4
#: Float slack on the tolerance and the race window, so that a difference of exactly the
#: tolerance in decimal seconds is inside it.
_EPS = 1e-9
#: The nearest counterpart of an unmatched event is looked for within this many seconds (or
#: twice the tolerance if more), and only among events that differ in at most so many fields.
NEAREST_WITHIN_S = 1.0
NEAREST_MAX_DIFFERENCES = 2

FpsOrigin = Literal["given", "meta.json", "default"]


# ---------------------------------------------------------------------- reading


@dataclass(frozen=True)
class LoggedGame:
    """One game of a log: its ``game_start``, every table event and every verdict.

    ``events`` keeps the prelude, because a verdict's ``event`` is the index into it.
    """

    number: int  # 0-based position of the game in its log
    start: GameStart
    events: tuple[TableEvent, ...]
    verdicts: tuple[Verdict, ...]


@dataclass(frozen=True)
class EventLog:
    """A log read for scoring: its games and what was wrong but forgivable (a torn last line)."""

    source: str
    games: tuple[LoggedGame, ...]
    warnings: tuple[str, ...] = ()

    @classmethod
    def from_records(cls, records: Iterable[Record], source: str,
                     line_numbers: Sequence[int] | None = None,
                     warnings: Sequence[str] = ()) -> EventLog:
        """Group records into games at each ``game_start``.

        Raises :class:`InputError` when there is no ``game_start`` or a record comes before
        the first one (a log must say which rules its games were played under).
        """
        games: list[LoggedGame] = []
        start: GameStart | None = None
        events: list[TableEvent] = []
        verdicts: list[Verdict] = []

        def close() -> None:
            if start is not None:
                games.append(LoggedGame(len(games), start, tuple(events), tuple(verdicts)))

        for i, record in enumerate(records):
            if isinstance(record, GameStart):
                close()
                start, events, verdicts = record, [], []
            elif start is None:
                where = f"{source}:{line_numbers[i]}" if line_numbers is not None else source
                raise InputError(f"a '{record.kind}' record before the first game_start "
                                 "(a scored log opens each game with game_start)", where)
            elif isinstance(record, TableEvent):
                events.append(record)
            elif isinstance(record, Verdict):
                verdicts.append(record)
        close()
        if not games:
            raise InputError("no game_start record: not an event log of a game (docs/events.md)", source)
        return cls(source, tuple(games), tuple(warnings))

    def until(self, end_s: float, *, partners: EventLog | None = None, tolerance_s: float = 0.0) -> EventLog:
        """The log cut at ``end_s`` seconds: table events after it are dropped with their
        verdicts, and the verdicts' event indexes renumbered. For scoring a clip that runs on
        past the window scored (an event at its very end cannot have been seen to settle).

        With ``partners`` (the other log, cut at ``end_s``), an event at most ``tolerance_s``
        after the cut is kept when the same game there holds an event with its identity at most
        ``tolerance_s`` from it: one event seen on either side of the cut."""
        games = []
        for game in self.games:
            near = (partners.games[game.number].events
                    if partners is not None and game.number < len(partners.games) else ())

            keep = [i for i, ev in enumerate(game.events)
                    if ev.t <= end_s + _EPS or (ev.t <= end_s + tolerance_s + _EPS and any(
                        identity(other) == identity(ev) and abs(other.t - ev.t) <= tolerance_s + _EPS
                        for other in near))]
            index = {old: new for new, old in enumerate(keep)}
            verdicts = tuple(replace(v, event=index[v.event]) for v in game.verdicts if v.event in index)
            games.append(LoggedGame(game.number, game.start, tuple(game.events[i] for i in keep), verdicts))
        return EventLog(self.source, tuple(games), self.warnings)


def window(truth: EventLog, found: EventLog, end_s: float,
           tolerance_s: float = DEFAULT_TOLERANCE_S) -> tuple[EventLog, EventLog]:
    """Both logs cut at ``end_s`` for scoring (:meth:`EventLog.until`); an event just after the
    cut stays when the other log holds it just before (found a little late or early)."""
    truth_cut, found_cut = truth.until(end_s), found.until(end_s)
    return (truth.until(end_s, partners=found_cut, tolerance_s=tolerance_s),
            found.until(end_s, partners=truth_cut, tolerance_s=tolerance_s))


def parse_log(text: str, source: str) -> EventLog:
    """Read a log's text through :func:`referee.eventlog.read_records`.

    A bad line raises :class:`InputError` naming the file, the line and the field, except a
    torn last line (no newline at the end and not JSON, as after a crash while writing): that
    line is left out and a warning says so.
    """
    contents = read_records(io.StringIO(text), source)
    warnings: list[str] = []
    bad = []
    for err in contents.errors:
        if _is_torn_last_line(err.line, err.field, contents, text):
            warnings.append(f"{err}: left out, the rest of {source} is scored")
        else:
            bad.append(err)
    if bad:
        more = f" (and {len(bad) - 1} more bad line(s))" if len(bad) > 1 else ""
        raise InputError(f"{bad[0]}{more}")
    return EventLog.from_records(contents.records, source, contents.line_numbers, warnings)


def _is_torn_last_line(line: int, field_name: str | None, contents: LogContents, text: str) -> bool:
    return field_name is None and line == contents.lines and not text.endswith("\n")


def read_log(path: str | Path) -> EventLog:
    """Read a log file for scoring; see :func:`parse_log`. Raises :class:`InputError`."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such log file", str(path))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text log (byte {exc.start} is not UTF-8)", str(path)) from None
    return parse_log(text, str(path))


def fps_beside(truth_path: str | Path) -> float | None:
    """The frame rate in ``meta.json`` beside a truth log, or None when there is none."""
    meta_path = Path(truth_path).with_name("meta.json")
    if not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not JSON: {exc}", str(meta_path)) from None
    raw = meta.get("fps_float", meta.get("fps")) if isinstance(meta, dict) else None
    if raw is None:
        return None
    try:
        fps = float(Fraction(raw)) if isinstance(raw, str) else float(raw)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InputError(f"field 'fps' must be a frame rate, not {raw!r}", str(meta_path)) from None
    if isinstance(raw, bool) or not math.isfinite(fps) or fps <= 0:
        raise InputError(f"field 'fps' must be a frame rate > 0, not {raw!r}", str(meta_path))
    return fps


def resolve_fps(truth_path: str | Path, fps: float | None) -> tuple[float, FpsOrigin]:
    """The frame rate to judge races with: ``fps`` when given, else meta.json's, else 30."""
    if fps is not None:
        return fps, "given"
    found = fps_beside(truth_path)
    return (found, "meta.json") if found is not None else (DEFAULT_FPS, "default")


def check_settings(tolerance_s: float, fps: float, until_s: float | None = None) -> None:
    """Raise :class:`InputError` for a tolerance or an ``until_s`` (when given) that is not a
    time >= 0, or fps not > 0."""
    times = {"tolerance": tolerance_s} if until_s is None else {"tolerance": tolerance_s, "until": until_s}
    for name, value in times.items():
        if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise InputError(f"must be a time in seconds >= 0, not {value!r}", name)
    if not isinstance(fps, int | float) or not math.isfinite(fps) or fps <= 0:
        raise InputError(f"must be a frame rate > 0, not {fps!r}", "fps")


# ---------------------------------------------------------------------- results


def is_prelude(event: TableEvent) -> bool:
    """True for an event that lays out the starting table before the clip."""
    return bool(event.evidence and event.evidence.get("prelude") is True)


def identity(event: TableEvent) -> tuple[Any, ...]:
    """What must be equal for two events to match (besides time): type, player, identity fields."""
    values: list[Any] = [event.kind, str(event.player)]
    for name in IDENTITY_FIELDS:
        value = getattr(event, name, None)
        values.append(value.code if isinstance(value, Card) else value)
    return tuple(values)


def _event_json(event: TableEvent) -> dict[str, Any]:
    out = record_to_dict(event)
    out.pop("evidence", None)
    return out


@dataclass(frozen=True)
class EventRef:
    """A table event of one log: which log, which game (position), which table event (index)."""

    source: str
    game: int
    index: int
    event: TableEvent

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "game": self.game, "index": self.index, **_event_json(self.event)}


@dataclass(frozen=True)
class Match:
    """A truth event and the found event matched to it; ``dt`` = found t - truth t."""

    truth: EventRef
    found: EventRef

    @property
    def dt(self) -> float:
        return self.found.event.t - self.truth.event.t


@dataclass(frozen=True)
class Unmatched:
    """An event with no counterpart, and the nearest unmatched event of the same type on the
    other side (fewest differing fields, then closest in time) with the fields that differ
    (``"t"`` when the times are further apart than the tolerance)."""

    ref: EventRef
    nearest: EventRef | None = None
    differs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = self.ref.to_json()
        out["nearest"] = None if self.nearest is None else {
            "index": self.nearest.index, "t": self.nearest.event.t,
            "dt": self.nearest.event.t - self.ref.event.t, "differs": list(self.differs)}
        return out


@dataclass(frozen=True)
class FaultRef:
    """A fault verdict and the table event it refers to (None when its index is not in the game)."""

    source: str
    game: int
    verdict: Verdict
    event: TableEvent | None

    @property
    def t(self) -> float:
        """The time of the fault: its table event's, else the verdict's own."""
        return self.event.t if self.event is not None else self.verdict.t

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "game": self.game, "event": self.verdict.event, "t": self.t,
                "player": str(self.verdict.player), "code": self.verdict.code, "rule": self.verdict.rule,
                "message": self.verdict.message}


@dataclass(frozen=True)
class FaultMatch:
    """A truth fault and the found fault that flagged it, ``by`` the matched event or by time."""

    truth: FaultRef
    found: FaultRef
    by: Literal["event", "time"]


@dataclass(frozen=True)
class Race:
    """Two truth events by different players on one pile within the race window, in truth order,
    with the found events matched to them (None when missed)."""

    first: EventRef
    second: EventRef
    found_first: EventRef | None
    found_second: EventRef | None
    frame_s: float  # one frame interval of the clip, 1/fps

    @property
    def gap_s(self) -> float:
        return self.second.event.t - self.first.event.t

    @property
    def within_frame(self) -> bool:
        """The touches are less than one frame interval apart (allowing for rounded times)."""
        return self.gap_s < self.frame_s - ROUNDING_SLACK_S

    @property
    def right(self) -> bool:
        """Both matched and the found times in the truth's order (a tie is right only for a tie)."""
        if self.found_first is None or self.found_second is None:
            return False
        return _sign(self.found_second.event.t - self.found_first.event.t) == _sign(self.gap_s)

    def to_json(self) -> dict[str, Any]:
        found = [None if f is None else f.event.t for f in (self.found_first, self.found_second)]
        return {"source": self.first.source, "game": self.first.game,
                "pile": getattr(self.first.event, "pile", None),
                "players": [str(self.first.event.player), str(self.second.event.player)],
                "truth_t": [self.first.event.t, self.second.event.t], "found_t": found,
                "gap_ms": self.gap_s * 1000, "within_frame": self.within_frame, "right": self.right}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@dataclass(frozen=True)
class Counts:
    """Table events in the truth, found, and matched; precision and recall (None when undefined)."""

    truth: int
    found: int
    matched: int

    @property
    def precision(self) -> float | None:
        return self.matched / self.found if self.found else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.truth if self.truth else None

    def to_json(self) -> dict[str, Any]:
        return {"truth": self.truth, "found": self.found, "matched": self.matched,
                "precision": self.precision, "recall": self.recall}


@dataclass(frozen=True)
class Accuracy:
    """How many judged, how many right; ``accuracy`` is None when none were judged."""

    total: int
    right: int

    @property
    def accuracy(self) -> float | None:
        return self.right / self.total if self.total else None

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "right": self.right, "accuracy": self.accuracy}


@dataclass(frozen=True)
class Timing:
    """Time errors of matched events in ms: |dt| median, 90th percentile, max; mean signed dt."""

    matched: int
    median_ms: float | None
    p90_ms: float | None
    max_ms: float | None
    bias_ms: float | None

    @classmethod
    def of(cls, dts: Sequence[float]) -> Timing:
        if not dts:
            return cls(0, None, None, None, None)
        errors = sorted(abs(d) * 1000 for d in dts)
        return cls(len(dts), percentile(errors, 0.5), percentile(errors, 0.9), errors[-1],
                   sum(dts) * 1000 / len(dts))

    def to_json(self) -> dict[str, Any]:
        return {"matched": self.matched, "median_ms": self.median_ms, "p90_ms": self.p90_ms,
                "max_ms": self.max_ms, "bias_ms": self.bias_ms}


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, linear between ranks (numpy's default)."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclass
class Score:
    """Everything measured for one pair of logs, or added up over many (:func:`score_many`).

    Lists, not counts, so that scores add up by concatenation and every number can be traced
    to the events behind it.
    """

    tolerance_s: float
    fps: float | None  # None when added up over clips of different frame rates
    fps_from: str
    pairs: int = 1
    games: int = 0
    truth_counts: dict[str, int] = field(default_factory=dict)  # non-prelude table events by type
    found_counts: dict[str, int] = field(default_factory=dict)
    matches: list[Match] = field(default_factory=list)
    missed: list[Unmatched] = field(default_factory=list)  # truth events with no match
    invented: list[Unmatched] = field(default_factory=list)  # found events with no match
    truth_faults: int = 0
    flagged: list[FaultMatch] = field(default_factory=list)
    missed_faults: list[FaultRef] = field(default_factory=list)
    false_faults: list[FaultRef] = field(default_factory=list)
    withdrawn_faults: list[FaultRef] = field(default_factory=list)  # given, then replaced (revised)
    races: list[Race] = field(default_factory=list)  # first touch (plays)
    slaps: list[Race] = field(default_factory=list)  # slap order
    warnings: list[str] = field(default_factory=list)

    def counts(self, kind: str | None = None) -> Counts:
        """Truth, found and matched table events, of one type or (None) all."""
        if kind is None:
            return Counts(sum(self.truth_counts.values()), sum(self.found_counts.values()),
                          len(self.matches))
        return Counts(self.truth_counts.get(kind, 0), self.found_counts.get(kind, 0),
                      sum(1 for m in self.matches if m.truth.event.kind == kind))

    def kinds(self) -> list[str]:
        """The event types present on either side, in schema order."""
        return [k for k in EVENT_TYPES if self.truth_counts.get(k) or self.found_counts.get(k)]

    def first_touch(self, within_frame: bool | None = None) -> Accuracy:
        """First-touch accuracy over races at least one frame apart (False), within one (True),
        or all (None)."""
        races = [r for r in self.races if within_frame is None or r.within_frame == within_frame]
        return Accuracy(len(races), sum(r.right for r in races))

    def slap_order(self) -> Accuracy:
        return Accuracy(len(self.slaps), sum(r.right for r in self.slaps))

    def faults(self) -> Accuracy:
        """Truth faults and how many were flagged."""
        return Accuracy(self.truth_faults, len(self.flagged))

    def timing(self) -> Timing:
        return Timing.of([m.dt for m in self.matches])

    def __add__(self, other: Score) -> Score:
        fps = self.fps if self.fps == other.fps else None
        out = Score(self.tolerance_s, fps, self.fps_from if self.fps_from == other.fps_from else "mixed",
                    self.pairs + other.pairs, self.games + other.games,
                    truth_faults=self.truth_faults + other.truth_faults)
        for name in ("truth_counts", "found_counts"):
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(out, name, {k: mine.get(k, 0) + theirs.get(k, 0) for k in EVENT_TYPES
                                if mine.get(k, 0) + theirs.get(k, 0)})
        for name in ("matches", "missed", "invented", "flagged", "missed_faults", "false_faults",
                     "withdrawn_faults", "races", "slaps", "warnings"):
            setattr(out, name, getattr(self, name) + getattr(other, name))
        return out

    def to_json(self) -> dict[str, Any]:
        """One JSON object; docs/scoring.md describes its keys."""
        faults = self.faults()
        found_faults = len(self.flagged) + len(self.false_faults)
        return {
            "pairs": self.pairs,
            "games": self.games,
            "tolerance_s": self.tolerance_s,
            "fps": self.fps,
            "fps_from": self.fps_from,
            "table_events": {
                **self.counts().to_json(),
                "by_type": {k: self.counts(k).to_json() for k in self.kinds()},
                "missed": [u.to_json() for u in self.missed],
                "invented": [u.to_json() for u in self.invented],
            },
            "faults": {
                "truth": faults.total,
                "flagged": faults.right,
                "missed": len(self.missed_faults),
                "false": len(self.false_faults),
                "recall": faults.accuracy,
                "precision": faults.right / found_faults if found_faults else None,
                "missed_list": [f.to_json() for f in self.missed_faults],
                "false_list": [f.to_json() for f in self.false_faults],
                "withdrawn": len(self.withdrawn_faults),
                "withdrawn_list": [f.to_json() for f in self.withdrawn_faults],
            },
            "first_touch": {
                **self.first_touch().to_json(),
                "apart": self.first_touch(within_frame=False).to_json(),
                "within_frame": self.first_touch(within_frame=True).to_json(),
                "races": [r.to_json() for r in self.races],
            },
            "slap_order": {**self.slap_order().to_json(), "pairs": [r.to_json() for r in self.slaps]},
            "timing": self.timing().to_json(),
            "warnings": list(self.warnings),
        }


# ---------------------------------------------------------------------- scoring


def score(truth: EventLog, found: EventLog, *, tolerance_s: float = DEFAULT_TOLERANCE_S,
          fps: float = DEFAULT_FPS, fps_from: str = "given") -> Score:
    """Score a found log against the truth; games are paired by their order in the logs."""
    check_settings(tolerance_s, fps)
    result = Score(tolerance_s, fps, fps_from, warnings=[*truth.warnings, *found.warnings])
    n_truth, n_found = len(truth.games), len(found.games)
    if n_truth != n_found:
        result.warnings.append(f"{truth.source} has {n_truth} game(s), {found.source} {n_found}: "
                               "the games without a partner are scored against nothing")
    for number in range(max(n_truth, n_found)):
        t_game = truth.games[number] if number < n_truth else None
        f_game = found.games[number] if number < n_found else None
        if t_game is not None and f_game is not None and t_game.start.game != f_game.start.game:
            result.warnings.append(f"game {number}: numbered {t_game.start.game} in {truth.source} "
                                   f"but {f_game.start.game} in {found.source}; paired by position")
        _score_game(result, number, t_game, truth.source, f_game, found.source, tolerance_s, 1 / fps)
        result.games += 1
    return result


def score_files(truth_path: str | Path, events_path: str | Path, *,
                tolerance_s: float = DEFAULT_TOLERANCE_S, fps: float | None = None,
                until_s: float | None = None) -> Score:
    """Read and score two log files; ``fps`` None takes meta.json's beside the truth, else 30;
    ``until_s`` scores only the events up to that time (:meth:`EventLog.until`)."""
    rate, origin = resolve_fps(truth_path, fps)
    check_settings(tolerance_s, rate, until_s)
    truth, found = read_log(truth_path), read_log(events_path)
    if until_s is not None:
        truth, found = window(truth, found, until_s, tolerance_s)
    return score(truth, found, tolerance_s=tolerance_s, fps=rate, fps_from=origin)


def score_many(pairs: Iterable[tuple[str | Path, str | Path]], *, tolerance_s: float = DEFAULT_TOLERANCE_S,
               fps: float | None = None) -> Score:
    """Score many (truth, events) file pairs and add the scores up (counts summed, lists joined)."""
    total: Score | None = None
    for truth_path, events_path in pairs:
        one = score_files(truth_path, events_path, tolerance_s=tolerance_s, fps=fps)
        total = one if total is None else total + one
    if total is None:
        raise InputError("no pairs of logs to score", "score_many")
    return total


def _table_events(game: LoggedGame | None, source: str) -> list[EventRef]:
    if game is None:
        return []
    return [EventRef(source, game.number, i, ev) for i, ev in enumerate(game.events)
            if not is_prelude(ev) and ev.kind not in BOOKKEEPING_KINDS]


def _fault_refs(game: LoggedGame | None, source: str) -> list[FaultRef]:
    """The faults that stand: of an event's verdicts the last (a verdict given anew, ``revised``,
    replaces the one before)."""
    if game is None:
        return []
    out = []
    for v in _standing(game.verdicts).values():
        if v.outcome != Outcome.FAULT:
            continue
        event = game.events[v.event] if v.event < len(game.events) else None
        if event is not None and is_prelude(event):
            continue
        out.append(FaultRef(source, game.number, v, event))
    return out


def _standing(verdicts: Iterable[Verdict]) -> dict[int, Verdict]:
    """Each event's standing verdict (its last), by event number."""
    out: dict[int, Verdict] = {}
    for v in verdicts:
        out[v.event] = v
    return out


def _withdrawn(game: LoggedGame | None, source: str) -> list[FaultRef]:
    """Faults given and then replaced by a verdict anew that is no fault (the board had shown them)."""
    if game is None:
        return []
    standing = _standing(game.verdicts)
    return [FaultRef(source, game.number, v, game.events[v.event] if v.event < len(game.events) else None)
            for v in game.verdicts
            if v.outcome == Outcome.FAULT and standing[v.event].outcome != Outcome.FAULT]


def _score_game(result: Score, number: int, t_game: LoggedGame | None, t_source: str,
                f_game: LoggedGame | None, f_source: str, tolerance_s: float, frame_s: float) -> None:
    truth = _table_events(t_game, t_source)
    found = _table_events(f_game, f_source)
    for counts, refs in ((result.truth_counts, truth), (result.found_counts, found)):
        for ref in refs:
            counts[ref.event.kind] = counts.get(ref.event.kind, 0) + 1
    matches = match_events(truth, found, tolerance_s)
    result.matches += matches
    matched_t = {m.truth.index for m in matches}
    matched_f = {m.found.index for m in matches}
    lone_t = [r for r in truth if r.index not in matched_t]
    lone_f = [r for r in found if r.index not in matched_f]
    near = max(NEAREST_WITHIN_S, 2 * tolerance_s)
    result.missed += [_unmatched(r, lone_f, tolerance_s, near) for r in lone_t]
    result.invented += [_unmatched(r, lone_t, tolerance_s, near) for r in lone_f]
    _score_faults(result, t_game, t_source, f_game, f_source, matches, tolerance_s)
    result.withdrawn_faults += _withdrawn(f_game, f_source)
    if t_game is not None:
        window = t_game.start.rules.race_window_s
        by_truth = {m.truth.index: m.found for m in matches}
        result.races += _races(truth, Play.kind, window, by_truth, frame_s)
        result.slaps += _races(truth, Slap.kind, window, by_truth, frame_s)


def match_events(truth: Sequence[EventRef], found: Sequence[EventRef], tolerance_s: float) -> list[Match]:
    """One-to-one matches of equal identity within the tolerance, greedy by smallest |dt|
    (ties: earlier truth event, then earlier found event), in truth order."""
    by_identity: dict[tuple[Any, ...], list[EventRef]] = {}
    for ref in found:
        by_identity.setdefault(identity(ref.event), []).append(ref)
    candidates: list[tuple[float, int, int, EventRef, EventRef]] = []
    for t_ref in truth:
        for f_ref in by_identity.get(identity(t_ref.event), ()):
            dt = abs(f_ref.event.t - t_ref.event.t)
            if dt <= tolerance_s + _EPS:
                candidates.append((dt, t_ref.index, f_ref.index, t_ref, f_ref))
    candidates.sort(key=lambda c: c[:3])
    used_t: set[int] = set()
    used_f: set[int] = set()
    matches: list[Match] = []
    for _, ti, fi, t_ref, f_ref in candidates:
        if ti in used_t or fi in used_f:
            continue
        used_t.add(ti)
        used_f.add(fi)
        matches.append(Match(t_ref, f_ref))
    matches.sort(key=lambda m: m.truth.index)
    return matches


def _differs(a: TableEvent, b: TableEvent, tolerance_s: float) -> tuple[str, ...]:
    out = [name for name, x, y in zip(("player", *IDENTITY_FIELDS), identity(a)[1:], identity(b)[1:],
                                      strict=True) if x != y]
    if abs(a.t - b.t) > tolerance_s + _EPS:
        out.append("t")
    return tuple(out)


def _unmatched(ref: EventRef, others: Sequence[EventRef], tolerance_s: float, within_s: float) -> Unmatched:
    best: tuple[int, float, EventRef, tuple[str, ...]] | None = None
    for other in others:
        dt = abs(other.event.t - ref.event.t)
        if other.event.kind != ref.event.kind or dt > within_s:
            continue
        differs = _differs(ref.event, other.event, tolerance_s)
        if len(differs) > NEAREST_MAX_DIFFERENCES:
            continue
        key = (len(differs), dt)
        if best is None or key < best[:2]:
            best = (len(differs), dt, other, differs)
    return Unmatched(ref) if best is None else Unmatched(ref, best[2], best[3])


def _score_faults(result: Score, t_game: LoggedGame | None, t_source: str, f_game: LoggedGame | None,
                  f_source: str, matches: Sequence[Match], tolerance_s: float) -> None:
    truth = _fault_refs(t_game, t_source)
    found = _fault_refs(f_game, f_source)
    result.truth_faults += len(truth)
    found_index_of = {m.truth.index: m.found.index for m in matches}
    pairs: dict[int, tuple[int, Literal["event", "time"]]] = {}  # truth fault -> found fault
    used: set[int] = set()
    for ti, tf in enumerate(truth):
        want = found_index_of.get(tf.verdict.event)
        if want is None:
            continue
        for fi, ff in enumerate(found):
            if fi not in used and ff.verdict.event == want and _same_fault(tf, ff):
                pairs[ti] = (fi, "event")
                used.add(fi)
                break
    candidates = sorted(
        (abs(ff.t - tf.t), ti, fi) for ti, tf in enumerate(truth) if ti not in pairs
        for fi, ff in enumerate(found)
        if fi not in used and _same_fault(tf, ff) and abs(ff.t - tf.t) <= tolerance_s + _EPS)
    for _, ti, fi in candidates:
        if ti not in pairs and fi not in used:
            pairs[ti] = (fi, "time")
            used.add(fi)
    for ti, tf in enumerate(truth):
        if ti in pairs:
            fi, by = pairs[ti]
            result.flagged.append(FaultMatch(tf, found[fi], by))
        else:
            result.missed_faults.append(tf)
    result.false_faults += [ff for fi, ff in enumerate(found) if fi not in used]


def _same_fault(a: FaultRef, b: FaultRef) -> bool:
    return a.verdict.code == b.verdict.code and a.verdict.player == b.verdict.player


def _races(truth: Sequence[EventRef], kind: str, window_s: float, found_of: dict[int, EventRef],
           frame_s: float) -> list[Race]:
    events = sorted((r for r in truth if r.event.kind == kind), key=lambda r: (r.event.t, r.index))
    races = []
    for i, a in enumerate(events):
        for b in events[i + 1:]:
            if b.event.t - a.event.t > window_s + _EPS:
                break
            if a.event.player != b.event.player and getattr(a.event, "pile", None) == getattr(
                    b.event, "pile", None):
                races.append(Race(a, b, found_of.get(a.index), found_of.get(b.index), frame_s))
    return races
