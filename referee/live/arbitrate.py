"""Arbitration in the referee pipeline: touch times from the cards' carries, first-touch and
first-slap calls (docs/arbitration.md, "In the pipeline").

    arbiter = Arbiter(tracker)
    # every frame, after ZoneTracker.update and before the observer explains the changes:
    arbiter.observe(tracker, tracked, observer.believed_tops())
    for item in arbiter.refine(events, tracked, not_before=floor):   # the observer's events
        judge(item.event)               # time order; item.note goes into the verdict's message
    arbiter.flush(...)                  # the end of the video: slaps still held

What it keeps (bounded): the tracker's grey rectified views (1.5 px/mm) of the last
``history_frames`` frames, for following cards; its colour views shrunk by 2 (0.75 px/mm) of
the last ``small_history_frames``, for following hands; per stock slot, the face of the card
that lay there (a :class:`~referee.vision.arbitration.CardTemplate`) cut from the last view
where the slot was settled and uncovered, before a hand came over it.

What it does, only when the observer gives a play (a pile settled), a move or slaps:

- **plays and moves**: the card is followed from its slot through the kept views
  (:func:`~referee.vision.arbitration.track_card`) and its touch is placed on its carry
  (:func:`~referee.vision.arbitration.estimate_contact`). A good estimate (quality at least
  ``min_quality``, within ``max_shift_s`` of the observer's time, before the zone settled;
  for a card found underneath, any time from ``min_carry_s`` after it left its slot up to
  ``max_shift_s`` past the observer's, which is only a bound; for a pile busy longer than
  ``max_shift_s`` before it settled, as when a hand lingers over it, any time while it was
  busy, that long after the card left; any time that long after the card left and before the
  pile's busy spell began, when the track found the card on the pile through the views
  between: its earlier settle was misread)
  replaces the observer's ``t``; the estimate goes into
  the event's evidence either way, and ``start`` becomes the instant the track first moves.
  A face whose first view leaves the kept views keeps its follow's finished track when its
  card had left the slot, for a play explained later that ends where that track does;
- **races** (one pile change that gives two plays by different players, the observer's card
  underneath first): both cards' tracks, the layering of the settled pile and the recognised
  top card go to :func:`~referee.vision.arbitration.decide_first_touch`; the plays are given
  in the order it calls. When it makes no call the observer's layering order stays and the
  verdict says "first touch uncertain: <reason>";
- **slaps**: (after the round ended; one during play is a fault and goes on at once) held
  until the other player's slap (or ``slap_wait_s``), and what the observer gives while a
  pair waits for its views waits with it; the hands round each
  slapped pile (:func:`~referee.vision.arbitration.hand_tracks`) give each slap's touch, put a
  slap seen on the wrong pile on the one its hand covered, and when both slapped one pile
  :func:`~referee.vision.arbitration.decide_slap` orders them (the engine gives the pile to
  the first), saying so when it cannot tell.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from referee.events import Move, Play, Slap, TableEvent, TakeBack
from referee.players import Player
from referee.rules.hindsight import judged_in_place
from referee.vision import arbitration as ar
from referee.vision.layering_reader import LayeringReader
from referee.vision.mat import ZoneKind
from referee.vision.observation import PLAY_CARRY_S, SLAP_LEAD_S, one_card_read
from referee.vision.tracking import StrayChange, TrackedFrame, ZoneTracker

log = logging.getLogger(__name__)

#: a slap's ``touch_from`` when the two slaps' times crossed the call and were put either side of their middle
SLAPS_SPREAD = "between the two slaps' times (they crossed the call)"
#: the earliest time an event may be given at: after the last one the engine judged, or, per
#: event, after the last one judged that the event could depend on (Referee.not_before)
NotBefore = float | Callable[[TableEvent], float]


@dataclass(frozen=True)
class ArbiterSettings:
    history_frames: int = 60  # grey views kept for following cards (2 s at 30 fps)
    small_history_frames: int = 45  # small colour views kept for following hands (1.5 s)
    #: a contact estimate replaces the observer's time only with at least this quality ...
    min_quality: float = 0.1
    #: ... and within this of the observer's time (a wrong track lands far off)
    max_shift_s: float = 0.25
    #: ... and at least this long after the card left its slot (where its track first moves):
    #: no carry in the evaluation clips' truth was shorter than 0.21 s (552 plays), and the
    #: track's first move may come up to ~0.1 s late (race-eval seed 6113 with the model: A's
    #: 10H put 0.05 s after it left, 0.26 s early, from 8 views of a track that lost it)
    min_carry_s: float = 0.12
    faces_per_slot: int = 3  # faces kept per stock slot (the latest one cut before the card left is used)
    #: ... or, when the latest gives no usable contact, the one cut before it of the same card,
    #: at most this much earlier: the slot may have settled for a moment as the hand lifted the
    #: card, read as that card still (game 5590 with the model: A's 4H cut 0.17 s before, mid-lift;
    #: its track found nothing, and the layering read on it put A's card underneath: a touch race
    #: judged the wrong way round, a false and a missed F_LOST_TOUCH)
    face_retry_s: float = 0.5
    #: the slapping hands' layering model (:mod:`referee.vision.layering_reader`; default the
    #: shipped models/hand-layering.onnx); None: the layering by the hands' colours
    layering_model: str | None = "default"
    slap_before_frames: int = 15  # hand views from this long before the first slap ...
    slap_after_frames: int = 7  # ... to this long after the last (both hands lie still)
    #: ... and a pair waits this much longer after a slap the observer was unsure of (a hand on
    #: the pile since the round ended, given when the other player slapped, in that frame): it
    #: may come down later, and when it is not seen to come to rest in the views to
    #: ``slap_after_frames``, it is looked for in the views to the present (slap-eval seed 6777:
    #: A's hand, over pile 1 since A's last play, came down 0.13 s after B's, its arm at rest 2
    #: views before the views ended, and the slap was dropped)
    unsure_slap_after_frames: int = 8
    #: where the background was taken (this many frames before the window) until stop 31; it
    #: now only places the window, and the background is made from all the views kept before
    #: the first slap, free of hands (``_hand_views``)
    slap_background_frames: int = 5
    slap_wait_s: float = 1.0  # a lone slap waits this long for the other player's before it is given
    #: two slaps seen on different piles, the hands' split unclear: one whose pile's core is less
    #: covered than ``unslapped_cover`` was on the other pile when that one is ``slapped_cover`` covered
    #: (0.8 until stop 36)
    unslapped_cover: float = 0.75
    #: (0.9 until stop 31: slap-eval seed 7002's slapped pile 2 was 88 % covered, pile 1 32 %,
    #: where the hand-free background kept specks of a hand that hovered there still; 0.85
    #: until stop 36: seed 6196's, 84 %, pile 1 7 %; piles only reached over, 62-63 %)
    slapped_cover: float = 0.75
    #: a followed card lies still on a busy spit pile (a carried landing) when found in this
    #: many views in a row, each within ``landing_still_mm`` of the last, ...
    landing_views: int = 3
    landing_still_mm: float = 0.7
    #: ... matching its face at least this well (median of those views), at least
    #: ``landing_from_mm`` from where it lay in its slot
    landing_score: float = 0.5
    landing_from_mm: float = 40.0
    #: a followed card lying still this many views in a row (0.5 s; each within
    #: ``stray_still_mm`` of the last), matching its face at least ``landing_score`` (median),
    #: ``landing_from_mm`` from its slot and its centre at least ``stray_from_zone_mm`` outside
    #: every zone, was put down outside the zones (a sixth pile) while a hand may lie over it
    #: still: the tracker's strays wait for the hand to go (game 5007 at 1280x720: B's AH, put
    #: 52 mm left of B's slot 5 and taken back 0.8 s later, the hand never leaving it, was missed)
    stray_views: int = 15
    stray_from_zone_mm: float = 10.0
    # (and its centre at least half the card's short side inside the view's edge, so that most
    # of it is seen: ``Arbiter._half_in_view``; game 5964 with the model: the follow of B's 3C,
    # which never left its slot 3, ran off with B's arm and "lay still" 41 mm beyond the mat's
    # edge, outside the view, matched on the view's replicated border: a false F_SIXTH_PILE and
    # F_BAD_MOVE)
    #: ... a hand over it, its found centre wanders more than a landing's (game 5068: B's 4S at
    #: rest 24 views beside B's slot 1 under the hand, its centre within 1.6 mm, never 15 views
    #: within 0.7 mm: the F_SIXTH_PILE lost)
    stray_still_mm: float = 2.0
    #: ... and showing at least this share of its face (:func:`~referee.vision.arbitration.face_shown`)
    #: in one of those views (every third): a follow that ran off with a hand may lock on a
    #: place that matches the face's grey picture somewhat, still (game 5089 with the model:
    #: the follow of A's 9H ran off with A's hand and locked at 0.69-0.71 half on the back in
    #: A's slot 2 and half on the mat, 0-14 % of its face shown: a false F_SIXTH_PILE); the
    #: cards put outside the zones in the evaluation games show 56-87 % at best, under the hand
    #: too, but for game 5493's B's 2C: 33 %, at the mat's corner half under the hand, 0.6 s
    stray_face_shown: float = 0.3
    #: a play's estimate earlier than the busy spell whose settle gave it counts when its track
    #: found the card on the pile in this share of the views between, and at least this many
    on_pile_share: float = 0.8
    on_pile_views: int = 4
    #: a track kept past the ring serves a play (move) that ends within this of its last find
    kept_track_end_mm: float = 40.0
    #: another card found moving this far since the view before is in a hand, not under the
    #: landing card
    landing_carried_mm: float = 10.0
    #: another card found still (within ``jump_still_mm`` of the view before) on the landing
    #: card's pile, then at least ``jump_mm`` away in the next view, lies there still: a card
    #: a hand takes starts moving slowly, the follow ran off with a hand (game 5714 with the
    #: model: A's 6D, found still on pile 2 under A's 4H from the same hand, then 27 and 51 mm
    #: further in the next two views, off the pile with the hand, was taken for a card
    #: elsewhere; the 6D's play, its take-back and two faults were lost, with a false
    #: F_TAKE_BACK of the 4H)
    jump_still_mm: float = 2.0
    jump_mm: float = 20.0
    #: another card last found matching its face at least this well on the landing card's
    #: pile, and worse since (or lost), lies under it: covered by the landing card, it matches
    #: worse, and its follow may run off with the hand that covered it (game 5015 at 1280x720:
    #: A's 6C, found at 0.89-0.92 as it was carried onto pile 1, then at 0.55-0.70 under B's
    #: 6D and away with B's hand, was taken for a card elsewhere)
    placed_score: float = 0.8
    #: ... and one not found so on it lies under it only when its last find at least this good
    #: lies on the pile, or it was found all the way from its slot (``slot_near_mm``): a follow
    #: that lost its card under a hand may find again another card the hand carries, matching
    #: it poorly (race-eval seed 6121 with the model: A's KC, never taken from its slot, lost
    #: under A's hand at 0.67, then found at 0.57-0.42 on the 10C that hand carried onto pile 1,
    #: was put under B's 8D, played with 10C: two false faults). A card carried may match as
    #: poorly all the way (race-eval seed 6084 with the model: B's 8S at 0.45-0.54).
    beneath_score: float = 0.5
    slot_near_mm: float = 10.0
    #: another card lost on its way, last found outside the landing card's pile further from it
    #: than a hand carries a card (at this speed) by the time the landing card lay still there,
    #: is not under it: it touched after (game 5623 with the model: B's 4D, lost 150 mm from
    #: pile 2 a frame before A's AD lay still there, B's arm passing over pile 2 on its way to
    #: pile 1, was put under the AD: a false F_ILLEGAL_RANK). Carries in the evaluation clips
    #: move the card at 1.2 m/s at most
    carry_max_mm_per_s: float = 2000.0
    #: a followed card has left its slot once found this far from where it lay there (which of
    #: two cards one hand took was taken first: ``Landing.taken_before``)
    left_slot_mm: float = 3.0
    min_gap_s: float = 0.001  # ordered events at least this far apart (a refined time: after the last judged)
    #: in a race, the recogniser's word on which card lies on top is left out when the pile's
    #: reading put the other race card second at least this share as surely (game 5017 at
    #: 1280x720: 10D read at 0.854 with 10S second at 0.861; 10S lay on top, and the reading
    #: outweighed the trajectories, which had A's 10D first)
    race_read_doubt_share: float = 0.5


@dataclass(frozen=True)
class Arbitrated:
    """An event ready for the rules engine, with what the verdict should add (``note``):
    always, or (``only_fault``) only when the verdict is a fault. ``call_note``: the note also
    goes into a slap-winner call's message."""

    event: TableEvent
    note: str | None = None
    only_fault: bool = False
    call_note: bool = False


