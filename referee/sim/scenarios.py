"""Named scenarios: short, deterministic game fragments for the video fixtures.

A scenario is a function of a seed that returns a :class:`Fragment`: the records of a game
(``game_start``, table events, and the rules engine's verdicts and calls for them, exactly as
:class:`referee.rules.Game` judges them), the true identity of every face-down card at each
deal (:class:`DealTruth`, which a camera cannot know but the frame truth must), the clip's
length, and any scene changes over time (light, camera).

**How a clip starts mid-game (the prelude).** Every fragment is a complete game from its
``game_start``, so any log reader or the rules engine can replay it. The events that lay out
the starting table (deals, turned stock cards, spit cards, and for excerpts everything played
before the clip) all happen at ``t = 0`` with no ``start``, and carry
``evidence: {"prelude": true}``. The video's first frame shows the table as the prelude leaves
it; the clip's own action starts at about 0.5 s. A vision pipeline scored against the truth
skips prelude events (they are what it sees at frame 0, not what it saw happen).

Two ways to make a fragment:

- :class:`Script`: the scenario states the starting table by rank (suits and the hidden cards
  come from the seed) and then each action with its pick-up (``start``) and touch (``t``)
  times; every verdict is checked against what the scenario means to show, so a scenario
  cannot silently stop showing its fault.
- :func:`excerpt`: a window of a self-played game (:mod:`referee.selfplay`); everything before
  the window becomes the prelude, times inside it are shifted to start at 0.5 s, and the
  engine judges the result afresh.

Times in the race scenarios are placed in 30 fps frames (the fixtures' rate): ``race-4f``
touches 4 frame intervals apart, ``race-subframe`` twice inside one frame interval. At another
frame rate the gaps in seconds stay the same.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from referee.cards import FULL_DECK, Card, Rank
from referee.errors import InputError
from referee.events import (
    Call,
    Deal,
    GameStart,
    Hand,
    Move,
    Play,
    Record,
    Slap,
    SpitTurn,
    TableEvent,
    TakeBack,
    TakePile,
    Turn,
    Verdict,
)
from referee.players import Player
from referee.rules import Game, Phase, RuleSet
from referee.selfplay import SelfPlay, SelfPlayConfig

log = logging.getLogger(__name__)

A, B = Player.A, Player.B
PRELUDE: dict[str, Any] = {"prelude": True}
FRAME = 1 / 30  # the fixtures' frame interval, for scenarios that place touches in frames
LEAD_S = 0.5  # where an excerpt's window starts in the clip
TAIL_S = 0.8  # clip time after the last event


@dataclass(frozen=True)
class DealTruth:
    """What a deal really laid out: each stock slot's cards (bottom first, the top card last)
    and the spit-card packet left in hand (bottom first, the next card to turn last)."""

    player: Player
    stock: tuple[tuple[str, ...], ...]
    packet: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"player": str(self.player), "stock": [list(s) for s in self.stock],
                "packet": list(self.packet)}


@dataclass(frozen=True)
class Fragment:
    """A game fragment ready to render: records, hidden truth, length and scene changes."""

    name: str
    seed: int
    records: tuple[Record, ...]
    deals: tuple[DealTruth, ...]  # one per Deal event, in order
    duration: float  # seconds of video
    visuals: dict[str, Any] = field(default_factory=dict)  # scene changes over time (JSON-ready)
    summary: str = ""

    def cut(self, seconds: float) -> Fragment:
        """The first ``seconds`` of the fragment: records after that dropped (a record's
        verdict and calls share its time, so they stay together)."""
        if seconds >= self.duration:
            return self
        records = tuple(r for r in self.records if r.t <= seconds)
        deals = sum(isinstance(r, Deal) for r in records)
        return replace(self, records=records, deals=self.deals[:deals], duration=round(seconds, 6))

    @property
    def table_events(self) -> list[TableEvent]:
        return [r for r in self.records if isinstance(r, TableEvent)]

    @property
    def faults(self) -> list[Verdict]:
        return [r for r in self.records if isinstance(r, Verdict) and r.code is not None]

    @property
    def clip_faults(self) -> list[Verdict]:
        """Faults and warnings of the clip's own events (not of the prelude)."""
        events = self.table_events
        return [v for v in self.faults if not (v.event < len(events) and is_prelude(events[v.event]))]

    @property
    def prelude_events(self) -> int:
        return sum(1 for e in self.table_events if is_prelude(e))


def is_prelude(event: TableEvent) -> bool:
    """True for an event of the prelude (it laid out the table before the clip)."""
    return bool(event.evidence and event.evidence.get("prelude"))


class ScriptError(RuntimeError):
    """A scenario script does not do what it says (a bug in the scenario, not bad input)."""


