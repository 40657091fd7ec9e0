"""The referee <-> board wire protocol: pure buffer code, no port (spec: hardware/PROTOCOL.md).

A frame is ``version, type, seq, len, payload[len], crc16`` (CRC-16/CCITT-FALSE, big-endian,
over everything before it), COBS-encoded and ended by a ``0x00`` delimiter. The constants mirror
``hardware/protocol/protocol.h`` (a test checks that they agree) and the encoder and decoder
agree byte for byte with the C code in ``hardware/protocol/framing.c`` on the golden vectors in
``hardware/protocol/vectors.txt``.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1

HEADER_SIZE = 4
CRC_SIZE = 2
MAX_PAYLOAD = 32
MAX_RAW = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_RAW + 1

HEARTBEAT_TIMEOUT_MS = 1000
LED_ENTRY_SIZE = 7
LED_MAX_ENTRIES = 4
TONE_NOTE_SIZE = 4
TONE_MAX_NOTES = 8
TONE_MIN_HZ = 20
TONE_MAX_HZ = 10000


class MsgType(enum.IntEnum):
    HELLO = 0x01
    HEARTBEAT = 0x02
    LEDS = 0x03
    TONE = 0x04
    ALL_OFF = 0x05
    HELLO_REPLY = 0x81
    ACK = 0x82
    STATUS = 0x83


class AckResult(enum.IntEnum):
    OK = 0
    BAD_VERSION = 1
    UNKNOWN_TYPE = 2
    BAD_PAYLOAD = 3


class Led(enum.IntEnum):
    """The board's lights; the value is the bit number in an LED mask."""

    A_RED = 0
    A_GREEN = 1
    B_RED = 2
    B_GREEN = 3
    SPIT = 4


LED_MASK_ALL = (1 << len(Led)) - 1


class LedMode(enum.IntEnum):
    OFF = 0
    ON = 1
    BLINK = 2


class StatusCounter(enum.IntEnum):
    """The board's error and event counters, in the order ``STATUS`` carries them."""

    RX_FRAMES = 0
    BAD_CRC = 1
    BAD_FRAME = 2
    OVERFLOW = 3
    BAD_VERSION = 4
    BAD_COMMAND = 5
    WATCHDOG = 6
    TX_DROPPED = 7


class FrameError(enum.Enum):
    """Why received bytes were dropped instead of delivered as a frame."""

    COBS = "bad COBS encoding"
    SHORT = "shorter than header and CRC"
    LENGTH = "length field does not match the bytes"
    CRC = "CRC mismatch"
    OVERFLOW = "longer than the longest frame"


class ProtocolError(ValueError):
    """A frame or payload that breaks the protocol."""

    def __init__(self, reason: FrameError | str) -> None:
        self.reason = reason
        super().__init__(reason.value if isinstance(reason, FrameError) else reason)


# ---- CRC and COBS ----

def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, unreflected, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode ``data`` (no delimiter added)."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for i, byte in enumerate(data):
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF and i + 1 < len(data):
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Decode COBS bytes (without the delimiter); raise ProtocolError(COBS) when malformed."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        i += 1
        if code == 0 or i + code - 1 > n:
            raise ProtocolError(FrameError.COBS)
        block = data[i : i + code - 1]
        if 0 in block:
            raise ProtocolError(FrameError.COBS)
        out += block
        i += code - 1
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# ---- frames ----

@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        for name in ("type", "seq", "version"):
            value = getattr(self, name)
            if not 0 <= value <= 0xFF:
                raise ProtocolError(f"{name} {value} does not fit in a byte")
        if len(self.payload) > MAX_PAYLOAD:
            raise ProtocolError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")

    def raw(self) -> bytes:
        """The frame before COBS: header, payload and CRC."""
        body = bytes((self.version, self.type, self.seq, len(self.payload))) + self.payload
        return body + crc16_ccitt_false(body).to_bytes(2, "big")

    def encode(self) -> bytes:
        """The bytes on the wire: COBS of :meth:`raw` and the 0x00 delimiter."""
        return cobs_encode(self.raw()) + b"\x00"

    @classmethod
    def decode(cls, encoded: bytes) -> Frame:
        """Parse one COBS-encoded frame without its delimiter; raise ProtocolError if bad."""
        if len(encoded) > MAX_ENCODED:
            raise ProtocolError(FrameError.OVERFLOW)
        try:
            raw = cobs_decode(encoded)
        except ProtocolError:
            raise
        if len(raw) < HEADER_SIZE + CRC_SIZE:
            raise ProtocolError(FrameError.SHORT)
        plen = raw[3]
        if plen > MAX_PAYLOAD or len(raw) != HEADER_SIZE + plen + CRC_SIZE:
            raise ProtocolError(FrameError.LENGTH)
        if crc16_ccitt_false(raw[:-CRC_SIZE]) != int.from_bytes(raw[-CRC_SIZE:], "big"):
            raise ProtocolError(FrameError.CRC)
        return cls(type=raw[1], seq=raw[2], payload=bytes(raw[HEADER_SIZE:-CRC_SIZE]),
                   version=raw[0])


