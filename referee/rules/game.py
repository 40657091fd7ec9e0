"""The rules engine: one game of Spit from the deal to the winner.

:class:`Game` consumes the table events a camera can observe (:mod:`referee.events`) and
answers each with a :class:`Judgement`: a verdict (legal, or a fault with its code and rule
id) and the calls the referee makes because of it (Spit!, round end, slap winner, piles,
game over). The state always mirrors the physical table: an illegally played card lies on
its pile, flagged, until it is taken back; later plays are judged against the legal card
beneath it.

An event that contradicts what the engine knows (a card seen twice, a play from an empty
slot, a 53rd card) raises :class:`InconsistentEvent` and leaves the state unchanged: every
handler validates before it mutates.

Pure: no I/O, no numpy, no OpenCV.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, TypeVar, cast

from referee.cards import Card, Rank
from referee.errors import InputError
from referee.events import (
    Call,
    CallKind,
    Correction,
    Deal,
    Move,
    Outcome,
    Play,
    Slap,
    SpitTurn,
    TableEvent,
    TakeBack,
    TakePile,
    Turn,
    Verdict,
)
from referee.players import PLAYERS, Player
from referee.rules.faults import Fault
from referee.rules.ruleset import RuleSet
from referee.rules.table import Origin, PileCard, Side, SpitPile, StockPile

_T = TypeVar("_T")
#: _ADJACENT[a][b]: ranks a and b are one apart on the circle (D2), as a table for speed.
_ADJACENT = [[False] * 14] + [[False] + [a.adjacent(b) for b in Rank] for a in Rank]

DECK_SIZE = 52
HALF_DECK = 26  # S1
PILES = (1, 2)


class InconsistentEvent(InputError):
    """An event that cannot have happened given what the engine already knows."""


class Phase(StrEnum):
    DEALING = "dealing"  # waiting for both layouts (S2)
    SPIT = "spit"  # waiting for spit cards to be turned (P1, P9)
    PLAYING = "playing"
    ROUND_OVER = "round_over"  # slaps, pile taking, then the next deal (E1-E4)
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class LegalPlay:
    """A play the rules allow now: ``player`` may move ``card`` from ``slot`` onto ``pile``."""

    player: Player
    slot: int
    pile: int
    card: Card


@dataclass(frozen=True)
class GameOutcome:
    """How a game ended; ``winner`` is None for a draw (V6 tie)."""

    winner: Player | None
    reason: str


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class _Action:
    start: float
    t: float
    hand: str | None
    pile: int | None = None  # a play's spit pile


@dataclass(frozen=True)
class _LastPlay:
    player: Player
    t: float
    below: Card | None  # the legal top the card was played on


class Game:
    """The state of one game and the judge of every event.

    >>> game = Game()
    >>> game.phase
    <Phase.DEALING: 'dealing'>
    >>> game.sides[Player.A].packet
    26
    """

    def __init__(self, rules: RuleSet | None = None) -> None:
        self.rules = rules or RuleSet()
        self.round = 1
        self.phase = Phase.DEALING
        self.sides: dict[Player, Side] = {p: Side(p, self._empty_stock(), HALF_DECK) for p in Player}
        self.piles: dict[int, SpitPile] = {n: SpitPile() for n in PILES}
        self.outcome: GameOutcome | None = None
        self.events_judged = 0
        # Round state.
        self.single_pile = False  # G1: a player started the round without spit cards
        self.short_players: frozenset[Player] = frozenset()
        self.chosen_pile: int | None = None  # P10 / G1
        self.spit_turned: set[Player] = set()
        self.round_end_reason: str | None = None  # "a" or "b" (E1)
        self.clearer: Player | None = None
        self.slaps: dict[Player, int] = {}
        self.allocation: dict[int, Player] | None = None  # pile -> who takes it
        self.taken: set[int] = set()
        # Knowledge of card identities.
        self._visible: dict[Card, str] = {}
        self._hidden_known: dict[Card, Player] = {}
        self._last_action: dict[Player, _Action] = {}
        self._last_play: dict[int, _LastPlay] = {}
        self._spit_called = False
        self._version = 0  # counts changes of state, for cached queries
        self._cache: dict[object, tuple[int, object]] = {}

    # ------------------------------------------------------------------ queries

    def _empty_stock(self) -> list[StockPile]:
        return [StockPile() for _ in range(self.rules.slots + 1)]

    @property
    def extra_slot(self) -> int:
        """The slot number that stands for 'outside the stock slots' (a sixth pile)."""
        return self.rules.slots + 1

    def card_count(self) -> int:
        """Every card on the table and in hand; 52 at every moment of a consistent game."""
        return sum(s.total for s in self.sides.values()) + sum(p.size for p in self.piles.values())

    def known_cards(self) -> dict[Card, str]:
        """Every card whose place the engine knows, with that place."""
        known = dict(self._visible)
        known.update({c: f"{p}'s face-down cards" for c, p in self._hidden_known.items()})
        return known

    def defects(self) -> list[str]:
        """Every inconsistency in the state (empty for a sound game), like a status check."""
        found: list[str] = []
        if (n := self.card_count()) != DECK_SIZE:
            found.append(f"{n} cards on the table, not {DECK_SIZE}")
        face_up = [c for s in self.sides.values() for p in s.stock for c in p.up]
        face_up += [e.card for p in self.piles.values() for e in p.cards]
        if len(face_up) != len(set(face_up)):
            found.append("a card lies face up in two places")
        if set(face_up) != set(self._visible):
            found.append("the engine's list of face-up cards does not match the table")
        if set(self._hidden_known) & set(self._visible):
            found.append("a card is both face up and face down")
        for player, side in self.sides.items():
            known = sum(1 for p in self._hidden_known.values() if p is player)
            if known > side.face_down:
                found.append(f"{player} has {known} known face-down cards but only {side.face_down}")
            if side.packet < 0 or any(p.down < 0 for p in side.stock):
                found.append(f"{player} has a negative card count")
        return found

    def pile_sizes(self) -> dict[str, int]:
        """The size of every pile and packet on the table, by name."""
        sizes: dict[str, int] = {}
        for player, side in self.sides.items():
            for i, pile in enumerate(side.stock[: self.rules.slots], start=1):
                sizes[f"{player}.stock{i}"] = pile.size
            if side.stock[-1].size:
                sizes[f"{player}.extra"] = side.stock[-1].size
            sizes[f"{player}.packet"] = side.packet
        for n, spit_pile in self.piles.items():
            sizes[f"pile{n}"] = spit_pile.size
        return sizes

    def face_up_tops(self) -> dict[str, Card]:
        """The face-up card on top of each stock pile and spit pile, by name (as
        :meth:`pile_sizes`): what a camera should see there. A spit pile's is the card last put
        on it, legal or not (:attr:`SpitPile.top` is the legal one, against which plays are judged)."""
        tops: dict[str, Card] = {}
        for player, side in self.sides.items():
            for i, pile in enumerate(side.stock[: self.rules.slots], start=1):
                if pile.top is not None:
                    tops[f"{player}.stock{i}"] = pile.top
        for n, spit_pile in self.piles.items():
            if spit_pile.cards:
                tops[f"pile{n}"] = spit_pile.cards[-1].card
        return tops

    def fits(self, card: Card, top: Card | None) -> bool:
        """True when ``card`` may be played on a spit pile whose legal top is ``top`` (D2, V3)."""
        if top is None or not _ADJACENT[card.rank][top.rank]:
            return False
        return not (self.rules.alternating_colours and card.colour is top.colour)

    def legal_plays(self, player: Player | None = None) -> list[LegalPlay]:
        """Plays from stock onto a spit pile that the rules allow now (P3)."""
        plays = self._cached("plays", self._all_legal_plays)
        return [p for p in plays if p.player is player] if player else list(plays)

    def _cached(self, name: object, compute: Callable[[], _T]) -> _T:
        """A query's answer, computed once per state (the state changes only in apply)."""
        hit = self._cache.get(name)
        if hit is not None and hit[0] == self._version:
            return cast(_T, hit[1])
        value = compute()
        self._cache[name] = (self._version, value)
        return value

    def _all_legal_plays(self) -> tuple[LegalPlay, ...]:
        if self.phase is not Phase.PLAYING:
            return ()
        tops = [(n, pile.top) for n, pile in self.piles.items()]
        return tuple(
            LegalPlay(p, slot, n, stock.up[-1])
            for p in PLAYERS
            for slot, stock in enumerate(self.sides[p].stock, start=1)
            if stock.up
            for n, top in tops
            if self.fits(stock.up[-1], top)
        )

    def turnable_slots(self, player: Player) -> list[int]:
        """Slots whose top card is face down (P4)."""
        return list(self._cached(("turnable", player), lambda: tuple(
            i for i, s in enumerate(self.sides[player].stock, start=1) if not s.up and s.down)))

    def exposing_moves(self, player: Player) -> list[tuple[int, int]]:
        """Moves into an empty slot that uncover a card beneath (P5), as (from, to)."""
        return list(self._cached(("exposing", player), lambda: tuple(self._exposing_moves(player))))

    def _exposing_moves(self, player: Player) -> list[tuple[int, int]]:
        stock = self.sides[player].stock
        empty = [i for i, s in enumerate(stock[: self.rules.slots], start=1) if s.size == 0]
        if not empty:
            return []
        return [(i, empty[0]) for i, s in enumerate(stock, start=1) if len(s.up) == 1 and s.down]

    def can_progress(self, player: Player) -> bool:
        """True when the player can still do something useful from their stock: turn a card,
        uncover one by moving into an empty slot (or, with V2, onto a card of the same rank),
        or play (checked without listing them)."""
        if self.turnable_slots(player) or self.exposing_moves(player) or self.stacking_moves(player):
            return True
        tops = [p.top for p in self.piles.values()]
        return any(self.fits(s.up[-1], top) for s in self.sides[player].stock if s.up for top in tops)

    def stacking_moves(self, player: Player) -> list[tuple[int, int]]:
        """With V2, moves of a face-up top card lying on face-down cards onto another top card
        of the same rank (uncovering a card), as (from, to); none without V2."""
        if not self.rules.same_rank_stacking:
            return []
        stock = self.sides[player].stock
        return [
            (i, j)
            for i, s in enumerate(stock, start=1) if len(s.up) == 1 and s.down
            for j, t in enumerate(stock[: self.rules.slots], start=1)
            if j != i and t.up and t.up[-1].rank is s.up[-1].rank
        ]

    def is_blocked(self) -> bool:
        """True in play when neither player can play, turn or uncover a card (P9, E1 b)."""
        return self._cached(
            "blocked",
            lambda: self.phase is Phase.PLAYING and not any(self.can_progress(p) for p in PLAYERS),
        )

    def spit_needed(self) -> set[Player]:
        """Players who still have to turn a spit card before play may (re)start."""
        return {p for p in PLAYERS if p not in self.spit_turned and self.sides[p].packet > 0}

    # ------------------------------------------------------------------ judging

    def apply(self, event: TableEvent) -> Judgement:
        """Judge one event and update the state. Raises InconsistentEvent (state unchanged)."""
        where = f"event {self.events_judged} ({event.kind} by {event.player} at t={event.t:.3f})"
        if self.phase is Phase.GAME_OVER:
            raise InconsistentEvent("the game is already over", where)
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise InconsistentEvent(f"not a table event: {type(event).__name__}", where)
        calls: list[Call] = []
        fault, message = handler(self, event, calls, where)
        self._version += 1
        if self.phase is Phase.PLAYING:
            self._check_blocked(event, calls)
        if fault is None:
            outcome, code, rule = Outcome.LEGAL, None, None
        else:
            outcome = Outcome.WARNING if fault.is_warning else Outcome.FAULT
            code, rule = fault.code, fault.rule
        verdict = Verdict(
            t=event.t,
            frame=event.frame,
            event=self.events_judged,
            player=event.player,
            outcome=outcome,
            code=code,
            rule=rule,
            message=message,
        )
        self.events_judged += 1
        return Judgement(verdict, tuple(calls))

    # Each handler validates first (raising InconsistentEvent), then mutates, and returns
    # (fault or None, message).

    def _deal(self, ev: Deal, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        if self.phase is Phase.ROUND_OVER:
            if self.allocation is None:
                raise InconsistentEvent("deal before the spit piles were allocated", where)
            self._start_next_round()
        elif self.phase is not Phase.DEALING:
            raise InconsistentEvent(f"deal during {self.phase.value}", where)
        side = self.sides[ev.player]
        if side.dealt:
            raise InconsistentEvent(f"{ev.player} has already dealt this round", where)
        remaining = side.packet
        for stock, size in zip(side.stock, self.rules.slot_sizes, strict=False):
            stock.down = min(size, remaining)
            remaining -= stock.down
        side.packet = remaining
        side.packet_known.clear()
        side.dealt = True
        if all(s.dealt for s in self.sides.values()):
            self.short_players = frozenset(p for p, s in self.sides.items() if s.packet == 0)
            self.single_pile = bool(self.short_players)
            self.phase = Phase.SPIT
            if not self.spit_needed():  # spit cards were turned while the other still dealt
                self._start_play()
        return None, f"{ev.player} laid out {side.stock_cards} stock cards, {side.packet} spit cards"

    def _turn(self, ev: Turn, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        stock = self._stock(ev.player, ev.slot, where)
        if not stock.turnable:
            raise InconsistentEvent(f"{ev.player}'s slot {ev.slot} has no face-down top card", where)
        self._check_reveal(ev.player, ev.card, where)
        fault = self._check_hands(ev)
        stock.down -= 1
        stock.up.append(ev.card)
        self._reveal(ev.card, f"{ev.player}.stock{ev.slot}")
        return fault, f"{ev.player} turned {ev.card} in slot {ev.slot}"

    def _spit(self, ev: SpitTurn, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        side = self.sides[ev.player]
        pile = self._pile(ev.pile, where)
        if not side.dealt:
            raise InconsistentEvent(f"{ev.player} turned a spit card before laying out", where)
        if side.packet == 0:
            raise InconsistentEvent(f"{ev.player} has no spit cards left", where)
        if side.packet_known and side.packet_known[-1] != ev.card:
            raise InconsistentEvent(
                f"{ev.player}'s top spit card is {side.packet_known[-1]}, not {ev.card}", where
            )
        self._check_reveal(ev.player, ev.card, where)
        hands = self._check_hands(ev)
        restricted = self.single_pile or self.sides[ev.player.other].packet == 0
        fault: Fault | None = None
        message = f"{ev.player} turned spit card {ev.card} onto pile {ev.pile}"
        if restricted and self.chosen_pile is not None and ev.pile != self.chosen_pile:
            fault, message = Fault.WRONG_PILE, f"{message}, but pile {self.chosen_pile} was chosen"
        elif self.phase is Phase.ROUND_OVER:
            fault, message = Fault.ROUND_OVER, f"{message} after the round ended"
        elif self.phase in (Phase.DEALING, Phase.SPIT) and ev.player in self.spit_turned:
            fault, message = Fault.EARLY, f"{message}: a second spit card before the other player"
        elif self.phase is Phase.PLAYING and not self.is_blocked():
            fault, message = Fault.EARLY_SPIT, f"{message} while a legal play existed"
        fault = fault or hands
        legal = fault is None or fault.is_warning
        # Mutate.
        if side.packet_known:
            side.packet_known.pop()
        side.packet -= 1
        pile.cards.append(PileCard(ev.card, ev.player, Origin.PACKET, None, legal, ev.t))
        self._reveal(ev.card, f"pile{ev.pile}")
        if not legal:
            return fault, message
        if restricted and self.chosen_pile is None:
            self.chosen_pile = ev.pile
        if self.phase is Phase.PLAYING and fault is None:  # a stalemate re-spit (P9)
            self.spit_turned = set()
            self.phase = Phase.SPIT
        if self.phase in (Phase.DEALING, Phase.SPIT):
            self.spit_turned.add(ev.player)
            if self.phase is Phase.SPIT and not self.spit_needed():
                self._start_play()
        return fault, message

    def _play(self, ev: Play, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        stock = self._stock(ev.player, ev.slot, where)
        pile = self._pile(ev.pile, where)
        self._check_top(ev.player, ev.slot, stock, ev.card, where)
        top = pile.top
        message = f"{ev.player} played {ev.card} from slot {ev.slot} onto pile {ev.pile}"
        message += f" ({top})" if top else " (empty)"
        fault: Fault | None
        if self.phase is Phase.ROUND_OVER:
            fault = Fault.ROUND_OVER
        elif self.phase in (Phase.DEALING, Phase.SPIT):
            fault = Fault.EARLY
        else:
            fault = self._check_hands(ev)
            if fault is None and not self.fits(ev.card, top):
                fault = Fault.LOST_TOUCH if self._lost_race(ev) else Fault.ILLEGAL_RANK
        stock.up.pop()
        legal = fault is None
        pile.cards.append(PileCard(ev.card, ev.player, Origin.STOCK, ev.slot, legal, ev.t))
        self._visible[ev.card] = f"pile{ev.pile}"
        if fault is not None:
            return fault, f"{message}: {fault.description}"
        self._last_play[ev.pile] = _LastPlay(ev.player, ev.t, top)
        if self.sides[ev.player].stock_cards == 0:
            self._end_round("a", ev, calls, clearer=ev.player)
        return None, message

    def _move(self, ev: Move, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        source = self._stock(ev.player, ev.from_slot, where)
        target = self._stock(ev.player, ev.to_slot, where)
        if ev.from_slot == ev.to_slot:
            raise InconsistentEvent(f"a move from slot {ev.from_slot} to itself", where)
        self._check_top(ev.player, ev.from_slot, source, ev.card, where)
        message = f"{ev.player} moved {ev.card} from slot {ev.from_slot} to slot {ev.to_slot}"
        fault = self._check_hands(ev)
        if ev.to_slot == self.extra_slot:
            fault = Fault.SIXTH_PILE
            message = f"{ev.player} put {ev.card} outside the {self.rules.slots} stock slots"
        elif target.size and not (
            self.rules.same_rank_stacking and target.top and target.top.rank is ev.card.rank
        ):
            fault = Fault.BAD_MOVE
        source.up.pop()
        target.up.append(ev.card)
        self._visible[ev.card] = f"{ev.player}.stock{ev.to_slot}"
        return fault, message if fault is None else f"{message}: {fault.description}"

    def _correct(self, ev: Correction, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        """The referee's correction of its own reading of a stock slot or of a spit card on top
        of a pile: never a fault, and not a player's action (P6 does not see it)."""
        if ev.slot is None:
            return self._correct_spit_card(ev, where)
        stock = self._stock(ev.player, ev.slot, where)
        if ev.slot == self.extra_slot:
            raise InconsistentEvent("a correction names a slot outside the stock slots", where)
        self._check_top(ev.player, ev.slot, stock, ev.was, where)
        self._check_corrected_card(ev, where)
        stock.up[-1] = ev.card
        del self._visible[ev.was]
        self._reveal(ev.card, f"{ev.player}.stock{ev.slot}")
        return None, f"{ev.player}'s slot {ev.slot} shows {ev.card}: it was read as {ev.was}"

    def _check_corrected_card(self, ev: Correction, where: str) -> None:
        """A correction's new card must be nowhere the engine knows: not face up, and not
        among the other player's face-down cards."""
        if ev.card in self._visible:
            raise InconsistentEvent(f"{ev.card} is already face up at {self._visible[ev.card]}", where)
        owner = self._hidden_known.get(ev.card)
        if owner is not None and owner is not ev.player:
            raise InconsistentEvent(f"{ev.card} is among {owner}'s face-down cards", where)

    def _correct_spit_card(self, ev: Correction, where: str) -> tuple[Fault | None, str]:
        """A correction of ``ev.player``'s spit card ``ev.was`` in pile ``ev.pile`` (turned
        there from their packet: its face seen nowhere else) to ``ev.card``, no card known
        elsewhere: the pile's top, or (since stop 55) a card beneath it when the two are of one
        rank (the verdicts judged on it stand)."""
        assert ev.pile is not None
        pile = self._pile(ev.pile, where)
        index = next((i for i in range(pile.size - 1, -1, -1) if pile.cards[i].card == ev.was), None)
        entry = pile.cards[index] if index is not None else None
        if index is None or entry is None or entry.origin is not Origin.PACKET \
                or entry.player is not ev.player:
            raise InconsistentEvent(f"there is not {ev.player}'s spit card {ev.was} on pile {ev.pile}", where)
        if index != pile.size - 1 and ev.card.rank is not ev.was.rank:
            raise InconsistentEvent(f"{ev.was} lies beneath pile {ev.pile}'s top: only a card of its rank "
                                    "can be read for it", where)
        self._check_corrected_card(ev, where)
        pile.cards[index] = replace(entry, card=ev.card)
        del self._visible[ev.was]
        self._reveal(ev.card, f"pile{ev.pile}")
        return None, f"{ev.player}'s spit card on pile {ev.pile} is {ev.card}: it was read as {ev.was}"

    def _take_back(self, ev: TakeBack, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        pile = self._pile(ev.pile, where)
        index = next((i for i in range(pile.size - 1, -1, -1) if pile.cards[i].card == ev.card), None)
        if index is None:
            raise InconsistentEvent(f"{ev.card} is not on pile {ev.pile}", where)
        entry = pile.cards[index]
        owner = self.sides[entry.player]
        del pile.cards[index]
        if entry.origin is Origin.STOCK:
            assert entry.slot is not None
            owner.stock[entry.slot - 1].up.append(entry.card)
            self._visible[entry.card] = f"{entry.player}.stock{entry.slot}"
            back_to = f"slot {entry.slot}"
        else:
            owner.packet += 1
            owner.packet_known.append(entry.card)
            del self._visible[entry.card]
            self._hidden_known[entry.card] = entry.player
            back_to = "the spit packet"
        self._last_play.pop(ev.pile, None)
        message = f"{ev.player} took {ev.card} back from pile {ev.pile} to {back_to}"
        if entry.legal:
            return Fault.TAKE_BACK, f"{message}: it had been played"
        return None, f"{message}, as required"

    def _slap(self, ev: Slap, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        self._pile(ev.pile, where)
        message = f"{ev.player} slapped pile {ev.pile}"
        if self.phase is not Phase.ROUND_OVER:
            return Fault.EARLY_SLAP, f"{message} before the round ended"
        if self.allocation is not None or ev.player in self.slaps:
            return None, f"{message} (no slap needed)"
        if self.rules.clearer_chooses and self.round_end_reason == "a":
            if ev.player is self.clearer:
                self._allocate({ev.pile: ev.player, _other(ev.pile): ev.player.other}, ev, calls)
            return None, message
        self.slaps[ev.player] = ev.pile
        if len(self.slaps) == 2:
            first, second = self.slaps  # dicts keep insertion order: the first slap first
            if self.slaps[first] == self.slaps[second]:
                pile_n = self.slaps[first]
                calls.append(_call(ev, CallKind.SLAP_WINNER, first, pile_n,
                                   f"{first}'s hand was underneath on pile {pile_n}"))
                self._allocate({pile_n: first, _other(pile_n): second}, ev, calls)
            else:
                self._allocate({self.slaps[first]: first, self.slaps[second]: second}, ev, calls)
        return None, message

    def _take_pile(self, ev: TakePile, calls: list[Call], where: str) -> tuple[Fault | None, str]:
        pile = self._pile(ev.pile, where)
        message = f"{ev.player} took pile {ev.pile} ({pile.size} cards)"
        if self.phase is not Phase.ROUND_OVER:
            return Fault.WRONG_TAKE, f"{message} before the round ended"
        if ev.pile in self.taken:
            raise InconsistentEvent(f"pile {ev.pile} was already taken", where)
        if self.allocation is None and self.rules.clearer_chooses and ev.player is self.clearer:
            self._allocate({ev.pile: ev.player, _other(ev.pile): ev.player.other}, ev, calls)
        if self.allocation is None:
            return Fault.WRONG_TAKE, f"{message} before the piles were allocated"
        if self.allocation.get(ev.pile) is not ev.player:
            return Fault.WRONG_TAKE, f"{message}, but it is not theirs"
        self._collect_pile(ev.pile, ev.player)
        return None, message

    # ------------------------------------------------------------------ helpers

    def _stock(self, player: Player, slot: int, where: str) -> StockPile:
        if not isinstance(slot, int) or not 1 <= slot <= self.extra_slot:
            raise InconsistentEvent(
                f"slot {slot!r} out of range 1-{self.rules.slots} (or {self.extra_slot}: "
                "outside the slots)",
                where,
            )
        return self.sides[player].stock[slot - 1]

    def _pile(self, n: int, where: str) -> SpitPile:
        if n not in self.piles:
            raise InconsistentEvent(f"spit pile {n!r} does not exist (1 or 2)", where)
        return self.piles[n]

    def _check_top(self, player: Player, slot: int, stock: StockPile, card: Card, where: str) -> None:
        if stock.size == 0:
            raise InconsistentEvent(f"{player}'s slot {slot} is empty", where)
        if stock.top is None:
            raise InconsistentEvent(f"{player}'s slot {slot} has no face-up card", where)
        if stock.top != card:
            raise InconsistentEvent(
                f"{player}'s slot {slot} shows {stock.top}, not {card}", where
            )

    def _check_reveal(self, player: Player, card: Card, where: str) -> None:
        if card in self._visible:
            raise InconsistentEvent(f"{card} is already face up at {self._visible[card]}", where)
        owner = self._hidden_known.get(card)
        if owner is not None and owner is not player:
            raise InconsistentEvent(f"{card} is among {owner}'s face-down cards", where)
        if owner is None:
            known = sum(1 for p in self._hidden_known.values() if p is player)
            if self.sides[player].face_down - known <= 0:
                raise InconsistentEvent(
                    f"{card} cannot be {player}'s: all their face-down cards are known", where
                )

    def _reveal(self, card: Card, place: str) -> None:
        self._hidden_known.pop(card, None)
        self._visible[card] = place

    def _check_hands(self, ev: TableEvent) -> Fault | None:
        """P6: an action that began before the same player's previous one ended."""
        previous = self._last_action.get(ev.player)
        start = ev.start if ev.start is not None else ev.t
        pile = ev.pile if isinstance(ev, Play) else None
        self._last_action[ev.player] = _Action(start, ev.t, ev.hand, pile)
        if previous is None or ev.start is None or start >= previous.t:
            return None
        if start < previous.start and ev.t <= previous.t:
            # told after an action it began before (a referee judges each pile when it settles):
            # that one began while this one was under way, so the fault, if any, was that one's
            self._last_action[ev.player] = previous
            return None
        if ev.hand is not None and previous.hand is not None:
            two_hands = ev.hand != previous.hand
        else:  # a hand not seen: two plays that overlap onto the two spit piles took two hands
            two_hands = pile is not None and previous.pile is not None and pile != previous.pile
        if two_hands:
            return None if self.rules.two_hands else Fault.TWO_HANDS
        return Fault.TWO_CARDS

    def _lost_race(self, ev: Play) -> bool:
        """P8: the card would have fitted before the other player's card touched first."""
        last = self._last_play.get(ev.pile)
        if last is None or last.player is ev.player or not self.fits(ev.card, last.below):
            return False
        if ev.start is not None:
            return ev.start < last.t
        return ev.t - last.t <= self.rules.race_window_s

    def _start_play(self) -> None:
        self.phase = Phase.PLAYING
        self.spit_turned = set()
        self._spit_called = False

    def _check_blocked(self, ev: TableEvent, calls: list[Call]) -> None:
        if not self.is_blocked():
            self._spit_called = False
            return
        if any(s.packet > 0 for s in self.sides.values()):
            if not self._spit_called:
                self._spit_called = True
                calls.append(_call(ev, CallKind.SPIT, None, None, "Spit! Play is blocked"))
        else:
            self._end_round("b", ev, calls, clearer=None)

    def _end_round(self, reason: str, ev: TableEvent, calls: list[Call], clearer: Player | None) -> None:
        self.phase = Phase.ROUND_OVER
        self.round_end_reason = reason
        self.clearer = clearer
        text = f"{clearer} played every stock card" if clearer else "play is blocked for good"
        calls.append(_call(ev, CallKind.ROUND_END, clearer, None, f"round {self.round} over: {text}"))
        nonempty = [n for n, p in self.piles.items() if p.size]
        if self.single_pile:
            taker = self._single_pile_taker(reason, clearer)
            if taker is None:  # G2: the player without spit cards cleared their stock
                assert clearer is not None
                self._finish(ev, calls, clearer, "cleared the stock without spit cards (G2)")
                return
            self._allocate({n: taker for n in nonempty}, ev, calls)
            return
        if reason == "a" or self.rules.slap_race_on_block:
            return  # E2 slap race or V5 choice: wait for the players
        a, b = (self.sides[p].stock_cards for p in Player)
        if a == b:
            return  # E3 cannot tell: slap race
        fewer = Player.A if a < b else Player.B
        smaller, larger = sorted(PILES, key=lambda n: (self.piles[n].size, n))
        self._allocate({smaller: fewer, larger: fewer.other}, ev, calls)

    def _single_pile_taker(self, reason: str, clearer: Player | None) -> Player | None:
        short = next(iter(self.short_players))
        if reason == "a":
            return None if clearer is short else short
        a, b = (self.sides[p].stock_cards for p in Player)
        if a == b:
            return short
        return Player.A if a > b else Player.B  # the fewer-stock player takes nothing

    def _allocate(self, allocation: dict[int, Player], ev: TableEvent, calls: list[Call]) -> None:
        self.allocation = {n: p for n, p in allocation.items() if self.piles[n].size}
        parts = [f"{p} takes pile {n} ({self.piles[n].size})" for n, p in sorted(self.allocation.items())]
        calls.append(_call(ev, CallKind.PILES, None, None, "; ".join(parts) or "no piles to take"))
        totals = {p: s.total for p, s in self.sides.items()}
        for n, p in self.allocation.items():
            totals[p] += self.piles[n].size
        for p, total in totals.items():
            if total == 0:
                self._finish(ev, calls, p, "got rid of all their cards (G3)")
                return
        if self.rules.points:
            for p, total in totals.items():
                self.sides[p].score += total
            scores = {p: s.score for p, s in self.sides.items()}
            if max(scores.values()) >= self.rules.points_limit:
                a, b = scores[Player.A], scores[Player.B]
                winner = None if a == b else (Player.A if a < b else Player.B)
                self._finish(ev, calls, winner, f"points {a}-{b} (V6)")

    def _collect_pile(self, n: int, player: Player) -> None:
        pile = self.piles[n]
        for entry in pile.cards:
            self._visible.pop(entry.card, None)
            self._hidden_known[entry.card] = player
        self.sides[player].packet += pile.size
        pile.cards.clear()
        self.taken.add(n)

    def _start_next_round(self) -> None:
        assert self.allocation is not None
        for n, p in self.allocation.items():
            if n not in self.taken:
                self._collect_pile(n, p)
        for player, side in self.sides.items():
            for stock in side.stock:
                for card in stock.up:
                    self._visible.pop(card, None)
                    self._hidden_known[card] = player
                side.packet += stock.size
            side.stock = self._empty_stock()
            side.packet_known.clear()
            side.dealt = False
        self.round += 1
        self.phase = Phase.DEALING
        self.single_pile = False
        self.short_players = frozenset()
        self.chosen_pile = None
        self.spit_turned = set()
        self.round_end_reason = None
        self.clearer = None
        self.slaps = {}
        self.allocation = None
        self.taken = set()
        self._last_action.clear()
        self._last_play.clear()

    def _finish(self, ev: TableEvent, calls: list[Call], winner: Player | None, why: str) -> None:
        self.phase = Phase.GAME_OVER
        self.outcome = GameOutcome(winner, why)
        text = f"{winner} wins: {why}" if winner else f"a draw: {why}"
        calls.append(_call(ev, CallKind.GAME_OVER, winner, None, text))


def _other(pile: int) -> int:
    return 3 - pile


def _call(ev: TableEvent, kind: CallKind, player: Player | None, pile: int | None, message: str) -> Call:
    return Call(t=ev.t, frame=ev.frame, call=kind, player=player, pile=pile, message=message)


_Handler = Callable[[Game, Any, list[Call], str], tuple[Fault | None, str]]
_HANDLERS: dict[type[TableEvent], _Handler] = {
    Deal: Game._deal,
    Turn: Game._turn,
    SpitTurn: Game._spit,
    Play: Game._play,
    Move: Game._move,
    TakeBack: Game._take_back,
    Slap: Game._slap,
    TakePile: Game._take_pile,
    Correction: Game._correct,
}
