"""Two bots that play whole games of Spit against each other, in simulated time.

The bots act at the same time, as real players do (P2): each plans its next action with a
reaction delay and a hand motion time, and the earliest touch happens first. Their plans
collide naturally (two cards racing to one pile, slap races). With ``fault_rate`` > 0 they
also commit deliberate faults of every kind in the fault table, and then put things right
(an illegally played card is taken back).

The output is the event log of the game (:mod:`referee.events`): ``game_start``, then each
table event followed by the referee's verdict and calls. The simulator turns these logs into
video; the tests replay them through the rules.

The bots know the true order of every face-down card (they hold the deck); the rules engine
they play under knows only what a camera would see.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from referee.cards import FULL_DECK, Card
from referee.events import (
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
)
from referee.players import PLAYERS, Player
from referee.rules import Game, Phase, RuleSet
from referee.rules.faults import Fault

#: Deliberate faults the bots know how to commit (F_LOST_TOUCH also arises from real races).
INJECTABLE = (
    Fault.ILLEGAL_RANK,
    Fault.EARLY,
    Fault.SIXTH_PILE,
    Fault.TWO_CARDS,
    Fault.TWO_HANDS,
    Fault.TAKE_BACK,
    Fault.LOST_TOUCH,
    Fault.EARLY_SPIT,
    Fault.EARLY_SLAP,
    Fault.WRONG_PILE,
    Fault.BAD_MOVE,
    Fault.WRONG_TAKE,
)


@dataclass(frozen=True)
class BotProfile:
    """How fast a bot is: reaction delay and hand motion times in seconds."""

    reaction: float = 0.55
    reaction_spread: float = 0.25
    motion: float = 0.45
    hand: Hand = Hand.RIGHT


@dataclass(frozen=True)
class SelfPlayConfig:
    rules: RuleSet = field(default_factory=RuleSet)
    fault_rate: float = 0.0
    max_rounds: int = 300
    profiles: tuple[BotProfile, BotProfile] = (BotProfile(), BotProfile(reaction=0.6, hand=Hand.LEFT))

    def __post_init__(self) -> None:
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be between 0 and 1, not {self.fault_rate}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, not {self.max_rounds}")


#: A card still this far (seconds) from a pile that changed is stopped and the play re-planned.
_ABORT_S = 0.15
#: The least time a hand needs to come back from where it last touched before it can pick up
#: the next card (with the reaction delay on top), so hands move at human speeds.
_RETURN_S = 0.25


class GameTooLong(RuntimeError):
    """Raised when a self-played game does not finish within ``max_rounds``."""


@dataclass(order=True)
class _Step:
    """A planned action: ``make`` builds the event when it happens (identities resolved then)."""

    t: float
    start: float
    make: Callable[[], TableEvent | None] = field(compare=False)
    replannable: bool = field(default=True, compare=False)  # dropped if the table changes first
    play: tuple[int, Card] | None = field(default=None, compare=False)  # (pile, card) of a play


class _World:
    """The true cards: what the bots hold face down, in order (top last)."""

    def __init__(self, rng: random.Random) -> None:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        self.packet: dict[Player, list[Card]] = {Player.A: deck[:26], Player.B: deck[26:]}
        self.down: dict[Player, list[list[Card]]] = {p: [] for p in Player}


class SelfPlay:
    """One self-played game. Iterate :meth:`records` to get its log."""

    def __init__(self, seed: int, config: SelfPlayConfig | None = None, game_index: int = 0) -> None:
        self.seed = seed
        self.config = config or SelfPlayConfig()
        self.game_index = game_index
        self.rng = random.Random(seed)
        self.game = Game(self.config.rules)
        self.world = _World(self.rng)
        self.queues: dict[Player, deque[_Step]] = {p: deque() for p in Player}
        self.busy_until: dict[Player, float] = {p: 0.0 for p in Player}
        self.now = 0.0
        self.profile = dict(zip(Player, self.config.profiles, strict=True))

    # ------------------------------------------------------------------ driver

    def records(self) -> Iterator[Record]:
        """Play the game to its end, yielding every record of its log."""
        yield GameStart(t=0.0, game=self.game_index, rules=self.config.rules, seed=self.seed)
        idle_rounds = 0
        while self.game.phase is not Phase.GAME_OVER:
            if self.game.round > self.config.max_rounds:
                raise GameTooLong(f"seed {self.seed}: no winner after {self.config.max_rounds} rounds")
            for p in PLAYERS:
                if not self.queues[p]:
                    self._plan(p)
            heads = [(q[0].t, i, p) for i, (p, q) in enumerate(self.queues.items()) if q]
            if not heads:
                idle_rounds += 1
                if idle_rounds > 3:
                    raise RuntimeError(f"seed {self.seed}: bots stuck in {self.game.phase}")
                self.now += 0.5
                continue
            idle_rounds = 0
            _, _, player = min(heads)
            step = self.queues[player].popleft()
            event = step.make()
            if event is None:
                continue
            self.now = max(self.now, event.t)
            self.busy_until[player] = max(self.busy_until[player], event.t)
            if isinstance(event, Deal) and self.game.phase is Phase.ROUND_OVER:
                self._collect_round()
            taken = event.pile if isinstance(event, TakePile) else None
            pile_cards = [e.card for e in self.game.piles[taken].cards] if taken else []
            judgement = self.game.apply(event)
            if taken and pile_cards and not self.game.piles[taken].cards:  # the pile was taken
                self.world.packet[event.player] += pile_cards
            self._after_apply(event, judgement.verdict.outcome != "legal")
            yield event
            yield judgement.verdict
            yield from judgement.calls

    # ------------------------------------------------------------------ world bookkeeping

    def _collect_round(self) -> None:
        allocation = self.game.allocation or {}
        for n, p in allocation.items():
            if n not in self.game.taken:
                self.world.packet[p] += [e.card for e in self.game.piles[n].cards]
        for p, side in self.game.sides.items():
            for stock in side.stock:
                self.world.packet[p] += stock.up
            for cards in self.world.down[p]:
                self.world.packet[p] += cards
            self.world.down[p] = []

    def _after_apply(self, ev: TableEvent, faulted: bool) -> None:
        if isinstance(ev, Deal):
            cards = self.world.packet[ev.player]
            self.rng.shuffle(cards)
            self.world.down[ev.player] = [
                [cards.pop() for _ in range(stock.down)] for stock in self.game.sides[ev.player].stock
            ]
        if isinstance(ev, TakeBack):
            entry_side = self.game.sides[ev.player]
            if entry_side.packet_known and entry_side.packet_known[-1] == ev.card:
                self.world.packet[ev.player].append(ev.card)
        # The table changed: the other player makes plans not yet begun again, and stops a
        # card still far enough from a pile that changed (nearer than that, it races on).
        other = self.queues[ev.player.other]
        if other and other[0].replannable:
            head = other[0]
            if head.start > ev.t:
                other.clear()
            elif head.t - ev.t > _ABORT_S and (
                self.game.phase is Phase.ROUND_OVER
                or (head.play and isinstance(ev, Play | SpitTurn) and head.play[0] == ev.pile)
            ):
                other.clear()
                self.busy_until[ev.player.other] = ev.t
        if faulted and isinstance(ev, Play | SpitTurn):
            pile = self.game.piles[ev.pile]
            if any(e.card == ev.card and not e.legal for e in pile.cards):
                self._queue_take_back(ev.player, ev.pile, ev.card, replace=True)

    # ------------------------------------------------------------------ planning

    def _timing(self, player: Player, motion: float | None = None) -> tuple[float, float]:
        prof = self.profile[player]
        reaction = max(0.12, self.rng.gauss(prof.reaction, prof.reaction_spread / 2))
        start = max(self.now, self.busy_until[player] + _RETURN_S) + reaction
        move = motion if motion is not None else max(0.15, self.rng.gauss(prof.motion, 0.1))
        return round(start, 4), round(start + move, 4)

    def _queue(self, player: Player, make: Callable[[float, float], TableEvent | None],
               motion: float | None = None, replannable: bool = True,
               play: tuple[int, Card] | None = None) -> None:
        start, t = self._timing(player, motion)
        self._queue_at(player, start, t, make, replannable, play)

    def _queue_at(self, player: Player, start: float, t: float,
                  make: Callable[[float, float], TableEvent | None], replannable: bool = True,
                  play: tuple[int, Card] | None = None) -> None:
        self.queues[player].append(_Step(t, start, lambda: make(start, t), replannable, play))
        self.busy_until[player] = max(self.busy_until[player], t)

    def _queue_take_back(self, player: Player, pile: int, card: Card, replace: bool = False) -> None:
        if replace:  # keep the rest of a deliberate fault, drop ordinary plans
            kept = [step for step in self.queues[player] if not step.replannable]
            self.queues[player] = deque(kept)
        def make(s: float, t: float) -> TableEvent | None:
            if all(e.card != card for e in self.game.piles[pile].cards):
                return None  # the pile was taken with the card on it
            return TakeBack(t=t, start=s, player=player, pile=pile, card=card,
                            hand=self.profile[player].hand)

        self._queue(player, make, motion=0.4, replannable=False)

    def _plan(self, p: Player) -> None:
        game = self.game
        side = game.sides[p]
        hand = self.profile[p].hand
        inject = self.rng.random() < self.config.fault_rate
        if game.phase is Phase.DEALING:
            if not side.dealt:
                self._queue(p, lambda s, t: Deal(t=t, player=p), motion=1.0, replannable=False)
            elif game.turnable_slots(p):
                self._plan_turn(p)
            return
        if game.phase is Phase.ROUND_OVER:
            self._plan_round_over(p, inject)
            return
        if game.turnable_slots(p):
            self._plan_turn(p)
            return
        if game.phase is Phase.SPIT:
            if p in game.spit_needed():
                self._plan_spit(p, inject)
            elif inject and p in game.spit_turned:
                self._inject_early(p, hand)
            return
        # Playing.
        if game.is_blocked():
            if side.packet > 0:
                self._plan_spit(p, inject)
            return
        plays = game.legal_plays(p)
        if inject and self._inject(p, plays):
            return
        if plays:
            choice = self.rng.choice(plays)
            self._queue(p, self._play_maker(p, choice.slot, choice.pile, choice.card, hand),
                        play=(choice.pile, choice.card))
            return
        moves = game.exposing_moves(p) or game.stacking_moves(p)
        if moves:
            src, dst = moves[0]
            card = side.stock[src - 1].top
            assert card is not None
            self._queue(p, self._move_maker(p, src, dst, card, hand))
            return

    def _plan_turn(self, p: Player) -> None:
        slot = self.game.turnable_slots(p)[0]
        hand = self.profile[p].hand

        def make(s: float, t: float) -> TableEvent | None:
            if not self.game.sides[p].stock[slot - 1].turnable:
                return None
            card = self.world.down[p][slot - 1].pop()
            return Turn(t=t, start=s, player=p, slot=slot, card=card, hand=hand)

        self._queue(p, make, motion=0.25, replannable=False)

    def _spit_pile(self, p: Player) -> int:
        game = self.game
        if game.chosen_pile is not None and (game.single_pile or game.sides[p.other].packet == 0):
            return game.chosen_pile
        if game.single_pile or game.sides[p.other].packet == 0:
            return self.rng.choice((1, 2))
        return 1 if p is Player.A else 2

    def _plan_spit(self, p: Player, inject: bool) -> None:
        pile = self._spit_pile(p)
        if inject and self.game.chosen_pile is not None and pile == self.game.chosen_pile:
            pile = 3 - pile  # F_WRONG_PILE: onto the pile that was not chosen
        hand = self.profile[p].hand

        def make(s: float, t: float) -> TableEvent | None:
            if self.game.sides[p].packet == 0:
                return None
            card = self.world.packet[p].pop()
            return SpitTurn(t=t, start=s, player=p, pile=pile, card=card, hand=hand)

        self._queue(p, make, motion=0.35)

    def _plan_round_over(self, p: Player, inject: bool) -> None:
        game = self.game
        if game.allocation is None:
            if p in game.slaps:
                return
            sizes = {n: pile.size for n, pile in game.piles.items()}
            smaller = min(sizes, key=lambda n: (sizes[n], self.rng.random()))
            if game.rules.clearer_chooses and game.round_end_reason == "a":
                if p is game.clearer:
                    self._queue(p, lambda s, t: TakePile(t=t, player=p, pile=smaller), motion=0.6)
                return
            self._queue(p, lambda s, t: Slap(t=t, start=s, player=p, pile=smaller,
                                             hand=self.profile[p].hand), motion=0.3)
            return
        mine = [n for n, q in game.allocation.items() if q is p and n not in game.taken]
        theirs = [n for n, q in game.allocation.items() if q is not p and n not in game.taken]
        if inject and theirs and self.rng.random() < 0.5:
            self._queue(p, self._take_pile_maker(p, theirs[0]), motion=0.6)
            return
        if mine:
            self._queue(p, self._take_pile_maker(p, mine[0]), motion=0.6)
        elif not theirs:
            self._queue(p, lambda s, t: Deal(t=t, player=p), motion=2.0, replannable=False)

    # ------------------------------------------------------------------ actions

    def _take_pile_maker(self, p: Player, pile: int) -> Callable[[float, float], TableEvent | None]:
        def make(s: float, t: float) -> TableEvent | None:
            if pile in self.game.taken or self.game.phase is not Phase.ROUND_OVER:
                return None
            return TakePile(t=t, player=p, pile=pile)

        return make

    def _play_maker(self, p: Player, slot: int, pile: int, card: Card, hand: Hand
                    ) -> Callable[[float, float], TableEvent | None]:
        def make(s: float, t: float) -> TableEvent | None:
            if self.game.sides[p].stock[slot - 1].top != card:
                return None
            return Play(t=t, start=s, player=p, slot=slot, pile=pile, card=card, hand=hand)

        return make

    def _move_maker(self, p: Player, src: int, dst: int, card: Card, hand: Hand
                    ) -> Callable[[float, float], TableEvent | None]:
        def make(s: float, t: float) -> TableEvent | None:
            if self.game.sides[p].stock[src - 1].top != card:
                return None
            return Move(t=t, start=s, player=p, from_slot=src, to_slot=dst, card=card, hand=hand)

        return make

    def _face_up(self, p: Player) -> list[tuple[int, Card]]:
        return [(i, s.top) for i, s in enumerate(self.game.sides[p].stock, start=1) if s.top]

    def _inject_early(self, p: Player, hand: Hand) -> None:
        """F_EARLY: play before the other player has turned their spit card."""
        cards = self._face_up(p)
        if cards:
            slot, card = self.rng.choice(cards)
            self._queue(p, self._play_maker(p, slot, self.rng.choice((1, 2)), card, hand),
                        replannable=False)

    def _inject(self, p: Player, plays: list) -> bool:  # type: ignore[type-arg]
        """Plan one deliberate fault if one applies now; True when planned."""
        game, rng = self.game, self.rng
        hand = self.profile[p].hand
        other_hand = Hand.LEFT if hand is Hand.RIGHT else Hand.RIGHT
        cards = self._face_up(p)
        kinds = list(INJECTABLE)
        rng.shuffle(kinds)
        for kind in kinds:
            if kind is Fault.ILLEGAL_RANK:
                bad = [(s, c, n) for s, c in cards for n, pile in game.piles.items()
                       if pile.top and not game.fits(c, pile.top)]
                if bad:
                    slot, card, n = rng.choice(bad)
                    self._queue(p, self._play_maker(p, slot, n, card, hand), replannable=False)
                    return True
            elif kind in (Fault.TWO_CARDS, Fault.TWO_HANDS) and len(cards) >= 2:
                (s1, c1), (s2, c2) = rng.sample(cards, 2)
                pile1 = pile2 = rng.choice((1, 2))
                if kind is Fault.TWO_CARDS:  # one hand grabs neighbouring cards for one pile
                    pairs = [(a, b) for a in cards for b in cards if b[0] == a[0] + 1]
                    if pairs:
                        (s1, c1), (s2, c2) = rng.choice(pairs)
                    second_hand = hand
                else:
                    pile2 = 3 - pile1
                    second_hand = other_hand
                start, t = self._timing(p)
                self._queue_at(p, start, t, self._play_maker(p, s1, pile1, c1, hand), False)
                self._queue_at(p, start + 0.05, t + 0.15,
                               self._play_maker(p, s2, pile2, c2, second_hand), False)
                return True
            elif kind is Fault.TAKE_BACK and plays:
                choice = rng.choice(plays)
                self._queue(p, self._play_maker(p, choice.slot, choice.pile, choice.card, hand),
                            replannable=False)
                self._queue_take_back(p, choice.pile, choice.card)
                return True
            elif kind in (Fault.SIXTH_PILE, Fault.BAD_MOVE):
                singles = [(s, c) for s, c in cards if game.sides[p].stock[s - 1].size == 1]
                occupied = [s for s, st in enumerate(game.sides[p].stock[: game.rules.slots], 1)
                            if st.size]
                if not singles:
                    continue
                slot, card = rng.choice(singles)
                if kind is Fault.SIXTH_PILE:
                    target = game.extra_slot
                else:
                    targets = [s for s in occupied if s != slot and not (
                        game.rules.same_rank_stacking
                        and game.sides[p].stock[s - 1].top
                        and game.sides[p].stock[s - 1].top.rank is card.rank)]  # type: ignore[union-attr]
                    if not targets:
                        continue
                    target = rng.choice(targets)
                self._queue(p, self._move_maker(p, slot, target, card, hand), replannable=False)
                self._queue(p, self._move_maker(p, target, slot, card, hand), replannable=False)
                return True
            elif kind is Fault.EARLY_SPIT and plays and game.sides[p].packet > 0:
                restricted = game.single_pile or game.sides[p.other].packet == 0
                if restricted and game.chosen_pile is None:
                    continue
                self._plan_spit(p, inject=False)
                return True
            elif kind is Fault.EARLY_SLAP:
                self._queue(p, lambda s, t: Slap(t=t, start=s, player=p, pile=rng.choice((1, 2)),
                                                 hand=hand), motion=0.3)
                return True
            elif kind is Fault.LOST_TOUCH and self._inject_race(p, hand):
                return True
        return False

    def _inject_race(self, p: Player, hand: Hand) -> bool:
        """Race the other player's planned play to the same pile, touching just after it."""
        theirs = self.queues[p.other]
        if not theirs:
            return False
        head = theirs[0]
        if head.play is None:
            return False
        pile, their_card = head.play
        top = self.game.piles[pile].top
        fits = [(s, c) for s, c in self._face_up(p)
                if self.game.fits(c, top) and not self.game.fits(c, their_card)]
        if not fits:
            return False
        slot, card = self.rng.choice(fits)
        start = max(self.now, self.busy_until[p], head.t - 0.3)
        t = max(start + 0.1, head.t + self.rng.uniform(0.01, 0.12))
        self._queue_at(p, round(start, 4), round(t, 4),
                       self._play_maker(p, slot, pile, card, hand), False)
        return True


def selfplay_records(seed: int, games: int = 1, config: SelfPlayConfig | None = None
                     ) -> Iterator[Record]:
    """The logs of ``games`` self-played games; game i is played from seed ``seed + i``."""
    for i in range(games):
        yield from SelfPlay(seed + i, config, game_index=i).records()
