"""The board firmware running in simavr, for firmware-in-the-loop tests and the benchmark.

:func:`build` compiles the firmware and the harness (``hardware/sim/harness.c``) with make;
:class:`SimulatedBoard` starts the harness, which exposes the AVR's UART as a pseudo-terminal
(open it with :class:`referee.board.SerialBoard` like a real port) and reports every GPIO pin
change with the simulated time and the host time. Needs gcc-avr, avr-libc, simavr and
libsimavr-dev (``scripts/install.sh``).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from referee.board.protocol import Led
from referee.errors import MissingPrerequisite

log = logging.getLogger(__name__)

HARDWARE_DIR = Path(__file__).resolve().parents[2] / "hardware"

#: Pin names as the harness prints them (port letter and bit), per light.
LED_PINS: dict[Led, str] = {
    Led.A_RED: "D2",
    Led.A_GREEN: "D3",
    Led.B_RED: "D4",
    Led.B_GREEN: "D5",
    Led.SPIT: "D6",
}
BUZZER_PIN = "B1"
LINK_PIN = "B5"


@dataclass(frozen=True)
class Build:
    firmware: Path
    harness: Path


def build(build_dir: Path, *, protocol_version: int | None = None) -> Build:
    """Compile the firmware (optionally speaking another protocol version) and the harness."""
    missing = [tool for tool in ("make", "avr-gcc", "cc") if shutil.which(tool) is None]
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        missing.append("libsimavr-dev")
    if missing:
        raise MissingPrerequisite(
            f"cannot build the board firmware or its simulator: {', '.join(missing)} not "
            "installed; run scripts/install.sh (it installs gcc-avr, avr-libc, simavr, "
            "libsimavr-dev)"
        )
    cmd = ["make", "-s", "-C", str(HARDWARE_DIR), f"BUILD={build_dir}", "all"]
    if protocol_version is not None:
        cmd.append(f"PROTO_VERSION={protocol_version}")
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MissingPrerequisite(
            f"building the board firmware failed ({' '.join(cmd)}):\n{done.stderr.strip()}"
        )
    return Build(build_dir / "firmware.elf", build_dir / "harness")


@dataclass(frozen=True)
class PinChange:
    pin: str
    value: int
    sim_ns: int
    host_ns: int


class SimulatedBoard:
    """One simavr instance running the firmware; use as a context manager.

    The CPU is held after start-up so that nothing the firmware does is lost while the test
    opens the port; call :meth:`go` to start it.
    """

    def __init__(self, built: Build, *, start_timeout: float = 10.0) -> None:
        self._proc = subprocess.Popen(
            [str(built.harness), str(built.firmware)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1,
        )
        self._cond = threading.Condition()
        self.changes: list[PinChange] = []
        self._times: list[int] = []
        self.other_lines: list[str] = []
        self.port: str | None = None
        self._ready = False
        self._running = False
        self.exited = False
        self._reader = threading.Thread(target=self._read, name="simavr-stdout", daemon=True)
        self._reader.start()
        if not self.wait(lambda: self._ready or self.exited, start_timeout):
            self.close()
            raise RuntimeError("simavr harness did not start")
        if self.port is None:
            err = self._proc.stderr.read() if self._proc.stderr else ""
            raise RuntimeError(f"simavr harness failed: {err.strip()}")

    def _read(self) -> None:
        assert self._proc.stdout is not None
        try:
            self._read_lines(self._proc.stdout)
        except (OSError, ValueError):  # the pipe was closed under us: the harness is gone
            pass
        with self._cond:
            self.exited = True
            self._cond.notify_all()

    def _read_lines(self, stdout: IO[str]) -> None:
        for line in stdout:
            parts = line.split()
            with self._cond:
                if parts[:1] == ["PIN"] and len(parts) == 5:
                    self.changes.append(
                        PinChange(parts[1], int(parts[2]), int(parts[3]), int(parts[4]))
                    )
                elif parts[:1] == ["TIME"] and len(parts) == 3:
                    self._times.append(int(parts[1]))
                elif parts[:1] == ["PTY"] and len(parts) == 2:
                    self.port = parts[1]
                elif parts[:1] == ["READY"]:
                    self._ready = True
                elif parts[:1] == ["RUNNING"]:
                    self._running = True
                else:
                    self.other_lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def go(self, timeout: float = 5.0) -> None:
        """Let the simulated CPU run."""
        assert self._proc.stdin is not None
        self._proc.stdin.write("go\n")
        self._proc.stdin.flush()
        if not self.wait(lambda: self._running, timeout):
            raise RuntimeError("simavr harness did not start the CPU")

    def sim_now(self, timeout: float = 2.0) -> int:
        """The simulated clock now, in ns since reset."""
        with self._cond:
            asked = len(self._times)
        assert self._proc.stdin is not None
        self._proc.stdin.write("time\n")
        self._proc.stdin.flush()
        if not self.wait(lambda: len(self._times) > asked, timeout):
            raise RuntimeError("simavr harness did not tell the time")
        with self._cond:
            return self._times[-1]

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` (evaluated under the lock) holds; False on timeout."""
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def level(self, pin: str) -> int:
        """The pin's present level (0 until it first changes)."""
        with self._cond:
            for change in reversed(self.changes):
                if change.pin == pin:
                    return change.value
        return 0

    def level_at(self, pin: str, sim_ns: int) -> int:
        """The pin's level at simulated time ``sim_ns`` (changes at that instant included)."""
        with self._cond:
            level = 0
            for change in self.changes:
                if change.sim_ns > sim_ns:
                    break
                if change.pin == pin:
                    level = change.value
            return level

    def wait_level(self, pin: str, value: int, timeout: float = 3.0,
                   after: int = 0) -> PinChange | None:
        """Wait for the first change of ``pin`` to ``value`` among changes[after:]."""
        found: list[PinChange] = []

        def seen() -> bool:
            for change in self.changes[after:]:
                if change.pin == pin and change.value == value:
                    found.append(change)
                    return True
            return False

        self.wait(seen, timeout)
        return found[0] if found else None

    def history(self, pin: str) -> list[PinChange]:
        with self._cond:
            return [c for c in self.changes if c.pin == pin]

    def mark(self) -> int:
        """Index to pass as ``after`` to look only at changes from now on."""
        with self._cond:
            return len(self.changes)

    def kill(self) -> None:
        """Pull the plug: the process and its pseudo-terminal vanish at once."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait(timeout=5)
        self._reader.join(timeout=5)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait(timeout=5)
        if self._proc.returncode not in (0, None, -9):
            log.warning("simavr harness ended with status %s: %s", self._proc.returncode,
                        self._proc.stderr.read() if self._proc.stderr else "")
        self._reader.join(timeout=5)  # it ends at end of file, once the process is gone
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> SimulatedBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

