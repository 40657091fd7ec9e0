"""The game commands, run through click as a user would (and as a subprocess once)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_help_lists_the_commands() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for name in ("demo", "selfplay", "check", "rules"):
        assert name in out


def test_demo_referees_the_bundled_game_log() -> None:
    code, out, _ = run("demo", "--log", "bundled", "--faults-only")
    assert code == 0
    assert "F_ILLEGAL_RANK" in out and "F_LOST_TOUCH" in out and "game 0 (seed 112):" in out
    assert "won" in out


def test_selfplay_then_check(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    code, _, err = run("selfplay", "--seed", "5", "--games", "3", "--fault-rate", "0.1", "--out", str(log))
    assert code == 0 and "wrote 3 game(s)" in err
    code, out, _ = run("check", str(log), "--json")
    assert code == 0
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["game"] for g in games] == [0, 1, 2]
    assert all(g["winner"] in ("A", "B") for g in games)
    assert sum(len(g["faults"]) for g in games) > 0
    assert all(f["rule"] for g in games for f in g["faults"])


def test_check_finds_an_edited_verdict(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    run("selfplay", "--seed", "2", "--fault-rate", "0.2", "--out", str(log))
    lines = log.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"outcome":"fault"' in line)
    lines[i] = lines[i].replace('"outcome":"fault"', '"outcome":"legal"')
    log.write_text("\n".join(lines) + "\n")
    code, _, err = run("check", str(log))
    assert code == 1 and "changed" in err


@pytest.mark.parametrize(("content", "error"), [
    ('{"type":"slap","t":1,"player":"Q","pile":1}\n', "field 'player'"),
    ("not json at all\n", "not valid JSON"),
    ('{"type":"deal","t":1,"player":"A"}\n{"type":"turn","t":2,"player":"A","slot":1,"card":"QH"}\n'
     '{"type":"turn","t":3,"player":"A","slot":2,"card":"QH"}\n', "bad.jsonl:3: event 2"),
    ("", "no records"),
])
def test_check_rejects_bad_logs_without_a_traceback(tmp_path: Path, content: str, error: str) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(content)
    code, _, err = run("check", str(log))
    assert code == 1 and error in err and "Traceback" not in err


@pytest.mark.parametrize(("args", "error"), [
    (["check", "/no/such/file.jsonl"], "no such log file"),
    (["selfplay", "--games", "0", "--out", "x"], "0 is not in the range"),
    (["selfplay", "--variant", "V9", "--out", "x"], "'V9' is not one of"),
    (["selfplay", "--fault-rate", "2", "--out", "x"], "not in the range"),
    (["selfplay"], "Missing option '--out'"),
])
def test_bad_arguments_get_a_clear_message(args: list[str], error: str) -> None:
    code, _, err = run(*args)
    assert code == 2 and error in err


def test_binary_log_is_a_clear_error(tmp_path: Path) -> None:
    log = tmp_path / "x.jsonl"
    log.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run("check", str(log))
    assert code == 2 and "not a text log" in err


def test_installed_console_command_runs() -> None:
    exe = Path(sys.executable).with_name("spit-referee")
    assert exe.exists(), "spit-referee is not installed in this environment (run scripts/install.sh)"
    out = subprocess.run([str(exe), "rules"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "F_WRONG_PILE" in out.stdout
