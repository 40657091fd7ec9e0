"""One or more tests per rule id of RULES.md, written as scripts of table events."""

from __future__ import annotations

import pytest

from referee.events import CallKind, Hand, Outcome
from referee.players import Player
from referee.rules import Game, InconsistentEvent, Phase, RuleSet
from tests.rules.coverage import covers
from tests.rules.script import A_TOPS, B_TOPS, A, B, Script

# ---------------------------------------------------------------- helpers


def chain_v1(s: Script, player: Player, pile: int) -> None:
    """With V1 and ``player``'s tops 6S 7S 9S QS, play all ten stock cards onto ``pile`` (5H)."""
    s.do("play", player, slot=1, pile=pile, card="6S")
    for slot, first, rest in ((2, "7S", ["8S"]), (3, "9S", ["10S", "JS"]), (4, "QS", ["KS", "AS", "2S"])):
        s.do("play", player, slot=slot, pile=pile, card=first)
        for card in rest:
            s.do("turn", player, slot=slot, card=card)
            s.do("play", player, slot=slot, pile=pile, card=card)


def v1_round_cleared_by_a(rules: RuleSet | None = None) -> Script:
    s = Script(rules or RuleSet(four_piles=True))
    s.start(["6S", "7S", "9S", "QS"], ["KC", "QD", "QC", "2H"])
    chain_v1(s, A, pile=1)
    return s


SPIT_A = ["4S", "4H", "6C", "6D", "7H", "7C", "8C", "8D", "10C", "10H"]
SPIT_B = ["4D", "4C", "6H", "7D", "8H", "10S", "9D", "5S", "5D", "5C"]


def exhaust_spit_cards(s: Script) -> list:
    """From a blocked start, both turn all their remaining spit cards at stalemates."""
    calls = []
    for a_card, b_card in zip(SPIT_A, SPIT_B, strict=True):
        calls += s.do("spit", A, pile=1, card=a_card).calls
        calls += s.do("spit", B, pile=2, card=b_card).calls
    return calls


# ---------------------------------------------------------------- set-up


@covers("S1", "S4")
def test_new_game_gives_each_player_26_cards_and_empty_spit_piles() -> None:
    game = Game()
    assert [s.packet for s in game.sides.values()] == [26, 26]
    assert all(p.size == 0 for p in game.piles.values())
    assert game.card_count() == 52 and game.phase is Phase.DEALING


@covers("S2", "S3")
def test_deal_makes_five_piles_of_1_to_5_and_11_spit_cards() -> None:
    s = Script()
    s.do("deal", A)
    side = s.game.sides[A]
    assert [p.down for p in side.stock[:5]] == [1, 2, 3, 4, 5]
    assert side.packet == 11 and side.stock_cards == 15
    assert s.game.turnable_slots(A) == [1, 2, 3, 4, 5]
    s.do("turn", A, slot=3, card="QH")
    assert str(side.stock[2].top) == "QH" and side.stock[2].down == 2
    assert s.game.card_count() == 52


@covers("P1")
def test_no_play_before_both_spit_cards_are_turned() -> None:
    s = Script()
    s.layout(A, ["6S", *A_TOPS[1:]])
    s.layout(B, B_TOPS)
    s.do("spit", A, pile=1, card="5H")
    assert s.code("play", A, slot=1, pile=1, card="6S") == "F_EARLY"
    assert s.code("take_back", A, pile=1, card="6S") is None  # taking it back is what is expected
    s.do("spit", B, pile=2, card="9C")
    assert s.game.phase is Phase.PLAYING
    assert s.code("play", A, slot=1, pile=1, card="6S") is None