# ---------------------------------------------------------------------------- scripting


def _rank(code: str) -> Rank:
    return Card.parse(code).rank


def _plus(rank: Rank, k: int) -> Rank:
    return Rank((int(rank) - 1 + k) % 13 + 1)


class Script:
    """Builds a fragment action by action, with the true cards under every face-down back.

    Cards are physical tokens; a token's identity is fixed when it is first seen (turned) and
    the script may choose it then (by rank; the suit comes from the seed). Tokens never seen
    get the cards left over when the script is built, shuffled by the seed.
    """

    def __init__(self, name: str, seed: int, rules: RuleSet | None = None, summary: str = "") -> None:
        self.name, self.seed, self.summary = name, seed, summary
        self.rng = random.Random(f"scenario {name} {seed}")
        self.rules = rules or RuleSet()
        self.game = Game(self.rules)
        self.records: list[Record] = [GameStart(t=0.0, rules=self.rules, seed=seed)]
        self.ident: list[str | None] = [None] * 52
        self.bound: dict[str, int] = {}
        self.packet: dict[Player, list[int]] = {A: list(range(26)), B: list(range(26, 52))}
        self.stock: dict[Player, list[list[int]]] = {p: [[] for _ in range(self.rules.slots + 1)]
                                                     for p in Player}
        self.piles: dict[int, list[int]] = {1: [], 2: []}
        self._deals: list[tuple[Player, list[list[int]], list[int]]] = []
        self.prelude = True
        self.hands = {A: Hand.RIGHT, B: Hand.RIGHT}
        self.visuals: dict[str, Any] = {}

    # ------------------------------------------------------------------ cards
    def free_card(self, rank: Rank | str) -> str:
        """A card of ``rank`` not yet seen anywhere (suit chosen by the seed)."""
        r = rank if isinstance(rank, Rank) else Rank.parse(rank)
        free = [c.code for c in FULL_DECK if c.rank is r and c.code not in self.bound]
        if not free:
            raise ScriptError(f"{self.name}: no unseen card of rank {r.code} left")
        return self.rng.choice(free)

    def _bind(self, token: int, code: str) -> None:
        if self.ident[token] == code:
            return
        if self.ident[token] is not None:
            raise ScriptError(f"{self.name}: that card is {self.ident[token]}, not {code}")
        if code in self.bound:
            raise ScriptError(f"{self.name}: {code} is already elsewhere")
        self.ident[token] = code
        self.bound[code] = token

    def _reveal(self, token: int, rank: Rank | str | None) -> str:
        known = self.ident[token]
        if known is not None:
            wanted = rank if isinstance(rank, Rank) or rank is None else Rank.parse(rank)
            if wanted is not None and _rank(known) is not wanted:
                raise ScriptError(f"{self.name}: the card turned is {known}, not a {rank}")
            return known
        code = self.free_card(rank) if rank is not None else self.free_card(
            self.rng.choice([c.rank for c in FULL_DECK if c.code not in self.bound]))
        self._bind(token, code)
        return code

    def top(self, p: Player, slot: int) -> str:
        pile = self.stock[p][slot - 1]
        code = self.ident[pile[-1]] if pile else None
        if code is None:
            raise ScriptError(f"{self.name}: {p}'s slot {slot} shows no known card")
        return code

    def pile_top(self, pile: int) -> str:
        top = self.game.piles[pile].top
        if top is None:
            raise ScriptError(f"{self.name}: pile {pile} is empty")
        return top.code

    # ------------------------------------------------------------------ events
    def _event(self, ev: TableEvent, expect: str | None) -> None:
        if self.prelude:
            ev = replace(ev, t=0.0, start=None, evidence=PRELUDE)
        judgement = self.game.apply(ev)
        got = judgement.verdict.code
        if got != expect:
            raise ScriptError(f"{self.name}: {judgement.verdict.message}: expected "
                              f"{expect or 'legal'}, the engine says {got or 'legal'}")
        self.records += [ev, judgement.verdict, *judgement.calls]

    def _times(self, t: float, start: float | None, motion: float) -> tuple[float, float | None]:
        if self.prelude:
            return 0.0, None
        return t, (round(t - motion, 4) if start is None else start)

    def action(self) -> None:
        """The prelude is over: the next events are the clip's own action."""
        self.prelude = False

    def deal(self, p: Player, t: float = 0.0) -> None:
        tokens = self.packet[p]
        order = sorted(tokens, key=lambda k: (self.ident[k] is None, self.rng.random()))
        sizes = self.rules.slot_sizes
        stock: list[list[int]] = [[] for _ in range(self.rules.slots + 1)]
        for i, size in enumerate(sizes):
            n = min(size, len(order))
            stock[i] = [order.pop() for _ in range(n)][::-1]
        self._event(Deal(t=t, player=p), None)
        self.stock[p] = stock
        self.packet[p] = order
        self._deals.append((p, [list(col) for col in stock], list(order)))

    def turn(self, p: Player, slot: int, rank: Rank | str | None = None, t: float = 0.0,
             start: float | None = None, expect: str | None = None) -> str:
        token = self.stock[p][slot - 1][-1]
        code = self._reveal(token, rank)
        t, start = self._times(t, start, 0.3)
        self._event(Turn(t=t, start=start, player=p, slot=slot, card=Card.parse(code),
                         hand=None if self.prelude else self.hands[p]), expect)
        return code

    def spit(self, p: Player, pile: int, rank: Rank | str | None = None, t: float = 0.0,
             start: float | None = None, expect: str | None = None) -> str:
        token = self.packet[p][-1]
        code = self._reveal(token, rank)
        t, start = self._times(t, start, 0.35)
        self._event(SpitTurn(t=t, start=start, player=p, pile=pile, card=Card.parse(code),
                             hand=None if self.prelude else self.hands[p]), expect)
        self.piles[pile].append(self.packet[p].pop())
        return code

    def play(self, p: Player, slot: int, pile: int, t: float = 0.0, start: float | None = None,
             expect: str | None = None, hand: Hand | None = None) -> str:
        code = self.top(p, slot)
        t, start = self._times(t, start, 0.45)
        self._event(Play(t=t, start=start, player=p, slot=slot, pile=pile, card=Card.parse(code),
                         hand=None if self.prelude else hand or self.hands[p]), expect)
        self.piles[pile].append(self.stock[p][slot - 1].pop())
        return code

    def move(self, p: Player, from_slot: int, to_slot: int, t: float, start: float | None = None,
             expect: str | None = None) -> str:
        code = self.top(p, from_slot)
        t, start = self._times(t, start, 0.45)
        self._event(Move(t=t, start=start, player=p, from_slot=from_slot, to_slot=to_slot,
                         card=Card.parse(code), hand=self.hands[p]), expect)
        self.stock[p][to_slot - 1].append(self.stock[p][from_slot - 1].pop())
        return code

    def take_back(self, p: Player, pile: int, code: str, t: float, start: float | None = None,
                  expect: str | None = None, hand: Hand | None = None) -> None:
        entry = next(e for e in reversed(self.game.piles[pile].cards) if e.card.code == code)
        t, start = self._times(t, start, 0.4)
        self._event(TakeBack(t=t, start=start, player=p, pile=pile, card=Card.parse(code),
                             hand=hand or self.hands[p]), expect)
        token = self.bound[code]
        self.piles[pile].remove(token)
        if entry.slot is not None:
            self.stock[entry.player][entry.slot - 1].append(token)
        else:
            self.packet[entry.player].append(token)

    def slap(self, p: Player, pile: int, t: float, start: float | None = None,
             expect: str | None = None) -> None:
        t, start = self._times(t, start, 0.25)
        self._event(Slap(t=t, start=start, player=p, pile=pile, hand=self.hands[p]), expect)

    def take_pile(self, p: Player, pile: int, t: float, expect: str | None = None) -> None:
        t, start = self._times(t, None, 0.6)
        self._event(TakePile(t=t, start=start, player=p, pile=pile, hand=self.hands[p]), expect)
        self.packet[p][:0] = self.piles[pile]  # under the packet
        self.piles[pile] = []

    def next_round(self) -> None:
        """Before a deal after a round end: every card a player holds goes to their packet
        (as the engine does at the next deal)."""
        for p in Player:
            for slot in self.stock[p]:
                self.packet[p][:0] = slot
            self.stock[p] = [[] for _ in range(self.rules.slots + 1)]
        assert self.game.allocation is not None
        for n, p in self.game.allocation.items():
            if self.piles[n]:
                self.packet[p][:0] = self.piles[n]
                self.piles[n] = []

    # ------------------------------------------------------------------ layouts
    def lay_out(self, a_tops: list[str], b_tops: list[str], a_spit: str, b_spit: str) -> None:
        """The prelude of a fresh round: both deal, turn their five tops (ranks given, slot 1
        first) and turn a spit card (A onto pile 1, B onto pile 2)."""
        for p in (A, B):
            self.deal(p)
        for p, tops in ((A, a_tops), (B, b_tops)):
            for slot, rank in enumerate(tops, start=1):
                self.turn(p, slot, rank)
        self.spit(A, 1, a_spit)
        self.spit(B, 2, b_spit)

    def run(self, p: Player, pile: int, plays: int, t0: float = 0.0, gap: float = 0.55) -> float:
        """``p`` plays ``plays`` cards in a row onto ``pile``, each one rank above the last,
        from slot 1 up to slot 5, turning the card beneath after each; returns the last time.

        The stock must have been laid out by :meth:`chain_tops`."""
        t = t0
        for _ in range(plays):
            slot = next((i for i, s in enumerate(self.stock[p][: self.rules.slots], start=1) if s), None)
            if slot is None:
                raise ScriptError(f"{self.name}: {p} has no stock card left to play")
            t += gap
            self.play(p, slot, pile, t=t)
            if self.stock[p][slot - 1] and self.game.phase is Phase.PLAYING:
                t += gap * 0.6
                self.turn(p, slot, _plus(_rank(self.pile_top(pile)), 1), t=t)
        return t

    @staticmethod
    def chain_tops(pile_rank: str) -> list[str]:
        """Tops for slots 1-5 such that :meth:`run` can play the whole stock onto a pile whose
        top has ``pile_rank`` (slot i's top is the rank after everything in slots 1..i-1)."""
        r = Rank.parse(pile_rank)
        return [_plus(r, k).code for k in (1, 2, 4, 7, 11)]

    def build(self, duration: float | None = None) -> Fragment:
        leftovers = [c.code for c in FULL_DECK if c.code not in self.bound]
        self.rng.shuffle(leftovers)
        idents = [code if code is not None else leftovers.pop() for code in self.ident]
        deals = tuple(DealTruth(p, tuple(tuple(idents[k] for k in s) for s in stock),
                                tuple(idents[k] for k in packet))
                      for p, stock, packet in self._deals)
        last = max(r.t for r in self.records)
        if self.game.defects():
            raise ScriptError(f"{self.name}: {self.game.defects()}")
        return Fragment(self.name, self.seed, tuple(self.records), deals,
                        round(duration if duration is not None else last + TAIL_S, 4),
                        dict(self.visuals), self.summary)


