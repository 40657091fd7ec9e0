"""Zone tracking: every zone of the mat followed frame by frame, and hands over the mat.

:class:`ZoneTracker` takes a calibration and a stream of frames (BGR, with timestamps). Once,
it precomputes one remap of the whole mat (plus a margin of table round it, where hands and
forearms come in) at a modest ``px_per_mm``; each frame is then one ``cv2.remap`` and work on
small arrays. Per zone and frame it says:

- ``occupied``: a card lies there: the zone's printed label (its number, or "SPIT PILE 1")
  no longer correlates with the printed mat (``render_mat``) at that place. Normalised
  correlation does not care about light level or colour, which a blown-out camera loses.
  It is taken when the zone is settled and held while something is over the zone;
- ``covered``: a hand or a moving card is over it (a large, fast change against the zone's
  last settled view, or a hand blob over the zone's centre);
- ``settled``: the zone has been still for ``settle_frames`` frames; when a zone settles with
  content that differs from its previous settled content, a :class:`ZoneChange` is emitted
  (for recognition to look at: "zone pile1 changed and settled at frame 57").

Hands: the difference between the frame and a settled background of the mat region (kept up to
date where the picture has been still), as connected blobs that reach in from a side of the
mat; each is attributed to player A (it enters from A's edge, large mat y) or B.

No recognition here: what lies on top is only "a card" or "nothing" (docs/tracking.md).
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field
from time import perf_counter

import cv2
import numpy as np

from referee.errors import InputError
from referee.players import Player
from referee.vision.calibration import Calibration
from referee.vision.mat import ZoneKind, render_mat

log = logging.getLogger(__name__)
_MAPS = itertools.count(1)

ARM_BEYOND_MM = 8.0  # a hand blob reaches at least this far beyond its player's edge of the mat
FAR_EDGE_MM = 10.0  # ... and a blob that comes this near the other player's edge holds their arm too
#: where the camera's view ends within this of a player's edge, a blob reaching that end comes
#: in from that side when it is at least ``VIEW_END_ARM_MM2`` (larger than a card, 5544 mm^2,
#: and its shadow), or reaches in from the other side too
VIEW_EDGE_BAND_MM = 60.0
VIEW_END_ARM_MM2 = 7000.0
#: the fraction of a zone a hand covers that counts as touching it (``HandBlob.touches``)
PART_COVERED = 0.2


@dataclass(frozen=True)
class ZoneObservation:
    """One zone in one frame."""

    zone: str
    occupied: bool
    covered: bool
    settled: bool
    occupancy_score: float  # fraction of the zone's centre that differs from the printed mat
    motion: float  # mean abs change against the last frame (grey levels)
    #: a busy stock slot: the share of its part that no hand covers which differs from its last
    #: settled view (near 0: the card that lay there is still there, an arm only passes over
    #: it); None when settled, not a stock slot, or too little of it shows
    visible_change: float | None = None
    #: a spit pile or stock slot clear again (settled, nothing over it) after something was
    #: over it: whether it looks as it did when last clear (a hand lay on it, or an arm passed
    #: over it, and took nothing, left nothing); None in every other frame
    as_before: bool | None = None
    #: a busy zone: the frame where its busy spell began (None when settled)
    busy_since: int | None = None
    #: the printed mat shows at the zone's centre in this frame (its occupancy below the level
    #: that counts as occupied), settled or not: a busy slot that shows it has lost its card
    bare: bool = False


@dataclass(frozen=True)
class ZoneChange:
    """A settled zone whose content differs from its previous settled content."""

    zone: str
    frame: int
    time: float
    occupied: bool
    was_occupied: bool
    since_frame: int  # the frame where the change began (first unsettled frame)
    difference: float  # mean abs difference between the two settled views
    hand_over: bool = False  # settled with a (still) hand over it: only part of the zone may show
    quiet_frame: int = -1  # the frame from which the zone's picture stopped moving (hands or not)
    quiet_time: float = -1.0
    #: settled early, by :meth:`ZoneTracker.settle_now`: a card followed from its slot lies
    #: still on the zone while a hand still moves over it (``quiet_*``: from when it lay still)
    carried: bool = False
    #: with ``carried``: cards followed from their slots that were placed elsewhere then (seen
    #: outside this zone, moving in a hand, or last seen on another pile: not under its top)
    elsewhere: frozenset[str] = frozenset()
    #: with ``carried``: cards followed from their slots last seen on this zone (beneath its top)
    beneath: frozenset[str] = frozenset()
    #: of ``beneath``, the cards that left their slots before the top's card left its own
    taken_before: frozenset[str] = frozenset()
    #: a spit pile whose settled views differ less than a change does but more than
    #: ``TrackerSettings.faint_level_pile``: a card may have come on one alike (read, and
    #: believed only as a card known to have left or be leaving a slot:
    #: ``Observer._faint_believed``)
    faint: bool = False


@dataclass(frozen=True)
class HandBlob:
    """A hand or forearm (with whatever it carries) over the mat."""

    player: Player
    area_mm2: float
    bbox_mm: tuple[float, float, float, float]  # x0, y0, x1, y1 in mat mm
    tip_mm: tuple[float, float]  # the point furthest into the mat from the player's edge
    zones: tuple[str, ...]  # zones whose centre it covers
    merged: bool = False  # one blob reaching in from both sides: both players' arms, touching
    #: zones it covers at least a fifth of, or the centre of (a card is put on a pile, or
    #: taken off a packet's near end, by a hand that rarely covers the zone's centre)
    touches: tuple[str, ...] = ()
    #: where the arm comes in: the middle of its cells nearest the player's edge (mat mm); with
    #: two hands out, the one further to the player's left is their left hand, whatever they reach
    base_mm: tuple[float, float] | None = None


@dataclass(frozen=True)
class StrayChange:
    """A card-sized thing that came to rest on the mat outside every zone (``present``), or
    that is gone again (not ``present``): a card put down where no zone is (a sixth stock pile,
    F_SIXTH_PILE). ``stray`` numbers it for the pair of changes; ``quiet_time`` is when its
    picture stopped changing. One found by following the card from its slot (the referee's
    arbiter: ``Arbiter.strays``) has a negative number and says which card it is and whose."""

    stray: int
    present: bool
    frame: int
    time: float
    bbox_mm: tuple[float, float, float, float]
    area_mm2: float
    quiet_time: float
    card: str | None = None  # followed from its slot: the card
    player: Player | None = None  # ... and the slot's player

    @property
    def centre_mm(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bbox_mm
        return (x0 + x1) / 2, (y0 + y1) / 2


@dataclass
class _Stray:
    stray: int
    bbox_mm: tuple[float, float, float, float]
    area_mm2: float
    first: tuple[int, float]  # frame, time first seen
    seen: int = 1  # frames seen in a row
    missing: int = 0  # frames not seen in a row
    announced: bool = False


@dataclass(frozen=True)
class TrackerPictures:
    """One frame's pictures that :meth:`ZoneTracker.update` works on (:meth:`ZoneTracker.pictures`)."""

    maps_id: int  # the tracker's maps they were made with
    view: np.ndarray  # the mat and its margin rectified, BGR, ``px_per_mm``
    grey: np.ndarray  # ``view`` in grey
    fine: np.ndarray  # ``view`` shrunk by 2, BGR
    fine_grey: np.ndarray  # ``fine`` in grey, float32
    occupancy: dict[str, float]  # each zone's ``occupancy_score``
    seconds: float  # how long they took to make