@covers("P2", "P3", "D2")
@pytest.mark.parametrize(("card", "pile", "expected"), [
    ("4S", 1, None), ("6D", 1, None), ("10S", 2, None), ("8D", 2, None),
    ("7D", 1, "F_ILLEGAL_RANK"), ("5S", 1, "F_ILLEGAL_RANK"), ("9S", 2, "F_ILLEGAL_RANK"),
    ("AS", 2, "F_ILLEGAL_RANK"),
])
def test_play_onto_spit_pile_must_be_adjacent(card: str, pile: int, expected: str | None) -> None:
    s = Script()
    s.start([card, *A_TOPS[1:]], B_TOPS)
    assert s.code("play", A, slot=1, pile=pile, card=card) == expected
    top = s.tops()[pile - 1]
    assert top == (card if expected is None else ("5H", "9C")[pile - 1])


@covers("P2")
def test_no_turns_either_player_plays_any_time() -> None:
    s = Script()
    s.start(["6S", "7D", *A_TOPS[2:]], ["10D", *B_TOPS[1:]])
    assert s.code("play", A, slot=1, pile=1, card="6S") is None
    assert s.code("play", A, slot=2, pile=1, card="7D") is None  # twice in a row
    assert s.code("play", B, slot=1, pile=2, card="10D") is None


@covers("P4")
def test_turning_an_exposed_face_down_card() -> None:
    s = Script()
    s.start([*A_TOPS[:1], "6S", *A_TOPS[2:]], B_TOPS)
    with pytest.raises(InconsistentEvent, match="no face-down top card"):
        s.do("turn", A, slot=2, card="3D")  # the face-up 6S is on top
    s.do("play", A, slot=2, pile=1, card="6S")
    assert s.game.turnable_slots(A) == [2]
    assert s.code("turn", A, slot=2, card="3D") is None
    assert str(s.game.sides[A].stock[1].top) == "3D"


@covers("P5")
def test_moving_into_an_empty_slot_and_the_sixth_pile() -> None:
    s = Script()
    s.start(["6S", *A_TOPS[1:]], B_TOPS)
    s.do("play", A, slot=1, pile=1, card="6S")  # slot 1 (one card) is now empty
    assert (5, 1) in s.game.exposing_moves(A)
    assert s.code("move", A, from_slot=5, to_slot=1, card="QH") is None
    assert s.code("turn", A, slot=5, card="3C") is None
    # All five slots are full again: a card put down outside them is a sixth pile.
    assert s.code("move", A, from_slot=5, to_slot=6, card="3C") == "F_SIXTH_PILE"
    assert s.code("move", A, from_slot=6, to_slot=5, card="3C") == "F_BAD_MOVE"  # onto face-down cards
    assert s.game.defects() == []


@covers("P6", "V4")
@pytest.mark.parametrize(("rules", "second_hand", "expected"), [
    (RuleSet(), Hand.RIGHT, "F_TWO_CARDS"),
    (RuleSet(), Hand.LEFT, "F_TWO_HANDS"),
    (RuleSet(two_hands=True), Hand.LEFT, None),
    (RuleSet(two_hands=True), Hand.RIGHT, "F_TWO_CARDS"),
])
def test_one_card_at_a_time_and_one_hand(rules: RuleSet, second_hand: Hand, expected: str | None) -> None:
    s = Script(rules)
    s.start(["6S", "10D", *A_TOPS[2:]], B_TOPS)
    t = s.t
    s.do("play", A, slot=1, pile=1, card="6S", dt=1.0, start=t + 0.2, hand=Hand.RIGHT)
    # The second card was picked up before the first one touched.
    assert s.code("play", A, slot=2, pile=2, card="10D", dt=0.1, start=t + 0.5, hand=second_hand) == expected


