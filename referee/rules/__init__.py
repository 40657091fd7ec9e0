"""The pure rules engine: game state, legal plays and verdicts for every rule in RULES.md.

No I/O, numpy, OpenCV or serial here (a test checks it in a fresh interpreter).
"""

from referee.rules.faults import Fault
from referee.rules.game import (
    Game,
    GameOutcome,
    InconsistentEvent,
    Judgement,
    LegalPlay,
    Phase,
)
from referee.rules.ruleset import VARIANT_FIELDS, RuleSet

__all__ = [
    "VARIANT_FIELDS",
    "Fault",
    "Game",
    "GameOutcome",
    "InconsistentEvent",
    "Judgement",
    "LegalPlay",
    "Phase",
    "RuleSet",
]
