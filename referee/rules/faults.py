"""Fault codes, each with the rule it enforces (RULES.md, "Faults the referee signals")."""

from __future__ import annotations

from enum import Enum


class Fault(Enum):
    """A fault the referee signals. ``value`` is the code written to logs."""

    ILLEGAL_RANK = ("F_ILLEGAL_RANK", "P3", "card not adjacent in rank to the pile's top card")
    EARLY = ("F_EARLY", "P1", "card played before both spit cards were turned")
    SIXTH_PILE = ("F_SIXTH_PILE", "P5", "more stock piles than allowed")
    TWO_CARDS = ("F_TWO_CARDS", "P6", "two cards moved at once")
    TWO_HANDS = ("F_TWO_HANDS", "P6", "two hands in play at once")
    TAKE_BACK = ("F_TAKE_BACK", "P7", "a played card was taken back")
    LOST_TOUCH = ("F_LOST_TOUCH", "P8", "touched second and not adjacent to the first card")
    EARLY_SPIT = ("F_EARLY_SPIT", "P9", "'Spit!' while a legal play existed")
    EARLY_SLAP = ("F_EARLY_SLAP", "E5", "a spit pile slapped before the round ended")
    WRONG_PILE = ("F_WRONG_PILE", "P10", "spit card turned onto the pile not chosen")
    # Beyond the table in RULES.md (documented in docs/rules-engine.md):
    BAD_MOVE = ("F_BAD_MOVE", "P5", "stock card moved onto an occupied pile")
    ROUND_OVER = ("F_ROUND_OVER", "E1", "card played after the round had ended")
    WRONG_TAKE = ("F_WRONG_TAKE", "E2", "took a spit pile that is not theirs")

    @property
    def code(self) -> str:
        return self.value[0]

    @property
    def rule(self) -> str:
        return self.value[1]

    @property
    def description(self) -> str:
        return self.value[2]

    @property
    def is_warning(self) -> bool:
        """Warnings (F_EARLY_SPIT) are signalled but are not card faults (P9)."""
        return self is Fault.EARLY_SPIT

    @classmethod
    def from_code(cls, code: str) -> Fault:
        for fault in cls:
            if fault.code == code:
                return fault
        raise ValueError(f"unknown fault code {code!r}")