@covers("P6", "V4")
@pytest.mark.parametrize(("rules", "second_pile", "card", "expected"), [
    (RuleSet(), 2, "10D", "F_TWO_HANDS"),  # onto the other pile at once: not one hand
    (RuleSet(), 1, "7D", "F_TWO_CARDS"),
    (RuleSet(two_hands=True), 2, "10D", None),
])
def test_with_the_hands_not_seen_two_piles_at_once_took_two_hands(rules: RuleSet, second_pile: int, card: str,
                                                                   expected: str | None) -> None:
    s = Script(rules)
    s.start(["6S", card, *A_TOPS[2:]], B_TOPS)  # spit cards 5H (pile 1) and 9C (pile 2)
    t = s.t
    s.do("play", A, slot=1, pile=1, card="6S", dt=1.0, start=t + 0.2)  # no hand given: not seen
    assert s.code("play", A, slot=2, pile=second_pile, card=card, dt=0.1, start=t + 0.5) == expected


@covers("P6")
def test_an_action_told_after_one_that_began_during_it_is_not_at_fault() -> None:
    s = Script()
    s.start(["6S", "10D", *A_TOPS[2:]], B_TOPS)
    t = s.t
    # 10D, picked up (left hand) while 6S was still in the right hand, reaches the engine first
    assert s.code("play", A, slot=2, pile=2, card="10D", dt=1.0, start=t + 0.5, hand=Hand.LEFT) is None
    # then 6S, begun first: not at fault
    assert s.code("play", A, slot=1, pile=1, card="6S", dt=-0.3, start=t + 0.2, hand=Hand.RIGHT) is None
    # the later action is still the one the next is measured against
    assert s.code("play", A, slot=3, pile=2, card=A_TOPS[2], dt=0.2, start=t + 0.9, hand=Hand.LEFT) \
        == "F_TWO_CARDS"


@covers("P6")
def test_actions_one_after_the_other_are_not_two_cards() -> None:
    s = Script()
    s.start(["6S", "10D", *A_TOPS[2:]], B_TOPS)
    s.do("play", A, slot=1, pile=1, card="6S", start=s.t + 0.5, hand=Hand.RIGHT)
    assert s.code("play", A, slot=2, pile=2, card="10D", start=s.t + 0.1, hand=Hand.LEFT) is None


@covers("P7")
def test_a_played_card_may_not_be_taken_back() -> None:
    s = Script()
    s.start(["6S", *A_TOPS[1:]], B_TOPS)
    s.do("play", A, slot=1, pile=1, card="6S")
    judgement = s.do("take_back", A, pile=1, card="6S")
    assert (judgement.verdict.code, judgement.verdict.rule) == ("F_TAKE_BACK", "P7")
    assert s.tops() == ("5H", "9C") and str(s.game.sides[A].stock[0].top) == "6S"
    assert s.game.defects() == []


def test_the_face_up_tops_are_what_a_camera_sees_an_illegal_card_included() -> None:
    s = Script()
    s.start(["7S", "4D", *A_TOPS[2:]], B_TOPS)
    assert s.code("play", A, slot=1, pile=1, card="7S") == "F_ILLEGAL_RANK"
    tops = {zone: str(card) for zone, card in s.game.face_up_tops().items()}
    assert tops["pile1"] == "7S" and tops["pile2"] == "9C"  # the legal top beneath is 5H
    assert "A.stock1" not in tops  # its only card was played
    assert tops["A.stock2"] == "4D" and tops["B.stock5"] == "2H"


@covers("P7", "P3")
def test_an_illegal_card_lies_on_the_pile_until_taken_back_and_does_not_count() -> None:
    s = Script()
    s.start(["7S", "4D", *A_TOPS[2:]], B_TOPS)
    assert s.code("play", A, slot=1, pile=1, card="7S") == "F_ILLEGAL_RANK"
    assert s.game.piles[1].size == 2 and s.tops()[0] == "5H"
    assert s.code("play", A, slot=2, pile=1, card="4D") is None  # judged against 5H beneath
    assert s.code("take_back", A, pile=1, card="7S") is None
    assert [str(e.card) for e in s.game.piles[1].cards] == ["5H", "4D"]
    assert s.game.defects() == []