@dataclass(eq=False)
class _Face:
    frame: int
    time: float
    label: str  # what the observer believed lay on the slot then
    template: ar.CardTemplate
    #: the card followed from this face's view on, one view per frame (None once its first
    #: view is no longer kept)
    follow: ar.CardFollow | None = None
    landed: bool = False  # given as a carried landing (once)
    strayed: bool = False  # given as a card at rest outside the zones (once)
    #: the follow's track, finished when its first view was no longer kept, for a card that
    #: had left its slot (a play explained only later still has its trajectory)
    kept_track: ar.CardTrack | None = None
    #: the follow lost its card, and the card was seen in its slot since, its slot settled (an
    #: arm only covered it): it is not looked for again (:meth:`Arbiter._look_again`)
    home: bool = False


@dataclass(frozen=True)
class Landing:
    """A card followed from a stock slot that lies still on a busy spit pile: it has landed
    there, while the hand that put it down still moves over the pile (``frame``/``time``: the
    first view where it lay still; ``score``: how well it matched its face there)."""

    zone: str
    label: str
    slot: str  # the stock slot it was followed from
    frame: int
    time: float
    score: float
    #: the other cards followed from their slots that were found outside this pile in the last
    #: view or moving over it (in a hand), or last found on the other pile
    elsewhere: frozenset[str] = frozenset()
    #: the other cards followed from their slots that were last found on this pile, not moving
    #: (one that touched it first, now under this one)
    beneath: frozenset[str] = frozenset()
    #: of ``beneath``, the cards whose follows left their slots before this card's did
    #: (``ArbiterSettings.left_slot_mm``): one hand that took two holds the first beneath
    taken_before: frozenset[str] = frozenset()


@dataclass
class _HeldSlap:
    slap: Slap
    frame: int  # when the observer gave it
    time: float


@dataclass
class _Estimate:
    contact: ar.ContactEstimate | None
    error: str = ""
    track: ar.CardTrack | None = None
    face: _Face | None = None
    views: int = 0  # views followed (from the face's to the last)
    left: float | None = None  # when the card left where it lay (the track's first move)


@dataclass
class ArbiterCosts:
    """Seconds spent per call, by kind ("play", "move", "race", "slap")."""

    calls: dict[str, list[float]] = field(default_factory=dict)

    def add(self, kind: str, seconds: float) -> None:
        self.calls.setdefault(kind, []).append(seconds)


PILE_CHANGE_VIEWS = 8  # the colour views kept of frames where a pile changed (2.3 MB each at 1280x720)


class ViewRing:
    """The last ``size`` views (all of one shape), copied into one block allocated once (so
    that keeping them costs a copy per frame, not new memory), with their frames and times."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: np.ndarray | None = None
        self._frames = np.zeros(size, np.int64)
        self._times = np.zeros(size, np.float64)
        self._head = 0  # where the next view goes
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        return 0 if self._data is None else int(self._data.nbytes)

    def append(self, frame: int, t: float, view: np.ndarray) -> None:
        if self._data is None or self._data.shape[1:] != view.shape or self._data.dtype != view.dtype:
            self._data = np.empty((self.size, *view.shape), view.dtype)
            self._n = self._head = 0
        np.copyto(self._data[self._head], view)
        self._frames[self._head], self._times[self._head] = frame, t
        self._head = (self._head + 1) % self.size
        self._n = min(self._n + 1, self.size)

    @property
    def oldest_frame(self) -> int | None:
        return None if self._n == 0 else int(self._frames[(self._head - self._n) % self.size])

    def latest(self) -> tuple[int, float, np.ndarray] | None:
        """The last view appended (frame, time, view), the ring's own memory."""
        if self._data is None or self._n == 0:
            return None
        i = (self._head - 1) % self.size
        return int(self._frames[i]), float(self._times[i]), self._data[i]

    def rows(self, first_frame: int | None = None) -> list[tuple[int, float, np.ndarray]]:
        """(frame, time, view) from ``first_frame`` (default: the oldest kept) to the last, in
        order. The views are the ring's own memory: valid until the next ``append``."""
        if self._data is None:
            return []
        order = [(self._head - self._n + i) % self.size for i in range(self._n)]
        return [(int(self._frames[i]), float(self._times[i]), self._data[i]) for i in order
                if first_frame is None or self._frames[i] >= first_frame]


def first_seen(slap: Slap, seen_t: float | None = None) -> float:
    """When ``slap`` was first seen, as the arbiter's hand window counts it: its time as the
    observer gave it (``seen_t``, default ``slap.t``: ``SLAP_LEAD_S`` after the hand came), or
    from when its hand first came over a pile, when one blob of both arms moved it to the other
    pile since (``merged_came_t``, Observer._note_merged_came)."""
    t = slap.t if seen_t is None else seen_t
    came = (slap.evidence or {}).get("merged_came_t")
    return t if came is None else min(t, float(came) + SLAP_LEAD_S)


def _hand_track_of(tracks: dict[Player, ar.HandTrack] | str, player: Player) -> ar.HandTrack | None:
    """``player``'s hand track round a pile (None: not followed)."""
    return None if isinstance(tracks, str) else tracks.get(player)


def layering_reader(settings: ArbiterSettings) -> LayeringReader | None:
    """The slapping hands' layering model the settings name (None: by the hands' colours)."""
    model = settings.layering_model
    return None if model is None else LayeringReader.shared(None if model == "default" else model)


