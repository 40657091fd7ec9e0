"""Subcommands for the board area: ``spit-referee board test|status|ports``."""

from __future__ import annotations

import time

import click

from referee.errors import InputError


@click.group("board")
def board_group() -> None:
    """The LED/buzzer board beside the table (hardware/README.md)."""


@board_group.command("test")
@click.option("--port", required=True, metavar="PORT",
              help="Serial port (/dev/ttyUSB0, COM3), pyserial URL (spy://...), or 'console'.")
@click.option("--step", type=click.FloatRange(min=0), default=2.0, show_default=True,
              help="Seconds to watch each signal before the next.")
@click.option("--only", "only", multiple=True, metavar="SIGNAL",
              help="Show only these signals (e.g. fault:A, spit-call, game-over:draw); "
                   "repeatable.")
def board_test(port: str, step: float, only: tuple[str, ...]) -> None:
    """Walk through every referee signal on the board, saying what you should see and hear."""
    from referee.board import CONSOLE, SerialBoard, Signal, every_signal, open_board
    from referee.board.patterns import show_for

    try:
        signals = [Signal.parse(text) for text in only] or every_signal()
    except ValueError as exc:
        raise InputError(str(exc), "--only") from None
    with open_board(port) as board:
        if isinstance(board, SerialBoard) and board.hello is not None:
            hello = board.hello
            click.echo(f"board on {port}: firmware {hello.firmware[0]}.{hello.firmware[1]}, "
                       f"protocol v{hello.protocol_version}, heartbeat timeout "
                       f"{hello.heartbeat_timeout_ms} ms")
        for number, sig in enumerate(signals, 1):
            if port.strip().lower() != CONSOLE:
                click.echo(f"[{number}/{len(signals)}] {sig}: {show_for(sig).describe()}")
            board.signal(sig)
            time.sleep(step)  # time for a person to watch the board
        if isinstance(board, SerialBoard):
            done = board.flush(5.0)
            _report(board, complete=done)


@board_group.command("status")
@click.option("--port", required=True, metavar="PORT", help="Serial port or pyserial URL.")
def board_status(port: str) -> None:
    """Show the board's firmware, protocol version and error counters."""
    from referee.board import SerialBoard

    with SerialBoard(port) as board:
        hello = board.hello
        assert hello is not None
        click.echo(f"board on {port}: firmware {hello.firmware[0]}.{hello.firmware[1]}, "
                   f"protocol v{hello.protocol_version}, {hello.led_count} lights, heartbeat "
                   f"timeout {hello.heartbeat_timeout_ms} ms")
        _report(board, complete=True)


@board_group.command("ports")
def board_ports() -> None:
    """List serial ports; the likely boards (Arduino, CH340, FTDI, CP210x) are marked."""
    from serial.tools import list_ports

    likely = {0x2341, 0x2A03, 0x1A86, 0x0403, 0x10C4}
    ports = sorted(list_ports.comports(), key=lambda p: p.device)
    if not ports:
        click.echo("no serial ports found: plug the board in (USB), or use --board console")
    for info in ports:
        mark = "*" if info.vid in likely else " "
        click.echo(f"{mark} {info.device}  {info.description}  [{info.hwid}]")


def _report(board: object, *, complete: bool) -> None:
    from referee.board import SerialBoard
    from referee.board.protocol import StatusCounter

    assert isinstance(board, SerialBoard)
    counters = board.read_status()
    stats = board.stats
    click.echo(f"driver: {stats.frames_sent} frames sent, {stats.retries} resent, "
               f"{stats.reconnects} reconnects, {stats.rejected} rejected, "
               f"{stats.bad_replies} bad replies")
    if counters:
        click.echo("board: " + ", ".join(f"{c.name.lower()}={counters[c]}"
                                          for c in StatusCounter))
    if not complete:
        click.echo("warning: the board did not acknowledge every signal", err=True)


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
    group.add_command(board_group)
