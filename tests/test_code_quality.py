"""The house style holds: ruff is clean everywhere, mypy --strict on the rules and the board."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_ruff_is_clean() -> None:
    result = _run("ruff", "check", "referee", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_rules_and_board() -> None:
    result = _run("mypy", "--strict", "--cache-dir", str(ROOT / ".cache" / "mypy"),
                  "referee/rules", "referee/board", "referee/cards.py", "referee/events.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_logs_and_selfplay() -> None:
    result = _run("mypy", "--strict", "--follow-imports=silent", "--cache-dir", str(ROOT / ".cache" / "mypy"),
                  "referee/selfplay", "referee/eventlog.py", "referee/judging.py", "referee/logcheck.py",
                  "referee/cli/game.py", "referee/scoring.py", "referee/vision/observation.py",
                  "referee/vision/zonecrops.py", "referee/live/source.py", "referee/live/run.py",
                  "referee/live/overlay.py", "referee/sim/oracle.py", "referee/cli/refereeing.py",
                  "referee/session/rejudge.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_session_reports() -> None:
    result = _run("mypy", "--strict", "--follow-imports=silent", "--cache-dir", str(ROOT / ".cache" / "mypy"),
                  "referee/session/html.py", "referee/session/moment.py", "referee/session/evidence.py",
                  "referee/session/dispute.py", "referee/session/report.py", "referee/cli/reports.py")
    assert result.returncode == 0, result.stdout + result.stderr
