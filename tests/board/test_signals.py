"""Signal vocabulary, the lights and sounds of each signal, and the console board."""

from __future__ import annotations

import io

import pytest

from referee.board import Board, ConsoleBoard, Signal, SignalKind, every_signal, open_board
from referee.board.patterns import GREEN, RED, led_entries, show_for
from referee.board.protocol import LED_MAX_ENTRIES, OFF, ON, Led, LedMode, leds_payload
from referee.players import Player

A, B = Player.A, Player.B


@pytest.mark.parametrize("sig", every_signal(), ids=str)
def test_signal_text_and_repr_round_trip(sig: Signal) -> None:
    assert Signal.parse(str(sig)) == sig
    assert eval(repr(sig), {"Signal": Signal, "Player": Player}) == sig


@pytest.mark.parametrize(
    "text, expected, error",
    [
        ("fault:A", Signal.fault(A), None),
        (" FAULT:b ", Signal.fault(B), None),
        ("spit-call", Signal.spit_call(), None),
        ("spit_call", Signal.spit_call(), None),
        ("game-over:draw", Signal.game_over(None), None),
        ("game-over", Signal.game_over(None), None),
        ("game-over:B", Signal.game_over(B), None),
        ("fault", None, "needs a player"),
        ("spit-call:A", None, "takes no player"),
        ("fault:C", None, "unknown player 'c'"),
        ("slap", None, "unknown signal 'slap'"),
        ("", None, "unknown signal"),
    ],
)
def test_parse(text: str, expected: Signal | None, error: str | None) -> None:
    if error is None:
        assert Signal.parse(text) == expected
    else:
        with pytest.raises(ValueError, match=error):
            Signal.parse(text)


def test_signal_rejects_bad_construction() -> None:
    with pytest.raises(ValueError, match="needs a player"):
        Signal(SignalKind.SLAP_WINNER)
    with pytest.raises(ValueError, match="must be a Player"):
        Signal(SignalKind.FAULT, "A")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "sig, lit, unlit, sound",
    [
        (Signal.fault(A), {Led.A_RED: ON}, {Led.A_GREEN}, True),
        (Signal.fault(B), {Led.B_RED: ON}, {Led.B_GREEN}, True),
        (Signal.legal_play(A), {}, {Led.A_RED}, False),
        (Signal.spit_call(), {}, set(), True),
        (Signal.round_end(), {}, {Led.A_RED, Led.B_RED, Led.A_GREEN, Led.B_GREEN}, True),
        (Signal.slap_winner(B), {}, {Led.A_GREEN, Led.A_RED, Led.B_RED, Led.SPIT}, True),
        (Signal.game_over(A), {}, {Led.B_GREEN, Led.A_RED, Led.B_RED, Led.SPIT}, True),
        (Signal.all_off(), {}, set(Led), True),
    ],
)
def test_each_signal_sets_its_lights(sig: Signal, lit: dict[Led, object], unlit: set[Led],
                                     sound: bool) -> None:
    show = show_for(sig)
    for led, pattern in lit.items():
        assert show.lights[led] == pattern
    for led in unlit:
        assert show.lights[led] == OFF
    assert (show.tone is not None) == sound


def test_blinking_signals_blink_the_right_light() -> None:
    assert show_for(Signal.legal_play(B)).lights[GREEN[B]].mode is LedMode.BLINK
    assert show_for(Signal.spit_call()).lights[Led.SPIT].mode is LedMode.BLINK
    assert show_for(Signal.slap_winner(A)).lights[GREEN[A]].mode is LedMode.BLINK
    draw = show_for(Signal.game_over(None)).lights
    assert draw[GREEN[A]].mode is draw[GREEN[B]].mode is LedMode.BLINK
    assert show_for(Signal.fault(A)).lights[RED[A]] == ON


@pytest.mark.parametrize("sig", every_signal(), ids=str)
def test_every_signal_fits_in_one_leds_message(sig: Signal) -> None:
    entries = led_entries(show_for(sig).lights)
    assert 1 <= len(entries) <= LED_MAX_ENTRIES
    leds_payload(entries)  # valid on the wire


def test_console_board_prints_each_signal_and_what_stays_lit() -> None:
    out = io.StringIO()
    with open_board("console", stream=out) as board:
        assert isinstance(board, Board)
        board.signal(Signal.fault(A))
        board.signal(Signal.spit_call())
        board.signal(Signal.legal_play(A))
        board.signal(Signal.all_off())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[board] fault:A: A red ON")
    assert "buzzer" in lines[0] and lines[0].endswith("lit: A red on")
    assert '"Spit!" blinks x6' in lines[1] and lines[1].endswith("lit: A red on")
    assert lines[2].endswith("lit: none")
    assert lines[3] == "[board] all-off: everything off  | lit: none"


def test_console_board_ignores_signals_after_close() -> None:
    out = io.StringIO()
    board = ConsoleBoard(out)
    board.close()
    board.signal(Signal.fault(A))
    assert out.getvalue() == ""
