"""Finding a moment in a recorded session: the contested events, their verdicts, the frames.

``spit-referee dispute SESSION --event N`` names a moment by **N, the line number of a record
in the session's ``events.jsonl``** (1 = the first line), the numbering ``verify`` and
``check`` use for lines and that ``grep -n`` or any editor shows; ``spit-referee report``
prints it beside every event. A line holding a table event picks that event; a verdict line
the event it judges; a call line (a slap winner, Spit!) the table event just before it.
``--at T`` picks the table event nearest to T seconds of game time (the session's clock, as
``verify`` and the log show it) within ``NEAREST_S``, or, when none is that close, just the
frames around T.

Events judged together are disputed together: the two plays of a touch race (their
``evidence`` carries ``race_order``) and the two slaps of a slap race (``slap_order``).

    moment = moment_by_line(session, 31)       # or moment_by_time(session, 1.2)
    moment.events, moment.verdicts, moment.calls
    frames = read_frames(session, 20, 50)      # {frame number: Frame}, from the intact segments
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.errors import InputError
from referee.events import (
    Call,
    Correction,
    Deal,
    GameStart,
    Move,
    Play,
    Record,
    SpitTurn,
    TableEvent,
    TakeBack,
    TakePile,
    Turn,
    Verdict,
)
from referee.live.source import Frame
from referee.session.log import LOG_FILE
from referee.session.verify import Session

NEAREST_S = 1.0  # --at: the nearest event within this, else the frames around the time
PAIR_S = 1.0  # events of one race lie within this of each other


@dataclass(frozen=True)
class Numbered:
    """A record with its line in events.jsonl."""

    line: int
    record: Record


@dataclass
class Moment:
    """What a dispute is about: the time, the contested events (none when ``--at`` found none
    near), their verdicts (by the event's line) and the calls that followed them."""

    t: float
    chosen: str  # how it was chosen, in words ("events.jsonl line 31", "t = 1.20 s")
    events: list[Numbered] = field(default_factory=list)
    verdicts: dict[int, Numbered] = field(default_factory=dict)
    calls: list[Numbered] = field(default_factory=list)

    @property
    def table_events(self) -> list[TableEvent]:
        return [n.record for n in self.events if isinstance(n.record, TableEvent)]

    def verdict_of(self, event: Numbered) -> Verdict | None:
        found = self.verdicts.get(event.line)
        return found.record if found is not None and isinstance(found.record, Verdict) else None


def numbered(session: Session) -> list[Numbered]:
    """The session's verified records with their line numbers."""
    log = session.report.log
    return [Numbered(n, r) for n, r in zip(log.line_numbers, log.records, strict=True)]


def _verdict_map(records: list[Numbered]) -> dict[int, Numbered]:
    """Each table event's line -> its verdict (a verdict names its event by its index within
    the game: the count of table events since the game's start)."""
    by_index: dict[tuple[int, int], int] = {}
    out: dict[int, Numbered] = {}
    game, count = -1, 0
    for item in records:
        r = item.record
        if isinstance(r, GameStart):
            game, count = game + 1, 0
        elif isinstance(r, TableEvent):
            by_index[(game, count)] = item.line
            count += 1
        elif isinstance(r, Verdict) and (game, r.event) in by_index:
            out[by_index[(game, r.event)]] = item
    return out


def _partners(records: list[Numbered], event: Numbered) -> list[Numbered]:
    """The event and the one judged with it (a touch or slap race), in log order."""
    ev = event.record
    assert isinstance(ev, TableEvent)
    key = next((k for k in ("race_order", "slap_order") if k in (ev.evidence or {})), None)
    if key is None:
        return [event]
    pile = getattr(ev, "pile", None)
    others = [
        n
        for n in records
        if n is not event
        and isinstance(n.record, TableEvent)
        and n.record.kind == ev.kind
        and key in (n.record.evidence or {})
        and getattr(n.record, "pile", None) == pile
        and abs(n.record.t - ev.t) <= PAIR_S
        and n.record.player is not ev.player
    ]
    if not others:
        return [event]
    partner = min(others, key=lambda n: abs(n.record.t - ev.t))
    return sorted([event, partner], key=lambda n: n.line)


def _moment_of(records: list[Numbered], events: list[Numbered], chosen: str, t: float) -> Moment:
    verdicts = _verdict_map(records)
    moment = Moment(t, chosen, events, {e.line: verdicts[e.line] for e in events if e.line in verdicts})
    if events:
        last = max([e.line for e in events] + [v.line for v in moment.verdicts.values()])
        for item in records:
            if item.line > last and isinstance(item.record, Call):
                moment.calls.append(item)
            elif item.line > last and not isinstance(item.record, Verdict):
                break
    return moment


def moment_by_line(session: Session, line: int) -> Moment:
    """The moment of events.jsonl line ``line`` (see the module doc); InputError when the line
    is out of range, not verified, or the game's start."""
    log = session.report.log
    where = f"{session.folder / LOG_FILE}"
    if log.lines == 0:
        raise InputError("the event log holds no records", where)
    if not 1 <= line <= log.lines:
        extra = " (and a torn last line)" if log.torn else ""
        raise InputError(f"--event {line} is out of range: the log has lines 1-{log.lines}{extra}", where)
    if line > log.verified:
        bad = session.report.log.findings[0] if session.report.log.findings else None
        raise InputError(
            f"--event {line}: line {line} is not verified ({bad}); lines 1-{log.verified} can be disputed",
            where,
        )
    records = numbered(session)
    item = next((n for n in records if n.line == line), None)
    if item is None:
        raise InputError(f"--event {line}: line {line} is not a record", where)
    event = _event_for(records, item, where)
    events = _partners(records, event)
    first = events[0].record
    return _moment_of(records, events, f"{LOG_FILE} line {line}", first.t)


def _event_for(records: list[Numbered], item: Numbered, where: str) -> Numbered:
    r = item.record
    if isinstance(r, TableEvent):
        return item
    if isinstance(r, GameStart):
        raise InputError(
            f"--event {item.line}: that line starts a game; pick an event, verdict or call line", where
        )
    if isinstance(r, Verdict):
        for line, verdict in _verdict_map(records).items():
            if verdict.line == item.line:
                return next(n for n in records if n.line == line)
    before = [n for n in records if n.line < item.line and isinstance(n.record, TableEvent)]
    if not before:
        raise InputError(f"--event {item.line}: no table event before that line", where)
    return before[-1]


def session_span(session: Session) -> tuple[float, float]:
    """The first and last moment the session holds (video and verified log together)."""
    times = [
        t
        for s in session.report.segments
        if s.usable
        for t in (s.info.first_t, s.info.last_t)
        if t is not None
    ]
    times += [n.record.t for n in numbered(session)]
    if not times:
        raise InputError("the session holds no frames and no records", str(session.folder))
    return min(times), max(times)


def moment_by_time(session: Session, t: float) -> Moment:
    """The table event nearest to ``t`` within ``NEAREST_S``, or the frames around ``t``;
    InputError when ``t`` lies outside the session."""
    lo, hi = session_span(session)
    if not lo - 0.5 <= t <= hi + 0.5:
        raise InputError(
            f"--at {t:g} s is outside the session (it holds t {lo:.2f}-{hi:.2f} s)", str(session.folder)
        )
    records = numbered(session)
    events = [n for n in records if isinstance(n.record, TableEvent)]
    near = min(events, key=lambda n: abs(n.record.t - t), default=None)
    if near is None or abs(near.record.t - t) > NEAREST_S:
        return Moment(t, f"t = {t:.2f} s (no event recorded within {NEAREST_S:g} s)")
    return _moment_of(records, _partners(records, near), f"t = {t:.2f} s: the nearest event", near.record.t)


# ---------------------------------------------------------------------- frames


def read_frames(session: Session, first: int, last: int) -> dict[int, Frame]:
    """The recorded frames numbered ``first`` to ``last`` that the intact segments hold
    (decoding only the segments that overlap)."""
    from referee.session.segments import SessionVideo

    index = session.report.index
    wanted = [s for s in index.segments if _overlaps(s, first, last)]
    if not wanted:
        return {}
    fps = float((session.manifest.get("source") or {}).get("fps") or 30.0)
    video = SessionVideo(session.folder / "video", replace(index, segments=wanted), fps)
    out: dict[int, Frame] = {}
    for frame in video:
        if frame.index > last:
            break
        if frame.index >= first:
            out[frame.index] = frame
    return out


def _overlaps(seg: Any, first: int, last: int) -> bool:
    end = seg.frame_numbers[-1] if seg.closed and seg.frame_numbers else None
    return seg.first_frame <= last and (end is None or end >= first)


def frame_at(session: Session, t: float) -> int | None:
    """The number of the recorded frame nearest to ``t`` (from the index's frame times)."""
    best: tuple[float, int] | None = None
    fps = float((session.manifest.get("source") or {}).get("fps") or 30.0)
    for seg in session.report.index.segments:
        if seg.closed:
            pairs = list(zip(seg.frame_numbers, seg.times, strict=False))
        else:  # the segment being written at a stop: times estimated from its first frame
            k = max(0, round((t - seg.first_t) * fps))
            pairs = [(seg.first_frame + k, seg.first_t + k / fps)]
        for number, ft in pairs:
            if best is None or abs(ft - t) < best[0]:
                best = (abs(ft - t), number)
    return None if best is None else best[1]


def calibration_at(session: Session, frame: int) -> Any:
    """The calibration the referee judged frame ``frame`` with (the last it moved to before)."""
    from referee.vision.calibration import load_calibration

    moved = [c for c in session.report.index.calibrations if int(c.get("frame", 0)) <= frame]
    if moved:
        return load_calibration(Path(session.folder) / str(moved[-1]["file"]))
    return session.calibration()


# ---------------------------------------------------------------------- what lies where


def tops_at(records: list[Numbered], t: float) -> dict[str, str]:
    """What the log says lies on top of each zone at time ``t`` (card codes, ``back``): the
    table events up to ``t`` replayed onto stacks (no rules, no judging)."""
    stacks: dict[str, list[str]] = {}
    played_from: dict[str, str] = {}
    for item in records:
        ev = item.record
        if isinstance(ev, GameStart):
            stacks.clear()
        if not isinstance(ev, TableEvent) or ev.t > t:
            continue
        _apply(stacks, played_from, ev)
    return {zone: stack[-1] for zone, stack in stacks.items() if stack}


def _apply(stacks: dict[str, list[str]], played_from: dict[str, str], ev: TableEvent) -> None:
    p = ev.player.value
    if isinstance(ev, Deal):
        for slot in range(1, 6):
            stacks[f"{p}.stock{slot}"] = ["back"] * slot
    elif isinstance(ev, Turn):
        stack = stacks.setdefault(f"{p}.stock{ev.slot}", ["back"])
        stack[-1:] = [str(ev.card)]
    elif isinstance(ev, SpitTurn):
        stacks.setdefault(f"pile{ev.pile}", []).append(str(ev.card))
    elif isinstance(ev, Play):
        _pop(stacks, f"{p}.stock{ev.slot}")
        stacks.setdefault(f"pile{ev.pile}", []).append(str(ev.card))
        played_from[str(ev.card)] = f"{p}.stock{ev.slot}"
    elif isinstance(ev, Move):
        _pop(stacks, f"{p}.stock{ev.from_slot}")
        stacks.setdefault(f"{p}.stock{ev.to_slot}", []).append(str(ev.card))
    elif isinstance(ev, TakeBack):
        pile = stacks.get(f"pile{ev.pile}", [])
        if str(ev.card) in pile:
            pile.remove(str(ev.card))
        stacks.setdefault(played_from.get(str(ev.card), f"{p}.stock?"), []).append(str(ev.card))
    elif isinstance(ev, TakePile):
        stacks[f"pile{ev.pile}"] = []
    elif isinstance(ev, Correction):
        stack = stacks.setdefault(f"{p}.stock{ev.slot}" if ev.slot is not None else f"pile{ev.pile}", [])
        stack[-1:] = [str(ev.card)]


def _pop(stacks: dict[str, list[str]], zone: str) -> None:
    stack = stacks.get(zone)
    if stack:
        stack.pop()