class Arbiter:
    """Keeps the recent views and the stock slots' faces; refines the observer's events."""

    def __init__(self, tracker: ZoneTracker, settings: ArbiterSettings | None = None) -> None:
        self.s = settings or ArbiterSettings()
        self._layering = layering_reader(self.s)
        self.costs = ArbiterCosts()
        self._held: list[_HeldSlap] = []
        self._behind_slaps: list[Arbitrated] = []  # events that came while a pair of slaps was held
        self._next_stray = 0  # the strays found by following cards: -1, -2 ...
        self.reset(tracker)

    def reset(self, tracker: ZoneTracker) -> None:
        """Start again with ``tracker`` (a new calibration: the old views no longer line up;
        held slaps stay held)."""
        self.layout = tracker.cal.layout
        self._zone_ids = {z.id for z in self.layout.zones}
        self.geo = ar.ViewGeometry.of(tracker)
        self.geo_small: ar.ViewGeometry | None = None
        self._grey = ViewRing(self.s.history_frames)
        self._small = ViewRing(self.s.small_history_frames)
        self._hand_masks = ViewRing(self.s.small_history_frames)  # the tracker's hand cells, view by view
        self._faces: dict[str, deque[_Face]] = {}
        #: faces cut under a hand: a slot settled with a hand over it, showing a card the
        #: observer read there, as the hand moved again (used when no clear face shows the card)
        self._covered_faces: dict[str, deque[_Face]] = {}
        self._settled_under_hand: dict[str, bool] = {}  # each slot in the last frame
        #: when each card was last taken back from a pile (to its slot; the last few times): a
        #: face of it cut before shows it before its first play, and its follow that play's carry
        self._taken_back: dict[str, deque[float]] = {}
        self._ok: dict[str, bool] = {}
        self._prev: tuple[int, float, np.ndarray] | None = None  # the previous frame's colour view
        self._last_view: np.ndarray | None = None
        #: the colour views of the last frames where a pile changed, by frame (kept, not copied:
        #: the tracker makes a new view every frame), and the frame of each pile's last change
        self._pile_change_views: dict[int, np.ndarray] = {}
        self._pile_changed: dict[str, int] = {}
        self._stock = [z.id for z in self.layout.zones if z.kind is ZoneKind.STOCK]
        self._zone_outlines = [z.polygon().astype(np.float32) for z in self.layout.zones]
        self._pile_outlines = [(z.id, z.polygon().astype(np.float32)) for z in self.layout.zones
                               if z.kind is ZoneKind.PILE]
        self._pile_ids = {zid for zid, _ in self._pile_outlines}
        self._outside_zones: np.ndarray | None = None  # views' pixels outside every zone (255)

    # ------------------------------------------------------------------ per frame
    def observe(self, tracker: ZoneTracker, tracked: TrackedFrame, tops: Mapping[str, str]) -> None:
        """Keep this frame's views; cut a slot's face when a hand or a change comes over it
        (from the previous frame, the last where it lay settled and uncovered). ``tops``: what
        the observer believes lies on each zone (before this frame's changes)."""
        view, grey, small = tracker.last_view, tracker.last_view_grey, tracker.last_view_small
        if view is None or grey is None or small is None:
            return
        if self.geo_small is None:
            g = self.geo
            scale = small.shape[1] / view.shape[1]
            self.geo_small = ar.ViewGeometry(g.px_per_mm * scale, g.margin_mm, g.mat_mm)
        frame, t = tracked.frame, tracked.time
        for zid in self._stock:
            obs = tracked.zones.get(zid)
            ok = obs is not None and obs.settled and not obs.covered and obs.occupied
            under_hand = obs is not None and obs.settled and obs.covered and obs.occupied
            if self._ok.get(zid) and not ok:
                face = self._previous_face(zid, tops)
                if face is not None:
                    kept = self._grey.latest()
                    if kept is not None and kept[0] == face.frame:
                        face.follow = ar.CardFollow(kept[2], kept[1], face.template, self.geo)
                    self._faces.setdefault(zid, deque(maxlen=self.s.faces_per_slot)).append(face)
            elif self._settled_under_hand.get(zid) and not ok and not under_hand:
                face = self._previous_face(zid, tops)
                if face is not None:
                    self._covered_faces.setdefault(zid, deque(maxlen=self.s.faces_per_slot)).append(face)
            self._ok[zid] = ok
            self._settled_under_hand[zid] = under_hand
        self._grey.append(frame, t, grey)
        self._small.append(frame, t, small)
        cells = tracker.hand_cells()
        self._hand_masks.append(frame, t, cells if cells is not None else np.zeros((1, 1), np.uint8))
        self._prev = (frame, t, view)
        self._last_view = view
        piles = [c.zone for c in tracked.changes if c.zone in self._pile_ids]
        if piles:
            for zone in piles:
                self._pile_changed[zone] = frame
            self._pile_change_views[frame] = view
            while len(self._pile_change_views) > PILE_CHANGE_VIEWS:
                del self._pile_change_views[next(iter(self._pile_change_views))]
        self._follow_cards(tracked, tops)

    def _previous_face(self, zone_id: str, tops: Mapping[str, str]) -> _Face | None:
        """The face of the card the observer believes lies on stock slot ``zone_id``, cut from
        the previous frame's view; None when no card is believed there."""
        label = tops.get(zone_id, "")
        if label in ("", "empty", "back", "card") or self._prev is None:
            return None
        k, tk, before = self._prev
        return _Face(k, tk, label, ar.slot_template(before, self.layout.zone(zone_id), self.geo, label=label))

    def _follow_cards(self, tracked: TrackedFrame, tops: Mapping[str, str]) -> None:
        """Each kept face's card looked for in the view just kept (so that a play's track is
        ready when its pile settles); a face whose first view is no longer kept stops. A card
        lost (:meth:`_look_again`) is looked for again on the mat outside the zones."""
        latest, oldest = self._grey.latest(), self._grey.oldest_frame
        if latest is None or oldest is None:
            return
        frame, t, grey = latest
        kept_hands = self._hand_masks.latest()
        hands = None
        if kept_hands is not None and kept_hands[0] == frame \
                and any(face.follow is not None for faces in self._faces.values() for face in faces):
            hands = kept_hands[2].copy()  # (a copy, kept by the follows: the ring's memory is used again)
        for slot, faces in self._faces.items():
            obs = tracked.zones.get(slot)
            settled = obs is not None and obs.settled
            for face in faces:
                if face.follow is None:
                    continue
                if face.frame < oldest:
                    face.kept_track = self._track_to_keep(face.follow)
                    face.follow = None
                    continue
                try:
                    face.follow.add(grey, t, hands)
                except Exception:  # a view out of step, or a bug: the card is followed afresh when needed
                    log.warning("stopped following %s's face from frame %d at frame %d", face.label,
                                face.frame, frame, exc_info=True)
                    face.follow = None
                    continue
                if settled and not face.follow.following \
                        and not any(label == face.label for zid, label in tops.items() if zid != slot):
                    self._look_again(face)

    def _look_again(self, face: _Face) -> None:
        """A lost card whose slot has settled: if it lies there, it stayed (an arm covered it;
        never looked for again); if not, it is looked for on the mat outside the zones in each
        view until it is found (then followed from there), seen in a zone (``tops``) or back
        in its slot. The slot may be settled under a still hand or arm, or a hand the tracker
        did not see (a blurred one, game 5074's 5H): the card is looked for in its slot first
        in each view. Game 5074: B's 9H, carried fast across the mat, was lost in the blur and
        put down beside the mat's edge, B's hand by it, B's arm over the slot: neither the
        follow nor the tracker's strays saw it (an F_SIXTH_PILE missed)."""
        follow = face.follow
        assert follow is not None
        if face.home:
            return
        if follow.at_start():
            face.home = True
            return
        t0 = time.perf_counter()
        follow.refind(self._outside_zones_mask(follow.view_shape[:2]))
        self.costs.add("refind", time.perf_counter() - t0)

    def _outside_zones_mask(self, shape: tuple[int, ...]) -> np.ndarray:
        """The views' pixels outside every zone (255; 0 inside one), made once per view shape."""
        if self._outside_zones is None or self._outside_zones.shape != shape:
            mask = np.full(shape, 255, np.uint8)
            for outline in self._zone_outlines:
                px = np.array([self.geo.to_px(float(x), float(y)) for x, y in outline])
                cv2.fillPoly(mask, [np.round(px).astype(np.int32)], 0)
            self._outside_zones = mask
        return self._outside_zones

    def _track_to_keep(self, follow: ar.CardFollow) -> ar.CardTrack | None:
        """A follow whose first view is no longer kept, finished (toward the spit pile where its
        card was last found) when the card left its slot; None for a card that stayed there (an
        arm passed over it), which is the most of them."""
        last = follow.last_found_centre
        x0, y0 = follow.first_centre
        if last is None or math.hypot(last[0] - x0, last[1] - y0) < self.s.landing_from_mm:
            return None
        pile = self._pile_at(*last)
        toward = None if pile is None else tuple(map(float, self.layout.zone(pile).center))
        try:
            return follow.track(toward)
        except Exception:  # as in _follow_cards: without it the play is timed by its zone
            log.warning("could not finish a follow whose first view is gone", exc_info=True)
            return None

    @property
    def memory_bytes(self) -> int:
        """What the kept views take (the faces are a few kB each)."""
        return self._grey.nbytes + self._small.nbytes + self._hand_masks.nbytes

    def landings(self, tracked: TrackedFrame, tops: Mapping[str, str]) -> list[Landing]:
        """Cards followed from their slots that now lie still on a spit pile that is still busy
        (each face's card once; one per pile), which ``tops`` does not already show there."""
        out: dict[str, tuple[Landing, _Face]] = {}  # pile -> its landing and the face that landed
        for slot, faces in self._faces.items():
            for face in self._current(faces):
                rest = None if face.landed else self._at_rest_away(face, self.s.landing_views,
                                                                   self.s.landing_still_mm)
                if rest is None:
                    continue
                x, y, i, t, score = rest
                pile = self._pile_at(x, y)
                obs = tracked.zones.get(pile) if pile is not None else None
                if pile is None or obs is None or obs.settled or tops.get(pile) == face.label or pile in out:
                    continue
                if score < self.s.landing_score:
                    continue
                face.landed = True
                out[pile] = (Landing(pile, face.label, slot, face.frame + i, t, score), face)
        return [self._placed(landing, face) for landing, face in out.values()]

    def strays(self, tracked: TrackedFrame) -> list[StrayChange]:
        """Cards followed from their slots that now lie still outside every zone (each face's
        card once; ``ArbiterSettings.stray_views``), as the tracker's strays, numbered -1, -2 ..."""
        out: list[StrayChange] = []
        s = self.s
        w, h = self.layout.card_mm
        for slot, faces in self._faces.items():
            for face in faces:
                rest = None if face.strayed else self._at_rest_away(face, s.stray_views, s.stray_still_mm)
                if rest is None:
                    continue
                x, y, i, t, score = rest
                if score < s.landing_score or not self._half_in_view(x, y) or any(
                        cv2.pointPolygonTest(outline, (x, y), True) > -s.stray_from_zone_mm
                        for outline in self._zone_outlines):
                    continue
                follow = face.follow
                assert follow is not None
                if max(follow.face_shown(j) for j in range(len(follow) - 1, i - 1, -3)) < s.stray_face_shown:
                    continue
                face.strayed = True
                self._next_stray -= 1
                out.append(StrayChange(self._next_stray, True, tracked.frame, tracked.time,
                                       (x - w / 2, y - h / 2, x + w / 2, y + h / 2), w * h, t,
                                       card=face.label, player=self.layout.zone(slot).owner))
        return out

    def _half_in_view(self, x: float, y: float) -> bool:
        """Whether (``x``, ``y``), mat mm, lies at least half a card's short side inside the
        view's edge (the mat and its margin): a card centred there is mostly seen."""
        w, h = self.geo.mat_mm
        inset = min(self.layout.card_mm) / 2 - self.geo.margin_mm
        return inset <= x <= w - inset and inset <= y <= h - inset

    @staticmethod
    def _current(faces: Iterable[_Face]) -> list[_Face]:
        """Of one slot's faces, those of a card not cut from the slot again since: its slot
        showed it after, so an older follow that took it elsewhere ran off with an arm (game
        5209: B's AS, followed from slot 2 onto pile 1 with B's arm and found there at 0.8 on
        the cards that came, was seen in its slot again, and was taken for a card beneath the
        pile's next top: a false F_ILLEGAL_RANK and F_TWO_CARDS)."""
        faces = list(faces)
        return [face for i, face in enumerate(faces)
                if not any(one_card_read(face.label, later.label) for later in faces[i + 1:])]

    def _at_rest_away(self, face: _Face, views: int, still_mm: float
                      ) -> tuple[float, float, int, float, float] | None:
        """Where a face's card has lain still over the last ``views`` views (each within
        ``still_mm`` of the last), at least ``landing_from_mm`` from its slot: (x, y, the first
        of those views and its time, the median match over them); None otherwise."""
        f = face.follow
        if f is None:
            return None
        rest = f.resting(views, still_mm)
        if rest is None:
            return None
        x, y, i = rest
        x0, y0 = f.first_centre
        if math.hypot(x - x0, y - y0) < self.s.landing_from_mm:
            return None
        return x, y, i, f.time(i), float(np.median([f.score(j) for j in range(i, len(f))]))

    def _placed(self, landing: Landing, landed: _Face) -> Landing:
        """``landing`` with where the follows place the other cards: ``elsewhere`` (found in the
        last view outside its pile, or moving as in a hand (``landing_carried_mm``), over the
        pile too, or last found on the other pile) and ``beneath`` (the others last found on
        its pile: one that touched first and lies underneath). A card still on the pile may be
        found under the landing card, partly covered or alike (game 5017: 10D under 10S), but a
        card in a hand over it is not under it (game 5009: the second card of one hand, above
        the pile, was taken for one underneath). A card last found well on the pile and poorly
        since, or lost, is under it (``placed_score``); one whose last fair find
        (``beneath_score``) was off the pile, and which was lost on its way from its slot, is
        placed nowhere (race-eval seed 6121), as is one seen in its slot since (``_current``).
        ``taken_before``: those beneath that left their slots before ``landed``'s card left its
        own."""
        beneath, elsewhere = self._located(landing.zone, landing.label, landing.time)
        return replace(landing, beneath=frozenset(beneath), elsewhere=frozenset(elsewhere),
                       taken_before=frozenset(self._taken_before(landed, beneath)))

    def located_on(self, pile: str) -> tuple[frozenset[str], frozenset[str]]:
        """(beneath, elsewhere): the cards the follows place on spit pile ``pile`` now, under
        whatever lies on top, and those they place outside it (found outside it, moving as in
        a hand, or last found on the other pile), as :meth:`_placed` does for a landing. Both
        empty for a zone that is no spit pile."""
        if all(zone_id != pile for zone_id, _ in self._pile_outlines):
            return frozenset(), frozenset()
        beneath, elsewhere = self._located(pile)
        return frozenset(beneath), frozenset(elsewhere)

    def _located(self, pile: str, top: str | None = None, landed_t: float | None = None
                 ) -> tuple[set[str], set[str]]:
        """(beneath, elsewhere) of :meth:`_placed`: the followed cards, other than ``top``,
        that lie under the pile's top, and those outside the pile (also, ``landed_t`` being when
        the top lay still there, one lost too far from the pile to have touched before it:
        ``carry_max_mm_per_s``)."""
        beneath, elsewhere = set(), set()
        outline = next(o for zone_id, o in self._pile_outlines if zone_id == pile)
        for faces in self._faces.values():
            for face in self._current(faces):
                f = face.follow
                if f is None or face.label == top:
                    continue
                now, last, step = f.last_centre, f.last_found_centre, f.last_step_mm
                covered = False
                rest = f.jumped_from_rest(self.s.jump_still_mm, self.s.jump_mm)
                if rest is not None and self._pile_at(*rest) == pile:
                    now, last, step = None, rest, None  # lost where it lay still on the pile
                    covered = True
                elif not f.score(len(f) - 1) >= self.s.placed_score:  # found poorly now, or not at all
                    well = f.last_found_centre_scoring(self.s.placed_score)
                    if well is not None and self._pile_at(*well) == pile:
                        now, last, step = None, well, None  # covered by the landing card since
                        covered = True
                    elif not f.score(len(f) - 1) >= self.s.beneath_score:
                        # found worse than fairly now: where it was last found fairly, when that
                        # was on the pile and it was found all the way from its slot (race-eval
                        # seed 6207: B's 8C, found at 0.53 on pile 1, then covered by A's 10H,
                        # its follow ran off with B's hand at 0.44-0.46 and placed it elsewhere;
                        # the 10H was taken for the only play). Not a card lost in its slot and
                        # found again (seed 6086: A's KH, never played, found at 0.50-0.52 on the
                        # 10H A's hand carried onto pile 1, would lie beneath it)
                        fair = f.last_found_centre_scoring(self.s.beneath_score)
                        if fair is not None and self._pile_at(*fair) == pile \
                                and f.found_since_its_slot(self.s.slot_near_mm):
                            now, last, step = fair, fair, None
                last_pile = self._pile_at(*last) if last is not None else None
                outside = now is not None and self._pile_at(*now) != pile
                if now is None and not covered and last is not None and landed_t is not None \
                        and last_pile is None and (found_t := f.last_found_time) is not None:
                    away_mm = -cv2.pointPolygonTest(outline, last, True)
                    outside = away_mm > self.s.carry_max_mm_per_s * max(0.0, landed_t - found_t)
                carried = step is not None and step >= self.s.landing_carried_mm
                if outside or carried or last_pile not in (None, pile):
                    elsewhere.add(face.label)
                elif last_pile == pile:
                    fair = None if covered else f.last_found_centre_scoring(self.s.beneath_score)
                    if covered or (fair is not None and self._pile_at(*fair) == pile) \
                            or f.found_since_its_slot(self.s.slot_near_mm):
                        beneath.add(face.label)
        return beneath - elsewhere, elsewhere

    def _taken_before(self, landed: _Face, cards: set[str]) -> set[str]:
        """Of ``cards``, those whose follows left their slots before ``landed``'s card left its own."""
        assert landed.follow is not None
        left = landed.follow.left_at(self.s.left_slot_mm)
        if left is None:
            return set()
        out = set()
        for faces in self._faces.values():
            for face in faces:
                if face.follow is not None and face.label in cards:
                    other = face.follow.left_at(self.s.left_slot_mm)
                    if other is not None and other < left:
                        out.add(face.label)
        return out

    def _pile_at(self, x: float, y: float) -> str | None:
        """The spit pile whose zone holds the mat point (x, y) mm, if any."""
        for zone_id, outline in self._pile_outlines:
            if cv2.pointPolygonTest(outline, (x, y), False) >= 0:
                return zone_id
        return None

    # ------------------------------------------------------------------ the observer's events
    def refine(self, events: Sequence[TableEvent], tracked: TrackedFrame, not_before: NotBefore = -math.inf
               ) -> list[Arbitrated]:
        """This frame's events made ready for the engine, in time order: plays and moves with
        touch times from the cards' carries, races ordered by the arbitration, slaps held until
        they can be ordered (and those held before, when their time has come)."""
        out: list[Arbitrated] = []
        for ev in events:
            if isinstance(ev, TakeBack):
                self._taken_back.setdefault(str(ev.card), deque(maxlen=4)).append(ev.t)
        plays = [e for e in events if isinstance(e, Play)]
        in_race: set[int] = set()
        for under in plays:
            if (under.evidence or {}).get("underneath") is not True:
                continue
            top = next((p for p in plays if p is not under and p.pile == under.pile and p.frame == under.frame
                        and p.player is not under.player and id(p) not in in_race
                        and (p.evidence or {}).get("underneath") is not True), None)
            if top is None or id(under) in in_race:
                continue
            in_race |= {id(under), id(top)}
            try:
                out += self._race(under, top, tracked)
            except Exception as exc:  # a bug here must not stop the referee: the observer's order stays
                out += [Arbitrated(_failed(under, exc)), Arbitrated(_failed(top, exc))]
        slaps: list[Slap] = []
        for ev in events:
            if id(ev) in in_race:
                continue
            if isinstance(ev, Play | Move):
                try:
                    out.append(Arbitrated(self._single(ev, tracked)))
                except Exception as exc:  # as above: the observer's time stays
                    out.append(Arbitrated(_failed(ev, exc)))
            elif isinstance(ev, Slap) and (ev.evidence or {}).get("during_play"):
                out.append(Arbitrated(ev))  # a slap before the round ended: a fault, no race to order
            elif isinstance(ev, Slap):
                slaps.append(ev)
            else:
                out.append(Arbitrated(ev))
        out = self._under_before_top(out)
        self._held += [_HeldSlap(s, tracked.frame, tracked.time) for s in slaps]
        if self._pair_due(tracked) is False:
            # both players' slaps wait for their hands to lie still: what comes meanwhile waits
            # with them (released now, they would cut the slaps' views short); all go out
            # together, in time order
            self._behind_slaps += out
            return []
        out = self._behind_slaps + out
        self._behind_slaps = []
        out += self._release_slaps(tracked, force=bool(out))
        return self._in_order(out, not_before)

    def _under_before_top(self, items: list[Arbitrated]) -> list[Arbitrated]:
        """``items`` with each card found underneath a card its own player put on the pile in
        the same change timed before that card (the observer gives them in the order they lie,
        the lowest first): its time is only a bound, and the top's may come from its carry,
        earlier than the observer's settle (game 5714 with the model: A's 6D and 4H in one
        hand, the 6D underneath, timed at the 4H's settle, after the 4H's touch from its carry;
        the 4H was judged first, legal, the 6D's F_ILLEGAL_RANK missed for a false F_TWO_CARDS,
        and the 4H's take-back a false F_TAKE_BACK)."""
        out = list(items)
        above: dict[tuple[int, int, Player], float] = {}  # the next card up: when it touched
        for i in range(len(out) - 1, -1, -1):
            ev = out[i].event
            if not isinstance(ev, Play):
                continue
            key = (ev.frame, ev.pile, ev.player)
            later = above.get(key)
            if (ev.evidence or {}).get("underneath") is True and later is not None \
                    and ev.t > later - self.s.min_gap_s:
                evidence = {**(ev.evidence or {}), "touch_before_top_from": round(ev.t, 4)}
                out[i] = replace(out[i], event=replace(ev, t=later - self.s.min_gap_s, evidence=evidence))
            above[key] = out[i].event.t
        return out

    def flush(self, tracked: TrackedFrame | None = None, not_before: NotBefore = -math.inf
              ) -> list[Arbitrated]:
        """Whatever is still held (the end of the video)."""
        if not self._held:
            out, self._behind_slaps = self._behind_slaps, []
            return self._in_order(out, not_before)
        if tracked is None:
            rows = self._grey.rows()
            k, t = (rows[-1][0], rows[-1][1]) if rows else (self._held[-1].frame, self._held[-1].time)
            tracked = TrackedFrame(k, t, {}, (), ())
        out, self._behind_slaps = self._behind_slaps, []
        return self._in_order(out + self._release_slaps(tracked, force=True), not_before)

    def _in_order(self, items: list[Arbitrated], not_before: NotBefore) -> list[Arbitrated]:
        """Sorted by time (stable: an ordered pair keeps its order); a time from the video is
        not put before what the engine already judged that it could depend on (``not_before``:
        one time, or each event's own), nor before the event given before it. A card found
        beneath judged events is judged in its place (:mod:`referee.rules.hindsight`): it keeps
        its time before them (race-eval seed 6735 with the model: A's 10H, seen under B's 8H only
        when B took the 8H back, timed 23 ms before it and put 1 ms after it; judged on the 8H,
        a false F_LOST_TOUCH, the 8H's missed, and its take-back a false F_TAKE_BACK)."""
        floor_of = not_before if callable(not_before) else (lambda _ev: not_before)
        fixed: list[Arbitrated] = []
        given = -math.inf
        for item in sorted(items, key=lambda i: i.event.t):
            ev = item.event
            floor = given if judged_in_place(ev) else max(given, floor_of(ev))
            ours = (ev.evidence or {}).get("touch_from") in ("trajectory", "hand stop", SLAPS_SPREAD)
            if ours and ev.t < floor + self.s.min_gap_s:
                evidence = {**(ev.evidence or {}), "touch_clamped_from": round(ev.t, 4)}
                item = replace(item, event=replace(ev, t=floor + self.s.min_gap_s, evidence=evidence))
            given = max(given, item.event.t)
            fixed.append(item)
        return fixed

    # ------------------------------------------------------------------ one card
    def _window(self, first_frame: int) -> tuple[list[np.ndarray], np.ndarray] | None:
        """The kept grey views from ``first_frame`` to the last, or None when it is no longer kept."""
        rows = self._grey.rows(first_frame)
        if not rows or rows[0][0] != first_frame:
            return None
        return [v for _, _, v in rows], np.array([t for _, t, _ in rows])

    def _face(self, player: Player, slot: int, card: str, before: float) -> _Face | str:
        """The latest face of ``card`` cut from ``player``'s ``slot`` before ``before``, and
        after the card was last taken back before then. (The face is cut when the slot's last
        settled view, before a hand came over it, showed the card as the observer read it: a
        later face shows what lay beneath. A face cut before the card was played and taken back
        followed that first play: game 5160, B's 5H played again 1.3 s after its take-back, the
        hand never clear of the slot between, was timed by its first carry, 4 s early, and
        taken for a second card of one hand: a false F_TWO_CARDS.) A face of its twin counts
        as the card's own: a card read in its slot as its twin, then as itself, or the other
        way, was one card (game 5151: A's AS, read AC when turned and AS when settled again,
        was moved as AC and timed by the AC face, whose follow had run off with the arm that
        passed over it 1.5 s before: a false F_TWO_CARDS)."""
        faces = self._faces_of(player, slot, card, before)
        return faces if isinstance(faces, str) else faces[0]

    def _faces_of(self, player: Player, slot: int, card: str, before: float) -> list[_Face] | str:
        """:meth:`_face`'s face, then the face of the same card cut before it, if there is one
        within ``face_retry_s`` (to try when the first gives no usable contact); or why there
        is none."""
        zone = f"{player}.stock{slot}"
        faces = self._faces.get(zone)
        under_hand = self._covered_faces.get(zone)
        if not faces and not under_hand:
            return f"no view of {player}'s slot {slot} before the card left"
        returned = max((t for t in self._taken_back.get(card, ()) if t < before), default=-math.inf)
        # a face cut under the hand only when none clear of it shows the card: never clear of a
        # hand since it showed (turned under the hand and played at once; game 5841, both
        # recognitions: B's 8C, turned and carried to pile 1 under the hand, timed from the
        # pile's settle 0.26 s late)
        found = (self._latest_showing(faces or (), card, before, returned)
                 or self._latest_showing(under_hand or (), card, before, returned))
        if not found and returned > -math.inf and any(
                f.time < before and one_card_read(f.label, card) for f in faces or ()):
            return f"no view of {player}'s slot {slot} showing {card} since it was taken back"
        return found or f"no view of {player}'s slot {slot} showing {card} before the card left"

    def _latest_showing(self, faces: Iterable[_Face], card: str, before: float, returned: float
                        ) -> list[_Face]:
        """Of ``faces`` (oldest first), the latest showing ``card`` cut before ``before`` and
        after ``returned``, then the one before it if cut within ``face_retry_s``."""
        found: list[_Face] = []
        for face in reversed(list(faces)):
            if face.time < before and one_card_read(face.label, card):
                if face.time < returned:
                    break
                if found and found[0].time - face.time > self.s.face_retry_s:
                    break
                found.append(face)
                if len(found) == 2:
                    break
        return found

    def _estimate(self, player: Player, slot: int, card: str, before: float, toward: tuple[float, float]
                  ) -> _Estimate:
        faces = self._faces_of(player, slot, card, before)
        if isinstance(faces, str):
            return _Estimate(None, faces)
        return self._first_good(faces, lambda face: self._estimate_from(face, toward))

    def _first_good(self, faces: Sequence[_Face], estimate: Callable[[_Face], _Estimate]) -> _Estimate:
        """The first of ``faces``' estimates with a contact of at least ``min_quality`` (the
        later faces are followed only when the earlier give none), else the first face's."""
        first: _Estimate | None = None
        for face in faces:
            est = estimate(face)
            if est.contact is not None and est.contact.quality >= self.s.min_quality:
                return est
            first = first or est
        assert first is not None, "no face to follow"
        return first

    def _estimate_from(self, face: _Face, toward: tuple[float, float]) -> _Estimate:
        """The card of ``face`` followed from its view toward ``toward``, and its contact."""
        window = self._window(face.frame)
        if window is not None:
            views, times = window
            track, n_views = self._track(face, views, times, 0, toward), len(views)
        elif face.kept_track is not None and self._ends_at(face.kept_track, toward):
            track, n_views = face.kept_track, len(face.kept_track)  # finished when its first view left
        else:
            return _Estimate(None, "the view of the slot before the card left is no longer kept", face=face)
        left = _departure(track, 0)
        try:
            return _Estimate(ar.estimate_contact(track), track=track, face=face, views=n_views, left=left)
        except ValueError as exc:
            return _Estimate(None, str(exc), track=track, face=face, views=n_views, left=left)

    def _ends_at(self, track: ar.CardTrack, toward: tuple[float, float]) -> bool:
        """Whether a kept track was last found where its play or move ends (within
        ``kept_track_end_mm`` of ``toward``): an old face whose follow ran off with an arm, or
        lost its card on the way, says nothing of a card explained much later (game 5015 at
        1280x720: a face 2.7 s old gave a play that start, and a false F_TWO_CARDS)."""
        last = track.last_found()
        if last is None:
            return False
        x, y = map(float, track.centres_mm[last])
        return math.hypot(x - toward[0], y - toward[1]) <= self.s.kept_track_end_mm

    def _track(self, face: _Face, views: list[np.ndarray], times: np.ndarray, start: int,
               toward: tuple[float, float]) -> ar.CardTrack:
        """``face``'s card through ``views`` (its own view is ``start``): its follow finished
        when it has followed it through those views, else followed now."""
        f = face.follow
        if f is not None and len(f) == len(views) - start and f.last_time == float(times[-1]):
            return f.track(toward, before=views[:start], before_times=times[:start])
        return ar.track_card(views, times, face.template, self.geo, start=start, toward=toward)

    def _usable(self, est: _Estimate, ev: TableEvent, tracked: TrackedFrame) -> bool:
        c = est.contact
        if c is None or c.t >= tracked.time:
            return False
        evidence = ev.evidence or {}
        left = est.left if est.left is not None else ev.start
        after_left = (left is None or c.t > left + self.s.min_carry_s) and c.t <= ev.t + self.s.max_shift_s
        if c.quality < self.s.min_quality:
            return self._lingered_move(c, ev, after_left)
        if left is not None and ev.t <= left + self.s.min_carry_s < c.t:
            # the observer's time lies too soon after the card left for any carry: its pile
            # looked settled before the card touched (game 5857, both recognitions: A's 2H,
            # followed to rest over pile 1 0.1 s before it touched, timed from that 0.28 s early,
            # 0.03 s after it left; its contact, quality 0.68, 8 ms late): the estimate stands
            return True
        if evidence.get("underneath") is True:
            # a card found underneath: the observer's time is only a bound (it touched before
            # the card on top); the estimate may lie anywhere after the card left its slot
            return after_left
        busy_from = evidence.get("since_t")
        if isinstance(busy_from, (int, float)) and ev.t - busy_from > self.s.max_shift_s:
            # the pile was busy long (a hand lingered, and its settle came late): the card
            # touched while it was busy, after it left its slot
            return after_left and c.t >= busy_from
        if isinstance(busy_from, (int, float)) and isinstance(ev, Play) and est.track is not None \
                and c.t < busy_from and self._lay_on_pile(est.track, f"pile{ev.pile}", c.t, busy_from):
            # the card lay on its pile, followed there, before the busy spell whose settle
            # gave the play (the pile's earlier settle was misread: model seed 6056, the play
            # seen only under the slapping hands, 0.5 s late)
            return after_left
        return abs(c.t - ev.t) <= self.s.max_shift_s

    def _lingered_move(self, c: ar.ContactEstimate, ev: TableEvent, after_left: bool) -> bool:
        """Whether a contact estimated too poorly for a play times a move all the same: its
        slot was busy long before the observer's time (a hand lingered over the card it put
        down, and the slot settled late) and the contact lies in that busy spell, after the card
        left. In games 5600-5619 and 5690-5719 with perfect recognition the four moves whose
        contact was estimated so poorly (quality 0.02-0.09) touched 0.006-0.061 s after it; game
        5775, both recognitions: B's 2H, its hand over slot 1 0.5 s after the card landed, timed
        from the settle 0.37 s late (its contact, quality 0.018, 0.06 s early)."""
        busy_from = (ev.evidence or {}).get("since_t")
        return isinstance(ev, Move) and after_left and isinstance(busy_from, (int, float)) \
            and ev.t - busy_from > self.s.max_shift_s and busy_from <= c.t <= ev.t

    def _lay_on_pile(self, track: ar.CardTrack, pile: str, touched: float, until: float) -> bool:
        """Whether ``track`` found its card on ``pile`` in nearly every view from just after
        ``touched`` to ``until`` (at least ``on_pile_views`` views)."""
        times = np.asarray(track.times)
        views = np.flatnonzero((times > touched + 0.1) & (times <= until))
        if len(views) < self.s.on_pile_views:
            return False
        on = sum(1 for i in views if np.isfinite(track.centres_mm[i]).all()
                 and self._pile_at(*map(float, track.centres_mm[i])) == pile)
        return on >= self.s.on_pile_share * len(views)

    def _single(self, ev: Play | Move, tracked: TrackedFrame) -> TableEvent:
        t0 = time.perf_counter()
        if isinstance(ev, Play):
            kind, slot = "play", ev.slot
            toward = self.layout.zone(f"pile{ev.pile}").center
        else:
            kind, slot = "move", ev.from_slot
            target = f"{ev.player}.stock{ev.to_slot}"
            if target not in self._zone_ids:  # onto a sixth pile, outside every zone: not followed
                return ev
            toward = self.layout.zone(target).center
        est = _moved_after_reach(self._estimate(ev.player, slot, str(ev.card), ev.t,
                                                (float(toward[0]), float(toward[1]))), ev)
        self.costs.add(kind, time.perf_counter() - t0)
        use = self._usable(est, ev, tracked)
        t = est.contact.t if use and est.contact else _fallback_t(est, ev, self.s.max_shift_s)
        return self._with_contact(ev, est, use, t)

    def _with_contact(self, ev: TableEvent, est: _Estimate, use: bool, t: float,
                      **extra: object) -> TableEvent:
        evidence: dict[str, Any] = dict(ev.evidence or {})
        contact: dict[str, object] = ({**est.contact.to_evidence()} if est.contact is not None
                                      else {"error": est.error})
        if est.face is not None:
            contact.update(face_frame=est.face.frame, views=est.views)
        if est.left is not None:
            contact["left_t"] = round(est.left, 4)
        evidence["contact"] = contact
        evidence["touch_from"] = "trajectory" if use else "zone settle"
        if use and est.contact is not None:
            evidence["settle_t"] = round(ev.t, 4)
            evidence["contact_sd"] = round(est.contact.sd, 4)
        evidence.update(extra)
        # when the card left its slot: where the track first moves (the observer's start, from
        # when the slot's picture stopped moving, is 0.1-0.5 s off and may even follow the touch)
        start = ev.start
        if est.left is not None and est.left < t:
            start = est.left
        elif start is not None and start > t:
            start = None
        if start != ev.start:
            evidence["observer_start"] = None if ev.start is None else round(ev.start, 4)
        return replace(ev, t=t, start=start, evidence=evidence)

    # ------------------------------------------------------------------ races
    def _race(self, under: Play, top: Play, tracked: TrackedFrame) -> list[Arbitrated]:
        """Two plays onto one pile from one change: the observer puts ``under`` (its card was
        never seen to land, so it lies underneath) first. The arbitration orders them."""
        t0 = time.perf_counter()
        plays = {under.player: under, top.player: top}
        pile = self.layout.zone(f"pile{under.pile}").center
        toward = (float(pile[0]), float(pile[1]))
        ests: dict[Player, _Estimate] = {}
        tries: dict[Player, list[_Face]] = {}
        for p, ev in plays.items():
            found = self._faces_of(p, ev.slot, str(ev.card), ev.t)
            if isinstance(found, str):
                ests[p] = _Estimate(None, found)
            else:
                tries[p] = found
        faces: dict[Player, _Face] = {p: found[0] for p, found in tries.items()}
        arb: ar.Arbitration | None = None
        error = ""
        if len(faces) == 2:
            window, k0 = None, 0
            for k in sorted({min(f.frame for found in tries.values() for f in found),
                             min(f.frame for f in faces.values())}):
                window, k0 = self._window(k), k
                if window is not None:
                    break
            if window is None:
                error = "the views before the cards left are no longer kept"
            else:
                views, times = window
                poses: dict[Player, ar.CardPose] = {}
                for p in faces:
                    # the latest face; the one before if it gives no contact (and its view is kept)
                    ests[p] = self._first_good(
                        [f for f in tries[p] if f.frame >= k0],
                        lambda face, p=p: self._race_estimate(face, views, times, k0, toward, plays[p]))
                    faces[p] = ests[p].face or faces[p]
                    kept = ests[p].track
                    pose = ar.rest_pose(kept, ests[p].contact) if kept is not None else None
                    if pose is not None:
                        poses[p] = pose
                layering = None
                settled = self._settled_view(top)
                if settled is not None:
                    doubt = _top_read_doubtful(top, under, self.s.race_read_doubt_share)
                    layering = ar.card_layering(settled, {p: f.template for p, f in faces.items()},
                                                toward, self.geo, poses=poses,
                                                top_identity=None if doubt else str(top.card),
                                                identities={p: str(e.card) for p, e in plays.items()})
                    if doubt:
                        layering = replace(layering, reason=f"{layering.reason}; {doubt}")
                arb = ar.decide_first_touch({p: e.contact for p, e in ests.items()}, layering)
        else:
            error = "; ".join(e.error for e in ests.values() if e.error)
        for p in plays:
            if p not in ests:
                ests[p] = _Estimate(None, error or "not followed")
        self.costs.add("race", time.perf_counter() - t0)
        if arb is not None and arb.first is not None:
            first = plays[arb.first]
        else:
            first = under  # the layering the observer read: the card underneath touched first
        second = top if first is under else under
        order = [first, second]
        use = {p: self._usable(ests[p], plays[p], tracked) for p in plays}
        touch = [self._time(ests[e.player], e) if use[e.player]
                 else _fallback_t(ests[e.player], e, self.s.max_shift_s)
                 for e in order]
        busy_from = (first.evidence or {}).get("since_t")
        if not use[first.player] and use[second.player] and isinstance(busy_from, (int, float)):
            # the first card's touch not known, the second's is: it came between its pile going
            # busy and the second's touch, at the middle of that as far as we know (game 5370 with
            # perfect recognition: A's 2H, its track unusable, was put 0.29 s early, before its
            # pile went busy, and B's 2C, taken up after that, was no touch race: an
            # F_ILLEGAL_RANK for the F_LOST_TOUCH)
            touch[0] = max(touch[0], (busy_from + touch[1]) / 2)
        if not touch[0] + self.s.min_gap_s <= touch[1]:
            mid = (touch[0] + touch[1]) / 2  # the estimates cross the call: both at the middle, in order
            touch = [mid - self.s.min_gap_s / 2, mid + self.s.min_gap_s / 2]
        summary: dict[str, object] = (arb.to_evidence() if arb is not None
                                      else {"first": None, "reason": f"not arbitrated: {error}"})
        out = []
        note = None
        if arb is not None and arb.first is None:
            note = f"first touch uncertain: {_headline(arb.reason)}; the layering order is kept"
        for i, (ev, t) in enumerate(zip(order, touch, strict=True)):
            refined = self._with_contact(ev, ests[ev.player], use[ev.player], t, arbitration=summary,
                                         race_order=i + 1)
            out.append(Arbitrated(refined, note, only_fault=i == 0))
        return out

    def _race_estimate(self, face: _Face, views: list[np.ndarray], times: np.ndarray, k0: int,
                       toward: tuple[float, float], play: Play) -> _Estimate:
        """A race's card of ``face`` followed through ``views`` (the first is frame ``k0``)."""
        track = self._track(face, views, times, face.frame - k0, toward)
        n = len(views) - (face.frame - k0)
        left = _departure(track, face.frame - k0)
        try:
            contact: ar.ContactEstimate | None = ar.estimate_contact(track)
            why = ""
        except ValueError as exc:
            contact, why = None, str(exc)
        return _moved_after_reach(_Estimate(contact, why, track=track, face=face, views=n, left=left), play)

    def _settled_view(self, top: Play) -> np.ndarray | None:
        """The view to read a race's layering on: the last, or, when the pile has changed since
        the change that showed ``top`` on it (the race was called late, behind a slot that
        settled after the pile), the view of that change, where both cards still lay on it."""
        if self._pile_changed.get(f"pile{top.pile}", -1) > top.frame and top.frame in self._pile_change_views:
            return self._pile_change_views[top.frame]
        return self._last_view

    @staticmethod
    def _time(est: _Estimate, ev: TableEvent) -> float:
        return est.contact.t if est.contact is not None else ev.t

    # ------------------------------------------------------------------ slaps
    def _pair_due(self, tracked: TrackedFrame) -> bool | None:
        """Whether the held slaps of both players have the views they wait for
        (``slap_after_frames`` after the later one, ``unsure_slap_after_frames`` more for one the
        observer was unsure of); None when no pair is held."""
        if len({h.slap.player for h in self._held}) < 2:
            return None
        return tracked.frame >= max(h.frame + self._slap_waits(h.slap) for h in self._held)

    def _slap_waits(self, slap: Slap) -> int:
        """How many views after ``slap`` it waits for (``slap_after_frames``, and
        ``unsure_slap_after_frames`` more for a slap the observer was unsure of)."""
        return self.s.slap_after_frames + (self.s.unsure_slap_after_frames if _unsure_slap(slap) else 0)

    def _release_slaps(self, tracked: TrackedFrame, force: bool) -> list[Arbitrated]:
        """Held slaps whose time has come: a pair (both players) once ``slap_after_frames``
        views follow the later one; a lone slap after ``slap_wait_s``; all with ``force``."""
        if not self._held:
            return []
        first_of: dict[Player, _HeldSlap] = {}
        for h in sorted(self._held, key=lambda h: h.slap.t):
            first_of.setdefault(h.slap.player, h)
        if len(first_of) == 2:
            if not force and not self._pair_due(tracked):
                return []
        elif not force and tracked.time - min(h.time for h in self._held) < self.s.slap_wait_s:
            return []
        held, self._held = self._held, []
        t0 = time.perf_counter()
        pairs = list(first_of.values())
        try:
            out = self._slaps(pairs, tracked)
        except Exception as exc:  # a bug here must not stop the referee: the slaps as seen
            out = [Arbitrated(_failed(h.slap, exc)) for h in pairs]
        self.costs.add("slap", time.perf_counter() - t0)
        judged = len(out)
        for h in held:
            if all(h is not q for q in pairs):
                out = self._seen_again(out, judged, h.slap)
        return out

    @staticmethod
    def _seen_again(out: list[Arbitrated], judged: int, slap: Slap) -> list[Arbitrated]:
        """``out`` with a later slap held with the pair: as it is when its player has no slap in
        the first ``judged`` (the pair's, theirs dropped), else in their slap's evidence
        (``seen_again``). A player
        slaps once a round: their hand seen again on a pile while their first slap waited is that
        slap (slap-eval seed 6245: A's hand, on pile 1 since A's last play, slapped pile 2; given
        on pile 1, it was put on pile 2 here, and A's hand seen on pile 2 0.1 s later was given as
        a second slap)."""
        i = next((i for i, a in enumerate(out[:judged])
                  if isinstance(a.event, Slap) and a.event.player is slap.player), None)
        if i is None:
            return [*out, Arbitrated(slap)]
        first = out[i].event
        again = [*(first.evidence or {}).get("seen_again", []),
                 {"pile": slap.pile, "t": round(slap.t, 4), "frame": slap.frame}]
        log.info("%s's hand seen again on pile %d at %.3f s while their slap waited: the same slap",
                 slap.player, slap.pile, slap.t)
        evidence = {**(first.evidence or {}), "seen_again": again}
        return [*out[:i], replace(out[i], event=replace(first, evidence=evidence)), *out[i + 1:]]

    def _hand_views(self, first_t: float, piles: set[int], last_frame: int
                    ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray] | str:
        """The small views from ``slap_before_frames`` before the first slap (``first_t``) to
        ``last_frame`` (``slap_after_frames`` after the observer saw the last; not later, when
        the slaps came late, held behind a card read again: the hands had moved on, and the
        arm-stop found was a later one, slap-eval seed 6116 with the model, A's slap put 0.72 s
        late), and the background round ``piles``: each pixel as the kept views before
        ``first_t`` last showed it free of hands
        (:func:`~referee.vision.arbitration.hand_free_background`)."""
        rows = [r for r in self._small.rows() if r[0] <= last_frame]
        if len(rows) < 8 or self.geo_small is None:
            return "too few views kept"
        dt = float(np.median(np.diff([t for _, t, _ in rows])))
        t_bg = first_t - (self.s.slap_before_frames + self.s.slap_background_frames + 0.5) * dt
        i_bg = next((i for i, r in enumerate(rows) if r[1] >= t_bg), 0)
        i0 = min(i_bg + self.s.slap_background_frames, len(rows) - 5)
        masks = {k: m for k, _, m in self._hand_masks.rows()}
        before = [(v, masks[k]) for k, t, v in rows if t < first_t and k in masks]
        zones = [self.layout.zone(f"pile{n}") for n in sorted(piles) if f"pile{n}" in self._zone_ids]
        columns = ar.hand_strip_columns(zones, self.geo_small, rows[0][2].shape[1])
        background = (ar.hand_free_background([v for v, _ in before], [m for _, m in before], columns=columns)
                      if before else rows[i_bg][2])
        return [v for _, _, v in rows[i0:]], np.array([t for _, t, _ in rows[i0:]]), background

    def _slaps(self, held: list[_HeldSlap], tracked: TrackedFrame) -> list[Arbitrated]:
        """The first slap of each player (one or two): the hands round each slapped pile
        (:func:`~referee.vision.arbitration.hand_tracks`, once per pile), a slap put on the
        pile its player's hand really covered (when the observer named the other pile and the
        hand never covered it), the touch times, and for two slaps on one pile the call. The
        hands' views end ``slap_after_frames`` after the later slap; when that drops a slap the
        observer was unsure of (its arm not seen to come to rest), they run on to the present
        (``unsure_slap_after_frames`` more), and the slap stands if its arm came to rest by
        then (slap-eval seed 6777: A's hand, over pile 1 since A's last play, given with B's
        slap, came down 0.13 s after it; in seeds 6761 and 6775 the hand that had slapped from
        where it lay moved off again within those views)."""
        slaps = [h.slap for h in held]
        pair_end = max(s.frame for s in slaps) + self.s.slap_after_frames
        out = self._slaps_seen_to(slaps, tracked, pair_end)
        if any(_unsure_slap(s) for s in slaps) and tracked.frame > pair_end \
                and sum(isinstance(a.event, Slap) for a in out) < len(slaps):
            longer = self._slaps_seen_to(slaps, tracked, tracked.frame)
            if sum(isinstance(a.event, Slap) for a in longer) == len(slaps):
                return longer
        return out

    def _slaps_seen_to(self, slaps: list[Slap], tracked: TrackedFrame, last: int) -> list[Arbitrated]:
        """:meth:`_slaps` on the hands' views up to frame ``last``."""
        late = any((s.evidence or {}).get("before_known") for s in slaps)
        piles = {s.pile for s in slaps}
        if len(slaps) == 2 and len(piles) == 1:  # the other pile too: the hands may lie there
            piles |= {int(z.removeprefix("pile")) for z in self._pile_ids}
        first_t = min(first_seen(s) for s in slaps)
        window = ("seen only when the round was known over, after the hands had gone: their views "
                  "no longer show them") if late else self._hand_views(first_t, piles, last)
        hands: dict[int, dict[Player, ar.HandTrack] | str] = {}
        hand_views: dict[int, ar.HandViews] = {}
        if isinstance(window, str):
            hands = {n: window for n in piles}
        else:
            views, times, background = window
            assert self.geo_small is not None
            for pile_n in sorted(piles):
                try:
                    zone = self.layout.zone(f"pile{pile_n}")
                    hands[pile_n], hand_views[pile_n] = ar.hand_tracks(views, times, zone, self.geo_small,
                                                                       background=background)
                except ValueError as exc:
                    hands[pile_n] = str(exc)
        if len(slaps) == 2 and slaps[0].pile != slaps[1].pile:
            slaps = self._slapped_piles(slaps, hands)
        elif len(slaps) == 2:
            slaps = self._both_on_the_other_pile(slaps, hands)
        out: list[Arbitrated] = []
        for pile_n in sorted({s.pile for s in slaps}):
            on = [s for s in slaps if s.pile == pile_n]
            out += self._order_slaps(on, hands[pile_n], tracked, hand_views.get(pile_n))
        return out

    def _covered(self, tracks: dict[Player, ar.HandTrack] | str, player: Player) -> float:
        """How much of the pile's core ``player``'s hand covers in the last view, where both
        hands have come to rest (mm^2; 0 when not seen). Not the most it ever covered: a hand
        may pass over one pile on its way to the other (slap-eval seed 6179: A's hand, from its
        last play on pile 1 to its slap on pile 2, covered 3252 mm^2 of pile 1's core on the
        way, more than its split share of pile 2's, and was put on pile 1)."""
        if isinstance(tracks, str) or player not in tracks:
            return 0.0
        return float(tracks[player].own_pile_mm2[-1])

    def _slapped_piles(self, slaps: list[Slap], hands: dict[int, dict[Player, ar.HandTrack] | str]
                       ) -> list[Slap]:
        """Two slaps on different piles: one whose hand never covered its pile but covered the
        other's (where the other player slapped) was on the other pile (two hands on one pile
        are one blob to the tracker, split between the players only roughly); when that split
        says nothing clear, one whose pile's core the hands hardly cover was on the other pile
        if its core is covered (``unslapped_cover``, ``slapped_cover``)."""
        need = ar.HandSettings().min_over_pile_mm2
        out = list(slaps)
        moved = []
        for i, s in enumerate(slaps):
            other = slaps[1 - i].pile
            here, there = self._covered(hands[s.pile], s.player), self._covered(hands[other], s.player)
            if here < need <= there:
                why = (f"seen on pile {s.pile}, but {s.player}'s hand covered {there:.0f} mm^2 of pile "
                       f"{other}'s core and {here:.0f} mm^2 of pile {s.pile}'s")
                out[i] = replace(s, pile=other, evidence={**(s.evidence or {}), "pile_from_hands": why})
                moved.append(i)
        if len(moved) == 1:
            return out
        # the split says nothing clear (or swaps the two): a slapped pile lies under a palm, its
        # core all covered; a pile only reached over is not (seeds 6005 and 6013: both slapped
        # pile 2, 100 % covered; pile 1, under an arm, 62-63 %; the slapped piles of slap-same,
        # slap-different and seeds 6000-6001, 99-100 %)
        cover = {n: self._core_covered(hands[n]) for n in {s.pile for s in slaps}}
        for i, s in enumerate(slaps):
            here, there = cover[s.pile], cover[slaps[1 - i].pile]
            if self._elsewhere_by_cover(here, there):
                other = slaps[1 - i].pile
                why = (f"seen on pile {s.pile}, but the hands covered {there:.0%} of pile {other}'s core, "
                       f"where {slaps[1 - i].player} slapped, and {here:.0%} of pile {s.pile}'s")
                out = list(slaps)
                out[i] = replace(s, pile=other, evidence={**(s.evidence or {}), "pile_from_hands": why})
                return out
        return slaps

    def _both_on_the_other_pile(self, slaps: list[Slap], hands: dict[int, dict[Player, ar.HandTrack] | str]
                                ) -> list[Slap]:
        """Two slaps seen on one pile whose core the hands hardly cover (``unslapped_cover``),
        while they cover the other pile's (``slapped_cover``): both were on the other pile
        (slap-eval seed 6308: A's hand, lying on pile 1 since its last play, left it as both
        players slapped pile 2; the card it had hidden still differed from the tracker's
        background, and the blob of both arms, reaching pile 1 through it, put both slaps there)."""
        seen = slaps[0].pile
        others = [n for n in hands if n != seen]
        if len(others) != 1:
            return slaps
        other = others[0]
        here, there = self._core_covered(hands[seen]), self._core_covered(hands[other])
        if not self._elsewhere_by_cover(here, there):
            return slaps
        why = (f"seen on pile {seen}, but the hands covered {there:.0%} of pile {other}'s core "
               f"and {here:.0%} of pile {seen}'s")
        return [replace(s, pile=other, evidence={**(s.evidence or {}), "pile_from_hands": why})
                for s in slaps]

    def _elsewhere_by_cover(self, here: float | None, there: float | None) -> bool:
        """Whether slaps seen on a pile whose core the hands cover ``here`` (a share) were on the
        other pile, covered ``there``: the one hardly covered, the other as a slapped pile is."""
        return here is not None and there is not None \
            and here < self.s.unslapped_cover and there >= self.s.slapped_cover

    @staticmethod
    def _core_covered(tracks: dict[Player, ar.HandTrack] | str) -> float | None:
        """The share of a pile's core under the hands in the last view (None when not seen)."""
        if isinstance(tracks, str) or not tracks:
            return None
        st = ar.HandSettings()
        return float(next(iter(tracks.values())).over_pile_mm2[-1]) / (4 * st.core_mm[0] * st.core_mm[1])

    def _slap_stop(self, slap: Slap, contact: ar.ContactEstimate | None, tracked: TrackedFrame,
                   track: ar.HandTrack | None = None) -> float | None:
        """The arm's stop as the slap's touch time, when it is sure enough (``min_quality``),
        near the time seen (``max_shift_s``) and already past; else None. A stop later than
        that counts when the hands covered the pile's core (``min_over_pile_mm2``) in every
        view from the time seen to the stop: the hand came over the pile, hovered, and came
        down (slap-eval seed 7001: A's hand stayed over pile 1 after its last play and slapped
        0.47 s later; its stop was refused, and both slaps were put at the middle of the two)."""
        if contact is None or contact.quality < self.s.min_quality or contact.t >= tracked.time \
                or contact.t < slap.t - self.s.max_shift_s:
            return None
        if contact.t <= slap.t + self.s.max_shift_s:
            return contact.t
        if track is None:
            return None
        between = (track.times >= slap.t) & (track.times <= contact.t)
        hovered = bool(between.any()) and track.times[0] <= slap.t \
            and bool(np.all(track.over_pile_mm2[between] >= ar.HandSettings().min_over_pile_mm2))
        return contact.t if hovered else None

    def _without_lingering(self, slaps: list[Slap], contacts: dict[Player, ar.ContactEstimate | None],
                           errors: dict[Player, str], tracked: TrackedFrame) -> list[Slap]:
        """``slaps`` less those the observer was unsure of, whose arm was not seen to come to
        rest on the pile: marked ``lingering`` (a hand on the pile since the round ended) or
        ``joined`` (the other player's part of one blob of both arms on the pile); the others'
        evidence says why (``not_a_slap``)."""
        dropped = [s for s in slaps
                   if _unsure_slap(s) and self._slap_stop(s, contacts.get(s.player), tracked) is None]
        if not dropped:
            return slaps

        def because(q: Slap) -> str:
            c = contacts.get(q.player)
            if c is None:
                return errors.get(q.player, "no hand track")
            return f"its arm's stop at {c.t:.3f} s, quality {c.quality:.2f}, does not fit"

        def what(q: Slap) -> str:
            if (q.evidence or {}).get("lingering"):
                return f"{q.player}'s hand lay on pile {q.pile} from the round's end"
            return f"{q.player}'s arm was joined to the other's on pile {q.pile}"

        why = "; ".join(f"{what(q)} and was not seen to come down on it ({because(q)})" for q in dropped)
        log.info("slap not given: %s", why)
        return [replace(s, evidence={**(s.evidence or {}), "not_a_slap": why})
                for s in slaps if all(s is not q for q in dropped)]

    def _order_slaps(self, slaps: list[Slap], tracks: dict[Player, ar.HandTrack] | str,
                     tracked: TrackedFrame, hands: ar.HandViews | None = None) -> list[Arbitrated]:
        """One pile's slaps (one or two players): touch times from the arms' stops and, for
        two, the call (:func:`~referee.vision.arbitration.decide_slap`, the layering read from
        ``hands``' last view by the layering model when there is one); in the order called, or,
        when there is no call (the later slap's verdict then says so), in the order the
        evidence leans to, else as seen. A slap marked ``lingering`` (a hand on the pile since
        the round ended) or ``joined`` is dropped unless its arm's stop is usable."""
        contacts: dict[Player, ar.ContactEstimate | None] = {}
        errors: dict[Player, str] = {}
        for s in slaps:
            if isinstance(tracks, str):
                errors[s.player] = tracks
            elif s.player not in tracks:
                errors[s.player] = f"no hand of {s.player} reaches pile {s.pile}'s strip in the last view"
            else:
                try:
                    contacts[s.player] = ar.estimate_slap_contact(tracks[s.player])
                except ValueError as exc:
                    errors[s.player] = str(exc)

        def usable(s: Slap) -> float | None:
            return self._slap_stop(s, contacts.get(s.player), tracked, _hand_track_of(tracks, s.player))

        slaps = self._without_lingering(slaps, contacts, errors, tracked)
        order = sorted(slaps, key=lambda s: s.t)
        arb: ar.Arbitration | None = None
        note = None
        if len(order) == 2:
            # the layering model needs only the picture: a hand not seen at its edge in the last
            # view (slap-eval seed 6519: B's arm, its stop then unknown) is read there too
            readable = self._layering is not None and hands is not None
            if not isinstance(tracks, str) and (readable or all(s.player in tracks for s in order)):
                layering, decision = ar.slap_layering({s.player: tracks[s.player] for s in order
                                                       if s.player in tracks}, hands, self._layering)
                arb = ar.decide_slap({s.player: contacts.get(s.player) for s in order}, layering, decision)
            if arb is not None and arb.first is not None:
                order = sorted(order, key=lambda s: s.player is not arb.first)
            else:
                reason = arb.reason if arb is not None \
                    else "not arbitrated: " + "; ".join(dict.fromkeys(errors.values()))
                stops = [t for t in (usable(s) for s in order) if t is not None]
                lead = arb.lead if arb is not None else None
                if lead is not None:  # the likelier order, said to be unsure
                    order = sorted(order, key=lambda s: s.player is not lead)
                    kept = f"{lead} is likelier first"
                elif len(stops) == len(order):
                    order = [s for _, s in sorted(zip(stops, order, strict=True), key=lambda item: item[0])]
                    kept = f"{order[0].player}'s hand stopped first"
                else:
                    kept = "the order seen is kept"
                note = f"first slap uncertain: {_headline(reason)}; {kept}"
        times_out = []
        for s in order:
            t_stop = usable(s)
            times_out.append(t_stop if t_stop is not None else s.t)
        if len(times_out) == 2 and not times_out[0] + self.s.min_gap_s <= times_out[1]:
            mid = (times_out[0] + times_out[1]) / 2  # the stops cross the call: both at the middle, in order
            times_out = [mid - self.s.min_gap_s / 2, mid + self.s.min_gap_s / 2]
        out = []
        for i, (s, t) in enumerate(zip(order, times_out, strict=True)):
            evidence: dict[str, Any] = dict(s.evidence or {})
            c = contacts.get(s.player)
            evidence["contact"] = c.to_evidence() if c is not None else {"error": errors.get(s.player, "")}
            evidence["touch_from"] = ("hand stop" if t == usable(s) else "hand over the pile" if t == s.t
                                      else SLAPS_SPREAD)
            if t != s.t:
                evidence["seen_t"] = round(s.t, 4)
            if len(order) == 2:
                evidence["arbitration"] = (arb.to_evidence() if arb is not None
                                           else {"first": None, "reason": note or ""})
                evidence["slap_order"] = i + 1
            last = i == len(order) - 1
            out.append(Arbitrated(replace(s, t=t, evidence=evidence), note if last else None, call_note=last))
        return out