@dataclass
class FrameDecoder:
    """Byte-stream to frames, like the firmware's byte-at-a-time receiver.

    ``feed`` consumes all the bytes given and returns a :class:`Frame` or a :class:`FrameError`
    for each delimiter that ended a non-empty frame. The buffer is bounded: bytes beyond the
    longest frame are dropped and the frame is reported as an overflow; a truncated frame is
    never delivered.
    """

    _buf: bytearray = field(default_factory=bytearray)
    _overflow: bool = False
    errors: dict[FrameError, int] = field(default_factory=dict)

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        for byte in data:
            if byte != 0:
                if len(self._buf) < MAX_ENCODED:
                    self._buf.append(byte)
                else:
                    self._overflow = True
                continue
            result: Frame | FrameError | None
            if self._overflow:
                result = FrameError.OVERFLOW
            elif not self._buf:
                result = None
            else:
                try:
                    result = Frame.decode(bytes(self._buf))
                except ProtocolError as exc:
                    assert isinstance(exc.reason, FrameError)
                    result = exc.reason
            self._buf.clear()
            self._overflow = False
            if isinstance(result, FrameError):
                self.errors[result] = self.errors.get(result, 0) + 1
            if result is not None:
                out.append(result)
        return out


# ---- payloads ----

@dataclass(frozen=True)
class LedPattern:
    """What one light does: off, on, or blinking ``count`` times (0 = until told otherwise)."""

    mode: LedMode
    on_ms: int = 0
    off_ms: int = 0
    count: int = 0

    def __post_init__(self) -> None:
        if not (0 <= self.on_ms <= 0xFFFF and 0 <= self.off_ms <= 0xFFFF
                and 0 <= self.count <= 0xFF):
            raise ProtocolError(f"LED pattern out of range: {self!r}")
        if self.mode is LedMode.BLINK and (
            self.on_ms == 0 or (self.off_ms == 0 and self.count != 1)
        ):
            raise ProtocolError("a blink needs on_ms > 0 and off_ms > 0 (unless count is 1)")

    @property
    def is_finite(self) -> bool:
        return self.mode is LedMode.BLINK and self.count > 0

    @property
    def duration_ms(self) -> int:
        """How long a finite blink lasts (0 for off; unbounded patterns raise)."""
        if self.mode is LedMode.OFF:
            return 0
        if not self.is_finite:
            raise ValueError(f"{self!r} lasts until it is changed")
        return self.count * (self.on_ms + self.off_ms) - self.off_ms


OFF = LedPattern(LedMode.OFF)
ON = LedPattern(LedMode.ON)


def blink(on_ms: int, off_ms: int, count: int = 0) -> LedPattern:
    return LedPattern(LedMode.BLINK, on_ms, off_ms, count)


@dataclass(frozen=True)
class Note:
    """One buzzer note: ``hz`` 0 is a rest."""

    hz: int
    ms: int

    def __post_init__(self) -> None:
        if self.hz != 0 and not TONE_MIN_HZ <= self.hz <= TONE_MAX_HZ:
            raise ProtocolError(f"tone {self.hz} Hz outside {TONE_MIN_HZ}..{TONE_MAX_HZ} Hz")
        if not 0 <= self.ms <= 0xFFFF:
            raise ProtocolError(f"note duration {self.ms} ms out of range")


def led_mask(leds: Sequence[Led]) -> int:
    mask = 0
    for led in leds:
        mask |= 1 << led
    return mask


def leds_payload(entries: Sequence[tuple[int, LedPattern]]) -> bytes:
    """Payload of a LEDS message: up to 4 (mask, pattern) entries."""
    if not 1 <= len(entries) <= LED_MAX_ENTRIES:
        raise ProtocolError(f"a LEDS message holds 1..{LED_MAX_ENTRIES} entries")
    out = bytearray()
    for mask, pattern in entries:
        if mask == 0 or mask & ~LED_MASK_ALL:
            raise ProtocolError(f"bad LED mask {mask:#04x}")
        out += struct.pack("<BBHHB", mask, pattern.mode, pattern.on_ms, pattern.off_ms,
                           pattern.count)
    return bytes(out)


def tone_payload(notes: Sequence[Note]) -> bytes:
    """Payload of a TONE message: up to 8 notes; none means silence."""
    if len(notes) > TONE_MAX_NOTES:
        raise ProtocolError(f"a TONE message holds at most {TONE_MAX_NOTES} notes")
    return b"".join(struct.pack("<HH", n.hz, n.ms) for n in notes)


@dataclass(frozen=True)
class HelloReply:
    protocol_version: int
    firmware: tuple[int, int]
    max_payload: int
    led_count: int
    heartbeat_timeout_ms: int

    @classmethod
    def parse(cls, frame: Frame) -> HelloReply:
        if frame.type != MsgType.HELLO_REPLY or len(frame.payload) < 6:
            raise ProtocolError(f"not a hello reply: {frame!r}")
        major, minor, max_payload, led_count, timeout = struct.unpack_from("<BBBBH",
                                                                           frame.payload)
        return cls(frame.version, (major, minor), max_payload, led_count, timeout)


def parse_status(frame: Frame) -> dict[StatusCounter, int]:
    if frame.type != MsgType.STATUS or len(frame.payload) < 2 * len(StatusCounter):
        raise ProtocolError(f"not a status reply: {frame!r}")
    values = struct.unpack_from(f"<{len(StatusCounter)}H", frame.payload)
    return {counter: values[counter] for counter in StatusCounter}


def parse_ack(frame: Frame) -> AckResult | int:
    if frame.type != MsgType.ACK or len(frame.payload) != 1:
        raise ProtocolError(f"not an ack: {frame!r}")
    try:
        return AckResult(frame.payload[0])
    except ValueError:
        return frame.payload[0]
