"""Marks which rule ids of RULES.md a test covers; test_rule_coverage checks every id has one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., object])


def covers(*rule_ids: str) -> Callable[[F], F]:
    """``@covers("P3", "D2")``: this test checks those rules."""

    def mark(test: F) -> F:
        return pytest.mark.rules(*rule_ids)(test)  # type: ignore[no-any-return]

    return mark