#: a card's track that left its slot longer than this before the pile it is found on went busy
#: does not time it: the carry takes 0.33-0.58 s (80 % of the evaluation games' plays), and the
#: pile goes busy when the hand carrying it comes. The face "leaving" so early was the slot
#: covered by an arm (game 5304 with perfect recognition: B's 3C, its slot under the arms of B's
#: slap 1.1 s before B took it, 1.3 s before the pile went busy, was put 1.1 s early and its take-back
#: taken for a fault)
LEFT_BEFORE_BUSY_MAX_S = 1.0


def _fallback_t(est: _Estimate, ev: TableEvent, busy_long_s: float) -> float:
    """An event's time when its contact estimate is not used: the observer's, except for a card
    whose track shows when it left its slot and that is found underneath, or that the observer
    timed from a pile's settle more than ``busy_long_s`` after the pile went busy: at most a
    carry after it left, and not before its pile went busy (game 5377, both recognitions: B's
    2C, under A's 2H, was put 0.09 s before the pile went busy, 0.31 s early, and A's 2H, taken
    up after that, was no touch race: an F_ILLEGAL_RANK for the F_LOST_TOUCH). The observer
    times a card underneath from its own start, when the slot's picture stopped moving, which
    can come half a second after the card left (game 5009: three cards onto one pile in one busy
    spell; the first, 0.43 s late, lost its race); a pile under hands that stay settles long
    after its cards landed (race-eval seed 6324: B's 8H, on top of a touch race, was put 0.46 s
    late, and its F_LOST_TOUCH with it)."""
    evidence = ev.evidence or {}
    busy_from = evidence.get("since_t")
    busy_long = isinstance(ev, Play) and isinstance(busy_from, (int, float)) \
        and ev.t - busy_from > busy_long_s
    if (evidence.get("underneath") is True or busy_long) and est.left is not None \
            and not (isinstance(busy_from, (int, float)) and est.left < busy_from - LEFT_BEFORE_BUSY_MAX_S):
        carried = est.left + PLAY_CARRY_S
        return min(ev.t, max(busy_from, carried) if isinstance(busy_from, (int, float)) else carried)
    return ev.t