@dataclass(frozen=True)
class TrackedFrame:
    frame: int
    time: float
    zones: dict[str, ZoneObservation]
    changes: tuple[ZoneChange, ...]
    hands: tuple[HandBlob, ...]
    strays: tuple[StrayChange, ...] = ()


@dataclass
class _ZoneState:
    settled: bool = True
    still: int = 0
    quiet_since: tuple[int, float] = (0, 0.0)  # (frame, time) the picture last stopped moving
    reference: np.ndarray | None = None  # the last settled view (grey cells)
    occupied: bool = False
    seen_occupied: bool = False  # this frame's occupancy (``occupied`` is the settled one)
    since_frame: int = 0
    history: list[bool] = field(default_factory=list)
    clear_view: np.ndarray | None = None  # the view when last settled with nothing over it
    was_clear: bool = True


@dataclass(frozen=True)
class TrackerSettings:
    px_per_mm: float = 1.5
    margin_mm: float = 40.0  # table round the mat that is watched for arms
    cell_mm: float = 3.0  # hand mask and background resolution
    settle_frames: int = 2  # still for this many frames = settled
    #: ... or this many on a spit pile when no hand lies over any of its cells: the frame after
    #: the hand left shows what it left, and a second still frame only delayed every verdict by
    #: a frame. Not a stock slot: settling there between two visits of a hand split busy spells
    #: that tell which cards one hand took together (game 5232: a race's first card lost)
    settle_frames_clear: int = 1
    settle_clear_kinds: tuple[str, ...] = ("pile",)
    still_level: float = 4.0  # mean abs frame-to-frame change (grey) under which a zone is still
    change_level: float = 10.0  # mean abs difference between settled views that is a change
    #: the same on a spit pile: a card on a card differs less than a card on the mat (a court
    #: card on another of its suit: 8-10 in dim scenes of the evaluation games)
    change_level_pile: float = 6.0
    #: ... and above this, still a faint change there (``ZoneChange.faint``): a card landed
    #: square on one of its colour and the next rank differs from it by less than a change
    #: (game 5154: A's 3D on the 2H, 5.2, and A's 2D on the 3D, 4.2); in games 5000-5019 and
    #: 5140-5159 a pile settled 817 times, 65 of them faint, and only those two brought a card
    #: (the rest 3.0-5.9: shadows, cards nudged)
    faint_level_pile: float = 3.0
    cover_level: float = 18.0  # mean abs difference to the settled view that means "something over it"
    occupied_level: float = 0.25  # 1 - correlation of the zone's printed label with the view
    occupied_level_text: float = 0.5  # the same for zones labelled with small text (piles, packets)
    hand_diff: float = 30.0  # a background cell differs by this much: foreground
    #: ... or, beyond a player's edge of the mat, by this much where it joins such a cell: a
    #: dark sleeve over a dark table differs from it by 15-30 (race-eval seed 6141: B's resting
    #: arm lost its link to B's edge there, its hand passed into the background and was left as
    #: a card outside the zones, and the slot under it was read empty: two false faults)
    hand_diff_beyond: float = 15.0
    hand_min_mm2: float = 1500.0
    #: an arm-sized blob (``VIEW_END_ARM_MM2``) that has lost its link to the player's edge is
    #: still that player's arm when at least ``hand_carry_share`` of it lay under their arm in
    #: the frame before, for at most ``hand_carry_frames`` frames in a row: game 5080 at
    #: 1280x720, B's dark arm, over B's slot 2 on its way to pile 2, lost its link over the dark
    #: carpet for two frames; the slot was seen clear of hands, read "empty" under the arm, and
    #: its 8H taken for a card played (a false F_ILLEGAL_RANK). Only a blob of which at least
    #: ``hand_carry_moving`` moved since the last frame (an arm is alive; what a hand leaves
    #: behind, such as the mat where a pile it took lay, is not)
    hand_carry_frames: int = 5
    hand_carry_share: float = 0.5
    hand_carry_moving: float = 0.05
    background_still: int = 4  # frames a cell must be still to enter the background
    background_absorb: int = 60  # ... even under a hand blob (nothing living is still for 2 s)
    resting_frames: int = 10  # a blob still this long is resting: it no longer keeps zones unsettled
    #: ``visible_change`` of a busy stock slot: measured when at least this share of it shows,
    #: counting the pixels that differ from the settled view by more than ``visible_diff``
    visible_min: float = 0.35
    visible_diff: float = 20.0
    #: kinds of zone that may settle with a still hand over them: on a spit pile a card can
    #: land, rest and be taken back while the players' hands never leave it (touch races); a
    #: card turned in a stock slot is part of the hand's blob (it differs from the background)
    #: while the hand rests beside it, which held 17 of 331 turns in the evaluation games
    #: 0.3-2 s late
    settle_under_hand: tuple[str, ...] = ("pile", "stock")
    #: strays (a card outside every zone): the settled background differs from the mat as it
    #: was by this much (grey levels, any channel), over at least this share of a card ...
    stray_diff: float = 15.0
    stray_min_card: float = 0.35
    #: ... and at most this many cards (a bigger change is light, or the camera moved)
    stray_max_cards: float = 2.5
    stray_every: int = 3  # looked for every this many frames (a card lying still is not urgent)
    stray_frames: int = 3  # seen (or gone) this many looks in a row
    stray_zone_pad_mm: float = 8.0  # round each zone: a card askew on its zone is not a stray


