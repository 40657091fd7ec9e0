"""Firmware in the loop: the real firmware runs in simavr and the driver talks to it over a
pseudo-terminal. Durations are checked against the simulator's clock, not the host's."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from referee.board import BoardVersionError, SerialBoard, Signal, every_signal
from referee.board.patterns import show_for
from referee.board.protocol import (
    AckResult,
    Frame,
    FrameDecoder,
    Led,
    LedMode,
    MsgType,
    StatusCounter,
    blink,
    cobs_encode,
    leds_payload,
    parse_status,
)
from referee.board.simulator import (
    BUZZER_PIN,
    HARDWARE_DIR,
    LED_PINS,
    LINK_PIN,
    Build,
    PinChange,
    SimulatedBoard,
)
from referee.players import Player

from .conftest import point

A, B = Player.A, Player.B
MS = 1_000_000  # ns


class RawLink:
    """Frames by hand, to send what the driver never would."""

    def __init__(self, port: str) -> None:
        self.port = serial.Serial(port, 115200, timeout=0.02)
        self.decoder = FrameDecoder()
        self.pending: list[Frame] = []

    def send(self, data: bytes | Frame) -> None:
        self.port.write(data.encode() if isinstance(data, Frame) else data)

    def reply(self, seq: int, timeout: float = 1.0) -> Frame | None:
        deadline = time.monotonic() + timeout
        while True:
            for item in self.pending:
                if item.seq == seq:
                    self.pending.remove(item)
                    return item
            if time.monotonic() > deadline:
                return None
            items = self.decoder.feed(self.port.read(max(1, self.port.in_waiting)))
            self.pending += [x for x in items if isinstance(x, Frame)]

    def status(self, seq: int) -> dict[StatusCounter, int]:
        self.send(Frame(MsgType.HEARTBEAT, seq))
        reply = self.reply(seq)
        assert reply is not None, "no answer to a heartbeat"
        return parse_status(reply)

    def close(self) -> None:
        self.port.close()


@pytest.fixture
def raw(sim: SimulatedBoard) -> Iterator[RawLink]:
    link = RawLink(sim.port or "")
    yield link
    link.close()


@pytest.fixture
def board(sim: SimulatedBoard) -> Iterator[SerialBoard]:
    with SerialBoard(sim.port or "") as b:
        yield b


def led_changes(sim: SimulatedBoard, after: int) -> list[PinChange]:
    pins = set(LED_PINS.values())
    return [c for c in sim.changes[after:] if c.pin in pins]


def bursts(edges: list[PinChange], gap_ns: int = 5 * MS) -> list[list[PinChange]]:
    """Group buzzer edges into tones separated by silences longer than ``gap_ns``."""
    out: list[list[PinChange]] = []
    for edge in edges:
        if out and edge.sim_ns - out[-1][-1].sim_ns < gap_ns:
            out[-1].append(edge)
        else:
            out.append([edge])
    return out


def test_host_unit_tests_of_the_shared_c_framing(firmware: Build) -> None:
    done = subprocess.run(["make", "-s", "-C", str(HARDWARE_DIR), f"BUILD={firmware.harness.parent}",
                           "test"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ", 0 failures" in done.stdout


@pytest.mark.parametrize("sig", every_signal(), ids=str)
def test_every_signal_lights_the_right_pins(sim: SimulatedBoard, board: SerialBoard,
                                            sig: Signal) -> None:
    board.signal(Signal.fault(A))  # start from a busy board: both red lights on
    board.signal(Signal.fault(B))
    assert sim.wait_level(LED_PINS[Led.A_RED], 1) and sim.wait_level(LED_PINS[Led.B_RED], 1)
    assert board.flush(5)
    assert sim.wait(lambda: all(c.pin == BUZZER_PIN for c in sim.changes[-20:]), 1.0)
    mark = sim.mark()
    board.signal(sig)
    assert board.flush(5)
    show = show_for(sig)
    want = {led: int(p.mode is not LedMode.OFF) for led, p in show.lights.items()}

    def pins_right() -> bool:
        # A LEDS message sets all its lights in the same instant: look at the pins right then.
        changed = led_changes(sim, mark)
        at = changed[0].sim_ns if changed else sim.changes[-1].sim_ns
        return all(sim.level_at(LED_PINS[led], at) == level for led, level in want.items())

    assert sim.wait(pins_right, 2.0), (f"{sig}: pins are not {want}", led_changes(sim, mark),
                                       board.stats)
    for led in set(Led) - set(show.lights):
        assert all(c.pin != LED_PINS[led] for c in led_changes(sim, mark)), f"{led.name} changed"
    if show.tone:
        assert sim.wait(lambda: any(c.pin == BUZZER_PIN for c in sim.changes[mark:]), 1.0)


def test_spit_light_stops_blinking_when_told(sim: SimulatedBoard, board: SerialBoard) -> None:
    board.signal(Signal.round_end())  # Spit! blinks 400/400 until told otherwise
    assert sim.wait_level(LED_PINS[Led.SPIT], 1)
    board.signal(Signal.slap_winner(A))
    assert board.flush(5)
    assert sim.wait(lambda: sim.level(LED_PINS[Led.SPIT]) == 0, 1.0)
    acked = sim.mark()
    assert sim.wait_level(LED_PINS[Led.SPIT], 1, 0.5, after=acked) is None


def test_fault_lights_the_offenders_red_led(sim: SimulatedBoard, board: SerialBoard) -> None:
    board.signal(Signal.fault(B))
    assert sim.wait_level("D4", 1)  # B red: Arduino D4
    board.signal(Signal.legal_play(B))
    assert sim.wait_level("D4", 0) and sim.wait_level("D5", 1)  # B green flashes
    assert sim.level("D2") == 0


def test_blink_pattern_timing_in_simulated_time(sim: SimulatedBoard,
                                                board: SerialBoard) -> None:
    mark = sim.mark()
    board.signal(Signal.spit_call())  # Spit! blinks 150 ms on, 150 ms off, six times
    pin = LED_PINS[Led.SPIT]
    sim.wait(lambda: len([c for c in sim.changes[mark:] if c.pin == pin]) >= 12, 5.0)
    edges = [c for c in sim.changes[mark:] if c.pin == pin]
    assert len(edges) == 12, (edges, board.stats, sim.sim_now())
    assert [c.value for c in edges] == [1, 0] * 6
    lengths = [(b.sim_ns - a.sim_ns) / MS for a, b in zip(edges, edges[1:], strict=False)]
    assert all(abs(ms - 150) <= 1.5 for ms in lengths), lengths
    board.flush(5)
    # Heartbeats kept the board alive all along: the link LED never went out.
    assert sim.level(LINK_PIN) == 1


def test_buzzer_tone_frequency_and_durations(sim: SimulatedBoard, board: SerialBoard) -> None:
    mark = sim.mark()
    board.signal(Signal.fault(A))  # 400 Hz 150 ms, 80 ms rest, 400 Hz 300 ms

    def tones() -> list[list[PinChange]]:
        return bursts([c for c in sim.changes[mark:] if c.pin == BUZZER_PIN])

    def finished() -> bool:
        return len(tones()) == 2 and sim.sim_now() - tones()[-1][-1].sim_ns > 20 * MS

    deadline = time.monotonic() + 3.0
    while not finished():
        assert time.monotonic() < deadline, "the buzzer did not play two tones and stop"
        sim.wait(lambda: False, 0.02)
    first, second = tones()
    half_periods = [(b.sim_ns - a.sim_ns) / MS for a, b in zip(first, first[1:], strict=False)]
    assert statistics.median(half_periods) == pytest.approx(1.25, rel=0.01)  # 400 Hz
    assert (first[-1].sim_ns - first[0].sim_ns) / MS == pytest.approx(150, abs=2.5)
    assert (second[0].sim_ns - first[-1].sim_ns) / MS == pytest.approx(80, abs=2.5)
    assert (second[-1].sim_ns - second[0].sim_ns) / MS == pytest.approx(300, abs=2.5)
    assert sim.level(BUZZER_PIN) == 0, "the buzzer pin is left high"


def test_watchdog_switches_everything_off_when_the_host_falls_silent(
    sim: SimulatedBoard, raw: RawLink
) -> None:
    raw.send(Frame(MsgType.HELLO, 0))
    assert raw.reply(0) is not None
    raw.send(Frame(MsgType.LEDS, 1, leds_payload([(0b11111, blink(5000, 5000))])))
    raw.send(Frame(MsgType.TONE, 2, bytes.fromhex("b80160ea")))  # 440 Hz for 60 s
    on = sim.wait_level(LED_PINS[Led.A_RED], 1)
    assert on is not None
    off = sim.wait_level(LED_PINS[Led.A_RED], 0, 3.0)
    assert off is not None, "the lights stayed on with the host silent"
    assert (off.sim_ns - on.sim_ns) / MS == pytest.approx(1000, abs=3)
    assert sim.wait(lambda: all(sim.level(pin) == 0 for pin in LED_PINS.values()), 1.0)
    assert sim.wait(lambda: sim.level(LINK_PIN) == 0, 1.0)
    buzz = [c for c in sim.changes if c.pin == BUZZER_PIN]
    assert buzz and buzz[-1].sim_ns <= off.sim_ns + MS and sim.level(BUZZER_PIN) == 0
    assert raw.status(3)[StatusCounter.WATCHDOG] == 1


def test_bad_frames_are_counted_and_never_acted_on(sim: SimulatedBoard, raw: RawLink) -> None:
    mark = sim.mark()
    light = leds_payload([(0b00001, blink(100, 0, 1))])
    good = Frame(MsgType.LEDS, 10, light)
    wire = good.encode()
    bad_crc = bytearray(good.raw())
    bad_crc[-1] ^= 0xFF
    raw.send(b"\x00garbage \x01\x02\x03\xff\x00")       # not COBS / too short
    raw.send(wire[:6] + b"\x00")                         # truncated
    raw.send(cobs_encode(bytes(bad_crc)) + b"\x00")      # wrong CRC
    raw.send(bytes(range(1, 120)) + b"\x00")             # longer than any frame
    raw.send(Frame(MsgType.LEDS, 11, light, version=2))  # another protocol version
    raw.send(Frame(MsgType.LEDS, 12, bytes([0x40, 1, 0, 0, 0, 0, 0])))  # no such LED
    raw.send(Frame(0x7E, 13))                            # unknown type
    assert raw.reply(11) == Frame(MsgType.ACK, 11, bytes([AckResult.BAD_VERSION]))
    assert raw.reply(12) == Frame(MsgType.ACK, 12, bytes([AckResult.BAD_PAYLOAD]))
    assert raw.reply(13) == Frame(MsgType.ACK, 13, bytes([AckResult.UNKNOWN_TYPE]))
    counters = raw.status(14)
    assert counters[StatusCounter.BAD_CRC] == 1
    assert counters[StatusCounter.BAD_FRAME] >= 2
    assert counters[StatusCounter.OVERFLOW] == 1
    assert counters[StatusCounter.BAD_VERSION] == 1
    assert counters[StatusCounter.BAD_COMMAND] == 2
    assert led_changes(sim, mark) == []
    raw.send(wire)  # and a good frame right after all that works
    assert raw.reply(10) == Frame(MsgType.ACK, 10, bytes([AckResult.OK]))
    assert sim.wait_level(LED_PINS[Led.A_RED], 1, after=mark)


def test_a_resent_frame_is_executed_once(sim: SimulatedBoard, raw: RawLink) -> None:
    frame = Frame(MsgType.LEDS, 5, leds_payload([(0b00100, blink(100, 0, 1))]))
    mark = sim.mark()
    raw.send(frame)
    assert raw.reply(5) is not None
    assert sim.wait_level("D4", 1, after=mark)
    raw.send(frame)  # as if our ack had been lost: the board acks again but does not restart
    assert raw.reply(5) == Frame(MsgType.ACK, 5, bytes([AckResult.OK]))
    on = sim.wait_level("D4", 1, after=mark)
    off = sim.wait_level("D4", 0, after=mark)
    assert on and off and (off.sim_ns - on.sim_ns) / MS == pytest.approx(100, abs=1.5)


class DropFirstLeds:
    """A port that loses the first LEDS frame on the way, as a noisy cable might."""

    def __init__(self, port: str) -> None:
        self._port = serial.serial_for_url(port, baudrate=115200, timeout=0.01)
        self.dropped = 0

    def write(self, data: bytes) -> int | None:
        frames = [f for f in FrameDecoder().feed(data) if isinstance(f, Frame)]
        if not self.dropped and frames and frames[0].type == MsgType.LEDS:
            self.dropped += 1
            return len(data)
        return self._port.write(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self._port, name)


def test_driver_resends_a_lost_frame(sim: SimulatedBoard) -> None:
    port = sim.port or ""
    with SerialBoard(port, opener=lambda: DropFirstLeds(port)) as board:  # type: ignore[arg-type,return-value]
        board.signal(Signal.fault(A))
        assert sim.wait_level(LED_PINS[Led.A_RED], 1, 2.0)
        assert board.stats.retries >= 1


def test_unplugged_board_is_reconnected_and_lights_restored(
    firmware: Build, sim_link: Path
) -> None:
    first = SimulatedBoard(firmware)
    first.go()
    point(sim_link, first.port or "")
    board = SerialBoard(str(sim_link), reconnect_interval_s=0.05)
    try:
        board.signal(Signal.fault(B))
        board.signal(Signal.round_end())
        board.signal(Signal.fault(A))
        assert first.wait_level(LED_PINS[Led.A_RED], 1)
        assert board.flush(5)
        first.kill()  # the USB cable is pulled: the pty vanishes
        assert first.exited
        start = time.monotonic()
        board.signal(Signal.spit_call())  # while it is away: must not block
        assert time.monotonic() - start < 0.05
        with SimulatedBoard(firmware) as second:
            second.go()
            point(sim_link, second.port or "")
            assert second.wait_level(LED_PINS[Led.A_RED], 1, 5.0), "lights not restored"
            assert second.wait_level(LED_PINS[Led.SPIT], 1, 2.0)
            assert second.level(LED_PINS[Led.B_RED]) == 0  # round-end cleared it
            assert board.stats.reconnects == 1
            board.close()
            assert second.wait_level(LED_PINS[Led.A_RED], 0, 2.0)  # close: all off
    finally:
        board.close()
        first.close()


def test_board_speaking_another_protocol_version_is_refused(firmware_v2: Build) -> None:
    with SimulatedBoard(firmware_v2) as sim:
        sim.go()
        with pytest.raises(BoardVersionError, match="speaks protocol v2"):
            SerialBoard(sim.port or "")


def test_pyserial_spy_url_works(sim: SimulatedBoard, tmp_path: Path) -> None:
    log = tmp_path / "spy.txt"
    with SerialBoard(f"spy://{sim.port}?file={log}") as board:
        board.signal(Signal.fault(A))
        assert sim.wait_level(LED_PINS[Led.A_RED], 1)
    assert "TX" in log.read_text() or "RX" in log.read_text()


def test_latency_from_signal_to_pin_is_under_10_ms(sim: SimulatedBoard,
                                                   board: SerialBoard) -> None:
    samples = []
    for i in range(15):
        player = A if i % 2 else B
        mark = sim.mark()
        start = time.monotonic_ns()
        board.signal(Signal.fault(player))
        change = sim.wait_level(LED_PINS[Led.A_RED if player is A else Led.B_RED], 1,
                                after=mark)
        assert change is not None
        samples.append((change.host_ns - start) / MS)
        board.signal(Signal.legal_play(player))
        assert board.flush(5)
    assert statistics.median(samples) < 10, samples
