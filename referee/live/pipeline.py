"""The referee at work: frames in, table events, verdicts and calls out (docs/pipeline.md).

    referee = Referee(calibration, ModelReader(Recognizer.load(), calibration), board=board)
    for frame in source:
        step = referee.step(frame)          # StepResult: tracked zones, events, verdicts, calls
    records = referee.finish()

Per frame: tracking (:class:`ZoneTracker`, one remap) -> for the zones that settled with new
content, recognition of just those zones in one batch -> observation (:class:`Observer`) ->
arbitration of the observer's plays, moves and slaps (:class:`~referee.live.arbitrate.Arbiter`:
touch times from the cards' carries, first-touch and first-slap calls, from a bounded history
of the tracker's views) -> the rules engine (:class:`referee.rules.Game`), in time order ->
board signals and records. Nothing here waits on the board (its ``signal`` returns at once) or
on disk. A camera knocked out of place is noticed by the drift check, run every
``drift_every`` frames (:class:`DriftMonitor`): a nudge is followed (the arbiter's kept views
start again), a move is reported (and the zones are not trusted until recalibrated).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Protocol

import numpy as np

from referee.board import Board, Signal
from referee.cards import Card
from referee.errors import InputError
from referee.events import (
    Call,
    CallKind,
    Correction,
    GameStart,
    Move,
    Outcome,
    Play,
    Record,
    SpitTurn,
    TableEvent,
    TakeBack,
    Turn,
    Verdict,
)
from referee.live.arbitrate import Arbiter, ArbiterSettings, Arbitrated, Landing
from referee.live.source import Frame
from referee.players import Player
from referee.rules import Game, InconsistentEvent, RuleSet
from referee.rules.game import Judgement, Phase
from referee.rules.hindsight import FOUND_BENEATH, HINDSIGHT_S, REFUSED_UNTIL, Hindsight
from referee.rules.table import Origin
from referee.vision.calibration import Calibration
from referee.vision.drift import DriftMonitor, DriftState, DriftStatus
from referee.vision.mat import ZoneKind
from referee.vision.observation import Observer, ZoneReading
from referee.vision.recognize import CODES
from referee.vision.tracking import TrackedFrame, TrackerPictures, ZoneTracker
from referee.vision.zonecrops import ZoneCropper

log = logging.getLogger(__name__)

DRIFT_EVERY = 30
DRIFT_STILL_PX = 3.0


class ZoneRead(NamedTuple):
    """One zone's reading: its label and how surely it was read, and for a card identity the
    identity read next most surely (a reader may give only the first two)."""

    label: str
    confidence: float
    runner_up: str | None = None
    runner_up_confidence: float = 0.0


class ZoneReader(Protocol):
    """Recognition as the pipeline uses it: what lies on top of these zones in this frame."""

    def read(self, image: np.ndarray, frame: int, zones: Sequence[str]
             ) -> Sequence[tuple[str, float] | ZoneRead]: ...


#: A card identity read less surely than this is given to the observer as ``card`` (face up,
#: not read), with the identity as its guess: the observer reads the zone again rather than act
#: on it at once (on the classifier's validation crops, its identities at probability >= 0.5
#: were right 91 % of the time, at >= 0.9 99.7 %).
MIN_IDENTITY_CONFIDENCE = 0.5
#: A play off in rank is called only when its card was read at least this surely, in its slot
#: or on the pile, or its runner-up identity would not fit either (Referee._doubtful_rank)
DOUBTFUL_RANK = 0.93
#: ... and only when the pile reading's runner-up was read at least this share as surely as the
#: card (stop 23, 1280x720: of five plays made their runner-up, all wrong, four had runner-ups at
#: 0.001-0.31 of the card's 0.74-0.89; three of those five were true faults, one then taken back
#: as a false F_TAKE_BACK)
DOUBTFUL_RUNNER_UP_SHARE = 0.5
#: labels that are not a card's identity
NOT_IDENTITIES = frozenset({"back", "empty", "card", "hand"})


def _carried_reading(reading: ZoneReading, landing: Landing) -> ZoneReading:
    """A pile that settled by a carried landing, under the hand: what recognition read there
    when it read a card surely, else the carried card (its face read in its slot, matched on
    the pile with ``landing.score``, which becomes the reading's confidence)."""
    if reading.label not in NOT_IDENTITIES:
        return reading
    return replace(reading, label=landing.label, confidence=landing.score, guess=None, runner_up=None,
                   runner_up_confidence=0.0)


def _under_the_read_top(tracked: TrackedFrame, landing: Landing, reading: ZoneReading) -> TrackedFrame:
    """``tracked`` with the carried card among the cards beneath its pile's top when
    recognition reads another card surely on top: the follow found the carried card lying
    still there, under the card a hand put on it since (game 5154 at 1280x720, both
    recognitions: B's 10C, followed to rest on pile 2 under the 10H the same hand put on it,
    was lost, and with it the F_TWO_CARDS)."""
    if reading.label in NOT_IDENTITIES or reading.label == landing.label:
        return tracked
    changes = tuple(replace(c, beneath=c.beneath | {landing.label}) if c.zone == landing.zone and c.carried
                    else c for c in tracked.changes)
    return replace(tracked, changes=changes)


def _with_landing(tracked: TrackedFrame, landing: Landing) -> TrackedFrame:
    """``tracked`` with what the follows found of the other cards (beneath the landed card, or
    elsewhere) on the change of the landing's pile."""
    changes = tuple(replace(c, beneath=c.beneath | landing.beneath, elsewhere=c.elsewhere | landing.elsewhere)
                    if c.zone == landing.zone else c for c in tracked.changes)
    return replace(tracked, changes=changes)


class ModelReader:
    """The card model (:class:`~referee.vision.recognize.Recognizer`) on rectified zone crops:
    its surest reading of each, however sure (the referee decides what it believes)."""

    def __init__(self, recognizer: object, calibration: Calibration) -> None:
        self.recognizer = recognizer
        self.cropper = ZoneCropper(calibration)

    def read(self, image: np.ndarray, frame: int, zones: Sequence[str]) -> list[ZoneRead]:
        if not zones:
            return []
        rows = self.recognizer.recognize_zones(self.cropper.cut(image, zones))  # type: ignore[attr-defined]
        return [ZoneRead(str(lab), float(conf), CODES[int(second)] if second >= 0 else None,
                         float(second_conf))
                for lab, conf, second, second_conf in zip(rows.label, rows.confidence, rows.runner_up,
                                                          rows.runner_up_confidence, strict=True)]

    def recalibrated(self, calibration: Calibration) -> None:
        self.cropper = ZoneCropper(calibration)


def correction_for(game: Game, ev: TableEvent, rejected: str = "") -> Correction | None:
    """The correction a rejected turn or move stands for: the slot it turned ``ev.card`` in, or
    moved it from, shows, for the engine, another face-up card (read there earlier). None for
    other events, and when the slot is outside the slots, face down or empty, or shows that
    card (the event was rejected for another reason). Whether the newer reading is the better
    one is the caller's call. (A play is not corrected so: its card read on the pile, misread,
    let through plays judged on the wrong card, false faults in games 5008 and 5009 with the
    model.)"""
    if isinstance(ev, Turn):
        slot = ev.slot
    elif isinstance(ev, Move):
        slot = ev.from_slot
    else:
        return None
    if not 1 <= slot <= game.rules.slots:
        return None
    was = game.sides[ev.player].stock[slot - 1].top
    if was is None or was == ev.card:
        return None
    return Correction(t=ev.t, frame=ev.frame, player=ev.player, slot=slot, card=ev.card, was=was,
                      evidence={**(ev.evidence or {}), "corrects": ev.kind, "rejected": rejected})


def _runner_up_stands(ev: TableEvent, **note: str) -> dict[str, object]:
    """Evidence entries for ``ev``'s card taken as its reading's runner-up: the runner-up
    becomes the reading, the first reading the runner-up, and ``note`` says why."""
    evidence = ev.evidence or {}
    return {"read": evidence.get("runner_up"),
            "read_confidence": round(_runner_up_confidence(ev), 3),
            "runner_up": str(getattr(ev, "card", "")), "runner_up_confidence": round(_read_confidence(ev), 3),
            **note}


def _runner_up_confidence(ev: TableEvent) -> float:
    """The confidence of the identity an event's reading put second (0 with none)."""
    return ev.evidence_number("runner_up_confidence", 0.0) if (ev.evidence or {}).get("runner_up") else 0.0


def _read_confidence(ev: TableEvent) -> float:
    """The confidence of the reading an event of vision rests on (1 for events of a log)."""
    return ev.evidence_number("read_confidence", 1.0)


def signals_for(verdict: Verdict | None, calls: Sequence[Call]) -> list[Signal]:
    """What the board shows for a verdict and the calls that came with it."""
    out: list[Signal] = []
    if verdict is not None and verdict.outcome is Outcome.FAULT:
        out.append(Signal.fault(verdict.player))
    for call in calls:
        if call.call is CallKind.SPIT:
            out.append(Signal.spit_call())
        elif call.call is CallKind.ROUND_END:
            out.append(Signal.round_end())
        elif call.call is CallKind.SLAP_WINNER and call.player is not None:
            out.append(Signal.slap_winner(call.player))
        elif call.call is CallKind.GAME_OVER:
            out.append(Signal.game_over(call.player))
    return out


@dataclass(frozen=True)
class _Refused:
    """An event the engine refused, kept to be judged again should a card found beneath events
    change what it was judged against; ``renamed``: (zone, read, believed) when the observer
    was told to believe the slot's earlier card (``believed``) instead of the one read."""

    event: TableEvent
    why: InconsistentEvent
    renamed: tuple[str, str, str] | None = None


@dataclass
class StepResult:
    frame: int
    t: float
    tracked: TrackedFrame
    events: list[TableEvent] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)  # one per event, in order
    revised: list[Verdict] = field(default_factory=list)  # verdicts given anew for events judged before
    calls: list[Call] = field(default_factory=list)
    rejected: list[InconsistentEvent] = field(default_factory=list)
    drift: DriftStatus | None = None
    seconds: float = 0.0  # this step's own processing time


