import pytest

from referee.cards import FULL_DECK, Card, Colour, Rank, Suit
from tests.rules.coverage import covers


@pytest.mark.parametrize(
    ("code", "rank", "suit", "printed"),
    [("QH", Rank.QUEEN, Suit.HEARTS, "QH"), ("10S", Rank.TEN, Suit.SPADES, "10S"),
     ("TS", Rank.TEN, Suit.SPADES, "10S"), ("as", Rank.ACE, Suit.SPADES, "AS"),
     (" 2d ", Rank.TWO, Suit.DIAMONDS, "2D"), ("KC", Rank.KING, Suit.CLUBS, "KC")],
)
def test_parse_and_print(code: str, rank: Rank, suit: Suit, printed: str) -> None:
    card = Card.parse(code)
    assert (card.rank, card.suit, str(card)) == (rank, suit, printed)
    assert eval(repr(card)) == card


@pytest.mark.parametrize(("code", "error"), [
    ("", "expected rank then suit"), ("Q", "expected rank then suit"), ("QX", "unknown suit"),
    ("1H", "unknown rank"), ("11S", "unknown rank"), ("JOKER", "unknown"), ("10", "unknown"),
])
def test_bad_codes_say_what_is_wrong(code: str, error: str) -> None:
    with pytest.raises(ValueError, match=error) as info:
        Card.parse(code)
    assert repr(code) in str(info.value)


def test_non_string_code_is_rejected() -> None:
    with pytest.raises(ValueError, match="must be a string"):
        Card.parse(12)  # type: ignore[arg-type]


@covers("D1")
def test_one_deck_of_52_distinct_cards() -> None:
    assert len(FULL_DECK) == 52 == len(set(FULL_DECK))
    assert {c.code for c in FULL_DECK} == {Card.parse(c.code).code for c in FULL_DECK}


@covers("D2")
@pytest.mark.parametrize(("a", "b", "adjacent"), [
    ("A", "2", True), ("A", "K", True), ("K", "A", True), ("2", "A", True), ("5", "6", True),
    ("10", "J", True), ("Q", "K", True), ("5", "5", False), ("A", "A", False), ("A", "3", False),
    ("K", "2", False), ("7", "9", False),
])
def test_circular_rank_adjacency(a: str, b: str, adjacent: bool) -> None:
    assert Rank.parse(a).adjacent(Rank.parse(b)) is adjacent
    assert Card.parse(a + "S").adjacent(Card.parse(b + "H")) is adjacent


def test_neighbours_wrap_around() -> None:
    assert Rank.ACE.neighbours() == (Rank.KING, Rank.TWO)
    assert Rank.KING.neighbours() == (Rank.QUEEN, Rank.ACE)


@covers("V3")
def test_colours() -> None:
    assert Card.parse("QH").colour is Colour.RED and Card.parse("2D").colour is Colour.RED
    assert Card.parse("QS").colour is Colour.BLACK and Card.parse("2C").colour is Colour.BLACK


def test_a_card_s_twin_is_the_other_suit_of_its_colour() -> None:
    assert Card.parse("AD").twin(Card.parse("AH")) and Card.parse("10S").twin(Card.parse("10C"))
    assert not Card.parse("AD").twin(Card.parse("AS"))  # the other colour
    assert not Card.parse("AD").twin(Card.parse("2D")) and not Card.parse("AD").twin(Card.parse("AD"))
