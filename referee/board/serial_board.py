"""The driver of the real board (or the simulated one): pyserial, never blocking the caller.

A writer thread owns the port. :meth:`SerialBoard.signal` turns a signal into commands and
puts them on a bounded queue; the thread sends each one as a frame and waits for the board's
acknowledgement, resending a frame that is not acknowledged in time (the board executes a
resent frame only once). Between commands it sends a heartbeat, whose answer carries the
board's error counters. When the port vanishes or the board stops answering, the thread closes
the port, reopens it by name until the board is back, and restores the lights the referee had
set. The protocol is specified in hardware/PROTOCOL.md.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

import serial

from referee.board.patterns import led_entries, show_for
from referee.board.protocol import (
    LED_MAX_ENTRIES,
    OFF,
    PROTOCOL_VERSION,
    AckResult,
    Frame,
    FrameDecoder,
    FrameError,
    HelloReply,
    Led,
    LedPattern,
    MsgType,
    ProtocolError,
    StatusCounter,
    leds_payload,
    parse_ack,
    parse_status,
    tone_payload,
)
from referee.board.signals import Signal
from referee.errors import MissingPrerequisite, RefereeError

log = logging.getLogger(__name__)

BAUDRATE = 115200
_ERROR_COUNTERS = (
    StatusCounter.BAD_CRC,
    StatusCounter.BAD_FRAME,
    StatusCounter.OVERFLOW,
    StatusCounter.BAD_VERSION,
    StatusCounter.BAD_COMMAND,
    StatusCounter.TX_DROPPED,
)


class BoardError(RefereeError):
    """The board cannot be used as it is."""


class BoardVersionError(BoardError):
    """The board speaks another protocol version: its firmware must be reflashed."""


class SerialPort(Protocol):
    """What the driver needs from a pyserial port (or a test double)."""

    @property
    def in_waiting(self) -> int: ...

    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


@dataclass
class BoardStats:
    """What the driver has done so far (a snapshot: see :attr:`SerialBoard.stats`)."""

    frames_sent: int = 0
    retries: int = 0
    reconnects: int = 0
    dropped: int = 0
    rejected: int = 0
    bad_replies: int = 0
    board_counters: dict[StatusCounter, int] = field(default_factory=dict)


@dataclass
class _Command:
    type: MsgType
    payload: bytes
    label: str
    created: float
    seq: int | None = None


class _LinkDown(Exception):
    pass


def _default_opener(port: str, baudrate: int) -> Callable[[], SerialPort]:
    def open_port() -> SerialPort:
        port_: SerialPort = serial.serial_for_url(
            port, baudrate=baudrate, timeout=0.01, write_timeout=0.5,
            exclusive=True if "://" not in port else None,
        )
        return port_

    return open_port


class SerialBoard:
    """The LED/buzzer board on a serial port or pyserial URL (``/dev/ttyUSB0``, ``spy://...``).

    Opening performs the version handshake and raises :class:`MissingPrerequisite` when no
    board answers and :class:`BoardVersionError` when it speaks another protocol version.
    """

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = BAUDRATE,
        opener: Callable[[], SerialPort] | None = None,
        connect_timeout_s: float = 3.0,
        ack_timeout_s: float = 0.1,
        retries: int = 4,
        heartbeat_s: float = 0.25,
        reconnect_interval_s: float = 0.2,
        queue_size: int = 32,
        stale_sound_s: float = 1.0,
    ) -> None:
        if ack_timeout_s <= 0 or heartbeat_s <= 0 or retries < 0 or queue_size < 4:
            raise ValueError("ack_timeout_s and heartbeat_s must be > 0, retries >= 0, "
                             "queue_size >= 4")
        self.port_name = port
        self._opener = opener or _default_opener(port, baudrate)
        self._connect_timeout_s = connect_timeout_s
        self._ack_timeout_s = ack_timeout_s
        self._retries = retries
        self._heartbeat_s = heartbeat_s
        self._reconnect_interval_s = reconnect_interval_s
        self._queue_size = queue_size
        self._stale_sound_s = stale_sound_s

        self._cond = threading.Condition()
        self._queue: collections.deque[_Command] = collections.deque()
        self._lights: dict[Led, tuple[LedPattern, float]] = {}  # pattern, when it was set
        self._stats = BoardStats()
        self._busy = False
        self._stopping = False
        self._closed = False
        self._need_restore = False
        self._connected = False
        self._seq = 0
        self._last_tx = 0.0
        self._decoder = FrameDecoder()
        self._last_error = ""
        self.hello: HelloReply | None = None

        try:
            self._port: SerialPort | None = self._connect()
        except _LinkDown as exc:
            raise MissingPrerequisite(
                f"no referee board answers on {port}: {exc}. Plug the board in (or give the "
                "right port: `spit-referee board ports` lists them), or play with the console "
                "board (`--board console`)"
            ) from None
        self._connected = True
        self._thread = threading.Thread(target=self._run, name=f"board {port}", daemon=True)
        self._thread.start()

    # ---- the caller's side: never blocks on I/O ----

    def signal(self, sig: Signal) -> None:
        """Queue the lights and sound of ``sig``; returns at once."""
        show = show_for(sig)
        now = time.monotonic()
        with self._cond:
            if self._closed:
                log.warning("board %s is closed; %s not shown", self.port_name, sig)
                return
            if show.all_off:
                self._lights.clear()
                self._enqueue(_Command(MsgType.ALL_OFF, b"", str(sig), now))
            else:
                self._lights.update({led: (p, now) for led, p in show.lights.items()})
                for cmd in self._leds_commands(show.lights.items(), str(sig), now):
                    self._enqueue(cmd)
                if show.tone is not None:
                    self._enqueue(_Command(MsgType.TONE, tone_payload(show.tone), str(sig), now))
            self._cond.notify_all()

    def flush(self, timeout: float = 2.0) -> bool:
        """Wait until every queued command has been answered; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def read_status(self, timeout: float = 2.0) -> dict[StatusCounter, int]:
        """Ask the board for its counters now and wait for them (empty dict on timeout)."""
        with self._cond:
            if self._closed:
                return {}
            self._enqueue(_Command(MsgType.HEARTBEAT, b"", "status", time.monotonic()))
            self._cond.notify_all()
        self.flush(timeout)
        return self.stats.board_counters

    @property
    def connected(self) -> bool:
        with self._cond:
            return self._connected

    @property
    def stats(self) -> BoardStats:
        with self._cond:
            return replace(self._stats, board_counters=dict(self._stats.board_counters))

    @property
    def lights(self) -> dict[Led, LedPattern]:
        """The patterns the referee has set, as they will be restored after a reconnect."""
        with self._cond:
            return {led: pattern for led, (pattern, _) in self._lights.items()}

    def close(self, timeout: float = 2.0) -> None:
        """Switch everything off, stop the thread and close the port."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._stopping = True
            self._queue.append(_Command(MsgType.ALL_OFF, b"", "close", time.monotonic()))
            self._cond.notify_all()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("board %s: writer thread still busy after %.1f s", self.port_name,
                        timeout)

    def __enter__(self) -> SerialBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- queue (call with the lock held) ----

    def _enqueue(self, cmd: _Command) -> None:
        if len(self._queue) >= self._queue_size:
            lost = self._queue.popleft()
            self._stats.dropped += 1
            self._need_restore = True  # the lights it carried are re-sent in full
            log.warning("board %s: queue full, dropped %s", self.port_name, lost.label)
        self._queue.append(cmd)

    def _leds_commands(
        self, lights: Iterable[tuple[Led, LedPattern]], label: str, now: float
    ) -> list[_Command]:
        entries = led_entries(dict(lights))
        return [
            _Command(MsgType.LEDS, leds_payload(entries[i : i + LED_MAX_ENTRIES]), label, now)
            for i in range(0, len(entries), LED_MAX_ENTRIES)
        ]

    def _restore_commands(self) -> list[_Command]:
        now = time.monotonic()
        state = {led: OFF for led in Led}
        for led, (pattern, since) in self._lights.items():
            # A finite blink is shown again (from its start) only if it has not ended yet.
            if not pattern.is_finite or now - since < pattern.duration_ms / 1000:
                state[led] = pattern
        return self._leds_commands(state.items(), "restore lights", now)

    # ---- the writer thread ----

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    if self._stopping and (self._port is None or not self._queue):
                        break
                if self._port is None:
                    self._reconnect()
                    continue
                cmd = self._next_command()
                if cmd is None:
                    continue
                try:
                    self._transact(cmd)
                except _LinkDown as exc:
                    self._link_down(cmd, str(exc))
                except Exception:  # a bug must not silently stop the board for the game
                    log.exception("board %s: unexpected error sending %s", self.port_name,
                                  cmd.label)
                    self._link_down(cmd, "unexpected error")
                finally:
                    with self._cond:
                        self._busy = False
                        self._cond.notify_all()
        finally:
            if self._port is not None:
                self._close_port()

    def _next_command(self) -> _Command | None:
        with self._cond:
            while True:
                if self._need_restore:
                    self._need_restore = False
                    for cmd in reversed(self._restore_commands()):
                        self._queue.appendleft(cmd)
                if self._queue:
                    self._busy = True
                    return self._queue.popleft()
                if self._stopping:
                    return None
                wait = self._last_tx + self._heartbeat_s - time.monotonic()
                if wait <= 0:
                    self._busy = True
                    return _Command(MsgType.HEARTBEAT, b"", "heartbeat", time.monotonic())
                self._cond.wait(wait)

    def _transact(self, cmd: _Command) -> None:
        if cmd.seq is None:
            self._seq = (self._seq + 1) & 0xFF
            cmd.seq = self._seq
        wire = Frame(cmd.type, cmd.seq, cmd.payload).encode()
        for attempt in range(self._retries + 1):
            if attempt:
                with self._cond:
                    self._stats.retries += 1
                log.info("board %s: no answer to %s (seq %d), resending", self.port_name,
                         cmd.label, cmd.seq)
            self._write(wire)
            reply = self._await_reply(cmd.seq, time.monotonic() + self._ack_timeout_s)
            if reply is not None:
                self._on_reply(cmd, reply)
                return
        raise _LinkDown(f"no answer to {cmd.label} after {self._retries + 1} tries")

    def _write(self, wire: bytes) -> None:
        assert self._port is not None
        try:
            self._port.write(wire)
        except (serial.SerialException, OSError) as exc:
            raise _LinkDown(f"write failed: {exc}") from exc
        self._last_tx = time.monotonic()
        with self._cond:
            self._stats.frames_sent += 1

    def _await_reply(self, seq: int, deadline: float) -> Frame | None:
        assert self._port is not None
        while time.monotonic() < deadline:
            try:
                data = self._port.read(max(1, self._port.in_waiting))
            except (serial.SerialException, OSError) as exc:
                raise _LinkDown(f"read failed: {exc}") from exc
            found = None
            for item in self._decoder.feed(data):
                if isinstance(item, FrameError):
                    with self._cond:
                        self._stats.bad_replies += 1
                    log.warning("board %s: dropped a reply: %s", self.port_name, item.value)
                elif found is None and item.seq == seq and item.type in (
                    MsgType.ACK, MsgType.STATUS, MsgType.HELLO_REPLY
                ):
                    found = item
                else:  # the answer to an earlier try of a resent frame
                    log.debug("board %s: ignoring stale %r", self.port_name, item)
            if found is not None:
                return found
        return None

    def _on_reply(self, cmd: _Command, reply: Frame) -> None:
        if reply.type == MsgType.STATUS:
            self._on_status(reply)
            return
        try:
            result = parse_ack(reply)
        except ProtocolError as exc:
            log.warning("board %s: odd answer to %s: %s", self.port_name, cmd.label, exc)
            return
        if result is AckResult.OK:
            return
        with self._cond:
            self._stats.rejected += 1
        if result is AckResult.BAD_VERSION:
            raise _LinkDown(f"board now speaks protocol v{reply.version}")
        log.error("board %s rejected %s: %s", self.port_name, cmd.label,
                  result.name if isinstance(result, AckResult) else result)

    def _on_status(self, reply: Frame) -> None:
        try:
            counters = parse_status(reply)
        except ProtocolError as exc:
            log.warning("board %s: bad status: %s", self.port_name, exc)
            return
        with self._cond:
            before = self._stats.board_counters
            self._stats.board_counters = counters
        if not before:
            return
        for counter in _ERROR_COUNTERS:
            if counters[counter] > before.get(counter, 0):
                log.warning("board %s reports %d more %s", self.port_name,
                            counters[counter] - before[counter], counter.name.lower())
        if counters[StatusCounter.WATCHDOG] > before.get(StatusCounter.WATCHDOG, 0):
            log.warning("board %s switched off after missing heartbeats; restoring lights",
                        self.port_name)
            with self._cond:
                self._need_restore = True

    # ---- connecting ----

    def _connect(self) -> SerialPort:
        try:
            port = self._opener()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise _LinkDown(f"cannot open it ({exc})") from exc
        self._port = port
        try:
            self.hello = self._handshake()
        except BaseException:
            self._close_port()
            raise
        log.info("board %s: firmware %d.%d, protocol v%d", self.port_name,
                 *self.hello.firmware, self.hello.protocol_version)
        return port

    def _handshake(self) -> HelloReply:
        assert self._port is not None
        self._decoder = FrameDecoder()
        try:
            self._port.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise _LinkDown(f"cannot use it ({exc})") from exc
        deadline = time.monotonic() + self._connect_timeout_s
        while time.monotonic() < deadline:
            # A leading delimiter ends whatever partial frame the board may hold.
            self._write(b"\x00" + Frame(MsgType.HELLO, 0).encode())
            wait = max(self._ack_timeout_s, 0.25)
            reply = self._await_reply(0, min(deadline, time.monotonic() + wait))
            if reply is None or reply.type != MsgType.HELLO_REPLY:
                with self._cond:
                    if self._stopping:
                        break
                continue
            try:
                hello = HelloReply.parse(reply)
            except ProtocolError as exc:
                raise _LinkDown(f"bad hello reply: {exc}") from exc
            if hello.protocol_version != PROTOCOL_VERSION:
                raise BoardVersionError(
                    f"the board on {self.port_name} speaks protocol v{hello.protocol_version} "
                    f"(firmware {hello.firmware[0]}.{hello.firmware[1]}) but this referee "
                    f"speaks v{PROTOCOL_VERSION}: flash the firmware from this version "
                    "(`make -C hardware flash PORT=...`, see hardware/README.md)"
                )
            return hello
        raise _LinkDown(f"no answer to hello within {self._connect_timeout_s:g} s")

    def _reconnect(self) -> None:
        try:
            self._port = self._connect()
        except (_LinkDown, BoardVersionError) as exc:
            if str(exc) != self._last_error:  # report each new reason once, not every try
                self._last_error = str(exc)
                level = logging.ERROR if isinstance(exc, BoardVersionError) else logging.INFO
                log.log(level, "board %s: not back yet: %s", self.port_name, exc)
            with self._cond:
                self._cond.wait_for(lambda: self._stopping, self._reconnect_interval_s)
            return
        self._last_error = ""
        now = time.monotonic()
        with self._cond:
            self._connected = True
            self._stats.reconnects += 1
            if self._stopping:  # closing: just switch it off (the queue ends with ALL_OFF)
                self._queue = collections.deque(
                    c for c in self._queue if c.type == MsgType.ALL_OFF)
                return
            kept = [c for c in self._queue
                    if c.type == MsgType.TONE and now - c.created < self._stale_sound_s]
            self._queue = collections.deque(kept)
            self._need_restore = True
        log.warning("board %s is back; restoring lights", self.port_name)

    def _link_down(self, cmd: _Command, why: str) -> None:
        log.warning("board %s lost: %s", self.port_name, why)
        self._close_port()
        with self._cond:
            self._connected = False
            if cmd.type != MsgType.HEARTBEAT and not self._stopping:
                self._queue.appendleft(cmd)  # tried again (or superseded) after reconnecting

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