#: How much earlier than the observer's ``reached_t`` (the first frame a hand's fingers came
#: within reach of the card's slot) a track may show its card leaving: the departure lies between
#: two views, the fingers' frame may be the second
LEFT_BEFORE_REACH_MAX_S = 2 / 30


def _moved_after_reach(est: _Estimate, ev: TableEvent) -> _Estimate:
    """``est``, unless its track shows the card leaving before any hand could reach its slot
    (``reached_t`` in the event's evidence, by more than ``LEFT_BEFORE_REACH_MAX_S``): the track
    then followed an arm passing over the card, not the card, and says nothing of its carry or
    touch (game 5370, both recognitions: A's 2H followed 133 mm with A's arm on its way to the
    packet, 0.6 s before the fingers came; the play was given that start, and a false
    F_TWO_CARDS with A's spit card)."""
    reached = (ev.evidence or {}).get("reached_t")
    if est.left is None or not isinstance(reached, (int, float)) \
            or est.left >= reached - LEFT_BEFORE_REACH_MAX_S:
        return est
    return _Estimate(None, f"the track moved at {est.left:.2f} s, before a hand reached the slot "
                           f"({reached:.2f} s): it followed something else", face=est.face, views=est.views)


def _unsure_slap(slap: Slap) -> bool:
    """A slap the observer was unsure of, given for its arm to be seen coming to rest on the
    pile: ``lingering`` (a hand on the pile since the round ended) or ``joined`` (the other
    player's part of one blob of both arms on the pile)."""
    return bool((slap.evidence or {}).get("lingering") or (slap.evidence or {}).get("joined"))


