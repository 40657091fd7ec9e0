"""A Python stand-in for the board's firmware on the driver's side of a port, with faults to
inject. It answers frames as the firmware does (hardware/PROTOCOL.md); the real firmware is
tested the same way in test_firmware.py."""

from __future__ import annotations

import struct
import threading
import time

import serial

from referee.board.protocol import (
    LED_ENTRY_SIZE,
    PROTOCOL_VERSION,
    AckResult,
    Frame,
    FrameDecoder,
    Led,
    LedMode,
    LedPattern,
    MsgType,
    Note,
    StatusCounter,
)


class FakeBoard:
    """One "boot" of a board: state is lost when a new FakeBoard replaces it."""

    def __init__(self, version: int = PROTOCOL_VERSION, *, read_timeout: float = 0.01) -> None:
        self.version = version
        self.read_timeout = read_timeout
        self.lights: dict[Led, LedPattern] = {}
        self.tones: list[tuple[Note, ...]] = []
        self.frames: list[Frame] = []
        self.executed: list[Frame] = []
        self.counters = dict.fromkeys(StatusCounter, 0)
        self.closed = False
        self.unplugged = False
        # faults
        self.drop_replies = 0
        self.corrupt_replies = 0
        self.garbage = b""
        self.fail_writes = 0
        self.write_delay = 0.0
        self.ignore_all = False
        self._out = bytearray()
        self._cond = threading.Condition()
        self._decoder = FrameDecoder()
        self._last: tuple[int, int] | None = None

    # ---- the serial port side ----
    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._out)

    def write(self, data: bytes) -> int:
        if self.write_delay:
            time.sleep(self.write_delay)
        if self.unplugged or self.closed:
            raise serial.SerialException("[Errno 5] Input/output error")
        if self.fail_writes:
            self.fail_writes -= 1
            self.unplugged = True
            raise serial.SerialException("[Errno 5] Input/output error (unplugged mid-write)")
        for item in self._decoder.feed(bytes(data)):
            if isinstance(item, Frame):
                self.frames.append(item)
                if not self.ignore_all:
                    self._handle(item)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: self._out or self.unplugged, self.read_timeout)
            if self.unplugged:
                raise serial.SerialException("device reports readiness to read but returned "
                                             "no data (device disconnected?)")
            out = bytes(self._out[:size])
            del self._out[:size]
            return out

    def reset_input_buffer(self) -> None:
        with self._cond:
            self._out.clear()

    def close(self) -> None:
        self.closed = True

    # ---- the firmware side ----
    def _reply(self, type_: MsgType, seq: int, payload: bytes) -> None:
        if self.drop_replies:
            self.drop_replies -= 1
            return
        wire = Frame(type_, seq, payload, version=self.version).encode()
        if self.corrupt_replies:
            self.corrupt_replies -= 1
            wire = wire[:2] + bytes([wire[2] ^ 0x10 or 1]) + wire[3:]
        with self._cond:
            self._out += self.garbage + wire
            self._cond.notify_all()

    def _handle(self, f: Frame) -> None:
        self.counters[StatusCounter.RX_FRAMES] += 1
        if f.type == MsgType.HELLO:
            self._last = None
            self._reply(MsgType.HELLO_REPLY, f.seq, bytes([1, 0, 32, 5]) + (1000).to_bytes(2,
                                                                                       "little"))
            return
        if f.version != self.version:
            self.counters[StatusCounter.BAD_VERSION] += 1
            self._reply(MsgType.ACK, f.seq, bytes([AckResult.BAD_VERSION]))
            return
        if f.type == MsgType.HEARTBEAT:
            self._reply(MsgType.STATUS, f.seq,
                        struct.pack("<8H", *(self.counters[c] for c in StatusCounter)))
            return
        if self._last == (f.seq, f.type):
            self._reply(MsgType.ACK, f.seq, bytes([AckResult.OK]))
            return
        self._last = (f.seq, f.type)
        self.executed.append(f)
        if f.type == MsgType.LEDS:
            for i in range(0, len(f.payload), LED_ENTRY_SIZE):
                mask, mode, on, off, count = struct.unpack_from("<BBHHB", f.payload, i)
                for led in Led:
                    if mask & (1 << led):
                        self.lights[led] = LedPattern(LedMode(mode), on, off, count)
        elif f.type == MsgType.TONE:
            self.tones.append(tuple(Note(*struct.unpack_from("<HH", f.payload, i))
                                    for i in range(0, len(f.payload), 4)))
        elif f.type == MsgType.ALL_OFF:
            self.lights = {led: LedPattern(LedMode.OFF) for led in Led}
        self._reply(MsgType.ACK, f.seq, bytes([AckResult.OK]))

    def lit(self) -> dict[Led, LedPattern]:
        """The lights that are not off."""
        return {k: v for k, v in self.lights.items() if v.mode is not LedMode.OFF}


class FakeLink:
    """A port name that can be unplugged and plugged back (each plug is a fresh boot)."""

    def __init__(self, version: int = PROTOCOL_VERSION) -> None:
        self.version = version
        self.board: FakeBoard | None = FakeBoard(version)
        self.opens = 0

    def open(self) -> FakeBoard:
        if self.board is None or self.board.unplugged:
            raise serial.SerialException("could not open port /dev/fake: No such file")
        self.opens += 1
        self.board.closed = False
        return self.board

    def unplug(self) -> None:
        if self.board is not None:
            self.board.unplugged = True
            with self.board._cond:
                self.board._cond.notify_all()
        self.board = None

    def plug(self, board: FakeBoard | None = None) -> FakeBoard:
        self.board = board or FakeBoard(self.version)
        return self.board
