"""A tiny script language for rules tests: table events in order, one call per event."""

from __future__ import annotations

from typing import Any

from referee.cards import Card
from referee.events import Correction, Deal, Hand, Move, Play, Slap, SpitTurn, TakeBack, TakePile, Turn
from referee.players import Player
from referee.rules import Game, Judgement, RuleSet

A, B = Player.A, Player.B

_EVENTS = {"deal": Deal, "turn": Turn, "spit": SpitTurn, "play": Play, "move": Move,
           "take_back": TakeBack, "slap": Slap, "take_pile": TakePile, "correct": Correction}


class Script:
    """Feeds events to a Game with a clock that advances one second per event."""

    def __init__(self, rules: RuleSet | None = None) -> None:
        self.game = Game(rules)
        self.t = 0.0

    def do(self, kind: str, player: Player, *, dt: float = 1.0, start: float | None = None,
           hand: Hand | None = None, **fields: Any) -> Judgement:
        self.t += dt
        for name in ("card", "was"):
            if isinstance(fields.get(name), str):
                fields[name] = Card.parse(fields[name])
        event = _EVENTS[kind](t=self.t, player=player, start=start, hand=hand, **fields)
        return self.game.apply(event)

    def code(self, kind: str, player: Player, **fields: Any) -> str | None:
        """Apply one event and return its fault code (None when legal)."""
        return self.do(kind, player, **fields).verdict.code

    def layout(self, player: Player, tops: list[str]) -> None:
        """Deal and turn the top card of each dealt slot, slot 1 first."""
        self.do("deal", player)
        for slot, code in enumerate(tops, start=1):
            self.do("turn", player, slot=slot, card=code)

    def start(self, a_tops: list[str], b_tops: list[str], spit: tuple[str, str] = ("5H", "9C")) -> None:
        """Both lay out, then A turns ``spit[0]`` onto pile 1 and B ``spit[1]`` onto pile 2."""
        self.layout(A, a_tops)
        self.layout(B, b_tops)
        self.do("spit", A, pile=1, card=spit[0])
        self.do("spit", B, pile=2, card=spit[1])

    def tops(self) -> tuple[str | None, str | None]:
        return tuple(str(p.top) if p.top else None for p in self.game.piles.values())  # type: ignore[return-value]


#: Tops that make no plays possible on piles 5H / 9C (ranks far from 4, 6, 8, 10).
A_TOPS = ["KS", "KH", "KD", "QS", "QH"]
B_TOPS = ["KC", "QD", "QC", "2S", "2H"]