@covers("P8")
@pytest.mark.parametrize(("b_card", "b_start", "b_dt", "expected"), [
    ("4D", 0.6, 0.05, "F_LOST_TOUCH"),  # B set off before A's card touched: a race B lost
    ("7D", 0.6, 0.05, None),  # B's card fits the new top too
    ("4D", None, 0.3, "F_LOST_TOUCH"),  # no pick-up time: within the race window
    ("4D", None, 0.9, "F_ILLEGAL_RANK"),  # too late to be a race
    ("4D", 1.05, 0.5, "F_ILLEGAL_RANK"),  # B set off after A's card had landed
])
def test_first_touch_decides_a_race(b_card: str, b_start: float | None, b_dt: float,
                                    expected: str | None) -> None:
    s = Script()
    s.start(["6S", *A_TOPS[1:]], [b_card, *B_TOPS[1:]])
    t0 = s.t
    s.do("play", A, slot=1, pile=1, card="6S", dt=1.0, start=t0 + 0.5)
    start = None if b_start is None else t0 + b_start
    assert s.code("play", B, slot=1, pile=1, card=b_card, dt=b_dt, start=start) == expected


@covers("P9")
def test_stalemate_call_and_re_spit() -> None:
    s = Script()
    s.layout(A, A_TOPS)
    s.layout(B, B_TOPS)
    s.do("spit", A, pile=1, card="5H")
    judgement = s.do("spit", B, pile=2, card="9C")
    assert [c.call for c in judgement.calls] == [CallKind.SPIT]
    assert s.game.is_blocked() and not s.game.legal_plays()
    assert s.code("spit", A, pile=1, card="4S") is None
    assert s.game.phase is Phase.SPIT
    assert s.code("spit", B, pile=2, card="10S") is None
    assert s.game.phase is Phase.PLAYING and s.tops() == ("4S", "10S")


@covers("P9")
def test_spit_while_a_play_exists_is_a_warning() -> None:
    s = Script()
    s.start(["6S", *A_TOPS[1:]], B_TOPS)
    verdict = s.do("spit", B, pile=2, card="4S").verdict
    assert (verdict.outcome, verdict.code, verdict.rule) == (Outcome.WARNING, "F_EARLY_SPIT", "P9")
    assert s.tops() == ("5H", "4S")  # the card stays: it is a warning, not a card fault


@covers("P10")
def test_one_pile_after_the_other_player_runs_out_of_spit_cards() -> None:
    s = Script()
    s.start(["6S", *A_TOPS[1:]], B_TOPS)  # A's 6S keeps a play open: B's spits are early
    for card in ["4S", "4H", "4D", "4C", "7S", "7H", "7D", "7C", "8S", "8H"]:
        s.do("spit", B, pile=2, card=card)
    assert s.game.sides[B].packet == 0
    s.do("spit", A, pile=1, card="10C")  # A now chooses pile 1 for the rest of the round
    assert s.game.chosen_pile == 1
    judgement = s.do("spit", A, pile=2, card="10H")
    assert (judgement.verdict.code, judgement.verdict.rule) == ("F_WRONG_PILE", "P10")
    assert s.code("take_back", A, pile=2, card="10H") is None
    assert s.game.sides[A].packet_known == [s.game.sides[A].packet_known[-1]]
    with pytest.raises(InconsistentEvent, match="top spit card is 10H"):
        s.do("spit", A, pile=1, card="10D")
    assert s.code("spit", A, pile=1, card="10H") in (None, "F_EARLY_SPIT")


# ---------------------------------------------------------------- end of a round


@covers("E1", "V1")
def test_round_ends_when_a_player_plays_every_stock_card() -> None:
    s = Script(RuleSet(four_piles=True))
    s.start(["6S", "7S", "9S", "QS"], ["KC", "QD", "QC", "2H"])
    assert [p.size for p in s.game.sides[A].stock[:4]] == [1, 2, 3, 4] and s.game.sides[A].packet == 15
    chain_v1(s, A, pile=1)
    assert s.game.phase is Phase.ROUND_OVER and s.game.clearer is A
    assert s.game.round_end_reason == "a"


