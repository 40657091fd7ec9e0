"""The driver against a fake board (tests/board/fakeboard.py) that injects faults.

The same driver is tested against the real firmware in simavr in test_firmware.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

import pytest

from referee.board import BoardVersionError, SerialBoard, Signal, open_board
from referee.board.patterns import show_for
from referee.board.protocol import OFF, ON, Led, MsgType, StatusCounter
from referee.errors import MissingPrerequisite
from referee.players import Player

from .fakeboard import FakeBoard, FakeLink

A, B = Player.A, Player.B
FAST = dict(connect_timeout_s=0.5, ack_timeout_s=0.03, retries=3, heartbeat_s=0.05,
            reconnect_interval_s=0.02)


def wait_until(pred: Callable[[], object], timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.005)
    return bool(pred())


@pytest.fixture
def link() -> FakeLink:
    return FakeLink()


@pytest.fixture
def board(link: FakeLink) -> Iterator[SerialBoard]:
    with SerialBoard("/dev/fake", opener=link.open, **FAST) as b:  # type: ignore[arg-type]
        yield b


def test_signal_reaches_the_board(board: SerialBoard, link: FakeLink) -> None:
    assert board.hello is not None and board.hello.protocol_version == 1
    board.signal(Signal.fault(A))
    assert board.flush()
    assert link.board is not None
    assert link.board.lit() == {Led.A_RED: ON}
    assert link.board.tones and link.board.tones[0][0].hz == 400


def test_heartbeats_flow_and_report_board_counters(board: SerialBoard, link: FakeLink) -> None:
    assert wait_until(lambda: board.stats.board_counters.get(StatusCounter.RX_FRAMES, 0) > 2)
    assert link.board is not None
    assert any(f.type == MsgType.HEARTBEAT for f in link.board.frames)


def test_signal_never_blocks_even_on_a_slow_port(board: SerialBoard, link: FakeLink) -> None:
    assert link.board is not None
    link.board.write_delay = 0.2
    start = time.monotonic()
    for _ in range(20):
        board.signal(Signal.spit_call())
    assert time.monotonic() - start < 0.05


def test_queue_is_bounded_and_the_lights_still_end_right(link: FakeLink) -> None:
    with SerialBoard("/dev/fake", opener=link.open, queue_size=4,  # type: ignore[arg-type]
                     **FAST) as board:
        assert link.board is not None
        link.board.write_delay = 0.01
        for _ in range(10):
            board.signal(Signal.legal_play(B))
            board.signal(Signal.fault(A))
        board.signal(Signal.fault(B))
        assert board.stats.dropped > 0
        assert board.flush(5)
        assert link.board.lit() == {Led.A_RED: ON, Led.B_RED: ON}


def test_unacknowledged_frames_are_resent_and_executed_once(board: SerialBoard,
                                                            link: FakeLink) -> None:
    assert board.flush()
    fake = link.board
    assert fake is not None
    fake.drop_replies = 2
    board.signal(Signal.fault(B))
    assert board.flush()
    assert fake.lit() == {Led.B_RED: ON}
    leds = [f for f in fake.executed if f.type == MsgType.LEDS]
    assert len(leds) == 1
    assert len([f for f in fake.frames if f.seq == leds[0].seq and f.type == MsgType.LEDS]) == 3
    assert board.stats.retries >= 2


def test_garbage_and_corrupted_replies_are_dropped(board: SerialBoard, link: FakeLink,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    fake = link.board
    assert fake is not None
    fake.garbage = b"\x13\x37\x00\xff\xfe\x00"
    fake.corrupt_replies = 1
    board.signal(Signal.fault(A))
    assert board.flush()
    assert fake.lit() == {Led.A_RED: ON}
    assert board.stats.bad_replies >= 2
    assert "dropped a reply" in caplog.text


def test_port_vanishing_mid_write_reconnects_and_restores(
    board: SerialBoard, link: FakeLink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    board.signal(Signal.fault(A))
    board.signal(Signal.round_end())  # Spit! blinking until told otherwise
    board.signal(Signal.fault(B))
    assert board.flush()
    old = link.board
    assert old is not None
    old.fail_writes = 1  # the next write dies half way, as when the cable is pulled
    board.signal(Signal.spit_call())
    assert wait_until(lambda: not board.connected)
    link.unplug()
    assert wait_until(lambda: board.stats.frames_sent > 0)  # still trying, not blocked
    fresh = link.plug()
    assert wait_until(lambda: board.connected)
    assert wait_until(lambda: fresh.lit().get(Led.B_RED) == ON)
    assert board.flush()
    # Spit! shows the spit-call's blink again: it had not finished when the board came back.
    spit = show_for(Signal.spit_call()).lights[Led.SPIT]
    assert fresh.lit() == {Led.B_RED: ON, Led.SPIT: spit}
    assert fresh.tones, "the fresh spit-call beep is not lost"
    assert board.stats.reconnects == 1
    assert "is back; restoring lights" in caplog.text


def test_board_that_stops_answering_is_reconnected(board: SerialBoard, link: FakeLink) -> None:
    board.signal(Signal.fault(A))
    assert board.flush()
    assert link.board is not None
    link.board.ignore_all = True  # hung: no answers; heartbeats time out
    assert wait_until(lambda: not board.connected)
    fresh = link.plug()
    assert wait_until(lambda: fresh.lit() == {Led.A_RED: ON})


def test_board_watchdog_trip_restores_lights(board: SerialBoard, link: FakeLink) -> None:
    board.signal(Signal.fault(B))
    assert board.flush()
    fake = link.board
    assert fake is not None
    assert wait_until(lambda: StatusCounter.WATCHDOG in board.stats.board_counters)
    fake.lights = {}  # what the firmware does when heartbeats stop
    fake.counters[StatusCounter.WATCHDOG] += 1
    assert wait_until(lambda: fake.lit() == {Led.B_RED: ON})


def test_close_switches_everything_off(link: FakeLink) -> None:
    board = SerialBoard("/dev/fake", opener=link.open, **FAST)  # type: ignore[arg-type]
    board.signal(Signal.fault(A))
    board.close()
    assert link.board is not None
    assert link.board.frames[-1].type == MsgType.ALL_OFF
    assert link.board.lit() == {}
    assert link.board.closed
    board.signal(Signal.fault(B))  # ignored, no error, no block
    board.close()


def test_board_with_another_protocol_version_is_refused() -> None:
    with pytest.raises(BoardVersionError, match=r"speaks protocol v2 .* speaks v1: flash"):
        SerialBoard("/dev/fake", opener=FakeLink(version=2).open, **FAST)  # type: ignore[arg-type]


def test_no_board_on_the_port_says_what_to_do() -> None:
    link = FakeLink()
    link.unplug()
    with pytest.raises(MissingPrerequisite, match="no referee board answers on /dev/fake"):
        SerialBoard("/dev/fake", opener=link.open, **FAST)  # type: ignore[arg-type]


def test_silent_device_is_not_taken_for_a_board() -> None:
    link = FakeLink()
    assert link.board is not None
    link.board.ignore_all = True
    with pytest.raises(MissingPrerequisite, match="no answer to hello"):
        SerialBoard("/dev/fake", opener=link.open, **FAST)  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["loop://", "/dev/nonexistent-board-port"])
def test_pyserial_urls_and_names_are_opened(url: str) -> None:
    # loop:// echoes our own frames back: a port that opens but holds no board.
    with pytest.raises(MissingPrerequisite, match="no referee board answers"):
        SerialBoard(url, connect_timeout_s=0.3)


def test_open_board_gives_a_serial_board_for_a_port_name() -> None:
    with pytest.raises(MissingPrerequisite):
        open_board("/dev/nonexistent-board-port")


def test_fault_then_legal_play_clears_the_red_light(board: SerialBoard, link: FakeLink) -> None:
    board.signal(Signal.fault(A))
    board.signal(Signal.legal_play(A))
    assert board.flush()
    assert link.board is not None
    assert link.board.lights[Led.A_RED] == OFF
    assert board.lights[Led.A_RED] == OFF


def test_fake_board_is_a_serial_port() -> None:
    fake = FakeBoard()
    assert fake.in_waiting == 0 and fake.read(1) == b""


def test_closing_while_the_board_is_away_leaves_it_switched_off(link: FakeLink) -> None:
    board = SerialBoard("/dev/fake", opener=link.open, **FAST)  # type: ignore[arg-type]
    board.signal(Signal.fault(A))
    assert board.flush()
    link.unplug()
    assert wait_until(lambda: not board.connected)
    fresh = link.plug()
    board.close()
    assert fresh.lit() == {}  # whether or not it got back before the close
