"""Fixtures of the board tests: the firmware built once per session and run in simavr."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.board.simulator import Build, SimulatedBoard, build
from referee.errors import MissingPrerequisite


def _build(tmp_path_factory: pytest.TempPathFactory, name: str, **kw: int) -> Build:
    try:
        return build(tmp_path_factory.mktemp(name), **kw)
    except MissingPrerequisite as exc:
        # Never skip silently: these tests are the proof that the firmware works.
        pytest.fail(f"{exc}\n(run `bash scripts/install.sh --dev` first)", pytrace=False)


@pytest.fixture(scope="session")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The firmware and the simavr harness, compiled with make into a temporary directory."""
    return _build(tmp_path_factory, "board-build")


@pytest.fixture(scope="session")
def firmware_v2(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The same firmware built to speak protocol version 2."""
    return _build(tmp_path_factory, "board-build-v2", protocol_version=2)


@pytest.fixture
def sim(firmware: Build) -> Iterator[SimulatedBoard]:
    """A running simulated board; ``sim.port`` is its pseudo-terminal."""
    with SimulatedBoard(firmware) as board:
        board.go()
        yield board


@pytest.fixture
def sim_link(tmp_path: Path) -> Path:
    """A stable port name (a symlink) that tests re-point to simulate unplugging."""
    return tmp_path / "ttyBOARD"


def point(link: Path, target: str) -> None:
    """Atomically (re)point ``link`` at ``target``."""
    tmp = link.with_suffix(".new")
    if tmp.is_symlink():
        tmp.unlink()
    os.symlink(target, tmp)
    os.replace(tmp, link)