@covers("E2")
@pytest.mark.parametrize(("slaps", "winner_call", "allocation"), [
    ([(A, 2), (B, 1)], None, {2: A, 1: B}),  # different piles: each takes the one slapped
    ([(B, 2), (A, 2)], B, {2: B, 1: A}),  # same pile: the hand underneath (first) takes it
    ([(A, 2), (B, 2)], A, {2: A, 1: B}),
])
def test_slap_race(slaps: list, winner_call: Player | None, allocation: dict) -> None:
    s = v1_round_cleared_by_a()
    calls = []
    for player, pile in slaps:
        calls += s.do("slap", player, pile=pile, dt=0.1).calls
    assert s.game.allocation == allocation
    winners = [c.player for c in calls if c.call is CallKind.SLAP_WINNER]
    assert winners == ([winner_call] if winner_call else [])


@covers("E5")
def test_slap_before_the_round_ends() -> None:
    s = Script()
    s.start(A_TOPS, B_TOPS)
    verdict = s.do("slap", B, pile=1).verdict
    assert (verdict.code, verdict.rule) == ("F_EARLY_SLAP", "E5")


@covers("E1", "E3")
def test_blocked_round_end_fewer_stock_cards_takes_smaller_pile() -> None:
    s = Script()
    s.start(A_TOPS, ["KC", "10D", *B_TOPS[2:]])
    s.do("play", B, slot=2, pile=2, card="10D")  # B has 14 stock cards now, A 15
    s.do("turn", B, slot=2, card="2C")
    assert s.game.is_blocked()
    calls = exhaust_spit_cards(s)
    kinds = [c.call for c in calls]
    assert CallKind.ROUND_END in kinds and s.game.round_end_reason == "b"
    # pile 1: 5H + 10 = 11 cards; pile 2: 9C, 10D + 10 = 12 cards
    assert s.game.allocation == {1: B, 2: A}


@covers("E3")
def test_blocked_round_end_with_equal_stocks_is_a_slap_race() -> None:
    s = Script()
    s.start(A_TOPS, B_TOPS)
    exhaust_spit_cards(s)
    assert s.game.phase is Phase.ROUND_OVER and s.game.allocation is None
    s.do("slap", B, pile=1)
    s.do("slap", A, pile=1)
    assert s.game.allocation == {1: B, 2: A}


@covers("E4")
def test_next_round_collects_pile_stock_and_spit_cards() -> None:
    s = v1_round_cleared_by_a()
    s.do("slap", A, pile=2)  # 9C only
    s.do("slap", B, pile=1)  # 5H and A's ten cards
    assert s.code("take_pile", B, pile=2) == "F_WRONG_TAKE"
    assert s.code("take_pile", A, pile=2) is None
    s.do("deal", B)  # B's pile 1 is collected with the deal
    assert s.game.round == 2
    a, b = s.game.sides[A], s.game.sides[B]
    assert a.packet == 15 + 1  # spit cards plus the taken pile, not yet dealt
    assert b.stock_cards == 10 and b.packet == 15 + 10 + 11 - 10
    s.do("deal", A)
    assert a.stock_cards == 10 and a.packet == 6 and s.game.card_count() == 52
    # The cards of the piles are known to be among their takers' face-down cards now.
    with pytest.raises(InconsistentEvent, match="among B's face-down cards"):
        s.do("turn", A, slot=1, card="6S")