def at_frame(k: int, frac: float = 0.5) -> float:
    """A time ``frac`` of the way into 30 fps frame interval ``k`` (exact in the record)."""
    return round((k + frac) * FRAME, 6)


# ---------------------------------------------------------------------------- scenarios

#: The default starting table of the short scenarios: ranks of A's and B's five tops, and
#: the spit cards (A's on pile 1, B's on pile 2). A can play the 4 on 5 and 7 on 8 later;
#: B the 8 on 9.
A_TOPS = ["4", "K", "2", "J", "7"]
B_TOPS = ["10", "Q", "3", "8", "A"]
SPITS = ("5", "9")


def _standard(name: str, seed: int, summary: str) -> Script:
    s = Script(name, seed, summary=summary)
    s.lay_out(A_TOPS, B_TOPS, *SPITS)
    s.action()
    return s


def exchange(seed: int) -> Fragment:
    s = _standard("exchange", seed, "an ordinary exchange of legal plays, turning the cards beneath")
    s.play(A, 1, 1, t=0.95)                  # 4 on 5
    s.play(B, 4, 2, t=1.35)                  # 8 on 9
    s.turn(B, 4, "6", t=1.8)
    s.play(A, 5, 2, t=2.1)                   # 7 on 8
    s.turn(A, 5, "Q", t=2.55)
    s.play(B, 3, 1, t=2.65)                  # 3 on 4
    s.turn(B, 3, "9", t=3.1)
    s.play(A, 3, 1, t=3.2)                   # 2 on 3
    s.turn(A, 3, "10", t=3.6)
    s.play(B, 5, 1, t=3.75)                  # A on 2
    return s.build()


