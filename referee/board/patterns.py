"""How each referee signal looks and sounds on the board: pure mapping, no I/O.

A :class:`Show` is the change a signal makes: new patterns for some lights, and a note
sequence for the buzzer (or ``None`` to leave the buzzer alone). The offender's red light
stays lit until that player's next legal play or the end of the round, so nobody misses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from referee.board.protocol import OFF, ON, Led, LedPattern, Note, blink
from referee.board.signals import Signal, SignalKind
from referee.players import Player

LED_NAMES = {
    Led.A_RED: "A red",
    Led.A_GREEN: "A green",
    Led.B_RED: "B red",
    Led.B_GREEN: "B green",
    Led.SPIT: '"Spit!"',
}
RED = {Player.A: Led.A_RED, Player.B: Led.B_RED}
GREEN = {Player.A: Led.A_GREEN, Player.B: Led.B_GREEN}


@dataclass(frozen=True)
class Show:
    lights: Mapping[Led, LedPattern] = field(default_factory=dict)
    tone: tuple[Note, ...] | None = None
    all_off: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lights", MappingProxyType(dict(self.lights)))

    def describe(self) -> str:
        """Human words for the console board and ``board test``."""
        if self.all_off:
            return "everything off"
        parts = []
        for led, pattern in sorted(self.lights.items()):
            name = LED_NAMES[led]
            if pattern.mode.name == "OFF":
                parts.append(f"{name} off")
            elif pattern.mode.name == "ON":
                parts.append(f"{name} ON")
            else:
                times = f" x{pattern.count}" if pattern.count else ""
                parts.append(f"{name} blinks{times}")
        if self.tone:
            ms = sum(n.ms for n in self.tone)
            parts.append(f"buzzer {len([n for n in self.tone if n.hz])} beep(s), {ms} ms")
        return ", ".join(parts)


FAULT_TONE = (Note(400, 150), Note(0, 80), Note(400, 300))
SPIT_TONE = (Note(1200, 80), Note(0, 60), Note(1200, 80))
ROUND_TONE = (Note(660, 400),)
SLAP_TONE = (Note(880, 120), Note(1320, 250))
GAME_OVER_TONE = (Note(523, 150), Note(659, 150), Note(784, 150), Note(1047, 400))


def show_for(signal: Signal) -> Show:
    """The lights and sound of one signal."""
    kind, p = signal.kind, signal.player
    players_off = {led: OFF for led in (*RED.values(), *GREEN.values())}
    if kind is SignalKind.FAULT and p is not None:
        return Show({RED[p]: ON, GREEN[p]: OFF}, FAULT_TONE)
    if kind is SignalKind.LEGAL_PLAY and p is not None:
        return Show({GREEN[p]: blink(120, 0, 1), RED[p]: OFF})
    if kind is SignalKind.SPIT_CALL:
        return Show({Led.SPIT: blink(150, 150, 6)}, SPIT_TONE)
    if kind is SignalKind.ROUND_END:
        return Show({**players_off, Led.SPIT: blink(400, 400)}, ROUND_TONE)
    if kind is SignalKind.SLAP_WINNER and p is not None:
        return Show({**players_off, Led.SPIT: OFF, GREEN[p]: blink(150, 150, 8)}, SLAP_TONE)
    if kind is SignalKind.GAME_OVER:
        winners = [p] if p is not None else list(Player)
        lights: dict[Led, LedPattern] = {**players_off, Led.SPIT: OFF}
        for w in winners:
            lights[GREEN[w]] = blink(300, 300)
        return Show(lights, GAME_OVER_TONE)
    if kind is SignalKind.ALL_OFF:
        return Show({led: OFF for led in Led}, (), all_off=True)
    raise ValueError(f"no pattern for {signal!r}")  # pragma: no cover - Signal validates


def led_entries(lights: Mapping[Led, LedPattern]) -> list[tuple[int, LedPattern]]:
    """Group lights that share a pattern into (mask, pattern) entries for one LEDS message."""
    masks: dict[LedPattern, int] = {}
    for led, pattern in lights.items():
        masks[pattern] = masks.get(pattern, 0) | (1 << led)
    return [(mask, pattern) for pattern, mask in masks.items()]