@covers("G1", "G2", "G3")
def test_short_stack_without_spit_cards_wins_by_clearing_the_stock() -> None:
    s = Script()
    s.game.sides[A].packet, s.game.sides[B].packet = 3, 49  # a later round's counts
    s.do("deal", A)
    assert [p.size for p in s.game.sides[A].stock[:5]] == [1, 2, 0, 0, 0] and s.game.sides[A].packet == 0
    s.do("turn", A, slot=1, card="6S")
    s.do("turn", A, slot=2, card="7S")
    s.layout(B, B_TOPS)
    assert s.game.single_pile
    s.do("spit", B, pile=2, card="5H")
    assert s.game.phase is Phase.PLAYING  # only B had spit cards to turn
    assert s.code("play", A, slot=1, pile=1, card="6S") == "F_ILLEGAL_RANK"  # pile 1 is not in use
    s.do("take_back", A, pile=1, card="6S")
    s.do("play", A, slot=1, pile=2, card="6S")
    s.do("play", A, slot=2, pile=2, card="7S")
    s.do("turn", A, slot=2, card="8S")
    judgement = s.do("play", A, slot=2, pile=2, card="8S")
    assert s.game.outcome is not None and s.game.outcome.winner is A
    assert CallKind.GAME_OVER in [c.call for c in judgement.calls]
    with pytest.raises(InconsistentEvent, match="already over"):
        s.do("slap", B, pile=2)


@covers("G2")
def test_single_pile_cleared_by_the_feeder_gives_the_pile_to_the_short_player() -> None:
    s = Script(RuleSet(four_piles=True))
    s.game.sides[A].packet, s.game.sides[B].packet = 42, 10
    s.layout(A, ["6S", "7S", "9S", "QS"])
    s.layout(B, ["KC", "QD", "QC", "2H"])
    assert s.game.sides[B].packet == 0
    s.do("spit", A, pile=1, card="5H")
    assert s.code("spit", A, pile=2, card="4H") == "F_WRONG_PILE"
    s.do("take_back", A, pile=2, card="4H")
    chain_v1(s, A, pile=1)
    assert s.game.allocation == {1: B} and s.game.outcome is None
    s.do("take_pile", B, pile=1)
    assert s.game.sides[B].total == 10 + 11


@covers("V2")
@pytest.mark.parametrize(("rules", "expected"), [(RuleSet(same_rank_stacking=True), None),
                                                 (RuleSet(), "F_BAD_MOVE")])
def test_same_rank_stacking(rules: RuleSet, expected: str | None) -> None:
    s = Script(rules)
    s.start(["KS", "KH", "QH", "QS", "2C"], B_TOPS)
    assert s.code("move", A, from_slot=2, to_slot=1, card="KH") == expected
    assert s.game.sides[A].stock[0].up[-1].code == "KH"


@covers("V3")
@pytest.mark.parametrize(("card", "rules", "expected"), [
    ("6D", RuleSet(alternating_colours=True), "F_ILLEGAL_RANK"),  # red on 5H
    ("6S", RuleSet(alternating_colours=True), None),
    ("6D", RuleSet(), None),
])
def test_alternating_colours(card: str, rules: RuleSet, expected: str | None) -> None:
    s = Script(rules)
    s.start([card, *A_TOPS[1:]], B_TOPS)
    assert s.code("play", A, slot=1, pile=1, card=card) == expected


@covers("V5")
def test_clearer_chooses_the_pile() -> None:
    s = v1_round_cleared_by_a(RuleSet(four_piles=True, clearer_chooses=True))
    s.do("slap", B, pile=2)  # B's slap does not count under V5
    assert s.game.allocation is None
    assert s.code("take_pile", A, pile=2) is None
    assert s.game.allocation == {2: A, 1: B}


@covers("V6", "G3")
def test_points_end_the_game_and_the_lowest_score_wins() -> None:
    s = v1_round_cleared_by_a(RuleSet(four_piles=True, points=True, points_limit=30))
    s.do("slap", A, pile=2)
    judgement = s.do("slap", B, pile=1)
    a, b = s.game.sides[A].score, s.game.sides[B].score
    assert (a, b) == (15 + 1, 15 + 10 + 11)
    assert s.game.outcome is not None and s.game.outcome.winner is A
    assert CallKind.GAME_OVER in [c.call for c in judgement.calls]


