"""Reading and writing the event schema (:mod:`referee.events`) as JSON Lines.

One record per line: ``{"type": "play", "t": 12.48, "frame": 374, "player": "A", ...}``.
Readers take an open text stream, keep every good line, and collect one :class:`LogError`
per bad line naming the line and the field, instead of stopping at the first (a torn last
line after a crash costs that line only). See docs/events.md for the fields.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from typing import IO, Any

import orjson

from referee.cards import FULL_DECK, Card
from referee.errors import InputError
from referee.events import TABLE_EVENTS, Call, CallKind, GameStart, Hand, Outcome, Record, Verdict
from referee.players import Player
from referee.rules.ruleset import RuleSet

RECORD_TYPES: dict[str, type[Any]] = {
    **TABLE_EVENTS,
    Verdict.kind: Verdict,
    Call.kind: Call,
    GameStart.kind: GameStart,
}


@dataclass(frozen=True)
class LogError:
    """One bad line: where it is, which field, and what is wrong."""

    source: str
    line: int
    field: str | None
    message: str

    def __str__(self) -> str:
        field = f" field '{self.field}'" if self.field else ""
        return f"{self.source}:{self.line}:{field} {self.message}"


class LogFormatError(InputError):
    """A log line that is not a valid record (raised by strict readers)."""

    def __init__(self, error: LogError) -> None:
        self.error = error
        super().__init__(str(error))


@dataclass
class LogContents:
    """What a reader got from a stream: every good record, and every bad line."""

    records: list[Record]
    errors: list[LogError]
    lines: int
    line_numbers: list[int] = field(default_factory=list)  # the line of each record


# ---------------------------------------------------------------------- encoding


def record_to_dict(record: Record) -> dict[str, Any]:
    """The JSON object for a record, ``type`` first, optional fields left out when empty."""
    out: dict[str, Any] = {"type": record.kind}
    for name, optional in _field_spec(type(record)):
        value = getattr(record, name)
        if value is None:
            if optional:
                continue
        elif isinstance(value, Card):
            value = value.code
        elif isinstance(value, str):
            value = str(value)  # plain str from a StrEnum
        elif isinstance(value, RuleSet):
            value = {f.name: getattr(value, f.name) for f in fields(value)}
        out[name] = value
    return out


_SPECS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _field_spec(cls: type) -> tuple[tuple[str, bool], ...]:
    """(field name, may be left out when None) for each field of a record class, cached."""
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = tuple((f.name, f.default is None) for f in fields(cls))
    return spec


def record_to_json(record: Record) -> str:
    return orjson.dumps(record_to_dict(record)).decode()


def write_records(stream: IO[str], records: Iterable[Record], *, flush: bool = False) -> int:
    """Write records as JSON Lines; returns how many. ``flush`` flushes after each line."""
    n = 0
    for record in records:
        stream.write(record_to_json(record) + "\n")
        if flush:
            stream.flush()
        n += 1
    return n


# ---------------------------------------------------------------------- decoding


class _FieldError(ValueError):
    def __init__(self, field: str | None, message: str) -> None:
        self.field = field
        super().__init__(message)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _FieldError(name, f"must be a number, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise _FieldError(name, f"must be a finite time >= 0, not {value!r}")
    return float(value)


def _integer(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _FieldError(name, f"must be a whole number, not {value!r}")
    if value < minimum:
        raise _FieldError(name, f"must be >= {minimum}, not {value}")
    return value


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _FieldError(name, f"must be a string, not {value!r}")
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _FieldError(name, f"must be true or false, not {value!r}")
    return value


def _enum(cls: Any) -> Callable[[str, Any], Any]:
    members = {m.value: m for m in cls}

    def parse(name: str, value: Any) -> Any:
        member = members.get(value) if isinstance(value, str) else None
        if member is None:
            allowed = ", ".join(repr(v) for v in members)
            raise _FieldError(name, f"{value!r} is not one of {allowed}")
        return member

    return parse


_CARDS = {c.code: c for c in FULL_DECK}


def _card(name: str, value: Any) -> Card:
    card = _CARDS.get(value) if isinstance(value, str) else None
    if card is not None:
        return card
    try:
        return Card.parse(value)
    except ValueError as exc:
        raise _FieldError(name, str(exc)) from None


def _evidence(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _FieldError(name, f"must be a JSON object, not {value!r}")
    return value


def _rules(name: str, value: Any) -> RuleSet:
    if not isinstance(value, dict):
        raise _FieldError(name, f"must be a JSON object of rule settings, not {value!r}")
    known = {f.name for f in fields(RuleSet)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise _FieldError(f"{name}.{unknown[0]}", f"unknown rule setting (known: {', '.join(sorted(known))})")
    try:
        return RuleSet(**value)
    except (TypeError, ValueError) as exc:
        raise _FieldError(name, str(exc)) from None


_PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "t": _number,
    "start": _number,
    "frame": lambda n, v: _integer(n, v, 0),
    "player": _enum(Player),
    "hand": _enum(Hand),
    "slot": lambda n, v: _integer(n, v, 1),
    "from_slot": lambda n, v: _integer(n, v, 1),
    "to_slot": lambda n, v: _integer(n, v, 1),
    "pile": lambda n, v: _integer(n, v, 1),
    "card": _card,
    "was": _card,
    "evidence": _evidence,
    "event": lambda n, v: _integer(n, v, 0),
    "outcome": _enum(Outcome),
    "code": _text,
    "rule": _text,
    "message": _text,
    "revised": _flag,
    "call": _enum(CallKind),
    "game": lambda n, v: _integer(n, v, 0),
    "rules": _rules,
    "seed": lambda n, v: _integer(n, v, 0),
}


@dataclass(frozen=True)
class _ClassSpec:
    cls: type[Any]
    names: frozenset[str]  # every field
    optional: frozenset[str]  # fields that may be null
    required: tuple[str, ...]  # fields with no default


def _class_spec(kind: str) -> _ClassSpec | None:
    spec = _CLASS_SPECS.get(kind)
    if spec is None and kind in RECORD_TYPES:
        cls = RECORD_TYPES[kind]
        fs = fields(cls)
        spec = _CLASS_SPECS[kind] = _ClassSpec(
            cls,
            frozenset(f.name for f in fs),
            frozenset(f.name for f in fs if f.default is None),
            tuple(f.name for f in fs if f.default is MISSING and f.default_factory is MISSING),
        )
    return spec


_CLASS_SPECS: dict[str, _ClassSpec] = {}


def record_from_dict(obj: Any) -> Record:
    """Build a record from a decoded JSON object; raises _FieldError naming the field."""
    if not isinstance(obj, dict):
        raise _FieldError(None, f"a record must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    spec = _class_spec(kind) if isinstance(kind, str) else None
    if spec is None:
        raise _FieldError("type", f"unknown record type {kind!r} (known: {', '.join(RECORD_TYPES)})")
    values: dict[str, Any] = {}
    for name, raw in obj.items():
        if name == "type":
            continue
        if name not in spec.names:
            raise _FieldError(name, f"not a field of a '{kind}' record")
        parser = _PARSERS[name]
        values[name] = None if raw is None and name in spec.optional else parser(name, raw)
    for name in spec.required:
        if name not in values:
            raise _FieldError(name, f"missing (a '{kind}' record needs it)")
    if values.get("start") is not None and values["start"] > values["t"]:
        raise _FieldError("start", f"start {values['start']} is after t {values['t']}")
    if kind == "correct" and (values.get("slot") is None) == (values.get("pile") is None):
        # (``Correction`` checks this too; here the error names the field)
        raise _FieldError("slot", "a 'correct' record names a stock slot (slot) or a spit pile (pile), "
                                  "not both nor neither")
    return spec.cls(**values)  # type: ignore[no-any-return]


def iter_lines(stream: IO[str], source: str) -> Iterator[tuple[int, Record | LogError]]:
    """Yield (line number, record or error) for every non-blank line of the stream."""
    for number, line in enumerate(stream, start=1):
        text = line.strip()
        if not text:
            continue
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            torn = "" if line.endswith("\n") else " (torn last line?)"
            yield number, LogError(source, number, None, f"not valid JSON: {exc.msg}{torn}")
            continue
        try:
            yield number, record_from_dict(obj)
        except _FieldError as exc:
            yield number, LogError(source, number, exc.field, str(exc))


def read_records(stream: IO[str], source: str = "<stream>") -> LogContents:
    """Read every good record; collect an error for every bad line (never raises on content)."""
    contents = LogContents([], [], 0)
    for number, item in iter_lines(stream, source):
        contents.lines = number
        if isinstance(item, LogError):
            contents.errors.append(item)
        else:
            contents.records.append(item)
            contents.line_numbers.append(number)
    return contents


def read_records_strict(stream: IO[str], source: str = "<stream>") -> list[Record]:
    """Read every record; raise LogFormatError at the first bad line."""
    out: list[Record] = []
    for _, item in iter_lines(stream, source):
        if isinstance(item, LogError):
            raise LogFormatError(item)
        out.append(item)
    return out
