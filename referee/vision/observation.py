"""Observation: zone changes and what recognition read become table events (docs/observation.md).

    obs = Observer(layout)
    events = obs.start(readings, frame=0, t=0.0)          # the table at the first frame
    events = obs.update(tracked, readings)                 # each frame: TrackedFrame + new readings

The tracker (:mod:`referee.vision.tracking`) says *when* a zone settled with new content;
recognition says *what* now lies on top (a card code, ``back``, ``empty``). The observer keeps
what lies on top of every zone and what it knows of each spit pile, and explains each new
top as the table events that produce it:

- a stock slot whose face-up card is gone: the card *departed* (to a pile, another slot);
- a stock slot that showed a back and now shows a card: a ``turn``;
- a spit pile with a new card on top: a ``play`` from the slot that held that card, or a
  ``spit`` (a card no slot held, from the packet of the player whose hand was there);
- a spit pile whose top is again the card that lay beneath: a ``take_back``;
- an empty slot that now holds a card that departed from another slot: a ``move``;
- a card that departed from a slot, never seen to arrive, while a pile took a new card: it
  went onto that pile *underneath* the card now on top (the layering of a touch race: the
  card underneath touched first) and is played before it;
- a spit pile that is empty again: ``take_pile`` by the player whose hand took it;
- after a round ends, a hand that comes down and stays on a spit pile: a ``slap``; during
  play, a hand that lies still on a spit pile for ``EARLY_SLAP_STILL_S`` while no card comes or
  goes there: a ``slap`` too (an early one, a fault for the engine).

Times: a zone settles a few frames after the touch (the card slides, the hand lifts off, the
tracker waits for stillness). The touch is estimated from the settle frame minus the lag
measured on the fixtures (:data:`TOUCH_LAG_S`) unless arbitration gives a better estimate;
``start`` is when the source slot first showed a hand. Each event carries its evidence:
the frames, the estimate and its uncertainty, what lay underneath.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from referee.cards import Card
from referee.events import Deal, Hand, Move, Play, Slap, SpitTurn, TableEvent, TakeBack, TakePile, Turn
from referee.players import Player
from referee.rules.hindsight import FOUND_BENEATH
from referee.vision.mat import MatLayout, Zone, ZoneKind
from referee.vision.tracking import HandBlob, StrayChange, TrackedFrame, ZoneChange, ZoneObservation

log = logging.getLogger(__name__)

#: Seconds from an event's instant (the touch; for a take-back the lift) to the last frame its
#: zone's picture moved, by kind of event: the median on the 17 fixtures with perfect
#: recognition (``benchmarks/referee_eval.py --oracle --fixtures``; docs/observation.md). The
#: 20 evaluation games are other seeds. ``TOUCH_LAG_SD``: their spread (p10-p90 / 2.5).
#: a card taken back from under a later one is seen when it lands in its slot: it left the
#: pile about this long before the hand came over the slot (carry of ~20 cm; docs/observation.md),
#: when no hand of its player was seen over the pile (``Observer._lifted_from_beneath``)
TAKE_BACK_CARRY_S = 0.25
#: ... and when one was, it left the pile as that hand came over it, which is at most this long
#: before the slot went busy: the arm reaching out may cross the slot first (game 5051: 0.21 s)
TAKE_BACK_REACH_S = 0.5
#: a hand that takes a card back off a pile lifts it at most this long after it came over the
#: pile, and leaves the pile at least ``TAKE_BACK_LEAVE_S`` after the lift (the 33 take-backs
#: of games 5600-5619, 5640-5659 and 5690-5709 with perfect recognition whose hand was seen:
#: lifted 0.18 s before to 0.06 s after the hand came, which left 0.078-0.29 s after the lift;
#: ``Observer._lifted_after_cover``)
TAKE_BACK_LIFT_S = 0.1
TAKE_BACK_LEAVE_S = 0.07
#: a card is taken back off a pile at least this long after the pile first looked different
#: (the hand arrived): in the 20 evaluation games the lift came 0.03-0.2 s after, median 0.1;
#: six take-backs whose pile settled within 0.2 s of the hand's arrival were put ~0.25 s early
TAKE_BACK_GRAB_S = 0.06
#: a take-back (a fault when the card was played legally) is inferred only from a card read at
#: least this surely: on the model's 20 evaluation games 85 % of right identities were read so
#: surely and 18 % of wrong ones; 7 false F_TAKE_BACK came from misreads at 0.4-0.67. A pile
#: whose reading names its top as the runner-up, this surely too, keeps its top (stop 22: two
#: false F_TAKE_BACK in games 5017 and 5018, read at 0.80-0.86 with the top at 0.85-0.87; the
#: true take-backs' runner-ups were other cards, or the top below 0.01)
TAKE_BACK_CONFIDENCE = 0.75
#: ... or at least this share as surely as the card read (stop 25: game 5018 at 960x540, a pile
#: read 2D at 0.76 with its top AC second at 0.59, a false F_TAKE_BACK and three faults after it)
TAKE_BACK_TOP_SHARE = 0.5
#: a card found underneath another touched the pile about this long after it left its slot
#: (the median carry of the 187 plays in the 20 evaluation games; 0.33-0.58 s for 80 %)
PLAY_CARRY_S = 0.46
#: A card carried from a stock slot to a spit pile takes at least this long (the self-play
#: bots' shortest motion; a slot seen to lose its card later than this before the touch was
#: still under the arm that carried it)
MIN_CARRY_S = 0.15
#: ... give or take this, a touch's uncertainty (two frames)
UNDER_TOUCH_SLACK_S = 0.07
#: a card at rest outside the zones waits this long for the departure that explains it
STRAY_WAIT_S = 1.0
#: a spit card waits at most this long for a busy stock slot that may hold an earlier turn ...
SPIT_WAIT_S = 1.5
#: ... which is then put this long after the hand came over the slot (in the evaluation games
#: a turn found late came 0.3-0.6 s after the arm arrived; the slot settled 1-2 s later)
TURN_AFTER_ARRIVAL_S = 0.4
TOUCH_LAG_S = {"play": 0.12, "spit": 0.10, "move": 0.10, "turn": 0.16, "take_back": 0.20, "take_pile": 0.23,
               "deal": 0.21}
TOUCH_LAG_SD = 0.035
#: A stock slot that settles under the still hand that turned its card settles this long after
#: the card landed (the median of the 153 such turns in the 20 evaluation games with perfect
#: recognition; 0.01-0.08 s for 80 %). Its picture stops moving earlier, while the card is
#: still held, so the quiet time and ``TOUCH_LAG_S`` would put the turn ~0.2 s early.
TURN_UNDER_HAND_LAG_S = 0.024
#: ... but a hand that stays over the slot, moving, after the turn settles it late (at 1280x720,
#: 5 of 104 such turns of the first 15 evaluation games with perfect recognition were 0.30-0.76 s
#: late): a card turned from its back has landed at most this long after its slot went busy
#: (the simulator's hands land it ~0.35 s after; with this bound all 104 were within 0.25 s, and
#: the 97 of the first 10 games at 960x540 stayed so, median error 9 ms before and after).
#: 0.4 was tried at stop 47 and not kept (docs/observation.md, "Times").
TURN_AFTER_BUSY_MAX_S = 0.5
#: A back's slot that settled "empty" under a hand and went busy again within this many frames
#: was under the same visit of the hand: a card it then shows was turned in the first spell.
TURN_HIDDEN_GAP_FRAMES = 6
#: ... and one that settled still showing the back, within this many: a pause of the turning
#: hand (game 5455: 1 frame); a hand that lay still on the back longer (game 5543: B's hand on
#: the 6C's back 5 frames, busy again 6 frames after it settled) turned it in its second spell
BACK_HIDDEN_GAP_FRAMES = 3
#: A hand putting a spit card down is on the pile for this long before the card touches it.
SPIT_PLACE_S = 0.25
#: ... and its fingertips are still on the pile up to this long after (the card reaches further
#: than the fingers that hold it: game 5460, B's tip first seen on pile 2 54 ms after B's spit
#: card touched it, while A's arm, crossing to pile 1, had passed over it just before).
SPIT_TIP_AFTER_S = 0.1
#: A spit card is taken from the packet at most this long before its pile starts to change.
SPIT_REACH_S = 1.5
#: ... and no later than this after it touched the pile (the touch is estimated; game 5702: B's
#: hand was last seen at B's packet 0.21 s before B's card touched pile 2; A's hand was there
#: 0.1 s after that card's estimated touch, fetching A's next card)
SPIT_VISIT_AFTER_S = 0.05
#: A pile read as its old top, its runner-up at least this share as sure, is read as that
#: runner-up when it can be a spit card (``Observer._read_as_spit``)
SPIT_RUNNER_UP_SHARE = 0.8
#: A pile that settled by a carried landing and went busy again within this many frames (the
#: hand lifting off the card) shows that card still (``Observer._read_again_after_carry``).
CARRY_SETTLE_AGAIN_FRAMES = 2
#: A pile's picture changed at least this much (the mean grey difference between its settled
#: views) may hold a new card that was misread (``Observer._read_as_spit``,
#: ``Observer._read_as_alike_departed``); game 5083's spit AC on the 5C: 19.9, game 5084's JH on
#: the QD: 21.8; game 5113: B's arm passing over pile 1 to put B's spit card on pile 2, 6.8,
#: the 2H read again as 2H at 0.88 and 2D at 0.74 was taken for a spit 2D, and B's 3C on pile 2
#: was left unexplained
NEW_CARD_DIFFERENCE = 10.0
#: A pile change waits at most this long for a stock slot to settle when the slot's face-up
#: card may lie underneath the pile's new top (a hand of the slot's player was on the pile).
UNDER_WAIT_S = 0.5
#: Two slots of one player whose busy spells began at most this many frames apart were grabbed
#: by one hand at once (two cards in one hand): the slot other than the new top's is waited for.
#: 0.1 s at 30 fps; the simulator's two-card grabs begin 0.05 s apart (games 5000-5019, fixture
#: two-cards), and an arm lying over another slot of the player went busy 0.2 s after (fixture
#: illegal-rank).
GRAB_TOGETHER_FRAMES = 3
#: ... or that went busy at most this many frames before the top's slot: the hand that took
#: both came over that slot first (game 5585, both recognitions: B's AC, its slot busy 7 frames
#: before the 5S's, settled 2 frames after pile 1 showed the 5S on it; not waited for, the AC
#: beneath was lost with its F_TWO_CARDS). Not after: an arm lying over another slot of the
#: player goes busy after the top's (fixture illegal-rank: 6 frames).
GRAB_BEFORE_FRAMES = 8
#: A busy slot whose part clear of hands differs from its settled view in less than this share
#: (``ZoneObservation.visible_change``) still holds its card. In 4 fixtures-and-games sets of
#: busy slots (tests/fixtures and games 5000, 5003, 5006, 5009): 72 % of the frames where the
#: card was still there were under it, and 1 of 235 where it had left 5 frames before or more.
KEPT_CARD_CHANGE = 0.05
#: How long hand positions are remembered (to tell which hand took a card).
HAND_MEMORY_S = 3.0
#: The part of two joined arms (split by which edge each cell is nearer) whose tip stops at most
#: this far short of a spit pile may lie on it: the split line runs where the hands meet
JOINED_TIP_MM = 15.0
#: A busy stock slot whose player's fingertips (a hand's tip) came no nearer than this to its
#: outline since it went busy, while their arm was seen over it, lay under the arm only: its
#: card cannot have been taken, and a pile's change does not wait for it. Measured with stop
#: 53's code on games 5220-5299 (perfect recognition) and race seeds 6580-6599 (the model): of
#: the 18 waits for a slot whose card had in truth left, the tip came inside its outline (by
#: 9-38 mm) in 17 and within 5 mm of it in the last; of the 987 waits for a slot that kept its
#: card, 349 had every tip more than 20 mm off it (in the races 14 of 23, 13 waiting 0.37-0.53 s).
SLOT_REACH_MM = 20.0
#: How long the times a hand was at its packet are remembered: a spit card's pile change may be
#: explained seconds after it settled (waiting for other zones), with ``SPIT_REACH_S`` before it
PACKET_MEMORY_S = 10.0
#: a player's second blob counts as their other hand (for ``hand``) only this large: the
#: evaluation games' small blobs at B's edge (2900-5200 mm^2, no hand in the frame) made the
#: hand wrong in 25 of 27 plays; a hand with its forearm on the mat is 14000-24000 mm^2
SECOND_HAND_MM2 = 6000.0
#: Of a player's two hands, the one whose tip is nearer a slot clearly took its card only when
#: no further than this share of the other's distance (game 5093: 72 and 81 mm, not clear; of
#: the 27 cards taken with two hands on the mat in games 5000-5045 with perfect recognition,
#: 25 at 0.11-0.65, the others at 0.76 and 1.0).
HAND_NEAR_SHARE = 0.75
#: A hand's tip on a spit pile this many frames in a row visited it (``Observer._fingers_back``).
PILE_VISIT_FRAMES = 3
#: A card leaves its slot this long before the slot's picture stops moving (the hand lifting it away).
LEFT_LAG_S = 0.1
#: ... and at least this long before its busy slot first shows the printed mat at its centre (of
#: the 93 plays from slots left empty in games 5600-5617 and 5690-5706 with perfect recognition,
#: 0.066-0.94 s before, median 0.28 s; ``Observer._left``)
BARE_AFTER_LEFT_S = 0.066
#: A slapping hand is seen over the pile this long before it lands.
SLAP_LEAD_S = 0.11
#: How many of the latest plays' times are kept (``Observer.retimed_play``).
RECENT_PLAYS = 8
#: A departure and an arrival belong together within this many seconds.
PAIR_WINDOW_S = 2.5
#: A zone that settled under a still hand is believed only for a card read at least this surely
#: (a stock slot: ``SLOT_UNDER_HAND_CONFIDENCE``, its card part covered by the hand that
#: turned it; read again when the hand has left).
HAND_OVER_CONFIDENCE = 0.5
SLOT_UNDER_HAND_CONFIDENCE = 0.8
#: A spit pile's new top that no slot held (only a spit card could be it) is believed when read
#: at least this surely; a reading less sure is read again (``REREAD_EVERY``), as a card not
#: read surely (:meth:`Observer._doubtful_spit_card`).
SPIT_READ_CONFIDENCE = 0.6
#: A hand is over a zone without a break while the frames that show it there are this close.
VISIT_GAP_S = 0.07
#: A hand on a spit pile when the round is known over, there since before the last play's touch
#: time plus this (the time is estimated; a slapping hand comes later: 0.4 s in slap-eval seed
#: 6005), lingers: it is not a slap until it leaves and comes back, or the other player slaps.
LINGER_AFTER_PLAY_S = 0.15
#: A hand over a spit pile, still for this long after a round ended, is a slap.
SLAP_STILL_S = 0.1
#: After a round, an arm on no pile that ends this close to a pile the other player's hand
#: covers may have had its hand cut off and joined to that blob (``Observer._joined_on``).
ARM_AT_PILE_MM = 25.0
#: During play, a hand whose tip lies on a spit pile, within ``EARLY_SLAP_TIP_MM`` of where it
#: came to rest, this long, while the pile keeps its card, is slapping it (before the round
#: ended). In games 5001, 5004, 5009 and 5010 the hand that put a card down or took it back
#: lay still on the pile for 0.30 s at most; the two early slaps, 0.57 and 0.63 s.
EARLY_SLAP_STILL_S = 0.4
EARLY_SLAP_TIP_MM = 12.0
#: ... or back where it lay before within this long: the tip, the hand's furthest point into
#: the mat, flips between two fingertips about as far in (game 5145: B's hand on pile 2, its
#: tip 22 mm aside for 0.1 s)
EARLY_SLAP_FLIP_S = 0.2
#: ... given when the pile is clear again, looking as before the hand came, within this long
#: after the hand left
EARLY_SLAP_WAIT_S = 2.0
#: ... and not when a stock slot of the player, clear again, looked different
#: (``ZoneObservation.as_before``) from this long before the hand came to as long after it
#: left: the hand carried a card (put down and taken back under the still hand, it leaves the
#: pile as it was; a model that did not read it would see a slap). In fixture illegal-rank
#: the slot was clear again 0.4 s after the hand left the pile; in game 5010 a play's slot
#: 0.9 s before the slap.
EARLY_SLAP_SLOTS_S = 0.5
#: A zone that settled showing a face-up card recognition could not read surely is read again
#: every this many frames (another frame: other noise, the hand further away) ...
REREAD_EVERY = 3
#: A stock slot read "empty" (recognition found no card) while the tracker sees its printed
#: number hidden is not believed, its hand unseen, for at most this long (read again every
#: ``REREAD_EVERY`` frames): a pale hand over a white card can pass into the tracker's
#: background, and it hides the card from recognition (game 5309 with the model: A's JS under
#: A's hand, read "empty" as the tracker lost the hand, was taken for the card A played with
#: the 7S: four false faults; game 5240, B's back under B's hand). In games 5240, 5300-5309 and
#: 5260-5264 with the model (stop 53), of the slots read "empty" 73 showed their number
#: (occupancy 0.04-0.14, against 0.25 for hidden) and 104 did not, all but these two with a hand
#: seen on them; both of the two held a card. Since stop 62 a spit pile read "empty" with its
#: printed label hidden too (game 5604 with the model: A's hand slapping pile 1 during play, not
#: seen as the pile settled; a take-pile, a false F_WRONG_TAKE, and the F_EARLY_SLAP lost)
EMPTY_UNSEEN_MAX_S = 1.0
#: ... for at most this long; meanwhile later events wait behind it (they may depend on it).
#: Then the card read most often is taken if it was read at least half of the times (in the
#: evaluation games a spit card read at 0.4-0.45 every time had the right rank: missing it
#: made the engine wait for a spit and fault every later play as early).
REREAD_FOR_S = 1.0
#: A stock slot showing a back that settled under a still hand with its picture changed, read
#: as a back still, may be in the middle of a turn (the card lands as the hand stops): it is
#: read again (``REREAD_EVERY``) for this long. Later events do not wait for it. In game 5006
#: a slot settled 4 ms before its card landed, was read as the back, and the turn was seen
#: only when the hand moved again, 0.44 s late.
TURN_LOOK_S = 0.2
#: In a stock slot that showed a back, a face-up card guessed as another card at a change
#: explains the card read surely later (it lay there since that change) only if the guess has
#: the card's rank or suit, or was made at least this surely. Over games 5600-5619 with the
#: model (stop 62), 9 of the 10 such explanations were right, each from a guess of the card's
#: suit (at 0.11-0.48); the wrong one, game 5609's, timed A's AC turn 0.29 s early from a JS
#: guessed at 0.06 while the back was still turning (stop 23's game 5012, 3C guessed 2S at
#: 0.39, stays explained). An earlier change that guess covered counts guessed as any card
#: (``Observer._first_guessed``; game 5554 with the model: B's 8C guessed 6S at 0.09 as it landed).
GUESS_HINT_CONFIDENCE = 0.25
FACE_UP_LABELS = frozenset({"back", "empty", "card"})


@dataclass(frozen=True)
class ZoneReading:
    """What recognition read on top of a zone when it settled."""

    zone: str
    label: str  # a card code ("QH"), "back", "empty", or "card" (face up, not read)
    confidence: float
    frame: int
    time: float
    guess: str | None = None  # for "card": the card recognition thought likeliest
    runner_up: str | None = None  # for a card identity: the identity read next most surely
    runner_up_confidence: float = 0.0
    #: the identity is not read but the card seen leaving its slot (the only one that can have
    #: come: :meth:`Observer._read_as_the_card_that_left`); ``confidence`` is the reading's
    left_slot: tuple[Player, int] | None = None
    #: the identity is the likeliest of the guesses made while no reading was sure
    #: (:meth:`Observer._give_up_reading`); ``confidence`` is theirs, on average
    from_guesses: bool = False

    @property
    def card(self) -> Card | None:
        return None if self.label in FACE_UP_LABELS else Card.parse(self.label)

    def as_runner_up(self) -> ZoneReading:
        """The same reading taken as its runner-up (which the reading then puts second)."""
        if self.runner_up is None:
            raise ValueError(f"{self.zone}: a reading with no runner-up")
        return replace(self, label=self.runner_up, confidence=self.runner_up_confidence,
                       runner_up=self.label, runner_up_confidence=self.confidence)


@dataclass
class _Departure:
    card: str
    player: Player
    slot: int
    start: float  # when the card left (see Observer._left)
    frame: int  # the slot settled without the card
    time: float
    used: bool = False
    since_frame: int | None = None  # the frame where the slot's busy spell that took it began
    since_t: float | None = None  # ... and its time
    #: when the slot first went busy after its card was last believed there (the earliest the
    #: hand can have come for it: an earlier busy spell may have settled under the hand)
    came_t: float | None = None
    #: no later than this it was taken: the last time its player's fingers were at the slot
    #: before they reached a spit pile (None: not known; see ``Observer._reach_before_pile``)
    taken_by: float | None = None

    @property
    def taken(self) -> float:
        """When the card left, for its action's ``start``: ``start``, or ``taken_by`` when that
        is earlier (an arm that stays over the slot keeps its picture moving after the card
        left). Cards are ordered by ``start``, which is measured alike for every slot."""
        return self.start if self.taken_by is None else min(self.start, self.taken_by)


@dataclass
class _Unread:
    """A settled change whose face-up card was not read surely: read again (``REREAD_EVERY``)."""

    change: ZoneChange
    since: tuple[float, int]
    readings: list[ZoneReading]

    @property
    def last_frame(self) -> int:
        return self.readings[-1].frame

    def likeliest(self) -> ZoneReading | None:
        """The card guessed most often, if in at least half of the readings (its mean confidence)."""
        guesses = [r.guess for r in self.readings if r.guess is not None]
        if not guesses:
            return None
        best = max(set(guesses), key=guesses.count)
        if 2 * guesses.count(best) < len(self.readings):
            return None
        confs = [r.confidence for r in self.readings if r.guess == best]
        last = self.readings[-1]
        return ZoneReading(last.zone, best, sum(confs) / len(confs), last.frame, last.time, from_guesses=True)


#: a slot's change that showed what was not believed under a hand: (change, since, reading)
_SeenUnder = tuple[ZoneChange, tuple[float, int], ZoneReading]


@dataclass
class _PileCard:
    card: str
    player: Player | None
    slot: int | None  # None: a spit card (from the packet)


@dataclass
class _HandSeen:
    first: float  # first time over the pile
    slapped: bool = False  # its slap was given (during play: or the visit turned out a play)
    lingering: bool = False  # already there when the round ended: not a slap until it leaves and comes back
    # during play (an early slap): where its tip came to rest and when, the pile's top then,
    # and how long it had lain still when that was long enough
    anchor: tuple[float, float] = (0.0, 0.0)
    still_from: float = 0.0
    top: str = ""
    still_s: float | None = None
    rest_before: float | None = None  # ``still_from`` before the tip last moved
    beside: bool = False  # the other player played onto the pile while it lay there, or took back
    top_other: bool = False  # ``top`` is the other player's card
    on_pile: frozenset[str] = frozenset()  # the pile's cards when it came
    differed: bool = False  # the pile, clear again after it left, did not look as before
    anchor_before: tuple[float, float] | None = None  # ``anchor`` before the tip last moved
    moved_at: float = 0.0  # when the tip last moved
    joined_from: float | None = None  # when its arm joined the other player's (None: not joined now)
    # when the pile, busy as the hand came, settled under it (None: busy now, or not yet busy)
    settled_from: float | None = None
    busy_seen: bool = False  # the pile went busy while the hand lay on it

    @property
    def still_since(self) -> float:
        """Since when the hand (on a spit pile during play) has lain still: its tip where it came
        to rest, or the pile, gone busy as it came, settled under it since (the tip, the hand's
        furthest point into the mat, can jump between fingers of a still hand: game 5801, both
        recognitions, B's tip 29 mm aside after 0.3 s while the pile under it stayed settled
        0.43 s; the F_EARLY_SLAP was missed)."""
        return self.still_from if self.settled_from is None else min(self.still_from, self.settled_from)


@dataclass
class ObserverState:
    """What the observer believes lies on the table (for the overlay and the dispute report)."""

    tops: dict[str, str] = field(default_factory=dict)
    piles: dict[int, list[_PileCard]] = field(default_factory=dict)


class Observer:
    """Turns settled zone changes and readings into table events, in time order."""

    def __init__(self, layout: MatLayout, touch_lag_s: Mapping[str, float] | None = None) -> None:
        self.layout = layout
        self.touch_lag_s = dict(TOUCH_LAG_S if touch_lag_s is None else touch_lag_s)
        self.state = ObserverState()
        self._zone = {z.id: z for z in layout.zones}
        self._slot_zone: dict[tuple[Player, int], str] = {
            (z.owner, z.number): z.id for z in layout.zones
            if z.kind is ZoneKind.STOCK and z.owner is not None and z.number is not None}
        self._pile_zone: dict[int, str] = {z.number: z.id for z in layout.zones
                                           if z.kind is ZoneKind.PILE and z.number is not None}
        #: each spit pile's outline (mat mm), for where a hand's tip lies
        self._pile_outline: dict[str, np.ndarray] = {
            zone: self._zone[zone].polygon().astype(np.float32) for zone in self._pile_zone.values()}
        self._slot_outline: dict[str, np.ndarray] = {
            zone: self._zone[zone].polygon().astype(np.float32) for zone in self._slot_zone.values()}
        self._packet_zone: dict[Player, str] = {z.owner: z.id for z in layout.zones
                                                if z.kind is ZoneKind.PACKET and z.owner is not None}
        self._packet_box = {packet: _zone_box(layout.zone(packet)) for packet in self._packet_zone.values()}
        #: (time, player, zones covered, zones touched) of every hand seen, for HAND_MEMORY_S
        self._hand_history: deque[tuple[float, Player, tuple[str, ...], tuple[str, ...]]] = deque()
        #: (time, player, spit pile under the hand's tip) for the hands seen with a tip on a pile
        self._tips_on_piles: deque[tuple[float, Player, str]] = deque()
        #: (frame, time, the hands seen) of every frame, for whose fingers reached a slot
        self._hands_seen: deque[tuple[int, float, tuple[HandBlob, ...]]] = deque()
        self._tracked_now: TrackedFrame | None = None  # the frame ``update`` last saw
        self._packet_visit_used: dict[Player, float] = {}  # the packet visit the last spit card came from
        #: player -> the times their hand was at their packet, for ``PACKET_MEMORY_S``
        self._packet_seen: dict[Player, deque[float]] = {player: deque() for player in self._packet_zone}
        self._departures: list[_Departure] = []
        self._unsettled_since: dict[str, tuple[float, int]] = {}
        #: stock slots: when each first went busy since its card was last believed there
        self._first_busy: dict[str, float] = {}
        #: stock slots: the busy spell (its first frame) in which each last showed the printed
        #: mat at its centre, and when it first did in that spell (``Observer._left``)
        self._bared: dict[str, tuple[int | None, float]] = {}
        #: zones that last settled under a hand showing what was not believed (``empty``, or a
        #: card read unsurely), with that change: busy still, as far as explaining goes, until
        #: their next change or until they are read again with no hand over them
        self._under_hand: dict[str, tuple[ZoneChange, tuple[float, int], ZoneReading]] = {}
        #: such a zone's first busy spell after that change that settled again, still under a
        #: hand, with nothing new: (when it went busy, when it settled), as (time, frame) each
        self._quiet_under_hand: dict[str, tuple[tuple[float, int], tuple[float, int]]] = {}
        # stock slots whose card, turned and read under the hand not surely enough, was gone
        # before the hand left (a back showed again): the change, when it went busy, the reading
        self._turned_unseen: dict[str, tuple[ZoneChange, tuple[float, int], ZoneReading]] = {}
        # ... and when (time, frame) the busy spell began that ended showing the back again
        self._turned_gone_since: dict[str, tuple[float, int]] = {}
        # stock slots read as a card under a hand, then "empty" under it: that first reading
        self._card_under_hand: dict[str, tuple[ZoneChange, tuple[float, int], ZoneReading]] = {}
        #: pile changes waiting for a slot to settle (``UNDER_WAIT_S``), oldest first
        self._waiting: list[tuple[ZoneChange, ZoneReading, tuple[float, int]]] = []
        #: a waiting pile change that settled again with the same top (settled by its carry,
        #: then as usual once the hand had gone): when it settled again
        self._settled_again: dict[str, float] = {}
        #: zone -> player -> the last time a hand touched it (HandBlob.touches: a fifth of it)
        self._hands_over: dict[str, dict[Player, float]] = {}
        #: (time, player, their hands) while a player had two or more hands out, each hand as
        #: (x where the arm comes in, tip x, tip y) in mat mm
        self._two_hands_seen: deque[tuple[float, Player, tuple[tuple[float, float, float], ...]]] = deque()
        self.round_over = False
        self._frame_readings: Mapping[str, ZoneReading] = {}  # the readings ``update`` last had
        #: the spells the round was known over, as (from, to) frames: the engine said so after
        #: frame ``from``'s events, and said it was no longer after frame ``to``'s; the one now
        #: going on as ``_over_from``
        self._over_spells: deque[tuple[int, int]] = deque(maxlen=8)
        self._over_from: int | None = None
        self._slaps: dict[tuple[int, Player], _HandSeen] = {}
        #: after the round: when a player's hand, part of one blob of both arms, first came over
        #: a spit pile before the blob's split moved it to the other pile (``_slap_events``)
        self._merged_came: dict[Player, float] = {}
        #: slaps made while the round was not yet known over, found in the hand memory when it
        #: became so (``note_round_over``): (pile, player, came, left), given at the next frame
        self._slaps_before_known: list[tuple[int, Player, float, float]] = []
        self._early_slaps: dict[tuple[int, Player], _HandSeen] = {}  # hands on a pile during play
        #: hands that lay still on a pile long enough and left: (pile, player), the visit, when it
        #: left, whether the pile was clear again looking as before; a slap ``EARLY_SLAP_SLOTS_S``
        #: or more after it left if no slot of the player that began to change before it left
        #: changed (given up after ``EARLY_SLAP_WAIT_S``)
        self._early_pending: list[tuple[tuple[int, Player], _HandSeen, float, bool]] = []
        #: per player, their stock slots clear again looking changed (the last 8): when each
        #: busy spell began (the slot last settled before), when it was clear again, the slot,
        #: and what it was believed to show then
        self._slot_changes: dict[Player, deque[tuple[float, float, str, str]]] = {}
        self._slot_reads: dict[str, deque[tuple[float, str]]] = {}  # (time, label) of recent readings
        self._turned: dict[str, str] = {}  # slot zone -> the card last given as turned there
        self._slot_settled_t: dict[str, float] = {}  # per stock slot, when it was last settled
        self._returning: dict[str, tuple[Player, int]] = {}  # taken back, not yet seen in its slot
        #: per stock slot, the identities its face-up card has been read as (``_same_card``)
        self._read_as: dict[str, set[str]] = {}
        #: the recent plays: (frame, card) -> (t, whether the referee timed its touch by its carry)
        self._play_times: dict[tuple[int | None, str], tuple[float, bool]] = {}
        self.dealing: set[Player] = set()  # players whose new layout is awaited
        self.slots = 5
        self._dealt_quiet: dict[Player, float] = {}  # latest quiet time of a dealt slot
        #: (card, player, slot) explained before its slot settled -> the time of the change that
        #: explained it (a pile's: the card lay there then)
        self._gone_before_settled: dict[tuple[str, Player, int], float] = {}
        #: strays (cards at rest outside every zone) not yet explained, and those explained:
        #: stray number -> (player, card) of the sixth pile it is
        self._strays_waiting: list[StrayChange] = []
        self._stray_cards: dict[int, tuple[Player, str]] = {}
        #: a pile change explained since the rules engine last said what it expects
        #: (``note_game``): it has not yet judged whether that play ended the round
        self._pile_news = False
        #: events held back behind a spit card (``_hold_spits``) and since when
        self._held: list[TableEvent] = []
        self._held_at: float | None = None
        #: changes whose card was not read surely, read again; events after them wait
        self._unread: dict[str, _Unread] = {}
        #: such a change covered by a later change of its zone not believed either (settled
        #: under a hand, or not read surely again): a card read surely there later as it was
        #: guessed then lay there since it (``_guessed_before``)
        self._covered_unread: dict[str, _Unread] = {}
        #: slots that may be mid-turn (``TURN_LOOK_S``), read again without holding anything
        self._turn_looks: dict[str, _Unread] = {}
        #: a back's slot that settled under a hand whose fingers were at it, still showing the
        #: back -> (that frame, when its busy spell began, how surely the back was read), until
        #: the slot's next change
        self._back_under_hand: dict[str, tuple[int, tuple[float, int], float]] = {}
        self._behind_unexplained: list[TableEvent] = []
        self._slot_zones = set(self._slot_zone.values())
        #: zones whose "empty" reading with their printed label hidden is taken for a hand over
        #: them (``_hidden_by_hand``): stock slots and spit piles
        self._hideable = self._slot_zones | set(self._pile_zone.values())
        #: slots read "empty" under a hand the tracker saw only in its box (``_hidden_by_hand``)
        self._box_hidden: set[str] = set()
        #: stock slots read "empty" with their printed number hidden: since when, and the
        #: frame of the last such look (``_covered_unseen``)
        self._unseen_since: dict[str, float] = {}
        self._unseen_looked: dict[str, int] = {}
        #: per pile zone, a take-back read not surely enough (its top kept): the change, the
        #: reading of the card beneath, when the pile went busy, and how surely that card must
        #: have been read to count (``_take_back_seen_in_slot``); gone at the pile's next change
        self._doubted_take_backs: dict[str, tuple[ZoneChange, ZoneReading, tuple[float, int], float]] = {}
        #: a pile's top read back in its slot before the pile changed: when the slot went busy
        #: and settled, by card (``_lifted_back``)
        self._seen_back: dict[str, tuple[float, float]] = {}
        #: per pile zone, the frame its last change settled by a carried landing
        self._carry_settled: dict[str, int] = {}
        #: spit piles whose last settle was read as the top they showed before (the time it
        #: settled): nothing came or went, whatever moved their picture (gone at the next change)
        self._top_read_again: dict[str, float] = {}
        # pile zone -> (its top, when a card beneath it may have been pulled out, the players whose
        # hands were on the pile then): the pile's last change that read as its top again
        self._same_top: dict[str, tuple[str, float, frozenset[Player]]] = {}

    # ------------------------------------------------------------------ the first frame
    @property
    def _frame(self) -> int:
        """The frame ``update`` last saw (-1 before the first)."""
        return self._tracked_now.frame if self._tracked_now is not None else -1

    @property
    def _last_hands(self) -> tuple[HandBlob, ...]:
        """The hands of the frame ``update`` last saw."""
        return self._tracked_now.hands if self._tracked_now is not None else ()

    def start(self, readings: Mapping[str, ZoneReading], frame: int, t: float,
              deal: bool = True, known: Mapping[str, str] | None = None) -> list[TableEvent]:
        """The table as the first frame shows it. With ``deal``, the layout of a new round:
        each player's deal, the face-up cards of their stock as turns, and the spit cards on
        the piles (pile 1 is A's, pile 2 B's, as players turn them at the start); nothing when
        no more than half the stock slots show a card (the players have not dealt yet, or are
        dealing: the deals are watched; game 5005 at 960x540: the first card being dealt, seen
        in one slot, was taken for a dealt layout, and both deals were missed).
        Without ``deal`` (a game continued from a log) only the observer's picture is set.

        A zone read as a face-up card, but not surely (``card``), holds the card that ``known``
        names for it (the face-up tops by the log of a continued game: zone id -> card code),
        else the card recognition thought likeliest (as :meth:`_give_up_reading` takes it); its
        turn says so (``guessed``). Read surely later as that card, nothing happened; read as
        another, the misread is weighed as any other (race seeds 6084 and 6096 with the model:
        a slot's first reading was 0.43-0.45, its likeliest card the right one; it stayed
        unknown, and when an arm had passed over the slot and it was read surely, it was given
        as a turn, an event that never happened)."""
        known = known or {}
        guessed = {zone for zone, r in readings.items() if r.label == "card" and (known.get(zone) or r.guess)}
        readings = {zone: replace(r, label=known.get(zone) or r.guess or r.label) if zone in guessed else r
                    for zone, r in readings.items()}
        for zone, reading in readings.items():
            self.state.tops[zone] = reading.label
        events: list[TableEvent] = []
        slots = [readings[z].label for z in self._slot_zone.values() if z in readings]
        if deal and sum(label != "empty" for label in slots) <= len(slots) / 2:
            return events  # a mat not yet dealt: the deals are watched as they happen
        ev: dict[str, object] = {"prelude": True, "frame": frame}
        if deal:
            for player in (Player.A, Player.B):
                events.append(Deal(t=t, frame=frame, player=player, evidence=ev))
            for player in (Player.A, Player.B):
                for (owner, slot), zone in sorted(self._slot_zone.items(), key=lambda kv: str(kv[0])):
                    card = readings[zone].card if zone in readings else None
                    if owner is player and card is not None:
                        events.append(Turn(t=t, frame=frame, player=player, slot=int(slot), card=card,
                                           evidence=_guessed(ev, readings[zone]) if zone in guessed else ev))
        for number, zone in sorted(self._pile_zone.items()):
            card = readings[zone].card if zone in readings else None
            self.state.piles[int(number)] = []
            if card is not None:
                player = Player.A if number == 1 else Player.B
                self.state.piles[int(number)].append(_PileCard(str(card), player, None))
                if deal:
                    events.append(SpitTurn(t=t, frame=frame, player=player, pile=int(number), card=card,
                                           evidence=_guessed(ev, readings[zone]) if zone in guessed else ev))
        return events

    # ------------------------------------------------------------------ every frame
    def update(self, tracked: TrackedFrame, readings: Mapping[str, ZoneReading]) -> list[TableEvent]:
        """Events explained by this frame's settled changes (``readings`` has a reading for
        each zone in ``tracked.changes``), plus slaps seen on the hands."""
        self._tracked_now = tracked
        doubtful = {z for z, r in readings.items() if self._doubtful_spit_card(r)}
        if doubtful:  # read again, as cards not read surely
            readings = {z: replace(r, label="card", guess=r.label) if z in doubtful else r
                        for z, r in readings.items()}
        self._frame_readings = readings
        if any(c.faint for c in tracked.changes):
            believed = tuple(c for c in tracked.changes
                             if not c.faint or self._faint_believed(c, readings, tracked))
            tracked = replace(tracked, changes=believed)
        self._follow_hands(tracked)
        changed = {c.zone for c in tracked.changes}
        for (player, _), zone in self._slot_zone.items():  # a slot clear again, changed: a card came or went
            if (obs := tracked.zones.get(zone)) is None:
                continue
            if obs.as_before is False:
                busy_from = self._slot_settled_t.get(zone, -math.inf)  # never seen clear: long busy
                self._slot_changes.setdefault(player, deque(maxlen=8)).append(
                    (busy_from, tracked.time, zone, self.state.tops.get(zone, "empty")))
            if obs.settled:  # an arm passing over it leaves it settled: it has not changed
                self._slot_settled_t[zone] = tracked.time
            if (reading := readings.get(zone)) is not None:
                self._slot_reads.setdefault(zone, deque(maxlen=8)).append((tracked.time, reading.label))
        for zid, obs in tracked.zones.items():
            if not obs.settled:
                self._unsettled_since.setdefault(zid, (tracked.time, tracked.frame))
                if zid in self._slot_zones:
                    self._first_busy.setdefault(zid, tracked.time)
                    if obs.bare and self._bared.get(zid, (None,))[0] != obs.busy_since:
                        self._bared[zid] = (obs.busy_since, tracked.time)
            elif zid not in changed:  # settled again with nothing new: that busy spell is over
                spell = self._unsettled_since.pop(zid, None)
                hidden = self._under_hand.get(zid) if spell is not None and obs.covered else None
                if hidden is not None and spell is not None and spell[1] > hidden[0].frame:
                    first = self._quiet_under_hand.get(zid)  # (one from an older change: replaced)
                    if first is None or first[0][1] < hidden[0].frame:
                        self._quiet_under_hand[zid] = (spell, (tracked.time, tracked.frame))
                if zid not in self._under_hand and zid not in self._unread:
                    self._first_busy.pop(zid, None)
        events: list[TableEvent] = []
        changes = sorted(tracked.changes, key=lambda c: self._order(c.zone))
        settling = {c.zone for c in changes}  # zones settling now: still unsettled for what waits
        piles_awaited = self._piles_awaited(tracked, settling)
        for zone in settling:
            self._top_read_again.pop(zone, None)
        for change in changes:
            # a waiting pile change goes first when this change may depend on it: another pile's,
            # or another slot of a player it waits for (before this zone stops counting as unsettled)
            reading = readings.get(change.zone)
            if reading is not None and any(w.zone == change.zone and r.label == reading.label
                                           for w, r, _ in self._waiting):
                # the same top as the change that waits there (a pile settled by its carry,
                # now settled again clear of the hand): nothing new, and nothing to release
                self._unsettled_since.pop(change.zone, None)
                self._settled_again[change.zone] = change.time
                continue
            if self._waiting and self._depends_on_waiting(change, reading, tracked, settling):
                events += self._release_waiting(tracked, force=True)
            since = self._unsettled_since.pop(change.zone, (change.time, change.frame))
            unread = self._unread.pop(change.zone, None)  # what was not read there is covered now
            covered = self._covered_unread.pop(change.zone, None) or unread
            self._turn_looks.pop(change.zone, None)
            back_under_hand = self._back_under_hand.pop(change.zone, None)
            if reading is None:
                continue
            change = self._hidden_by_hand(change, reading, tracked)
            reading = self._read_as_the_card_that_left(change, reading)
            if back_under_hand is not None and reading.label not in {"back", "empty"} \
                    and self.state.tops.get(change.zone) == "back" \
                    and change.since_frame - back_under_hand[0] <= (
                        BACK_HIDDEN_GAP_FRAMES if back_under_hand[2] >= SLOT_UNDER_HAND_CONFIDENCE
                        else TURN_HIDDEN_GAP_FRAMES):
                # a back's slot settled under the hand still showing the back, busy again at once
                # and then showing a card: the hand stayed, the turn began in the first busy spell
                # and is timed from it (game 5455: A's 7C, the slot busy at 5.13 s, settled under
                # the hand 5.27-5.3 s; timed from the second spell, the turn came 0.26 s late); a
                # back read unsurely there may have been the card, turned, under the hand: busy
                # again as soon after as a slot read "empty" there (game 5738 with the model: A's
                # 9H, its slot read "back" at 0.51 under the hand, busy again 5 frames later, and
                # the 9H read then; timed from the second spell, 0.43 s late)
                since = back_under_hand[1]
            if reading.label == "card":  # face up, not read surely: look again (REREAD_EVERY)
                self._unread[change.zone] = _Unread(change, since, [reading])
                if covered is not None:
                    self._covered_unread[change.zone] = covered
                continue
            if unread is None:
                change, since = self._guessed_before(covered, reading, change, since)
            read_clear = False
            if unread is not None and (reading.label in {r.guess for r in unread.readings} or (
                    change.zone in self._slot_zones and self.state.tops.get(change.zone) == "back"
                    and _hints_at(unread.readings, reading.label))):
                # read surely now as a card guessed there before it changed again (a hand came
                # back over it): the card lay there since the first change, which explains it
                # (stop 25: turns read so came 0.4-0.7 s late, 4 at 1280x720 and 11 at 960x540
                # in the 20 evaluation games with the model). In a slot that showed a back, so
                # does any card after a face-up card guessed as another: in the 40 evaluation
                # games, 17 of 17 times the card read surely lay there at the first change (game
                # 5012 at 960x540: B's 3C guessed 2S at 0.39, 0.6 s late); not after a face-up
                # card with no guess (3 of 3 times the back still lay there then); since stop 63
                # only a guess of its rank or suit or one made surely enough (``_hints_at``: game
                # 5609 with the model, A's AC timed 0.29 s early from a JS at 0.06). So does an
                # earlier change it covered, guessed as a card too (game 5029 at 1280x720 with the
                # model: A's JS guessed JC under the hand, then again after the hand came back,
                # read JS only then: timed from the second change, 0.49 s late). A reading taken
                # clear of the hand is believed though that change settled under it, which still
                # times it (game 5704 with the model: A's 3H guessed AH at 0.4 under the hand, read
                # 3H at 0.68 clear of it; held as a reading under the hand until the slot was read
                # again, and then timed as one clear of it, 0.21 s early; B's 8C the same)
                read_clear = not change.hand_over
                change, since = self._first_guessed(change.zone, unread, reading, covered)
            elif unread is not None and self._new_on_pile(change.zone, reading.label):
                # (read under a hand now, it is believed only as surely as any reading there)
                under_hand = unread.change.hand_over or change.hand_over
                change, since = replace(unread.change, hand_over=under_hand), unread.since
            if change.hand_over and reading.label == "back" and change.zone in self._slot_zones \
                    and self.state.tops.get(change.zone) == "back":
                self._turn_looks[change.zone] = _Unread(change, since, [reading])
                owner = self._zone[change.zone].owner
                fingers = [h for h in tracked.hands if h.player is owner]
                if owner is not None and _within_reach(self._slot_outline[change.zone], fingers):
                    # (the fingers at the slot: not an arm passing over it on its way to a pile,
                    # fixture exchange: B's arm, then B's hand back to turn the 6D 0.4 s later);
                    # the visit from when they came (game 5459: A's arm back over slot 2 at
                    # 18.8 s, the fingers there at 19.07 s, the 8H turned at 19.57 s)
                    came = self._fingers_came(owner, change.zone, since[0] - 1e-6, change.time)
                    self._back_under_hand[change.zone] = (
                        change.frame, (since[0] if came is None else max(since[0], came), since[1]),
                        reading.confidence)
            events += self._explain_or_wait(change, reading, since, tracked, settling, read_clear)
            if covered is not None and change.zone in self._under_hand:
                self._covered_unread[change.zone] = covered
                self._guessed_under_hand(change, reading, covered)
        events += self._second_looks(tracked, readings, changed)
        events += self._turn_second_looks(tracked, readings, changed)
        events += self._clear_looks(tracked, readings, changed)
        for zone in changed & self._slot_zones:  # what settled there is believed: a new start
            if zone not in self._under_hand and zone not in self._unread:
                self._first_busy.pop(zone, None)
        # ... and so does one that began to wait for the other pile settling in this frame
        piles_awaited |= self._piles_awaited(tracked, settling)
        events += self._release_waiting(tracked, force=bool(piles_awaited - set(self._unread)))
        events += self._stray_events(tracked)
        events += self._slap_events(tracked)
        out = self._hold_spits(tracked, self._hold_behind_unexplained(events))
        for e in out:
            if isinstance(e, Play):
                self._play_times[(e.frame, str(e.card))] = (e.t, False)
            elif isinstance(e, Turn) and (e.player, e.slot) in self._slot_zone:
                self._turned[self._slot_zone[(e.player, e.slot)]] = str(e.card)
        while len(self._play_times) > RECENT_PLAYS:
            del self._play_times[next(iter(self._play_times))]
        return out

    def _doubtful_spit_card(self, reading: ZoneReading) -> bool:
        """Whether a spit pile's reading is a card no slot held, new there, read less surely than
        ``SPIT_READ_CONFIDENCE``: only a spit card could be it, and a misread card put there from
        a slot is likelier (race-eval seed 6782 with the model: B's 8H, put on A's 10S on pile 1,
        read QH at 0.53 under the hands, was taken for B's spit card over the two; the 8H, read
        0.68 once the hands had gone, for a card beneath it, not surely enough for a take-back:
        a false F_TAKE_BACK followed). It is read again, as a card not read surely."""
        zone = self._zone.get(reading.zone)
        if zone is None or zone.kind is not ZoneKind.PILE or reading.label in FACE_UP_LABELS \
                or reading.confidence >= SPIT_READ_CONFIDENCE \
                or reading.label == self.state.tops.get(reading.zone):
            return False
        pile = self.state.piles.get(zone.number or 0, [])
        if len(pile) >= 2 and (_alike(reading.label, pile[-2].card) or reading.runner_up == pile[-2].card):
            return False  # maybe the card a take-back uncovers, misread (a take-back doubted)
        return (self._holder(reading.label) is None and self._find_departure(reading.label) is None
                and not self.on_a_pile(reading.label) and not self._is_take_back(reading.zone, reading.label))

    def _last_touch(self, card: str) -> float | None:
        """When ``card`` was last played, as the referee timed it (None if not among the latest plays)."""
        return max((t for (_, played), (t, _) in self._play_times.items() if played == card), default=None)

    @property
    def _last_play_t(self) -> float:
        """The latest play's time, as the referee timed it (-inf before any)."""
        return max((t for t, _ in self._play_times.values()), default=-math.inf)

    def retimed_play(self, frame: int | None, card: str, t: float, by_carry: bool = False) -> None:
        """The referee timed the play this observer gave at ``frame`` with ``card`` at ``t``
        (``by_carry``: its touch from the card's carry): the last play's time, which tells a
        hand that lingers from one that slaps, follows it. Model seed 6056: the last card, read
        only under the slapping hands, was given 0.5 s late, and both slaps were taken for
        hands that had lingered since before it."""
        if (frame, card) in self._play_times:
            self._play_times[(frame, card)] = (t, by_carry)

    def _piles_awaited(self, tracked: TrackedFrame, settling: Collection[str]) -> set[str]:
        """The piles settling now that a waiting pile change waits for: it goes right after
        them (the engine must judge the two in time order), whatever else it would still wait
        for. Also when both settle in one frame (since stop 27: game 5016 at 960x540, pile 1
        waited on for a slot after pile 2, settled with it, was explained; A's play onto pile 2
        was judged first, and its F_TWO_HANDS became a false F_ILLEGAL_RANK)."""
        return {z for waiting in self._waiting
                for z in self._slots_under(*waiting, tracked, settling, busy_piles=settling)
                if z in settling and self._order(z) == 2}

    def _faint_believed(self, change: ZoneChange, readings: Mapping[str, ZoneReading],
                        tracked: TrackedFrame) -> bool:
        """Whether a faint change (``ZoneChange.faint``: a pile's picture changed less than a
        change does) shows a new card: read as a card that left a slot and has not been
        explained, or as the card of a slot still busy (its hand may hold it), or as a card
        read not surely under the hand that turned it in a slot (``_turned_and_played``); not
        as the pile's top. Most such changes are a hand's shadow or a card nudged, read as the
        top again; a card alike (the next rank, of its colour) put square on the top changes a
        pile as little (game 5154: A's 3D on the 2H was missed, A's turn in its slot refused,
        and A's 2D on the 3D judged on the 2H, a false F_ILLEGAL_RANK; with the model the 3D
        had been read 0.61 under the hand that turned it)."""
        reading = readings.get(change.zone)
        label = None if reading is None else reading.label
        if label is None or label in FACE_UP_LABELS or label == self.state.tops.get(change.zone):
            return False
        left = any(d.card == label and not d.used for d in self._departures)
        in_busy_slot = any(top == label and (obs := tracked.zones.get(zone)) is not None and not obs.settled
                           for zone, top in self.state.tops.items() if zone in self._slot_zones)
        # read so, not surely, under the hand that turned it in a slot (``_turned_and_played``)
        turned_unseen = any(seen.label == label for unseen in (self._under_hand, self._turned_unseen)
                            for _, _, seen in unseen.values())
        # a card seen nowhere yet, on a spit pile, a player's hand just at their packet: a spit
        # card (game 5904, both recognitions: A's 2D on the 3S, 50 ms after B's spit card,
        # changed the pile by 5.4; missed, and the next six plays were judged before both spit
        # cards: six false F_EARLY)
        spat = change.zone in self._pile_zone.values() and not self.on_a_pile(label) \
            and not self._face_up_elsewhere(label, change.zone) \
            and bool(self._packet_visits(self._unsettled_since.get(change.zone, (change.time, change.frame)),
                                         change.time))
        if left or in_busy_slot or turned_unseen or spat:
            log.info("frame %d: %s changed faintly (%.1f), read as %s, which %s: a card came", change.frame,
                     change.zone, change.difference, label,
                     "left a slot" if left else "a busy slot held" if in_busy_slot else
                     "was turned unseen" if turned_unseen else "came from no slot after a packet visit")
        return left or in_busy_slot or turned_unseen or spat

    def rereads(self, tracked: TrackedFrame) -> list[str]:
        """Zones to read again this frame: settled showing a card not read surely, last read
        ``REREAD_EVERY`` frames ago or more, and zones whose reading under a hand was not
        believed, now settled clear of hands (give their readings to :meth:`update`)."""
        again = [zone for zone, unread in [*self._unread.items(), *self._turn_looks.items()]
                 if tracked.frame - unread.last_frame >= REREAD_EVERY
                 and (obs := tracked.zones.get(zone)) is not None and obs.settled]
        return again + [zone for zone in self._clear_of_hands(tracked) if zone not in again
                        and tracked.frame - self._unseen_looked.get(zone, -REREAD_EVERY) >= REREAD_EVERY]

    def believed_tops(self) -> dict[str, str]:
        """What is believed to lie on each zone, but for a zone that settled under a hand
        showing what was not believed (its top is in doubt: the card may have gone): the
        arbiter cuts a slot's face only from a view that shows the card believed there (race-eval
        seed 6324: B's slot 4, its 8H gone, settled under B's arm looking empty; the face cut
        from that view, taken for the 8H, followed nothing, and the 8H was taken to have left
        its slot only after A's card touched: no touch race)."""
        if not self._under_hand:
            return self.state.tops
        return {z: top for z, top in self.state.tops.items() if z not in self._under_hand}

    def _clear_of_hands(self, tracked: TrackedFrame) -> list[str]:
        """Zones that settled under a hand showing what was not believed, settled now with no
        hand over them: to be read again (:meth:`_clear_looks`). Not one whose later change
        waits (:meth:`_explain_or_wait`): that change explains it (game 5692 with the model:
        pile 2 read empty under B's early-slapping hand at 25.2 s, A's 6C landed at 25.79 s and
        its change waited for A's slot; read again clear of the hands meanwhile, the 6C was
        timed from the slap's change, 0.77 s early: a false F_ILLEGAL_RANK for an F_TWO_HANDS)."""
        if not self._under_hand:  # the common case, every frame
            return []
        waiting = {change.zone for change, _, _ in self._waiting}
        return [zone for zone in self._under_hand
                if zone not in waiting
                and (obs := tracked.zones.get(zone)) is not None and obs.settled and not obs.covered
                and not self._hand_touches(zone, tracked)
                and not (zone in self._box_hidden and self._hand_box_on(zone, tracked))]

    @staticmethod
    def _hand_touches(zone: str, tracked: TrackedFrame) -> bool:
        """The tracker says a hand covers the zone's centre or touches it."""
        return any(zone in hand.zones or zone in hand.touches for hand in tracked.hands)

    def _hand_box_on(self, zone_id: str, tracked: TrackedFrame) -> bool:
        """A hand's box overlaps the zone: an arm may reach across it, which the tracker may not
        see where it lies over a card of its own colour."""
        zone = self._zone.get(zone_id)
        return zone is not None and any(_boxes_overlap(hand.bbox_mm, _zone_box(zone))
                                        for hand in tracked.hands)

    def flush(self, tracked: TrackedFrame) -> list[TableEvent]:
        """What is still waiting or held at the end of the video, in time order."""
        events = [ev for zone in list(self._unread) for ev in self._give_up_reading(zone)]
        events += self._release_waiting(tracked, force=True) + self._behind_unexplained + self._held
        events += self._early_slaps_at_end(tracked.frame)
        self._behind_unexplained = []
        self._held, self._held_at = [], None
        return sorted(events, key=lambda e: e.t)

    def _explain_or_wait(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                         tracked: TrackedFrame, settling: Collection[str] = (), read_clear: bool = False
                         ) -> list[TableEvent]:
        """Explain a change now, or (a pile whose slot may hide a card beneath) let it wait."""
        if self._order(change.zone) == 2 and self._slots_under(change, reading, since, tracked,
                                                               busy_piles=settling):
            self._waiting.append((change, reading, since))
            return []
        return self._explain(change, reading, since, read_clear)

    def _hidden_by_hand(self, change: ZoneChange, reading: ZoneReading, tracked: TrackedFrame
                        ) -> ZoneChange:
        """``change`` as one under a hand (``hand_over``: an "empty" reading is not believed
        until the hand has gone, :meth:`_clear_looks`) when a stock slot is read "empty" while
        its printed number stays hidden and a hand lies on part of it: the hand may hide the
        card. The tracker marks a hand over a zone by the zone's centre; on a light mat a hand
        can show only round it (game 5009 at 1280x720: B's 7S under such a hand, read "empty"
        twice, was taken for a card gone under the pile's new top: two false faults). The
        tracker may also miss an arm of the card's colour lying over the card (race
        seed 6083 with the model: B's arm, reaching over B's 5C to pile 1, hid all but its
        corner; read "empty", the 5C was taken for the card B played, and B's 8C, played from
        the slot beside it, for a second card a second later: a race and its fault lost;
        :meth:`_hand_box_on`). Such a slot is read again only when no hand's box overlaps it
        (``_box_hidden``); any other, as before, when no hand touches it: an arm reaching from
        the player's edge to a pile lies in the box of the slots it passes (slap-eval seed 6080
        with perfect recognition: A's slot, empty under A's slapping arm, was not read again
        until the arm had gone, and a spit and a false F_TAKE_BACK followed). A slot read so with
        no hand seen at all is taken for covered too, by a hand the tracker lost (a pale hand over
        a white card passes into its background), for ``EMPTY_UNSEEN_MAX_S`` at most
        (:meth:`_covered_unseen`); since stop 62 so is a spit pile read "empty" with its printed
        label hidden and no hand seen (game 5604 with the model)."""
        self._box_hidden.discard(change.zone)
        self._unseen_since.pop(change.zone, None)  # a new look: its wait starts again
        obs = tracked.zones.get(change.zone)
        if (reading.label != "empty" or change.hand_over or change.zone not in self._hideable
                or obs is None or not obs.occupied):
            return change
        if self._hand_touches(change.zone, tracked):
            return replace(change, hand_over=True)
        if self._hand_box_on(change.zone, tracked):
            self._box_hidden.add(change.zone)
            return replace(change, hand_over=True)
        # no hand seen, yet no card and no printed number either: a hand the tracker lost
        # (``_covered_unseen``)
        return replace(change, hand_over=True)

    def _second_looks(self, tracked: TrackedFrame, readings: Mapping[str, ZoneReading],
                      changed: Collection[str]) -> list[TableEvent]:
        """The zones read again: a sure reading explains their change; after ``REREAD_FOR_S``
        the likeliest card does (:meth:`_give_up_reading`)."""
        events: list[TableEvent] = []
        for zone, unread in list(self._unread.items()):
            if zone in changed:
                continue
            reading = readings.get(zone)
            if reading is not None and reading.label != "card":
                del self._unread[zone]
                covered = self._covered_unread.pop(zone, None)
                change, since = self._first_guessed(zone, unread, reading, covered)
                change = self._hidden_by_hand(change, reading, tracked)
                events += self._explain_or_wait(change, reading, since, tracked)
                continue
            if reading is not None:
                unread.readings.append(reading)
            if tracked.time - unread.change.time >= REREAD_FOR_S:
                events += self._give_up_reading(zone)
        return events

    def _turn_second_looks(self, tracked: TrackedFrame, readings: Mapping[str, ZoneReading],
                           changed: Collection[str]) -> list[TableEvent]:
        """Slots that may be mid-turn, read again: a face-up card explains their change (a turn
        timed from it); a card not read surely goes to the ordinary second looks; after
        ``TURN_LOOK_S`` of backs the look ends."""
        events: list[TableEvent] = []
        for zone, look in list(self._turn_looks.items()):
            if zone in changed:
                continue
            reading = readings.get(zone)
            if reading is not None and reading.label not in FACE_UP_LABELS:
                del self._turn_looks[zone]
                events += self._explain(look.change, reading, look.since)
            elif reading is not None and reading.label == "card":
                del self._turn_looks[zone]
                self._unread[zone] = _Unread(look.change, look.since, [reading])
            elif (reading is not None and reading.label != "back") \
                    or tracked.time - look.change.time >= TURN_LOOK_S:
                del self._turn_looks[zone]
            elif reading is not None:
                look.readings.append(reading)
        return events

    def _clear_looks(self, tracked: TrackedFrame, readings: Mapping[str, ZoneReading],
                     changed: Collection[str]) -> list[TableEvent]:
        """Zones that settled under a hand showing what was not believed, read again once the
        hand has gone without changing them further (a hand beside a slot it just emptied: the
        empty slot under the hand was right): the reading explains that change now."""
        events: list[TableEvent] = []
        for zone in self._clear_of_hands(tracked):
            reading = readings.get(zone)
            if zone in changed or reading is None or self._covered_unseen(zone, reading, tracked):
                continue
            self._unseen_since.pop(zone, None)
            change, since, hidden = self._under_hand.pop(zone)
            change = replace(change, hand_over=False)
            landed = self._quiet_under_hand.pop(zone, None)
            if landed is not None and landed[0][1] > change.frame and hidden.label == "empty" \
                    and self.state.tops.get(zone) == "back" and reading.label not in FACE_UP_LABELS:
                # a back's slot read empty under the hand (its card lifted to be turned), busy
                # again and settled under the hand with nothing new seen, then showing a card
                # when the hand had gone: the card landed in that later spell (game 5690, both
                # recognitions: B's 2S lifted at 4.1 s, landed at 4.33 s, the hand there till
                # 4.5 s; timed from the first spell, 0.46 s early), as a turn settled under it
                (busy, settled) = landed
                change = replace(change, frame=settled[1], time=settled[0], since_frame=busy[1],
                                 quiet_frame=settled[1], quiet_time=settled[0], hand_over=True)
                since = busy
            if reading.label == "card":  # face up, not read surely: the ordinary second looks
                later = self._unread.get(zone)
                if later is None or later.change.frame < change.frame:
                    # (a later change there, not read surely either, is being read again: it
                    # stands; game 5531 with the model: B's slot 2 settled under the hand as a
                    # back read at 0.49, changed again as the 5D landed and was read unsurely;
                    # the first change took its place, and the turn came 0.45 s early)
                    self._unread[zone] = _Unread(change, since, [reading])
            else:
                covered = self._covered_unread.pop(zone, None)
                change, since = self._guessed_before(covered, reading, change, since)
                events += self._explain_or_wait(change, reading, since, tracked, read_clear=True)
        return events

    def _covered_unseen(self, zone: str, reading: ZoneReading, tracked: TrackedFrame) -> bool:
        """Whether a stock slot (or spit pile) read "empty" while the tracker sees its printed
        number (label) hidden (``occupied``) is still taken for covered by a hand the tracker
        does not see: for ``EMPTY_UNSEEN_MAX_S`` from the first such look."""
        obs = tracked.zones.get(zone)
        if reading.label != "empty" or zone not in self._hideable or obs is None or not obs.occupied:
            return False
        if tracked.time - self._unseen_since.setdefault(zone, tracked.time) >= EMPTY_UNSEEN_MAX_S:
            return False
        self._unseen_looked[zone] = tracked.frame
        return True

    def _new_on_pile(self, zone: str, label: str) -> bool:
        """Whether ``zone`` is a spit pile and ``label`` a card not already in it. Read surely
        there after a change not read surely (under the hands of a touch race), such a card came
        with that first change: the pile stayed busy since (race-eval seeds 6172 and 6209 with the
        model: A's 10H (10D) and B's 8C landed together; the pile read unsurely as QC (KC) under
        the hands, then as the 8C 0.4 s later, so the 8C was timed from then and the card beneath
        it, which had left its slot before, was not looked for: taken for a play onto the 8C when
        B took the 8C back, a false F_LOST_TOUCH and F_TAKE_BACK). Not a card already in the
        pile: one showing again is a take-back, done when it shows (race-eval seed 6124)."""
        pile = self._zone.get(zone)
        if pile is None or pile.kind is not ZoneKind.PILE or label in FACE_UP_LABELS:
            return False
        return all(p.card != label for p in self.state.piles.get(pile.number or 0, []))

    def _guessed_under_hand(self, change: ZoneChange, reading: ZoneReading, covered: _Unread) -> None:
        """A back's slot that showed a face-up card not read surely under the hand (``covered``,
        guessed as a card), then "empty" under it (the hand over the card): the guess is kept as
        the card read there under the hand (``_card_under_hand``), so that the card read surely
        later, if it or its twin (``_explain``), is timed from that first change (game 5766 with
        the model: A's AC, turned at 7.58 s, read "card" at 0.44 under the hand, guess AS, then
        "empty" under it, then AC at 0.74: timed from the last, 0.63 s late)."""
        zone = change.zone
        if reading.label != "empty" or zone not in self._slot_zones or zone in self._card_under_hand \
                or self.state.tops.get(zone) != "back" or not change.hand_over:
            return
        best = covered.likeliest()
        if best is not None:
            self._card_under_hand[zone] = (covered.change, covered.since, best)

    @staticmethod
    def _guessed_before(covered: _Unread | None, reading: ZoneReading, change: ZoneChange,
                        since: tuple[float, int]) -> tuple[ZoneChange, tuple[float, int]]:
        """The change (and when its zone went busy) that a sure ``reading`` explains: a change
        not read surely there before, covered by later changes none of which was believed,
        when it was guessed then as the card now read (slap-eval seed 6164 with the model:
        A's last card, 7D, guessed 7D at 0.27-0.33 under A's lingering hand, then read empty
        under the slapping hands, and surely 7D only when they had gone: timed 0.45 s late, the
        round was known over too late, and both slaps were lost); else ``change`` itself."""
        if covered is not None and reading.label in {r.guess for r in covered.readings}:
            return covered.change, covered.since
        return change, since

    def _give_up_reading(self, zone: str) -> list[TableEvent]:
        """Stop reading a zone again: its change is explained by the card read most often, if
        read at least half of the times and no hand lay over the zone (or, under a hand, read
        on average as surely as a reading under a hand is believed); else it is left."""
        unread = self._unread.pop(zone)
        best = unread.likeliest()
        if best is not None and unread.change.hand_over and best.confidence < HAND_OVER_CONFIDENCE:
            # (a card guessed under a hand is not believed; one read as surely as a reading under
            # a hand is, only not as surely as a spit card needs, ``_doubtful_spit_card``, is)
            best = None
        if best is None:
            self._covered_unread.pop(zone, None)
            taken = self._unread_take_back(zone, unread)
            if taken:
                return taken
            if zone in self._unsettled_since:
                # busy again (its next change drops it): that change, read surely as a card
                # guessed here, came at this one (``_guessed_before``; game 5963 with the model:
                # B's 2S guessed under the hand that turned it, the slot busy again 1.1 s with
                # B's arm, then read 2S surely: given up meanwhile, the turn was timed from the
                # second change, 0.6 s late)
                self._covered_unread[zone] = unread
                return []
            log.info("frame %d: %s shows a card that was not read in %d looks", unread.change.frame, zone,
                     len(unread.readings))
            return []
        change, since = self._first_guessed(zone, unread, best, self._covered_unread.pop(zone, None))
        return self._explain(change, best, since)

    def _unread_take_back(self, zone: str, unread: _Unread) -> list[TableEvent]:
        """A spit pile that showed a face-up card never read after its change, never guessed as
        its top, while that top, played from a slot, was read back in that slot within
        ``PAIR_WINDOW_S`` and is believed there (``_back_in_its_slot``, whatever the pile's
        reading: it was never read): the top was taken back, uncovering the card
        beneath (game 5704 with the model: B took the QC back off pile 2 to slot 4, read QC
        there at 0.54; the 10H it uncovered was never read, the take-back was lost, and the QC,
        played again from slot 4, was refused). Nothing otherwise."""
        pile_zone = self._zone.get(zone)
        if pile_zone is None or pile_zone.kind is not ZoneKind.PILE or pile_zone.number is None:
            return []
        pile = self.state.piles.get(pile_zone.number, [])
        top = pile[-1] if len(pile) >= 2 else None
        if top is None or top.player is None or top.slot is None:
            return []
        seen = self._seen_back.get(top.card)
        beneath = replace(unread.readings[-1], label=pile[-2].card, guess=None)
        if seen is None or abs(seen[1] - unread.change.time) > PAIR_WINDOW_S \
                or any(_alike(r.guess, top.card) for r in unread.readings if r.guess is not None) \
                or not self._back_in_its_slot(top, beneath, sure=0.0):
            return []
        log.info("frame %d: %s showed a card never read, its top %s back in %s's slot %d: a take-back",
                 unread.change.frame, zone, top.card, top.player, top.slot)
        self.state.tops[zone] = beneath.label
        return self._pile_change(unread.change, beneath, unread.since, pile_zone.number, top.card,
                                 beneath.label, seen_back=True)

    def _first_guessed(self, zone: str, unread: _Unread, reading: ZoneReading, covered: _Unread | None
                       ) -> tuple[ZoneChange, tuple[float, int]]:
        """The change (and when its zone went busy) that ``reading``, the card at last read in
        ``zone`` after its change ``unread`` (a card guessed there) was read again, explains:
        ``unread``'s, or, in a slot that showed a back, the earlier change ``covered`` by it that
        was guessed as a card too, whatever card (game 5554 with the model: B's 8C, guessed 6S
        at 0.09 as it landed; game 5029 at 1280x720 with the model: A's JS guessed JC under the
        hand, then again after the hand came back, read JS only then: 0.49 s late; since stop 61
        also when read at last by looking again, with no further change: game 5509 with the
        model, B's KC guessed KS at 4.5 s, changed faintly twice after, 1.1 s late)."""
        if covered is not None and covered is not unread and zone in self._slot_zones \
                and self.state.tops.get(zone) == "back" and reading.label not in FACE_UP_LABELS \
                and any(r.guess is not None for r in covered.readings):
            return covered.change, covered.since
        return unread.change, unread.since

    def _hold_behind_unexplained(self, events: list[TableEvent]) -> list[TableEvent]:
        """Events in time order, but those after a change still being read again wait for it (at
        most ``REREAD_FOR_S``): a spit card not yet read decides whether they are early. So do
        those after a pile change that waits for a slot (at most ``UNDER_WAIT_S``, from when
        the pile went busy): its plays, timed by their carries, come before them (game 5162:
        A's JH and 7S waited for A's slot 4 under the lingering arm while B's turn was given;
        released after it, both plays were put after the turn, the JH 0.27 s late)."""
        pending = sorted(self._behind_unexplained + events, key=lambda e: e.t)
        holding = [u for zone, u in self._unread.items() if not self._guessed_as_its_top(zone, u)]
        cuts = [self._touch(u.change, "turn") for u in holding] + [since[0] for _, _, since in self._waiting]
        if not cuts:
            self._behind_unexplained = []
            return pending
        cut = min(cuts)
        self._behind_unexplained = [e for e in pending if e.t >= cut]
        return [e for e in pending if e.t < cut]

    def _guessed_as_its_top(self, zone: str, unread: _Unread) -> bool:
        """A stock slot still being read whose every look guesses the face-up card believed to
        lie there: as far as it can be read nothing changed (an arm passed over it), and no
        later event waits for it (race-eval seed 6299 with the model: A's KC and JD, read at
        0.2-0.4 after A's arm passed, held B's F_LOST_TOUCH back 1.2 s)."""
        top = self.state.tops.get(zone, "empty")
        return zone in self._slot_zones and top not in FACE_UP_LABELS \
            and all(r.guess == top for r in unread.readings)

    def _hold_spits(self, tracked: TrackedFrame, events: list[TableEvent]) -> list[TableEvent]:
        """Events in time order, but a spit card (and everything after it) is held while a
        stock slot that has been busy since before it touched is still busy, at most
        ``SPIT_WAIT_S``: a card turned there first (which may have blocked play, making the spit
        legal) is seen only when the arm leaves the slot. Such a turn is put before the spit."""
        pending = sorted(self._held + events, key=lambda e: e.t)
        self._held = []
        busy = [since for zone, since in self._unsettled_since.items() if zone in self._slot_zones]
        out: list[TableEvent] = []
        for ev in pending:
            if not self._held and isinstance(ev, SpitTurn) and not (ev.evidence or {}).get("prelude") \
                    and any(t < ev.t for t, _ in busy):
                if self._held_at is None:
                    self._held_at = tracked.time
                if tracked.time - self._held_at < SPIT_WAIT_S:
                    self._held.append(ev)
                    continue
            (self._held if self._held else out).append(ev)
        if not self._held:
            self._held_at = None
        spits = [e for e in out if isinstance(e, SpitTurn)]
        if spits:  # a turn whose slot was busy since before a spit came first
            out = [self._turn_before(e, spits) if isinstance(e, Turn) else e for e in out]
            out.sort(key=lambda e: e.t)
        return out

    def _turn_before(self, turn: Turn, spits: list[SpitTurn]) -> Turn:
        since_t = (turn.evidence or {}).get("since_t")
        first = min(spits, key=lambda s: s.t, default=None)
        if first is None or not isinstance(since_t, float) or since_t >= first.t:
            return turn
        # (also a turn already put before the spit card: at most TURN_AFTER_ARRIVAL_S after the
        # hand came, as the held-spit rule has it, which the bound of ``_touch`` may leave later)
        t = min(turn.t, first.t - 0.01, since_t + TURN_AFTER_ARRIVAL_S)
        return replace(turn, t=t, evidence={**(turn.evidence or {}), "settle_t": round(turn.t, 4),
                                            "before_spit": True})

    def _stray_events(self, tracked: TrackedFrame) -> list[TableEvent]:
        """A card at rest outside every zone is a sixth stock pile: a ``move`` to the slot
        after the last (the engine faults it, F_SIXTH_PILE) of the card that last left a slot
        of the player on whose half of the mat it lies (of a card followed there from its slot,
        the departure of that card). It waits up to ``STRAY_WAIT_S`` for that departure (the
        slot may settle after the stray is seen)."""
        for change in tracked.strays:
            if change.present:
                self._strays_waiting.append(change)
            else:
                self._strays_waiting = [w for w in self._strays_waiting if w.stray != change.stray]
                if change.stray in self._stray_cards:
                    log.info("frame %d: the card %s put outside the zones is gone", tracked.frame,
                             self._stray_cards[change.stray][1])
        events: list[TableEvent] = []
        keep = []
        for stray in self._strays_waiting:
            half = Player.A if stray.centre_mm[1] > self.layout.size_mm[1] / 2 else Player.B
            player = stray.player or half
            dep = next((d for d in reversed(self._departures)
                        if not d.used and d.player is player and stray.card in (None, d.card)
                        and stray.quiet_time - PAIR_WINDOW_S <= d.start <= stray.quiet_time), None)
            if dep is None and stray.card is not None:
                dep = self._left_under_hand(player, stray.card)
            if dep is None:
                if tracked.time - stray.time < STRAY_WAIT_S:
                    keep.append(stray)
                else:
                    log.info("frame %d: a card at rest outside the zones at %s mm, from no slot of %s",
                             tracked.frame, tuple(round(v) for v in stray.centre_mm), player)
                continue
            dep.used = True
            self._stray_cards[stray.stray] = (player, dep.card)
            events.append(Move(t=max(dep.start, stray.quiet_time - self.touch_lag_s.get("move", 0.1)),
                               frame=tracked.frame, player=player, start=dep.start, from_slot=dep.slot,
                               to_slot=self.slots + 1, card=Card.parse(dep.card),
                               evidence={"stray": stray.stray, "at_mm": [round(v, 1) for v in stray.bbox_mm],
                                         "area_mm2": round(stray.area_mm2), "settled_frame": stray.frame,
                                         "contact_sd": TOUCH_LAG_SD}))
        self._strays_waiting = keep
        return events

    def _departure(self, card: str, player: Player, slot: int, change: ZoneChange,
                   since: tuple[float, int]) -> _Departure:
        """``card`` gone from ``player``'s ``slot`` at ``change`` (busy since ``since``)."""
        zone = self._slot_zone.get((player, slot), "")
        came = self._first_busy.get(zone, since[0])
        return _Departure(card, player, slot, self._left(change), change.frame, change.time,
                          since_frame=change.since_frame, since_t=since[0], came_t=min(came, since[0]),
                          taken_by=self._reach_before_pile(player, zone, min(came, since[0]), change.time))

    def _left_under_hand(self, player: Player, card: str) -> _Departure | None:
        """The departure of ``card``, followed to rest outside the zones, from the slot of
        ``player``'s that is believed to hold it and that settled `empty` under a hand (not
        believed: the hand may hide the card). Game 5060: B's AS put beside the mat's corner
        slot and back 1 s later, B's hand over the slot and near the card all along; the slot
        never settled clear of the hand, so no departure was seen (the F_SIXTH_PILE and both
        moves lost). The slot is then empty; the card's return is a move back."""
        zone = self._emptied_under_hand(player, card)
        if zone is None:
            return None
        slot = self._zone[zone].number
        assert slot is not None
        was, since, _ = self._under_hand.pop(zone)
        self._card_under_hand.pop(zone, None)
        self.state.tops[zone] = "empty"
        log.info("frame %d: %s, read empty under the hand, lost %s to outside the zones",
                 was.frame, zone, card)
        return self._departure(card, player, slot, was, since)

    def _emptied_under_hand(self, player: Player, card: str, exclude: str = "") -> str | None:
        """The slot of ``player``'s (other than ``exclude``) believed to hold ``card`` on top
        that settled "empty" under a hand (not believed: the hand may hide the card), not under
        the arm alone (race-eval seed 6607 with the model: A's 2D, its slot read "empty" under
        the arm A reached pile 1 with, taken for a card put outside the zones: a false
        F_SIXTH_PILE and F_BAD_MOVE); None when there is none."""
        for (owner, _slot), zone in self._slot_zone.items():
            hidden = self._under_hand.get(zone)
            if owner is player and zone != exclude and self.state.tops.get(zone) == card \
                    and hidden is not None and hidden[2].label == "empty" \
                    and not self._under_the_arm_only(zone, self._tracked_now):
                return zone
        return None

    def _slots_under(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                     tracked: TrackedFrame, settling: Collection[str] = (),
                     busy_piles: Collection[str] = ()) -> set[str]:
        """A pile took a new top while stock slots of a player whose hand was on the pile are
        still unsettled, showing a face-up card other than the new top: that card may have gone
        onto the pile first, underneath (a touch race, two cards at once). Until such a slot
        settles its departure is not known and the hidden card would be missed: those slots
        (``settling``: slots that count as unsettled still, their change not yet explained).
        Also (since stop 57) what says whether the new top is a spit card and whose: the busy
        slot that still shows it, and the other pile while both players' fingertips touched
        this one."""
        if self._zone.get(change.zone) is None or self._zone[change.zone].kind is not ZoneKind.PILE \
                or reading.label in FACE_UP_LABELS or self._is_take_back(change.zone, reading.label):
            return set()
        candidates = [d for d in self._departures
                      if not d.used and since[0] - PAIR_WINDOW_S <= d.time <= change.time + 1e-9
                      and d.card != reading.label and self._hand_was_over(change.zone, d.player, since[0])]
        # the new top's player: a second card of the same hand lies under it only if one hand
        # took both at once, so only their slots that went busy as the top's slot did count
        # (game 5013; an arm of theirs lying over another slot is not waited for: fixture
        # illegal-rank waited 0.23 s for it)
        top = self._find_departure(reading.label)
        holder = (top.player, top.slot) if top is not None else self._holder(reading.label)
        awaited_too: set[str] = set()
        if top is None and holder is None and self._spit_unsure(change, since):
            # a spit card (no slot held it) with both players' fingertips on the pile: while the
            # other pile is busy, one of the arms may be crossing to it (game 5444: B's arm passed
            # over pile 1, after A had put A's spit card there, on its way to pile 2; the card
            # went to B, and B's own spit card on pile 2, A's packet visit left, to A)
            awaited_too |= self._other_piles_busy(change, tracked, busy_piles)
        if top is None and holder is not None and self.state.tops.get(change.zone) == "empty" \
                and holder[0] in self._packet_visits(since, change.time):
            # a card on an empty pile that a busy slot still shows (no departure yet), its
            # player's hand just at their packet: the card may be their spit card, the slot only
            # under their arm. What the slot shows when it settles says which (game 5439 with
            # the model: A's spit AC, A's slot 2 under the arm believed AC (its AS misread at its
            # turn): taken for a play from slot 2 before the spit cards, and the spit lost: nine
            # false F_EARLY). Not on a pile with a card: an arm that passed over its packet on
            # the way made a touch race's play wait (race-eval seed 6678, 0.37 s)
            awaited_too.add(self._slot_zone[holder])
        # a card the arbiter followed from a slot that is still busy to where it lies still,
        # under the new top, is known to have left: as good as a departure
        beneath = self._carried_beneath(change, reading, exclude=holder)
        skip = {d.player for d in candidates} | {player for player, _ in beneath.values()}
        together: set[str] = set()
        if holder is not None:
            skip.add(holder[0])
            # (not a slot whose card the follows place beneath and saw leave before the top's:
            # game 5567, both recognitions, waited 0.1 s for the AC's slot, the AC followed from
            # it first and under the AH; one seen leaving after may be in the hand above, game 5009)
            together = self._grabbed_with(holder, top, change, reading, since, tracked, settling) - {
                self._slot_zone[slot] for card, slot in beneath.items() if card in change.taken_before}
        if candidates or beneath:
            # a card that left a slot may lie underneath already (no need to wait for more slots
            # of its player), or its arm only passed over this pile on the way to the other one:
            # while that pile is busy, wait for it (its change, explained first, takes the card if
            # it is there). A card surely on its way there (a hand of its player is on that pile)
            # is waited for too: it may have touched first, and the engine must judge the two in
            # order (game 5016: two hands at once, judged the wrong way round)
            players = {d.player for d in candidates} | {player for player, _ in beneath.values()}
            left = min([d.time for d in candidates] + [since[0]])
            busy = {z for z in self._other_piles_busy(change, tracked, busy_piles)
                    if self._may_cross_to(z, players, left)}
            # a player with neither a card that left nor the new top may have put a card
            # between: their busy slots are waited for all the same (game 5002: A, B, A onto one
            # pile in one busy spell; B's card was lost)
            return (busy | together | awaited_too
                    | self._busy_slots(change, reading, since, tracked, settling, skip=skip))
        # (a slot of the top's player whose card the follows place elsewhere is waited for all
        # the same: in game 5014 that wait let B's AD, put under 3D by one hand, be found)
        return together | awaited_too | self._busy_slots(change, reading, since, tracked, settling, skip=skip)

    def _other_piles_busy(self, change: ZoneChange, tracked: TrackedFrame, busy_piles: Collection[str]
                          ) -> set[str]:
        """The spit piles other than the changed one that are busy: unsettled now, or settling
        in this frame with their change not yet explained (``busy_piles``)."""
        return {z for z in self._pile_zone.values() if z != change.zone
                and (z in busy_piles or ((obs := tracked.zones.get(z)) is not None and not obs.settled))}

    def _may_cross_to(self, pile: str, players: Collection[Player], since: float) -> bool:
        """Whether a card of one of ``players`` that left a slot at ``since`` may be on its way to
        ``pile`` (busy): a hand of theirs lay on it since then, or no hand was seen there at all
        (a pale hand the tracker lost). Not when only the other player's hands were there: the
        busy pile is theirs (game 5857 with the model: A's KH and KC put on pile 1 together, the
        pile settled at 23.2 s and waited for pile 2, busy with B's AD, until 23.6 s: the
        F_ILLEGAL_RANK and F_TWO_CARDS reached the board 0.4 s late). A fingertip only near it
        does not count: A's, taking the KC from the slot beside pile 2."""
        seen = {p for p in Player if self._hand_was_over(pile, p, since)}
        return not seen or bool(seen & set(players))

    def _carried_beneath(self, change: ZoneChange, reading: ZoneReading,
                         exclude: tuple[Player, int] | None = None) -> dict[str, tuple[Player, int]]:
        """The cards a pile settled by its carry holds beneath its new top (``change.beneath``:
        the arbiter followed each from its slot to where it lies still on this pile) whose slots
        are still busy, showing them: card -> (player, slot). Their departures are known
        before their slots settle, so the pile need not wait for those slots (race seed 6060:
        0.23 s, A's arm back over its slots). The other player's cards (``exclude``: the new
        top's slot); of the top's player's, only one whose slot went busy before the top's
        did, or that the follows saw leave its slot first (``change.taken_before``: an arm may
        come over the top's slot first, game 5123): a hand that took two cards holds the first
        beneath the second (game 5054 at 1280x720, both recognitions: B's 3S, its slot busy 6
        frames before the QD's and settled 3 frames after the pile, was lost under the QD,
        which was judged on the 4D beneath: a false F_ILLEGAL_RANK, the F_TWO_CARDS missed). A
        second card taken after the top may be found on the pile while the hand holds it above
        (game 5009)."""
        out: dict[str, tuple[Player, int]] = {}
        top_spell = self._busy_from(exclude, reading.label) if exclude is not None else None
        top_busy = top_spell[1] if top_spell is not None else None
        for card in sorted(change.beneath):
            if card == reading.label or card in change.elsewhere or self.on_a_pile(card):
                # a card already put on a pile lies there still (game 5209: B's QH, played
                # onto pile 1 while its slot, read empty under the hand, kept it as its top,
                # was found beneath the pile's next cards and played a second time)
                continue
            holder = self._holder(card, exclude)
            if holder is None or self._under_the_arm_only(self._slot_zone[holder], self._tracked_now):
                # (a follow that took the arm passing over a slot for its card leaving: race-eval
                # seed 6617 with the model, A's KH "followed" under B's 8H at quality 0.01 while
                # A's arm lay over its slot, A's fingers 53 mm off it at their nearest; the KH's
                # false play and take-back, and a false F_TWO_CARDS for A's 10H, followed)
                continue
            reached = self._reached_t(holder[0], holder[1], card, change.time)
            if reached is not None and reached > change.time - MIN_CARRY_S:
                # the fingers came to its slot too late to carry it to the pile before it settled:
                # the follow took another card passing over it (game 5753, both recognitions: B's
                # 2D "followed" with the KC B carried from slot 3 over slot 2 onto pile 2, B's
                # fingers within reach of slot 2 only 0.03 s before the pile settled; a false play
                # with a false F_ILLEGAL_RANK, and a false take-back)
                continue
            if exclude is None or holder[0] is not exclude[0]:
                out[card] = holder
                continue
            busy = self._busy_spell_of(holder)
            if card in change.taken_before or (top_busy is not None and busy is not None
                                               and busy[1] < top_busy):
                out[card] = holder
        return out

    def _busy_from(self, slot: tuple[Player, int], card: str) -> tuple[float | None, int | None] | None:
        """When (time, frame) the busy spell of ``slot`` in which ``card`` left it began: from
        its departure, or from the slot's busy spell still going on; None when not known."""
        dep = next((d for d in reversed(self._departures)
                    if d.player is slot[0] and d.slot == slot[1] and d.card == card), None)
        if dep is not None:
            return dep.since_t, dep.since_frame
        return self._busy_spell_of(slot)

    def _leaving_spell(self, slot: tuple[Player, int]) -> tuple[float, int] | None:
        """When (time, frame) the busy spell began in which a slot's card, not yet seen to leave,
        left: the spell that settled under the hand showing it gone, when one did and the slot
        went busy again since; else the spell still going on. Game 5543, both recognitions:
        B's 6C, its slot busy from 27.17 s, read empty under the hand at 28.03, busy again at
        28.13 as the hand moved; the play's start was put at 28.13, after its touch, so it was
        dropped, and the two cards in one hand (F_TWO_CARDS) went unseen."""
        hidden = self._under_hand.get(self._slot_zone.get(slot, ""))
        if hidden is not None and _seen_gone(hidden[2]):
            return hidden[1]
        return self._busy_spell_of(slot)

    def _busy_spell_of(self, slot: tuple[Player, int]) -> tuple[float, int] | None:
        """When (time, frame) the busy spell of a stock slot still unsettled began; None when
        it is settled."""
        return self._unsettled_since.get(self._slot_zone.get(slot, ""))

    def may_settle_by_carry(self, slot_zone: str, card: str, tracked: TrackedFrame,
                            beneath: Collection[str] = (), elsewhere: Collection[str] = ()) -> bool:
        """Whether a spit pile may settle now by the carried landing of ``card`` from
        ``slot_zone`` (docs/observation.md): only while no other card is unaccounted for: none
        that left a slot (either player's) and that no arrival has explained yet, unless the
        arbiter's follows place it (``beneath``: last seen still on that pile, where it touched
        first and lies underneath; ``elsewhere``: seen outside it now or moving as in a hand,
        or last seen on the other pile), none of that player's in a slot that went busy with
        the card's own (``GRAB_TOGETHER_FRAMES``) or settled "empty" under the hand, unless the
        follows place that slot's card elsewhere. One hand holding two cards may put the second
        on top a frame later (game 5009: the second was taken for one underneath, then for a
        take-back); a card of the other hand on its way to the other pile was taken for one
        underneath (game 5016)."""
        zone = self._zone.get(slot_zone)
        player = zone.owner if zone is not None else None
        if player is None:
            return False
        located = set(beneath) | set(elsewhere)
        open_ = [d for d in self._departures if not d.used and tracked.time - d.time <= PAIR_WINDOW_S]
        if any(d.card != card and d.card not in located for d in open_):
            return False
        # when the hand came over the card's slot: its departure's, or the slot's change settling
        # in this very frame (not yet a departure), or its busy spell going on
        own = next((d for d in open_ if d.card == card), None)
        obs = tracked.zones.get(slot_zone)
        busy_since = obs.busy_since if obs is not None else None
        grabbed = own.since_frame if own is not None else next(
            (c.since_frame for c in tracked.changes if c.zone == slot_zone), busy_since)
        if grabbed is None and slot_zone in self._under_hand:
            # the slot settled under the hand, its card not believed gone (read "empty" where
            # the hand may hide it), while the follow has it land here: the hand came then
            # (game 5123 with the model: A's 5S, its slot read "empty" under A's arm)
            grabbed = self._under_hand[slot_zone][0].since_frame
        for (owner, _), other in self._slot_zone.items():
            if owner is not player or other == slot_zone or self.state.tops.get(other) in elsewhere:
                continue
            if other in self._under_hand and self._under_hand[other][2].label == "empty":
                return False
            busy = tracked.zones.get(other)
            if busy is not None and not busy.settled and (
                    grabbed is None or (busy.busy_since is not None
                                        and abs(busy.busy_since - grabbed) <= GRAB_TOGETHER_FRAMES)):
                return False
        return True

    def _is_take_back(self, zone: str, new: str) -> bool:
        """A pile's new top lay beneath its top (one or two cards taken back): nothing can have
        gone under it in the same busy spell, so there is nothing to wait for (fixture take-back
        waited 0.27 s for a slot the arm lay over)."""
        number = self._zone[zone].number
        pile = self.state.piles.get(number, []) if number is not None else []
        return _taken_back(pile, self.state.tops.get(zone, "empty"), new) is not None

    def _grabbed_with(self, holder: tuple[Player, int], top: _Departure | None, change: ZoneChange,
                      reading: ZoneReading, since: tuple[float, int], tracked: TrackedFrame,
                      settling: Collection[str]) -> set[str]:
        """The busy slots of the new top's player (``holder``) that went busy within
        ``GRAB_TOGETHER_FRAMES`` of the top's own slot, or ``GRAB_BEFORE_FRAMES`` before it (one
        hand took both cards), or that
        settled "empty" or surely showing a back under the hand (the card seen gone; game 5009: the
        hand came over that slot 7 frames before the top's; game 5030 at 1280x720 with the
        model: B's 7D, its slot read as a back at 0.57 under the hand that went busy 6 frames
        before the AH's, lay under the AH, its play and F_TWO_CARDS lost). When it is not known
        when the top's slot went busy, all their busy slots."""
        if top is not None:
            grabbed = top.since_frame
        else:
            obs = tracked.zones.get(self._slot_zone[holder])
            grabbed = obs.busy_since if obs is not None else None
        others = set(Player) - {holder[0]}
        slots = self._busy_slots(change, reading, since, tracked, settling, skip=others)
        if grabbed is None:
            return slots
        return {z for z in slots if (z in self._under_hand and _seen_gone(self._under_hand[z][2]))
                or ((busy := self._busy_since(z, tracked)) is not None
                    and -GRAB_BEFORE_FRAMES <= busy - grabbed <= GRAB_TOGETHER_FRAMES)}

    def _busy_since(self, zone: str, tracked: TrackedFrame) -> int | None:
        """The frame a busy zone went busy; for one that settled under a hand showing what was
        not believed, the frame that change began (its card may have left then)."""
        if zone in self._under_hand:
            return self._under_hand[zone][0].since_frame
        obs = tracked.zones.get(zone)
        return obs.busy_since if obs is not None else None

    def _busy_slots(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                    tracked: TrackedFrame, settling: Collection[str], skip: Collection[Player] = ()
                    ) -> set[str]:
        """Stock slots, of players not in ``skip`` whose hand was on the changed pile, that are
        still busy, showed a face-up card other than the pile's new top, and may have lost it:
        not one whose card already lies on a pile, its one face-up card (game 5864 with the
        model: B's 10S on pile 2 and 10H on pile 1, one hand each; pile 1 waited for the 10S's
        slot, still under B's hand, 0.23 s, and held pile 2's F_ILLEGAL_RANK behind it)."""
        slots = set()
        for (player, _), zone in self._slot_zone.items():
            if player in skip:
                continue
            top = self.state.tops.get(zone, "empty")
            obs = tracked.zones.get(zone)
            if (obs is not None and (not obs.settled or zone in settling or zone in self._under_hand)
                    and top not in FACE_UP_LABELS
                    and top != reading.label
                    and not self.on_a_pile(top)
                    and (zone in self._under_hand or not self._still_there(obs))
                    and self._hand_was_over(change.zone, player, since[0])
                    and not self._under_the_arm_only(zone, tracked, until=change.frame)):
                slots.add(zone)
        return slots

    def _under_the_arm_only(self, slot: str, tracked: TrackedFrame | None, until: int | None = None) -> bool:
        """Whether a busy stock slot has lain only under its owner's arm since it went busy (up
        to frame ``until``, when given): in every frame since, a hand of theirs was seen, their
        arm was seen over the slot, and no hand's tip (the fingers) came within
        ``SLOT_REACH_MM`` of its outline. Its card cannot have been taken (by then: a pile that
        settled at ``until`` cannot hold it; game 5370 with perfect recognition, A's fingers
        reached slot 4 two frames after pile 1 settled, the pile waited for the slot and took
        A's 2H, played onto the other pile 0.9 s later, for a card beneath A's spit card; race-eval
        seed 6581 with the model: pile 2's race waited 0.53 s for A's slot 4, under A's arm
        reaching for pile 2, its tip 96 mm off the slot at its nearest).
        Two arms joined count by the tip of each one's part (the race's arms join at the pile).
        Not known (False) when the frames since it went busy are older than the hands
        remembered, or a frame saw no hand of the player: a hand the tracker lost may have
        taken the card."""
        player = self._zone[slot].owner
        busy_since = self._busy_since(slot, tracked) if tracked is not None else None
        if busy_since is None or not self._hands_seen or self._hands_seen[0][0] > busy_since:
            return False
        outline = self._slot_outline[slot]
        over = False
        for frame, _, hands in self._hands_seen:
            if frame < busy_since or (until is not None and frame > until):
                continue
            if not any(h.player is player for h in hands):
                return False
            if _within_reach(outline, hands):
                return False
            over = over or any(h.player is player and (slot in h.zones or slot in h.touches) for h in hands)
        return over

    def _came_for(self, player: Player, slot: int, card: str) -> float | None:
        """When ``player``'s ``slot`` first went busy after ``card`` was last believed there: a
        hand can have taken it no earlier. None when not known. Not from a departure of the card
        the slot was read showing again after (it had not left, or came back): game 5890 with
        the model, B's 7C, its slot read "empty" under the hand at 21.1 s and 7C again 0.3 s
        later, still there when A's 8C went onto pile 1 at 22.5 s; pile 1's KH, misread 7C once
        A took the 8C back, was taken for the 7C, come from that departure beneath the 8C: a
        false play, F_ILLEGAL_RANK and take-back, and a second F_ILLEGAL_RANK for its play."""
        zone = self._slot_zone.get((player, slot))
        if zone is None:
            return None
        dep = next((d for d in reversed(self._departures)
                    if d.player is player and d.slot == slot and d.card == card), None)
        if dep is not None and any(t > dep.time and label == card
                                   for t, label in self._slot_reads.get(zone, ())):
            dep = None  # read there again since: that departure is over
        if dep is not None:
            return dep.came_t if dep.came_t is not None else dep.since_t
        spell = self._busy_spell_of((player, slot))
        return self._first_busy.get(zone, spell[0] if spell is not None else None)

    def _reached_t(self, player: Player, slot: int, card: str, until: float) -> float | None:
        """The earliest time a hand can have taken ``card`` from ``player``'s ``slot``, from the
        slot first going busy after the card was last believed there (up to ``until``): the
        first frame where a hand's tip (the fingers) came within ``SLOT_REACH_MM`` of the slot's
        outline, or no hand of the player was seen (one the tracker lost may have taken it).
        None when not known: the hands of that time are no longer remembered, or none came. A
        card's track that moves earlier followed an arm passing over it (game 5370: A's 2H
        "left" at 10.82 s, with A's arm on its way to the packet; the fingers came 0.6 s later)."""
        zone = self._slot_zone.get((player, slot))
        came = self._came_for(player, slot, card)
        if zone is None or came is None or not self._hands_seen or self._hands_seen[0][1] > came:
            return None
        outline = self._slot_outline[zone]
        for _, t, hands in self._hands_seen:
            if t < came - 1e-9:
                continue
            if t > until:
                break
            if not any(h.player is player for h in hands) \
                    or _within_reach(outline, hands):
                return t
        return None

    def _came_onto(self, zone: str, player: Player, before: float, since: float) -> float | None:
        """When the first visit of a hand of ``player`` to ``zone`` that began between ``since``
        and ``before`` began, if the last visit that began by ``before`` began then too (None: no
        such visit remembered; a visit that began before ``since`` may go on)."""
        starts = [came for came, _ in self._visits(zone, player) if came <= before]
        if not starts or starts[-1] < since:
            return None
        return next(came for came in starts if came >= since)

    def _remembers(self, t: float) -> bool:
        """Whether the hands seen at time ``t`` are still remembered (``HAND_MEMORY_S``)."""
        return bool(self._hands_seen) and self._hands_seen[0][1] <= t

    def _hands_of(self, player: Player, after: float, until: float) -> Iterator[tuple[float, list[HandBlob]]]:
        """Each remembered frame after ``after`` up to ``until``: its time and ``player``'s hands."""
        for _, t, hands in self._hands_seen:
            if after < t <= until:
                yield t, [h for h in hands if h.player is player]

    def _reach_before_pile(self, player: Player, zone: str, since: float, until: float) -> float | None:
        """The last time between ``since`` and ``until`` that a hand's tip of ``player`` lay within
        ``SLOT_REACH_MM`` of stock slot ``zone`` before a tip of theirs lay on a spit pile (a hand
        passing back over the slot from the pile does not count, nor a tip at the slot before a
        frame that saw no hand of the player); None when not known: the hands of ``since`` are
        no longer remembered, or no tip came to the slot and then to a pile."""
        if zone not in self._slot_outline or not self._remembers(since):
            return None
        outline = self._slot_outline[zone]
        reach = found = None
        for t, mine in self._hands_of(player, since - 1e-9, until):
            if not mine:
                reach = None  # (a hand the tracker lost may have been at the slot since)
            elif _within_reach(outline, mine):
                reach = t
            elif reach is not None and any(self._piles_at_tip(h) for h in mine):
                found = reach
        return found

    def _taken_by(self, player: Player, slot: int, card: str, start: float) -> float:
        """When ``card``, seen leaving ``player``'s ``slot`` at ``start``, was taken at the
        latest: its departure's ``taken`` (an arm that stays over the slot settles it late)."""
        dep = next((d for d in reversed(self._departures)
                    if d.card == card and d.player is player and d.slot == slot and d.start == start), None)
        return start if dep is None else dep.taken

    def _hand_left_before(self, zone: str, player: Player, after: float, busy: float) -> float | None:
        """When the last visit of a hand of ``player`` to ``zone`` ended, when it ended after
        ``after`` and before ``busy`` (the zone's busy spell began) and no hand of theirs has
        covered the zone since; None otherwise."""
        visits = self._visits(zone, player)
        if visits and after <= visits[-1][1] < busy:
            return visits[-1][1]
        return None

    def _fingers_came(self, player: Player, zone: str, after: float, until: float) -> float | None:
        """The first time after ``after`` (and up to ``until``) that a hand's tip (the fingers)
        of ``player`` came within ``SLOT_REACH_MM`` of stock slot ``zone``; None when the hands of
        that time are no longer remembered, or none came."""
        if not self._remembers(after):
            return None
        outline = self._slot_outline[zone]
        came = (t for t, mine in self._hands_of(player, after, until) if _within_reach(outline, mine))
        return next(came, None)

    def _fingers_stayed_off(self, player: Player | None, zone: str, after: float, until: float) -> bool:
        """Whether no tip of ``player``'s hands came within ``SLOT_REACH_MM`` of stock slot
        ``zone`` after ``after`` up to ``until`` (False when the hands of that time are no longer
        remembered)."""
        return player is not None and self._remembers(after) \
            and self._fingers_came(player, zone, after, until) is None

    def _fingers_back(self, player: Player, zone: str, after: float, until: float) -> float | None:
        """When the fingers of ``player`` came back to stock slot ``zone`` (within
        ``SLOT_REACH_MM``) from a spit pile between ``after`` and ``until``: the first time they
        were there after the last time a tip of theirs lay on a pile for ``PILE_VISIT_FRAMES``
        frames in a row (a tip that touches a pile's edge for a frame as the fingers turn a card
        is no visit: game 5500, B's 4S); None when no tip of theirs lay on a pile so and came
        back, or the hands of that time are no longer remembered."""
        if not self._remembers(after):
            return None
        outline = self._slot_outline[zone]
        came: float | None = None
        visited = False  # a tip of theirs lay on a pile
        run = 0  # frames in a row with a tip on a pile
        for t, mine in self._hands_of(player, after, until):
            on_pile = not _within_reach(outline, mine) and any(self._piles_at_tip(h) for h in mine)
            run = run + 1 if on_pile else 0
            if run >= PILE_VISIT_FRAMES:
                visited, came = True, None  # (the fingers come back later, or not at all)
            elif visited and came is None and _within_reach(outline, mine):
                came = t
        return came

    def _reach_evidence(self, player: Player, slot: int, card: str, until: float) -> dict[str, object]:
        """``reached_t`` (see ``_reached_t``) for a play's or a move's evidence, when known."""
        reached = self._reached_t(player, slot, card, until)
        return {} if reached is None else {"reached_t": round(reached, 4)}

    @staticmethod
    def _still_there(obs: ZoneObservation) -> bool:
        """A busy slot whose part clear of hands still shows the card that lay there: an arm
        passes over it (nothing to wait for). Not for a slot that last settled under a hand
        showing what was not believed: that settled view need not show the believed card."""
        return obs.visible_change is not None and obs.visible_change < KEPT_CARD_CHANGE

    def _depends_on_waiting(self, change: ZoneChange, reading: ZoneReading | None, tracked: TrackedFrame,
                            settling: Collection[str]) -> bool:
        """Whether a change must be explained after the waiting pile changes: it is another
        pile's, or another slot of a player they wait for that now shows a face-up card other
        than the one it showed (a slot left showing a back or nothing gives no event of its
        own: its departure is kept for the pile, which goes on waiting for the slots it waits
        for; nor does one showing the same card)."""
        awaited = {z for waiting in self._waiting
                   for z in self._slots_under(*waiting, tracked, settling, busy_piles=settling)}
        zone = self._zone.get(change.zone)
        if zone is None or change.zone in awaited:
            return False
        if zone.kind is ZoneKind.STOCK and reading is not None and reading.label in ("back", "empty") \
                and zone.owner not in self.dealing:
            return False
        if zone.kind is ZoneKind.STOCK and reading is not None and reading.label not in FACE_UP_LABELS \
                and reading.label == self.state.tops.get(change.zone):
            # the card that lay there, an arm only passed over it: nothing to explain first
            # (race-eval seed 6423 with the model: B's arm passed over B's QC while pile 2 waited
            # for A's slot; released then, A's 10C, which touched first, was lost under B's 8D)
            return False
        return zone.kind is ZoneKind.PILE or zone.owner in {self._zone[z].owner for z in awaited}

    def _release_waiting(self, tracked: TrackedFrame, force: bool = False) -> list[TableEvent]:
        """Explain the waiting pile changes whose slots have settled, that waited long enough,
        or all of them (``force``: something else is about to be explained)."""
        events: list[TableEvent] = []
        keep = []
        for change, reading, since in self._waiting:
            if not force and tracked.time - change.time < UNDER_WAIT_S \
                    and self._slots_under(change, reading, since, tracked):
                keep.append((change, reading, since))
            else:
                events += self._explain(change, reading, since)
        self._waiting = keep
        return events

    def note_game(self, slaps_open: bool, dealing: set[Player], slots: int) -> None:
        """What the rules engine expects next: slaps (the round is over and the piles not yet
        allocated), a new layout from the players in ``dealing``; ``slots`` per player."""
        self.note_round_over(slaps_open)
        self.dealing = set(dealing)
        self.slots = slots
        self._pile_news = False

    def note_round_over(self, over: bool) -> None:
        """The rules engine says whether the round is over (slaps are looked for then). A hand
        on a spit pile then is lingering when it has been there since before the last play
        (``LINGER_AFTER_PLAY_S``: it put the last card down, or waited there); one that came
        after it is slapping, from when it came (the round is known over only once the last
        play's pile has settled, which a hand hovering over it delays: slap-eval seed 6005,
        0.6 s)."""
        if over and not self.round_over:
            self._slaps.clear()
            self._merged_came.clear()
            for number, zone in self._pile_zone.items():
                for hand in self._last_hands:
                    if zone in hand.zones:
                        came = self._over_since(zone, hand.player)
                        self._slaps[(int(number), hand.player)] = (
                            _HandSeen(came) if came > self._last_play_t + LINGER_AFTER_PLAY_S
                            else _HandSeen(max(came, 0.0), lingering=True))
            there = {p for (_, p) in self._slaps}
            self._slaps_before_known = [v for v in self._visits_after(self._last_play_t + LINGER_AFTER_PLAY_S)
                                        if v[1] not in there]
            self._over_from = self._frame
        elif self.round_over and not over and self._over_from is not None:
            self._over_spells.append((self._over_from, self._frame))
            self._over_from = None
        self.round_over = over

    def _was_over(self, frame: int) -> bool:
        """Whether the round was known over when ``frame`` was seen: a pile change that settled
        then and waited for a slot to settle is judged as it would have been then (slap-eval
        seed 6152: the card beneath shown under the slapping hands, explained once the slaps
        had been judged and the piles allocated, was taken for a take-back)."""
        return any(start < frame <= end for start, end in self._over_spells)

    def _visits_after(self, after: float) -> list[tuple[int, Player, float, float]]:
        """Each player's first visit to a spit pile (pile, player, came, left) in the hand
        memory that began after ``after`` and lasted at least ``SLAP_STILL_S``: a slap made
        before the round was known over (the last card read surely only after the slapping
        hands had gone). A visit that began before (the hand that put the last card down and
        stayed) is the lingering hand's, no slap."""
        out = []
        for player in (Player.A, Player.B):
            found = [next(((came, number, left) for came, left in self._visits(zone, player)
                           if came > after and left - came >= SLAP_STILL_S), None)
                     for number, zone in self._pile_zone.items()]
            first = min((f for f in found if f is not None), default=None)
            if first is not None:
                came, number, left = first
                out.append((int(number), player, came, left))
        return out

    def _visits(self, zone: str, player: Player) -> list[tuple[float, float]]:
        """The spells (came, left) a hand of ``player`` covered ``zone`` in the hand memory,
        oldest first: frames no more than ``VISIT_GAP_S`` apart are one visit."""
        times = sorted({t for t, p, covers, _ in self._hand_history if p is player and zone in covers})
        visits: list[tuple[float, float]] = []
        for t in times:
            if visits and t - visits[-1][1] <= VISIT_GAP_S:
                visits[-1] = (visits[-1][0], t)
            else:
                visits.append((t, t))
        return visits

    def _over_since(self, zone: str, player: Player) -> float:
        """When a hand of ``player`` came over ``zone`` and has covered it in every frame
        since (as far as the hand memory goes back)."""
        visits = self._visits(zone, player)
        return visits[-1][0] if visits else -math.inf

    def rename(self, zone: str, old: str, new: str) -> None:
        """The referee's word that the card believed to be ``old`` in ``zone`` (a stock slot or
        a spit pile) is ``new``: ``old`` was read there, but the game holds it face up elsewhere,
        so the reading's runner-up stands. Its top, its pile entry or its slot's departure of
        that card not yet explained follow."""
        kind = self._zone[zone].kind if zone in self._zone else None
        if self.state.tops.get(zone) == old:
            self.state.tops[zone] = new
        if kind is ZoneKind.PILE:
            entry = next((e for e in reversed(self.state.piles.get(int(self._zone[zone].number or 0), []))
                          if e.card == old), None)
            if entry is not None:
                entry.card = new
        elif kind is ZoneKind.STOCK:
            owner, number = self._zone[zone].owner, self._zone[zone].number
            for dep in self._departures:
                if dep.card == old and not dep.used and dep.player is owner and dep.slot == number:
                    dep.card = new

    # ------------------------------------------------------------------ explaining changes
    def _order(self, zone: str) -> int:
        """Stock slots first (a departure is known before the arrival it explains), piles last."""
        kind = self._zone[zone].kind if zone in self._zone else None
        rank = {ZoneKind.STOCK: 0, ZoneKind.PACKET: 1, ZoneKind.PILE: 2}
        return rank[kind] if kind is not None else 3

    def _left(self, change: ZoneChange) -> float:
        """When a card left its slot (the ``start`` of the action that took it): just before
        the slot's picture stopped moving, i.e. before the hand and the card were gone. (When
        the slot first looked different is no use: an arm passing over it does that.) Not
        later than ``BARE_AFTER_LEFT_S`` before the slot first showed the printed mat in that
        busy spell: the card was gone by then, though an arm kept the slot busy after (game
        5757, both recognitions: B's 10C, taken 0.52 s before its slot settled under B's other
        arm, played onto pile 1 while B's other hand played the 5C onto pile 2; put to leave
        after the 5C touched, the F_TWO_HANDS became a false F_ILLEGAL_RANK)."""
        quiet = change.quiet_time if change.quiet_frame >= 0 else change.time - 3 / 30
        left = quiet - LEFT_LAG_S
        bared = self._bared.get(change.zone)
        if bared is not None and bared[0] == change.since_frame:
            left = min(left, bared[1] - BARE_AFTER_LEFT_S)
        return max(0.0, left)

    def _touch(self, change: ZoneChange, kind: str = "play", busy_since: float | None = None) -> float:
        """When the card touched (a take-back: left the pile): before the zone's picture stopped
        moving (the card slid, the hand let go), by the lag measured for that kind of event; a
        turn whose slot settled under the (still) hand: just before it settled; and a card
        turned from its back (``busy_since``: when its slot went busy), under the hand or not,
        at most ``TURN_AFTER_BUSY_MAX_S`` after its slot went busy (since stop 52 also not
        under the hand)."""
        if kind == "turn" and change.hand_over:
            t = change.time - TURN_UNDER_HAND_LAG_S
        else:
            lag = self.touch_lag_s.get(kind, self.touch_lag_s.get("play", 0.12))
            t = (change.quiet_time if change.quiet_frame >= 0 else change.time - 3 / 30) - lag
        if kind == "turn" and busy_since is not None:
            # a hand that stays over the slot, moving, after it turned the card, under it or
            # lingering (games 5289 and 5290 with perfect recognition: 0.27 s late, the slot
            # busy 0.6-0.8 s)
            t = min(t, busy_since + TURN_AFTER_BUSY_MAX_S)
        return max(0.0, t)

    def _evidence(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                  **extra: object) -> dict[str, object]:
        under: dict[str, object] = {"under_hand": True} if change.hand_over else {}
        if change.carried:
            under["settled_by"] = "carry"
        if reading.runner_up is not None:
            under["runner_up"] = reading.runner_up
            under["runner_up_confidence"] = round(reading.runner_up_confidence, 3)
        if reading.left_slot is not None:
            player, slot = reading.left_slot
            under["identity"] = f"not read: the only card that can have come, from {player}'s slot {slot}"
        return {"zone": change.zone, "since_frame": since[1], "since_t": round(since[0], 4),
                "settled_frame": change.frame, **under,
                "read": reading.label, "read_confidence": round(reading.confidence, 3),
                "contact_sd": TOUCH_LAG_SD, **extra}

    def _explain(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                 read_clear: bool = False) -> list[TableEvent]:
        """The events ``change`` stands for, read as ``reading``; ``read_clear``: the reading was
        taken with no hand over the zone, though the change settled under one (it is believed
        as any reading clear of a hand, and a turn is still timed as one settled under it)."""
        zone = self._zone.get(change.zone)
        if zone is None:
            return []
        old = self.state.tops.get(change.zone, "empty")
        new = reading.label  # never "card": a card not read surely is read again first (update)
        surely = SLOT_UNDER_HAND_CONFIDENCE if zone.kind is ZoneKind.STOCK else HAND_OVER_CONFIDENCE
        if zone.kind is ZoneKind.STOCK and zone.owner in self.dealing and new == "back":
            # a back in a slot of a player dealing is the card dealt, under a hand or not (game
            # 5209: A's hand, in the first frame, left a ghost over slot 5 that the background
            # took 2 s to learn; the slot's back, read 0.76 under it, was not believed, the deal
            # never completed and A's turns and plays were all refused)
            surely = HAND_OVER_CONFIDENCE
        if change.hand_over and not read_clear and (new == "empty" or reading.confidence < surely) \
                and reading.left_slot is None and not self._moved_in_under_hand(change, zone, reading) \
                and not self._back_from_beneath(zone, reading):
            earlier = self._under_hand.get(change.zone)
            if earlier is not None and zone.kind is ZoneKind.STOCK \
                    and earlier[2].label not in FACE_UP_LABELS and (new == "empty" or (
                        new not in FACE_UP_LABELS and not one_card_read(earlier[2].label, new))):
                # "empty" may be the hand over the card, and another card a misreading of it
                self._card_under_hand[change.zone] = earlier
            if earlier is not None and zone.kind is ZoneKind.STOCK and new not in FACE_UP_LABELS \
                    and one_card_read(earlier[2].label, new):
                # the same card read again, as unsurely, after the hand moved over it again: it
                # came at the first change (game 5004 at 1280x720: B's 8C read 0.76 then 0.79
                # under the hand, surely 0.7 s after it came)
                change, since = earlier[0], earlier[1]
            self._under_hand[change.zone] = (change, since, reading)
            return []  # under a hand only what was clearly read counts: "empty" may be the hand
        if zone.kind is ZoneKind.PILE and change.carried and change.hand_over and new == old \
                and new not in FACE_UP_LABELS and self._read_as_departed(change, reading, since).label == old:
            # a card was followed onto the pile, yet its top reads as before: the card that came
            # lies partly under the hand and its top was misread (slap-eval seed 6012 with the
            # model: A's last card 7C on the 6D, read 6D at 0.63 with the 7C's corner under the
            # fingers; read 7C only when the hand had gone, 0.3 s later, and timed then). It
            # is read again when the hand has gone, and a new top then came with the carry. (A
            # runner-up that just left a slot is that card, as ever: game 5004's QD on the JD.)
            self._under_hand[change.zone] = (change, since, reading)
            return []
        hidden = self._under_hand.pop(change.zone, None)
        card_before = self._card_under_hand.pop(change.zone, None)
        if card_before is not None and new not in FACE_UP_LABELS and (
                one_card_read(card_before[2].label, new)
                or (old == "back" and hidden is not None and hidden[2].label == "empty"
                    and _alike(card_before[2].label, new))):
            # read as this card under the hand, then "empty" under it (the hand over the card)
            # or as another card, and surely as it now: the card came at the first change (games
            # 5024 and 5033 at 1280x720 with the model: A's 4D and 2H, 0.7 and 0.8 s late; game
            # 5172: B's 10C read 0.65 under the hand, then QC at 0.57, 0.85 s late); so too when
            # read as it again under the hand after the "empty" (game 5459 with the model: A's
            # 3H, turned at 25.58 s, read 3H at 0.56-0.79 under the hand from 25.6 s, "empty" under
            # it at 27.0 s, 3H again at 27.3 s: timed from that, 1.7 s late), also once the hand
            # has gone without changing the slot again (read again clear of it, ``_clear_looks``;
            # game 5564 with the model: B's 2S, read 0.70 and 0.78, "empty", 0.77 under the hand,
            # timed from the last, 1.7 s late); and, turned from a back, read as a card of its
            # rank or suit before the "empty" (as below; game 5616 with the model: B's KH read JH
            # at 0.54 under the hand, "empty" under it, KH once it had gone: 0.65 s late)
            hidden = card_before
        if hidden is not None and zone.kind is ZoneKind.PILE and hidden[0].carried and not change.carried \
                and new != old and new not in FACE_UP_LABELS and any(
                    d.card == new and not d.used and d.start <= hidden[0].time for d in self._departures):
            # the card carried there while the hand lay over its top, read surely now (it had
            # left its slot by then): it came with the carry
            change, since = replace(hidden[0], hand_over=False), hidden[1]
        if hidden is not None and zone.kind is ZoneKind.STOCK and new not in FACE_UP_LABELS \
                and (one_card_read(hidden[2].label, new) or (old == "back" and _alike(hidden[2].label, new))):
            # the card read there under the hand, not surely enough, is read surely now that
            # the hand has gone: it came then (a turn is timed from its settle under the hand),
            # also when read under the hand as its twin (game 5007 at 1280x720: B's AH, turned
            # at 2.74 s, read AD at 0.53 under the hand, surely as AH 0.5 s later), and, turned
            # from a back (no card came onto it), as a card of its rank or suit (game 5552 with
            # the model: B's QC read KC at 0.67 under the hand, QC at 0.81 when the hand moved
            # again; timed from the second reading, 0.46 s late)
            change, since = hidden[0], hidden[1]
        if hidden is not None and zone.kind is ZoneKind.STOCK and old not in FACE_UP_LABELS \
                and new == "empty" and hidden[2].label == "empty":
            # a face-up card's slot read empty under the hand, then again with no hand over it:
            # the card left in the first busy spell, as the hand came (game 5009 at 1280x720: B's
            # 2D, slot 1 read empty under B's arm at 11.1 s and again at 11.4 s; timed from the
            # second, the play found beneath A's two cards was put 0.54 s late)
            change, since = replace(hidden[0], hand_over=False), hidden[1]
        if hidden is not None and zone.kind is ZoneKind.STOCK and old == "back" \
                and new not in FACE_UP_LABELS and hidden[2].label == "empty" \
                and (change.since_frame - hidden[0].frame <= TURN_HIDDEN_GAP_FRAMES
                     or self._fingers_stayed_off(zone.owner, change.zone, hidden[0].time, change.time)):
            # a back's slot settled "empty" under the hand (the hand over it), busy again at once
            # and then showing a card: the hand stayed, and turned the card in the first busy
            # spell; a turn is timed from when its slot went busy (game 5323 with the model: A's
            # JD, turned 0.3 s into a spell of 1 s, the slot settled under the hand for 5 frames,
            # then busy 0.25 s more: timed from the second spell, 0.78 s late). So too when the
            # second spell came later with no fingers at the slot: an arm passed over it (game
            # 5504 with the model: A's 10S turned at 7.28 s, read "empty" at 0.75 under A's arm
            # on its way to the packet, the arm back over it on its way to pile 1 0.23 s later:
            # timed from that, 0.72 s late)
            since = hidden[1]
        turned_under = card_before if hidden is None or hidden[2].label == "empty" else hidden
        if (turned_under is not None and zone.kind is ZoneKind.STOCK and old == "back" and new == "empty"
                and turned_under[2].label not in FACE_UP_LABELS
                and turned_under[2].confidence >= HAND_OVER_CONFIDENCE):
            # a slot's last card turned and read under the hand, not surely enough for a slot,
            # and gone before the hand left: it was there (game 5015 at 960x540: A's 5S, read
            # 0.54 and 0.78 under the hand, played before the hand left; its turn and play were
            # missed), also when read "empty" under the hand after it (game 5142: B's KD, read
            # 0.71 and 0.79, then empty under the hand that played it). Not when a back shows
            # again: the reading may have been of the hand's card
            assert zone.owner is not None and zone.number is not None
            was, since_was, turned = turned_under
            self.state.tops[change.zone] = turned.label
            return (self._stock_change(was, turned, since_was, zone.owner, zone.number, old, turned.label)
                    + self._explain(change, reading, since))
        if new == old and hidden is None and zone.kind is ZoneKind.PILE:
            # a pile whose picture changed, read as the card it showed: a card may have come
            reading = self._read_as_departed(change, reading, since)
            if reading.label == old:
                reading = self._read_as_spit(change, reading, since)
            new = reading.label
        if new == old == "back" and hidden is not None and zone.kind is ZoneKind.STOCK \
                and hidden[2].label not in FACE_UP_LABELS:
            self._turned_unseen[change.zone] = hidden  # a card turned and moved on, or the hand's
            self._turned_gone_since[change.zone] = since
        if new == old:
            if zone.kind is ZoneKind.PILE:
                self._top_read_again[change.zone] = change.time
                began = since[0] - 0.1
                hands = frozenset(p for p in Player if any(
                    came <= change.time and left >= began for came, left in self._visits(change.zone, p))
                    or self._tip_frames(change.zone, p, began, change.time) > 0)
                self._same_top[change.zone] = (
                    old, self._lift_time(change, since), hands)
            if hidden is None or hidden[2].label != "empty" or zone.kind is not ZoneKind.STOCK:
                # a pile read empty under a hand and showing its top again was hidden by the
                # hand: a pile is not emptied and dealt the same card again (slap-eval seed
                # 6004: pile 2's 9S under the slapping hands, taken for a take-pile and then a
                # spit of 9S, which the game refused and turned into its runner-up 9C: a false
                # F_ROUND_OVER)
                return []
            # a slot that settled empty under a hand that stayed until the card came back: the
            # card had gone (where it went explains it; if nowhere, its return finds it never left)
            was, since_was, empty = hidden
            return (self._explain(replace(was, hand_over=False), empty, since_was)
                    + self._explain(change, reading, since))
        self.state.tops[change.zone] = new
        if zone.kind is ZoneKind.STOCK:
            assert zone.owner is not None and zone.number is not None
            read_before = hidden is not None and hidden[2].label == new
            return self._stock_change(change, reading, since, zone.owner, zone.number, old, new, read_before)
        if zone.kind is ZoneKind.PILE:
            assert zone.number is not None
            return self._pile_change(change, reading, since, zone.number, old, new)
        return []

    def _moved_in_under_hand(self, change: ZoneChange, zone: Zone, reading: ZoneReading) -> bool:
        """Whether a stock slot under a hand, read less surely than a slot under a hand needs
        but as surely as any card, shows the card just seen leaving another slot of the same
        player: it was moved there, and the move goes before what follows in the slot it left
        (game 5014 at 960x540: B's JS, moved from slot 2 to slot 1, read 0.70 and 0.68 under the
        hand, was believed only when the hand had gone, after the turn in slot 2, which the
        engine refused: both were lost). So does the card on top of another of the player's
        slots that settled "empty" under the hand (no departure seen: the hand hid the slot;
        game 5648 with the model: A's QH moved from slot 2 onto slot 1's 3C, read 0.66 there
        under the hand and taken back before the hand left: the move and its F_BAD_MOVE lost)."""
        if zone.kind is not ZoneKind.STOCK or zone.owner is None or zone.number is None \
                or reading.label in FACE_UP_LABELS or reading.confidence < HAND_OVER_CONFIDENCE:
            return False
        dep = self._recent_departure(reading.label, change, exclude=(zone.owner, zone.number))
        if dep is not None and dep.player is zone.owner:
            return True
        return self._emptied_under_hand(zone.owner, reading.label, exclude=change.zone) is not None

    def _back_from_beneath(self, zone: Zone, reading: ZoneReading) -> bool:
        """Whether a stock slot, read as surely as any card (under a hand, or less surely than a
        take-back needs), shows a card that lies beneath a pile's top and was played from this
        very slot: it was taken back to where it came from (game 5009 at 1280x720 with the
        model: B's QC, played illegally onto pile 1 and covered by A's 6S, back in B's slot 2
        read 0.66 under the hand and 0.62 after; by then a slap had cleared the pile, and it
        was taken for a turn of its runner-up KC). So does a pile's top played from this slot
        when the pile was read, not surely enough for a take-back, as the card beneath it
        (``_doubted_take_backs``; game 5179 with the model: B's KS, back in B's slot 4 under the
        hand that took it back, read 0.77 and 0.73 there, and played again before the hand
        left)."""
        if zone.kind is not ZoneKind.STOCK or zone.owner is None or reading.confidence < HAND_OVER_CONFIDENCE:
            return False
        return any(p.card == reading.label and p.player is zone.owner and p.slot == zone.number
                   for n, pile in self.state.piles.items()
                   for p in (pile if self._pile_zone.get(n) in self._doubted_take_backs else pile[:-1]))

    def _stock_change(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                      player: Player, slot: int, old: str, new: str, read_before: bool = False
                      ) -> list[TableEvent]:
        """A stock slot's new top ``new`` explained (``read_before``: the same card was read
        there under the hand, not surely enough then)."""
        if player in self.dealing:
            return self._dealing_change(change, reading, since, player)
        # the slot's face-up card was played before the slot settled (the hand stayed or came back)
        played_t = self._gone_before_settled.get((old, player, slot))
        same = self._same_card(change, player, slot, old, reading)
        if same:
            # read as another card, but the same one: its identity is a matter for the
            # referee (the turn below may correct its reading), no card left
            read_as = ", ".join(sorted(self._read_as[change.zone]))
            log.info("frame %d: %s read as %s (runner-up %s), read before as %s: the same card",
                     change.frame, change.zone, new, reading.runner_up, read_as)
            if self._read_surer_elsewhere(new, change.zone, reading):
                self.state.tops[change.zone] = old  # that card lies where it is read more surely
                return []
        elif old not in FACE_UP_LABELS:  # its face-up card left
            self._turned.pop(change.zone, None)
            self._departures.append(self._departure(old, player, slot, change, since))
            self._settle_departure(self._departures[-1])
        if new in FACE_UP_LABELS:
            return []
        if self._returning.get(new) == (player, slot):
            del self._returning[new]
            return []  # back from a pile: the take-back was given when the pile changed
        gone = next((d for d in reversed(self._departures)
                     if not d.used and d.player is player and d.slot == slot and d.card == new), None)
        if gone is not None:  # it never left: the slot was misread in between (the hand's shadow)
            gone.used = True
            log.info("frame %d: %s shows %s again: it had not left", change.frame, change.zone, new)
            return []
        stray = next((k for k, (p, c) in self._stray_cards.items() if p is player and c == new), None)
        if stray is not None:  # back from outside the zones (a sixth pile)
            del self._stray_cards[stray]
            return [Move(t=self._touch(change, "move"), frame=change.frame, player=player,
                         from_slot=self.slots + 1, to_slot=slot, card=Card.parse(new),
                         evidence=self._evidence(change, reading, since, stray=stray))]
        for pile_n, pile in self.state.piles.items():
            if pile and pile[-1].card == new:
                # the top of a pile as far as we know: the pile's change will explain it, or has
                # (a take-back read not surely enough there, now seen back in its slot) ...
                self._seen_back[new] = (since[0], change.time)
                given = self._take_back_seen_in_slot(pile_n, change)
                if given or old != "empty" or not self._top_stayed(self._pile_zone[pile_n], player, since[0]):
                    return given
                # ... unless the pile stayed as it was, no hand of the player's taking it, and
                # the slot lay empty: a card moved there, misread (``_misread_source``)
                del self._seen_back[new]
                break
            # (not a spit card: none goes back to a stock slot, one of the two readings is wrong;
            # game 5361 with the model: A's spit AS, read AC, and A's AC turned in slot 2)
            beneath = next((p for p in pile if p.card == new and p.player in (None, player)
                            and p.slot is not None), None)
            if beneath is not None and (reading.confidence >= TAKE_BACK_CONFIDENCE or read_before
                                        or self._back_from_beneath(self._zone[change.zone], reading)):
                # taken back from under a later card: the pile's top stays (read less surely, or
                # another player's card, it is judged as a turn: a card the engine holds on a pile
                # is then a clash of two readings). Two readings that agree, the first under the
                # hand, are sure enough (game 5009 at 1280x720: B's QC read 0.71 under the hand,
                # 0.62 after, was taken for a turn of its runner-up KC; in the 40 evaluation
                # games all 12 readings of a card beneath a pile's top named the truth)
                moved = self._moved_runner_up(change, reading, player, slot)
                if moved is not None:
                    reading, new = moved, moved.label
                    self.state.tops[change.zone] = new
                    break
                above = pile[pile.index(beneath) + 1:]
                pile.remove(beneath)
                taker = beneath.player or player
                # (found beneath a later card, and timed by the hand's visit, maybe before that
                # card was judged: judged in its place, game 5366, both recognitions: A's JC
                # taken back 0.33 s before B's QH was put on the 10C beneath, found when the JC
                # showed in its slot; the QH was judged on the JC, legal, and its take-back a
                # false F_TAKE_BACK, its F_ILLEGAL_RANK missed)
                lifted = self._lifted_from_beneath(pile_n, taker, since[0], change.time)
                return [TakeBack(t=self._lifted_after_cover(pile_n, above, taker, lifted),
                                 frame=change.frame, player=taker, pile=pile_n, card=Card.parse(new),
                                 evidence=self._evidence(change, reading, since, beneath=True,
                                                         **{FOUND_BENEATH: True}))]
        card = Card.parse(new)
        evidence = self._evidence(change, reading, since)
        if old == "back":
            # bounded from when its slot went busy, or, when the hand went on to a pile in that
            # spell, from when the fingers came back: the arm over the slot on its way to the
            # pile kept it busy (game 5500, both recognitions: A played the 6H from slot 2 and
            # came back to turn the 2S; bounded from the arm, the turn was 0.29 s early; games
            # 5491, 5505 and 5509 the same, 0.26-0.64 s)
            back = self._fingers_back(player, change.zone, since[0] - 1e-6, change.time)
            came = since[0] if back is None else max(since[0], back)
            return [Turn(t=self._touch(change, "turn", busy_since=came),
                         frame=change.frame, player=player, slot=slot, card=card, evidence=evidence)]
        # (the same card misread: come from a slot only if seen leaving it, not from one that is
        # busy still showing it; game 5559 with the model: B's AS read AC, AS second, while B's
        # hand passed over B's AC in slot 2: taken for a move of the AC onto the AS, a false
        # F_BAD_MOVE)
        source = self._source_of(new, change, exclude=(player, slot), holders=not same)
        turned = self._turned_and_moved(change, reading, since, player, slot) \
            if source is None and old != "back" else []
        if turned:
            return turned
        if source is None and old == "empty":
            misread_here = self.on_a_pile(new)  # the card read cannot be here
            misread = self._misread_source(new, change, player, slot, misread_here)
            if misread is not None:
                source, evidence["source_read_as"] = misread[:3], misread[3]
                if misread_here:
                    # the card read lies on a pile: this reading is the misread one, the card
                    # that left is the one moved (game 5739 with the model: A's 2C, read 2C in
                    # slot 4, moved to the empty slot 3 and read 2S there, the 2S on pile 2's
                    # top, that pile quiet: the move was lost, and the 9H turned in slot 4 taken
                    # for a correction)
                    evidence["misread_as"] = new
                    new = self.state.tops[change.zone] = misread[3]
                    card = Card.parse(new)
        if source is not None and source[0] is player:
            evidence.update(self._reach_evidence(player, source[1], new, change.time))
            return [Move(t=self._touch(change, "move"), frame=change.frame, player=player, start=source[2],
                         from_slot=source[1], to_slot=slot, card=card, evidence=evidence)]
        # the face-up card left and the one beneath was turned while the hand stayed over the slot:
        # after a play seen before the slot settled, at most as long after the hand came back to
        # the slot as a turn from a back after its slot went busy (game 5458: A played the KD from
        # slot 4 and came back to turn the 2S, the hand staying 0.5 s more; timed from the slot's
        # settle under the hand, the turn came 0.55 s late)
        back = None if played_t is None else self._fingers_came(player, change.zone, played_t, change.time)
        return [Turn(t=self._touch(change, "turn", busy_since=back), frame=change.frame, player=player,
                     slot=slot, card=card, evidence=evidence)]

    def _moved_runner_up(self, change: ZoneChange, reading: ZoneReading, player: Player, slot: int
                         ) -> ZoneReading | None:
        """A slot's reading as a card beneath a pile's top, whose runner-up, read at least
        ``TAKE_BACK_TOP_SHARE`` as surely, just left another slot of the same player, unexplained
        (or lies there still, the slot busy: ``_holder``): read as that runner-up (a move is
        commoner than a lift from under a later card). Game 5074 at 1280x720 with the model: A's
        AS moved from slot 2 to slot 1, read AC 0.82 (AS 0.70), the AC lying under pile 1's top,
        slot 2 read `back` only under the hand (not believed): a false F_TAKE_BACK, the move and
        a turn lost."""
        second = reading.runner_up
        if second is None or reading.runner_up_confidence < TAKE_BACK_TOP_SHARE * reading.confidence:
            return None
        left = self._recent_departure(second, change, exclude=(player, slot))
        holder = self._holder(second, exclude=(player, slot))
        came_from = (left.player, left.slot) if left is not None else holder
        if came_from is None or came_from[0] is not player:
            return None
        log.info("frame %d: %s read as %s, beneath a pile's top; its runner-up %s %s slot %d: moved",
                 change.frame, change.zone, reading.label, second,
                 "just left" if left is not None else "lies under a hand in", came_from[1])
        return reading.as_runner_up()

    def _same_card(self, change: ZoneChange, player: Player, slot: int, old: str, reading: ZoneReading
                   ) -> bool:
        """Whether a stock slot whose face-up card was read as ``old`` and now as another card
        still holds the same card, misread one of the times: the new reading, or its runner-up,
        is an identity that card was read as, or the new card comes from nowhere (no slot of
        the player, no pile, not taken back, not from a sixth pile). A face-up card changes into
        another only by a move onto it, or when played and the next one turned under a hand that
        never left. In the model's readings of the 20 evaluation games, at 960x540 and 1280x720,
        a face-up slot read next as another identity held the same card 127 times of 135; of the
        8 real changes, 7 were moves and one a face-down card read at 0.38 (which the observer
        reads again before it acts). Each misread had been taken for the card leaving, which was
        then inferred hidden under a pile's new top (games 5004, 5008: false faults).
        A slot that shows no card forgets its readings. Not the same card when the new reading is
        the card seen leaving this slot: ``old`` came onto it, or was a misread taken for a card
        moved in, and goes on (game 5013: B's 4H read as 5H, just gone from B's slot 2, was taken
        for that 5H moved onto it; the 4H read again, 5H as its runner-up, must let the 5H go on
        to its pile)."""
        zone, new = change.zone, reading.label
        seen_leaving = any(d.card == new and d.player is player and d.slot == slot and not d.used
                           for d in self._departures)
        if new in FACE_UP_LABELS or old in FACE_UP_LABELS or seen_leaving:
            self._read_as.pop(zone, None)
            return False
        read_as = self._read_as.setdefault(zone, set())
        read_as.add(old)
        if new in read_as or reading.runner_up in read_as or self._read_surer_elsewhere(
                new, zone, reading) or not self._comes_from_somewhere(new, change, player, slot):
            read_as.add(new)
            return True
        read_as.clear()
        return False

    def _read_surer_elsewhere(self, card: str, zone: str, reading: ZoneReading) -> bool:
        """Whether another zone settling in this frame is read as ``card`` more surely than
        ``zone``: one card lies in one place (race-eval seed 6243 with the model: A's 10S, played
        onto pile 1 and read there at 0.73, was read at 0.57 in the same frame on A's slot 4, whose
        JS lay under A's arm, and taken for a move onto it: a false F_BAD_MOVE, the race lost)."""
        return any(z != zone and r.label == card and r.confidence > reading.confidence
                   for z, r in self._frame_readings.items())

    def _comes_from_somewhere(self, card: str, change: ZoneChange, player: Player, slot: int) -> bool:
        """Whether a card now read in ``player``'s ``slot`` may have come there: from another of
        their slots (moved; also turned there unseen, :meth:`_turned_unseen_in`), from a pile
        (taken back), from outside the zones (a sixth pile)."""
        came = self._recent_departure(card, change, exclude=(player, slot))
        return (came is not None and came.player is player) \
            or (self._holder(card, exclude=(player, slot)) or (None,))[0] is player \
            or self._turned_unseen_in(card, change, player, slot) is not None \
            or card in self._returning \
            or any(p is player and c == card for p, c in self._stray_cards.values()) \
            or self.on_a_pile(card)

    def on_a_pile(self, card: str) -> bool:
        """Whether ``card`` is believed to lie on a spit pile (played, not taken back)."""
        return any(p.card == card for pile in self.state.piles.values() for p in pile)

    def _dealing_change(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                        player: Player) -> list[TableEvent]:
        """A player gathering and dealing a new layout: the deal is given once every one of
        their slots shows a face-down card (its time: when the last of them stopped moving)."""
        quiet = change.quiet_time if change.quiet_frame >= 0 else change.time
        self._dealt_quiet[player] = max(self._dealt_quiet.get(player, 0.0), quiet)
        zones = [self._slot_zone[(player, n)] for n in range(1, self.slots + 1)
                 if (player, n) in self._slot_zone]
        if not all(self.state.tops.get(z) == "back" for z in zones):
            return []
        self.dealing.discard(player)
        t = max(0.0, self._dealt_quiet.pop(player) - self.touch_lag_s.get("deal", 0.1))
        return [Deal(t=t, frame=change.frame, player=player,
                     evidence=self._evidence(change, reading, since, slots=len(zones)))]

    def _settle_departure(self, dep: _Departure) -> None:
        """A departure of a card already explained (played onto a pile or moved to another slot
        before its slot settled)."""
        if (dep.card, dep.player, dep.slot) in self._gone_before_settled:
            del self._gone_before_settled[(dep.card, dep.player, dep.slot)]
            dep.used = True
            return
        for pile in self.state.piles.values():
            for p in pile:
                if p.card == dep.card and p.player is dep.player and p.slot == dep.slot:
                    dep.used = True

    def _find_departure(self, card: str, exclude: tuple[Player, int] | None = None) -> _Departure | None:
        for dep in reversed(self._departures):
            if dep.card == card and not dep.used and (dep.player, dep.slot) != exclude:
                return dep
        return None

    def _recent_departure(self, card: str, change: ZoneChange, exclude: tuple[Player, int] | None = None
                          ) -> _Departure | None:
        """The unexplained departure of ``card`` (from a slot other than ``exclude``) that can
        explain ``change``: at most ``PAIR_WINDOW_S`` before it."""
        dep = self._find_departure(card, exclude=exclude)
        return dep if dep is not None and change.time - dep.time <= PAIR_WINDOW_S else None

    def _read_again_after_carry(self, change: ZoneChange, reading: ZoneReading, old: str) -> bool:
        """Whether a pile change that began just after the pile's last change, settled by a
        carried landing (within ``CARRY_SETTLE_AGAIN_FRAMES``: the hand lifting off), reads as
        another card whose runner-up, read nearly as surely (``SPIT_RUNNER_UP_SHARE``), is the
        card that landed: that card read again (game 5719 with the model: B's QC landed on pile
        2, read QC at 0.69, QS second at 0.65; as the hand lifted the pile read QS at 0.66, QC
        second at 0.61, and B's QS, in slot 2 under B's arm, was taken for played with it: a
        false F_TWO_CARDS, and B's moves of the QS lost)."""
        settled = self._carry_settled.get(change.zone)
        if settled is None or reading.label == old or reading.runner_up != old \
                or reading.runner_up_confidence < SPIT_RUNNER_UP_SHARE * reading.confidence \
                or change.since_frame - settled > CARRY_SETTLE_AGAIN_FRAMES:
            return False
        log.info("frame %d: %s read as %s (%.2f), %s second (%.2f), just after %s landed: %s still",
                 change.frame, change.zone, reading.label, reading.confidence, old,
                 reading.runner_up_confidence, old, old)
        return True

    def _holder(self, card: str, exclude: tuple[Player, int] | None = None) -> tuple[Player, int] | None:
        """The stock slot (other than ``exclude``) whose top is ``card`` now, and that is busy
        (unsettled, or settled under a hand showing what was not believed, or, since stop 56,
        settled showing a card not read surely yet: game 5361 with the model, A's AC on pile 2
        from slot 2, read "card" at 0.26-0.36 there, was taken for A's 6C, alike, from slot 4
        under A's arm: a false F_ILLEGAL_RANK and three faults after): a slot that lies still
        kept its card."""
        for (player, slot), zone in self._slot_zone.items():
            if self.state.tops.get(zone) == card and (player, slot) != exclude \
                    and (zone in self._unsettled_since or zone in self._under_hand or zone in self._unread):
                return player, int(slot)
        return None

    def _pile_change(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                     pile_n: int, old: str, new: str, seen_back: bool = False) -> list[TableEvent]:
        """A spit pile's change from ``old`` to ``new``; ``seen_back``: a take-back doubted
        before, now given since its card shows in its slot again (``_take_back_seen_in_slot``).
        A top already seen back in its slot was taken back first (:meth:`_back_before`)."""
        taken = self._back_before(change, reading, since, pile_n, old, new)
        if taken is None:
            return self._pile_change_from(change, reading, since, pile_n, old, new, seen_back)
        return [taken] + self._pile_change_from(change, reading, since, pile_n,
                                                self.state.piles[pile_n][-1].card, new, seen_back)

    def _back_before(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int], pile_n: int,
                     old: str, new: str) -> TakeBack | None:
        """The take-back of pile ``pile_n``'s top ``old``, when it was read back in the slot it
        was played from since the pile last changed (``_seen_back``, ``_back_in_its_slot``) and
        the pile now shows another card, not the one beneath it: the pile's last change, read as
        its top again under the hand, was the lift (game 5984 with the model: A took the 2H back
        off pile 1, which read 2H at 0.78 as the hand lifted it; the 2H, read 0.92 in A's slot 2
        half a second later, waited for the pile's next change, B's 4D, which was put on the 2H:
        the take-back was lost). None otherwise."""
        pile = self.state.piles.get(pile_n, [])
        if len(pile) < 2 or pile[-1].card != old or new == old or new in FACE_UP_LABELS \
                or new == pile[-2].card or _alike(new, old) \
                or self.round_over or self._was_over(change.frame):
            return None  # (a card like the top may be the top, misread)
        top = pile[-1]
        seen = self._seen_back.get(top.card)
        if seen is None or change.time - seen[1] > PAIR_WINDOW_S \
                or not self._back_in_its_slot(top, replace(reading, label=pile[-2].card), sure=0.0):
            return None
        lifted = self._lifted_back(pile_n, top, change.time)
        log.info("frame %d: %s shows %s; its top %s, back in %s's slot %d since %.3f s, was taken back first",
                 change.frame, change.zone, new, top.card, top.player, top.slot, seen[1])
        return self._lift(change, reading, since, pile_n, min(lifted, since[0]))

    def _pile_change_from(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                          pile_n: int, old: str, new: str, seen_back: bool = False) -> list[TableEvent]:
        """:meth:`_pile_change`, the top believed before being ``old``."""
        pile = self.state.piles.setdefault(pile_n, [])
        shown = old  # the top believed before this change
        self._doubted_take_backs.pop(change.zone, None)
        t = self._touch(change)
        over = self.round_over or self._was_over(change.frame)
        if (over or (self._pile_news and self._stock_played_out())) and (
                change.hand_over or self._hand_was_over(change.zone, Player.A, since[0])
                or self._hand_was_over(change.zone, Player.B, since[0])):
            # under the slapping hands after the round ended, what shows is whatever peeks out
            # or nothing (slap-eval seeds 6018 and 6009: the card beneath, taken for a take-back of
            # the top; the pile hidden, read empty, taken for a take-pile): nothing is put on a
            # pile or taken from it before the slaps are judged
            log.info("frame %d: %s read as %s under a hand after the round ended: %s stays its top",
                     change.frame, change.zone, new, old)
            self.state.tops[change.zone] = old
            return []
        self._pile_news = True
        if self._read_again_after_carry(change, reading, old):
            self.state.tops[change.zone] = old
            return []
        if change.carried:
            self._carry_settled[change.zone] = change.frame
        if new == "empty" and not _played_onto_nothing(pile):
            taker = self._hand_player(change.zone, since[0], change.time)
            pile.clear()
            if taker is None:
                log.info("pile %d emptied, no hand seen", pile_n)
                return []
            return [TakePile(t=self._touch(change, "take_pile"), frame=change.frame, player=taker,
                             pile=pile_n,
                             evidence=self._evidence(change, reading, since))]
        if new == "back":
            return []
        if pile and all(c.card != old for c in pile):
            # the top shown was read from no slot and no packet, not explained, and never put
            # on the pile: what a take-back uncovers lies beneath the pile's last card (game
            # 5199 with the model: B's QD, lifted off pile 2, was read JD, then the AC beneath)
            old = pile[-1].card
        if _taken_back(pile, old, new) is None and reading.runner_up is not None \
                and _taken_back(pile, old, reading.runner_up) is not None and self._buried(new, pile_n) \
                and reading.runner_up_confidence >= TAKE_BACK_TOP_SHARE * reading.confidence:
            # read as a card that lies deeper in a pile (no take-back uncovers it, and it cannot
            # be in two places), its runner-up the card a take-back uncovers: that card (game
            # 5179 with the model: B took the KS back off pile 1, whose AD, read AS at 0.58 and
            # AD at 0.57, the AS three cards beneath, was not explained; the KS, back in its
            # slot, was read KC and taken for a turn, and the F_TAKE_BACK lost)
            log.info("frame %d: %s read as %s (%.2f), which lies deeper in a pile; its runner-up %s "
                     "(%.2f) lay beneath the top", change.frame, change.zone, new, reading.confidence,
                     reading.runner_up, reading.runner_up_confidence)
            reading = reading.as_runner_up()
            new = self.state.tops[change.zone] = reading.label
        # a take-back: the card now on top lay beneath the one that left, or beneath the two
        # that left (both taken back while hands never left the pile)
        depth = _taken_back(pile, old, new)
        if depth is not None and self._put_by_the_other_hand(change, pile[-1], since) \
                and not self._back_in_its_slot(pile[-1], reading):
            log.info("frame %d: %s read as %s, beneath its top %s, but only the other player's hand was "
                     "there: no take-back", change.frame, change.zone, new, old)
            depth = None
        top_read_too = reading.runner_up == old and reading.runner_up_confidence >= min(
            TAKE_BACK_CONFIDENCE, TAKE_BACK_TOP_SHARE * reading.confidence)
        if depth is not None and (top_read_too or reading.confidence < TAKE_BACK_CONFIDENCE) \
                and not seen_back and not self._back_in_its_slot(pile[-1], reading):
            # (the top read surely as well, as the runner-up: one of its indices showed it still;
            # but not when the top shows in its slot again: two readings of three say it was
            # taken back (game 5305 with the model: B's QS off pile 1, the pile read QC at 0.90
            # with the QS second at 0.45, the QS read in B's slot 2 8 frames later; the
            # take-back was lost, and a false F_TAKE_BACK came of it 4.7 s later)
            self._doubted_take_backs[change.zone] = (change, reading, since, HAND_OVER_CONFIDENCE)
            log.info("frame %d: %s read as %s (%.2f; runner-up %s, %.2f), beneath its top %s: not sure "
                     "enough for a take-back", change.frame, change.zone, new, reading.confidence,
                     reading.runner_up, reading.runner_up_confidence, old)
            self.state.tops[change.zone] = old
            return []
        pulled = self._pulled_from_beneath(change.zone, pile) if depth == 3 else None
        self._same_top.pop(change.zone, None)
        if depth is not None:
            # lifted a lag before the pile's picture stopped moving, but not before the hand that
            # took it had come: a pile busy only briefly settles just after the lift
            lifted = self._lift_time(change, since)
            if depth == 2:
                lifted = min(lifted, self._lifted_back(pile_n, pile[-1], change.time))
            if pulled is not None:
                # the card beneath went first, pulled out by its player in the pile's last change
                return [self._lift(change, reading, since, pile_n, pulled, beneath=True),
                        self._lift(change, reading, since, pile_n, lifted)]
            # of two, the top one was lifted first, as the hands came: the other as for one
            lifts = [since[0] + TAKE_BACK_GRAB_S, lifted] if depth == 3 else [lifted]
            return [self._lift(change, reading, since, pile_n, at) for at in lifts]  # the top card first
        reading = self._read_as_departed(change, reading, since)
        new = self.state.tops[change.zone] = reading.label
        events: list[TableEvent] = []
        # hidden arrivals: cards that left a slot, unexplained, while this pile changed (a slot
        # that settled after the pile, while the pile's change waited for it: its card had left
        # before the pile settled; a pile settled by its carry: before it settled as usual)
        settled = max(change.time, self._settled_again.pop(change.zone, change.time))
        hidden = [d for d in self._departures
                  if not d.used and since[0] - PAIR_WINDOW_S <= d.time
                  and (d.time <= settled + 1e-9 or d.start <= settled
                       or (d.since_t is not None and d.since_t <= settled))
                  and d.card != new
                  # the arbiter followed it to rest there underneath; else its player's hand
                  # was over the pile (a pale hand on a light mat may not be seen: race-eval
                  # seed 6454, B's 8S under A's 10H), in time for it to lie underneath
                  and (d.card in change.beneath or (not self._came_too_late(d, t) and
                                                    self._hand_was_over(change.zone, d.player, since[0])))
                  and not self._maybe_elsewhere(d, change.zone) and d.card not in change.elsewhere
                  and d.card not in {waiting.label for _, waiting, _ in self._waiting}]  # on top there
        top_source = self._source_of(new, change)
        top_slot = None if top_source is None else (top_source[0], top_source[1])
        carried = self._carried_beneath(change, reading, exclude=top_slot)
        under_t = t - 1.0 / 30
        # card, player, slot, when it left (the ordering ``start``), when it was taken by
        arrivals: list[tuple[str, Player, int, float | None, float | None]] = []
        for dep in sorted(hidden, key=lambda d: d.start):
            if top_source is not None and dep.player is top_source[0] and dep.slot == top_source[1]:
                continue
            dep.used = True
            arrivals.append((dep.card, dep.player, dep.slot, dep.start, dep.taken))
        for card_under, (player, slot) in carried.items():
            if any(a[0] == card_under for a in arrivals):
                continue
            self._gone_before_settled[(card_under, player, slot)] = change.time  # its slot settles later
            arrivals.append((card_under, player, slot, None, None))
        below = -math.inf  # when the card beneath touched
        for card_under, player, slot, start, taken in arrivals:
            pile.append(_PileCard(card_under, player, slot))
            # it touched before the top card, about a carry after it was taken, and after the
            # card beneath it (they lie in the order their slots settled; game 5460: A's 4C and
            # 2S taken in one hand, the 2S's slot quiet late under the arm, the fingers last at
            # the 2S's slot 0.1 s before they were last at the 4C's)
            touched = under_t if taken is None else min(under_t, max(below, taken + PLAY_CARRY_S))
            below = touched
            events.append(Play(t=touched, frame=change.frame, player=player, start=taken,
                               slot=slot, pile=pile_n,
                               hand=self._hand_of(player, start, slot), card=Card.parse(card_under),
                               evidence=self._evidence(change, reading, since, underneath=True,
                                                       layering="under " + new,
                                                       **self._reach_evidence(player, slot, card_under,
                                                                              change.time))))
        card = Card.parse(new)
        if top_source is None:
            turned = self._turned_and_played(change, reading, since, pile_n, t)
            if turned:
                return events + turned
            uncovered = [] if events else self._uncovered_spit_card(change, reading, since, pile_n)
            if uncovered:
                return uncovered
            from_beneath = [] if events else self._played_from_beneath(change, reading, since, pile_n, t)
            if from_beneath:
                return from_beneath
            # no slot held it: a spit card, from the packet of a player whose hand was there
            spitter = self._spit_player(change, since, played_under={e.player for e in events})
            if spitter is None:
                log.info("frame %d: %s shows %s, from no slot and no packet: not explained", change.frame,
                         change.zone, new)
                if not events and len(pile) >= 2 and pile[-1].slot is not None and (
                        _alike(new, pile[-2].card) or reading.runner_up == pile[-2].card):
                    # maybe the card a take-back uncovers, misread: a take-back doubted, given
                    # if the top shows in its slot again (``_take_back_seen_in_slot``; game 5668
                    # with the model: A took the 3D back off pile 1, whose AS was read AC at
                    # 0.52, KS and AC unsurely: the take-back was lost, the 3D back in A's slot 5
                    # read 0.88 explained nothing); the card read, which cannot be there, may
                    # be a faint guess (game 5704 with the model: A's 9S off pile 1, the QC
                    # beneath guessed QS at 0.34, the 9S read 0.72 in A's slot 3: the take-back
                    # was lost, and the 9S played again was read 10S)
                    self._doubted_take_backs[change.zone] = (
                        change, replace(reading, label=pile[-2].card, runner_up=new,
                                        runner_up_confidence=reading.confidence), since,
                        GUESS_HINT_CONFIDENCE)
                if not events and reading.from_guesses:
                    # never read surely (the likeliest of the guesses made when the reading was
                    # given up): nothing is known to have come, and the pile keeps its top (game
                    # 5999 with the model: B's QH on pile 1, read 0.88, then guessed JH at
                    # 0.33-0.41 for a second as the hand lifted; taken for the top, A's spit JH
                    # 1.8 s later changed nothing, and B's next four plays were judged before
                    # both spit cards: four false F_EARLY)
                    self.state.tops[change.zone] = shown
                elif not events and self._face_up_elsewhere(new, change.zone):
                    # the card read lies face up on another zone, still (a busy slot holding it
                    # would be its source): one card lies in one place, and the pile keeps its
                    # top (game 5848 with the model: pile 1's JS read 10S at 0.45-0.52 once A's
                    # hand had gone, the 10S lying in A's slot 5; taken for the pile's top, A's
                    # 10S played there 1.3 s later changed nothing, and six plays onto the 10S
                    # were judged on the JS: six false F_ILLEGAL_RANK)
                    self.state.tops[change.zone] = shown
                return events
            pile.append(_PileCard(new, spitter, None))
            # a hand that lingers on the pile after putting the card down settles it late: the
            # card touched about as soon as the hand came onto the pile in its busy spell (game
            # 5370, both recognitions: B's 7D, the hand on the pile 0.37 s, timed 0.30 s late;
            # not a hand that lay over it before: game 5469, B's arm over pile 2 for 2.5 s), on
            # its first visit in the spell (game 5577, both recognitions: B's 2H put down in a
            # visit of 0.13 s, the hand back on the pile 0.17 s later; timed from the second
            # visit, 0.33 s late)
            spat = self._touch(change, "spit")
            came = self._came_onto(change.zone, spitter, spat, since[0])
            if came is not None:
                spat = min(spat, came + SPIT_PLACE_S)
            events.append(SpitTurn(t=spat, frame=change.frame, player=spitter,
                                   pile=pile_n,
                                   card=card,
                                   evidence=self._evidence(change, reading, since)))
            return events
        player, slot, start = top_source
        uncovered = [] if events else self._uncovered_play(change, reading, since, pile_n, top_source)
        if uncovered:
            return uncovered
        pile.append(_PileCard(new, player, slot))
        under = [p.card for p in pile[-3:-1]]
        left = None if start is None else self._hand_left_before(
            change.zone, player, self._taken_by(player, slot, new, start), since[0])
        if left is not None:
            # the hand that put it down left the pile before the pile's change began: the card
            # lay there by then (game 5457 with perfect recognition: A's JH put on pile 2 while B's
            # slapping hand lay on it, the pile settled under the hands; it went busy only when
            # B's hand moved, 0.17 s after A's had gone, and the play came 0.41 s late); a visit
            # after the card was taken counts, though its slot settled later (game 5649 with the
            # model: B's 3H put on pile 1 under A's slapping hand, B's arm back over the slot
            # until after B's hand had left the pile: 0.4 s late)
            t = min(t, left)
        events.append(Play(t=t, frame=change.frame, player=player,
                           start=self._start_estimate(player, slot, new, start, t), slot=slot, pile=pile_n,
                           card=card, hand=self._hand_of(player, start, slot),
                           evidence=self._evidence(change, reading, since, underneath=under,
                                                   **self._reach_evidence(player, slot, new, change.time))))
        return events

    def _lift_time(self, change: ZoneChange, since: tuple[float, int]) -> float:
        """When a pile's top was lifted off in ``change`` (busy since ``since``): the take-back lag
        before the pile's picture stopped moving, but not before ``TAKE_BACK_GRAB_S`` after the
        hand came."""
        return max(self._touch(change, "take_back"), since[0] + TAKE_BACK_GRAB_S)

    def _lift(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int], pile_n: int,
              at: float, beneath: bool = False) -> TakeBack:
        """The take-back, at ``at``, of the top of pile ``pile_n`` (taken off the pile), or
        (``beneath``) of the card under it."""
        gone = self.state.piles[pile_n].pop(-2 if beneath else -1)
        player = gone.player or self._hand_player(change.zone, since[0], change.time) or Player.A
        if gone.player is not None and gone.slot is not None:
            # back in a slot that has not settled since it left (the hand never left it): what
            # the slot shows when it settles says whether it left again (game 5138: B's QS
            # taken back to slot 3 and moved on to slot 1 in one busy spell; slot 3's back, when
            # it settled, was taken for the play's departure, and the QS for a turn in slot 1)
            self._gone_before_settled.pop((gone.card, gone.player, gone.slot), None)
            if not self._back_in_its_slot(gone, reading):  # (not seen there already)
                self._returning[gone.card] = (gone.player, gone.slot)
        return TakeBack(t=at, frame=change.frame, player=player, pile=pile_n, card=Card.parse(gone.card),
                        evidence=self._evidence(change, reading, since))

    def _pulled_from_beneath(self, zone: str, pile: Sequence[_PileCard]) -> float | None:
        """When the card under a pile's top was pulled out from beneath it, if its player (not
        the top's) had a hand on the pile in the pile's last change, which read as its top again
        (game 5590, both recognitions: A's JC, under B's 10H, taken back by A in a faint change of
        the pile, then the 10H by B; both were put in the second change, the 10H first, 0.28 s
        early: a false and a missed F_TAKE_BACK); None otherwise."""
        seen = self._same_top.get(zone)
        if seen is None or len(pile) < 2:
            return None
        top, lower = pile[-1], pile[-2]
        card, lifted, hands = seen
        if card != top.card or lower.player is None or lower.player is top.player \
                or lower.player not in hands:
            return None
        return lifted

    def _uncovered_spit_card(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                             pile_n: int) -> list[TableEvent]:
        """A card from no slot, read on a pile whose top one player played, while only that
        player's hand (or its tip: game 5751, both recognitions, B's fingertips alone reached pile
        1 to take the 4D back off A's spit 4H) was on the pile since it went busy and they did
        not go to their packet: they took the top back, and the card lay beneath it, a spit card
        covered by the top (game 5336, both recognitions: B's spit KC covered 60 ms later by
        A's 3S, seen only when A took the 3S back; it was taken for B's spit card put on the
        3S, the 3S's take-back for one from beneath it, a false F_TAKE_BACK, and the 3S's
        F_ILLEGAL_RANK on the KC was missed). The spit card's turn, timed a frame before the
        top's touch and marked ``FOUND_BENEATH`` (the referee judges it in its place, before the
        top), of the player whose packet visit came last before that touch; then the top's
        take-back. [] when not so, or when nobody went to their packet before the top's touch."""
        pile = self.state.piles.get(pile_n, [])
        top = pile[-1] if pile else None
        if top is None or top.player is None or top.slot is None \
                or not self._alone_on(change.zone, top.player, since[0]) \
                or top.player in self._packet_visits(since, change.time):
            return []
        touched = self._last_touch(top.card)
        if touched is None:
            return []
        visits = self._packet_visits((touched, -1), touched)
        if not visits:
            return []
        spitter = max(visits, key=lambda p: visits[p])
        self._packet_visit_used[spitter] = visits[spitter]
        lifted = self._lift(change, reading, since, pile_n, self._lift_time(change, since))
        pile.append(_PileCard(reading.label, spitter, None))
        log.info("frame %d: %s shows %s, from no slot, under %s's hand alone: %s taken back, the %s beneath "
                 "it %s's spit card", change.frame, change.zone, reading.label, top.player.value, top.card,
                 reading.label, spitter.value)
        spit = SpitTurn(t=touched - 1.0 / 30, frame=change.frame, player=spitter, pile=pile_n,
                        card=Card.parse(reading.label),
                        evidence=self._evidence(change, reading, since, layering=f"under {top.card}",
                                                **{FOUND_BENEATH: True}))
        return [spit, lifted]

    def _uncovered_play(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int], pile_n: int,
                        source: tuple[Player, int, float | None]) -> list[TableEvent]:
        """A card from a slot of one player's (``source``: player, slot, when it left), read on a
        pile whose top the other played, while only that other's hand (or its tip) was on the
        pile since it went busy, its slot gone busy for it before the top touched: the other
        took the top back, and the card lay beneath it, put before it (game 5764, both
        recognitions: B's 5H, 0.11 s before A's 7D on pile 2, covered by it, seen only when A
        took the 7D back; it was taken for a card put on the 7D, the 7D's take-back for one from
        beneath it, a false F_TAKE_BACK, and the false F_LOST_TOUCH went to B, not A). Its play,
        timed a frame before the top's touch and marked ``FOUND_BENEATH`` (the referee judges
        it in its place, and the arbiter may time it by its carry), then the top's take-back.
        [] when not so (as :meth:`_uncovered_spit_card` for a spit card)."""
        player, slot, start = source
        pile = self.state.piles.get(pile_n, [])
        top = pile[-1] if pile else None
        if top is None or top.player is None or top.slot is None or top.player is player \
                or not self._alone_on(change.zone, top.player, since[0]):
            return []
        touched = self._last_touch(top.card)
        came = self._came_for(player, slot, reading.label)  # (its start, from its slot's settle, may be late)
        if touched is None or came is None or came >= touched:
            return []
        lifted = self._lift(change, reading, since, pile_n, self._lift_time(change, since))
        pile.append(_PileCard(reading.label, player, slot))
        log.info("frame %d: %s shows %s, from %s's slot %d, under %s's hand alone: %s taken back, the %s "
                 "beneath it", change.frame, change.zone, reading.label, player.value, slot, top.player.value,
                 top.card, reading.label)
        t = touched - 1.0 / 30
        play = Play(t=t, frame=change.frame, player=player, start=self._start_estimate(
                        player, slot, reading.label, start, t), slot=slot, pile=pile_n,
                    card=Card.parse(reading.label), hand=self._hand_of(player, start, slot),
                    evidence=self._evidence(change, reading, since, layering=f"under {top.card}",
                                            **{FOUND_BENEATH: True}))
        return [play, lifted]

    def _played_from_beneath(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                             pile_n: int, touched: float) -> list[TableEvent]:
        """A card from no slot, read on pile ``pile_n`` while its player's hand was there, that
        lay beneath the top of the other pile: taken back from under that top, unseen, and
        played here from the slot it came from without coming to rest there (game 5413 with
        perfect recognition: A's AD, played early onto pile 2 and covered by B's spit 3H, taken
        back from under it and carried straight to pile 1; the pile's AD was "not explained",
        and B's next three plays onto pile 1 were judged on the 2C beneath it: three false
        F_ILLEGAL_RANK). The take-back is timed when the player's hand last came over the other
        pile, in a visit that ended before this pile went busy (else a carry before it), and
        marked ``FOUND_BENEATH`` (the referee judges it in its place); then the play."""
        new = reading.label
        for other_n, other in self.state.piles.items():
            beneath = next((p for p in other[:-1] if p.card == new), None)
            if other_n == pile_n or beneath is None:
                continue
            player, slot = beneath.player, beneath.slot
            if player is None or slot is None or not self._hand_was_over(change.zone, player, since[0]):
                return []
            visits = self._visits(self._pile_zone[other_n], player)
            came = [start for start, left in visits if left <= since[0]]
            lifted = came[-1] if came else max(0.0, since[0] - PLAY_CARRY_S)
            other.remove(beneath)
            self.state.piles.setdefault(pile_n, []).append(_PileCard(new, player, slot))
            log.info("frame %d: %s shows %s, from no slot, beneath pile %d's top: taken back from there "
                     "and played here", change.frame, change.zone, new, other_n)
            card = Card.parse(new)
            taken = TakeBack(t=min(lifted, touched - MIN_CARRY_S), frame=change.frame, player=player,
                             pile=other_n, card=card,
                             evidence=self._evidence(change, reading, since, beneath=True,
                                                     **{FOUND_BENEATH: True}))
            under = [p.card for p in self.state.piles[pile_n][-3:-1]]
            played = Play(t=touched, frame=change.frame, player=player, start=taken.t, slot=slot, pile=pile_n,
                          card=card, hand=self._hand_of(player, taken.t, slot),
                          evidence=self._evidence(change, reading, since, underneath=under))
            return [taken, played]
        return []

    def _put_by_the_other_hand(self, change: ZoneChange, top: _PileCard, since: tuple[float, int]) -> bool:
        """A pile that now shows the card beneath its top, while only the hand of the player
        other than the top's was on it: that hand put a card there, read as the card beneath
        (game 5223 with the model: B's AH on A's 2C, read AD, the card under the 2C, under B's
        hand: a take-back of A's, whose hands were off the mat, and a false F_TAKE_BACK)."""
        if top.player is None:
            return False
        return (not self._hand_was_over(change.zone, top.player, since[0])
                and self._hand_was_over(change.zone, top.player.other, since[0]))

    @staticmethod
    def _came_too_late(dep: _Departure, touched: float) -> bool:
        """A departed card could not lie under a pile's new top that touched at ``touched``: its
        slot first went busy after the card was last seen there (the hand came for it) less
        than ``MIN_CARRY_S`` before (within ``UNDER_TOUCH_SLACK_S``, the touch's uncertainty).
        Game 5097: B's hand took KC and KH from B's slots 2 and 3 (busy from 0.1 s before A's
        QS touched pile 1) and put them on the QS; the KH, not followed, was taken for a card
        under the QS, and the QS then for a card taken back."""
        return dep.came_t is not None and dep.came_t + MIN_CARRY_S > touched + UNDER_TOUCH_SLACK_S

    def _turned_and_played(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int],
                           pile_n: int, touched: float) -> list[TableEvent]:
        """A card no slot held, come onto a pile, that was read as that very card under the hand
        that turned it in a slot of a player whose hand was over the pile, or its tip on it
        (not surely enough to be believed; the slot showing a back before, and the next back
        after or still busy): it was turned there and played; both events. Game 5062 at
        1280x720 with the model: A's 10D, read 0.56 and 0.80 under the hand in slot 3, played
        1.2 s later: the pile's 10D came from no slot, the turn and the play were lost, and four
        plays onto it were judged on the 9D beneath (false F_ILLEGAL_RANK)."""
        found = self._turned_unseen_as(reading.label, change, since, touched)
        if found is None:
            return []
        unseen, zone = found
        was, was_since, seen = unseen.pop(zone)
        source = self._zone[zone]
        player, slot = source.owner, source.number
        assert player is not None and slot is not None
        log.info("frame %d: %s shows %s, read so under the hand that turned it in %s: turned and "
                 "played", change.frame, change.zone, reading.label, zone)
        self.state.piles[pile_n].append(_PileCard(reading.label, player, slot))
        card = Card.parse(reading.label)
        start = self._start_estimate(player, slot, reading.label, None, touched)
        gone_since = self._turned_gone_since.pop(zone, None) if unseen is self._turned_unseen else None
        if start is None and gone_since is not None:
            # its slot settled showing the back again: it left in that busy spell, no earlier
            # than a carry before the touch (game 5678 with the model: A's QS, read 0.59 and 0.71
            # under the hand, taken with the QH in one hand; with no start the two cards at once,
            # F_TWO_CARDS, went unseen and the QS was a false F_ILLEGAL_RANK on the AD)
            start = max(gone_since[0], touched - PLAY_CARRY_S)
        return [Turn(t=self._touch(was, "turn", busy_since=was_since[0]), frame=change.frame,
                     player=player, slot=slot, card=card,
                     evidence=self._evidence(was, seen, was_since)),
                Play(t=touched, frame=change.frame, player=player, slot=slot, pile=pile_n, card=card,
                     start=start, hand=self._hand_of(player, start, slot),
                     evidence=self._evidence(change, reading, since))]

    def _turned_unseen_as(self, card: str, change: ZoneChange, since: tuple[float, int], touched: float
                          ) -> tuple[dict[str, _SeenUnder], str] | None:
        """Where :meth:`_turned_and_played` finds ``card``, come onto a pile: the record (of
        ``_under_hand``, ``_turned_unseen`` or, since stop 62, ``_card_under_hand``: read so, then
        "empty" under the hand) and the slot where it was read under the hand that
        turned it, in a slot of a player whose hand was over the pile or its tip on it, the slot
        showing a back still, within ``PAIR_WINDOW_S`` before ``touched``."""
        for unseen in (self._under_hand, self._turned_unseen, self._card_under_hand):
            for zone, (was, _, seen) in unseen.items():
                source = self._zone.get(zone)
                if source is None or source.kind is not ZoneKind.STOCK or source.owner is None \
                        or source.number is None or seen.label != card \
                        or self.state.tops.get(zone) != "back" or touched - was.time > PAIR_WINDOW_S \
                        or not self._hand_or_tip_was_on(change.zone, source.owner, since[0]):
                    continue
                return unseen, zone
        return None

    def _start_estimate(self, player: Player, slot: int, card: str, start: float | None, touched: float
                        ) -> float | None:
        """When ``card``, which touched a pile at ``touched``, left ``player``'s ``slot``:
        ``start`` when its slot settled since, at least ``MIN_CARRY_S`` before the touch; else
        (the slot still unsettled, or settled so late that no hand could have carried the card
        in time: the arm lay over the slot) no earlier than the slot's busy spell began and no
        earlier than a carry before the touch. The rules engine needs it to see two plays
        overlap: game 5029 at 1280x720, A's KD played from a slot that settled only after the
        pile: with no start the two hands (F_TWO_HANDS) went unseen and the KD was judged alone
        (a false F_ILLEGAL_RANK); game 5044, A's 7D's slot settled 13 ms before the 7D touched,
        after B's 9D had touched: the race went unseen (F_ILLEGAL_RANK, not F_LOST_TOUCH).
        Which hand took it stays as ``_hand_of`` finds it from ``start``."""
        if start is not None and touched - start >= MIN_CARRY_S:
            return start
        # seen to leave: the spell of its departure; not yet: the slot's spell in which it left
        # (an older departure of the same card, one taken back and played again, is not this play's)
        busy = self._leaving_spell((player, slot)) if start is None else self._busy_from((player, slot), card)
        if busy is None or busy[0] is None:
            return start
        estimate = max(busy[0], touched - PLAY_CARRY_S)
        return estimate if start is None else min(start, estimate)

    def _stock_played_out(self) -> bool:
        """Whether a player's slots all lie empty (outside a deal): they have played every stock
        card, and the round is over (E1a) before the rules engine says so. The engine hears of
        a play explained in this frame only after its changes (slap-eval seed 6121: A's last
        play, held for its pile to settle clear, was given in the frame where the slapping
        hands, having pushed it, let the card beneath show: a false F_TAKE_BACK). Not while a
        card that left a slot is still to be explained (it may be the last play, which this
        change may be); a slot read empty under a hand whose card now lies on a pile is empty."""
        if self.dealing:
            return False

        def empty(player: Player, slot: int) -> bool:
            if any(not d.used and d.player is player and d.slot == slot for d in self._departures):
                return False
            zone = self._slot_zone.get((player, slot), "")
            top = self.state.tops.get(zone)
            hidden = self._under_hand.get(zone)
            return top == "empty" or (hidden is not None and hidden[2].label == "empty" and any(
                p.card == top and p.player is player and p.slot == slot
                for pile in self.state.piles.values() for p in pile))

        return any(all(empty(player, slot) for slot in range(1, self.slots + 1)) for player in Player)

    def _buried(self, card: str, pile_n: int) -> bool:
        """Whether ``card`` lies in a spit pile where no take-back brings it on top of pile
        ``pile_n``: more than two cards beneath that pile's top, or in the other pile."""
        return any(card in [c.card for c in (stack[:-3] if n == pile_n else stack)]
                   for n, stack in self.state.piles.items())

    def _back_in_its_slot(self, top: _PileCard, beneath: ZoneReading, sure: float = HAND_OVER_CONFIDENCE
                          ) -> bool:
        """Whether a pile's ``top`` shows again in the slot it was played from, while the pile
        is read, not surely enough for a take-back alone (but at least ``sure``), as the card
        that lay beneath it: two readings agree that it was taken back (game 5009 at 1280x720
        with the model: pile 2 read 2D at 0.72 when B took the 2S off it, the 2S read 0.57 in
        B's slot 5 a third of a second later; the take-back was lost)."""
        if top.player is None or top.slot is None or beneath.confidence < sure:
            return False
        # (not a slot believed to show it still, its last look not believed: game 5639 with the
        # model, B's 10S played from slot 1, read "empty" there only under the hand; pile 1 read
        # 10H, the 10S second, was taken for a take-back of the 10S and the JS: two false
        # F_TAKE_BACK)
        zone = self._slot_zone.get((top.player, top.slot), "")
        reads = self._slot_reads.get(zone)
        return self.state.tops.get(zone) == top.card and not (reads and reads[-1][1] in {"empty", "back"})

    def _lifted_from_beneath(self, pile_n: int, player: Player, slot_busy: float, settled: float) -> float:
        """When a card taken from under a pile's later top, seen back in its slot (busy since
        ``slot_busy``, settled at ``settled``), left the pile: as ``player``'s hand came over
        the pile, the first such visit in the spell (from ``TAKE_BACK_REACH_S`` before the slot
        went busy: the reaching arm may cross it first); with none seen, ``TAKE_BACK_CARRY_S``
        before the slot went busy (the hand, carrying it back, came over the slot). Of the 14
        such take-backs of games 5000-5059 with perfect recognition 12 had such a visit, 0.06 s
        before to 0.11 s after the truth's lift; their slots went busy 0.21 s before (game
        5051) to 0.31 s after it. With no visit seen, as the hand's fingertips first came onto the
        pile (game 5757, both recognitions: A's 5S, taken from under A's 7C by a hand seen over
        the pile by its tip alone, 0.1 s after the tip came; timed from the slot, 0.52 s early)."""
        pile, since = self._pile_zone[pile_n], slot_busy - TAKE_BACK_REACH_S
        came = [start for start, _ in self._visits(pile, player) if since <= start <= settled] \
            or [when for when, who, zone in self._tips_on_piles
                if who is player and zone == pile and since <= when <= settled]
        return min(came) if came else max(0.0, slot_busy - TAKE_BACK_CARRY_S)

    def _lifted_after_cover(self, pile_n: int, above: Sequence[_PileCard], player: Player, lifted: float
                            ) -> float:
        """When a card taken from beneath ``above`` (the cards put on it since) left the pile,
        timed ``lifted`` by the visit of ``player``'s hand that took it, or from when its slot
        went busy: not before the first of them whose touch its carry timed, unless that visit
        ended before (the visit is when the hand came, and it may have waited there while the
        card came on top; with no visit seen, nothing says the card left first: game 5414 with
        the model, B's slot 2, crossed by B's arm on its way to pile 2, went busy 0.25 s before
        B's hand lifted the 6D from under A's 5H; the take-back, put 0.25 s before the 5H
        touched, was judged before it and made it a false F_ILLEGAL_RANK on the 7S beneath). A
        card on it timed from the pile's settle may have lain beneath all along, uncovered by
        the take-back (game 5319 with the model: B's 4C, the first card of a touch race, timed
        1.3 s late when A took the 6C back off it); not when it was timed within the taking
        hand's visit, its own player's hand over the pile then too (game 5744, both
        recognitions: A's KS, its carry lost to B's hand carrying the QH away, timed 0.01 s after
        B's hand came over the pile, A's hand there, 0.08 s before the QH left: the take-back,
        put first, made the KS a false F_ILLEGAL_RANK on the JC beneath, and two more after). A
        visit that came well before the cover (``TAKE_BACK_LIFT_S``) and ended soon after it
        (``TAKE_BACK_LEAVE_S``) lifted it before too: lifted after the cover, it would have come
        later or stayed longer (game 5710, both recognitions: B took the AS back off pile 1 0.13 s
        before A's 2S touched there, B's hand over the pile from 0.15 s before the 2S's touch to
        0.05 s after; the take-back, put after the touch, made the 2S legal on the AS: its
        F_ILLEGAL_RANK missed, a false F_TAKE_BACK)."""
        zone = self._pile_zone[pile_n]
        visit = next(((came, left) for came, left in self._visits(zone, player)
                      if came <= lifted <= left), None)

        def put_meanwhile(t: float, c: _PileCard) -> bool:  # timed in the visit, its player's hand there
            return visit is not None and visit[0] <= t <= visit[1] and c.player is not None and any(
                came <= visit[1] and left >= visit[0] for came, left in self._visits(zone, c.player))

        touched = [t for (_, card), (t, by_carry) in self._play_times.items() for c in above
                   if card == c.card and (by_carry or put_meanwhile(t, c))]
        if not touched:
            return lifted
        covered = min(touched)
        if visit is not None and (visit[1] <= covered or (
                visit[0] <= covered - TAKE_BACK_LIFT_S and visit[1] < covered + TAKE_BACK_LEAVE_S)):
            return lifted
        return max(lifted, covered + 1.0 / 30)

    def _lifted_back(self, pile_n: int, top: _PileCard, settled: float) -> float:
        """When ``top``, taken back off pile ``pile_n`` in a change that settled at ``settled``,
        left the pile, if it was read back in its slot before, within ``PAIR_WINDOW_S``: as for a
        card taken from beneath (``_lifted_from_beneath``), as the hand came; else never (game
        5599 with the model: B's 4S, back in its slot under B's hand 0.03 s before pile 2, read
        "empty" under both players' hands until then, settled; timed from that, 0.55 s late)."""
        seen = self._seen_back.pop(top.card, None)
        if seen is None or top.player is None or settled - seen[1] > PAIR_WINDOW_S:
            return math.inf
        return self._lifted_from_beneath(pile_n, top.player, *seen)

    def _top_stayed(self, pile: str, player: Player, slot_busy: float) -> bool:
        """Whether ``pile``'s top cannot have gone back to a slot of ``player``'s that went busy
        at ``slot_busy``: the pile is settled, and no hand of theirs came over it from
        ``TAKE_BACK_REACH_S`` before then (as remembered), as a take-back's would
        (:meth:`_lifted_from_beneath`)."""
        since = slot_busy - TAKE_BACK_REACH_S
        return pile not in self._unsettled_since and self._remembers(since) \
            and not any(left >= since for _, left in self._visits(pile, player))

    def _take_back_seen_in_slot(self, pile_n: int, change: ZoneChange) -> list[TableEvent]:
        """A pile's top, just read back in its slot (``change``), when the pile's take-back was
        doubted in the ``PAIR_WINDOW_S`` before (``_back_in_its_slot``): it is given now."""
        zone = self._pile_zone.get(pile_n)
        doubted = self._doubted_take_backs.get(zone or "")
        if zone is None or doubted is None or change.time - doubted[0].time > PAIR_WINDOW_S:
            return []
        was, beneath, since, sure = doubted
        top = self.state.piles[pile_n][-1]  # the pile has not changed since (it would have gone)
        if not self._back_in_its_slot(top, beneath, sure):
            return []
        log.info("frame %d: %s shows %s again: pile %d read as %s (%.2f) was a take-back", change.frame,
                 change.zone, top.card, pile_n, beneath.label, beneath.confidence)
        self.state.tops[zone] = beneath.label
        return self._pile_change(was, beneath, since, pile_n, top.card, beneath.label, seen_back=True)

    def _read_as_the_card_that_left(self, change: ZoneChange, reading: ZoneReading) -> ZoneReading:
        """A spit pile's new top seen as a face-up card but not read surely (``card``), when
        exactly one card left a slot in the ``PAIR_WINDOW_S`` before, unexplained, of a player
        whose hand was over the pile since it left (and no hand of the other player's was: its
        card may have come from a slot not yet seen empty; race seed 6045, B's 8D taken for A's
        10C on top of it), and that card is not on its way to the other pile: that card
        (``ZoneReading.left_slot``). Slap-eval seeds 6030 and 6090 with the model: A's last
        stock card, under A's hand on the pile, was read 0.07-0.20 as another card; read surely
        only when the hands had gone, 1.4 s later, the round was known over after both had
        slapped, and one slap was lost each time. (In seed 6056 the slot had not settled when
        the pile did: no card had left yet, and a slap is still lost.)"""
        zone = self._zone.get(change.zone)
        if reading.label != "card" or zone is None or zone.kind is not ZoneKind.PILE:
            return reading
        left = [d for d in self._departures
                if not d.used and 0.0 <= change.time - d.time <= PAIR_WINDOW_S
                and d.card not in change.elsewhere and self._hand_was_over(change.zone, d.player, d.start)
                and not self._maybe_elsewhere(d, change.zone)]
        if len(left) != 1 or self._hand_was_over(change.zone, left[0].player.other, left[0].start):
            return reading  # two cards, or a card of the other player's not seen leaving yet
        dep = left[0]
        log.info("frame %d: %s shows a card not read surely (%s at %.2f): the only card that can have "
                 "come, %s from %s's slot %d", change.frame, change.zone, reading.guess, reading.confidence,
                 dep.card, dep.player.value, dep.slot)
        return replace(reading, label=dep.card, guess=None, left_slot=(dep.player, dep.slot))

    def _read_as_departed(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int]
                          ) -> ZoneReading:
        """A pile's new top read as a card that came from nowhere (no slot, none taken back), or
        as the card it showed before, whose reading's runner-up left a slot of a player whose
        hand was on the pile, unexplained: read as that card, one play (not that card hidden
        underneath and a spit card on it, misread; not nothing new). Game 5004 with the model:
        A's 5C read on the pile as 4C at 0.74, 5C at 0.61, was taken for a 5C underneath and a
        spit card 4C, and B's next play was judged on 4C; at 1280x720, B's QD played onto the
        spit card JD was read as JD again (QD at 0.28), and every later play from B's slot 5 was
        refused. Not a card read so under the hand that turned it (:meth:`_turned_unseen_as`;
        game 5622 with the model: A's 8C, read 0.76 under the hand in slot 2, then "empty" under
        it, on pile 1 with the 8S second at 0.002, was taken for the 8S that A's hand had taken
        with it from slot 1, and found 1.2 s later: its F_TWO_CARDS late)."""
        second, label = reading.runner_up, reading.label
        if label in FACE_UP_LABELS or label in self._returning or self._holder(label) is not None:
            return reading
        if self._recent_departure(label, change) is not None \
                or self._turned_unseen_as(label, change, since, self._touch(change)) is not None:
            return reading  # (read so under the hand that turned it: ``_turned_and_played``)
        dep = None if second is None else self._find_departure(second)
        if dep is None or dep.time < since[0] - PAIR_WINDOW_S or second in change.elsewhere \
                or not self._hand_was_over(change.zone, dep.player, since[0]) \
                or self._maybe_elsewhere(dep, change.zone):
            return self._read_as_alike_departed(change, reading, since)
        log.info("frame %d: %s read as %s (%.2f), from nowhere; its runner-up %s (%.2f) left %s's slot %d: "
                 "read as %s", change.frame, change.zone, label, reading.confidence, second,
                 reading.runner_up_confidence, dep.player.value, dep.slot, second)
        return reading.as_runner_up()

    def _read_as_alike_departed(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int]
                                ) -> ZoneReading:
        """A pile's new top read as a card that came from nowhere, with no hand at a packet (no
        spit card), when exactly one card of a player whose hand was on the pile, that left a
        slot unexplained or lies in a slot still busy, has its rank or its suit (``_alike``), and
        the pile's picture changed as a new card changes it (``NEW_CARD_DIFFERENCE``): read as
        that card. Game 5084 with the model: B's JH on pile 2 read QH at 0.62 (runner-up
        AD), its slot still under B's hand, was left unexplained, and B's KS, moved to the slot
        the JH had left, was judged a move onto an occupied slot (a false F_BAD_MOVE)."""
        label = reading.label
        here = {c.card for c in self.state.piles.get(self._zone[change.zone].number or 0, [])}
        if label in here or self._packet_visits(since, change.time) \
                or change.difference < NEW_CARD_DIFFERENCE:
            return reading  # (read as a card of this pile, its old top too: nothing from nowhere)
        if self._turned_unseen_as(label, change, since, self._touch(change)) is not None:
            # read so under the hand that turned it in a slot: turned there and played (game
            # 5230 with the model: A's 8D, read 0.68 under the hand resting on slot 4, played
            # before it left; read 8D on the pile, it was taken for A's 8S, and the turn, the
            # play and the 8S's later play were lost, with a false F_TAKE_BACK)
            return reading
        # a reading fainter than a guess hints at neither rank nor suit: any card that left,
        # and none that may yet (game 5849 with the model: pile 1 read KS at 0.24 as A's QC
        # landed, taken for B's KH, its slot busy; the QC and the KH, played 1.2 s later, lost)
        faint = reading.confidence < GUESS_HINT_CONFIDENCE
        cards = {d.card for d in self._departures
                 if not d.used and d.time >= since[0] - PAIR_WINDOW_S and (faint or _alike(label, d.card))
                 and self._hand_was_over(change.zone, d.player, since[0])
                 and not self._maybe_elsewhere(d, change.zone)}
        for (player, _), zone in self._slot_zone.items():
            top = self.state.tops.get(zone, "empty")
            if (zone in self._unsettled_since or zone in self._under_hand) and _alike(label, top) \
                    and self._hand_was_over(change.zone, player, since[0]) and not faint:
                cards.add(top)
        cards -= change.elsewhere
        if len(cards) != 1:
            return reading
        card, = cards
        log.info("frame %d: %s read as %s (%.2f), from nowhere, no hand at a packet; %s, alike, left a slot "
                 "or may have: read as %s", change.frame, change.zone, label, reading.confidence, card, card)
        return replace(reading, label=card, guess=None)

    def _source_of(self, card: str, change: ZoneChange, exclude: tuple[Player, int] | None = None,
                   holders: bool = True) -> tuple[Player, int, float | None] | None:
        """Where a card that landed came from: a recent departure, else (``holders``) the slot
        that still shows it (that slot settles later: the hand was over it)."""
        dep = self._recent_departure(card, change, exclude=exclude)
        if dep is not None:
            dep.used = True
            return dep.player, dep.slot, dep.start
        holder = self._holder(card, exclude) if holders else None
        if holder is not None and (spell := self._busy_spell_of(holder)) is not None \
                and spell[1] > change.frame and self._slot_zone[holder] not in self._under_hand \
                and self._slot_zone[holder] not in self._unread:
            # its slot, seen settled with its card, went busy only after the change settled (it
            # waited): that card was still there (game 5890 with the model: pile 1's KH,
            # uncovered by A's take-back, misread 7C at 0.53 under A's hand; B's hand came over
            # B's 7C a frame later, while pile 1 waited, and the 7C was taken for a play from
            # there: a false F_TWO_HANDS)
            holder = None
        if holder is not None:
            player, slot = holder
            self._gone_before_settled[(card, player, slot)] = change.time
            return player, slot, None  # its slot has not settled: when it left is not known yet
        back_to = self._returning.get(card)
        if back_to is not None and back_to != exclude:
            # taken back and played again before its slot ever settled showing it (the hand
            # that put it back lifted it again): it comes from the slot it went back to
            del self._returning[card]
            return back_to[0], back_to[1], None
        return None

    def _face_up_elsewhere(self, card: str, zone: str) -> bool:
        """Whether ``card`` is believed to lie on top of a zone other than ``zone``."""
        return any(top == card for other, top in self.state.tops.items() if other != zone)

    def _turned_and_moved(self, change: ZoneChange, reading: ZoneReading, since_here: tuple[float, int],
                          player: Player, slot: int) -> list[TableEvent]:
        """A face-up card come onto ``player``'s ``slot``, empty or showing a face-up card (not a
        turn there), that was read, as that card or its twin, in another slot of theirs under
        the hand that turned it, not surely enough to be believed, and gone before the hand left
        (:meth:`_turned_unseen_in`): it was turned there and moved here; both events. Game 5021
        at 1280x720 with the model: A's JC, turned in slot 3 and read 0.66 under the hand, moved
        to the empty slot 2 0.9 s later, read there 0.84: taken for a turn in an empty slot,
        refused, and the turn and the move lost."""
        card = reading.label
        if self._face_up_elsewhere(card, change.zone):
            return []
        found = self._turned_unseen_in(card, change, player, slot)
        if found is None:
            return []
        unseen, zone = found
        was, since, seen = unseen.pop(zone)
        source = self._zone[zone]
        assert source.number is not None
        log.info("frame %d: %s shows %s, turned in %s (read %s under the hand) and moved",
                 change.frame, change.zone, card, zone, seen.label)
        parsed = Card.parse(card)
        return [Turn(t=self._touch(was, "turn", busy_since=since[0]), frame=change.frame, player=player,
                     slot=source.number, card=parsed, evidence=self._evidence(was, seen, since)),
                Move(t=self._touch(change, "move"), frame=change.frame, player=player,
                     from_slot=source.number, to_slot=slot, card=parsed,
                     evidence=self._evidence(change, reading, since_here))]

    def _turned_unseen_in(self, card: str, change: ZoneChange, player: Player, slot: int
                          ) -> tuple[dict[str, _SeenUnder], str] | None:
        """Where ``card``, now read in ``player``'s ``slot``, was read (as it or its twin) under
        the hand that turned it in another slot of theirs within ``PAIR_WINDOW_S``, not surely
        enough to be believed, and was gone before the hand left: a back showed there again
        (``_turned_unseen``), or, the turn not yet given, "empty" was read under the hand after
        it (``_card_under_hand``; game 5743 with the model: B's 4D, turned in slot 2, read 0.70
        under the hand and "empty" under it once moved onto B's QC in slot 5; read 4D there, it
        was taken for the QC misread, the turn refused, and the move's F_BAD_MOVE missed). The
        record (the dict) and the slot's zone; stale records are dropped."""
        for unseen in (self._turned_unseen, self._card_under_hand):
            for zone, (was, _, seen) in list(unseen.items()):
                source = self._zone.get(zone)
                if source is None or source.owner is not player or source.number in (None, slot):
                    continue
                if change.time - was.time > PAIR_WINDOW_S:
                    if unseen is self._turned_unseen:
                        del unseen[zone]
                    continue
                if not one_card_read(seen.label, card):
                    continue
                after = self._under_hand.get(zone)  # read there under the hand since
                gone = self.state.tops.get(zone) == "back" and after is not None and after[2].label == "empty"
                if unseen is self._card_under_hand and not gone:
                    continue
                return unseen, zone
        return None

    def _misread_source(self, card: str, change: ZoneChange, player: Player, slot: int, here: bool = False
                        ) -> tuple[Player, int, float | None, str] | None:
        """Where a face-up card that came onto ``player``'s empty ``slot`` (not a turn: no card
        lies there face down) came from when no slot of theirs held it: the one other slot of
        theirs whose face-up card just left, or is leaving, when that card was believed to be a
        card ``card`` may have been misread as (:func:`_alike`: the same rank or suit) and
        ``card`` is nowhere else. The move's card is the new reading; the referee weighs it
        against the old one (docs/pipeline.md, "Corrections"). Game 5039 at 1280x720 with the
        model: A's 2C, read 2S at 0.45 when turned in slot 4, moved to the empty slot 3 and read
        2C there: taken for a turn in an empty slot, refused, and the move lost. With ``here``
        (``card`` lies on a pile and cannot be here) the reading is the misread one, and the
        card that left is the move's (the caller's)."""
        if not here and (self._face_up_elsewhere(card, change.zone) or self.on_a_pile(card)):
            return None
        found: list[tuple[Player, int, float | None, str]] = []
        for dep in self._departures:
            if not dep.used and dep.player is player and dep.slot != slot \
                    and change.time - dep.time <= PAIR_WINDOW_S and _alike(dep.card, card):
                found.append((player, dep.slot, dep.start, dep.card))
        for (owner, other), zone in self._slot_zone.items():
            top = self.state.tops.get(zone, "empty")
            if owner is player and other != slot and top not in FACE_UP_LABELS and _alike(top, card) \
                    and (zone in self._unsettled_since or zone in self._under_hand):
                found.append((player, int(other), None, top))
        if len(found) != 1:
            return None
        source = found[0]
        for dep in self._departures:
            if dep.player is player and dep.slot == source[1] and dep.card == source[3] and not dep.used:
                dep.used = True
        if source[2] is None:
            self._gone_before_settled[(source[3], player, source[1])] = change.time
        if here:
            log.info("frame %d: %s read as %s, which lies on a pile: the %s that left %s's slot %d",
                     change.frame, change.zone, card, source[3], player, source[1])
        else:
            log.info("frame %d: %s shows %s, come from %s's slot %d, where it was read as %s",
                     change.frame, change.zone, card, player, source[1], source[3])
        return source

    def _spit_player(self, change: ZoneChange, since: tuple[float, int],
                     played_under: Collection[Player] = ()) -> Player | None:
        """Whose spit card landed on a pile: a player whose hand was at their packet shortly
        before (a visit not already spent on an earlier spit card); of two, the one alone whose
        hand's tip lay on the pile in the ``SPIT_PLACE_S`` before the card touched it and has
        not moved on to the other pile since (an arm crossing the pile to put its own card on
        the far one passes over it, fingertips and all, before or after the card comes: game
        5149, A's hand crossed pile 2 just after B's fingertips put B's card there, covering it
        a frame longer; game 5162 the same, as long; fixture stalemate, A's crossed it just
        before; each time both spit cards went to the wrong players when judged by the hand
        that covered the pile longer, or whose tip lay on it longer); else the one whose hand
        was on the pile longer then; of two as long on it, the one whose hand's tip lay on it
        longer (game 5110: A's arm and B's, each crossing over the other's pile to the far one,
        covered pile 1 as long; A's fingertips lay on it 6 frames, B's 1); else the later
        visit. None: nobody's hand was at their packet. Of two whose tips lay on it, when one
        of them (``played_under``) put a card found beneath it in the same change, the other:
        that hand was on the pile for its play (game 5506, both recognitions: A played the 7S
        onto pile 2 and its hand stayed on the pile, its arm having touched A's packet on the
        way; B's spit 8D came onto the 7S 0.18 s later and went to A, with two false F_EARLY)."""
        visits = self._spit_visits(change, since)
        if not visits:
            return None
        window = self._spit_window(change)
        placers = self._spit_placers(change, visits)
        if len(placers) == 2 and len(set(placers) & set(played_under)) == 1:
            placers = [p for p in placers if p not in played_under]
        if len(placers) != 1:
            # the one whose hand was on the pile when the card touched it (another hand may
            # pass over it before or after, on its way to the other pile)
            on_pile = {p: self._frames_on(change.zone, p, *window) for p in visits}
            best = max(on_pile.values())
            placers = [p for p in visits if on_pile[p] == best] if best > 0 else []
            if len(placers) == 2:  # as long on it: the one whose fingertips lay on it longer
                tips = {p: self._tip_frames(change.zone, p, *window) for p in placers}
                placers = [p for p in placers if tips[p] == max(tips.values())]
        player = placers[0] if len(placers) == 1 else max(visits, key=lambda p: visits[p])
        self._packet_visit_used[player] = visits[player]
        return player

    def _spit_window(self, change: ZoneChange) -> tuple[float, float]:
        """When a hand putting a spit card down on the changed pile was on it."""
        t = self._touch(change, "spit")
        return t - SPIT_PLACE_S, t + 1.5 / 30

    def _spit_placers(self, change: ZoneChange, visits: Collection[Player]) -> list[Player]:
        """Of the players who were at their packet (``visits``), those whose hand's tip lay on
        the changed pile as a spit card was put down (up to ``SPIT_TIP_AFTER_S`` after) and has
        not moved on to the other pile."""
        touched = self._touch(change, "spit")
        start, end = touched - SPIT_PLACE_S, touched + SPIT_TIP_AFTER_S
        return [p for p in visits if self._tip_frames(change.zone, p, start, end) > 0
                and not self._tip_moved_on(change.zone, p, start)]

    def _spit_unsure(self, change: ZoneChange, since: tuple[float, int]) -> bool:
        """Whether both players, each just at their packet, had their fingertips on the changed
        pile as a spit card was put down, neither yet seen moving on to the other pile: the one
        whose arm crosses to the far pile is known only when it gets there."""
        return len(self._spit_placers(change, self._spit_visits(change, since))) == 2

    def _spit_visits(self, change: ZoneChange, since: tuple[float, int]) -> dict[Player, float]:
        """The packet visits (:meth:`_packet_visits`) that can have fetched the spit card on the
        changed pile: made before it touched the pile (a pile that settled late under the hands
        must not take a visit made after: game 5702 with perfect recognition, B's spit 10C on
        pile 2, A's hand on the pile after putting the KH on pile 1, then at A's packet for the
        9D before pile 2 settled: the 10C went to A, two false F_EARLY)."""
        return self._packet_visits(since, min(change.time, self._touch(change, "spit") + SPIT_VISIT_AFTER_S))

    def _tip_moved_on(self, pile: str, player: Player, since: float) -> bool:
        """Whether the tip of ``player``'s hand, seen on ``pile`` since ``since``, was last seen
        on another pile: the arm crossed ``pile`` on its way to the other."""
        seen = [(when, zone) for when, who, zone in self._tips_on_piles if who is player and when >= since]
        return any(zone == pile for _, zone in seen) and max(seen)[1] != pile

    def _packet_visits(self, since: tuple[float, int], until: float) -> dict[Player, float]:
        """The players whose hand was at their packet shortly before a pile went busy at
        ``since`` and before it settled at ``until`` (a visit not already spent on an earlier
        spit card): when it was last there then. Not later: a pile change explained late (it
        waited for other zones) would take the visit of the player's next spit card (game 5261
        with the model: B's 2S, explained 0.5 s after it settled, took the visit B's hand was
        making for the 4H; the 4H went to A, and A's 9H was taken for a play: six false F_EARLY)."""
        visits = {}
        for player, seen in self._packet_seen.items():
            used = self._packet_visit_used.get(player, -1.0)
            times = [t for t in seen if since[0] - SPIT_REACH_S - 0.1 <= t <= until and t > used]
            if times:
                visits[player] = times[-1]
        return visits

    def _read_as_spit(self, change: ZoneChange, reading: ZoneReading, since: tuple[float, int]
                      ) -> ZoneReading:
        """A pile whose picture changed as a new card changes it (``NEW_CARD_DIFFERENCE``), read
        as the card it showed, whose runner-up was read nearly as surely
        (``SPIT_RUNNER_UP_SHARE``) and is no card in play (on no zone, in no pile), while a
        player's hand had just been at their packet: read as that card, a spit card on the old
        top. Game 5083 with the model: B's spit AC on the 5C, read 5C at 0.79,
        AC at 0.74; the spit was missed, and A's next play judged before both spit cards were
        turned (a false F_EARLY, and two faults after it missed)."""
        second = reading.runner_up
        if second is None or second in FACE_UP_LABELS or change.difference < NEW_CARD_DIFFERENCE \
                or not reading.runner_up_confidence >= SPIT_RUNNER_UP_SHARE * reading.confidence:
            return reading
        in_play = set(self.state.tops.values()) | {c.card for pile in self.state.piles.values() for c in pile}
        if second in in_play or not self._packet_visits(since, change.time):
            return reading
        log.info("frame %d: %s read as its top %s (%.2f), its runner-up %s (%.2f) in no play, a hand "
                 "just at its packet: read as that spit card", change.frame, change.zone, reading.label,
                 reading.confidence, second, reading.runner_up_confidence)
        return reading.as_runner_up()

    def _frames_on(self, zone: str, player: Player, start: float, end: float) -> int:
        """How much ``player``'s hand was on ``zone`` between two times: 2 for each frame it
        covered the zone's centre, 1 for each it only touched the zone."""
        return sum(2 if zone in covers else 1 for t, p, covers, touches in self._hand_history
                   if p is player and start <= t <= end and (zone in covers or zone in touches))

    # ------------------------------------------------------------------ hands
    def _follow_hands(self, tracked: TrackedFrame) -> None:
        self._hands_seen.append((tracked.frame, tracked.time, tracked.hands))
        per_player: dict[Player, int] = {}
        for hand in tracked.hands:
            per_player[hand.player] = per_player.get(hand.player, 0) + 1
            self._hand_history.append((tracked.time, hand.player, hand.zones, hand.touches))
            at_tip = self._piles_at_tip(hand)
            self._tips_on_piles.extend((tracked.time, hand.player, zone) for zone in at_tip)
            for zone in dict.fromkeys(hand.zones + hand.touches + self._joined_tip_piles(hand)):
                self._hands_over.setdefault(zone, {})[hand.player] = tracked.time
                if zone == self._packet_zone.get(hand.player):
                    self._at_packet(hand.player, tracked.time)
        self._note_packet_pulls(tracked)
        for seen in self._packet_seen.values():
            while seen and seen[0] < tracked.time - PACKET_MEMORY_S:
                seen.popleft()
        for player, n in per_player.items():
            if n >= 2:
                arms = tuple((_arm_in_x(h), *h.tip_mm) for h in tracked.hands
                             if h.player is player and not h.merged
                             and h.area_mm2 >= SECOND_HAND_MM2)
                if len(arms) >= 2:
                    self._two_hands_seen.append((tracked.time, player, arms))
        while self._two_hands_seen and self._two_hands_seen[0][0] < tracked.time - HAND_MEMORY_S:
            self._two_hands_seen.popleft()
        while self._hand_history and self._hand_history[0][0] < tracked.time - HAND_MEMORY_S:
            self._hand_history.popleft()
        while self._tips_on_piles and self._tips_on_piles[0][0] < tracked.time - HAND_MEMORY_S:
            self._tips_on_piles.popleft()
        while self._hands_seen and self._hands_seen[0][1] < tracked.time - HAND_MEMORY_S:
            self._hands_seen.popleft()

    def _note_packet_pulls(self, tracked: TrackedFrame) -> None:
        """A packet busy while only its owner's hands reach near it (their box overlaps it) was
        visited by its owner, though no hand covers a fifth of it: fingers at its far edge slide
        the top card off (game 5237 with the model: B's spit QS, pulled off the packet's end
        by fingertips the tracker saw on no zone, was taken for a card from nowhere and read as
        B's 8S; six false faults followed)."""
        for player, packet in self._packet_zone.items():
            obs = tracked.zones.get(packet)
            if obs is None or obs.settled:
                continue
            box = self._packet_box[packet]
            near = {hand.player for hand in tracked.hands if _boxes_overlap(hand.bbox_mm, box)}
            if near == {player}:
                self._hands_over.setdefault(packet, {})[player] = tracked.time
                self._at_packet(player, tracked.time)

    def _at_packet(self, player: Player, time: float) -> None:
        """Note that ``player``'s hand was at their packet at ``time`` (once a frame)."""
        seen = self._packet_seen[player]
        if not seen or seen[-1] < time:
            seen.append(time)

    def _piles_at_tip(self, hand: HandBlob) -> tuple[str, ...]:
        """The spit piles whose outline holds the hand's tip."""
        return tuple(z for z, outline in self._pile_outline.items()
                     if cv2.pointPolygonTest(outline, hand.tip_mm, False) >= 0)

    def _joined_tip_piles(self, hand: HandBlob) -> tuple[str, ...]:
        """The spit piles at the tip of a hand split from another's (two arms joined over a
        pile), whose centre it does not cover: on the pile's outline or within
        ``JOINED_TIP_MM`` of it. The split gives the pile's centre to one of them, but the
        other's hand may lie on it too, under the cells given to the first (race-eval seed 6228:
        A's 10C landed under B's 8C while A's part of the joined arms reached pile 1 without its
        centre; race-eval seed 6554: A's part stopped 14 mm short of pile 2, where A's 10H
        touched 22 ms before B's 8H came on it; each card underneath was not looked for)."""
        if not hand.merged:
            return ()
        return tuple(z for z, outline in self._pile_outline.items() if z not in hand.zones
                     and cv2.pointPolygonTest(outline, hand.tip_mm, True) >= -JOINED_TIP_MM)

    def _hand_player(self, zone: str, since: float, until: float) -> Player | None:
        """The player whose hand was over ``zone`` last between ``since`` and ``until``."""
        seen = {p: t for p, t in self._hands_over.get(zone, {}).items() if since - 0.5 <= t <= until + 1e-9}
        if not seen:
            return None
        return max(seen, key=lambda p: seen[p])

    def _slapped_pile(self, hand: HandBlob) -> str | None:
        """The spit pile a hand is on: of the piles it covers, the one nearest its tip (the palm
        is there; its forearm may pass over the other)."""
        piles = [z for z in self._pile_zone.values() if z in hand.zones]
        if len(piles) < 2:
            return piles[0] if piles else None
        return max(piles, key=lambda z: cv2.pointPolygonTest(self._pile_outline[z], hand.tip_mm, True))

    def _maybe_elsewhere(self, dep: _Departure, zone: str) -> bool:
        """The departed card may be on its way to the other spit pile: that pile is unsettled (or
        settled showing a card not read surely yet) and a hand of the same player has touched it
        since the card left (two hands at once; a hand putting a card down rarely covers the
        pile's centre, least of all from the far side); or the other pile's change waits, settled
        by a carry, and the card was last seen on it (game 5016: two hands at once)."""
        if any(w.zone != zone and dep.card in w.beneath for w, _, _ in self._waiting):
            return True
        for other in self._pile_zone.values():
            if other != zone and (other in self._unsettled_since or other in self._unread) \
                    and self._hands_over.get(other, {}).get(dep.player, -1.0) >= dep.start:
                return True
        return False

    def _hand_was_over(self, zone: str, player: Player, since: float) -> bool:
        """A hand of ``player`` was over ``zone`` at ``since`` or later."""
        return self._hands_over.get(zone, {}).get(player, -1.0) >= since - 0.1

    def _hand_or_tip_was_on(self, pile: str, player: Player, since: float) -> bool:
        """A hand of ``player`` was over spit pile ``pile``, or its tip on it, at ``since`` or later."""
        return self._hand_was_over(pile, player, since) or self._tip_was_on(pile, player, since)

    def _alone_on(self, pile: str, player: Player, since: float) -> bool:
        """Only ``player``'s hand (or its tip) was on spit pile ``pile`` at ``since`` or later."""
        return self._hand_or_tip_was_on(pile, player, since) and not self._hand_or_tip_was_on(
            pile, player.other, since)

    def _tip_was_on(self, pile: str, player: Player, since: float) -> bool:
        """The tip of a hand of ``player`` lay on spit pile ``pile`` at ``since`` or later (a hand
        putting a card down may reach no more of the pile than its fingertips: game 5154, A's 3D
        put on pile 1 by a hand that covered neither its centre nor a fifth of it)."""
        return self._tip_frames(pile, player, since - 0.1, math.inf) > 0

    def _tip_frames(self, pile: str, player: Player, start: float, end: float) -> int:
        """In how many frames between two times the tip of a hand of ``player`` lay on ``pile``."""
        return sum(1 for when, who, zone in self._tips_on_piles
                   if who is player and zone == pile and start <= when <= end)

    def _hand_of(self, player: Player, start: float | None, slot: int) -> Hand | None:
        """Which hand took the card from ``slot``: known only when the player had two hands on
        the mat when it left. In the view nearest that moment, the hand whose tip is nearest
        the slot took it; it is the player's left when its arm comes in further to their left
        than the other (the smaller mat x for A, who faces the far edge, the larger for B),
        wherever it reaches. Which of two hands took a card is then right even when one reaches
        past the other; left and right are only as good as where the arms come in (arms that
        cross behind the mat's edge come in swapped). When both tips are about as near the slot
        (``HAND_NEAR_SHARE``) and a card left another of the player's slots at about the same
        time, clearly taken by one of them, this card went with the other hand (game 5093: A's
        right hand, on its way to slot 5, was a little nearer slot 4 than the left hand that
        was coming for it, and two hands at once were called two cards at once)."""
        if start is None:
            return None
        near = [(abs(t - start), arms) for t, p, arms in self._two_hands_seen
                if p is player and abs(t - start) <= 0.25]
        if not near:
            return None
        arms = min(near, key=lambda item: item[0])[1]
        took = self._arm_nearest(arms, player, slot)
        if took is None:
            others = {d.slot for d in self._departures if d.player is player and d.slot != slot
                      and abs(d.start - start) <= 0.25}
            clear = {arm for other in others if (arm := self._arm_nearest(arms, player, other)) is not None}
            free = [arm for arm in arms if arm not in clear]
            if len(clear) == 1 and len(free) == 1:
                took = free[0]
                log.info("%s's slot %d: both hands about as near, the other took a card from slot %s: "
                         "taken by the other hand", player, slot, ", ".join(map(str, sorted(others))))
        if took is None:
            took = self._arm_nearest(arms, player, slot, clear_only=False)
            assert took is not None
        lowest = took[0] <= min(arm[0] for arm in arms)
        return Hand.LEFT if lowest == (player is Player.A) else Hand.RIGHT

    def _arm_nearest(self, arms: tuple[tuple[float, float, float], ...], player: Player, slot: int,
                     clear_only: bool = True) -> tuple[float, float, float] | None:
        """Of a player's arms (x where it comes in, tip x, tip y), the one whose tip is nearest
        the player's ``slot``; with ``clear_only``, None unless it is clearly the nearer
        (``HAND_NEAR_SHARE``)."""
        cx, cy = self._zone[self._slot_zone[(player, slot)]].center
        ranked = sorted(arms, key=lambda arm: math.hypot(arm[1] - cx, arm[2] - cy))
        if clear_only and math.hypot(ranked[0][1] - cx, ranked[0][2] - cy) \
                > HAND_NEAR_SHARE * math.hypot(ranked[1][1] - cx, ranked[1][2] - cy):
            return None
        return ranked[0]

    # ------------------------------------------------------------------ slaps
    def _slap_events(self, tracked: TrackedFrame) -> list[TableEvent]:
        if not self.round_over:
            return self._early_slap_events(tracked)
        self._early_slaps.clear()
        self._early_pending = []
        events: list[TableEvent] = []
        for number, player, came, left in self._slaps_before_known:
            self._slaps[(number, player)] = _HandSeen(came, slapped=True)
            events.append(Slap(t=came + SLAP_LEAD_S, frame=tracked.frame, player=player, pile=number,
                               evidence={"zone": self._pile_zone[number], "before_known": True,
                                         "over_t": [round(came, 4), round(left, 4)]}))
        self._slaps_before_known = []
        piles = [(h, self._slapped_pile(h)) for h in tracked.hands]  # each hand's pile, once
        on_a_pile = {h.player for h, pile in piles if pile is not None}
        for player in set(self._merged_came) - on_a_pile:
            del self._merged_came[player]
        for number, zone in self._pile_zone.items():
            over = {h.player: h for h, pile in piles if pile == zone}
            joined = self._joined_on(over, tracked, zone)
            if joined is not None:
                over[joined.player] = joined
            for player in (Player.A, Player.B):
                key = (int(number), player)
                seen = self._slaps.get(key)
                if player not in over:
                    if seen is not None and not seen.slapped:
                        del self._slaps[key]
                        if not seen.lingering and player in on_a_pile and any(
                                h.merged for h in tracked.hands if h.player is player):
                            self._note_merged_came(player, seen.first)
                    continue
                if seen is None:
                    seen = self._slaps[key] = _HandSeen(tracked.time)
                if seen.slapped:
                    continue
                if self._given_slap_t(player) is not None:
                    # one slap a round: a hand that moves on to the other pile after its slap
                    # was given (slap-eval seed 7013: B's slap seen on pile 1, which the arbiter
                    # put on pile 2, where B's hand lay; B's hand there was given again 0.12 s on)
                    continue
                evidence = {"zone": zone, "first_over_frame": tracked.frame,
                            "hand_area_mm2": round(over[player].area_mm2)}
                if joined is not None and joined.player is player:
                    evidence["joined"] = True
                merged_came = self._merged_came.get(player)
                if merged_came is not None and merged_came < seen.first:
                    evidence["merged_came_t"] = round(merged_came, 4)
                if not seen.lingering and tracked.time - seen.first >= SLAP_STILL_S:
                    seen.slapped = True
                    events.append(Slap(t=seen.first + SLAP_LEAD_S, frame=tracked.frame, player=player,
                                       pile=int(number), evidence=evidence))
                elif seen.lingering and (other := self._given_slap_t(player.other)) is not None:
                    # the hand that stayed on the pile from the round's end may have slapped it
                    # from there: when the other player slaps, it is given for the arbiter to time
                    # by its arm coming to rest (and to drop when its arm never moved)
                    seen.slapped = True
                    events.append(Slap(t=other, frame=tracked.frame, player=player, pile=int(number),
                                       evidence={**evidence, "lingering": True}))
                elif seen.lingering and self._lingering_on_a_pile(player.other):
                    # both hands lay on piles from before the round was known over, each
                    # waiting for the other's slap, so neither was ever given: each may have
                    # slapped from there; both go to the arbiter, timed from when each hand
                    # came, to be timed by their arms or dropped
                    seen.slapped = True
                    events.append(Slap(t=seen.first + SLAP_LEAD_S, frame=tracked.frame, player=player,
                                       pile=int(number), evidence={**evidence, "lingering": True}))
        return events

    def _note_merged_came(self, player: Player, first: float) -> None:
        """``player``'s hand, part of one blob of both arms, left the pile it was first seen
        on (``first``) for the other while still on a pile: the blob's split between the arms
        moves its tip (a card put down just before, not yet in the tracker's background, joins
        the blob). The slap stays on the pile seen, but the arbiter builds the hands'
        background from the views before ``first`` (slap-eval seed 6795, both recognitions: B's
        hand, first on pile 2 at 1.33 s under A's, was put on pile 1 from 1.5 s, through A's 7S
        just played there; the background, from the views to 1.61 s, took both hands at rest
        on pile 2 for the pile, and B's slap was judged on pile 1)."""
        self._merged_came[player] = min(first, self._merged_came.get(player, first))

    def _joined_on(self, over: dict[Player, HandBlob], tracked: TrackedFrame, zone: str) -> HandBlob | None:
        """After the round: the other player's part of a blob of both arms (``merged``) that
        covers one player's slapped pile while that part lies on no pile: the two hands met on
        the pile and the tracker's split between them went wrong (slap-eval seed 6021: A's hand
        under B's on pile 2 was given to B, A's part ended between the piles, and A's slap, the
        first, was never seen). Or, the blob on the pile one player's alone, the other player's
        arm on no pile ending within ``ARM_AT_PILE_MM`` of it: the tracker cut that hand off at
        the wrist and joined it to the blob on the pile (slap-eval seed 6262: B's palm on pile 1
        went with A's hand from the frame B landed, B's arm ended 17 mm from the pile, and B's
        slap was never seen). It is given marked ``joined``, for the arbiter to time by its arm
        coming to rest there, or to drop."""
        if len(over) != 1:
            return None
        (player, hand), = over.items()
        if hand.merged:
            return next((h for h in tracked.hands if h.merged and h.player is player.other
                         and self._slapped_pile(h) is None), None)
        outline = self._pile_outline[zone]
        return next((h for h in tracked.hands if not h.merged and h.player is player.other
                     and self._slapped_pile(h) is None
                     and cv2.pointPolygonTest(outline, h.tip_mm, True) >= -ARM_AT_PILE_MM), None)

    def _lingering_on_a_pile(self, player: Player) -> bool:
        """A hand of ``player`` lies on a spit pile since before the round was known over."""
        return any(p is player and seen.lingering for (_, p), seen in self._slaps.items())

    def _given_slap_t(self, player: Player) -> float | None:
        """When ``player``'s first slap given since the round ended was seen (any pile)."""
        times = [seen.first + SLAP_LEAD_S for (_, p), seen in self._slaps.items()
                 if p is player and seen.slapped and not seen.lingering]
        return min(times) if times else None

    def _early_slap_events(self, tracked: TrackedFrame) -> list[TableEvent]:
        """Slaps during play: a hand that lay still on a spit pile (``EARLY_SLAP_STILL_S``)
        while its card stayed (no card put down, taken back or waiting to be explained there),
        given once the hand has left and the pile, clear again, looks as it did before the hand
        came (``ZoneObservation.as_before``), unless a stock slot of the player, which had begun
        to change before the hand left the pile, was clear again, changed, from
        ``EARLY_SLAP_SLOTS_S`` before the hand came on (the slap waits at least as long after
        it left, and for such slots to settle): a card put down under a hand that lingers may
        not be read, but it changes the pile's picture, or its slot's (the tests' model that
        reads no card made a slap of a play and its take-back). Not a hand that comes onto the
        pile as part of an arm merged with the other player's: where one ends is a guess, and a
        knocked camera makes one blob of the whole mat until the drift check follows it (fixture
        camera-nudge); but a hand already on the pile is held there while another arm joins it
        (``_joined_over``), and stays while its tip does, covering a part of the pile
        (``_hand_staying``); a tip back where it lay within ``EARLY_SLAP_FLIP_S`` lay still. A
        card the other player plays onto the pile meanwhile leaves it a slap, the pile clear
        again showing that card (``_played_beside``)."""
        events: list[TableEvent] = []
        for number, zone in self._pile_zone.items():
            over = {h.player: h for h in tracked.hands if not h.merged and self._slapped_pile(h) == zone}
            obs = tracked.zones.get(zone)
            top = self.state.tops.get(zone, "empty")
            for player in (Player.A, Player.B):
                key = (int(number), player)
                hand = over.get(player)
                seen = self._early_slaps.get(key)
                joined = False
                if hand is None and seen is not None:
                    hand = self._hand_staying(player, zone, seen, tracked)
                    joined = hand is None and self._joined_over(player, zone, tracked)
                if hand is None and not joined:
                    if seen is not None and seen.still_s is not None and not seen.slapped:
                        self._early_pending.append((key, seen, tracked.time, False))
                    self._early_slaps.pop(key, None)
                    continue
                if seen is None:
                    assert hand is not None
                    pile = self.state.piles.get(int(number), [])
                    seen = self._early_slaps[key] = _HandSeen(
                        tracked.time, anchor=hand.tip_mm, still_from=tracked.time, top=top,
                        on_pile=frozenset(c.card for c in pile),
                        top_other=bool(pile) and pile[-1].player is player.other)
                elif hand is not None and seen.joined_from is not None \
                        and math.dist(hand.tip_mm, seen.anchor) > EARLY_SLAP_TIP_MM:
                    # the arms parted with the tip elsewhere: the joined blob hid where the hand
                    # came to rest; it lies there since the arms joined (game 5547, both
                    # recognitions: B's fingers reached over the pile to A's slots while A's arm
                    # joined B's; seen again 0.36 s on, the hand was taken to have moved then,
                    # and its 0.33 s still after that were too few: the F_EARLY_SLAP missed)
                    seen.anchor, seen.still_from = hand.tip_mm, seen.joined_from
                    seen.rest_before = seen.anchor_before = None
                elif hand is not None and math.dist(hand.tip_mm, seen.anchor) > EARLY_SLAP_TIP_MM:
                    if seen.anchor_before is not None and seen.rest_before is not None \
                            and math.dist(hand.tip_mm, seen.anchor_before) <= EARLY_SLAP_TIP_MM \
                            and tracked.time - seen.moved_at <= EARLY_SLAP_FLIP_S:
                        # back where it lay: still since the earlier of the two rests
                        seen.still_from = seen.rest_before = min(seen.still_from, seen.rest_before)
                        seen.anchor, seen.anchor_before = seen.anchor_before, seen.anchor
                    else:
                        seen.rest_before, seen.anchor_before = seen.still_from, seen.anchor
                        seen.anchor, seen.still_from = hand.tip_mm, tracked.time
                    seen.moved_at = tracked.time
                elif joined and seen.rest_before is not None \
                        and tracked.time - seen.still_from <= VISIT_GAP_S:
                    # the tip moved the frame before the arms joined: the other arm, reaching
                    # the hand, already lay in its blob (game 5199: B's fingers, 16 mm from A's)
                    seen.still_from, seen.rest_before = seen.rest_before, None
                if joined and seen.joined_from is None:
                    seen.joined_from = tracked.time
                elif not joined and hand is not None:
                    seen.joined_from = None
                if top != seen.top:  # a card came or went under it: a play or a take-back
                    if not self._played_beside(key, seen, top) and not self._taken_beside(key, seen, top):
                        seen.slapped = True
                # (a pile read unsurely under the hands counts: the slap waits once the hand
                # has gone until the pile is read, and a card read there then was a play; game
                # 5547 with the model: pile 2 read unsurely under the two arms, the F_EARLY_SLAP
                # missed)
                if obs is not None and not obs.settled:
                    seen.busy_seen, seen.settled_from = True, None
                elif seen.busy_seen and seen.settled_from is None:
                    seen.settled_from = tracked.time
                if (not seen.slapped and seen.still_s is None
                        and tracked.time - seen.still_since >= EARLY_SLAP_STILL_S
                        and obs is not None and obs.settled
                        and not any(change.zone == zone for change, _, _ in self._waiting)):
                    seen.still_s = round(tracked.time - seen.still_since, 3)
        keep = []
        for key, seen, left, pile_ok in self._early_pending:
            zone = self._pile_zone[key[0]]
            obs = tracked.zones.get(zone)
            # a change once the pile was seen as before is the players' next move (game 5009:
            # A played onto the pile 0.5 s after slapping it, while the slot A's arm had lain
            # over was still busy, and the early slap was dropped)
            top = self.state.tops.get(zone, "empty")
            # (the other player taking back their card from under the hand, read only now, too)
            if top != seen.top and ((self._played_beside(key, seen, top) and seen.differed)
                                    or self._taken_beside(key, seen, top)):
                pile_ok = True  # clear again, showing the other player's card that came since
            if top != seen.top and self._own_taken_back(key, seen, top):
                continue  # the hand lingered over its own card, then took it back: no slap
            if obs is not None and obs.as_before is False and not pile_ok:
                seen.differed = True  # ... unless that card is read only now
            explained = obs is not None and obs.settled and zone not in self._unread \
                and not any(change.zone == zone for change, _, _ in self._waiting)
            # (a pile read again as its top: what changed its picture put nothing there, nor
            # took it back; game 5366, B's hand still on pile 1 for 0.8 s during play: the pile
            # settled as the hand left, the picture changed, read as its AS again, and the
            # F_EARLY_SLAP was missed)
            read_again = explained and self._top_read_again.get(zone, -math.inf) >= seen.first
            changed = not pile_ok and (top != seen.top or (seen.differed and not seen.beside and explained
                                                           and not read_again))
            pile_ok = pile_ok or read_again or (
                obs is not None and (obs.as_before is True or (seen.beside and obs.as_before is False)))
            if changed or tracked.time - left >= EARLY_SLAP_WAIT_S:
                continue  # a card came or went after all
            if not pile_ok or tracked.time < left + EARLY_SLAP_SLOTS_S \
                    or self._slot_busy_since(key[1], left, tracked) or self._leaving_since(key[1], left):
                keep.append((key, seen, left, pile_ok))
            elif not self._slots_changed(key[1], seen.first - EARLY_SLAP_SLOTS_S, left, key[0]):
                events.append(self._early_slap(key, seen, left, tracked.frame))
        self._early_pending = keep
        return events

    def _played_beside(self, key: tuple[int, Player], seen: _HandSeen, top: str) -> bool:
        """The pile of ``key`` (pile number, player) shows ``top``, the card the other player
        played there last since ``seen``'s hand came, while it lay on it or once it had left (not
        a card uncovered by a take-back: race-eval seed 6002, B's 8H off A's 10D; games 5211 and
        5162: A played onto the pile B was slapping during play): the hand's visit stays a
        slap, and the pile, clear again, shows that card (``seen.top``, ``seen.beside``)."""
        pile = self.state.piles.get(key[0]) or []
        if not (pile and pile[-1].card == top and pile[-1].player is key[1].other
                and top not in seen.on_pile):  # come since, not uncovered (race seed 6002)
            return False
        seen.top, seen.beside, seen.top_other = top, True, True
        return True

    def _taken_beside(self, key: tuple[int, Player], seen: _HandSeen, top: str) -> bool:
        """The pile of ``key`` (pile number, player) shows ``top``, uncovered by the other player
        taking back the card that lay on top (``seen.top``, the other player's) while ``seen``'s
        hand lay on it: the visit stays a slap, and the pile, clear again, shows that card (game
        5599, both recognitions: A's hand on pile 2 while B took back the 4S from under it, the
        F_EARLY_SLAP was missed)."""
        pile = self.state.piles.get(key[0]) or []
        if not (seen.top_other and pile and pile[-1].card == top and top in seen.on_pile
                and seen.top not in {c.card for c in pile}):
            return False
        seen.top, seen.beside, seen.top_other = top, True, pile[-1].player is key[1].other
        return True

    def _own_taken_back(self, key: tuple[int, Player], seen: _HandSeen, top: str) -> bool:
        """The pile of ``key`` (pile number, player) shows ``top``, uncovered by the player taking
        back their own card that lay on top (``seen.top``) when ``seen``'s hand came: the hand
        lingered over the card it had put down, deciding, and took it back, as a player who lost
        a touch race must; it was no slap, though it moved off the pile's centre first and the
        pile looked as before meanwhile (race-eval seed 6728, both recognitions: A's hand lay on
        A's 10H for 0.67 s after losing the race, its tip moved 51 mm and the 10H went back 0.3 s
        later: a false F_EARLY_SLAP)."""
        pile = self.state.piles.get(key[0]) or []
        return (bool(pile) and pile[-1].card == top and not seen.top_other and top in seen.on_pile
                and seen.top in seen.on_pile and seen.top not in {c.card for c in pile})

    def _hand_staying(self, player: Player, zone: str, seen: _HandSeen, tracked: TrackedFrame
                      ) -> HandBlob | None:
        """A hand of ``player`` that came to rest on spit pile ``zone`` (``seen``) and stays,
        its tip where it came to rest, covering a part of the pile (``HandBlob.touches``) but
        no longer its centre: a palm on the pile's edge covers the centre in some frames only
        (game 5168: A's hand on pile 1, its tip still, covered the centre for 2 of its 17 frames
        there)."""
        return next((h for h in tracked.hands if h.player is player and not h.merged and zone in h.touches
                     and self._slapped_pile(h) in (None, zone)
                     and math.dist(h.tip_mm, seen.anchor) <= EARLY_SLAP_TIP_MM), None)

    @staticmethod
    def _joined_over(player: Player, zone: str, tracked: TrackedFrame) -> bool:
        """``player``'s arm is joined with the other player's in one blob (``HandBlob.merged``)
        that lies over spit pile ``zone``: the other arm, passing or playing, touched the hand on
        the pile. Where one arm ends in the blob is a guess (the tracker's split gives the pile
        to either), so a hand that came to rest on the pile is held there, its rest neither
        broken nor confirmed by the blob's tip, until the arms part (games 5168, 5171, 5199: the
        other player's arm touched the slapping hand for 0.2-0.4 s of its 0.6-0.7 s there)."""
        return any(h.merged and h.player is player for h in tracked.hands) \
            and any(h.merged and (zone in h.zones or zone in h.touches) for h in tracked.hands)

    def _early_slap(self, key: tuple[int, Player], seen: _HandSeen, left: float, frame: int) -> Slap:
        """The slap during play of ``key`` (pile number, player): the hand came at ``seen.first``."""
        return Slap(t=seen.first + SLAP_LEAD_S, frame=frame, player=key[1], pile=key[0],
                    evidence={"zone": self._pile_zone[key[0]], "over_since_t": round(seen.first, 4),
                              "during_play": True, "still_s": seen.still_s, "left_t": round(left, 4)})

    def _early_slaps_at_end(self, frame: int) -> list[TableEvent]:
        """At the end of the video, the slaps during play still waiting whose pile was clear
        again as before and whose player's slots were not seen to change meanwhile (game 5104:
        A's hand left pile 2 0.7 s before the video ended, A's arm still over A's slot 4; the
        F_EARLY_SLAP was missed)."""
        events: list[TableEvent] = [
            self._early_slap(key, seen, left, frame) for key, seen, left, pile_ok in self._early_pending
            if pile_ok and not self._slots_changed(key[1], seen.first - EARLY_SLAP_SLOTS_S, left, key[0])]
        self._early_pending = []
        return events


    def _slot_busy_since(self, player: Player, left: float, tracked: TrackedFrame) -> bool:
        """A stock slot of ``player`` unsettled since before ``left`` (the hand left the pile):
        what was taken from it or left on it is not known yet."""
        for (owner, _), zone in self._slot_zone.items():
            obs = tracked.zones.get(zone)
            if owner is player and obs is not None and not obs.settled \
                    and self._slot_settled_t.get(zone, -math.inf) < left:
                return True
        return False

    def _leaving_since(self, player: Player, left: float) -> bool:
        """A card of ``player``'s left a slot after ``left`` (the hand left the pile) and is
        not explained yet: once it is (played, moved), :meth:`_slots_changed` knows it for the
        player's next move (game 5253: B's arm, leaving pile 1 after slapping it, crossed B's
        slot 4 just before it was off the pile and took the KC to pile 2; the slot settled
        before pile 2 did, and the F_EARLY_SLAP was dropped)."""
        return any(not d.used for d in self._left_after(player, left))

    def _left_after(self, player: Player, left: float) -> list[_Departure]:
        """The departures of ``player``'s cards that left their slots after ``left``."""
        return [d for d in self._departures if d.player is player and d.start >= left]

    def _slots_changed(self, player: Player, since: float, left: float, pile: int) -> bool:
        """A stock slot of ``player`` was clear again, changed, after ``since``, its busy spell
        begun before ``left`` (when the hand left the pile): a card it took or gave may have
        gone under the hand, or come back from under it (fixture illegal-rank: a play and its
        take-back; the slot began to change 0.1 s before the hand left the pile). A spell begun
        later is the player's next move (game 5010: a card taken from the slot the arm lay
        over, 0.7 s after the hand left). Not a slot read since only as the card it showed
        before (game 5024 at 1280x720: B's other hand lay beside B's slot 2 while B slapped
        pile 2 during play; the slot's picture changed, read as its AC each time, and the early
        slap and its F_EARLY_SLAP were dropped), nor a slot that showed a back and is read since
        only as the card given as turned there (that game: B turned 5C in slot 3 just before).
        Nor a slot whose card now lies on the other spit pile (game 5102: A's arm, leaving
        ``pile`` after slapping it, crossed A's slot 3 two frames before it was off the pile,
        and A's next move took the slot's 8H to the other pile: the F_EARLY_SLAP was missed),
        nor one whose card was played after it left the slot once the hand had left the pile
        (game 5211: B's arm, leaving pile 1, came over B's slot 4 and took its QH to the pile
        0.7 s later)."""
        elsewhere = {c.card for n, stack in self.state.piles.items() if n != pile for c in stack}
        elsewhere |= {d.card for d in self._left_after(player, left) if d.used}
        return any(clear >= since and busy_from < left and top not in elsewhere
                   and self._read_otherwise(zone, top, busy_from)
                   for busy_from, clear, zone, top in self._slot_changes.get(player, ()))

    def _read_otherwise(self, zone: str, top: str, since: float) -> bool:
        """Whether ``zone``, which showed ``top``, may have given a card to a pile or taken one
        back since ``since``: unless every reading since names the card ``top`` is (after a back,
        the card given as turned there). A slot not read since, or one that showed no card
        known by name, may have (the tests' model that reads no card sees every slot empty: a
        play and its take-back under a lingering hand are no slap)."""
        reads = [label for t, label in self._slot_reads.get(zone, ()) if t >= since]
        card = self._turned.get(zone) if top == "back" else top
        if not reads or card is None or card in FACE_UP_LABELS:
            return True
        return any(label != card for label in reads)