def illegal_rank(seed: int) -> Fragment:
    s = _standard("illegal-rank", seed, "A plays a king onto a five (F_ILLEGAL_RANK) and takes it back")
    card = s.play(A, 2, 1, t=1.0, expect="F_ILLEGAL_RANK")
    s.take_back(A, 1, card, t=1.85, start=1.35)
    s.play(B, 4, 2, t=2.4)                   # 8 on 9, legal
    return s.build()


def _race(name: str, seed: int, gap_frames: float, summary: str) -> Fragment:
    """A and B race to pile 2 (top 9): one plays a 10, the other an 8, touching
    ``gap_frames`` frame intervals apart; the second is not adjacent to the first: lost."""
    s = Script(name, seed, summary=summary)
    s.lay_out(["10", "K", "2", "J", "6"], ["Q", "8", "3", "5", "A"], "5", "9")
    s.action()
    first = s.rng.choice((A, B))
    second = first.other
    slots = {A: 1, B: 2}  # A's 10, B's 8
    k = 36  # the first touch is in frame 36 (1.2 s)
    t1 = at_frame(k, 0.3 if gap_frames >= 1 else 0.2)
    t2 = at_frame(k, 0.3 + gap_frames) if gap_frames >= 1 else at_frame(k, 0.2 + gap_frames)
    s.play(first, slots[first], 2, t=t1, start=round(t1 - 0.42, 4))
    lost = s.play(second, slots[second], 2, t=t2, start=round(t1 - 0.38, 4), expect="F_LOST_TOUCH")
    s.take_back(second, 2, lost, t=round(t2 + 0.75, 4), start=round(t2 + 0.35, 4))
    s.visuals["race"] = {"pile": 2, "first": str(first), "touches": [t1, t2],
                         "gap_s": round(t2 - t1, 6)}
    return s.build()


