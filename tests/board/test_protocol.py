"""The framing layer alone: golden vectors shared with the C code, round trips, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.board import protocol as p
from referee.board.protocol import Frame, FrameDecoder, FrameError, MsgType, ProtocolError

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
VECTORS = HARDWARE / "protocol" / "vectors.txt"


def _bytes(field: str) -> bytes:
    return b"" if field == "-" else bytes.fromhex(field)


def _vectors(kind: str) -> list[list[str]]:
    rows = []
    for line in VECTORS.read_text().splitlines():
        fields = line.split()
        if fields and not line.startswith("#") and fields[0] == kind:
            rows.append(fields[1:])
    assert rows, f"no {kind} vectors in {VECTORS}"
    return rows


@pytest.mark.parametrize("data, crc", _vectors("crc"))
def test_crc_matches_golden_vector(data: str, crc: str) -> None:
    assert p.crc16_ccitt_false(_bytes(data)) == int(crc, 16)


@pytest.mark.parametrize("decoded, encoded", _vectors("cobs"))
def test_cobs_matches_golden_vector(decoded: str, encoded: str) -> None:
    assert p.cobs_encode(_bytes(decoded)) == _bytes(encoded)
    assert p.cobs_decode(_bytes(encoded)) == _bytes(decoded)


@pytest.mark.parametrize("version, type_, seq, payload, wire", _vectors("frame"))
def test_frame_matches_golden_vector(version: str, type_: str, seq: str, payload: str,
                                     wire: str) -> None:
    frame = Frame(int(type_), int(seq), _bytes(payload), version=int(version))
    assert frame.encode() == _bytes(wire)
    assert list(FrameDecoder().feed(_bytes(wire))) == [frame]


@pytest.mark.parametrize("reason, wire", _vectors("bad"))
def test_bad_frame_is_dropped_with_its_reason(reason: str, wire: str) -> None:
    decoder = FrameDecoder()
    assert list(decoder.feed(_bytes(wire))) == [FrameError[reason.upper()]]
    assert decoder.errors == {FrameError[reason.upper()]: 1}


def test_python_constants_agree_with_the_c_header() -> None:
    header = (HARDWARE / "protocol" / "protocol.h").read_text()
    defines = dict(re.findall(r"^#define (\w+) (\w+)", header, re.M))
    assert int(defines["PROTO_VERSION"]) == p.PROTOCOL_VERSION
    assert int(defines["PROTO_MAX_PAYLOAD"]) == p.MAX_PAYLOAD
    assert int(defines["HEARTBEAT_TIMEOUT_MS"]) == p.HEARTBEAT_TIMEOUT_MS
    for msg in MsgType:
        assert int(defines[f"MSG_{msg.name}"], 0) == msg
    for result in p.AckResult:
        assert int(defines[f"ACK_{result.name}"]) == result
    for led in p.Led:
        assert int(defines[f"LED_{led.name}"]) == led
    for mode in p.LedMode:
        assert int(defines[f"LED_MODE_{mode.name}"]) == mode
    for counter in p.StatusCounter:
        name = "WATCHDOG" if counter is p.StatusCounter.WATCHDOG else counter.name
        assert int(defines[f"STATUS_{name}"]) == counter
    for name in ("LED_ENTRY_SIZE", "LED_MAX_ENTRIES", "TONE_NOTE_SIZE", "TONE_MAX_NOTES",
                 "TONE_MIN_HZ", "TONE_MAX_HZ"):
        assert int(defines[name]) == getattr(p, name)


@given(st.binary(max_size=600))
def test_cobs_round_trip_never_contains_zero(data: bytes) -> None:
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert p.cobs_decode(encoded) == data


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=p.MAX_PAYLOAD))
def test_frame_round_trip(type_: int, seq: int, payload: bytes) -> None:
    frame = Frame(type_, seq, payload)
    assert list(FrameDecoder().feed(frame.encode())) == [frame]


@given(st.binary(max_size=200))
def test_decoder_survives_any_garbage_and_then_reads_a_good_frame(garbage: bytes) -> None:
    decoder = FrameDecoder()
    for item in decoder.feed(garbage):
        assert isinstance(item, (Frame, FrameError))
    good = Frame(MsgType.ACK, 7, b"\x00")
    items = list(decoder.feed(b"\x00" + good.encode()))
    assert [x for x in items if isinstance(x, Frame)] == [good]


@given(st.integers(0, 255), st.binary(min_size=1, max_size=p.MAX_PAYLOAD), st.data())
def test_a_corrupted_byte_is_caught_by_the_crc(seq: int, payload: bytes,
                                               data: st.DataObject) -> None:
    raw = bytearray(Frame(MsgType.LEDS, seq, payload).raw())
    raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    items = list(FrameDecoder().feed(p.cobs_encode(bytes(raw)) + b"\x00"))
    assert items in ([FrameError.CRC], [FrameError.LENGTH])


def test_truncated_frame_is_never_delivered() -> None:
    wire = Frame(MsgType.LEDS, 3, b"\x01\x01\x00\x00\x00\x00\x00").encode()
    for cut in range(1, len(wire) - 1):
        items = list(FrameDecoder().feed(wire[:cut] + b"\x00"))
        assert all(isinstance(x, FrameError) for x in items), cut


def test_decoder_buffer_is_bounded() -> None:
    decoder = FrameDecoder()
    assert list(decoder.feed(b"\x01" * 100_000)) == []
    assert len(decoder._buf) <= p.MAX_ENCODED
    assert list(decoder.feed(b"\x00")) == [FrameError.OVERFLOW]


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda: Frame(MsgType.LEDS, 256), "seq 256 does not fit"),
        (lambda: Frame(MsgType.LEDS, 0, bytes(33)), "exceeds 32"),
        (lambda: p.leds_payload([]), "1..4 entries"),
        (lambda: p.leds_payload([(0, p.ON)]), "bad LED mask"),
        (lambda: p.leds_payload([(0x20, p.ON)]), "bad LED mask"),
        (lambda: p.leds_payload([(1, p.ON)] * 5), "1..4 entries"),
        (lambda: p.blink(0, 100), "blink needs"),
        (lambda: p.blink(100, 0, 2), "blink needs"),
        (lambda: p.blink(100, 70000), "out of range"),
        (lambda: p.Note(5, 100), "outside 20..10000"),
        (lambda: p.tone_payload([p.Note(440, 10)] * 9), "at most 8"),
    ],
)
def test_bad_messages_are_refused_before_sending(build: object, error: str) -> None:
    assert callable(build)
    with pytest.raises(ProtocolError, match=error):
        build()


def test_payload_builders_match_the_spec() -> None:
    assert p.leds_payload([(0b101, p.blink(250, 100, 3))]) == bytes(
        [0b101, 2, 250, 0, 100, 0, 3])
    assert p.tone_payload([p.Note(440, 200), p.Note(0, 50)]) == bytes(
        [0xB8, 0x01, 200, 0, 0, 0, 50, 0])
    assert p.tone_payload([]) == b""