def one_card_read(first: str, then: str) -> bool:
    """Whether two readings of a slot may be one card: the same identity, or its twin (the
    same rank and colour, AD and AH: a suit misread within a colour, the small indices'
    commonest misreading; a face-up card changes into another only by a move onto it)."""
    if first == then:
        return True
    if first in FACE_UP_LABELS or then in FACE_UP_LABELS:
        return False
    return Card.parse(first).twin(Card.parse(then))


def _seen_gone(reading: ZoneReading) -> bool:
    """Whether a slot's reading under a hand shows its face-up card gone: read empty, or as a
    back as surely as a pile's card under a hand is believed (``HAND_OVER_CONFIDENCE``; race-eval
    seed 6300 with the model: B's 3S, under B's arm, read as a back at 0.33)."""
    return reading.label == "empty" or (reading.label == "back"
                                        and reading.confidence >= HAND_OVER_CONFIDENCE)


def _alike(first: str, then: str) -> bool:
    """Whether a card read as ``first`` may be ``then`` misread: the same rank or the same suit
    (the model's misreadings of one card: a suit within a colour, 2S for 2C; a rank of like
    index glyphs, KD for JD)."""
    if first in FACE_UP_LABELS or then in FACE_UP_LABELS or first == then:
        return False
    a, b = Card.parse(first), Card.parse(then)
    return a.rank == b.rank or a.suit == b.suit


