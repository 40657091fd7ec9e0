"""The two players. ``A`` sits at the near (bottom) edge of the mat, ``B`` across the table."""

from __future__ import annotations

from enum import StrEnum


class Player(StrEnum):
    A = "A"
    B = "B"

    @property
    def other(self) -> Player:
        return Player.B if self is Player.A else Player.A

    @classmethod
    def parse(cls, text: str) -> Player:
        """Parse ``"A"`` or ``"B"`` (any case); raise ValueError naming the bad value."""
        try:
            return cls(text.strip().upper())
        except (ValueError, AttributeError):
            raise ValueError(f"unknown player {text!r}: expected 'A' or 'B'") from None


#: Both players, A first (iterating the enum itself is slow in hot loops).
PLAYERS: tuple[Player, Player] = (Player.A, Player.B)
