"""Judging a card found beneath judged events in its place (referee/rules/hindsight.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.cards import Card
from referee.events import Deal, GameStart, Outcome, Play, SpitTurn, TableEvent, Turn
from referee.judging import judge_records
from referee.rules import Game, InconsistentEvent, RuleSet
from referee.rules.hindsight import FOUND_BENEATH, Hindsight
from tests.rules.script import A, B, Script


def _started() -> tuple[Script, Hindsight]:
    """Piles 5H / 9C; A's slot 1 holds 6S, B's slot 1 7C (neither playable on pile 2)."""
    s = Script()
    s.start(["6S", "KH", "KD", "QS", "QH"], ["7C", "QD", "QC", "2S", "2H"])
    return s, Hindsight()


def _play(player: str, slot: int, pile: int, card: str, t: float) -> Play:
    return Play(t=t, player=A if player == "A" else B, slot=slot, pile=pile, card=Card.parse(card))


def test_a_play_found_beneath_a_judged_play_is_judged_first_and_the_play_on_it_again() -> None:
    """A's 6S touched pile 1 (5H) 50 ms before B's 7C covered it; the 6S was seen only later.
    Judged as it came, the 7C on the 5H was an F_ILLEGAL_RANK; in its place the 6S is legal,
    and the 7C on the 6S too: its verdict is given anew."""
    s, hindsight = _started()
    game = s.game
    number = game.events_judged
    first = hindsight.apply(game, _play("B", 1, 1, "7C", 20.05))
    assert first.verdict.code == "F_ILLEGAL_RANK" and first.verdict.event == number
    late = _play("A", 1, 1, "6S", 20.0)
    assert hindsight.covers(late)
    rejudged = hindsight.judge_in_place(game, late)
    assert rejudged is not None
    assert rejudged.judgement.verdict.outcome is Outcome.LEGAL
    assert rejudged.judgement.verdict.event == number + 1  # the next event of the log
    assert [(v.event, v.outcome, v.code, v.revised) for v in rejudged.revised] == [
        (number, Outcome.LEGAL, None, True)]
    assert "found beneath" in rejudged.revised[0].message
    assert [str(c.card) for c in rejudged.game.piles[1].cards][-2:] == ["6S", "7C"]
    assert rejudged.game.events_judged == number + 2
    assert str(rejudged.game.piles[1].top) == "7C"
    assert str(game.piles[1].top) == "5H" and game.events_judged == number + 1  # not changed


def test_a_late_event_the_engine_refuses_changes_nothing() -> None:
    s, hindsight = _started()
    game = s.game
    hindsight.apply(game, _play("B", 1, 1, "7C", 20.05))
    spit = SpitTurn(t=20.0, player=B, pile=1, card=Card.parse("6S"))  # 6S lies in A's slot 1
    with pytest.raises(InconsistentEvent):
        hindsight.judge_in_place(game, spit)
    assert [str(c.card) for c in game.piles[1].cards][-1] == "7C" and hindsight.covers(spit)
    rejudged = hindsight.judge_in_place(game, _play("A", 1, 1, "6S", 20.0))  # what is remembered stands
    assert rejudged is not None and [v.code for v in rejudged.revised] == [None]


def test_nothing_later_or_a_later_event_forgotten_is_not_judged_again() -> None:
    s, hindsight = _started()
    game = s.game
    hindsight.apply(game, _play("B", 1, 1, "7C", 20.05))
    assert hindsight.judge_in_place(game, _play("A", 1, 1, "6S", 20.1)) is None  # nothing later
    short = Hindsight(keep_s=1.0)
    s, _ = _started()
    short.apply(s.game, _play("B", 1, 1, "7C", 20.05))
    short.apply(s.game, _play("A", 2, 2, "KH", 22.0))
    late = _play("A", 1, 1, "6S", 20.0)
    assert not short.covers(late)  # the 7C, after it, is forgotten
    assert short.judge_in_place(s.game, late) is None


def test_a_verdict_that_does_not_change_is_not_given_again() -> None:
    s, hindsight = _started()
    game: Game = s.game
    hindsight.apply(game, _play("A", 2, 2, "KH", 20.05))  # on the 9C: an F_ILLEGAL_RANK either way
    rejudged = hindsight.judge_in_place(game, _play("A", 1, 1, "6S", 20.0))
    assert rejudged is not None and rejudged.revised == ()


def _opening() -> list[TableEvent]:
    """The events of ``_started``: both lay out (A's slot 1 6S, B's 7C), spit cards 5H and 9C."""
    tops = {A: ["6S", "KH", "KD", "QS", "QH"], B: ["7C", "QD", "QC", "2S", "2H"]}
    out: list[TableEvent] = []
    for player in (A, B):
        out.append(Deal(t=len(out) + 1.0, player=player))
        out += [Turn(t=len(out) + 1.0, player=player, slot=slot, card=Card.parse(code))
                for slot, code in enumerate(tops[player], start=1)]
    out.append(SpitTurn(t=len(out) + 1.0, player=A, pile=1, card=Card.parse("5H")))
    out.append(SpitTurn(t=len(out) + 1.0, player=B, pile=2, card=Card.parse("9C")))
    return out


def test_a_log_s_event_found_beneath_is_judged_again_in_its_place() -> None:
    """``judge_records`` (``spit-referee check``) judges a log as the referee did: an event marked
    ``found_beneath`` in its place, one verdict per event (the one given anew replaces it)."""
    late = _play("A", 1, 1, "6S", 20.0)
    for marked in (True, False):
        records = [GameStart(t=0.0, rules=RuleSet()), *_opening(), _play("B", 1, 1, "7C", 20.05),
                   replace(late, evidence={FOUND_BENEATH: True} if marked else {})]
        (game,) = judge_records(records)
        assert not game.errors
        verdicts = {v.event: v for v in game.verdicts}
        assert len(verdicts) == len(game.verdicts) == len(records) - 1  # one per event
        seven = len(records) - 3
        assert verdicts[seven].code == (None if marked else "F_ILLEGAL_RANK")
        assert bool(verdicts[seven].revised) is marked
        assert str(game.final_state.piles[1].cards[-1].card) == ("7C" if marked else "6S")
