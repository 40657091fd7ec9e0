"""Cards: rank, suit and card values that parse from and print as short codes.

>>> Card.parse("QH")
Card.parse('QH')
>>> str(Card.parse("TS"))
'10S'
>>> Rank.ACE.adjacent(Rank.KING), Rank.ACE.adjacent(Rank.TWO), Rank.ACE.adjacent(Rank.ACE)
(True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum


class Rank(IntEnum):
    """Card ranks, ace low in value but adjacent to both two and king (rule D2)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def code(self) -> str:
        return _RANK_CODES[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``A 2 .. 10 J Q K`` (``T`` is accepted for ten)."""
        rank = _RANK_BY_CODE.get(text.strip().upper())
        if rank is None:
            raise ValueError(f"unknown rank {text!r}: expected one of A 2 3 4 5 6 7 8 9 10 J Q K")
        return rank

    def adjacent(self, other: Rank) -> bool:
        """True when the ranks are one apart on the circle A-2-...-K-A (rule D2)."""
        return (self - other) % 13 in (1, 12)

    def neighbours(self) -> tuple[Rank, Rank]:
        """The two ranks adjacent to this one (rule D2): one below, one above."""
        return Rank((self - 2) % 13 + 1), Rank(self % 13 + 1)


_RANK_CODES = {r: c for r, c in zip(Rank, "A 2 3 4 5 6 7 8 9 10 J Q K".split(), strict=True)}
_RANK_BY_CODE = {c: r for r, c in _RANK_CODES.items()} | {"T": Rank.TEN}


class Colour(Enum):
    RED = "red"
    BLACK = "black"


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def code(self) -> str:
        return self.value

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Colour.BLACK

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ValueError(f"unknown suit {text!r}: expected one of S H D C") from None


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``Card.parse("QH")``; ``str(card) == "QH"``; its repr evaluates back to it."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a short code such as ``"QH"``, ``"10S"``, ``"TS"`` or ``"as"``.

        Raises ValueError naming the code when it is not a card.
        """
        if not isinstance(code, str):
            raise ValueError(f"card code must be a string, not {type(code).__name__}")
        text = code.strip().upper()
        if len(text) < 2:
            raise ValueError(f"unknown card code {code!r}: expected rank then suit, like 'QH'")
        try:
            return cls(Rank.parse(text[:-1]), Suit.parse(text[-1]))
        except ValueError as exc:
            raise ValueError(f"unknown card code {code!r}: {exc}") from None

    @property
    def code(self) -> str:
        return f"{self.rank.code}{self.suit.code}"

    @property
    def colour(self) -> Colour:
        """The suit's colour (used by variant V3)."""
        return self.suit.colour

    def adjacent(self, other: Card) -> bool:
        """True when the ranks are one apart, circularly (rule D2). Suits do not matter."""
        return self.rank.adjacent(other.rank)

    def twin(self, other: Card) -> bool:
        """True for the card of the same rank and colour in the other suit (AD and AH): the
        card recognition most often reads a card as, misreading its suit within its colour."""
        return self != other and self.rank == other.rank and self.colour == other.colour

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


#: The 52 cards in a fixed order (suits S H D C, ranks A..K).
FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
