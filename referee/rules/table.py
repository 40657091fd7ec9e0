"""What lies on the table, as far as a camera can know it.

Mutable containers owned by :class:`referee.rules.game.Game`; read them, never change them
from outside. Face-down cards are counts, not identities: a camera cannot see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from referee.cards import Card
from referee.players import Player


@dataclass
class StockPile:
    """One stock pile: ``down`` face-down cards under ``up`` face-up cards (bottom first).

    Normally ``up`` holds at most one card; it holds more after V2 same-rank stacking or a
    card moved onto an occupied pile.
    """

    down: int = 0
    up: list[Card] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.down + len(self.up)

    @property
    def top(self) -> Card | None:
        """The face-up top card, or None when the pile is empty or its top is face down."""
        return self.up[-1] if self.up else None

    @property
    def turnable(self) -> bool:
        """True when the top card is face down (P4: the player may turn it)."""
        return not self.up and self.down > 0


class Origin(StrEnum):
    STOCK = "stock"
    PACKET = "packet"


@dataclass(frozen=True)
class PileCard:
    """A card on a spit pile, who put it there, from where, and whether it counts.

    ``legal`` is False for a card played illegally: it lies on the pile until it is taken
    back, but later plays are judged against the legal card beneath it.
    """

    card: Card
    player: Player
    origin: Origin
    slot: int | None  # the stock slot it came from (origin STOCK)
    legal: bool
    t: float


@dataclass
class SpitPile:
    cards: list[PileCard] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def top(self) -> Card | None:
        """The top legal card, against which plays are judged (None when there is none)."""
        for entry in reversed(self.cards):
            if entry.legal:
                return entry.card
        return None

    @property
    def pending(self) -> list[PileCard]:
        """Illegally played cards still lying on the pile, expected to be taken back."""
        return [e for e in self.cards if not e.legal]


@dataclass
class Side:
    """One player's cards: stock piles, the spit-card packet, and taken cards.

    ``stock`` has one pile per slot plus one last entry for cards put down outside the
    slots (a sixth pile, F_SIXTH_PILE). ``packet`` counts the face-down spit cards in hand
    (and, between rounds, everything collected); ``packet_known`` are known cards on top of
    the packet (a spit card taken back), last on top.
    """

    player: Player
    stock: list[StockPile]
    packet: int
    packet_known: list[Card] = field(default_factory=list)
    dealt: bool = False
    score: int = 0

    @property
    def stock_cards(self) -> int:
        return sum(p.size for p in self.stock)

    @property
    def face_down(self) -> int:
        """Cards of this player whose identity the camera cannot see."""
        return self.packet + sum(p.down for p in self.stock)

    @property
    def total(self) -> int:
        """All cards this player holds (stock and packet; not cards on the spit piles)."""
        return self.stock_cards + self.packet
