"""The referee's corrections of its own readings (``correct`` events): not a rule of RULES.md,
so not in the rule coverage; the engine must apply them exactly and never fault them."""

from __future__ import annotations

import pytest

from referee.events import Outcome
from referee.rules import InconsistentEvent
from tests.rules.script import A_TOPS, B_TOPS, A, B, Script


def started() -> Script:
    s = Script()
    s.start(A_TOPS, B_TOPS)  # piles 5H and 9C
    return s


def test_a_misread_face_up_card_is_replaced() -> None:
    s = started()
    judgement = s.do("correct", A, slot=1, card="4D", was="KS")
    assert judgement.verdict.outcome is Outcome.LEGAL and judgement.verdict.code is None
    assert "4D" in judgement.verdict.message and "KS" in judgement.verdict.message
    assert str(s.game.sides[A].stock[0].top) == "4D" and s.game.sides[A].stock[0].down == 0
    assert s.game.defects() == []
    assert s.code("play", A, slot=1, pile=1, card="4D") is None  # 4D on 5H: now a legal play
    assert s.game.defects() == []


def test_the_card_read_before_is_free_again() -> None:
    s = started()
    s.do("correct", A, slot=1, card="4D", was="KS")
    assert "KS" not in {str(c) for c in s.game.known_cards()}
    s.do("play", A, slot=1, pile=1, card="4D")
    s.do("move", A, from_slot=2, to_slot=1, card="KH")  # into the emptied slot: slot 2 face down
    assert s.code("turn", A, slot=2, card="KS") is None  # KS was never face up after all
    assert s.game.defects() == []


@pytest.mark.parametrize(("fields", "why"), [
    ({"slot": 1, "card": "4D", "was": "KH"}, "shows KS, not KH"),  # not what the engine holds
    ({"slot": 1, "card": "KH", "was": "KS"}, "already face up"),  # face up in slot 2
    ({"slot": 6, "card": "4D", "was": "KS"}, "outside"),
    ({"pile": 1, "card": "6H", "was": "9C"}, "not A's spit card 9C"),  # not what lies there
    ({"pile": 2, "card": "8C", "was": "9C"}, "not A's spit card"),  # B's spit card
    ({"pile": 1, "card": "KS", "was": "5H"}, "already face up"),  # in A's slot 1
])
def test_an_impossible_correction_is_rejected_and_changes_nothing(fields: dict, why: str) -> None:
    s = started()
    before = s.game.known_cards()
    with pytest.raises(InconsistentEvent, match=why):
        s.do("correct", A, **fields)
    assert s.game.known_cards() == before and s.game.defects() == []


def test_a_correction_is_not_an_action_of_the_player() -> None:
    s = started()
    s.do("play", A, slot=5, pile=1, card="QH", dt=1.0)  # illegal rank; A's hand is free after it
    s.do("take_back", A, pile=1, card="QH")
    t_take_back = s.t
    s.do("correct", A, slot=1, card="4D", was="KS", dt=1.0)
    # picked up after the take-back but before the correction: one card at a time still
    code = s.code("play", A, slot=1, pile=1, card="4D", start=t_take_back + 0.5)
    assert code is None


def test_a_misread_spit_card_on_top_of_its_pile_is_replaced() -> None:
    s = started()
    judgement = s.do("correct", A, pile=1, card="6H", was="5H")
    assert judgement.verdict.outcome is Outcome.LEGAL and judgement.verdict.code is None
    assert "spit card" in judgement.verdict.message and "6H" in judgement.verdict.message
    assert str(s.game.piles[1].top) == "6H" and "5H" not in {str(c) for c in s.game.known_cards()}
    assert s.game.defects() == []


def test_a_misread_spit_card_beneath_the_top_is_replaced_only_by_a_card_of_its_rank() -> None:
    """Since stop 55 (game 5361 with the model: A's spit AS read AC, covered by a play): a spit
    card beneath its pile's top may be corrected to a card of its rank (the verdicts judged on
    it stand), not to another."""
    s = started()
    s.do("play", A, slot=1, pile=1, card="KS")  # onto the 5H (an F_ILLEGAL_RANK: it lies there)
    with pytest.raises(InconsistentEvent, match="lies beneath"):
        s.do("correct", A, pile=1, card="6H", was="5H")
    judgement = s.do("correct", A, pile=1, card="5C", was="5H")
    assert judgement.verdict.outcome is Outcome.LEGAL and "5C" in judgement.verdict.message
    assert [str(c.card) for c in s.game.piles[1].cards] == ["5C", "KS"] and s.game.defects() == []
    with pytest.raises(InconsistentEvent, match="not B's spit card"):
        s.do("correct", B, pile=1, card="5S", was="5C")
