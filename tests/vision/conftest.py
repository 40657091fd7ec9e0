"""Shared fixtures for the vision tests: the default mat and synthetic camera views."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from referee.vision.mat import MatLayout, load_layout  # noqa: E402


@pytest.fixture(scope="session")
def layout() -> MatLayout:
    return load_layout()