def race_4f(seed: int) -> Fragment:
    return _race("race-4f", seed, 4, "two cards race to one pile, touching 4 frames apart (P8)")


def race_2f(seed: int) -> Fragment:
    return _race("race-2f", seed, 2, "two cards race to one pile, touching 2 frames apart (P8)")


def race_1f(seed: int) -> Fragment:
    return _race("race-1f", seed, 1, "two cards race to one pile, touching in consecutive frames (P8)")


def race_subframe(seed: int) -> Fragment:
    return _race("race-subframe", seed, 0.5,
                 "two cards race to one pile, both touching within one frame interval (P8)")


#: The evaluation races' touch gaps, in frame intervals: half the seeds draw a gap inside one
#: frame interval, half one of one to four (issue 7 scores the two kinds apart)
EVAL_GAPS_WITHIN = (0.1, 0.95)
EVAL_GAPS_APART = (1.05, 4.0)
SLAP_TAIL_S = 1.5  # clip time after the later slap of ``slap-eval``
FILLER_TOPS = {A: ["K", "2", "J", "6"], B: ["Q", "3", "5", "A"]}


def _eval_gap(rng: random.Random, seed: int) -> float:
    """An evaluation race's gap in frame intervals: inside one for even seeds, else 1-4."""
    low, high = EVAL_GAPS_WITHIN if seed % 2 == 0 else EVAL_GAPS_APART
    return round(rng.uniform(low, high), 3)


def race_eval(seed: int) -> Fragment:
    """A first-touch race for the benchmark (not a fixture): like ``race-4f`` but with the
    seed choosing the gap (:func:`_eval_gap`), the pile, the slots the two cards come from,
    who is first and where in its frame interval the first touch falls."""
    s = Script("race-eval", seed, summary="two cards race to one pile, the seed choosing the gap, "
               "pile and slots (P8)")
    rng = s.rng
    pile = rng.choice((1, 2))
    slot = {A: rng.randint(1, 5), B: rng.randint(1, 5)}
    tops: dict[Player, list[str]] = {}
    for p, card in ((A, "10"), (B, "8")):  # both fit the pile's 9; the second then does not
        fill = list(FILLER_TOPS[p])
        tops[p] = fill[: slot[p] - 1] + [card] + fill[slot[p] - 1:]
    spits = ("9", "5") if pile == 1 else ("5", "9")
    s.lay_out(tops[A], tops[B], *spits)
    s.action()
    first = rng.choice((A, B))
    gap = _eval_gap(rng, seed)
    k = rng.randint(33, 39)
    t1 = at_frame(k, round(rng.uniform(0.05, 0.95), 3))
    t2 = round(t1 + gap * FRAME, 6)
    s.play(first, slot[first], pile, t=t1, start=round(t1 - rng.uniform(0.36, 0.5), 4))
    lost = s.play(first.other, slot[first.other], pile, t=t2,
                  start=round(t1 - rng.uniform(0.32, 0.46), 4), expect="F_LOST_TOUCH")
    s.take_back(first.other, pile, lost, t=round(t2 + 0.75, 4), start=round(t2 + 0.35, 4))
    s.visuals["race"] = {"pile": pile, "first": str(first), "touches": [t1, t2],
                         "gap_s": round(t2 - t1, 6)}
    return s.build()


def _run_out(name: str, seed: int, summary: str) -> Script:
    """A prelude in which A has played all but one stock card onto pile 1."""
    s = Script(name, seed, summary=summary)
    s.lay_out(Script.chain_tops("5"), ["10", "Q", "3", "8", "A"], "5", "9")
    s.run(A, 1, 14)
    s.action()
    return s


def _slap(name: str, seed: int, same: bool, summary: str) -> Fragment:
    s = _run_out(name, seed, summary)
    s.play(A, 5, 1, t=0.9)                   # A's last stock card: round over (E1 a)
    first = s.rng.choice((A, B))
    # both slap the smaller pile (pile 2), or each a different one
    s.slap(first, 2, t=1.45, start=1.2)
    s.slap(first.other, 2 if same else 1, t=round(1.45 + 0.09, 4), start=1.22)
    s.visuals["key_t"] = 1.6
    return s.build()