def view_size(mat_mm: tuple[float, float], settings: TrackerSettings) -> tuple[int, int, int]:
    """The rectified view's width and height (pixels) and its hand cell (pixels): the mat and
    its margin at ``px_per_mm``. The cell is an even number of view pixels and the view a
    whole number of cells, so that every shrink is by a whole factor (OpenCV's fast path)."""
    s, m = settings.px_per_mm, settings.margin_mm
    cell = 2 * max(1, int(round(settings.cell_mm * s / 2)))
    out_w = -(-int(round((mat_mm[0] + 2 * m) * s)) // cell) * cell
    out_h = -(-int(round((mat_mm[1] + 2 * m) * s)) // cell) * cell
    return out_w, out_h, cell


def view_maps(calibration: Calibration, settings: TrackerSettings,
              columns: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each pixel of the rectified view (or of its ``columns``, view pixels ``[u0, u1)``),
    where it lies in the camera image (x and y maps for ``cv2.remap``)."""
    s, m = settings.px_per_mm, settings.margin_mm
    out_w, out_h, _ = view_size(calibration.layout.size_mm, settings)
    u0, u1 = columns if columns is not None else (0, out_w)
    uu, vv = np.meshgrid(np.arange(u0, u1, dtype=np.float64), np.arange(out_h, dtype=np.float64))
    grid = np.stack([(uu.ravel() + 0.5) / s - m, (vv.ravel() + 0.5) / s - m], axis=1)
    img = calibration.mat_to_image(grid).astype(np.float32)
    return img[:, 0].reshape(out_h, u1 - u0), img[:, 1].reshape(out_h, u1 - u0)


class ZoneTracker:
    """Follows every zone of the mat and the hands over it; feed it frames in order."""

    def __init__(self, calibration: Calibration, settings: TrackerSettings | None = None) -> None:
        self.cal = calibration
        self.s = settings or TrackerSettings()
        s, m = self.s.px_per_mm, self.s.margin_mm
        w_mm, h_mm = calibration.layout.size_mm
        self._out_w, self._out_h, cell = view_size((w_mm, h_mm), self.s)
        mx, my = view_maps(calibration, self.s)
        iw, ih = calibration.image_size
        self._valid = ((mx >= 0) & (mx <= iw - 1) & (my >= 0) & (my <= ih - 1))
        self._map1, self._map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        self._maps_id = next(_MAPS)  # names these maps in the pictures made with them
        # the printed mat, in the same pixels
        art = render_mat(calibration.layout, s)
        pad = int(round(m * s))
        art = cv2.copyMakeBorder(art, pad, pad + self._out_h, pad, pad + self._out_w,
                                 cv2.BORDER_CONSTANT, value=(0, 0, 0))
        self._art = art[: self._out_h, : self._out_w]
        self._art = self._art.astype(np.float32)
        self._label: dict[str, tuple[slice, slice]] = {}
        self._level = {z.id: self.s.occupied_level if ".stock" in z.id else self.s.occupied_level_text
                       for z in calibration.layout.zones}
        self._change_level = {
            z.id: self.s.change_level_pile if z.kind is ZoneKind.PILE else self.s.change_level
            for z in calibration.layout.zones}
        self._faint_level = {z.id: self.s.faint_level_pile for z in calibration.layout.zones
                             if z.kind is ZoneKind.PILE}
        # zones and hands work on smaller pictures: "fine" (the view shrunk by 2, for zones)
        # and "cells" (shrunk by `cell_mm`, for hands and the background)
        self._fw, self._fh = self._out_w // 2, self._out_h // 2
        sf = s * self._fw / self._out_w
        self._sf = sf
        self._art_grey_full = cv2.cvtColor(self._art, cv2.COLOR_BGR2GRAY)
        self.zone_ids = [z.id for z in calibration.layout.zones]
        self._stock_ids = {z.id for z in calibration.layout.zones if z.kind is ZoneKind.STOCK}
        self._clear_ids = {z.id for z in calibration.layout.zones
                           if z.kind in (ZoneKind.PILE, ZoneKind.STOCK)}
        self._settle_under_hand = {z.id for z in calibration.layout.zones
                                   if z.kind.value in self.s.settle_under_hand}
        self._settle_clear = {z.id for z in calibration.layout.zones
                              if z.kind.value in self.s.settle_clear_kinds}
        self._slices: dict[str, tuple[slice, slice]] = {}
        self._centre_px: dict[str, tuple[int, int]] = {}
        self._zone_cells: dict[str, tuple[slice, slice]] = {}
        self._cell = cell
        cell_mm = cell / s

        def px(v: float) -> int:
            return int(round((v + m) * sf))

        for z in calibration.layout.zones:
            poly = z.polygon()
            x0, y0 = poly.min(axis=0)
            x1, y1 = poly.max(axis=0)
            self._slices[z.id] = (slice(px(y0), px(y1)), slice(px(x0), px(x1)))
            cx, cy = z.center
            lk = 14.0  # the zone's printed label (its number), round the centre
            self._label[z.id] = (slice(int(round((cy - lk + m) * s)), int(round((cy + lk + m) * s))),
                                 slice(int(round((cx - lk + m) * s)), int(round((cx + lk + m) * s))))
            self._centre_px[z.id] = (int((cx + m) / cell_mm), int((cy + m) / cell_mm))
            self._zone_cells[z.id] = (slice(int((y0 + m) / cell_mm), int((y1 + m) / cell_mm)),
                                      slice(int((x0 + m) / cell_mm), int((x1 + m) / cell_mm)))
        self._zones = {z: _ZoneState() for z in self.zone_ids}
        self._frame_index = -1
        self._prev_grey: np.ndarray | None = None
        self._bg: np.ndarray | None = None
        #: each player's arms in the last frame (cells), and for how many frames in a row one
        #: was kept only for lying where their arm lay (``hand_carry_frames``)
        self._last_arms: dict[Player, np.ndarray] = {}
        self._arm_carried: dict[Player, int] = {Player.A: 0, Player.B: 0}
        self._prev_cells: np.ndarray | None = None
        self._still_cells: np.ndarray | None = None
        cells_valid = cv2.resize(self._valid.astype(np.float32),
                                 (self._out_w // cell, self._out_h // cell), interpolation=cv2.INTER_AREA)
        self._cells_valid = cells_valid > 0.99
        self._mat_y_cells = (np.arange(self._out_h // cell) + 0.5) * cell / s - m
        self._mat_x_cells = (np.arange(self._out_w // cell) + 0.5) * cell / s - m
        # where the camera's view ends short of a player's edge of the mat: the valid cells
        # next to an invalid one (or the grid's end) above (B's side) and below (A's side),
        # within VIEW_EDGE_BAND_MM of that edge (where ``_hands`` lets an arm come in)
        valid = self._cells_valid
        end_below = np.ones_like(valid)
        end_below[:-1] = ~valid[1:]
        end_above = np.ones_like(valid)
        end_above[1:] = ~valid[:-1]
        h_mm = self.cal.layout.size_mm[1]
        ys = self._mat_y_cells[:, None]
        self._view_ends_by: dict[Player, np.ndarray] = {
            Player.A: valid & end_below & (ys >= h_mm - VIEW_EDGE_BAND_MM) & (ys < h_mm + ARM_BEYOND_MM),
            Player.B: valid & end_above & (ys <= VIEW_EDGE_BAND_MM) & (ys > -ARM_BEYOND_MM)}
        self._beyond_edges = valid & ((ys < 0) | (ys > h_mm))  # the table beyond the players' edges
        self.last_mask: np.ndarray | None = None
        self._active_mask: np.ndarray = np.zeros((1, 1), np.uint8)
        # strays: cells on the mat and away from every zone, the mat as it was there when first
        # seen clear (settled, no hand), and the strays followed
        zone_pad = self.s.stray_zone_pad_mm
        on_mat = ((self._mat_x_cells[None, :] > cell_mm) & (self._mat_x_cells[None, :] < w_mm - cell_mm)
                  & (self._mat_y_cells[:, None] > cell_mm) & (self._mat_y_cells[:, None] < h_mm - cell_mm))
        outside = on_mat & self._cells_valid
        for z in calibration.layout.zones:
            poly = z.polygon()
            (x0, y0), (x1, y1) = poly.min(axis=0) - zone_pad, poly.max(axis=0) + zone_pad
            outside &= ~((self._mat_x_cells[None, :] >= x0) & (self._mat_x_cells[None, :] <= x1)
                         & (self._mat_y_cells[:, None] >= y0) & (self._mat_y_cells[:, None] <= y1))
        self._outside = outside
        self._clean: np.ndarray | None = None
        self._clean_set = np.zeros_like(outside)
        self._strays: list[_Stray] = []
        self._next_stray = 1
        self._last_time: float | None = None
        self._frame_dt = 1 / 30
        card_area = calibration.layout.card_mm[0] * calibration.layout.card_mm[1]
        self._stray_area = (self.s.stray_min_card * card_area, self.s.stray_max_cards * card_area)
        #: the last frame's rectified view (BGR, ``px_per_mm``), its grey copy, and the view shrunk
        #: by 2 (BGR): kept for arbitration (referee/live/arbitrate.py); new arrays every frame
        self.last_view: np.ndarray | None = None
        self.last_view_grey: np.ndarray | None = None
        self.last_view_small: np.ndarray | None = None

    def continue_from(self, old: ZoneTracker) -> None:
        """Go on numbering frames where ``old`` (a tracker of the previous calibration) stopped."""
        self._frame_index = old._frame_index

    # ------------------------------------------------------------------ per frame
    def rectified(self, frame: np.ndarray) -> np.ndarray:
        self._check(frame)
        return cv2.remap(frame, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _check(self, frame: np.ndarray) -> None:
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            shape = getattr(frame, "shape", type(frame).__name__)
            raise InputError(f"expected a BGR frame (height, width, 3), got {shape}", "frame")
        h, w = frame.shape[:2]
        if (w, h) != tuple(self.cal.image_size):
            cw, ch = self.cal.image_size
            raise InputError(
                f"frame size {w}x{h} differs from the calibration's image size {cw}x{ch}",
                f"frame {self._frame_index + 1}",
            )

    def hand_cells(self) -> np.ndarray | None:
        """The last frame's hands on the cell grid (``cell_mm``, the view's whole area): 0 no
        hand, 1 a hand at rest, 2 a hand that moves (its blob not mostly at rest); None before
        the first frame."""
        if self.last_mask is None:
            return None
        if self._active_mask.shape != self.last_mask.shape:
            return self.last_mask.copy()
        return self.last_mask + (self._active_mask & self.last_mask)

    def pictures(self, frame: np.ndarray) -> TrackerPictures:
        """The pictures :meth:`update` works on, which depend on ``frame`` alone (most of the
        remap's cost): safe to make on another thread, ahead of :meth:`update`."""
        t0 = perf_counter()
        view = self.rectified(frame)
        fine = cv2.resize(view, (self._fw, self._fh), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        fine_grey = cv2.cvtColor(fine.astype(np.float32), cv2.COLOR_BGR2GRAY)
        occupancy = {zid: self._occupancy(zid, grey) for zid in self.zone_ids}
        return TrackerPictures(self._maps_id, view, grey, fine, fine_grey, occupancy, perf_counter() - t0)

    def made_with(self, pictures: TrackerPictures) -> bool:
        """Whether ``pictures`` were made by this tracker's maps (not an earlier calibration's)."""
        return pictures.maps_id == self._maps_id

    def update(self, frame: np.ndarray, time: float, pictures: TrackerPictures | None = None) -> TrackedFrame:
        """Follow the zones and hands in ``frame``. ``pictures``: its :meth:`pictures`, made
        ahead; made here when absent or made by another tracker (a calibration since)."""
        if pictures is None or not self.made_with(pictures):
            pictures = self.pictures(frame)
        view, vgrey, fine, grey = pictures.view, pictures.grey, pictures.fine, pictures.fine_grey
        self._frame_index += 1
        idx = self._frame_index
        self.last_view, self.last_view_grey, self.last_view_small = view, vgrey, fine
        hands, hand_mask = self._hands(fine)
        active_mask = self._active_mask
        prev = self._prev_grey
        self._prev_grey = grey
        obs: dict[str, ZoneObservation] = {}
        changes: list[ZoneChange] = []
        for zid in self.zone_ids:
            st = self._zones[zid]
            sl = self._slices[zid]
            small = grey[sl]
            motion = 0.0 if prev is None else _mean_absdiff(small, prev[sl])
            score = pictures.occupancy[zid]
            occupied = score >= self._level[zid]
            st.seen_occupied = occupied
            cx, cy = self._centre_px[zid]
            cell = (min(cy, hand_mask.shape[0] - 1), min(cx, hand_mask.shape[1] - 1))
            any_hand = bool(hand_mask[cell])
            hand_over = bool(active_mask[cell])  # a resting blob does not stop settling
            if st.reference is None:
                st.reference, st.occupied, st.settled = small, occupied, True
            diff_ref = _mean_absdiff(small, st.reference)
            if motion >= self.s.still_level:
                st.quiet_since = (idx, float(time))
            if motion < self.s.still_level and (not hand_over or zid in self._settle_under_hand):
                st.still += 1
            else:
                st.still = 0
            if st.settled:
                # busy when its picture moves and differs from the settled one, or shows a card
                # come or gone (a white card put on the white mat by a pale hand, unseen, may
                # differ less than a change: game 5168, A's 4D moved into the empty slot 1)
                # ... or, still, shows a card come or gone: a card slid in slowly moves the
                # picture less than a hand does (game 5255: A's 2D, moved into the empty slot 1,
                # changed it by at most 3.9 grey levels a frame; taken in silently, the move was lost)
                if (st.still == 0 and (diff_ref > self._change_level[zid] or hand_over)) \
                        or occupied != st.occupied:
                    st.settled = False
                    st.since_frame = idx
                else:
                    st.reference = 0.9 * st.reference + 0.1 * small  # follow slow light changes
            elif st.still >= (self.s.settle_frames_clear if zid in self._settle_clear
                              and not hand_mask[self._zone_cells[zid]].any() else self.s.settle_frames):
                st.settled = True
                if diff_ref > self._change_level[zid] or occupied != st.occupied:
                    changes.append(ZoneChange(zid, idx, float(time), occupied, st.occupied,
                                              st.since_frame, diff_ref, any_hand, *st.quiet_since))
                elif diff_ref > self._faint_level.get(zid, math.inf):
                    changes.append(ZoneChange(zid, idx, float(time), occupied, st.occupied,
                                              st.since_frame, diff_ref, any_hand, *st.quiet_since,
                                              faint=True))
                st.reference, st.occupied = small, occupied
            covered = any_hand or (not st.settled and diff_ref > self.s.cover_level)
            visible_change = None
            if not st.settled and zid in self._stock_ids:
                visible_change = self._visible_change(zid, small, st.reference, hand_mask)
            as_before = None
            if zid in self._clear_ids:
                clear = st.settled and not covered and not hand_mask[self._zone_cells[zid]].any()
                if clear and st.clear_view is not None and not st.was_clear:
                    as_before = _mean_absdiff(small, st.clear_view) <= self._change_level[zid]
                if clear:
                    st.clear_view = small
                st.was_clear = clear
            # occupancy is only trusted when the zone is settled: between, the last settled answer
            obs[zid] = ZoneObservation(zid, st.occupied, covered, st.settled, score, motion, visible_change,
                                       as_before, None if st.settled else st.since_frame, not occupied)
        if self._last_time is not None and time > self._last_time:
            self._frame_dt = float(time) - self._last_time
        self._last_time = float(time)
        strays = self._follow_strays(idx, float(time)) if idx % self.s.stray_every == 0 else ()
        return TrackedFrame(idx, float(time), obs, tuple(changes), tuple(hands), strays)

    def settled_view(self, zone: str) -> np.ndarray | None:
        """The zone's picture when it last settled (grey, at the zones' scale; followed slowly
        while it stays settled): what a change is measured against. None before the first frame."""
        st = self._zones.get(zone)
        if st is None:
            raise KeyError(f"no zone {zone!r} in the layout")
        return None if st.reference is None else st.reference.copy()

    def settle_now(self, zone: str, quiet_frame: int, quiet_time: float,
                   elsewhere: frozenset[str] = frozenset(), beneath: frozenset[str] = frozenset(),
                   taken_before: frozenset[str] = frozenset()) -> ZoneChange | None:
        """Settle busy ``zone`` at the last frame although its picture still moves: a card
        followed from its slot has lain still on it since ``quiet_frame`` while the hand that
        put it there moves on over it (the pipeline's carried landings). The change has
        ``hand_over`` and ``carried`` set; the zone unsettles again at once if the hand is still
        moving over it, and settles as usual when it has gone. None when the zone is settled."""
        st = self._zones.get(zone)
        if st is None:
            raise KeyError(f"no zone {zone!r} in the layout")
        if st.settled or self._prev_grey is None or st.reference is None:
            return None
        small = self._prev_grey[self._slices[zone]]
        diff_ref = _mean_absdiff(small, st.reference)
        change = ZoneChange(zone, self._frame_index, float(self._last_time or 0.0), st.seen_occupied,
                            st.occupied, st.since_frame, diff_ref, True, quiet_frame, quiet_time,
                            carried=True, elsewhere=elsewhere, beneath=beneath, taken_before=taken_before)
        st.settled, st.still, st.reference, st.occupied = True, 0, small, st.seen_occupied
        return change

    def _visible_change(self, zid: str, small: np.ndarray, reference: np.ndarray,
                        hand_mask: np.ndarray) -> float | None:
        """The share of a zone's part clear of hands (their cells and one round them) that
        differs from its last settled view by more than ``visible_diff``; None when less than
        ``visible_min`` of it shows."""
        cells = cv2.dilate(hand_mask[self._zone_cells[zid]], np.ones((3, 3), np.uint8))
        if cells.size == 0:
            return None
        visible = cv2.resize(cells, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST) == 0
        if visible.mean() < self.s.visible_min:
            return None
        return float(np.mean(np.abs(small - reference)[visible] > self.s.visible_diff))

    def _occupancy(self, zid: str, vgrey: np.ndarray) -> float:
        """How unlike the printed mat the zone's middle is: 1 - the normalised correlation of
        the printed label (the zone's number) with what the camera sees there. An empty zone
        shows its label (near 0); a card hides it (near 1). Independent of light level and
        colour, which a blown-out camera loses."""
        sl = self._label[zid]
        a = vgrey[sl].astype(np.float32)
        b = self._art_grey_full[sl]
        ncc = float(cv2.matchTemplate(a, b, cv2.TM_CCOEFF_NORMED)[0, 0])
        return 1.0 - ncc

    def _covered(self, part: np.ndarray, merged: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Zones a hand covers: its centre (for one of two arms that met, also a fifth of the
        zone: both hands may lie on one pile, only one of them over its centre); and the zones
        it touches: their centre or a fifth of them."""
        c = self._cell
        hh, ww = self._out_h // c, self._out_w // c
        covers, touches = [], []
        for z in self.zone_ids:
            cx, cy = self._centre_px[z]
            ys, xs = self._zone_cells[z]
            area = (ys.stop - ys.start) * (xs.stop - xs.start)
            part_of = np.count_nonzero(part[ys, xs]) >= PART_COVERED * area
            if part[min(cy, hh - 1), min(cx, ww - 1)] or (merged and part_of):
                covers.append(z)
                touches.append(z)
            elif part_of:
                touches.append(z)
        return tuple(covers), tuple(touches)

    def _hands(self, fine: np.ndarray) -> tuple[list[HandBlob], np.ndarray]:
        c = self._cell
        hh, ww = self._out_h // c, self._out_w // c
        cells = cv2.resize(fine, (ww, hh), interpolation=cv2.INTER_AREA)
        if self._bg is None:
            self._bg = cells.copy()
            self._prev_cells = cells
            self._still_cells = np.zeros((hh, ww), np.int16)
            mask: np.ndarray = np.zeros((hh, ww), np.uint8)
            self.last_mask = mask
            self._active_mask = mask
            return [], mask
        assert self._prev_cells is not None and self._still_cells is not None
        step = _channel_max(cv2.absdiff(cells, self._prev_cells))
        self._prev_cells = cells
        still = step < 8
        self._still_cells = np.where(still, np.minimum(self._still_cells + 1, 1000), 0).astype(np.int16)
        diff = _channel_max(cv2.absdiff(cells, self._bg))
        fg = (diff > self.s.hand_diff) & self._cells_valid
        weak = (diff > self.s.hand_diff_beyond) & self._beyond_edges & ~fg
        if weak.any():  # hysteresis: the weak cells that join a foreground cell
            n_parts, part = cv2.connectedComponents((fg | weak).view(np.uint8), connectivity=8)
            holds_fg = np.zeros(n_parts, bool)
            holds_fg[part[fg]] = True
            holds_fg[0] = False  # the background label
            fg = holds_fg[part]
        mask = fg.astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        s, m = self.s.px_per_mm, self.s.margin_mm
        cell_mm = c / s
        w_mm, h_mm = self.cal.layout.size_mm
        hands: list[HandBlob] = []
        arms = {Player.A: np.zeros(mask.shape, bool), Player.B: np.zeros(mask.shape, bool)}
        reached: set[Player] = set()
        carried: set[Player] = set()
        keep = np.zeros_like(mask)
        active = np.zeros_like(mask)
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            area_mm2 = area * cell_mm * cell_mm
            if area_mm2 < self.s.hand_min_mm2:
                continue
            y0_mm = y * cell_mm - m
            y1_mm = (y + bh) * cell_mm - m
            x0_mm = x * cell_mm - m
            x1_mm = (x + bw) * cell_mm - m
            # an arm comes in from beyond the mat's edge; a card lying near the edge does not.
            # Where the camera's view ends short of the edge, an arm comes in from that end, and
            # is larger than a card (slap-eval and race-eval seed 6102: the view ended 12 mm
            # short of A's edge, A's arm was seen only when it joined B's, and then as B's)
            blob = labels == i
            at_end_a = self._view_ends_by[Player.A][blob].any()
            at_end_b = self._view_ends_by[Player.B][blob].any()
            from_bottom = y1_mm >= h_mm + ARM_BEYOND_MM or (at_end_a and area_mm2 >= VIEW_END_ARM_MM2)
            from_top = y0_mm <= -ARM_BEYOND_MM or (at_end_b and area_mm2 >= VIEW_END_ARM_MM2)
            # an arm that reaches the other player's edge (or the view's end there) is the other
            # player's arm joined to it, seen only from the edge in (slap-eval seed 6005: B's
            # dark sleeve on the dark floor beyond the mat did not differ from the background):
            # no one reaches that far
            from_top = from_top or (from_bottom and (y0_mm <= FAR_EDGE_MM or at_end_b))
            from_bottom = from_bottom or (from_top and (y1_mm >= h_mm - FAR_EDGE_MM or at_end_a))
            if not (from_bottom or from_top):
                owner = self._arm_carried_on(blob, area_mm2)
                if owner is None:
                    continue  # a blob that does not reach in from a side: a card moved by the
                    # light, or a change that the background has not absorbed yet
                from_bottom, from_top = owner is Player.A, owner is Player.B
                carried.add(owner)
            else:
                reached.update(p for p, reach in ((Player.A, from_bottom), (Player.B, from_top)) if reach)
            keep[blob] = 1
            if np.mean(self._still_cells[blob] >= self.s.resting_frames) < 0.8:
                active[blob] = 1
            # a blob that reaches in from both sides is two arms that met (a touch race, a slap
            # on the same pile): split between the players by which edge each cell is nearer to
            # along the blob
            players = [p for p, reach in ((Player.A, from_bottom), (Player.B, from_top)) if reach]
            parts = _split_arms(blob) if len(players) == 2 else {players[0]: blob}
            for player, part in parts.items():
                ys, xs = np.nonzero(part)
                if not len(ys):
                    continue
                arms[player] |= part
                j = int(np.argmin(ys)) if player is Player.A else int(np.argmax(ys))
                tip = (float(self._mat_x_cells[xs[j]]), float(self._mat_y_cells[ys[j]]))
                edge_y = ys.max() if player is Player.A else ys.min()
                base = (float(self._mat_x_cells[int(np.median(xs[ys == edge_y]))]),
                        float(self._mat_y_cells[edge_y]))
                covered, touches = self._covered(part, merged=len(players) > 1)
                hands.append(HandBlob(player, float(len(ys)) * cell_mm * cell_mm,
                                      (x0_mm, y0_mm, x1_mm, y1_mm), tip, covered, merged=len(players) > 1,
                                      touches=touches, base_mm=base))
        # the background follows cells that have been still a while and are not under a hand
        # and anything perfectly still for long (a card turned under a hand that has left: no
        # ghost hand stays behind)
        upd = ((self._still_cells >= self.s.background_still) & (keep == 0)) \
            | (self._still_cells >= self.s.background_absorb)
        cv2.copyTo(cells, upd.view(np.uint8), self._bg)  # in place, as self._bg[upd] = cells[upd]
        for player in arms:
            self._arm_carried[player] = 0 if player in reached else (
                self._arm_carried[player] + 1 if player in carried else 0)
        self._last_arms = arms
        self.last_mask = keep
        self._active_mask = active
        return hands, keep


    def _arm_carried_on(self, blob: np.ndarray, area_mm2: float) -> Player | None:
        """The player whose arm a blob reaching in from no side still is (``hand_carry_frames``):
        arm-sized, lying mostly where that player's arm lay in the last frame, and not where the
        other's did, and alive: some of it moved since the last frame (``hand_carry_moving``).
        What a hand leaves behind does not move: fixture round-end, where A took pile 1, the
        mat where the pile had lain differed from the background like a hand (7225 mm^2, 0-1 %
        of it moving); carried on, it joined B's arm and was never let into the background,
        and the next deal was lost (game 5080's arm: 28 % moving)."""
        if area_mm2 < VIEW_END_ARM_MM2 or not self._last_arms:
            return None
        assert self._still_cells is not None
        if np.mean(self._still_cells[blob] == 0) < self.s.hand_carry_moving:
            return None
        size = np.count_nonzero(blob)
        under = {p: np.count_nonzero(blob & arm) for p, arm in self._last_arms.items()}
        owners = [p for p, n in under.items() if n >= self.s.hand_carry_share * size]
        if len(owners) != 1 or any(under[p] for p in under if p is not owners[0]) \
                or self._arm_carried[owners[0]] >= self.s.hand_carry_frames:
            return None
        return owners[0]

    def _follow_strays(self, idx: int, time: float) -> tuple[StrayChange, ...]:
        """Cards at rest outside every zone: where the settled background (``_hands``) now
        differs from the mat as it was first seen clear there. A stray is announced once seen
        ``stray_frames`` looks in a row (one every ``stray_every`` frames), and again as gone once
        missing as long."""
        if self._bg is None or self._still_cells is None or self.last_mask is None:
            return ()
        bg = self._bg.astype(np.float32)
        if self._clean is None:
            self._clean = bg.copy()
        clear = (self._still_cells >= self.s.background_still) & (self.last_mask == 0) & self._outside
        first = clear & ~self._clean_set
        if first.any():
            np.copyto(self._clean, bg, where=first[..., None])
            self._clean_set |= first
        delta = bg - self._clean
        diff = _channel_max(cv2.absdiff(bg, self._clean))
        # the mat itself drifts slowly (light): follow it where it is close to what it was
        near = clear & (diff <= self.s.stray_diff / 2)
        self._clean += 0.1 * delta * near[..., None]
        fg = (diff > self.s.stray_diff) & self._clean_set
        if np.count_nonzero(fg) > 0.3 * max(1, int(np.count_nonzero(self._clean_set))):
            log.info("frame %d: the mat outside the zones changed all over (light?): learnt again", idx)
            self._clean_set[:] = False
            fg[:] = False
        mask = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        # a white card on a light mat differs most along its edge and print: fill what its
        # outline encloses
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cell_mm = self._cell / self.s.px_per_mm
        m = self.s.margin_mm
        # what touches a hand may be the hand: a hand resting outside the zones differs from the
        # mat by less than a hand must where its skin is close to the mat's colour, and those
        # cells pass into the background (race-eval seed 6005: B's resting hand beside pile 2,
        # 112 x 27 mm, taken for B's card put outside the zones, F_SIXTH_PILE). Such a blob is
        # not looked at until the hand has gone; one already seen is neither seen nor missed.
        by_hand = cv2.dilate(self.last_mask, np.ones((3, 3), np.uint8)) if self.last_mask.any() else None
        found: list[tuple[tuple[float, float, float, float], float, bool]] = []
        for contour in contours:
            x, y, bw, bh = cv2.boundingRect(contour)
            area_mm2 = max(cv2.contourArea(contour), 1.0) * cell_mm * cell_mm
            if self._stray_area[0] <= area_mm2 <= self._stray_area[1]:
                x0, y0 = x * cell_mm - m, y * cell_mm - m
                touching = by_hand is not None and bool(by_hand[y:y + bh, x:x + bw][
                    mask[y:y + bh, x:x + bw] > 0].any())
                found.append(((x0, y0, x0 + bw * cell_mm, y0 + bh * cell_mm), area_mm2, touching))
        out: list[StrayChange] = []
        matched: set[int] = set()
        for bbox, area_mm2, touching in found:
            cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
            st = next((st for st in self._strays if id(st) not in matched
                       and st.bbox_mm[0] <= cx <= st.bbox_mm[2]
                       and st.bbox_mm[1] <= cy <= st.bbox_mm[3]), None)
            if touching:
                if st is not None:
                    matched.add(id(st))
                continue
            if st is None:
                st = _Stray(self._next_stray, bbox, area_mm2, (idx, time))
                self._next_stray += 1
                self._strays.append(st)
            else:
                st.bbox_mm, st.area_mm2, st.seen, st.missing = bbox, area_mm2, st.seen + 1, 0
            matched.add(id(st))
            if not st.announced and st.seen >= self.s.stray_frames:
                st.announced = True
                # it came to rest about ``background_still`` frames before the background took it
                quiet = st.first[1] - (self.s.background_still + self.s.stray_every / 2) * self._frame_dt
                out.append(StrayChange(st.stray, True, idx, time, bbox, area_mm2, quiet))
        for st in list(self._strays):
            if id(st) in matched:
                continue
            st.missing += 1
            st.seen = 0 if not st.announced else st.seen
            if st.missing >= self.s.stray_frames:
                self._strays.remove(st)
                if st.announced:
                    frames = st.missing * self.s.stray_every + self.s.background_still
                    quiet = time - frames * self._frame_dt
                    out.append(StrayChange(st.stray, False, idx, time, st.bbox_mm, st.area_mm2, quiet))
        return tuple(out)


def _channel_max(image: np.ndarray) -> np.ndarray:
    """The largest of a 3-channel image's channels, per pixel (``image.max(axis=2)``, which
    numpy does some 40 times slower on small pictures)."""
    b, g, r = cv2.split(image)
    return cv2.max(cv2.max(b, g), r)


def _mean_absdiff(a: np.ndarray, b: np.ndarray) -> float:
    """The mean absolute difference of two pictures of one type and size."""
    return float(cv2.mean(cv2.absdiff(a, b))[0])


def _split_arms(blob: np.ndarray) -> dict[Player, np.ndarray]:
    """Two arms in one blob (``blob``: bool cells reaching both the top and bottom rows it
    touches): grow a region from each end along the blob, one cell ring per step; each cell
    goes to the arm that reaches it first (A from the bottom, B from the top)."""
    mask = blob.astype(np.uint8)
    rows = np.flatnonzero(mask.any(axis=1))
    a = np.zeros_like(mask)
    b = np.zeros_like(mask)
    a[rows[-1]] = mask[rows[-1]]
    b[rows[0]] = mask[rows[0]]
    kernel = np.ones((3, 3), np.uint8)
    free = mask & ~(a | b)
    for _ in range(mask.shape[0] + mask.shape[1]):
        grow_a = cv2.dilate(a, kernel) & free
        grow_b = cv2.dilate(b, kernel) & free & ~grow_a
        if not grow_a.any() and not grow_b.any():
            break
        a |= grow_a
        b |= grow_b
        free &= ~(grow_a | grow_b)
    return {Player.A: a.astype(bool), Player.B: b.astype(bool)}