def _hints_at(readings: Sequence[ZoneReading], label: str) -> bool:
    """Whether a face-up card guessed in ``readings`` may have been the card read surely later
    as ``label``: a guess of its rank or suit, or one made at least ``GUESS_HINT_CONFIDENCE``
    surely (a guess of neither, made faintly, is more likely a back in the middle of a turn)."""
    return label not in FACE_UP_LABELS and any(
        r.guess is not None
        and (r.guess == label or _alike(r.guess, label) or r.confidence >= GUESS_HINT_CONFIDENCE)
        for r in readings)


def _taken_back(pile: Sequence[_PileCard], old: str, new: str) -> int | None:
    """How deep in ``pile`` (whose top is ``old``) the new top ``new`` lay: 2 when the top card
    was taken back, 3 when the two above it were; None when it is not a take-back. A pile of
    one card played onto nothing that is seen empty again had that card taken back (2)."""
    if not pile or pile[-1].card != old:
        return None
    if new == "empty":
        return 2 if _played_onto_nothing(pile) else None
    return next((k for k in (2, 3) if len(pile) >= k and pile[-k].card == new), None)


def _played_onto_nothing(pile: Sequence[_PileCard]) -> bool:
    """Whether ``pile`` holds one card only, played from a stock slot onto an empty spit pile
    (before the spit cards were turned: F_EARLY). Seen empty again, it was taken back, not
    the pile taken: a pile taken at a round's end holds a spit card at least (game 5057 at
    1280x720, both recognitions: A's QD, played before the spit cards and taken back, was
    judged a pile taken before the round ended, a false F_WRONG_TAKE)."""
    return len(pile) == 1 and pile[0].player is not None and pile[0].slot is not None