def slap_same(seed: int) -> Fragment:
    return _slap("slap-same", seed, True,
                 "A plays the last stock card; both slap the same pile, the hand underneath wins (E2)")


def slap_different(seed: int) -> Fragment:
    return _slap("slap-different", seed, False,
                 "A plays the last stock card; the players slap different piles and each takes theirs (E2)")


def slap_eval(seed: int) -> Fragment:
    """A slap race for the benchmark (not a fixture): like ``slap-same`` but with the seed
    choosing the gap (:func:`_eval_gap`), the pile, who slaps first and how fast each hand comes."""
    s = _run_out("slap-eval", seed, "A plays the last stock card; both slap one pile, the seed "
                 "choosing the gap and the pile (E2)")
    s.play(A, 5, 1, t=0.9)                   # A's last stock card: round over (E1 a)
    rng = s.rng
    pile = rng.choice((1, 2))
    first = rng.choice((A, B))
    t1 = round(1.4 + rng.uniform(0.0, 0.1), 4)
    t2 = round(t1 + _eval_gap(rng, seed) * FRAME, 6)
    s.slap(first, pile, t=t1, start=round(t1 - rng.uniform(0.2, 0.3), 4))
    s.slap(first.other, pile, t=t2, start=round(t2 - rng.uniform(0.2, 0.3), 4))
    s.visuals["key_t"] = round(t2 + 0.1, 4)
    # the hands lie on the pile for a while: 1.5 s after the later slap, as a game goes on
    return s.build(duration=round(t2 + SLAP_TAIL_S, 4))


def stalemate(seed: int) -> Fragment:
    s = Script("stalemate", seed, summary="the last play, nothing left to play: Spit! and both turn a "
               "spit card (P9); play resumes")
    # Piles 5 and 9. A's only play is the 4 from slot 2; beneath it a queen: blocked.
    s.lay_out(["K", "4", "2", "J", "7"], ["6", "Q", "K", "2", "Q"], "5", "9")
    s.action()
    s.play(A, 2, 1, t=0.9)                   # 4 on 5
    s.turn(A, 2, "Q", t=1.35)                # nothing fits 4 or 9 now: Spit!
    if not s.game.is_blocked():
        raise ScriptError("stalemate: the table is not blocked")
    s.spit(B, 2, "6", t=2.2, start=1.85)
    s.spit(A, 1, "8", t=2.3, start=1.9)
    s.visuals["key_t"] = 2.25
    s.play(A, 5, 1, t=3.0)                   # 7 on 8
    return s.build()


def fill_slot(seed: int) -> Fragment:
    s = _standard("fill-slot", seed, "A empties a slot, moves a card into it and turns the card "
                  "uncovered (P5)")
    s.play(A, 1, 1, t=0.9)                   # 4 on 5: slot 1 is empty
    s.move(A, 4, 1, t=1.7, start=1.25)       # the jack into slot 1
    s.turn(A, 4, t=2.15)
    s.play(B, 4, 2, t=2.5)
    return s.build()


def take_back(seed: int) -> Fragment:
    s = _standard("take-back", seed, "A plays a legal card and takes it back (F_TAKE_BACK, P7)")
    card = s.play(A, 1, 1, t=0.95)
    s.take_back(A, 1, card, t=1.8, start=1.4, expect="F_TAKE_BACK")
    s.play(B, 4, 2, t=2.4)
    return s.build()


def two_hands(seed: int) -> Fragment:
    s = _standard("two-hands", seed, "A plays with both hands at once (F_TWO_HANDS, P6) and takes "
                  "the second card back")
    s.play(A, 1, 1, t=1.0, start=0.5, hand=Hand.RIGHT)          # 4 on 5
    card = s.play(A, 5, 2, t=1.12, start=0.58, hand=Hand.LEFT, expect="F_TWO_HANDS")  # 7 on 9
    s.take_back(A, 2, card, t=1.9, start=1.5, hand=Hand.LEFT)
    return s.build()


def two_cards(seed: int) -> Fragment:
    s = _standard("two-cards", seed, "A carries two cards in one hand and puts both down "
                  "(F_TWO_CARDS, P6), then takes the second back")
    s.play(A, 1, 1, t=1.0, start=0.5)                           # 4 on 5
    card = s.play(A, 5, 1, t=1.08, start=0.55, expect="F_TWO_CARDS")
    s.take_back(A, 1, card, t=1.85, start=1.45)
    return s.build()