def _failed(ev: TableEvent, exc: Exception) -> TableEvent:
    """``ev`` as the observer gave it, its evidence saying that arbitration failed."""
    log.exception("arbitration failed for %s at t=%.3f", ev.kind, ev.t, exc_info=exc)
    return replace(ev, evidence={**(ev.evidence or {}), "arbitration_error": f"{type(exc).__name__}: {exc}"})


def _departure(track: ar.CardTrack, start: int, moved_mm: float = 3.0) -> float | None:
    """When the tracked card left the place it lay in view ``start``: between the last view
    where it was found there and the first where it had moved more than ``moved_mm``."""
    found = track.found
    if not found[start]:
        return None
    c0 = track.centres_mm[start]
    rest = start
    for i in range(start + 1, len(track)):
        if not found[i]:
            continue
        if math.hypot(*(track.centres_mm[i] - c0)) > moved_mm:
            return float(track.times[rest] + track.times[i]) / 2
        rest = i
    return None


def _headline(reason: str) -> str:
    """The first part of an arbitration's reason ("the evidence disagrees (A first by the
    trajectories, B's card underneath)"); the numbers stay in the event's evidence."""
    head = reason.split("; trajectories:")[0]
    return head.removeprefix("no call: ")


def _top_read_doubtful(top: Play, under: Play, share: float) -> str:
    """Why the pile's reading cannot say which of a race's two cards lies on top ("" when it
    can): it put the other card second, at least ``share`` as surely as ``top``'s card."""
    ev = top.evidence or {}
    read, second = ev.get("read", str(top.card)), ev.get("runner_up")
    read_conf = top.evidence_number("read_confidence", 1.0)
    second_conf = top.evidence_number("runner_up_confidence", 0.0)
    if second != str(under.card) or second_conf < share * read_conf:
        return ""
    return (f"the pile read {read} at {read_conf:.2f} and {second} at {second_conf:.2f}: "
            "the recogniser's word on the top card is left out")


__all__ = ["Arbiter", "ArbiterCosts", "ArbiterSettings", "Arbitrated", "Landing"]
