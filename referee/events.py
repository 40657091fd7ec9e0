"""The one event schema: everything that happens at the table, and the referee's answers.

Every record is a frozen dataclass with a time ``t`` in seconds (from the source's own
timestamps) and ``frame``, the index of the video frame that is the evidence (``None`` when
the record did not come from video, e.g. self-play). Slots and piles are numbered from 1, as
a person says them: slot 3 is a player's third stock pile from their left; pile 1 is the
spit pile on player A's left.

Table events (what a camera can observe):

==============  =====================================================================
``deal``        a player has laid out a new round from their packet (S2, G1, V1, V7)
``turn``        a player turned the face-down top card of a stock pile, revealing ``card``
``spit``        a player turned a spit card from their packet onto spit pile ``pile``
``play``        a player moved ``card`` from stock ``slot`` onto spit pile ``pile``
``move``        a player moved ``card`` from stock ``from_slot`` to stock ``to_slot``
``take_back``   a card left spit pile ``pile`` again (back where it came from)
``slap``        a player slapped spit pile ``pile``
``take_pile``   a player took spit pile ``pile`` at the end of a round
``correct``     not an action: the referee's own correction of a card it read before: the
                face-up top of ``player``'s stock ``slot`` is ``card``, not ``was``; or
                (``pile`` instead of ``slot``) ``player``'s spit card in spit pile ``pile``
                (its top, or beneath it when the two are of one rank) is ``card``, not ``was``
==============  =====================================================================

Judgements: a ``verdict`` answers every table event (legal, fault or warning, with the
fault code and rule id of RULES.md); a ``call`` is something the referee announces (Spit!,
round end, slap winner, who takes which pile, game over). ``game_start`` opens a game and
names its rule set.

This module is pure data. JSON Lines reading and writing is in :mod:`referee.eventlog`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from referee.cards import Card
from referee.players import Player

if TYPE_CHECKING:
    from referee.rules.ruleset import RuleSet


class Hand(StrEnum):
    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, kw_only=True)
class TableEvent:
    """Something a player did at the table.

    ``t`` is the moment that counts for the rules: for a play, the instant the card first
    touched the pile (P7, P8); for a slap, the instant the hand touched. ``start`` is when the
    hand began the action (picked the card up), used to judge one-card-at-a-time and
    one-hand rules (P6) and touch races (P8); ``None`` when unknown. ``evidence`` is free-form
    JSON from the vision pipeline (frames used, uncertainty, what lay underneath).
    """

    kind: ClassVar[str] = ""
    t: float
    frame: int | None = None
    player: Player
    hand: Hand | None = None
    start: float | None = None
    evidence: Mapping[str, Any] | None = field(default=None, compare=False)

    def evidence_number(self, key: str, default: float) -> float:
        """A number from the evidence, ``default`` when it has none."""
        value = (self.evidence or {}).get(key)
        return float(value) if isinstance(value, int | float) else default


@dataclass(frozen=True, kw_only=True)
class Deal(TableEvent):
    kind: ClassVar[str] = "deal"


@dataclass(frozen=True, kw_only=True)
class Turn(TableEvent):
    kind: ClassVar[str] = "turn"
    slot: int
    card: Card


@dataclass(frozen=True, kw_only=True)
class SpitTurn(TableEvent):
    kind: ClassVar[str] = "spit"
    pile: int
    card: Card


@dataclass(frozen=True, kw_only=True)
class Play(TableEvent):
    kind: ClassVar[str] = "play"
    slot: int
    pile: int
    card: Card


@dataclass(frozen=True, kw_only=True)
class Move(TableEvent):
    kind: ClassVar[str] = "move"
    from_slot: int
    to_slot: int
    card: Card


@dataclass(frozen=True, kw_only=True)
class TakeBack(TableEvent):
    kind: ClassVar[str] = "take_back"
    pile: int
    card: Card


@dataclass(frozen=True, kw_only=True)
class Slap(TableEvent):
    kind: ClassVar[str] = "slap"
    pile: int


@dataclass(frozen=True, kw_only=True)
class TakePile(TableEvent):
    kind: ClassVar[str] = "take_pile"
    pile: int


class Outcome(StrEnum):
    LEGAL = "legal"
    FAULT = "fault"
    WARNING = "warning"


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The referee's answer to one table event.

    ``event`` is the index of the judged table event within its game (0 = the first table
    event after ``game_start``). ``code`` and ``rule`` are set for faults and warnings.
    ``revised`` (True, else left out) marks a verdict given anew for an event judged before:
    a card found later beneath it changed its judgement (:mod:`referee.rules.hindsight`). It
    replaces that event's earlier verdict.
    """

    kind: ClassVar[str] = "verdict"
    t: float
    frame: int | None = None
    event: int
    player: Player
    outcome: Outcome
    code: str | None = None
    rule: str | None = None
    message: str = ""
    revised: bool | None = None


class CallKind(StrEnum):
    SPIT = "spit"  # play is blocked: both turn a spit card (P9)
    ROUND_END = "round_end"  # E1 (a) or (b)
    SLAP_WINNER = "slap_winner"  # E2: whose hand was underneath
    PILES = "piles"  # which player takes which pile (E2, E3, G2)
    GAME_OVER = "game_over"  # G3 or V6


@dataclass(frozen=True, kw_only=True)
class Call:
    """Something the referee announces, caused by the state after an event."""

    kind: ClassVar[str] = "call"
    t: float
    frame: int | None = None
    call: CallKind
    player: Player | None = None
    pile: int | None = None
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class GameStart:
    """Opens a game in a log: which game, which rule set, and the seed if it was generated."""

    kind: ClassVar[str] = "game_start"
    t: float
    frame: int | None = None
    game: int = 0
    rules: RuleSet
    seed: int | None = None


@dataclass(frozen=True, kw_only=True)
class Correction(TableEvent):
    """The referee corrects its own earlier reading of a stock slot or of a spit card in a
    spit pile (see the module doc; exactly one of ``slot`` and ``pile``).

    The referee emits one in place of a turn the rules engine rejected because, from an
    earlier reading, it held another face-up card (``was``) in that slot, when the turn's card
    was read more surely; or when a card played on a spit card read unsurely fits that
    reading's runner-up and not the reading; or when a card read elsewhere clashes with a spit
    card's reading and the likelier pair of readings has the spit card's runner-up. It is no
    player's action: the rules never fault it, and scoring does not count it as an event."""

    kind: ClassVar[str] = "correct"
    slot: int | None = None
    pile: int | None = None
    card: Card
    was: Card

    def __post_init__(self) -> None:
        if (self.slot is None) == (self.pile is None):
            raise ValueError("a correction names either a stock slot or a spit pile")


#: Every table event class by its ``kind``.
TABLE_EVENTS: dict[str, type[TableEvent]] = {
    cls.kind: cls for cls in (Deal, Turn, SpitTurn, Play, Move, TakeBack, Slap, TakePile, Correction)
}

#: Table event kinds that are the referee's own bookkeeping, not something a player did.
BOOKKEEPING_KINDS: frozenset[str] = frozenset({Correction.kind})

Record = TableEvent | Verdict | Call | GameStart
