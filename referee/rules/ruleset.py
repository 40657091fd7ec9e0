"""The rule set a table agrees on before a game: variants V1-V7 and a few judgement settings."""

from __future__ import annotations

from dataclasses import dataclass, fields

VARIANT_FIELDS: dict[str, str] = {
    "V1": "four_piles",
    "V2": "same_rank_stacking",
    "V3": "alternating_colours",
    "V4": "two_hands",
    "V5": "clearer_chooses",
    "V6": "points",
    "V7": "canfield",
}


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """Which variants are on (all off by default) and how the referee judges close calls.

    ``slap_race_on_block``: at a blocked round end (E1 b) the players slap as in E2 instead of
    the fewer-stock player taking the smaller pile outright (E3 allows either).
    ``race_window_s``: when a play's pick-up time is unknown, a second card landing on the same
    pile within this many seconds of the first counts as a touch race (P8).
    """

    four_piles: bool = False  # V1
    same_rank_stacking: bool = False  # V2
    alternating_colours: bool = False  # V3
    two_hands: bool = False  # V4
    clearer_chooses: bool = False  # V5
    points: bool = False  # V6
    canfield: bool = False  # V7
    points_limit: int = 100
    slap_race_on_block: bool = False
    race_window_s: float = 0.5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise ValueError(f"rule set field {f.name!r} must be true or false, not {value!r}")
        if self.four_piles and self.canfield:
            raise ValueError("variants V1 (four piles) and V7 (Canfield layout) cannot both be on")
        if not isinstance(self.points_limit, int) or self.points_limit < 1:
            raise ValueError(f"points_limit must be a positive whole number, not {self.points_limit!r}")
        if not isinstance(self.race_window_s, int | float) or not 0 <= self.race_window_s <= 5:
            raise ValueError(f"race_window_s must be between 0 and 5 seconds, not {self.race_window_s!r}")

    @classmethod
    def from_variants(cls, variants: list[str] | tuple[str, ...], **settings: object) -> RuleSet:
        """Build a rule set from variant ids such as ``["V1", "V3"]``."""
        flags: dict[str, object] = {}
        for v in variants:
            name = VARIANT_FIELDS.get(v.strip().upper())
            if name is None:
                raise ValueError(f"unknown variant {v!r}: expected one of {', '.join(VARIANT_FIELDS)}")
            flags[name] = True
        return cls(**flags, **settings)  # type: ignore[arg-type]

    @property
    def variants(self) -> tuple[str, ...]:
        """The ids of the variants that are on, e.g. ``("V1", "V3")``."""
        return tuple(v for v, name in VARIANT_FIELDS.items() if getattr(self, name))

    @property
    def slot_sizes(self) -> tuple[int, ...]:
        """Cards dealt to each stock slot, slot 1 first (S2; V1; V7)."""
        if self.four_piles:
            return (1, 2, 3, 4)
        if self.canfield:
            return (1, 1, 1, 1, 10)
        return (1, 2, 3, 4, 5)

    @property
    def slots(self) -> int:
        """How many stock piles a player may have (P5: five; V1: four)."""
        return len(self.slot_sizes)

    @property
    def stock_size(self) -> int:
        return sum(self.slot_sizes)
