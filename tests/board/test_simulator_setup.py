"""The firmware-in-the-loop setup fails loudly, with what to do, when its tools are missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.board import simulator
from referee.errors import MissingPrerequisite


def test_missing_avr_toolchain_says_to_run_the_install_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(simulator.shutil, "which",
                        lambda name: None if name == "avr-gcc" else real_which(name))
    with pytest.raises(MissingPrerequisite, match=r"avr-gcc not installed; run scripts/install"):
        simulator.build(tmp_path)


def test_failed_build_reports_the_compiler_output(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setattr(simulator, "HARDWARE_DIR", tmp_path)  # no Makefile there
    with pytest.raises(MissingPrerequisite, match="building the board firmware failed"):
        simulator.build(tmp_path / "out")
