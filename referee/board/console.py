"""A board in the terminal: shows the same signals as the real board, for play without one."""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from referee.board.patterns import LED_NAMES, show_for
from referee.board.protocol import Led, LedMode, LedPattern
from referee.board.signals import Signal


class ConsoleBoard:
    """Writes one line per signal to ``stream``: what the board does, then the lights left on.

    ``signal`` only formats and writes a line, so it returns at once like the real board's.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self._lock = threading.Lock()
        self._lights: dict[Led, LedPattern] = {}
        self._closed = False

    def signal(self, sig: Signal) -> None:
        show = show_for(sig)
        with self._lock:
            if self._closed:
                return
            if show.all_off:
                self._lights.clear()
            else:
                for led, pattern in show.lights.items():
                    if pattern.mode is LedMode.OFF or pattern.is_finite:
                        self._lights.pop(led, None)
                    else:
                        self._lights[led] = pattern
            lit = ", ".join(
                f"{LED_NAMES[led]} {'on' if p.mode is LedMode.ON else 'blinking'}"
                for led, p in sorted(self._lights.items())
            ) or "none"
            self._stream.write(f"[board] {sig}: {show.describe()}  | lit: {lit}\n")
            self._stream.flush()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def __enter__(self) -> ConsoleBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
