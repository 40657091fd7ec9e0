"""``spit-referee board ...`` on the console board, a missing port, and the simulated board."""

from __future__ import annotations

from click.testing import CliRunner

from referee.board import every_signal
from referee.board.simulator import BUZZER_PIN, LED_PINS, SimulatedBoard
from referee.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_board_test_on_the_console_shows_every_signal() -> None:
    code, out, _ = run("board", "test", "--port", "console", "--step", "0")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(every_signal())  # one line per signal
    assert all(line.startswith("[board] ") for line in lines)


def test_board_test_on_the_simulated_board_drives_every_light(sim: SimulatedBoard) -> None:
    code, out, err = run("board", "test", "--port", sim.port or "", "--step", "0.05")
    assert code == 0, err
    assert out.startswith(f"board on {sim.port}: firmware 1.0, protocol v1")
    assert f"[{len(every_signal())}/{len(every_signal())}] all-off: everything off" in out
    assert "resent" in out and "bad_crc=0" in out
    for pin in (*LED_PINS.values(), BUZZER_PIN):
        assert sim.history(pin), f"pin {pin} never moved"
    assert all(sim.level(pin) == 0 for pin in LED_PINS.values())  # all-off at the end


def test_board_status_reports_counters(sim: SimulatedBoard) -> None:
    code, out, err = run("board", "status", "--port", sim.port or "")
    assert code == 0, err
    assert "protocol v1, 5 lights, heartbeat timeout 1000 ms" in out
    assert "watchdog=0" in out


def test_missing_port_is_one_line_and_exit_2() -> None:
    code, out, err = run("board", "test", "--port", "/dev/no-such-board", "--step", "0")
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("spit-referee: error: no referee board answers on /dev/no-such-board")
    assert "Traceback" not in out + err


def test_bad_signal_name_is_reported() -> None:
    code, _, err = run("board", "test", "--port", "console", "--only", "slap")
    assert code == 2
    assert "--only: unknown signal 'slap'" in err


def test_only_shows_the_chosen_signals() -> None:
    code, out, _ = run("board", "test", "--port", "console", "--step", "0",
                       "--only", "fault:B", "--only", "game-over:draw")
    assert code == 0
    assert [line.split(":")[0] for line in out.splitlines()] == ["[board] fault",
                                                                  "[board] game-over"]


def test_ports_lists_without_error() -> None:
    code, _, _ = run("board", "ports")
    assert code == 0
