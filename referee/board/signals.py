"""What the referee tells the players: the board's signal vocabulary.

A :class:`Signal` is a small immutable value; build one with its named constructors
(``Signal.fault(Player.A)``, ``Signal.spit_call()``, ``Signal.game_over(None)`` for a draw) or
parse its text form (``"fault:A"``, ``"spit-call"``, ``"game-over:draw"``). Its repr evaluates
back to the value. How each signal looks and sounds is decided in :mod:`referee.board.patterns`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from referee.players import Player


class SignalKind(StrEnum):
    FAULT = "fault"
    LEGAL_PLAY = "legal-play"
    SPIT_CALL = "spit-call"
    ROUND_END = "round-end"
    SLAP_WINNER = "slap-winner"
    GAME_OVER = "game-over"
    ALL_OFF = "all-off"


_NEEDS_PLAYER = {SignalKind.FAULT, SignalKind.LEGAL_PLAY, SignalKind.SLAP_WINNER}
_NO_PLAYER = {SignalKind.SPIT_CALL, SignalKind.ROUND_END, SignalKind.ALL_OFF}
_DRAW = "draw"


@dataclass(frozen=True)
class Signal:
    """One referee signal. ``player`` is the offender, the player who played, the slap winner
    or the game's winner (``None`` for a drawn game); signals about nobody have ``None``."""

    kind: SignalKind
    player: Player | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, SignalKind):
            raise ValueError(f"unknown signal kind {self.kind!r}")
        if self.player is not None and not isinstance(self.player, Player):
            raise ValueError(f"player must be a Player, not {self.player!r}")
        if self.kind in _NEEDS_PLAYER and self.player is None:
            raise ValueError(f"signal {self.kind} needs a player")
        if self.kind in _NO_PLAYER and self.player is not None:
            raise ValueError(f"signal {self.kind} takes no player")

    @classmethod
    def fault(cls, offender: Player) -> Signal:
        return cls(SignalKind.FAULT, offender)

    @classmethod
    def legal_play(cls, player: Player) -> Signal:
        return cls(SignalKind.LEGAL_PLAY, player)

    @classmethod
    def spit_call(cls) -> Signal:
        return cls(SignalKind.SPIT_CALL)

    @classmethod
    def round_end(cls) -> Signal:
        return cls(SignalKind.ROUND_END)

    @classmethod
    def slap_winner(cls, winner: Player) -> Signal:
        return cls(SignalKind.SLAP_WINNER, winner)

    @classmethod
    def game_over(cls, winner: Player | None) -> Signal:
        return cls(SignalKind.GAME_OVER, winner)

    @classmethod
    def all_off(cls) -> Signal:
        return cls(SignalKind.ALL_OFF)

    @classmethod
    def parse(cls, text: str) -> Signal:
        """Parse ``kind`` or ``kind:PLAYER`` (``game-over:draw`` for a drawn game)."""
        name, _, who = text.strip().lower().partition(":")
        try:
            kind = SignalKind(name.replace("_", "-"))
        except ValueError:
            choices = ", ".join(k.value for k in SignalKind)
            raise ValueError(f"unknown signal {text!r}: expected one of {choices}") from None
        if who == "" or (who == _DRAW and kind is SignalKind.GAME_OVER):
            player = None
        else:
            player = Player.parse(who)
        return cls(kind, player)

    def __str__(self) -> str:
        if self.kind is SignalKind.GAME_OVER:
            return f"{self.kind}:{self.player or _DRAW}"
        return f"{self.kind}:{self.player}" if self.player else str(self.kind)

    def __repr__(self) -> str:
        method = self.kind.value.replace("-", "_")
        if self.kind is SignalKind.GAME_OVER:
            arg = f"Player.{self.player.name}" if self.player else "None"
        else:
            arg = f"Player.{self.player.name}" if self.player else ""
        return f"Signal.{method}({arg})"


def every_signal() -> list[Signal]:
    """One of each signal for each player: the walk-through of ``board test``."""
    out: list[Signal] = []
    for player in Player:
        out += [Signal.legal_play(player), Signal.fault(player)]
    out += [Signal.spit_call(), Signal.round_end()]
    out += [Signal.slap_winner(p) for p in Player]
    out += [Signal.game_over(p) for p in Player] + [Signal.game_over(None), Signal.all_off()]
    return out