class Referee:
    """Referees one game from a stream of frames (see the module doc).

    ``prelude``: table events of the game before the video starts (a game continued from a
    log); without it the first frame is read as the layout of a new round.
    ``on_record``: called with every record as it is made (the event log writer).
    ``arbitration``: refine touch times and order races and slaps from the recent views
    (True: default settings; False: the observer's times and layering order only).
    ``carried_landings`` (with arbitration): a spit pile settles as soon as a card followed
    from its slot lies still on it, while the hand still moves over it (docs/observation.md)."""

    def __init__(self, calibration: Calibration, reader: ZoneReader, rules: RuleSet | None = None,
                 board: Board | None = None, prelude: Sequence[TableEvent] = (),
                 on_record: Callable[[Record], None] | None = None, drift_every: int = DRIFT_EVERY,
                 game: int = 0, seed: int | None = None,
                 arbitration: bool | ArbiterSettings = True,
                 min_confidence: float = MIN_IDENTITY_CONFIDENCE, carried_landings: bool = True) -> None:
        self.calibration = calibration
        self.carried_landings = carried_landings
        self._carried_piles: set[str] = set()  # settled by a carry, not yet settled as usual
        #: pile -> a carried landing that could not settle it (another card unaccounted for)
        self._withheld: dict[str, Landing] = {}
        self.min_confidence = min_confidence
        self.reader = reader
        self.rules = rules or RuleSet()
        self.board = board
        self.on_record = on_record
        self.tracker = ZoneTracker(calibration)
        self.observer = Observer(calibration.layout)
        self.arbiter: Arbiter | None = None
        if arbitration:
            self.arbiter = Arbiter(self.tracker, arbitration if isinstance(arbitration, ArbiterSettings)
                                   else None)
        #: the time of the last event the engine judged, turns and moves aside: per player, the
        #: time of the last of those (in their own slots); see not_before
        self._last_t = -math.inf
        self._last_stock_t: dict[Player, float] = {}
        self.game = Game(self.rules)
        #: the engine's recent states, to judge a card found beneath judged events in its place
        self.hindsight = Hindsight()
        self._revised: list[Verdict] = []  # verdicts given anew, to record after the event's own
        # hands over the markers shift the fit by a pixel or two: only a real nudge is followed
        self.drift = DriftMonitor(calibration, still_px=DRIFT_STILL_PX)
        self.drift_every = drift_every
        self.records: list[Record] = []
        self.rejected: list[InconsistentEvent] = []
        self._refused: list[_Refused] = []  # the last HINDSIGHT_S of refused events
        self.camera_moved = False
        self._prelude = list(prelude)
        self._started = False
        self._last_tracked: TrackedFrame | None = None
        self._emit(GameStart(t=0.0, frame=0, game=game, rules=self.rules, seed=seed))
        for ev in self._prelude:
            self._judge(ev, StepResult(0, 0.0, TrackedFrame(0, 0.0, {}, (), ())), quiet=True)

    # ------------------------------------------------------------------ per frame
    def step(self, frame: Frame) -> StepResult:
        t0 = time.perf_counter()
        pictures = frame.pictures
        tracker = self.tracker
        tracked = tracker.update(frame.image, frame.t, pictures)
        self._last_tracked = tracked
        if self.arbiter is not None:
            self.arbiter.observe(tracker, tracked, self.observer.believed_tops())
        result = StepResult(frame.index, frame.t, tracked)
        if not self._started:
            self._started = True
            zones = self.tracker.zone_ids
            readings = self._read(frame, zones)
            # a continued game: the log says which cards lie face up (those not read surely)
            known = {zone: str(card) for zone, card in self.game.face_up_tops().items()}
            events = self.observer.start(readings, frame.index, frame.t, deal=not self._prelude,
                                         known=known if self._prelude else None)
        else:
            landings = self._carried_landings(tracked)
            if landings:
                tracked, landings = self._settled_by_carry(tracked, landings)
                result.tracked = tracked
            tracked = result.tracked = self._placed_by_follows(tracked)
            strays = self.arbiter.strays(tracked) if self.arbiter is not None else []
            if strays:  # cards followed to rest outside the zones, a hand maybe still over them
                tracked = result.tracked = replace(tracked, strays=tracked.strays + tuple(strays))
            zones = list(dict.fromkeys([c.zone for c in tracked.changes] + self.observer.rereads(tracked)))
            readings = self._read(frame, zones) if zones else {}
            for landing in landings:
                if landing.zone in readings:
                    tracked = result.tracked = _under_the_read_top(tracked, landing, readings[landing.zone])
                    readings[landing.zone] = _carried_reading(readings[landing.zone], landing)
            tracked = result.tracked = self._withheld_landings(tracked, readings)
            events = self.observer.update(tracked, readings)
        if self.arbiter is not None:
            items = self.arbiter.refine(events, tracked, not_before=self.not_before)
        else:
            items = [Arbitrated(ev) for ev in events]
        for item in items:
            if isinstance(item.event, Play):
                by_carry = (item.event.evidence or {}).get("touch_from") == "trajectory"
                self.observer.retimed_play(item.event.frame, str(item.event.card), item.event.t, by_carry)
            self._judge(item.event, result, item=item)
        self._tell_observer()
        if self.drift_every and frame.index % self.drift_every == self.drift_every - 1:
            result.drift = self._check_drift(frame.image)
        result.seconds = time.perf_counter() - t0
        if pictures is not None and tracker.made_with(pictures):
            result.seconds += pictures.seconds  # made ahead, on another thread: work on this frame too
        return result

    def prepare(self, image: np.ndarray) -> TrackerPictures | None:
        """The tracker's pictures of a frame (:meth:`ZoneTracker.pictures`), to be made on
        another thread ahead of :meth:`step` (referee/live/ahead.py); None for a frame they
        cannot be made of (the wrong size), which :meth:`step` then reports."""
        try:
            return self.tracker.pictures(image)
        except InputError:
            return None

    def _carried_landings(self, tracked: TrackedFrame) -> list[Landing]:
        """Piles where a card followed from its slot now lies still; one each time a pile is
        busy (a pile settled by a carry waits to settle as usual before it takes another). A
        landing that may not settle its pile now is kept (``_withheld``) for when the pile
        settles as usual."""
        if self.arbiter is None or not self.carried_landings:
            return []
        self._carried_piles = {z for z in self._carried_piles
                               if (obs := tracked.zones.get(z)) is not None and not obs.settled}
        usable = []
        for landing in self.arbiter.landings(tracked, self.observer.state.tops):
            if landing.zone not in self._carried_piles and self.observer.may_settle_by_carry(
                    landing.slot, landing.label, tracked, landing.beneath, landing.elsewhere):
                usable.append(landing)
            else:
                self._withheld[landing.zone] = landing
        return usable

    def _withheld_landings(self, tracked: TrackedFrame, readings: dict[str, ZoneReading]) -> TrackedFrame:
        """``tracked`` (and ``readings``, in place) where a pile that a carried landing could not
        settle now settles as usual."""
        for change in tracked.changes:
            # a carried landing that could not settle its pile (a card unaccounted for:
            # Observer.may_settle_by_carry), the pile settled as usual and read as no card
            # surely: the landed card lies on top, as after a carried landing that settled it
            # (game 5189 with the model: A's JC, followed to rest on pile 2 over B's JD,
            # matching its face at 0.84, read not surely under A's hand, then JD at 0.85:
            # the race's F_LOST_TOUCH and the JC's take-back were lost). A card read surely
            # stands, also one the follows placed beneath: of two cards one hand put down,
            # they may place either beneath (game 5168: A's 4D, then 4C). Only a landing in
            # this busy spell, of a card not already on a pile (game 5149: A's QD, played 1 s
            # before and covered by B's KS, "landed" once the KS was read on top)
            withheld = self._withheld.pop(change.zone, None)
            if withheld is not None and not change.carried and change.zone in readings \
                    and readings[change.zone].label in NOT_IDENTITIES \
                    and withheld.frame >= change.since_frame and not self.observer.on_a_pile(withheld.label):
                tracked = _with_landing(tracked, withheld)
                readings[change.zone] = _carried_reading(readings[change.zone], withheld)
        return tracked

    def _settled_by_carry(self, tracked: TrackedFrame, landings: Sequence[Landing]
                          ) -> tuple[TrackedFrame, list[Landing]]:
        """``tracked`` with each landing's pile settled now (:meth:`ZoneTracker.settle_now`):
        the card lies still there, its identity known from its slot, so the play is judged
        without waiting for the hand to leave the pile; and the landings that settled a pile."""
        zones, changes = dict(tracked.zones), list(tracked.changes)
        settled = []
        for landing in landings:  # one per pile (Arbiter.landings)
            change = self.tracker.settle_now(landing.zone, landing.frame, landing.time, landing.elsewhere,
                                             landing.beneath, landing.taken_before)
            if change is None:
                continue
            self._carried_piles.add(landing.zone)
            settled.append(landing)
            changes.append(change)
            zones[landing.zone] = replace(zones[landing.zone], settled=True, busy_since=None)
        return replace(tracked, zones=zones, changes=tuple(changes)), settled

    def _placed_by_follows(self, tracked: TrackedFrame) -> TrackedFrame:
        """``tracked`` with, on each pile that settled as usual, what the follows place now (as
        on a carried landing): the cards outside it (``elsewhere``): a card still in a hand
        then does not lie under the new top, though the pile's change waits and is explained
        only after that card's slot settles (game 5239, both recognitions: A's 6C, on its way
        to pile 2 when B's JC settled there, was taken for a card beneath the JC, then the JC
        for one taken back: a false F_ILLEGAL_RANK and F_TAKE_BACK, an F_ILLEGAL_RANK missed);
        and since stop 68 the cards on it (``beneath``): a card that left its slot and was
        followed to rest there lies under the new top though no hand was seen over the pile
        (race-eval seed 6707, both recognitions: pale hands on the white mat; B's 8S, under
        A's 10H, was found only when A took the 10H back: a false F_LOST_TOUCH and F_TAKE_BACK,
        the F_LOST_TOUCH missed)."""
        if self.arbiter is None or all(c.carried for c in tracked.changes):
            return tracked
        changes = []
        for c in tracked.changes:
            if not c.carried:
                beneath, elsewhere = self.arbiter.located_on(c.zone)
                c = replace(c, beneath=c.beneath | beneath, elsewhere=c.elsewhere | elsewhere)
            changes.append(c)
        return replace(tracked, changes=tuple(changes))

    def _tell_observer(self) -> None:
        """What the observer should look for next, from the state of the game."""
        game = self.game
        over = game.phase is Phase.ROUND_OVER
        piles_left = [n for n, pile in game.piles.items() if pile.size and n not in game.taken]
        if game.phase is Phase.DEALING:
            dealing = {p for p, side in game.sides.items() if not side.dealt}
        elif over and game.allocation is not None and not piles_left:
            dealing = set(game.sides)
        else:
            dealing = set()
        self.observer.note_game(over and game.allocation is None, dealing, self.rules.slots)

    def _read(self, frame: Frame, zones: Sequence[str]) -> dict[str, ZoneReading]:
        """The readings of ``zones``; a card identity read less surely than
        ``min_confidence`` becomes ``card`` (not read) with the identity as its guess."""
        rows = self.reader.read(frame.image, frame.index, zones)
        out = {}
        for zone, row in zip(zones, rows, strict=True):
            read = ZoneRead(*row)
            label, guess = read.label, None
            if label not in NOT_IDENTITIES and read.confidence < self.min_confidence:
                label, guess = "card", label
            out[zone] = ZoneReading(zone, label, read.confidence, frame.index, frame.t, guess=guess,
                                    runner_up=read.runner_up, runner_up_confidence=read.runner_up_confidence)
        return out

    def _judge(self, ev: TableEvent, result: StepResult, quiet: bool = False,
               item: Arbitrated | None = None) -> None:
        judged = self._apply(ev, result)
        if judged is None:
            return
        self._record(judged[0], judged[1], result, quiet, item)
        self._give_revised(ev, result, quiet)
        if (ev.evidence or {}).get(FOUND_BENEATH):
            self._judge_refused_again(judged[0], result, quiet)

    def _give_revised(self, ev: TableEvent, result: StepResult, quiet: bool) -> None:
        """The verdicts given anew after ``ev`` was judged in its place."""
        revised, self._revised = self._revised, []
        for verdict in revised:
            log.info("frame %s: event %d judged again: %s", ev.frame, verdict.event, verdict.message)
            result.revised.append(verdict)
            self._emit(verdict)
            if self.board is not None and not quiet:
                for sig in signals_for(verdict, []):
                    self.board.signal(sig)

    def _judge_refused_again(self, found: TableEvent, result: StepResult, quiet: bool) -> None:
        """The events refused since ``found``'s time, judged again (in time order, each in its
        place) now that ``found``, a card found beneath judged events, has been judged: they
        were refused against a game without it (game 5764 with the model: B's 5H, played from
        slot 2 and found beneath A's 7D 1.7 s later; B's turn of the 2S in slot 2 before that was
        refused, the slot's 5H face up for the engine, and the turn given 4 s late). Those
        judged are given as they come, marked ``refused_until`` (so that ``check`` judges them in
        their place too); the observer, told to believe the slot's earlier card,
        believes the turn's again, and they are no longer counted refused. The rest stay refused."""
        until = f"{found.kind} of {getattr(found, 'card', '')} by {found.player}"
        for refused in sorted((r for r in self._refused if r.event.t > found.t), key=lambda r: r.event.t):
            ev = replace(refused.event, evidence={**(refused.event.evidence or {}), REFUSED_UNTIL: until})
            if self.hindsight.covers(ev):
                judged = self._judged_in_place(ev, result)
                if judged is None:
                    continue
            else:
                try:
                    judged = ev, self.hindsight.apply(self.game, ev)
                except InconsistentEvent:
                    continue
            self._refused.remove(refused)
            self.rejected.remove(refused.why)
            log.info("frame %s: %s judged again after %s found beneath: given", ev.frame, ev.kind, found.kind)
            if refused.renamed is not None:
                zone, read, believed = refused.renamed
                self.observer.rename(zone, believed, read)
            self._record(judged[0], judged[1], result, quiet)
            self._give_revised(ev, result, quiet)

    def _doubtful_rank(self, ev: TableEvent, result: StepResult) -> TableEvent:
        """A play the engine would find off in rank, whose card was read less surely than
        ``DOUBTFUL_RANK`` both in its slot and on the pile, while its runner-up, read on the pile
        at least ``DOUBTFUL_RUNNER_UP_SHARE`` as surely, fits the pile (and is nowhere the engine
        knows): the slot is corrected to the runner-up (a ``correct`` record) and the play becomes
        it. A fault resting on a likely misread is not called. Not a card found underneath
        another: the pile's reading is of the card on it (game 5814 with the model: B's 8S,
        under B's AH, took the AH's runner-up AD, and its F_ILLEGAL_RANK became a false
        F_TAKE_BACK and F_BAD_MOVE)."""
        if not isinstance(ev, Play) or self.game.phase is not Phase.PLAYING \
                or (ev.evidence or {}).get("underneath") is True:
            return ev
        stock = self.game.sides[ev.player].stock
        top = self.game.piles[ev.pile].top if ev.pile in self.game.piles else None
        if not 1 <= ev.slot <= len(stock) or stock[ev.slot - 1].top != ev.card or top is None \
                or self.game.fits(ev.card, top):
            return ev
        second = (ev.evidence or {}).get("runner_up")
        if not isinstance(second, str) \
                or max(_read_confidence(ev), self._read_confidence_of(ev.card, ev.player)) >= DOUBTFUL_RANK \
                or _runner_up_confidence(ev) < DOUBTFUL_RUNNER_UP_SHARE * _read_confidence(ev):
            return ev
        alt = Card.parse(second)
        if not self.game.fits(alt, top) or alt in self.game.known_cards():
            return ev
        why = f"{ev.card} would not fit {top}; read at {_read_confidence(ev):.2f}, its runner-up {alt} fits"
        swapped = _runner_up_stands(ev, doubt=why)
        # the card lies on the pile now: the observer renames it there
        evidence = {**(ev.evidence or {}), **swapped, "corrects": "doubtful rank"}
        pile_zone = evidence.get("zone")
        if not self._correct_to_runner_up(ev, ev.player, ev.slot, ev.card, alt, pile_zone, evidence, result):
            return ev
        log.info("frame %s: %s", ev.frame, why)
        return replace(ev, card=alt, evidence={**(ev.evidence or {}), **swapped})

    def _doubtful_spit_card(self, ev: TableEvent, result: StepResult) -> None:
        """Before a play the engine would find off in rank on a spit card (the pile's top,
        turned from a packet: its face was read only there) that was read less surely than
        ``DOUBTFUL_RANK``, while its runner-up, read at least ``DOUBTFUL_RUNNER_UP_SHARE`` as
        surely, would fit the play's card (and is nowhere the engine knows): the spit card is
        corrected to the runner-up (a ``correct`` record naming the pile). Game 5263 with the
        model: B's spit AS read KS at 0.71, AS at 0.45; B's 2H on it, then A's 3D and B's 3C,
        were three false F_ILLEGAL_RANK."""
        if not isinstance(ev, Play) or self.game.phase is not Phase.PLAYING or ev.pile not in self.game.piles:
            return
        pile = self.game.piles[ev.pile]
        top = pile.cards[-1] if pile.cards else None
        if top is None or top.origin is not Origin.PACKET or pile.top != top.card \
                or self.game.fits(ev.card, top.card):
            return
        spit = next((r for r in reversed(self.records)
                     if isinstance(r, SpitTurn) and r.pile == ev.pile and r.card == top.card), None)
        second = (spit.evidence or {}).get("runner_up") if spit is not None else None
        if spit is None or not isinstance(second, str) or _read_confidence(spit) >= DOUBTFUL_RANK \
                or _runner_up_confidence(spit) < DOUBTFUL_RUNNER_UP_SHARE * _read_confidence(spit):
            return
        alt = Card.parse(second)
        if not self.game.fits(ev.card, alt) or alt in self.game.known_cards():
            return
        why = (f"{ev.card} would not fit the spit card {top.card}, read at {_read_confidence(spit):.2f}; "
               f"its runner-up {alt} fits")
        evidence = {**(spit.evidence or {}), **_runner_up_stands(spit, doubt=why),
                    "corrects": "doubtful spit card"}
        fix = Correction(t=ev.t, frame=ev.frame, player=top.player, pile=ev.pile, card=alt, was=top.card,
                         evidence=evidence)
        if self._correct(fix, evidence.get("zone"), result):
            log.info("frame %s: %s", ev.frame, why)

    def _apply(self, ev: TableEvent, result: StepResult) -> tuple[TableEvent, Judgement] | None:
        """The engine's judgement of ``ev`` (or of the event it became), or None when it rejects
        it. A turn it rejects because, from an earlier reading, it holds another face-up card in
        that slot is a correction of that reading when the turn's card was read more surely than
        it (:func:`correction_for`): the later, surer look at the same slot wins; when the earlier
        one wins, the observer is told so (:meth:`Observer.rename`). A card the engine
        holds face up elsewhere is a clash of two readings (:meth:`_resolve_clash`)."""
        if (ev.evidence or {}).get(FOUND_BENEATH):
            late = self._judged_in_place(ev, result)
            if late is not None:
                return late
        ev = self._doubtful_rank(ev, result)
        self._doubtful_spit_card(ev, result)
        try:
            return ev, self.hindsight.apply(self.game, ev)
        except InconsistentEvent as exc:
            rejected = exc
        clash = self._resolve_clash(ev, rejected, result)
        if clash is not None:
            return clash
        slot_card_play = self._play_of_the_slot_s_card(ev)
        if slot_card_play is not None:
            try:
                return slot_card_play, self.hindsight.apply(self.game, slot_card_play)
            except InconsistentEvent:
                pass
        correction = correction_for(self.game, ev, rejected.message)
        renamed = None
        if correction is not None:
            old, new = self._read_confidence_of(correction.was, ev.player), _read_confidence(ev)
            if new > old:
                try:
                    fixed = self.hindsight.apply(self.game, correction)
                except InconsistentEvent as why:  # e.g. the card is face up elsewhere too
                    log.info("frame %s: %s", ev.frame, why)
                else:
                    log.info("frame %s: %s (read at %.2f, before at %.2f)", ev.frame, fixed.verdict.message,
                             new, old)
                    self._record(correction, fixed, result)
                    if isinstance(ev, Move):  # the card corrected where it was, the move stands
                        return self._apply(ev, result)
                    return None
            zone = (ev.evidence or {}).get("zone")
            if isinstance(ev, Turn) and isinstance(zone, str):
                # the earlier, surer reading stands: the observer believes it again (game 5698 with
                # the model: A's AS, the slot's last card, read KS at 0.53 as the hand took it; the
                # turn refused, the observer kept the KS, and the AS's play, put under B's AD, was
                # refused as a play of the KS: the F_LOST_TOUCH lost, three false faults after)
                self.observer.rename(zone, str(ev.card), str(correction.was))
                renamed = (zone, str(ev.card), str(correction.was))
        log.warning("frame %s: %s", ev.frame, rejected)
        result.rejected.append(rejected)
        self.rejected.append(rejected)
        self._refused = [r for r in self._refused if r.event.t >= ev.t - HINDSIGHT_S]
        self._refused.append(_Refused(ev, rejected, renamed))
        return None

    def _judged_in_place(self, ev: TableEvent, result: StepResult) -> tuple[TableEvent, Judgement] | None:
        """A card the observer found beneath events the engine has judged (``found_beneath`` in
        its evidence: seen only when the cards on it were taken back), judged in its place:
        before those events, which are judged again after it (:mod:`referee.rules.hindsight`);
        each verdict that changes is given anew (``revised``), and the board shows a fault
        that is new. None when it cannot be judged there (it is then judged as it comes)."""
        try:
            late = self.hindsight.judge_in_place(self.game, ev)
        except InconsistentEvent as exc:
            log.info("frame %s: %s found beneath judged events, not judged in its place: %s", ev.frame,
                     ev.kind, exc)
            return None
        if late is None:
            return None
        self.game = late.game
        self._revised.extend(late.revised)  # given after the late event's own verdict
        return ev, late.judgement

    def _play_of_the_slot_s_card(self, ev: TableEvent) -> Play | None:
        """A play the engine refused because the slot it came from holds, for the engine, the
        card's twin (the same rank and colour: a suit misread within a colour, on the pile or
        in the slot): the play of the card the slot holds, which the rules judge alike; the
        observer renames the pile's card. Game 5024 at 1280x720 with the model: A's AS, read AS
        in slot 4 and AC on pile 1, refused, and the turn in that slot after it lost. So too
        when the card read on the pile already lies on a spit pile: it cannot come from a slot,
        and the pile's reading is the wrong one (game 5314 with the model: B's QC, read QC in
        slot 2 and JC on pile 1, where the JC lay beneath the top; the play refused, the turn
        and play in that slot after it were lost and three false F_ILLEGAL_RANK followed).
        None for any other event or refusal."""
        if not isinstance(ev, Play) or not 1 <= ev.slot <= self.game.rules.slots:
            return None
        held = self.game.sides[ev.player].stock[ev.slot - 1].top
        if held is None or held == ev.card:
            return None
        twin = held.rank == ev.card.rank and held.colour == ev.card.colour
        if not twin and not self.game.known_cards().get(ev.card, "").startswith("pile"):
            return None
        zone = (ev.evidence or {}).get("zone")
        if isinstance(zone, str):
            self.observer.rename(zone, str(ev.card), str(held))
        log.info("frame %s: %s read on the pile, %s in its slot: the slot's card stands", ev.frame, ev.card,
                 held)
        return replace(ev, card=held, evidence={**(ev.evidence or {}), "read_on_pile": str(ev.card)})

    def _resolve_clash(self, ev: TableEvent, rejected: InconsistentEvent, result: StepResult
                       ) -> tuple[TableEvent, Judgement] | None:
        """A card read where the engine holds it face up elsewhere: one of the two readings is
        wrong, and one gives way to the identity its reading put second (when that card is
        nowhere the engine knows): the one whose runner-up, with the other reading, is the
        likelier pair (the product of the two confidences), else the other, if it can: a stock
        slot's reading can be corrected, and a spit card's on its pile, not a played card's. When
        ``ev`` gives way it becomes that card; when the other reading gives way, the slot or the
        pile holding the card is corrected to its runner-up (a ``correct`` record) and ``ev`` is
        judged again. The observer is told of the new identity (:meth:`Observer.rename`). None
        when nothing resolves it."""
        card = getattr(ev, "card", None)
        if not isinstance(card, Card) or not rejected.message.startswith(f"{card} is already face up at "):
            return None
        place = self.game.known_cards().get(card, "")
        holder = next((r for r in reversed(self.records) if isinstance(r, TableEvent)
                       and getattr(r, "card", None) == card), None)
        if holder is None:
            return None
        mine, theirs = _read_confidence(ev), _read_confidence(holder)
        slot = next((z for z in self.calibration.layout.zones if z.id == place), None)
        correctable = slot is not None and slot.owner is not None and slot.number is not None \
            and slot.kind is ZoneKind.STOCK  # a stock slot's reading can be corrected

        def may_give_way(record: TableEvent, second: Card) -> bool:
            """``ev`` may become its runner-up, a slot's card be corrected to its, and a spit
            card's on its pile (since stop 55; beneath the top, only to a card of its rank)."""
            if record is ev or correctable:
                return True
            if not isinstance(holder, SpitTurn) or slot is None or slot.kind is not ZoneKind.PILE:
                return False
            cards = self.game.piles[holder.pile].cards
            return (bool(cards) and cards[-1].card == card) or second.rank is card.rank
        # the likelier pair of readings stands: one reading and the other's runner-up (on a tie,
        # the less sure reading gives way); when the loser has no runner-up the engine could
        # take, the other gives way
        ev_gives_way = (theirs * _runner_up_confidence(ev), mine <= theirs)
        holder_gives_way = (mine * _runner_up_confidence(holder), theirs < mine)
        candidates = [ev, holder] if ev_gives_way >= holder_gives_way else [holder, ev]
        loser, second = next(((r, s) for r in candidates
                              if isinstance(s := (r.evidence or {}).get("runner_up"), str)
                              and Card.parse(s) not in self.game.known_cards()
                              and may_give_way(r, Card.parse(s))), (None, ""))
        if loser is None:
            return None
        alt = Card.parse(second)
        why = f"{card} read here, and face up at {place} (read at {mine:.2f} and {theirs:.2f})"
        swapped = _runner_up_stands(loser, clash=why)
        if loser is ev:
            read_zone = (ev.evidence or {}).get("zone")
            renamed = replace(ev, card=alt, evidence={**(ev.evidence or {}), **swapped})  # type: ignore[call-arg]
            try:
                judgement = self.hindsight.apply(self.game, renamed)
            except InconsistentEvent as exc:
                log.info("frame %s: %s as %s: %s", ev.frame, ev.kind, alt, exc)
                return None
            if isinstance(read_zone, str):
                self.observer.rename(read_zone, str(card), second)
            log.info("frame %s: %s; the runner-up %s stands", ev.frame, why, alt)
            return renamed, judgement
        evidence = {**(holder.evidence or {}), **swapped, "corrects": "clash"}
        if isinstance(holder, SpitTurn):
            # the spit card on its pile (game 5361 with the model: A's spit AS read AC at 0.50,
            # AS at 0.45; A's AC, turned in slot 2 2.4 s later and read at 0.75, had been taken
            # back from beneath the pile to the packet, a false F_TAKE_BACK, and four false
            # faults and six events lost followed)
            fix = Correction(t=ev.t, frame=ev.frame, player=holder.player, pile=holder.pile, card=alt,
                             was=card, evidence=evidence)
            if not self._correct(fix, place, result):
                return None
        else:
            assert slot is not None and slot.owner is not None and slot.number is not None  # correctable
            if not self._correct_to_runner_up(ev, slot.owner, slot.number, card, alt, place, evidence,
                                              result):
                return None
        log.info("frame %s: %s; %s holds the runner-up %s", ev.frame, why, place, alt)
        try:
            return ev, self.hindsight.apply(self.game, ev)
        except InconsistentEvent as exc:
            log.info("frame %s: %s", ev.frame, exc)
            return None

    def _correct_to_runner_up(self, ev: TableEvent, player: Player, slot: int, was: Card, alt: Card,
                              zone: object, evidence: dict[str, object], result: StepResult) -> bool:
        """Correct ``player``'s ``slot`` from ``was`` to ``alt`` (a ``correct`` record at ``ev``'s
        time) and tell the observer the card in ``zone`` is ``alt``; False when the engine
        refuses the correction."""
        return self._correct(Correction(t=ev.t, frame=ev.frame, player=player, slot=slot, card=alt, was=was,
                                        evidence=evidence), zone, result)

    def _correct(self, fix: Correction, zone: object, result: StepResult) -> bool:
        """Apply and record the correction ``fix`` and tell the observer the card in ``zone`` is
        ``fix.card``; False when the engine refuses it."""
        try:
            fixed = self.hindsight.apply(self.game, fix)
        except InconsistentEvent as exc:
            log.info("frame %s: %s", fix.frame, exc)
            return False
        self._record(fix, fixed, result)
        if isinstance(zone, str):
            self.observer.rename(zone, str(fix.was), str(fix.card))
        return True

    def not_before(self, ev: TableEvent) -> float:
        """The earliest time ``ev``, found now, may be given at: after every event the engine
        judged that it could depend on. A turn or a move of the other player, in their own
        slots, is not one of them: a play timed by its carry before such a turn judged a frame
        earlier keeps its time (game 5527: A's 8H, touched 0.2 s before B's turn of a QS settled
        under B's hand, was put after it, 0.28 s late, and counted missed with its fault)."""
        return max(self._last_t, self._last_stock_t.get(ev.player, -math.inf))

    def _read_confidence_of(self, card: Card, player: Player) -> float:
        """How surely the card the engine holds face up in one of ``player``'s slots was
        read: the reading of the last event that put it there (1 for events of a log)."""
        for record in reversed(self.records):
            if isinstance(record, Turn | Move | Correction | TakeBack) and record.player is player \
                    and record.card == card and not (isinstance(record, Correction) and record.slot is None):
                return _read_confidence(record)
        return 1.0

    def _record(self, ev: TableEvent, judgement: Judgement, result: StepResult, quiet: bool = False,
                item: Arbitrated | None = None) -> None:
        if isinstance(ev, Turn | Move):
            self._last_stock_t[ev.player] = max(self._last_stock_t.get(ev.player, -math.inf), ev.t)
        else:
            self._last_t = max(self._last_t, ev.t)
        verdict, calls = judgement.verdict, list(judgement.calls)
        if item is not None and item.note:
            # the arbitration could not tell who was first: the verdict (and the slap call) say so
            if not item.only_fault or verdict.outcome is Outcome.FAULT:
                verdict = replace(verdict, message=f"{verdict.message}; {item.note}")
            if item.call_note:
                calls = [replace(c, message=f"{c.message}; {item.note}") if c.call is CallKind.SLAP_WINNER
                         else c for c in calls]
        result.events.append(ev)
        result.verdicts.append(verdict)
        result.calls.extend(calls)
        self._emit(ev)
        self._emit(verdict)
        for call in calls:
            self._emit(call)
        if self.board is not None and not quiet:
            for sig in signals_for(verdict, calls):
                self.board.signal(sig)

    def _emit(self, record: Record) -> None:
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    def _check_drift(self, image: np.ndarray) -> DriftStatus:
        status = self.drift.check(image)
        if status.state is DriftState.NUDGED:
            self.calibration = self.drift.calibration
            self.tracker = _retracked(self.tracker, self.calibration)
            if self.arbiter is not None:
                self.arbiter.reset(self.tracker)  # the kept views no longer line up with the zones
            if hasattr(self.reader, "recalibrated"):
                self.reader.recalibrated(self.calibration)
        elif status.state is DriftState.MOVED and not self.camera_moved:
            self.camera_moved = True
            log.warning("%s", status.message)
        return status

    def finish(self) -> list[Record]:
        last = self._last_tracked
        if last is not None:  # pile changes still waiting, events held behind a spit card
            tail = self.observer.flush(last)
            items = (self.arbiter.refine(tail, last, not_before=self.not_before) if self.arbiter is not None
                     else [Arbitrated(ev) for ev in tail])
            for item in items:
                self._judge(item.event, StepResult(-1, last.time, last), item=item)
        if self.arbiter is not None:
            for item in self.arbiter.flush(not_before=self.not_before):
                t = item.event.t
                self._judge(item.event, StepResult(-1, t, TrackedFrame(-1, t, {}, (), ())), item=item)
        return self.records


def _retracked(old: ZoneTracker, calibration: Calibration) -> ZoneTracker:
    """A tracker for the new calibration (the zones' settled views are learnt again), going on
    with the old one's frame numbers."""
    new = ZoneTracker(calibration, old.s)
    new.continue_from(old)
    return new
