"""The LED/buzzer board beside the table: signal vocabulary, protocol and drivers.

The referee calls :meth:`Board.signal` with a :class:`Signal` (``Signal.fault(Player.A)``,
``Signal.spit_call()``, ...); the call never blocks. :func:`open_board` gives a
:class:`SerialBoard` for a port name or pyserial URL, or a :class:`ConsoleBoard` for
``"console"``. The hardware, firmware and wire protocol live in ``hardware/``.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, TextIO, runtime_checkable

from referee.board.console import ConsoleBoard
from referee.board.serial_board import BoardError, BoardVersionError, SerialBoard
from referee.board.signals import Signal, SignalKind, every_signal

CONSOLE = "console"


@runtime_checkable
class Board(Protocol):
    """Anything that shows referee signals to the players."""

    def signal(self, sig: Signal) -> None:
        """Show ``sig``; returns at once, never waits for the device."""

    def close(self) -> None:
        """Switch everything off and release the device."""

    def __enter__(self) -> Board: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def open_board(spec: str, *, stream: TextIO | None = None) -> Board:
    """``"console"`` for the terminal board, else a serial port name or pyserial URL.

    Raises :class:`referee.errors.MissingPrerequisite` when no board answers on the port and
    :class:`BoardVersionError` when its firmware speaks another protocol version.
    """
    if spec.strip().lower() == CONSOLE:
        return ConsoleBoard(stream)
    return SerialBoard(spec)


__all__ = [
    "Board",
    "BoardError",
    "BoardVersionError",
    "ConsoleBoard",
    "SerialBoard",
    "Signal",
    "SignalKind",
    "every_signal",
    "open_board",
]