def sixth_pile(seed: int) -> Fragment:
    s = _standard("sixth-pile", seed, "A puts a card down outside the five stock slots "
                  "(F_SIXTH_PILE, P5) and brings it back")
    s.play(B, 4, 2, t=0.9)                                      # 8 on 9
    s.move(A, 1, 6, t=1.75, start=1.15, expect="F_SIXTH_PILE")  # the 4 beyond slot 5
    s.move(A, 6, 1, t=3.0, start=2.45)                          # and back
    s.play(A, 1, 1, t=3.7, start=3.2)                           # 4 on 5
    return s.build()


def lighting(seed: int) -> Fragment:
    s = _standard("lighting", seed, "an exchange of plays while the room light dims and warms")
    s.play(A, 1, 1, t=0.95)
    s.play(B, 4, 2, t=1.6)
    s.turn(B, 4, t=2.05)
    s.play(A, 5, 2, t=2.5)
    s.visuals["lighting"] = {"t0": 1.0, "t1": 2.2, "gain": 0.6, "warmth": 0.12,
                             "gradient": [0.1, -0.08], "vignette": 0.35}
    s.visuals["key_t"] = 2.5  # the frame a contact sheet shows
    return s.build()


def camera_nudge(seed: int) -> Fragment:
    s = _standard("camera-nudge", seed, "the camera is knocked mid-game (a few mm and about a "
                  "degree); play goes on")
    s.play(A, 1, 1, t=0.95)
    s.play(B, 4, 2, t=1.35)
    s.turn(B, 4, t=1.8)
    s.play(A, 5, 2, t=2.6)
    s.visuals["camera_nudge"] = {"t0": 2.0, "t1": 2.1, "shift_mm": [9.0, -6.0, 4.0],
                                 "turn_deg": [0.8, -0.6, 1.2]}
    s.visuals["key_t"] = 2.6
    return s.build()


# ---------------------------------------------------------------------------- excerpts


def selfplay_game(seed: int, config: SelfPlayConfig | None = None
                  ) -> tuple[list[Record], list[DealTruth]]:
    """A whole self-played game and the true layout of each of its deals."""
    sp = SelfPlay(seed, config or SelfPlayConfig())
    records: list[Record] = []
    deals: list[DealTruth] = []
    for record in sp.records():
        records.append(record)
        if isinstance(record, Deal):
            p = record.player
            deals.append(DealTruth(p, tuple(tuple(c.code for c in s) for s in sp.world.down[p]),
                                   tuple(c.code for c in sp.world.packet[p])))
    return records, deals


def rejudge(records: list[Record] | tuple[Record, ...]) -> list[Record]:
    """The table events of one game judged afresh, with the verdicts and calls they cause."""
    start = next(r for r in records if isinstance(r, GameStart))
    game = Game(start.rules)
    out: list[Record] = [start]
    for r in records:
        if isinstance(r, TableEvent):
            judgement = game.apply(r)
            out += [r, judgement.verdict, *judgement.calls]
    return out


def excerpt(name: str, seed: int, records: list[Record], deals: list[DealTruth], t0: float,
            t1: float, summary: str = "", visuals: dict[str, Any] | None = None) -> Fragment:
    """The window [t0, t1] of a game as a clip: earlier events become the prelude (t = 0),
    events in the window move to ``t - t0 + LEAD_S``, later ones are dropped; judged afresh."""
    shift = LEAD_S - t0
    events: list[Record] = [next(r for r in records if isinstance(r, GameStart))]
    kept_deals = 0
    for r in records:
        if not isinstance(r, TableEvent) or r.t > t1:
            continue
        if r.t < t0:
            events.append(replace(r, t=0.0, start=None, evidence=PRELUDE))
        else:
            start = None if r.start is None else round(max(0.0, r.start + shift), 4)
            events.append(replace(r, t=round(r.t + shift, 4), start=start))
        kept_deals += isinstance(r, Deal)
    judged = rejudge(events)
    last = max(r.t for r in judged)
    return Fragment(name, seed, tuple(judged), tuple(deals[:kept_deals]), round(last + TAIL_S, 4),
                    dict(visuals or {}), summary)


def _calls(records: list[Record], kind: str) -> Iterator[Call]:
    return (r for r in records if isinstance(r, Call) and r.call == kind)


def endgame(seed: int) -> Fragment:
    """The end of a self-played game (seed ``seed``, or the next one that qualifies): one spit
    pile in use (G1) and the short player clearing the stock to win (G2)."""
    for s in range(seed, seed + 50):
        records, deals = selfplay_game(s)
        over = next(_calls(records, "game_over"), None)
        if over is None or "G2" not in over.message:
            continue
        times = [r.t for r in records if isinstance(r, TableEvent)]
        t0 = max(0.0, min(over.t - 3.2, times[-6] - 0.3))
        return excerpt("endgame", seed, records, deals, t0, over.t,
                       f"single spit pile (G1): the player without spit cards clears the stock "
                       f"and wins (G2); self-play game {s}",
                       {"key_t": round(over.t - t0 + LEAD_S - 0.1, 4)})
    raise ScriptError(f"endgame: no self-played game from seed {seed} ends by G2")


