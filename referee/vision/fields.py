"""Read typed fields out of parsed YAML, with errors that name the file and the field.

The mat layout and calibration readers use these helpers so that every complaint about a file
reads like ``calibration/x.yaml: field 'homography': expected 3 rows of 3 numbers``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from referee.errors import InputError


def read_yaml_mapping(path: Path, what: str) -> dict[str, Any]:
    """Parse ``path`` as YAML and return its top-level mapping (InputError otherwise)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such {what} file", str(path)) from None
    except UnicodeDecodeError:
        raise InputError(f"not a {what} file (not UTF-8 text)", str(path)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise InputError(f"not a {what} file (YAML does not parse: {exc})", where) from None
    if not isinstance(data, dict):
        raise InputError(f"not a {what} file (expected a YAML mapping at the top)", str(path))
    return data


class Fields:
    """A view of one YAML mapping that reads fields and names them in errors."""

    def __init__(self, data: Any, source: str, prefix: str = "") -> None:
        self.source = source
        self.prefix = prefix
        if not isinstance(data, dict):
            raise InputError("expected a mapping", self.where(""))
        self.data: dict[str, Any] = data

    def where(self, key: str) -> str:
        name = f"{self.prefix}.{key}" if self.prefix and key else (self.prefix or key)
        return f"{self.source}: field '{name}'" if name else self.source

    def fail(self, key: str, message: str) -> InputError:
        return InputError(message, self.where(key))

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise self.fail(key, "missing")
        return self.data[key]

    def sub(self, key: str) -> Fields:
        value = self.raw(key)
        if not isinstance(value, dict):
            raise self.fail(key, "expected a mapping")
        name = f"{self.prefix}.{key}" if self.prefix else key
        return Fields(value, self.source, name)

    def text(self, key: str, default: str | None = None) -> str:
        if key not in self.data and default is not None:
            return default
        value = self.raw(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def number(self, key: str, *, positive: bool = False) -> float:
        return check_number(self.raw(key), self.where(key), positive=positive)

    def integer(self, key: str) -> int:
        value = self.raw(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, got {value!r}")
        return value

    def numbers(self, key: str, count: int | None = None, *, positive: bool = False) -> list[float]:
        return check_numbers(self.raw(key), self.where(key), count, positive=positive)

    def matrix(self, key: str, rows: int, cols: int) -> list[list[float]]:
        value = self.raw(key)
        if not isinstance(value, list) or len(value) != rows:
            raise self.fail(key, f"expected {rows} rows of {cols} numbers")
        return [check_numbers(row, self.where(key), cols) for row in value]


def check_number(value: Any, where: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"expected a number, got {value!r}", where)
    if positive and value <= 0:
        raise InputError(f"expected a positive number, got {value!r}", where)
    return float(value)


def check_numbers(
    value: Any, where: str, count: int | None = None, *, positive: bool = False
) -> list[float]:
    if not isinstance(value, list) or (count is not None and len(value) != count):
        size = f"{count} " if count is not None else ""
        raise InputError(f"expected a list of {size}numbers, got {value!r}", where)
    return [check_number(v, where, positive=positive) for v in value]
