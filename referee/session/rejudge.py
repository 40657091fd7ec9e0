"""What changed when a recorded session is judged again (``spit-referee rejudge SESSION``).

The session's frames are refereed again by the same path as ``replay SESSION`` (with the
current card model and rules engine); this module compares the verdicts and calls of that
new run with the ones the session recorded:

    old = judgements(session.records)            # the recorded log's verified part
    new = judgements(new_records)
    result = compare(old, new, coverage, tolerance=0.5)
    result.changes                               # added, removed, changed

**Matching.** A verdict is compared together with the table event it judged. Two judgements
can be the same moment of the game when they have the same *key*: the event's kind and where
it happened (``play``/``spit``/``take_back``/``slap``/``take_pile``: the pile; ``turn``: the
slot; ``move``: the slot moved to; ``deal``: nothing), or, for a call, its kind and pile; and
their times are within ``tolerance`` seconds. Among the candidate pairs the cheapest are taken
first, greedily: the cost is the time difference, plus ``tolerance`` when the players differ
and half of it when the cards differ, so that in a race each player's play is paired with that
player's play. A pair is *changed* when the outcome or fault code, the player, or the
first-touch call differs (a time or a card read differently, under the same verdict, is not a
change); what is left unpaired was *added* (new only) or *removed* (recorded only).

**Coverage.** Only moments both runs could judge are compared: the times of the frames that
were replayed (a missing segment, or the undecodable end of a truncated one, is left out) and,
when the recorded log is not whole (a bad hash, a torn last line, no end record), only up to
its last verified record. An unpaired judgement outside is *not compared* and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import InputError
from referee.events import Call, GameStart, Move, Record, TableEvent, Verdict
from referee.rules import RuleSet
from referee.session.files import sha256_file
from referee.session.verify import SegmentCheck, Session, SessionReport

TOLERANCE_S = 0.5  # how far apart in time the same moment may be placed by two runs
MODEL_ROLES = ("card detector", "index classifier", "face classifier")  # session.json's "models" order
EDGE_FRAMES = 1.0  # a span of replayed frames reaches this many frame intervals beyond its ends


@dataclass(frozen=True)
class Judgement:
    """A verdict with its table event, or a call: one thing the referee said, as compared."""

    kind: str  # the table event's kind ("play", "slap", ...), or "call: <kind>"
    where: str  # "pile 1", "slot 3", or ""
    t: float
    frame: int | None
    player: str | None
    outcome: str  # "legal", "fault", "warning", or "call"
    code: str | None
    rule: str | None
    first_touch: str | None  # "A first", "B first", "uncertain", or None (not a race)
    card: str | None
    text: str

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.where

    @property
    def verdict(self) -> str:
        """The verdict in a few words: ``A fault F_ILLEGAL_RANK (P3)``, ``B legal``."""
        parts = [self.player or "-", self.outcome]
        if self.code:
            parts.append(self.code)
        if self.rule:
            parts.append(f"({self.rule})")
        if self.first_touch:
            parts.append(f"[first touch: {self.first_touch}]")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _where(event: TableEvent) -> str:
    if isinstance(event, Move):
        return f"slot {event.to_slot}"
    for name in ("pile", "slot"):
        value = getattr(event, name, None)
        if value is not None:
            return f"{name} {value}"
    return ""


def _first_touch(event: TableEvent, verdict: Verdict) -> str | None:
    """The arbitration's call on a race (P8) or a slap pair, from the event's evidence."""
    arbitration = (event.evidence or {}).get("arbitration")
    if isinstance(arbitration, dict):
        first = arbitration.get("first")
        return f"{first} first" if first else "uncertain"
    return "uncertain" if "first touch uncertain" in verdict.message else None


def _from_verdict(event: TableEvent, verdict: Verdict) -> Judgement:
    card = getattr(event, "card", None)
    return Judgement(kind=event.kind, where=_where(event), t=verdict.t, frame=verdict.frame,
                     player=str(verdict.player), outcome=str(verdict.outcome), code=verdict.code,
                     rule=verdict.rule, first_touch=_first_touch(event, verdict),
                     card=str(card) if card is not None else None, text=verdict.message)


def _from_call(call: Call) -> Judgement:
    return Judgement(kind=f"call: {call.call}", where=f"pile {call.pile}" if call.pile is not None else "",
                     t=call.t, frame=call.frame, player=str(call.player) if call.player else None,
                     outcome="call", code=None, rule=None, first_touch=None, card=None, text=call.message)


def judgements(records: Iterable[Record]) -> list[Judgement]:
    """Every verdict (with the table event before it) and every call of a log, in order."""
    out: list[Judgement] = []
    event: TableEvent | None = None
    for record in records:
        if isinstance(record, TableEvent):
            event = record
        elif isinstance(record, Verdict) and event is not None:
            out.append(_from_verdict(event, record))
        elif isinstance(record, Call):
            out.append(_from_call(record))
    return out


# ---------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class Coverage:
    """The times both runs could judge: spans of replayed frames, up to ``log_end`` (None: the
    recorded log is whole); ``skipped`` says what was left out and why."""

    spans: tuple[tuple[float, float], ...]
    log_end: float | None = None
    margin: float = 0.0
    skipped: tuple[str, ...] = ()

    def covers(self, t: float) -> bool:
        if self.log_end is not None and t > self.log_end + self.margin:
            return False
        return any(a - self.margin <= t <= b + self.margin for a, b in self.spans)

    @property
    def first_t(self) -> float | None:
        return min((a for a, _ in self.spans), default=None)

    @property
    def last_t(self) -> float | None:
        end = max((b for _, b in self.spans), default=None)
        return end if end is None or self.log_end is None else min(end, self.log_end)


def coverage(session: Session) -> Coverage:
    """What of a session a rejudge can compare (see the module doc)."""
    report = session.report
    skipped = [why for check in report.segments if (why := _not_replayed(check)) is not None]
    log = report.log
    whole = report.ended is not None and log.verified == log.lines and not log.torn
    log_end = None if whole else max((r.t for r in log.records), default=0.0)
    if not whole:
        skipped.append(f"events.jsonl: compared only up to its last verified record (t {log_end:.2f} s, "
                       f"line {log.verified}): " + _why_log_stops(report))
    return Coverage(tuple(session.intact_spans()), log_end, EDGE_FRAMES / session.fps, tuple(skipped))


def _not_replayed(check: SegmentCheck) -> str | None:
    """What of a damaged segment was not replayed (None: all of it was, or it was being written
    at the stop, a loss verify reports)."""
    info, k = check.info, check.decoded or 0
    if check.state == "ok" or (not info.closed and k):
        return None
    end = info.last_t if info.last_t is not None else info.first_t
    if k == 0:
        span = f"t {info.first_t:.2f}-{end:.2f} s" if info.closed else f"from t {info.first_t:.2f} s"
        return f"video/{info.file}: {check.state}, nothing decodes: {span} not replayed"
    if info.frames is not None and k < info.frames:
        return (f"video/{info.file}: {check.state}, frames after t {info.times[k - 1]:.2f} s not replayed "
                f"({info.frames - k} of {info.frames})")
    return None


def _why_log_stops(report: SessionReport) -> str:
    log = report.log
    bad = next((f for f in log.findings if f.level == "bad"), None)
    if bad is not None:
        return f"{bad}"
    if log.torn:
        return "its last line is torn"
    return "the recording was not closed (no end record)"


# ---------------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Change:
    """One difference: ``change`` is ``added``, ``removed`` or ``changed`` (then ``what``
    lists the aspects: ``verdict``, ``player``, ``first touch``)."""

    change: str
    old: Judgement | None
    new: Judgement | None
    what: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.old is None and self.new is None:
            raise ValueError("a change needs an old or a new judgement")

    @property
    def judgement(self) -> Judgement:
        """The new judgement, or the old one when it was removed."""
        judgement = self.new if self.new is not None else self.old
        assert judgement is not None  # __post_init__ refuses neither
        return judgement

    @property
    def t(self) -> float:
        return self.judgement.t

    @property
    def rule(self) -> str | None:
        rules = [j.rule for j in (self.old, self.new) if j is not None and j.rule]
        return " -> ".join(dict.fromkeys(rules)) or None

    def to_json(self) -> dict[str, Any]:
        j = self.judgement
        return {"change": self.change, "t": j.t, "frame": j.frame, "kind": j.kind, "where": j.where,
                "rule": self.rule, "what": list(self.what),
                "old": self.old.to_json() if self.old else None,
                "new": self.new.to_json() if self.new else None}


@dataclass
class Comparison:
    """The outcome of :func:`compare`: the changes (in time order) and the counts behind them."""

    changes: list[Change]
    same: int  # pairs that agree
    compared_old: int
    compared_new: int
    not_compared_old: list[Judgement] = field(default_factory=list)
    not_compared_new: list[Judgement] = field(default_factory=list)


def _differences(old: Judgement, new: Judgement) -> tuple[str, ...]:
    what = []
    if (old.outcome, old.code) != (new.outcome, new.code):
        what.append("verdict")
    if old.player != new.player:
        what.append("player")
    if old.first_touch != new.first_touch:
        what.append("first touch")
    return tuple(what)


def match(old: Sequence[Judgement], new: Sequence[Judgement],
          tolerance: float = TOLERANCE_S) -> list[tuple[int, int]]:
    """Pairs (index in ``old``, index in ``new``) of the same moment (see the module doc)."""
    candidates: list[tuple[float, int, int]] = []
    for i, a in enumerate(old):
        for j, b in enumerate(new):
            dt = abs(a.t - b.t)
            if a.key != b.key or dt > tolerance:
                continue
            cost = dt + (tolerance if a.player != b.player else 0.0) + (
                tolerance / 2 if a.card != b.card else 0.0)
            candidates.append((cost, i, j))
    pairs: list[tuple[int, int]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    for _, i, j in sorted(candidates):
        if i not in used_old and j not in used_new:
            used_old.add(i)
            used_new.add(j)
            pairs.append((i, j))
    return pairs


def compare(old: Sequence[Judgement], new: Sequence[Judgement], cover: Coverage | None = None,
            tolerance: float = TOLERANCE_S) -> Comparison:
    """The verdicts and calls added, removed and changed from ``old`` to ``new``; what is
    unpaired and outside ``cover`` is not compared."""
    pairs = match(old, new, tolerance)
    changes: list[Change] = []
    same = 0
    for i, j in pairs:
        what = _differences(old[i], new[j])
        if what:
            changes.append(Change("changed", old[i], new[j], what))
        else:
            same += 1
    paired_old, paired_new = {i for i, _ in pairs}, {j for _, j in pairs}
    result = Comparison(changes, same, len(pairs), len(pairs))
    for k, judgement in enumerate(old):
        if k not in paired_old:
            _unpaired(result, judgement, "removed", cover)
    for k, judgement in enumerate(new):
        if k not in paired_new:
            _unpaired(result, judgement, "added", cover)
    changes.sort(key=lambda c: (c.t, c.judgement.kind, c.judgement.where))
    return result


def _unpaired(result: Comparison, judgement: Judgement, change: str, cover: Coverage | None) -> None:
    """A judgement with no partner in the other run: ``removed`` (an old one) or ``added`` (a
    new one) where both runs could judge, else counted as not compared."""
    removed = change == "removed"
    if cover is None or cover.covers(judgement.t):
        result.changes.append(Change(change, judgement if removed else None, None if removed else judgement))
        if removed:
            result.compared_old += 1
        else:
            result.compared_new += 1
    elif removed:
        result.not_compared_old.append(judgement)
    else:
        result.not_compared_new.append(judgement)


# ---------------------------------------------------------------------- versions


def version_differences(manifest: dict[str, Any], models_now: Sequence[Path], rules_now: RuleSet,
                        software_now: dict[str, Any]) -> list[str]:
    """What the rejudge is judged with that differs from what the session recorded: each card
    model (the detector, the index classifier, the face classifier, by sha256), each rule setting, the
    software version and git commit."""
    out: list[str] = []
    recorded = [m for m in manifest.get("models") or [] if isinstance(m, dict)]
    for k, role in enumerate(MODEL_ROLES):
        was = recorded[k] if k < len(recorded) else {}
        path = models_now[k] if k < len(models_now) else None
        now = sha256_file(path) if path is not None and path.is_file() else None
        if was.get("sha256") != now:
            out.append(f"{role} {_model(was.get('file'), was.get('sha256'))} -> "
                       f"{_model(path.name if path else None, now)}")
    rules_then = manifest.get("rules") if isinstance(manifest.get("rules"), dict) else {}
    rules_then = rules_then or {}
    for name, value in asdict(rules_now).items():
        if name not in rules_then:
            out.append(f"rule setting {name}: not in the record, now {value!r}")
        elif rules_then[name] != value:
            out.append(f"rule setting {name}: {rules_then[name]!r} -> {value!r}")
    out.extend(f"rule setting {name}: recorded {v!r}, unknown now" for name, v in rules_then.items()
               if name not in asdict(rules_now))
    soft_then = manifest.get("software") if isinstance(manifest.get("software"), dict) else {}
    soft_then = soft_then or {}
    if soft_then.get("version") != software_now.get("version"):
        out.append(f"spit-referee {soft_then.get('version')} -> {software_now.get('version')}")
    then_git, now_git = soft_then.get("git") or {}, software_now.get("git") or {}
    if then_git != now_git:
        out.append(f"software git {_commit(then_git)} -> {_commit(now_git)}")
    return out


def _model(name: object, sha: object) -> str:
    return f"{name} {_short(sha)}" if name else "none"


def _short(sha: object) -> str:
    return str(sha)[:12] if sha else "missing"


def _commit(git: dict[str, Any]) -> str:
    if not git:
        return "unknown"
    return str(git.get("commit", ""))[:10] + (" (modified)" if git.get("modified") else "")


# ---------------------------------------------------------------------- the game to replay


@dataclass(frozen=True)
class RecordedGame:
    """What a session's video continued, to be given to the new run as it was to the old: the
    rule set the table played with and the table events before the first frame (a prelude)."""

    rules: RuleSet
    prelude: tuple[TableEvent, ...] = ()
    prelude_from: str | None = None  # where the prelude was found


def recorded_game(session: Session) -> RecordedGame:
    """The rules from the log's ``game_start`` (else the manifest's), and the prelude: the
    log's events marked ``"prelude": true``, else the prelude file the manifest names, when it
    is still there with the sha256 recorded. InputError when the session had a prelude that
    cannot be found: without it the first frame would be judged as a new round."""
    start = next((r for r in session.records if isinstance(r, GameStart)), None)
    rules = start.rules if start is not None else _manifest_rules(session.manifest)
    facts = session.manifest.get("prelude")
    if not isinstance(facts, dict):
        return RecordedGame(rules)
    marked = tuple(r for r in session.records
                   if isinstance(r, TableEvent) and (r.evidence or {}).get("prelude"))
    if marked:
        return RecordedGame(rules, marked, "the session's log (events marked prelude)")
    path = Path(str(facts.get("path", "")))
    if path.is_file() and sha256_file(path) == facts.get("sha256"):
        from referee.eventlog import read_records_strict

        with path.open(encoding="utf-8") as f:
            events = tuple(r for r in read_records_strict(f, str(path)) if isinstance(r, TableEvent))
        return RecordedGame(rules, events, str(path))
    raise InputError(f"the session continued a game from a prelude ({facts.get('path')}) that is neither "
                     "marked in its intact log nor at that path with the sha256 recorded: give it with "
                     "--prelude", str(session.folder))


def _manifest_rules(manifest: dict[str, Any]) -> RuleSet:
    recorded = manifest.get("rules") if isinstance(manifest.get("rules"), dict) else None
    if not recorded:
        return RuleSet()
    known = set(asdict(RuleSet()))
    try:
        return RuleSet(**{k: v for k, v in recorded.items() if k in known})
    except (TypeError, ValueError) as exc:
        raise InputError(f"session.json: its rules cannot be read ({exc})") from None


# ---------------------------------------------------------------------- the whole answer


@dataclass
class Rejudgement:
    """A session judged again: what differs in what it was judged with, what was compared,
    and what changed."""

    folder: Path
    comparison: Comparison
    cover: Coverage
    versions: list[str]
    tolerance: float

    @property
    def changed(self) -> bool:
        return bool(self.comparison.changes)

    def counts(self) -> dict[str, int]:
        kinds = [c.change for c in self.comparison.changes]
        return {k: kinds.count(k) for k in ("changed", "added", "removed")}

    def to_json(self) -> dict[str, Any]:
        c = self.comparison
        return {
            "session": str(self.folder), "changed": self.changed, "counts": self.counts(),
            "differs_from_record": self.versions, "tolerance_s": self.tolerance,
            "compared": {"from_t": self.cover.first_t, "to_t": self.cover.last_t, "recorded": c.compared_old,
                         "new": c.compared_new, "same": c.same},
            "not_compared": {"recorded": len(c.not_compared_old), "new": len(c.not_compared_new),
                             "why": list(self.cover.skipped)},
            "changes": [change.to_json() for change in c.changes],
        }


def rejudge(session: Session, new_records: Sequence[Record], *, versions: list[str],
            tolerance: float = TOLERANCE_S) -> Rejudgement:
    """Compare a new run's records with the session's verified ones (see the module doc)."""
    cover = coverage(session)
    comparison = compare(judgements(session.records), judgements(new_records), cover, tolerance)
    return Rejudgement(session.folder, comparison, cover, versions, tolerance)