def round_end(seed: int) -> Fragment:
    """A round ending in a self-played game: the last card, the slaps, the piles taken, the
    next deal."""
    for s in range(seed, seed + 50):
        records, deals = selfplay_game(s)
        ends = list(_calls(records, "round_end"))
        for end in ends:
            if "stock card" not in end.message:
                continue
            later = [r for r in records if isinstance(r, Deal) and r.t > end.t]
            if len(later) < 2 or later[1].t - end.t > 5.5:
                continue
            t0 = max(0.0, end.t - 1.0)
            piles = next(r for r in _calls(records, "piles") if r.t >= end.t)
            return excerpt("round-end", seed, records, deals, t0, later[1].t + 0.3,
                           f"a round ends: the last stock card, the slap race, both piles taken "
                           f"and the next deal (E1-E4); self-play game {s}",
                           {"key_t": round(piles.t - t0 + LEAD_S, 4)})
    raise ScriptError(f"round-end: no suitable round end from seed {seed}")


def selfplay(seed: int) -> Fragment:
    """A whole self-played game: minutes of video."""
    records, deals = selfplay_game(seed, SelfPlayConfig(fault_rate=0.05))
    last = max(r.t for r in records)
    return Fragment("selfplay", seed, tuple(records), tuple(deals), round(last + TAIL_S, 4), {},
                    f"a whole self-played game with deliberate faults (seed {seed})")


# ---------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Scenario:
    name: str
    make: Callable[[int], Fragment]
    summary: str
    fixture: bool = True  # rendered as a recorded fixture in tests/fixtures


SCENARIOS: dict[str, Scenario] = {}


def _register(name: str, make: Callable[[int], Fragment], summary: str, fixture: bool = True) -> None:
    SCENARIOS[name] = Scenario(name, make, summary, fixture)


_register("exchange", exchange, "an ordinary exchange of legal plays and turns")
_register("illegal-rank", illegal_rank, "a wrong-rank play (F_ILLEGAL_RANK) and its take-back")
_register("race-4f", race_4f, "two cards race to one pile, touches 4 frames apart (F_LOST_TOUCH)")
_register("race-2f", race_2f, "two cards race to one pile, touches 2 frames apart (F_LOST_TOUCH)")
_register("race-1f", race_1f, "two cards race to one pile, touches 1 frame apart (F_LOST_TOUCH)")
_register("race-subframe", race_subframe,
          "two cards race to one pile, both touches within one frame (F_LOST_TOUCH)")
_register("slap-same", slap_same, "round over; both slap the same pile, the first hand wins (E2)")
_register("slap-different", slap_different, "round over; the players slap different piles (E2)")
_register("stalemate", stalemate, "play is blocked: Spit! and both turn a spit card (P9)")
_register("round-end", round_end, "a round ends: slaps, both piles taken, the next deal (E1-E4)")
_register("endgame", endgame, "single spit pile (G1); the short player clears the stock and wins (G2)")
_register("fill-slot", fill_slot, "a card moved into an empty slot, the card beneath turned (P5)")
_register("take-back", take_back, "a legally played card taken back (F_TAKE_BACK)")
_register("two-hands", two_hands, "a player uses both hands at once (F_TWO_HANDS)")
_register("two-cards", two_cards, "a player moves two cards at once (F_TWO_CARDS)")
_register("lighting", lighting, "plays while the room light dims and warms")
_register("camera-nudge", camera_nudge, "the camera is knocked mid-game")
_register("sixth-pile", sixth_pile, "a card put outside the stock slots (F_SIXTH_PILE) and back")
_register("race-eval", race_eval, "a first-touch race, the seed choosing its gap, pile and slots "
          "(benchmark)", fixture=False)
_register("slap-eval", slap_eval, "a slap race, the seed choosing its gap and pile (benchmark)",
          fixture=False)
_register("selfplay", selfplay, "a whole self-played game with deliberate faults (long)", fixture=False)


def make_fragment(name: str, seed: int) -> Fragment:
    """The fragment of scenario ``name`` for ``seed``; InputError naming the scenarios."""
    scenario = SCENARIOS.get(name)
    if scenario is None:
        raise InputError(f"unknown scenario {name!r} (known: {', '.join(SCENARIOS)})", "--scenario")
    fragment = scenario.make(seed)
    log.info("scenario %s seed %d: %d records, %.2f s", name, seed, len(fragment.records),
             fragment.duration)
    return fragment