@covers("V7")
def test_canfield_layout() -> None:
    s = Script(RuleSet(canfield=True))
    s.do("deal", A)
    assert [p.size for p in s.game.sides[A].stock[:5]] == [1, 1, 1, 1, 10]
    assert s.game.sides[A].packet == 12


def test_v1_and_v7_conflict() -> None:
    with pytest.raises(ValueError, match="cannot both be on"):
        RuleSet(four_piles=True, canfield=True)


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown variant 'V9'"):
        RuleSet.from_variants(["V9"])


# ---------------------------------------------------------------- contradictions


def _snapshot(game: Game) -> tuple:
    return (game.pile_sizes(), game.known_cards(), game.phase, game.events_judged)


@pytest.mark.parametrize(("kind", "player", "fields", "error"), [
    ("spit", A, {"pile": 1, "card": "KS"}, "already face up"),  # a card seen twice
    ("turn", B, {"slot": 1, "card": "KS"}, "no face-down top card"),
    ("play", A, {"slot": 1, "pile": 1, "card": "QD"}, "shows KS, not QD"),
    ("play", A, {"slot": 6, "pile": 1, "card": "KS"}, "is empty"),  # a play from an empty slot
    ("play", A, {"slot": 9, "pile": 1, "card": "KS"}, "out of range"),
    ("play", A, {"slot": 1, "pile": 3, "card": "KS"}, "pile 3 does not exist"),
    ("take_back", A, {"pile": 1, "card": "KS"}, "not on pile 1"),
    ("move", A, {"from_slot": 1, "to_slot": 1, "card": "KS"}, "to itself"),
    ("deal", A, {}, "deal during playing"),
])
def test_contradicting_events_raise_and_leave_the_state_alone(kind, player, fields, error) -> None:
    s = Script()
    s.start(A_TOPS, B_TOPS)
    before = _snapshot(s.game)
    with pytest.raises(InconsistentEvent, match=error) as info:
        s.do(kind, player, **fields)
    assert "event " in str(info.value)  # says where
    assert _snapshot(s.game) == before and s.game.defects() == []


def test_a_53rd_card_is_rejected() -> None:
    s = Script()
    s.start(A_TOPS, B_TOPS)
    cards = iter(["4S", "4H", "4D", "4C", "6S", "6H", "6D", "6C", "7S", "7H", "7D", "7C", "8S",
                  "8H", "8D", "8C", "10S", "10H", "10D", "10C", "3S", "3H"])
    for _ in range(10):
        s.do("spit", A, pile=1, card=next(cards))
        s.do("spit", B, pile=2, card=next(cards))
    with pytest.raises(InconsistentEvent, match="no spit cards left"):
        s.do("spit", A, pile=1, card="3D")


def test_legal_plays_lists_every_allowed_play() -> None:
    s = Script()
    s.start(["6S", "4D", "8C", *A_TOPS[3:]], B_TOPS)
    plays = {(p.player, p.slot, p.pile, str(p.card)) for p in s.game.legal_plays()}
    assert plays == {(A, 1, 1, "6S"), (A, 2, 1, "4D"), (A, 3, 2, "8C")}
    assert s.game.legal_plays(B) == [] and not s.game.is_blocked()


@covers("V2", "P9")
def test_same_rank_stacking_that_uncovers_a_card_is_not_a_stalemate() -> None:
    rules = RuleSet(same_rank_stacking=True)
    s = Script(rules)
    s.start(["KS", "KH", "QH", "QS", "2C"], B_TOPS)  # KH lies on a face-down card: V2 uncovers it
    assert not s.game.is_blocked()
    plain = Script()
    plain.start(["KS", "KH", "QH", "QS", "2C"], B_TOPS)
    assert plain.game.is_blocked()