def _within_reach(outline: np.ndarray, hands: Sequence[HandBlob]) -> bool:
    """Whether a hand's tip (the fingers) lies within ``SLOT_REACH_MM`` of a slot's ``outline``."""
    return any(cv2.pointPolygonTest(outline, h.tip_mm, True) >= -SLOT_REACH_MM for h in hands)


def _arm_in_x(hand: HandBlob) -> float:
    """Where along the player's edge the arm comes in (mat x, mm); without it, the blob's middle."""
    return hand.base_mm[0] if hand.base_mm is not None else (hand.bbox_mm[0] + hand.bbox_mm[2]) / 2


def _guessed(evidence: dict[str, object], reading: ZoneReading) -> dict[str, object]:
    """A first frame's event whose card was not read surely: ``evidence`` saying so, with the
    zone and the reading's runner-up, so that a clash with a card read elsewhere can make it
    give way (race-eval seed 6769 with the model: B's 8C guessed 10C at 0.41, the runner-up 8C
    at 0.39, while A's 10C lay in A's slot 3: the turn was refused, and B's play of the 8C, its
    F_LOST_TOUCH and its take-back were lost)."""
    out = {**evidence, "guessed": True, "zone": reading.zone, "read_confidence": round(reading.confidence, 3)}
    if reading.runner_up is not None:
        out |= {"runner_up": reading.runner_up,
                "runner_up_confidence": round(reading.runner_up_confidence, 3)}
    return out


def _zone_box(zone: Zone) -> tuple[float, float, float, float]:
    """The mat box (x0, y0, x1, y1, mm) round a zone, turned as it lies."""
    poly = zone.polygon()
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
