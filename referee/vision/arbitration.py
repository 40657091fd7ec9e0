"""Arbitration evidence from video: who touched a spit pile first (P8), whose hand slapped first (E2).

Two kinds of evidence, as DESIGN.md ("Arbitration") asks, each with its own uncertainty:

1. **Trajectories.** :func:`track_card` follows a card through a short history of rectified
   top-down views (:meth:`ZoneTracker.rectified <referee.vision.tracking.ZoneTracker.rectified>`,
   1.5 px/mm) by normalised cross-correlation of its face (cut from its stock slot before it
   was picked up, :func:`slot_template`) over shifts and small rotations: its centre in mat mm
   per frame with a score. :func:`estimate_contact` fits a minimum-jerk carry to that track
   (human reaching movements are close to minimum jerk; the simulator's are exactly) and
   solves for the instant the card reaches the pile: a sub-frame time with a standard
   deviation (:class:`ContactEstimate`). Seen from overhead, the touch itself leaves no mark
   in the horizontal path (the card lands still sliding and slides on for 40-90 ms), so the
   touch is placed a calibrated lead before the fitted end of the carry; docs/arbitration.md
   has the calibration and its held-out check.
2. **Layering.** :func:`card_layering`: after a race the card that touched first lies
   underneath. Where the two cards' final outlines overlap (or, without both outlines, on
   the pile as a whole) the settled view shows the face of the card on top; block-wise
   colour correlation with each card's face says which one.

:func:`decide_first_touch` combines both into an :class:`Arbitration`: the first player (or
None), a confidence, whether the two kinds of evidence agree, and a reason a person can read.
When they disagree, or both are weak, ``first`` is None and the reason says why.

:func:`arbitrate_race` does all of it for two cards racing to one pile.

Slaps (E2): :func:`hand_tracks` splits the hands over a pile between the players (a
watershed grown from where each arm crosses its player's edge of the mat, carried from view
to view) and follows each player's arm where it crosses their edge; :func:`estimate_slap_contact`
finds when the arm came to rest (a slapping hand stops dead when its palm lands, and its arm
with it), :func:`hand_layering` which hand lost visible area to the other (the later hand
lands on top; each hand told by its own colour, learnt where the hands lay apart), and
:func:`decide_slap` calls the order from the stops and the layering like
:func:`decide_first_touch`, the layering counting less (:data:`SLAP_DECISION`);
:func:`arbitrate_slap` does all of it.

Pure numpy and OpenCV; every function works on the views it is given (no state).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from referee.players import Player
from referee.vision.mat import Zone

if TYPE_CHECKING:
    from referee.vision.layering_reader import LayeringReader

log = logging.getLogger(__name__)

CARD_MM = (63.0, 88.0)


# ----------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class ViewGeometry:
    """How a rectified view's pixels map to mat mm: pixel centre ``u`` is at
    ``(u + 0.5) / px_per_mm - margin_mm`` (the layout of :class:`ZoneTracker`'s view)."""

    px_per_mm: float = 1.5
    margin_mm: float = 40.0
    mat_mm: tuple[float, float] = (594.0, 420.0)  # the mat's width and height (A's edge at y = height)

    def __post_init__(self) -> None:
        if not (self.px_per_mm > 0 and math.isfinite(self.px_per_mm)):
            raise ValueError(f"px_per_mm must be positive, got {self.px_per_mm}")
        if not (self.margin_mm >= 0 and math.isfinite(self.margin_mm)):
            raise ValueError(f"margin_mm must be >= 0, got {self.margin_mm}")

    @classmethod
    def of(cls, tracker: object) -> ViewGeometry:
        """The geometry of a :class:`~referee.vision.tracking.ZoneTracker`'s views."""
        s = getattr(tracker, "s", None)
        cal = getattr(tracker, "cal", None)
        if s is None or cal is None:
            raise ValueError("expected a ZoneTracker (with settings .s and calibration .cal)")
        w, h = cal.layout.size_mm
        return cls(float(s.px_per_mm), float(s.margin_mm), (float(w), float(h)))

    def to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        s, m = self.px_per_mm, self.margin_mm
        return (x_mm + m) * s - 0.5, (y_mm + m) * s - 0.5

    def to_mm(self, u: float, v: float) -> tuple[float, float]:
        s, m = self.px_per_mm, self.margin_mm
        return (u + 0.5) / s - m, (v + 0.5) / s - m


@dataclass(frozen=True)
class CardPose:
    """A card's centre in mat mm and its angle (0: upright for A, 180: upright for B)."""

    x: float
    y: float
    angle_deg: float = 0.0

    def corners(self, card_mm: tuple[float, float] = CARD_MM) -> np.ndarray:
        """(4, 2) corners in mat mm: the card's own top-left, top-right, bottom-right, bottom-left."""
        w, h = card_mm
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(local @ rot.T + np.array([self.x, self.y]))


def _grey(image: np.ndarray) -> np.ndarray:
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image.astype(np.float32, copy=False)


def _patch(view: np.ndarray, geo: ViewGeometry, pose: CardPose, size_mm: tuple[float, float],
           px_per_mm: float) -> np.ndarray:
    """The ``size_mm`` rectangle centred on ``pose``, turned so that the pose's angle is
    upright, resampled at ``px_per_mm`` (bilinear; replicated border)."""
    w_mm, h_mm = size_mm
    ow, oh = max(1, int(round(w_mm * px_per_mm))), max(1, int(round(h_mm * px_per_mm)))
    s = geo.px_per_mm
    k = s / px_per_mm
    a = math.radians(pose.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    u0, v0 = geo.to_px(pose.x, pose.y)
    ox, oy = (0.5 / px_per_mm - w_mm / 2) * s, (0.5 / px_per_mm - h_mm / 2) * s
    m = np.array([[ca * k, -sa * k, u0 + ca * ox - sa * oy],
                  [sa * k, ca * k, v0 + sa * ox + ca * oy]], np.float64)
    return cv2.warpAffine(view, m, (ow, oh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _check_views(views: Sequence[np.ndarray], times: Sequence[float] | np.ndarray) -> np.ndarray:
    if len(views) == 0:
        raise ValueError("no views: arbitration needs at least one rectified view")
    t = np.asarray(times, np.float64).reshape(-1)
    if len(t) != len(views):
        raise ValueError(f"{len(views)} views but {len(t)} times: give one time per view")
    if not np.isfinite(t).all():
        raise ValueError("times must be finite")
    if len(t) > 1 and not (np.diff(t) > 0).all():
        raise ValueError("times must increase from view to view")
    shape = views[0].shape
    for i, v in enumerate(views):
        if not isinstance(v, np.ndarray) or v.ndim not in (2, 3) or v.shape != shape:
            got = getattr(v, "shape", type(v).__name__)
            raise ValueError(f"view {i}: expected an array shaped like view 0 {shape}, got {got}")
    return t


# ----------------------------------------------------------------------------- card templates


@dataclass(frozen=True, eq=False)
class CardTemplate:
    """A card's face as the camera saw it at rest: the inner part of the card (``inset_mm``
    inside its edges, so that no table shows), upright in the card's own frame: grey (for
    following it) and in colour (for telling it from a look-alike in the layering)."""

    image: np.ndarray  # float32 (h, w) at px_per_mm, grey
    px_per_mm: float
    pose: CardPose  # where it was cut (mat mm)
    inset_mm: float
    player: Player | None = None
    label: str = ""
    colour: np.ndarray | None = None  # float32 (h, w, 3) BGR, the same pixels

    def __post_init__(self) -> None:
        if self.image.ndim != 2 or min(self.image.shape) < 8:
            raise ValueError(f"template image must be 2-D and at least 8 px a side, got {self.image.shape}")
        if self.colour is not None and self.colour.shape[:2] != self.image.shape:
            raise ValueError(f"template colour {self.colour.shape} does not match its grey image "
                             f"{self.image.shape}")

    @property
    def size_mm(self) -> tuple[float, float]:
        h, w = self.image.shape
        return w / self.px_per_mm, h / self.px_per_mm

    def at(self, px_per_mm: float) -> np.ndarray:
        """The template resampled to ``px_per_mm``."""
        if abs(px_per_mm - self.px_per_mm) < 1e-9:
            return self.image
        w, h = self.size_mm
        size = (max(4, int(round(w * px_per_mm))), max(4, int(round(h * px_per_mm))))
        return cv2.resize(self.image, size, interpolation=cv2.INTER_AREA)


def card_template(view: np.ndarray, pose: CardPose, geometry: ViewGeometry | None = None, *,
                  player: Player | None = None, label: str = "", inset_mm: float = 4.0,
                  card_mm: tuple[float, float] = CARD_MM) -> CardTemplate:
    """Cut the card lying at ``pose`` out of a rectified view."""
    geo = geometry or ViewGeometry()
    size = (card_mm[0] - 2 * inset_mm, card_mm[1] - 2 * inset_mm)
    if min(size) <= 5:
        raise ValueError(f"inset_mm {inset_mm} leaves nothing of a {card_mm} card")
    cut = _patch(view, geo, pose, size, geo.px_per_mm)
    colour = cut.astype(np.float32) if cut.ndim == 3 else None
    return CardTemplate(_grey(cut), geo.px_per_mm, pose, inset_mm, player, label, colour)


def slot_template(view: np.ndarray, zone: Zone, geometry: ViewGeometry | None = None, *,
                  inset_mm: float = 5.0, label: str = "") -> CardTemplate:
    """The face-up card lying in a stock slot (at the slot's centre and angle, to within the
    ~1 mm a card lies off it; the inset keeps the table out). The player is the slot's owner."""
    pose = CardPose(float(zone.center[0]), float(zone.center[1]), float(zone.angle_deg))
    return card_template(view, pose, geometry, player=zone.owner, label=label or zone.id, inset_mm=inset_mm)


# ----------------------------------------------------------------------------- tracks


@dataclass(frozen=True, eq=False)
class CardTrack:
    """A card followed through views: per view its centre (mat mm), angle and match score;
    NaN where it was not found (covered, or out of the searched region)."""

    times: np.ndarray  # (n,) seconds
    centres_mm: np.ndarray  # (n, 2)
    angles_deg: np.ndarray  # (n,)
    scores: np.ndarray  # (n,) normalised correlation of the face at the found pose
    player: Player | None = None
    label: str = ""

    def __post_init__(self) -> None:
        t = np.asarray(self.times, np.float64).reshape(-1)
        c = np.asarray(self.centres_mm, np.float64)
        a = np.asarray(self.angles_deg, np.float64).reshape(-1)
        s = np.asarray(self.scores, np.float64).reshape(-1)
        if c.ndim != 2 or c.shape[1:] != (2,):
            raise ValueError(f"centres_mm must be (n, 2), got {c.shape}")
        if not (len(t) == len(c) == len(a) == len(s)):
            raise ValueError(f"track arrays differ in length: times {len(t)}, centres {len(c)}, "
                             f"angles {len(a)}, scores {len(s)}")
        if not np.isfinite(t).all() or (len(t) > 1 and not (np.diff(t) > 0).all()):
            raise ValueError("track times must be finite and increasing")
        for name, value in (("times", t), ("centres_mm", c), ("angles_deg", a), ("scores", s)):
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.times)

    @property
    def found(self) -> np.ndarray:
        return np.asarray(np.isfinite(self.scores) & np.isfinite(self.centres_mm).all(axis=1))

    @property
    def quality(self) -> float:
        """Median match score of the frames where the card was found, times the fraction
        found (0 when never found)."""
        ok = self.found
        if not ok.any():
            return 0.0
        return float(np.median(self.scores[ok]) * ok.mean())

    def last_found(self) -> int | None:
        idx = np.flatnonzero(self.found)
        return int(idx[-1]) if len(idx) else None


@dataclass(frozen=True)
class TrackSettings:
    coarse_px_per_mm: float = 0.5  # the search round the predicted position
    fine_px_per_mm: float = 1.0  # the refinement
    min_score: float = 0.4  # a match below this is "not found"
    drop_ratio: float = 0.55  # ... and so is one under this share of the last good matches (being covered)
    reacquire_score: float = 0.55  # after a miss, the card must match at least this well again
    search_mm: float = 24.0  # radius round the predicted centre
    lost_search_mm: float = 60.0  # radius after a miss
    target_search_mm: float = 70.0  # radius round ``toward`` when the card is looked for there
    max_misses: int = 4  # stop following after this many views in a row without the card
    angle_step_deg: float = 2.5  # refinement tries the angle and +- this
    max_turn_deg: float = 12.0  # the card's angle stays within this of the template's
    still_score: float = 0.97  # a card matching this share of its last score where it lay has not moved
    static_level: float = 5.0  # mean grey change from the start view under which a place is "old content"
    blur_from_mm: float = 8.0  # above this predicted move per view, also try a motion-blurred face ...
    sharp_enough: float = 0.7  # ... unless the sharp face already matches this well
    #: a lost card looked for on the whole mat (``CardFollow.refind``): at this scale, at its
    #: best places (each then looked at within ``refind_near_mm``, as after a miss), found
    #: only matching at least ``refind_score`` there (race-eval seed 6419 with the model: a hand
    #: at B's edge matched B's lost 8D at 0.56; game 5074's 9H, put down, 0.78 and more)
    refind_px_per_mm: float = 0.25
    refind_places: int = 3
    refind_near_mm: float = 8.0
    refind_score: float = 0.7
    #: a lost card not found so, a hand over part of it, is looked for on what the hands leave
    #: of the view (the tracker's hand cells, grown by ``hand_margin_cells``): at its best places
    #: (within ``refind_near_mm``, three angles) it must match at least ``refind_hidden_score``
    #: there, over at least ``refind_hidden_shown`` of its face, and show at least
    #: ``refind_hidden_face`` of its face (:func:`face_shown`); followed from there on what the
    #: hands leave too. Game 5934: B's 5C put at the mat's edge beyond B's slot 5 under B's
    #: hand for 0.6 s, matching 0.46 at best, 0.99 on what the hand left of it (a fifth to a
    #: third of it: the hand cells take in the card's edge and pips next to the hand), its face
    #: shown 0.33-0.67; game 5944: A's 8D, 0.70 and 0.54-0.62. Places on a hand's edge matched
    #: up to 0.88 so, their face shown 0.22 at most.
    refind_hidden_score: float = 0.65
    #: (a place is looked at so when it matches at least this on the whole mat's search, on
    #: what the hands leave: the cards found so in games 5607, 5676, 5934 and 5944 matched
    #: 0.56-0.93 there; half the places tried matched less, a search each 1.2 ms)
    refind_hidden_place: float = 0.5
    #: (and it must be found so in two views in a row, within this of each other: a card put
    #: down lies still; game 5878: B's 2C, lost under A's 2H on pile 1, was found so on B's arm
    #: beyond B's slot 2 at 0.69, its face 30 % shown, and followed into the slot: placed
    #: elsewhere, not beneath the 2H, and A's F_LOST_TOUCH given 1.5 s late)
    refind_hidden_still_mm: float = 2.0
    refind_hidden_shown: float = 0.2
    refind_hidden_face: float = 0.3
    hand_margin_cells: int = 1


def _rotate_search(view: np.ndarray, geo: ViewGeometry, centre: tuple[float, float], angle: float,
                   half_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    return _grey(_patch(view, geo, CardPose(centre[0], centre[1], angle), (2 * half_mm[0], 2 * half_mm[1]),
                        px_per_mm))


def _subpixel(score: np.ndarray, px: int, py: int) -> tuple[float, float]:
    dx = dy = 0.0
    h, w = score.shape
    if 0 < px < w - 1:
        a, b, c = score[py, px - 1], score[py, px], score[py, px + 1]
        den = a - 2 * b + c
        if den < 0:
            dx = float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))
    if 0 < py < h - 1:
        a, b, c = score[py - 1, px], score[py, px], score[py + 1, px]
        den = a - 2 * b + c
        if den < 0:
            dy = float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))
    return px + dx, py + dy


def _peak(score: np.ndarray) -> tuple[float, float, float]:
    """Best position with a parabolic sub-pixel fit: (x, y, value)."""
    _, mx, _, (px, py) = cv2.minMaxLoc(score)
    x, y = _subpixel(score, px, py)
    return x, y, float(mx)


def _suppress(score: np.ndarray, px: float, py: float, px_per_mm: float) -> None:
    """Rule out a peak of a match score map (8 mm round it), so that the next best is found."""
    r = max(2, int(round(8.0 * px_per_mm)))
    ix, iy = int(round(px)), int(round(py))
    score[max(0, iy - r): iy + r + 1, max(0, ix - r): ix + r + 1] = -1.0


def _to_mat(px: float, py: float, tmpl_shape: tuple[int, ...], s: float, half: tuple[float, float],
            centre: tuple[float, float], angle: float) -> tuple[float, float]:
    """A template position in a search region (top-left, region pixels) -> the template's
    centre in mat mm."""
    th, tw = tmpl_shape[:2]
    lx = (px + tw / 2) / s - half[0]
    ly = (py + th / 2) / s - half[1]
    a = math.radians(angle)
    return (centre[0] + math.cos(a) * lx - math.sin(a) * ly,
            centre[1] + math.sin(a) * lx + math.cos(a) * ly)


def _match(view: np.ndarray, geo: ViewGeometry, tmpl: np.ndarray, s: float, centre: tuple[float, float],
           angle: float, radius_mm: float) -> tuple[float, float, float]:
    """Search ``tmpl`` (card frame, ``s`` px/mm) within ``radius_mm`` of ``centre`` with the
    card at ``angle``: (x_mm, y_mm, score)."""
    th, tw = tmpl.shape
    half = (tw / s / 2 + radius_mm, th / s / 2 + radius_mm)
    region = _rotate_search(view, geo, centre, angle, half, s)
    if region.shape[0] < th or region.shape[1] < tw:
        return centre[0], centre[1], -1.0
    score = cv2.matchTemplate(region, tmpl, cv2.TM_CCOEFF_NORMED)
    px, py, value = _peak(score)
    x, y = _to_mat(px, py, tmpl.shape, s, half, centre, angle)
    return x, y, value


def _masked_ncc(region: np.ndarray, valid: np.ndarray, tmpl: np.ndarray, min_shown: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Normalised cross-correlation of ``tmpl`` at each place of ``region`` (as
    ``TM_CCOEFF_NORMED``) over the pixels ``valid`` (non-zero) leaves, and the share of the
    template they leave there; -1 where that share is under ``min_shown`` or either side is flat."""
    t = tmpl.astype(np.float32)
    m = (valid > 0).astype(np.float32)
    mi = m * region.astype(np.float32)
    ones = np.ones_like(t)

    def corr(a: np.ndarray, k: np.ndarray) -> np.ndarray:
        return cv2.matchTemplate(a, k, cv2.TM_CCORR)

    n = corr(m, ones)
    n_safe = np.maximum(n, 1.0)
    s_t, s_i = corr(m, t), corr(mi, ones)
    var_t = corr(m, t * t) - s_t * s_t / n_safe
    var_i = corr(mi * region.astype(np.float32), ones) - s_i * s_i / n_safe
    den = np.sqrt(np.maximum(var_t, 0.0) * np.maximum(var_i, 0.0))
    shown = n / float(t.size)
    ok = (shown >= min_shown) & (var_t > n_safe) & (var_i > n_safe)  # (a grey level's variance over 1)
    score = np.where(ok, (corr(mi, t) - s_t * s_i / n_safe) / np.maximum(den, 1e-6), -1.0)
    return score.astype(np.float32), shown


def _line_blur(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``img`` smeared along (dx, dy) pixels (a box along the line: linear motion blur)."""
    n = int(math.ceil(max(abs(dx), abs(dy)))) + 1
    if n <= 1:
        return img
    k = np.zeros((2 * n + 1, 2 * n + 1), np.float32)
    for f in np.linspace(-0.5, 0.5, 4 * n + 1):
        k[int(round(n + f * dy)), int(round(n + f * dx))] += 1.0
    return cv2.filter2D(img, -1, k / k.sum(), borderType=cv2.BORDER_REPLICATE)


@dataclass
class _Run:
    """One direction of following: the views where the card was found, and the misses since."""

    hist: list[int]
    misses: int = 0
    hidden: bool = False  # matched on what the hands leave of each view (found so by ``refind``)


class _Follower:
    """The state of one following of a card (:func:`track_card`, :class:`CardFollow`)."""

    def __init__(self, views: Sequence[np.ndarray], t: np.ndarray, template: CardTemplate, geo: ViewGeometry,
                 st: TrackSettings, start: int) -> None:
        self.views, self.t, self.template, self.geo, self.st = list(views), t, template, geo, st
        self.start = start
        n = len(views)
        self.centres = np.full((n, 2), np.nan)
        self.angles = np.full(n, np.nan)
        self.scores = np.full(n, np.nan)
        self.coarse = template.at(st.coarse_px_per_mm)
        self.fine = template.at(st.fine_px_per_mm)
        self.a0 = template.pose.angle_deg
        #: each view's hands (any grid over the view's whole area, non-zero on a hand; None:
        #: not known), and what they leave of it in the view's pixels, made when needed
        self.hands: list[np.ndarray | None] = [None] * n
        self._left: dict[int, tuple[np.ndarray, ViewGeometry] | None] = {}
        #: (view, x, y) where the card was last found on what the hands leave, not yet seen still
        self._hidden_candidate: tuple[int, float, float] | None = None

    def grow(self, view: np.ndarray, t: float, hands: np.ndarray | None = None) -> None:
        """One more view at the end, not yet searched (``hands``: its hands, as ``self.hands``)."""
        self.views.append(view)
        self.hands.append(hands)
        self.t = np.append(self.t, t)
        self.centres = np.vstack([self.centres, np.full((1, 2), np.nan)])
        self.angles = np.append(self.angles, np.nan)
        self.scores = np.append(self.scores, np.nan)

    def copy(self, before: Sequence[np.ndarray] = (), before_t: np.ndarray | None = None) -> _Follower:
        """An independent copy (the views are shared, not copied), with ``before`` (views
        earlier than all of these, not yet searched) put in front."""
        m = len(before)
        f = _Follower.__new__(_Follower)
        f.__dict__.update(self.__dict__)
        f.views = list(before) + self.views
        f.t = np.concatenate([np.zeros(0) if before_t is None else before_t, self.t])
        f.centres = np.vstack([np.full((m, 2), np.nan), self.centres])
        f.angles = np.concatenate([np.full(m, np.nan), self.angles])
        f.scores = np.concatenate([np.full(m, np.nan), self.scores])
        unknown: list[np.ndarray | None] = [None] * m
        f.hands = unknown + self.hands
        f._left, f._hidden_candidate = {}, None
        f.start = self.start + m
        return f

    def left_by_hands(self, i: int) -> tuple[np.ndarray, ViewGeometry] | None:
        """Where view ``i`` shows no hand (255; 0 on a hand or within ``hand_margin_cells`` of
        one), on the hands' own grid, and that grid's geometry (the view's, at its scale); None
        when its hands are not known or it shows none."""
        if i not in self._left:
            cells, left = self.hands[i], None
            if cells is not None and cells.any():
                k = 2 * self.st.hand_margin_cells + 1
                hand = cv2.dilate((cells > 0).astype(np.uint8), np.ones((k, k), np.uint8))
                scale = cells.shape[1] / self.views[i].shape[1]
                left = (np.where(hand > 0, 0, 255).astype(np.uint8),
                        replace(self.geo, px_per_mm=self.geo.px_per_mm * scale))
            self._left[i] = left
        return self._left[i]

    def _hidden_match(self, i: int, tmpl: np.ndarray, s: float, centre: tuple[float, float], angle: float,
                      radius: float) -> tuple[float, float, float, float]:
        """The best place of ``tmpl`` (``s`` px/mm, the card at ``angle``) within ``radius`` mm
        of ``centre`` in view ``i``, matched on what the hands leave: (x_mm, y_mm, score, angle)."""
        th, tw = tmpl.shape
        half = (tw / s / 2 + radius, th / s / 2 + radius)
        region = _rotate_search(self.views[i], self.geo, centre, angle, half, s)
        if region.shape[0] < th or region.shape[1] < tw:
            return centre[0], centre[1], -1.0, angle
        left = self.left_by_hands(i)
        if left is None:
            score = cv2.matchTemplate(region, tmpl, cv2.TM_CCOEFF_NORMED)
        else:
            pose = CardPose(centre[0], centre[1], angle)
            valid = _patch(left[0], left[1], pose, (2 * half[0], 2 * half[1]), s) >= 128
            score, _ = _masked_ncc(region, valid, tmpl, self.st.refind_hidden_shown)
        px, py, value = _peak(score)
        x, y = _to_mat(px, py, tmpl.shape, s, half, centre, angle)
        return x, y, value, angle

    def _hidden_find(self, i: int, around: tuple[float, float], radius: float, angle: float,
                     turns: tuple[float, ...]) -> float:
        """The card looked for within ``radius`` of ``around`` in view ``i`` on what the hands
        leave (at ``angle`` turned by each of ``turns``, then refined at the view's scale over
        three angles); its pose written into row ``i``; the score (-1: nowhere)."""
        st = self.st
        c, f = st.coarse_px_per_mm, st.fine_px_per_mm
        x, y, sc, a = max((self._hidden_match(i, self.coarse, c, around, angle + d, radius) for d in turns),
                          key=lambda r: r[2])
        if sc < st.min_score:
            return -1.0
        x, y, sc, a = max((self._hidden_match(i, self.fine, f, (x, y), a + d, 3.0 / f + 1.0)
                           for d in (-st.angle_step_deg, 0.0, st.angle_step_deg)), key=lambda r: r[2])
        self.centres[i], self.angles[i] = (x, y), a
        return sc

    def _shown_here(self, i: int) -> float:
        """The share of the card's face view ``i`` shows where row ``i`` places it (:func:`face_shown`)."""
        pose = CardPose(float(self.centres[i, 0]), float(self.centres[i, 1]), float(self.angles[i]))
        return face_shown(self.views[i], self.template, pose, self.geo)[2]

    # a candidate place that shows what the start view showed there is old content (another
    # card that looks alike, lying still), not the card being followed - unless it is where
    # the card itself lay in the start view
    def _static(self, i: int, x: float, y: float, angle: float) -> bool:
        if i == self.start:
            return False
        pose = self.template.pose
        if math.hypot(x - pose.x, y - pose.y) < 4.0:
            return False
        size = self.template.size_mm
        s = self.st.coarse_px_per_mm
        here = _grey(_patch(self.views[i], self.geo, CardPose(x, y, angle), size, s))
        then = _grey(_patch(self.views[self.start], self.geo, CardPose(x, y, angle), size, s))
        return float(np.mean(np.abs(here - then))) < self.st.static_level

    def _coarse(self, i: int, centre: tuple[float, float], angle: float, radius: float,
                motion: tuple[float, float]) -> tuple[float, float, float]:
        st = self.st
        s = st.coarse_px_per_mm
        th, tw = self.coarse.shape
        half = (tw / s / 2 + radius, th / s / 2 + radius)
        region = _rotate_search(self.views[i], self.geo, centre, angle, half, s)
        if region.shape[0] < th or region.shape[1] < tw:
            return centre[0], centre[1], -1.0
        score = cv2.matchTemplate(region, self.coarse, cv2.TM_CCOEFF_NORMED)
        step = math.hypot(*motion)
        if step > st.blur_from_mm and float(score.max()) < st.sharp_enough:
            a = math.radians(-angle)  # the motion in the card's frame, coarse pixels
            mx = (math.cos(a) * motion[0] - math.sin(a) * motion[1]) * s
            my = (math.sin(a) * motion[0] + math.cos(a) * motion[1]) * s
            for f in (0.35, 0.7):
                smeared = _line_blur(self.coarse, f * mx, f * my)
                score = np.maximum(score, cv2.matchTemplate(region, smeared, cv2.TM_CCOEFF_NORMED))
        for _try in range(3):
            px, py, value = _peak(score)
            x, y = _to_mat(px, py, self.coarse.shape, s, half, centre, angle)
            if math.hypot(x - centre[0], y - centre[1]) <= radius and not self._static(i, x, y, angle):
                return x, y, value
            _suppress(score, px, py, s)  # that place: take the next best
        return centre[0], centre[1], -1.0

    def _refine(self, i: int, centre: tuple[float, float], angle: float) -> float:
        """Refine the pose at the view's scale over three angles; write it into row ``i``."""
        st = self.st
        s = st.fine_px_per_mm
        radius = 3.0 / s + 1.0
        results = [_match(self.views[i], self.geo, self.fine, s, centre, angle + d, radius)
                   for d in (-st.angle_step_deg, 0.0, st.angle_step_deg)]
        vals = np.array([r[2] for r in results])
        k = int(np.argmax(vals))
        x, y, best = results[k]
        da = 0.0
        if k == 1:
            den = vals[0] - 2 * vals[1] + vals[2]
            if den < 0:
                da = float(np.clip(0.5 * (vals[0] - vals[2]) / den, -0.5, 0.5)) * st.angle_step_deg
        self.centres[i] = (x, y)
        self.angles[i] = angle + (k - 1) * st.angle_step_deg + da
        return float(best)

    def seed(self, i: int, centre: tuple[float, float], angle: float) -> float:
        sc = self._refine(i, centre, angle)
        self.scores[i] = sc
        return sc

    def can_visit(self, run: _Run, i: int) -> bool:
        """Whether ``run`` goes on to view ``i``: the card is not lost and the view has no match yet."""
        return run.misses < self.st.max_misses and not np.isfinite(self.scores[i])

    def visit(self, run: _Run, i: int) -> None:
        """Look for the card in view ``i``, next in ``run``'s direction: round the position
        predicted from the run's last two finds (constant velocity)."""
        st, t, c, hist = self.st, self.t, self.centres, run.hist
        last = hist[-1]
        p_last = c[last]
        v = (c[last] - c[hist[-2]]) / (t[last] - t[hist[-2]]) if len(hist) >= 2 else np.zeros(2)
        move = v * (t[i] - t[last])
        pred = p_last + move
        recent = sorted(float(self.scores[j]) for j in hist[-3:])[len(hist[-3:]) // 2]
        need = max(st.min_score, st.drop_ratio * recent, st.reacquire_score if run.misses else 0.0)
        angle = float(self.angles[last])
        if run.misses == 0 and float(np.hypot(*move)) < 1.0:
            # a card at rest: one match where it lay; if it is still there, done
            x, y, sc = _match(self.views[i], self.geo, self.fine, st.fine_px_per_mm,
                              (float(p_last[0]), float(p_last[1])), angle, 1.5)
            still = math.hypot(x - p_last[0], y - p_last[1]) < 0.5
            if sc >= max(need, st.still_score * recent) and still:
                c[i], self.angles[i], self.scores[i] = (x, y), angle, sc
                hist.append(i)
                return
        radius = (st.search_mm if run.misses == 0 else st.lost_search_mm) + 0.3 * float(np.hypot(*move))
        if run.hidden:
            sc = self._hidden_find(i, (float(pred[0]), float(pred[1])), radius, angle, (0.0,))
            ok = sc >= need and abs(_wrap(self.angles[i] - self.a0)) <= st.max_turn_deg
            if ok:
                self.scores[i] = sc
        else:
            x, y, sc = self._coarse(i, (float(pred[0]), float(pred[1])), angle, radius,
                                    (float(move[0]), float(move[1])))
            ok = sc >= need
            if ok:
                s_f = self._refine(i, (x, y), angle)
                turned = abs(_wrap(self.angles[i] - self.a0))
                ok = (s_f >= need or s_f >= 0.8 * sc) and turned <= st.max_turn_deg
                if ok:
                    self.scores[i] = max(s_f, sc) if s_f < need else s_f
        if not ok:
            c[i] = np.nan
            self.angles[i] = np.nan
            run.misses += 1
            return
        hist.append(i)
        run.misses = 0

    def follow(self, first: int, step: int) -> None:
        """From the found view ``first`` on, in direction ``step``, until the card is lost or
        a view already has it."""
        run = _Run([first])
        i = first + step
        while 0 <= i < len(self.views) and self.can_visit(run, i):
            self.visit(run, i)
            i += step

    def find(self, i: int, around: tuple[float, float], radius: float) -> bool:
        """Look for the card anywhere within ``radius`` of ``around`` in view ``i``."""
        best = (-1.0, 0.0, 0.0, 0.0)
        for d in (-6.0, 0.0, 6.0):
            angle = self.a0 + d
            x, y, sc = self._coarse(i, around, angle, radius, (0.0, 0.0))
            if sc > best[0]:
                best = (sc, x, y, angle)
        sc, x, y, angle = best
        if sc < self.st.reacquire_score:
            return False
        return self.seed(i, (x, y), angle) >= self.st.reacquire_score

    def at_start(self, i: int) -> bool:
        """Whether view ``i`` shows the card where it lay in the start view (its template's pose)."""
        pose, st = self.template.pose, self.st
        _, _, sc = _match(self.views[i], self.geo, self.fine, st.fine_px_per_mm, (pose.x, pose.y),
                          pose.angle_deg, 1.5)
        return sc >= st.reacquire_score

    def _whole_mat(self, i: int, allowed: np.ndarray | None, hidden: bool
                   ) -> tuple[np.ndarray, float, tuple[float, float], tuple[float, float]]:
        """The card's match over the whole mat in view ``i`` at ``refind_px_per_mm`` and its
        first angle (with ``hidden`` and a hand in the view, on what the hands leave, only where
        they cover part of it), -1 where ``allowed`` rules its centre out: (scores, px/mm, half,
        centre)."""
        st, geo = self.st, self.geo
        s = st.refind_px_per_mm
        tmpl = self.template.at(s)
        th, tw = tmpl.shape
        w, h = geo.mat_mm
        centre = (w / 2, h / 2)
        half = (w / 2 + geo.margin_mm, h / 2 + geo.margin_mm)
        region = _rotate_search(self.views[i], geo, centre, self.a0, half, s)
        pose = CardPose(*centre, self.a0)
        left = self.left_by_hands(i) if hidden else None
        if left is None:
            score = cv2.matchTemplate(region, tmpl, cv2.TM_CCOEFF_NORMED)
        else:
            valid = _patch(left[0], left[1], pose, (2 * half[0], 2 * half[1]), s) >= 128
            score, shown = _masked_ncc(region, valid, tmpl, st.refind_hidden_shown)
            score[shown > 0.95] = -1.0  # no hand over it there: the plain search looked
        if allowed is not None:
            mask = _patch(allowed, geo, pose, (2 * half[0], 2 * half[1]), s)
            score[mask[th // 2: th // 2 + score.shape[0], tw // 2: tw // 2 + score.shape[1]] < 128] = -1.0
        return score, s, half, centre

    def refind(self, i: int, allowed: np.ndarray | None) -> bool | str:
        """Look for the card anywhere on the mat in view ``i``, its centre where ``allowed`` (a
        mask in the views' pixels, non-zero where the card may lie; None: anywhere) admits, not
        on old content (:meth:`_static`): the whole mat at ``refind_px_per_mm`` at the card's
        first angle, then its best places (``refind_places``) looked at as :meth:`find` does;
        when found (``refind_score``), seed it there (True). Not found so, the same on what the
        view's hands leave of it, where they cover part of it (``refind_hidden_score``): "hidden"."""
        st = self.st
        tmpl_shape = self.template.at(st.refind_px_per_mm).shape
        for hidden in (False, True):
            if hidden and self.left_by_hands(i) is None:
                break  # no hand in the view: nothing hidden
            score, s, half, centre = self._whole_mat(i, allowed, hidden)
            for _try in range(st.refind_places):
                px, py, value = _peak(score)
                if value < (st.refind_hidden_place if hidden else st.min_score):
                    break
                x, y = _to_mat(px, py, tmpl_shape, s, half, centre, self.a0)
                if not self._static(i, x, y, self.a0):
                    if hidden:
                        sc = self._hidden_find(i, (x, y), st.refind_near_mm, self.a0, (-6.0, 0.0, 6.0))
                        if sc >= st.refind_hidden_score and self._shown_here(i) >= st.refind_hidden_face:
                            if self._hidden_still(i):
                                self.scores[i] = sc
                                return "hidden"
                            break  # found so here first: wait for the next view
                    elif self.find(i, (x, y), st.refind_near_mm) and self.scores[i] >= st.refind_score:
                        return True
                _suppress(score, px, py, s)  # not it: the next best place
        self.centres[i], self.angles[i], self.scores[i] = np.nan, np.nan, np.nan
        return False

    def _hidden_still(self, i: int) -> bool:
        """Whether the card found on what the hands leave in view ``i`` (row ``i``) was found
        so in the view before too, within ``refind_hidden_still_mm``: it lies still there. Else
        the place is kept to be asked about in the next view."""
        x, y = float(self.centres[i, 0]), float(self.centres[i, 1])
        before, self._hidden_candidate = self._hidden_candidate, (i, x, y)
        return before is not None and before[0] == i - 1 \
            and math.hypot(x - before[1], y - before[2]) <= self.st.refind_hidden_still_mm

    def finish(self, toward: tuple[float, float] | None) -> CardTrack:
        """After following forward from the start view: backward from it, and (``toward``) the
        card looked for there in the last view when it was lost before, then followed back."""
        self.follow(self.start, -1)
        last = len(self.views) - 1
        if toward is not None and not np.isfinite(self.scores[last]):
            if self.find(last, (float(toward[0]), float(toward[1])), self.st.target_search_mm):
                self.follow(last, -1)
            else:
                self.centres[last] = np.nan
                self.angles[last] = np.nan
        return CardTrack(self.t, self.centres, self.angles, self.scores, self.template.player,
                         self.template.label)


class CardFollow:
    """A card followed view by view as the views arrive (the referee follows each card a hand
    takes while it is carried, so that the work is spread over the frames instead of falling
    on the frame whose verdict needs the track). After :meth:`add` the card has been looked
    for in every view so far, forward from the first, exactly as :func:`track_card` does;
    :meth:`track` finishes a copy the way :func:`track_card` finishes (backward, and the last
    view searched round ``toward``), so that the track is :func:`track_card`'s on the same
    views (``before``: views earlier than the first, as :func:`track_card`'s ``start``)."""

    def __init__(self, view: np.ndarray, t: float, template: CardTemplate,
                 geometry: ViewGeometry | None = None, settings: TrackSettings | None = None) -> None:
        times = _check_views([view], [t])
        st = settings or TrackSettings()
        self._f = _Follower([view], times, template, geometry or ViewGeometry(), st, 0)
        self._f.seed(0, (template.pose.x, template.pose.y), template.pose.angle_deg)
        self._run = _Run([0])

    def __len__(self) -> int:
        return len(self._f.views)

    @property
    def last_time(self) -> float:
        return float(self._f.t[-1])

    @property
    def view_shape(self) -> tuple[int, ...]:
        """The shape of the views it follows the card in."""
        return tuple(self._f.views[0].shape)

    @property
    def following(self) -> bool:
        """False once the card is lost (a new view is then kept but not searched, as
        :func:`track_card` stops after ``max_misses``)."""
        return self._run.misses < self._f.st.max_misses

    def resting(self, views: int, still_mm: float) -> tuple[float, float, int] | None:
        """Where the card lies still: found in each of the last ``views`` views, each within
        ``still_mm`` of the last one's place; (x, y, the first of those views). None otherwise."""
        f = self._f
        n = len(f.views)
        if n < views:
            return None
        c, sc = f.centres[n - views:], f.scores[n - views:]
        if not (np.isfinite(sc).all() and np.isfinite(c).all()):
            return None
        if float(np.max(np.hypot(*(c - c[-1]).T))) > still_mm:
            return None
        return float(c[-1, 0]), float(c[-1, 1]), n - views

    @property
    def last_centre(self) -> tuple[float, float] | None:
        """Where the card was found in the last view (None: not found there)."""
        c = self._f.centres[-1]
        if not (np.isfinite(c).all() and np.isfinite(self._f.scores[-1])):
            return None
        return float(c[0]), float(c[1])

    @property
    def last_found_centre(self) -> tuple[float, float] | None:
        """Where the card was last found (in the last view or before it was lost)."""
        return self.last_found_centre_scoring(-math.inf)

    @property
    def last_found_time(self) -> float | None:
        """When the card was last found (None: never)."""
        ok = np.flatnonzero(np.isfinite(self._f.scores) & np.isfinite(self._f.centres).all(axis=1))
        return float(self._f.t[ok[-1]]) if len(ok) else None

    def last_found_centre_scoring(self, min_score: float) -> tuple[float, float] | None:
        """Where the card was last found matching at least ``min_score``."""
        ok = np.flatnonzero((self._f.scores >= min_score) & np.isfinite(self._f.centres).all(axis=1))
        if not len(ok):
            return None
        c = self._f.centres[ok[-1]]
        return float(c[0]), float(c[1])

    def found_since_its_slot(self, near_mm: float) -> bool:
        """Whether the card was found in every view from the last where it lay within
        ``near_mm`` of where it first lay to the last where it was found (a follow that lost it
        on the way and found a card again may have found another one)."""
        c = self._f.centres
        ok = np.isfinite(self._f.scores) & np.isfinite(c).all(axis=1)
        found = np.flatnonzero(ok)
        if not len(found):
            return False
        dist = np.hypot(c[:, 0] - c[0, 0], c[:, 1] - c[0, 1])
        near = np.flatnonzero(ok & (np.nan_to_num(dist, nan=np.inf) < near_mm))
        start = int(near[-1]) if len(near) else 0
        return bool(ok[start:found[-1] + 1].all())

    def jumped_from_rest(self, still_mm: float, jump_mm: float) -> tuple[float, float] | None:
        """Where the card lay in the last view that found it still (within ``still_mm`` of the
        view before), when the next view found it at least ``jump_mm`` from there: a card a hand
        takes starts moving slowly (a minimum-jerk start moves it about seven times as far in its
        second view as in its first), so the finds from that jump on are of something else, the
        follow having run off with a hand. None otherwise: at rest now, never at rest, lost
        after, or moving off as a card does."""
        c, sc = self._f.centres, self._f.scores
        ok = np.isfinite(sc) & np.isfinite(c).all(axis=1)
        step = np.full(len(sc), np.nan)
        step[1:] = np.hypot(c[1:, 0] - c[:-1, 0], c[1:, 1] - c[:-1, 1])
        still = np.flatnonzero(ok[1:] & ok[:-1] & (np.nan_to_num(step[1:], nan=np.inf) <= still_mm)) + 1
        if not len(still):
            return None
        r = int(still[-1])
        if r + 1 >= len(sc) or not ok[r + 1] or not step[r + 1] >= jump_mm:
            return None
        return float(c[r, 0]), float(c[r, 1])

    @property
    def last_step_mm(self) -> float | None:
        """How far the card moved between the last two views (None: not found in both)."""
        c, sc = self._f.centres[-2:], self._f.scores[-2:]
        if len(sc) < 2 or not (np.isfinite(sc).all() and np.isfinite(c).all()):
            return None
        return float(np.hypot(*(c[1] - c[0])))

    @property
    def first_centre(self) -> tuple[float, float]:
        """Where the card lay in the first view."""
        return float(self._f.centres[0, 0]), float(self._f.centres[0, 1])

    def score(self, i: int) -> float:
        """The match score in view ``i`` (NaN where the card was not found)."""
        return float(self._f.scores[i])

    def face_shown(self, i: int) -> float:
        """The share of the card's face that view ``i`` shows where the card was found there
        (:func:`face_shown`; 0 where it was not found)."""
        f = self._f
        if not (np.isfinite(f.scores[i]) and np.isfinite(f.centres[i]).all()):
            return 0.0
        return f._shown_here(i)

    def time(self, i: int) -> float:
        return float(self._f.t[i])

    def left_at(self, away_mm: float) -> float | None:
        """When the card first lay at least ``away_mm`` from where it lay in the first view (it
        left its slot); None when it was never found that far."""
        c = self._f.centres
        away = np.hypot(c[:, 0] - c[0, 0], c[:, 1] - c[0, 1])
        moved = np.flatnonzero(np.isfinite(self._f.scores) & (np.nan_to_num(away, nan=-1.0) >= away_mm))
        return float(self._f.t[moved[0]]) if len(moved) else None

    def add(self, view: np.ndarray, t: float, hands: np.ndarray | None = None) -> None:
        """The next view (time ``t``, after the last): the card is looked for in it (``hands``:
        where it shows hands, a grid over its whole area, non-zero on one; see :meth:`refind`)."""
        first = self._f.views[0]
        if not isinstance(view, np.ndarray) or view.shape != first.shape:
            got = getattr(view, "shape", type(view).__name__)
            raise ValueError(f"view {len(self)}: expected an array shaped like view 0 {first.shape}, "
                             f"got {got}")
        if not (math.isfinite(t) and t > self.last_time):
            raise ValueError(f"view {len(self)}: time {t} does not follow the last view's {self.last_time}")
        self._f.grow(view, float(t), hands)
        i = len(self._f.views) - 1
        if self._f.can_visit(self._run, i):
            self._f.visit(self._run, i)

    def at_start(self) -> bool:
        """Whether the last view shows the card where it lay in the first (still in its slot)."""
        return self._f.at_start(len(self._f.views) - 1)

    def refind(self, allowed: np.ndarray | None = None) -> bool:
        """Look for a card no longer followed anywhere on the mat in the last view (its centre
        where ``allowed``, a mask in the views' pixels, is non-zero); when it is found there,
        it is followed again from there. (A card carried fast is lost in the blur; found again
        where it was put down, it can be seen at rest there.) A card a hand covers in part is
        looked for on what the hands of the view (:meth:`add`) leave of it, and followed so."""
        f = self._f
        i = len(f.views) - 1
        found = f.refind(i, allowed)
        if not found:
            return False
        self._run = _Run([i], hidden=found == "hidden")
        return True

    def track(self, toward: tuple[float, float] | None = None, before: Sequence[np.ndarray] = (),
              before_times: Sequence[float] | np.ndarray = ()) -> CardTrack:
        """The track over ``before`` and the views added (this follow is left as it was)."""
        bt = np.asarray(before_times, np.float64).reshape(-1)
        if len(bt) != len(before):
            raise ValueError(f"{len(before)} views before but {len(bt)} times")
        if len(bt) and not (np.isfinite(bt).all() and (np.diff(np.append(bt, self._f.t[0])) > 0).all()):
            raise ValueError("the times before must be finite and increase up to the first view's")
        return self._f.copy(before, bt).finish(toward)


def track_card(views: Sequence[np.ndarray], times: Sequence[float] | np.ndarray, template: CardTemplate,
               geometry: ViewGeometry | None = None, *, start: int = 0,
               toward: tuple[float, float] | None = None, settings: TrackSettings | None = None) -> CardTrack:
    """Follow ``template``'s card through ``views`` (rectified, in time order), starting from
    view ``start`` at the template's pose (the view it was cut from, or one where the card
    still lay there) and going both ways. Each view: a search round the position predicted
    from the last two (constant velocity) at ``coarse_px_per_mm`` (with the face also smeared
    along the predicted motion when it moves fast), then a refinement at the view's scale over
    three angles with sub-pixel peaks. A place that shows what the start view showed there is
    skipped (a look-alike card lying still). A view where the best match scores under the
    settings' bars is a miss (NaN); after ``max_misses`` in a row the card is no longer
    followed in that direction. ``toward`` (mat mm, e.g. the pile's centre): if the card was
    lost before the last view, it is looked for there in the last view and followed backwards.
    (:class:`CardFollow` does the same as the views arrive.)"""
    t = _check_views(views, times)
    geo = geometry or ViewGeometry()
    st = settings or TrackSettings()
    if not 0 <= start < len(views):
        raise ValueError(f"start {start} is not a view index (0..{len(views) - 1})")
    f = _Follower(views, t, template, geo, st, start)
    f.seed(start, (template.pose.x, template.pose.y), template.pose.angle_deg)
    f.follow(start, 1)
    return f.finish(toward)


def _wrap(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


# ----------------------------------------------------------------------------- contact time


@dataclass(frozen=True)
class ContactEstimate:
    """When a card (or a hand) touched the pile: ``t`` seconds with standard deviation
    ``sd``, from ``frames_used`` views; ``quality`` 0-1 (how well the card was seen and the
    model fitted); ``method`` names the estimator."""

    t: float
    sd: float
    frames_used: int
    quality: float
    method: str
    end_t: float = math.nan  # the fitted end of the motion (the card at rest, the hand still)
    rest_mm: tuple[float, float] = (math.nan, math.nan)  # where the fitted motion ends

    def __post_init__(self) -> None:
        if not (math.isfinite(self.t) and self.sd > 0 and math.isfinite(self.sd)):
            raise ValueError(f"a contact estimate needs a finite time and a positive sd, got {self.t}, "
                             f"{self.sd}")

    def to_evidence(self) -> dict[str, float | int | str]:
        """The fields an event's ``evidence`` object takes (docs/events.md)."""
        return {"contact_t": round(self.t, 4), "contact_sd": round(self.sd, 4),
                "frames_used": self.frames_used, "quality": round(self.quality, 3), "method": self.method}


@dataclass(frozen=True)
class ContactCalibration:
    """What marks the touch on a fitted carry: ``t = end - lead_s`` (sd ``lead_sd_s``).
    Measured on rendered races and plays (docs/arbitration.md, ``benchmarks/contact_timing.py
    --calibrate``); the fixtures were held out and checked against it."""

    lead_s: float = 0.060  # median of 88 held-out render plays: 59.8 ms (10-90 % 40.5-82.3)
    lead_sd_s: float = 0.016  # their spread, mostly the 40-90 ms the card slides after the touch
    min_frames: int = 4  # views with the card found that a fit needs
    min_moving: int = 2  # of them, views where it had visibly moved (> 1 mm from where it came to rest)
    min_arriving: int = 2  # views in the slowing end of the carry (not an extrapolation from its start)
    arrival_share: float = 0.55  # the slowing end: after this share of the carry's duration


DEFAULT_CONTACT = ContactCalibration()


def minjerk(s: np.ndarray) -> np.ndarray:
    """Minimum-jerk profile 0..1 (10 s^3 - 15 s^4 + 6 s^5), clamped outside [0, 1]."""
    s = np.clip(s, 0.0, 1.0)
    return np.asarray(s * s * s * (10.0 + s * (-15.0 + 6.0 * s)))


@dataclass(frozen=True)
class CarryFit:
    """A minimum-jerk carry fitted to a track: from ``start_mm`` at ``t0`` to ``end_mm`` at
    ``t_end`` (straight, bell-shaped speed)."""

    t0: float
    t_end: float
    start_mm: tuple[float, float]
    end_mm: tuple[float, float]
    rms_mm: float
    sd_end: float  # standard deviation of t_end from the fit's curvature
    n: int
    n_moving: int

    def position(self, t: np.ndarray | float) -> np.ndarray:
        g = minjerk((np.asarray(t, np.float64) - self.t0) / max(self.t_end - self.t0, 1e-9))
        a, b = np.array(self.start_mm), np.array(self.end_mm)
        return np.asarray(a + (b - a) * np.asarray(g)[..., None])


def _fit_grid(t: np.ndarray, p: np.ndarray, w: np.ndarray, ends: np.ndarray,
              durations: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SSE over a grid of (end, duration): arrays (len(ends), len(durations)) of SSE and the
    fitted start and end points (..., 2). Least squares in closed form per grid point:
    p = a (1 - g) + b g with g the minimum-jerk profile; SSE = sum w |p|^2 - a.r1 - b.r2."""
    e = ends[:, None, None]
    d = durations[None, :, None]
    g = minjerk((t[None, None, :] - (e - d)) / d)  # (E, D, n)
    wg = w * g
    wh = w - wg  # w (1 - g)
    s22 = (wg * g).sum(-1)
    s12 = (wh * g).sum(-1)
    s11 = (wh - wh * g).sum(-1)
    r1 = wh @ p  # (E, D, 2)
    r2 = wg @ p
    det = s11 * s22 - s12 * s12
    ok = det > 1e-9 * np.maximum(s11 * s22, 1e-12)
    det = np.where(ok, det, 1.0)
    a = (s22[..., None] * r1 - s12[..., None] * r2) / det[..., None]
    b = (s11[..., None] * r2 - s12[..., None] * r1) / det[..., None]
    sse = float((w[:, None] * p * p).sum()) - (a * r1).sum(-1) - (b * r2).sum(-1)
    sse = np.where(ok, np.maximum(sse, 0.0), np.inf)
    return sse, a, b


def fit_carry(times: np.ndarray, centres_mm: np.ndarray, weights: np.ndarray | None = None) -> CarryFit:
    """Least-squares minimum-jerk carry through ``centres_mm`` at ``times`` (rows with NaN are
    left out): a grid over the end time and duration (10 ms, then 1 ms), the start and end
    points in closed form, one pass of robust (Huber) reweighting. ValueError when fewer than
    four points remain or they never move."""
    t_all = np.asarray(times, np.float64).reshape(-1)
    p_all = np.asarray(centres_mm, np.float64)
    if p_all.ndim != 2 or p_all.shape[1] != 2 or len(p_all) != len(t_all):
        raise ValueError(f"times ({len(t_all)}) and centres ({p_all.shape}) must match as (n,) and (n, 2)")
    w_all = np.ones(len(t_all)) if weights is None else np.asarray(weights, np.float64).reshape(-1)
    if len(w_all) != len(t_all):
        raise ValueError(f"{len(w_all)} weights for {len(t_all)} points")
    ok = np.isfinite(t_all) & np.isfinite(p_all).all(axis=1) & np.isfinite(w_all) & (w_all > 0)
    t, p, w = t_all[ok], p_all[ok], w_all[ok]
    if len(t) < 4:
        raise ValueError(f"a carry fit needs at least 4 tracked points, got {len(t)}")
    span = float(np.ptp(p, axis=0).max())
    if span < 2.0:
        raise ValueError(f"the card hardly moved ({span:.1f} mm): no carry to fit")
    # keep a few views of rest before the carry (they fix where and when it began), not all
    still = np.hypot(*(p - p[0]).T) < 1.0
    first_move = int(np.argmin(still)) if not still.all() else len(t)
    keep = slice(max(0, first_move - 4), None)
    t, p, w = t[keep], p[keep], w[keep]
    lo, hi = float(t[0]), float(t[-1])
    ends = np.arange(lo + 0.05, hi + 0.25, 0.02)
    durations = np.arange(0.1, max(0.2, min(1.2, hi - lo + 0.4)), 0.02)
    ww = w.copy()
    huber = False
    for _pass in range(6):
        sse, _, _ = _fit_grid(t, p, ww, ends, durations)
        ie, idur = np.unravel_index(int(np.argmin(sse)), sse.shape)
        e_mid = np.arange(ends[ie] - 0.024, ends[ie] + 0.0245, 0.003)
        d_mid = np.arange(max(0.05, durations[idur] - 0.024), durations[idur] + 0.0245, 0.003)
        sse_m, _, _ = _fit_grid(t, p, ww, e_mid, d_mid)
        im, dm = np.unravel_index(int(np.argmin(sse_m)), sse_m.shape)
        e_fine = np.arange(e_mid[im] - 0.003, e_mid[im] + 0.00325, 0.0005)
        d_fine = np.arange(max(0.05, d_mid[dm] - 0.003), d_mid[dm] + 0.00325, 0.0005)
        sse_f, a_f, b_f = _fit_grid(t, p, ww, e_fine, d_fine)
        je, jd = np.unravel_index(int(np.argmin(sse_f)), sse_f.shape)
        t_end, dur = float(e_fine[je]), float(d_fine[jd])
        a, b = a_f[je, jd], b_f[je, jd]
        g = minjerk((t - (t_end - dur)) / dur)
        res = np.hypot(*(p - a - (b - a) * g[:, None]).T)
        used = ww > 0
        scale = max(1.4826 * float(np.median(res[used])), 0.3)
        worst = int(np.argmax(np.where(used, res, -1.0)))
        if res[worst] > max(5.0, 5.0 * scale) and used.sum() > 5:
            ww[worst] = 0.0  # a point far off the carry (a look-alike matched): leave it out, fit again
            continue
        if huber or _pass == 5 or not (res[used] > 2.0 * scale).any():
            break
        ww = np.where(used, w * np.minimum(1.0, 2.0 * scale / np.maximum(res, 1e-9)), 0.0)  # Huber, once
        huber = True
    keep_w = ww > 0
    t, p, ww, res = t[keep_w], p[keep_w], ww[keep_w], res[keep_w]
    n = len(t)
    dof = max(2 * n - 6, 1)
    sigma2 = max(float(sse_f[je, jd]) / float(ww.sum()) * n / dof, 0.05 ** 2)
    prof = sse_f.min(axis=1)  # profile over the end time
    sd_end = _profile_sd(e_fine, prof, int(je), sigma2)
    rms = float(np.sqrt(np.average(res * res, weights=ww)))
    moving = int((np.hypot(*(p - b).T) > 1.0).sum())
    return CarryFit(t_end - dur, t_end, (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), rms,
                    sd_end, n, moving)


def _profile_sd(x: np.ndarray, prof: np.ndarray, i: int, sigma2: float) -> float:
    """Standard deviation from the curvature of a least-squares profile at its minimum
    (SSE = SSE_min + (x - x0)^2 / sd^2 * sigma^2)."""
    if not np.isfinite(prof[i]):
        return 1.0
    lo, hi = max(i - 3, 0), min(i + 4, len(x))
    xs, ys = x[lo:hi], prof[lo:hi]
    keep = np.isfinite(ys)
    if keep.sum() < 3:
        return 0.05
    c2 = np.polyfit(xs[keep] - x[i], ys[keep], 2)[0]
    if not c2 > 0:
        return 0.05
    return float(math.sqrt(sigma2 / c2))


def estimate_contact(track: CardTrack, calibration: ContactCalibration = DEFAULT_CONTACT) -> ContactEstimate:
    """The instant the tracked card touched the pile: the fitted carry's end less the
    calibrated lead. ValueError for an empty track, one with too few found views, or one
    that never moves."""
    if len(track) == 0:
        raise ValueError("empty track: no views to estimate a contact from")
    ok = track.found
    if int(ok.sum()) < calibration.min_frames:
        raise ValueError(f"the card was found in {int(ok.sum())} views; a contact estimate needs "
                         f"{calibration.min_frames}")
    w = np.clip(track.scores, 0.05, 1.0)
    fit = fit_carry(track.times, track.centres_mm, np.where(ok, w, np.nan))
    if fit.n_moving < calibration.min_moving:
        raise ValueError(f"the card was seen moving in {fit.n_moving} views; a contact estimate needs "
                         f"{calibration.min_moving}")
    t_ok = track.times[ok]
    arriving = int(((t_ok >= fit.t0 + calibration.arrival_share * (fit.t_end - fit.t0))
                    & (t_ok <= fit.t_end + 0.1)).sum())
    if arriving < calibration.min_arriving:
        raise ValueError(f"the card was seen in {arriving} views of the slowing end of its carry (lost from "
                         f"t = {t_ok[-1]:.3f} s); a contact estimate needs {calibration.min_arriving}")
    sd = math.hypot(fit.sd_end, calibration.lead_sd_s)
    seen_end = track.times[ok][-1]
    quality = track.quality / (1.0 + (fit.rms_mm / 1.5) ** 2)
    if fit.t_end > seen_end + 0.02:
        quality *= 0.7  # the card was lost before it came to rest: the end is extrapolated
    return ContactEstimate(fit.t_end - calibration.lead_s, sd, fit.n, float(quality), "minjerk-end-lead",
                           fit.t_end, fit.end_mm)


# ----------------------------------------------------------------------------- layering


@dataclass(frozen=True)
class Layering:
    """Which of two players' cards (or hands) lies underneath, from what the settled view
    shows. ``p_a_under`` is the probability that A's lies underneath (0.5: no evidence);
    ``under`` is set when it is at least ``decide`` sure either way."""

    under: Player | None
    p_a_under: float
    confidence: float  # |2 p - 1|: 0 no evidence, 1 certain
    shown: dict[Player, tuple[int, int]]  # per player: overlap blocks showing its face, informative blocks
    reason: str


@dataclass(frozen=True)
class LayeringSettings:
    block_mm: float = 14.0  # the face is compared in blocks about this size
    min_block_sd: float = 6.0  # a block of the template with less contrast (grey levels) says nothing
    match_ncc: float = 0.6  # a block of the settled view matching the face this well shows it
    inside_mm: float = 3.0  # a block counts as in the overlap when this far inside the other card
    pad_mm: float = 1.5  # each block may sit this far off the pose
    search_mm: float = 50.0  # each card is looked for this far round the pile's centre
    min_overlap_blocks: int = 4  # fewer informative blocks in the overlap: compare whole faces instead
    visible_logit: float = 8.0  # log-odds per unit of difference in the shown share of the faces
    identity_logit: float = 3.0  # a recognised top card's identity
    decide: float = 0.9


def _blocks(shape: tuple[int, int], px_per_mm: float, block_mm: float) -> list[tuple[slice, slice]]:
    h, w = shape
    b = max(4, int(round(block_mm * px_per_mm)))
    ny, nx = max(1, h // b), max(1, w // b)
    ys = np.linspace(0, h, ny + 1).round().astype(int)
    xs = np.linspace(0, w, nx + 1).round().astype(int)
    return [(slice(ys[i], ys[i + 1]), slice(xs[j], xs[j + 1])) for i in range(ny) for j in range(nx)]


def face_shown(view: np.ndarray, template: CardTemplate, pose: CardPose, geometry: ViewGeometry | None = None,
               settings: LayeringSettings | None = None, *, inside: CardPose | None = None,
               card_mm: tuple[float, float] = CARD_MM) -> tuple[int, int, float]:
    """Blocks of ``template``'s face that ``view`` shows at ``pose``: (shown, informative,
    shown fraction). With ``inside``, only blocks lying inside that other card's outline
    (the overlap) count."""
    geo = geometry or ViewGeometry()
    st = settings or LayeringSettings()
    s = template.px_per_mm
    # the template at the pose, cut a little larger so that small pose errors can be absorbed
    pad = st.pad_mm
    tw, th = template.size_mm
    seen = _patch(view, geo, pose, (tw + 2 * pad, th + 2 * pad), s).astype(np.float32)
    face = template.image
    if template.colour is not None and seen.ndim == 3:
        face = template.colour  # colour tells a red pip from a black one
    elif seen.ndim == 3:
        seen = _grey(seen)
    p = int(round(pad * s))
    other = None
    if inside is not None:
        poly = inside.corners((card_mm[0] - 2 * st.inside_mm, card_mm[1] - 2 * st.inside_mm))
        other = poly.astype(np.float32)
    a = math.radians(pose.angle_deg)
    shown = informative = 0
    for ys, xs in _blocks(template.image.shape, s, st.block_mm):
        t_block = template.image[ys, xs]
        if float(t_block.std()) < st.min_block_sd:
            continue
        if other is not None:
            lx = ((xs.start + xs.stop) / 2) / s - tw / 2
            ly = ((ys.start + ys.stop) / 2) / s - th / 2
            cx = pose.x + math.cos(a) * lx - math.sin(a) * ly
            cy = pose.y + math.sin(a) * lx + math.cos(a) * ly
            if cv2.pointPolygonTest(other, (float(cx), float(cy)), False) < 0:
                continue
        informative += 1
        region = seen[ys.start: ys.stop + 2 * p, xs.start: xs.stop + 2 * p]
        r = cv2.matchTemplate(region, face[ys, xs], cv2.TM_CCOEFF_NORMED)
        if float(r.max()) >= st.match_ncc:
            shown += 1
    return shown, informative, (shown / informative if informative else 0.0)


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def locate_card(view: np.ndarray, template: CardTemplate, around: tuple[float, float],
                geometry: ViewGeometry | None = None, *, radius_mm: float = 50.0,
                settings: TrackSettings | None = None) -> tuple[CardPose, float]:
    """The best place for ``template``'s card within ``radius_mm`` of ``around`` in one view:
    a coarse search over five angles (the template's +- 4 and 8 degrees), refined at the
    view's scale. Returns the pose and its score (normalised correlation)."""
    geo = geometry or ViewGeometry()
    st = settings or TrackSettings()
    coarse = template.at(st.coarse_px_per_mm)
    best = (-2.0, around[0], around[1], template.pose.angle_deg)
    for d in (-8.0, -4.0, 0.0, 4.0, 8.0):
        angle = template.pose.angle_deg + d
        x, y, sc = _match(view, geo, coarse, st.coarse_px_per_mm, around, angle, radius_mm)
        if sc > best[0]:
            best = (sc, x, y, angle)
    _, x, y, angle = best
    f = _Follower([view], np.zeros(1), template, geo, st, 0)
    sc = f.seed(0, (x, y), angle)
    return CardPose(float(f.centres[0, 0]), float(f.centres[0, 1]), float(f.angles[0])), sc


def card_layering(after: np.ndarray, templates: dict[Player, CardTemplate], pile: tuple[float, float],
                  geometry: ViewGeometry | None = None, settings: LayeringSettings | None = None, *,
                  poses: dict[Player, CardPose] | None = None, top_identity: str | None = None,
                  identities: dict[Player, str] | None = None) -> Layering:
    """Which player's card lies underneath in the settled view ``after``, both cards having
    ended on the pile at ``pile`` (mat mm): each card is looked for near the pile (and where
    its track ended, ``poses``), and at its best place the share of its face's blocks the view
    still shows is measured. The card on top shows its face (less where a hand lies over it);
    the card underneath shows a sliver. P(A underneath) = logistic(``visible_logit`` * (shown
    share of B - shown share of A)). ``top_identity`` (the card recognised on top) with
    ``identities`` (each player's card) adds the recogniser's word."""
    geo = geometry or ViewGeometry()
    st = settings or LayeringSettings()
    if set(templates) != {Player.A, Player.B}:
        raise ValueError("card_layering needs a template for each of A and B")
    shown: dict[Player, tuple[int, int]] = {}
    share: dict[Player, float] = {}
    where = "on the pile"
    if poses and set(poses) == {Player.A, Player.B}:
        # where the two outlines overlap, the view shows the face of the card on top
        for p in (Player.A, Player.B):
            k, n, f = face_shown(after, templates[p], poses[p], geo, st, inside=poses[p.other])
            shown[p], share[p] = (k, n), f
        where = "where the cards overlap"
    if not shown or min(n for _, n in shown.values()) < st.min_overlap_blocks:
        where = "on the pile"
        for p in (Player.A, Player.B):
            candidates = [locate_card(after, templates[p], pile, geo, radius_mm=st.search_mm)[0]]
            if poses and p in poses:
                candidates.append(poses[p])
            best = max((face_shown(after, templates[p], pose, geo, st) for pose in candidates),
                       key=lambda r: r[2])
            shown[p], share[p] = (best[0], best[1]), best[2]
    logit = st.visible_logit * (share[Player.B] - share[Player.A])
    (ka, na), (kb, nb) = shown[Player.A], shown[Player.B]
    parts = [f"{where} A's card shows {ka} of {na} blocks of its face, B's {kb} of {nb}"]
    if na == 0 or nb == 0:
        logit = 0.0
        parts = ["a card's face has no contrast to compare"]
    if top_identity is not None and identities:
        on_top = [p for p, code in identities.items() if code == top_identity]
        if len(on_top) == 1:
            logit += st.identity_logit if on_top[0] is Player.B else -st.identity_logit
            parts.append(f"{top_identity} (player {on_top[0]}'s card) recognised on top")
        else:
            parts.append(f"{top_identity} recognised on top is neither player's card")
    p_a = _logistic(logit)
    conf = abs(2 * p_a - 1)
    under = Player.A if p_a >= st.decide else Player.B if p_a <= 1 - st.decide else None
    verdict = (f"{under}'s card lies underneath" if under else "no clear layering")
    return Layering(under, p_a, conf, shown, f"{verdict}: " + "; ".join(parts))


# ----------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class DecisionSettings:
    call_p: float = 0.9  # the combined probability needed to name a first player
    lean_p: float = 0.8  # a kind of evidence this sure of one side "says" that side
    min_quality: float = 0.05  # contact estimates below this quality are not used
    max_logit: float = 6.0  # no single kind of evidence counts for more than this (p 0.9975)
    layering_max_logit: float | None = None  # the layering's own cap, if not max_logit


@dataclass(frozen=True)
class Arbitration:
    """Who touched (slapped) first. ``first`` is None when the evidence is too weak or
    disagrees; ``confidence`` is the combined probability of the side it leans to; ``agree``
    is None when one kind of evidence says nothing either way."""

    first: Player | None
    confidence: float
    agree: bool | None
    reason: str
    p_a_first_trajectory: float | None
    p_a_first_layering: float | None
    contacts: dict[Player, ContactEstimate | None] = field(default_factory=dict)
    layering: Layering | None = None
    #: the side the combined evidence leans to, named or not (None: no evidence either way)
    lead: Player | None = None

    def to_evidence(self) -> dict[str, object]:
        """A JSON-able summary for an event's ``evidence``."""
        out: dict[str, object] = {"first": str(self.first) if self.first else None,
                                  "confidence": round(self.confidence, 3), "agree": self.agree,
                                  "reason": self.reason}
        for p, c in self.contacts.items():
            if c is not None:
                out[f"contact_{p}"] = c.to_evidence()
        return out


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _side(p: float | None, lean: float) -> Player | None:
    if p is None:
        return None
    return Player.A if p >= lean else Player.B if p <= 1 - lean else None


def decide(contacts: dict[Player, ContactEstimate | None], layering: Layering | None,
           settings: DecisionSettings | None = None, *, what: str = "card",
           verb: str = "touched") -> Arbitration:
    """Combine contact times and layering into one call (see :func:`decide_first_touch`)."""
    st = settings or DecisionSettings()
    ca, cb = contacts.get(Player.A), contacts.get(Player.B)
    use = {p: c for p, c in ((Player.A, ca), (Player.B, cb)) if c is not None and c.quality >= st.min_quality}
    p_traj: float | None = None
    notes: list[str] = []
    if len(use) == 2:
        a, b = use[Player.A], use[Player.B]
        z = (b.t - a.t) / math.hypot(a.sd, b.sd)
        p_traj = _phi(z)
        notes.append(f"trajectories: A {verb} at {a.t:.3f} +- {a.sd:.3f} s, B at {b.t:.3f} +- {b.sd:.3f} s "
                     f"(P(A first) {p_traj:.2f})")
    else:
        missing = [str(p) for p in (Player.A, Player.B) if p not in use]
        notes.append(f"trajectories: no usable contact time for {' and '.join(missing)}")
    p_layer = None
    cap_l = st.max_logit if st.layering_max_logit is None else st.layering_max_logit
    head = "layering" if cap_l > 0 else "layering (reported, not counted)"
    if layering is not None and layering.confidence > 0:
        p_layer = layering.p_a_under
        notes.append(f"{head}: {layering.reason} (P(A underneath) {p_layer:.2f})")
    elif layering is not None:
        notes.append(f"{head}: {layering.reason}")
    else:
        notes.append(f"{head}: not available")
    # each kind counts (and says a side) only as surely as its cap allows
    count_t = None if p_traj is None else max(-st.max_logit, min(st.max_logit, _logit(p_traj)))
    count_l = None if p_layer is None else max(-cap_l, min(cap_l, _logit(p_layer)))
    side_t = None if count_t is None else _side(_logistic(count_t), st.lean_p)
    side_l = None if count_l is None else _side(_logistic(count_l), st.lean_p)
    agree: bool | None = None if side_t is None or side_l is None else side_t is side_l
    logit = sum(c for c in (count_t, count_l) if c is not None)
    p = _logistic(logit)
    lead = Player.A if p >= 0.5 else Player.B
    conf = max(p, 1 - p)
    detail = "; ".join(notes)
    leaning = lead if logit != 0 else None
    if agree is False:
        why = f"{side_t} first by the trajectories, {side_l}'s {what} underneath"
        return Arbitration(None, conf, False, f"no call: the evidence disagrees ({why}); {detail}",
                           p_traj, p_layer, dict(contacts), layering, leaning)
    if conf < st.call_p:
        weak = side_t is None and side_l is None
        why = "both kinds of evidence are weak" if weak else "the evidence is too weak"
        return Arbitration(None, conf, agree, f"no call: {why} ({lead} ahead at {conf:.2f}); {detail}",
                           p_traj, p_layer, dict(contacts), layering, leaning)
    basis = "trajectories and layering agree" if agree else (
        "from the trajectories alone" if side_l is None and side_t is not None else
        "from the layering alone" if side_t is None and side_l is not None else "from the combined evidence")
    return Arbitration(lead, conf, agree, f"{lead} {verb} first ({basis}, {conf:.3f}); {detail}",
                       p_traj, p_layer, dict(contacts), layering, lead)


def decide_first_touch(contacts: dict[Player, ContactEstimate | None], layering: Layering | None,
                       settings: DecisionSettings | None = None) -> Arbitration:
    """P8: whose card touched the pile first. The contact times give P(A first) =
    Phi((t_B - t_A) / sqrt(sd_A^2 + sd_B^2)); the layering P(A's card underneath). When both
    say something (each at least ``lean_p`` sure) and they point to different players, there
    is no call; otherwise their log-odds add (each capped) and a player is named when the
    result is at least ``call_p`` sure."""
    return decide(contacts, layering, settings, what="card", verb="touched")


def rest_pose(track: CardTrack, contact: ContactEstimate | None) -> CardPose | None:
    """Where the tracked card came to rest: its last found pose when that is at (or after) the
    fitted end of its carry, else the fitted end point with the last angle seen."""
    last = track.last_found()
    if last is None:
        return None
    x, y = track.centres_mm[last]
    angle = float(track.angles_deg[last])
    if contact is not None and math.isfinite(contact.end_t) and track.times[last] < contact.end_t - 1e-3:
        x, y = contact.rest_mm
    return CardPose(float(x), float(y), angle)


@dataclass(frozen=True)
class RaceEvidence:
    """Everything :func:`arbitrate_race` found: the call, and the tracks it came from."""

    arbitration: Arbitration
    tracks: dict[Player, CardTrack]
    contacts: dict[Player, ContactEstimate | None]
    errors: dict[Player, str]  # why a contact estimate is missing


def arbitrate_race(views: Sequence[np.ndarray], times: Sequence[float] | np.ndarray,
                   templates: dict[Player, CardTemplate], starts: dict[Player, int],
                   geometry: ViewGeometry | None = None, *, after: int = -1,
                   pile: tuple[float, float] | None = None, top_identity: str | None = None,
                   identities: dict[Player, str] | None = None,
                   calibration: ContactCalibration = DEFAULT_CONTACT,
                   settings: DecisionSettings | None = None) -> RaceEvidence:
    """P8 from video: follow A's and B's cards (``templates``, each found in view
    ``starts[p]``; ``pile`` the pile's centre in mat mm, where a card lost on the way is looked
    for), estimate their contact times, read the layering in view ``after`` (both cards at
    rest; default the last), and decide."""
    t = _check_views(views, times)
    if set(templates) != {Player.A, Player.B} or set(starts) != {Player.A, Player.B}:
        raise ValueError("arbitrate_race needs a template and a start view for each of A and B")
    geo = geometry or ViewGeometry()
    tracks: dict[Player, CardTrack] = {}
    contacts: dict[Player, ContactEstimate | None] = {}
    errors: dict[Player, str] = {}
    poses: dict[Player, CardPose] = {}
    for p in (Player.A, Player.B):
        tracks[p] = track_card(views, t, templates[p], geo, start=starts[p], toward=pile)
        try:
            contacts[p] = estimate_contact(tracks[p], calibration)
        except ValueError as exc:
            contacts[p] = None
            errors[p] = str(exc)
        pose = rest_pose(tracks[p], contacts[p])
        if pose is not None:
            poses[p] = pose
    layering = None
    if pile is not None:
        layering = card_layering(views[after], templates, pile, geo, poses=poses, top_identity=top_identity,
                                 identities=identities)
    arb = decide_first_touch(contacts, layering, settings)
    return RaceEvidence(arb, tracks, contacts, errors)


# ----------------------------------------------------------------------------- slaps


@dataclass(frozen=True)
class HandSettings:
    px_per_mm: float = 0.5  # hands are followed on a coarse copy of the views
    half_width_mm: float = 110.0  # the strip watched: the pile's centre +- this in x, the mat's whole height
    fg_level: float = 18.0  # colour difference from the background (any channel) that is foreground
    min_area_mm2: float = 1500.0  # smaller foreground blobs are not hands
    seed_mm: float = 6.0  # foreground this close to a player's edge (or beyond it) seeds that player's arm
    arm_band_mm: float = 60.0  # a player's arm is watched this far into the mat from their edge
    settle_blur_px: float = 1.0  # the strips are smoothed this much (Gaussian sigma) before timing
    settle_level: float = 6.0  # grey change from the last view above which a pixel of the arm still moves
    settle_share: float = 0.95  # the arm has stopped when this share of its pixels moves no more
    #: only pixels that can show a small move are timed: in the last view, their neighbourhood
    #: (``settle_contrast_px`` square, 4 mm) spans at least this many grey levels. The inside of a
    #: plain sleeve looks the same as the arm slides along itself, and counted as at rest while
    #: it still moved (since stop 38: slap-eval seed 6102, B's black sleeve timed 47 ms early;
    #: seed 6240, A's hand lying on the pile since its last play came down, but its arm's stop
    #: was too gradual to count). 0: every pixel of the arm
    settle_contrast: float = 6.0
    settle_contrast_px: int = 5
    min_timed_px: int = 20  # fewer such pixels of the arm (a plain sleeve, still): all of it is timed
    cover_still: float = 6.0  # grey change between two views under which a pixel keeps its player
    core_mm: tuple[float, float] = (32.0, 42.0)  # "over the pile": within these of its centre (x, y)
    min_over_pile_mm2: float = 1500.0  # a hand never covering this much of the pile's core did not slap it
    covered_logit: float = 10.0  # log-odds per unit of difference in the lost share of visible area
    #: the hands' layering by colour: each player's hand colour learnt where the hands lie apart
    #: (the labelled hand within ``colour_tip_mm`` of its tip: skin, not sleeve); their visible
    #: area is counted within ``colour_near_mm`` of the pile's centre, a pixel going to the
    #: player whose colour it is nearer (Mahalanobis, within ``colour_max_d2``: chi-square, 3
    #: degrees of freedom, 99 %)
    colour_tip_mm: float = 80.0
    colour_near_mm: float = 90.0
    colour_max_d2: float = 11.3
    min_colour_px: int = 50  # fewer samples of a hand than this: no colour for that player
    #: a difference in the lost share of area smaller than this says nothing (on the 40 render
    #: slaps, seeds 6000-6019 and 7000-7019: at 0.3 the layering named the first hand 19 times
    #: of 40 and was right every time; at 0.15, 21 right and 3 wrong of 24)
    layering_dead_zone: float = 0.3
    min_arm_mm2: float = 600.0  # less foreground than this there: that player's hand is not there
    #: calibrated on 40 render slaps (slap-eval seeds 7000-7019, 1280x720; ``benchmarks/contact_timing.py
    #: --calibrate``): the arm comes to rest 4.3 ms after the touch (median; 10-90 % -12.0..+13.4 ms;
    #: before stop 38, timing every pixel of the arm: 2.9 ms, -15.1..+9.3 ms)
    lead_s: float = 0.0043
    lead_sd_s: float = 0.0099  # that 10-90 % range / 2.56 (the robust sd is 7.0 ms; the tails are wider)


@dataclass(frozen=True, eq=False)
class HandTrack:
    """One player's slapping hand, view by view, watched where its arm crosses the player's
    edge of the mat (no other hand lies there; the arm moves until the palm lands).
    ``settled``: the share of that crossing (as it lies in the last view, when both hands lie
    still) that already looks as it will from then on (no later view differs from the last by
    ``settle_level``): it rises to 1 as the arm comes to rest. ``arm_mm2``: foreground there;
    ``over_pile_mm2``: all hand foreground over the pile's core; ``own_pile_mm2``: this
    player's part of it."""

    player: Player
    times: np.ndarray  # (n,)
    settled: np.ndarray  # (n,) share of the arm's crossing at rest from this view on (0-1, non-decreasing)
    arm_mm2: np.ndarray  # (n,) foreground area of that crossing
    over_pile_mm2: np.ndarray  # (n,) foreground over the pile zone (both hands)
    own_pile_mm2: np.ndarray  # (n,) of that, what is this player's hand (split along the hands' outlines)
    #: (n,) this player's hand near the pile as its colour tells (None: its colour not learnt)
    by_colour_mm2: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.times)
        for name in ("settled", "arm_mm2", "over_pile_mm2", "own_pile_mm2", "by_colour_mm2"):
            if getattr(self, name) is not None and len(getattr(self, name)) != n:
                got = len(getattr(self, name))
                raise ValueError(f"hand track arrays differ in length: times {n}, {name} {got}")

    def __len__(self) -> int:
        return len(self.times)


def view_columns(geo: ViewGeometry, x0: float, x1: float, width: int) -> tuple[int, int]:
    """The view columns between mat x0 and x1."""
    return (max(0, int(round((x0 + geo.margin_mm) * geo.px_per_mm))),
            min(width, int(round((x1 + geo.margin_mm) * geo.px_per_mm))))


def hand_strip_columns(piles: Sequence[Zone], geometry: ViewGeometry, width: int,
                       settings: HandSettings | None = None) -> tuple[int, int]:
    """The view columns :func:`hand_tracks` looks at round ``piles`` (their strips' span):
    where a background for them is needed (:func:`hand_free_background`'s ``columns``)."""
    st = settings or HandSettings()
    xs = [float(p.center[0]) for p in piles]
    if not xs:
        return 0, width
    u0, u1 = view_columns(geometry, min(xs) - st.half_width_mm, max(xs) + st.half_width_mm, width)
    return max(0, u0 - 2), min(width, u1 + 2)


def _strip(view: np.ndarray, geo: ViewGeometry, x0: float, x1: float, st: HandSettings) -> np.ndarray:
    """The view between mat x0 and x1 (all rows), shrunk to ``st.px_per_mm``."""
    u0, u1 = view_columns(geo, x0, x1, view.shape[1])
    return shrink_strip(view[:, u0:u1], geo, st)


def shrink_strip(crop: np.ndarray, geo: ViewGeometry, st: HandSettings) -> np.ndarray:
    """Columns of a view (``geo``'s scale) shrunk to ``st.px_per_mm``: a hand strip."""
    f = st.px_per_mm / geo.px_per_mm
    size = (max(1, int(round(crop.shape[1] * f))), max(1, int(round(crop.shape[0] * f))))
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA)


def hand_free_background(views: Sequence[np.ndarray], hand_masks: Sequence[np.ndarray], *,
                         columns: tuple[int, int] | None = None, grow: int = 4, still_views: int = 4,
                         still_level: float = 10.0, still_reach: int = 3) -> np.ndarray:
    """A background for :func:`hand_tracks` free of hands: each pixel as it looked in the
    latest of ``views`` (oldest first) where no hand lay over it, or where a moving hand's
    blob covered it but it had not changed (by ``still_level`` in any channel, nor anything
    within ``still_reach`` pixels) over the last ``still_views`` views. ``hand_masks``: per
    view, the tracker's hand cells (:meth:`~referee.vision.tracking.ZoneTracker.hand_cells`:
    0 none, 1 a hand at rest, 2 a moving one; any resolution covering the view's area), grown
    by ``grow`` of its own cells against a hand's soft edges and shadow. A pixel never free
    keeps the oldest view's colour. So a hand that lay over a pile before the slaps (the
    round's last play) is not taken for the pile, and a card put there since is in it (the
    tracker counts a pile changed under a hand to the blob of the arm beside it until it has
    settled a while; slap-eval seed 6020), while a hand at rest (a hand lying still is still)
    and an arm moving in (and its shadow) are not. ``columns``: made only between these view
    columns (the strips the hands are followed on; the rest is the oldest view's)."""
    if not views or len(views) != len(hand_masks):
        raise ValueError(f"a hand-free background needs views and as many hand masks, got {len(views)} "
                         f"and {len(hand_masks)}")
    full = np.array(views[0], copy=True)
    h, full_w = full.shape[:2]
    for view in views:
        if view.shape != full.shape:
            raise ValueError(f"a hand-free background needs views of one shape: {view.shape} and "
                             f"{full.shape}")
    u0, u1 = (0, full_w) if columns is None else (max(0, columns[0]), min(full_w, columns[1]))
    if u1 <= u0:
        return full
    views = [np.ascontiguousarray(v[:, u0:u1]) for v in views]
    out = full[:, u0:u1]  # filled in place
    w = u1 - u0
    reach = np.ones((2 * still_reach + 1, 2 * still_reach + 1), np.uint8)
    kernel = np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)
    moved_at: dict[int, np.ndarray] = {}

    def moved(k: int) -> np.ndarray:
        """Where view ``k`` differs from view ``k - 1`` (or lies within ``still_reach`` of that)."""
        if k not in moved_at:
            step = cv2.absdiff(views[k], views[k - 1])
            if step.ndim == 3:  # the largest change of any channel (OpenCV's max: numpy's is slow here)
                channels = cv2.split(step)
                step = channels[0]
                for c in channels[1:]:
                    step = cv2.max(step, c)
            m = (step >= still_level).astype(np.uint8)
            moved_at[k] = cv2.dilate(m, reach) if still_reach > 0 else m
        return moved_at[k]

    def grown(cells: np.ndarray) -> np.ndarray:
        """The cells grown by ``grow``, at the view's size, between ``columns``."""
        cells = cells.astype(np.uint8)
        if grow > 0:
            cells = cv2.dilate(cells, kernel)
        return cv2.resize(cells, (full_w, h), interpolation=cv2.INTER_NEAREST)[:, u0:u1] > 0

    todo = np.ones((h, w), bool)
    for k in range(len(views) - 1, -1, -1):  # the latest first: each pixel from the latest view free there
        mask = np.asarray(hand_masks[k])
        free = ~grown(mask > 0)
        under_moving = todo & ~free & ~grown(mask == 1)
        if k >= still_views and under_moving.any():
            changed = np.zeros((h, w), np.uint8)
            for j in range(k - still_views + 1, k + 1):  # unchanged over the last ``still_views`` steps
                changed |= moved(j)
            free |= under_moving & (changed == 0)
        take = todo & free
        np.copyto(out, views[k], where=take[..., None] if out.ndim == 3 else take)  # into ``full``
        todo &= ~take
        if not todo.any():
            break
    return full


def _ridges(img: np.ndarray, fg: np.ndarray, moving: np.ndarray | None = None) -> np.ndarray:
    """The image the hands are split on: inside the foreground, colour edges (0-200) and,
    higher (230), the border between what moves and what lies still; outside, 255. Watershed
    floods by the step between neighbours, so the arms' floods fill the foreground, parting
    along the strongest edges inside it (the outline of a hand moving over one lying still,
    or lying on it), before anything crosses from the background."""
    f = img.astype(np.float32)
    gx = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy).max(axis=2)
    edge = np.clip(mag * (200.0 / 400.0), 0, 200).astype(np.uint8)
    if moving is not None and moving.any():
        border = cv2.morphologyEx(moving.astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
        edge[border] = 230
    out = np.where(fg, edge, 255).astype(np.uint8)
    return cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)


def _fg(img: np.ndarray, bg: np.ndarray, st: HandSettings, min_px: float) -> np.ndarray:
    fg = (np.abs(img.astype(np.int16) - bg).max(axis=2) > st.fg_level).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    big = np.zeros(n, bool)
    big[1:] = stats[1:, cv2.CC_STAT_AREA] >= min_px
    return np.asarray(big[labels])


@dataclass(frozen=True, eq=False)
class HandViews:
    """What :func:`hand_tracks` computed on the strip round the pile (for drawing and
    checking): per view the grey strip, its foreground and the players' hands; which of its
    pixels lie over the pile's core."""

    grey: np.ndarray  # (n, h, w) float32
    fg: np.ndarray  # (n, h, w) bool
    pile: np.ndarray  # (h, w) bool
    px_per_mm: float
    labels: np.ndarray  # (n, h, w) int32: 1 A's hand, 2 B's, else none
    last: np.ndarray  # (h, w, 3) uint8: the last view's strip in colour (what the layering model reads)


def _label_hands(strips: list[np.ndarray], grey: np.ndarray, fg: np.ndarray, bands: dict[Player, np.ndarray],
                 st: HandSettings) -> np.ndarray:
    """Each view's foreground split between A's hand (1) and B's (2), carried from view to
    view: a pixel keeps its player while its picture does not change; the rest of the
    foreground is flooded (watershed on :func:`_ridges`) from the arms where they cross the
    players' edges and from the carried pixels. So a hand lying still keeps its pixels until
    something new covers them, and a hand moving over another takes what it covers."""
    n, h, w = fg.shape
    labels = np.zeros((n, h, w), np.int32)
    prev: np.ndarray | None = None
    for k in range(n):
        f = fg[k]
        if not f.any():
            prev = None
            continue
        markers = np.zeros((h, w), np.int32)
        markers[~f] = 3
        moving = None
        if prev is not None:
            same = np.abs(grey[k] - grey[k - 1]) < st.cover_still
            markers[f & same & (prev == 1)] = 1
            markers[f & same & (prev == 2)] = 2
            moving = cv2.morphologyEx((f & ~same).astype(np.uint8), cv2.MORPH_OPEN,
                                      np.ones((3, 3), np.uint8)).astype(bool)
        markers[f & bands[Player.A]] = 1
        markers[f & bands[Player.B]] = 2
        if (markers == 1).any() or (markers == 2).any():
            cv2.watershed(_ridges(strips[k], f, moving), markers)
            labels[k] = np.where(f & ((markers == 1) | (markers == 2)), markers, 0)
        prev = labels[k]
    return labels


def _hand_colours(labs: list[np.ndarray], labels: np.ndarray, st: HandSettings
                  ) -> dict[Player, tuple[np.ndarray, np.ndarray]]:
    """Each player's hand colour: the mean and inverse covariance (``labs``: the strips in CIE
    Lab) of its labelled
    pixels within ``colour_tip_mm`` of its tip, in the views where both hands are seen apart
    (their labels not within two pixels): there the split between them is sure. A player seen
    in fewer than ``min_colour_px`` such pixels has none."""
    samples: dict[Player, list[np.ndarray]] = {Player.A: [], Player.B: []}
    rows = np.arange(labels.shape[1])[:, None]
    reach = st.colour_tip_mm * st.px_per_mm
    for k in range(len(labels)):
        a, b = labels[k] == 1, labels[k] == 2
        if not a.any() or not b.any():
            continue
        if (cv2.dilate(a.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=2).astype(bool) & b).any():
            continue
        for player, mine in ((Player.A, a), (Player.B, b)):
            ys = np.nonzero(mine)[0]
            tip = ys.min() if player is Player.A else ys.max()  # A's arm comes in at large y
            samples[player].append(labs[k][mine & (np.abs(rows - tip) <= reach)])
    out = {}
    for player, parts in samples.items():
        x = np.concatenate(parts) if parts else np.zeros((0, 3), np.float32)
        if len(x) >= st.min_colour_px:
            cov = np.cov(x.T) + np.eye(3) * 4.0  # a floor: one flat colour is not a point
            out[player] = (x.mean(axis=0), np.linalg.inv(cov))
    return out


def _by_colour(labs: list[np.ndarray], fg: np.ndarray, near: np.ndarray,
               colours: dict[Player, tuple[np.ndarray, np.ndarray]], st: HandSettings) -> np.ndarray:
    """(n, 2): per view, the pixels of ``fg`` within ``near`` whose colour is A's hand's and
    B's (nearer to it, and within ``colour_max_d2``)."""
    out = np.zeros((len(labs), 2))
    for k, lab in enumerate(labs):
        where = fg[k] & near
        if not where.any():
            continue
        x = lab[where]
        d2 = []
        for player in (Player.A, Player.B):
            mu, icov = colours[player]
            dx = x - mu
            d2.append(np.einsum("ij,jk,ik->i", dx, icov, dx))
        out[k, 0] = np.count_nonzero((d2[0] < st.colour_max_d2) & (d2[0] < d2[1]))
        out[k, 1] = np.count_nonzero((d2[1] < st.colour_max_d2) & (d2[1] < d2[0]))
    return out


def hand_tracks(views: Sequence[np.ndarray], times: Sequence[float] | np.ndarray, pile: Zone,
                geometry: ViewGeometry | None = None, *, background: np.ndarray | None = None,
                settings: HandSettings | None = None) -> tuple[dict[Player, HandTrack], HandViews]:
    """Both players' hands round ``pile``, view by view, on a strip of the mat (the pile's
    centre +- ``half_width_mm``, the whole height). Foreground is what differs from
    ``background`` (default: the first view, before the hands came). Each player's hand is
    watched where its arm crosses the player's edge of the mat (A's at large y): no other
    hand lies there, and it moves until the palm lands. The last view is the reference: both
    hands should lie still on the pile there."""
    t = _check_views(views, times)
    if len(views) < 3:
        raise ValueError(f"hand tracks need at least 3 views, got {len(views)}")
    geo = geometry or ViewGeometry()
    st = settings or HandSettings()
    cx = float(pile.center[0])
    x0, x1 = cx - st.half_width_mm, cx + st.half_width_mm
    bg = _strip(views[0] if background is None else background, geo, x0, x1, st).astype(np.int16)
    strips = [_strip(v, geo, x0, x1, st) for v in views]
    h, w = bg.shape[:2]
    s = st.px_per_mm
    ys = (np.arange(h) + 0.5) / s - geo.margin_mm
    xs = (np.arange(w) + 0.5) / s + x0
    mat_h = geo.mat_mm[1]
    core_x, core_y = st.core_mm
    py = float(pile.center[1])
    in_pile = ((np.abs(xs[None, :] - cx) <= core_x) & (np.abs(ys[:, None] - py) <= core_y))
    cell = 1.0 / (s * s)
    fg = np.stack([_fg(img, bg, st, st.min_area_mm2 / cell) for img in strips])
    grey = np.stack([cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) for img in strips]).astype(np.float32)
    smooth = (np.stack([cv2.GaussianBlur(g, (0, 0), st.settle_blur_px) for g in grey])
              if st.settle_blur_px > 0 else grey)
    out: dict[Player, HandTrack] = {}
    over = (fg & in_pile).sum(axis=(1, 2)) * cell
    band = {Player.A: (ys >= mat_h - st.arm_band_mm) & (ys <= mat_h + geo.margin_mm),
            Player.B: (ys <= st.arm_band_mm) & (ys >= -geo.margin_mm)}
    labels = _label_hands(strips, grey, fg, {p: band[p][:, None] for p in band}, st)
    labs = [cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32) for img in strips]
    colours = _hand_colours(labs, labels, st)
    by_colour = None
    if len(colours) == 2:
        near = np.hypot(xs[None, :] - cx, ys[:, None] - py) <= st.colour_near_mm
        by_colour = _by_colour(labs, fg, near, colours, st) * cell
    for p in (Player.A, Player.B):
        arm_region = fg[-1] & band[p][:, None]
        if arm_region.sum() * cell < st.min_arm_mm2:
            continue
        region = cv2.erode(arm_region.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if not region.any():
            region = arm_region
        if st.settle_contrast > 0:  # only pixels that can show a small move
            square = np.ones((st.settle_contrast_px, st.settle_contrast_px), np.uint8)
            textured = region & (cv2.dilate(smooth[-1], square) - cv2.erode(smooth[-1], square)
                                 >= st.settle_contrast)
            if textured.sum() >= st.min_timed_px:
                region = textured
        moving = np.abs(smooth[:, region] - smooth[-1][region]) > st.settle_level  # (n, pixels)
        still_on = ~np.logical_or.accumulate(moving[::-1], axis=0)[::-1]  # no later view moves there
        arm = (fg & band[p][None, :, None]).sum(axis=(1, 2)) * cell
        mine = labels == (1 if p is Player.A else 2)
        own = (mine & in_pile[None]).sum(axis=(1, 2)) * cell
        seen = None if by_colour is None else by_colour[:, 0 if p is Player.A else 1]
        out[p] = HandTrack(p, t, still_on.mean(axis=1), arm, over, own, seen)
    return out, HandViews(grey, fg, in_pile, s, labels, strips[-1])


def estimate_slap_contact(track: HandTrack, settings: HandSettings | None = None) -> ContactEstimate:
    """When the tracked hand's palm touched the pile: a slapping hand comes down fast and
    stops dead on the pile, and its arm with it, so the touch is when the arm's crossing of
    the player's edge comes to rest: when the share of it at rest (``track.settled``) reaches
    ``settle_share``, placed between two views by linear interpolation, less a calibrated
    lead. Timing the arm at the edge, not the hand, keeps the other hand out: a second hand
    landing on the first changes the first hand's picture, and two hands of one skin are
    split only roughly. ValueError when the arm never moved or never came to rest."""
    st = settings or HandSettings()
    n = len(track)
    if n < 5:
        raise ValueError(f"a slap contact needs at least 5 views of the hand, got {n}")
    share = np.asarray(track.settled, np.float64)
    if not np.isfinite(share).all():
        raise ValueError("the hand's settled share has gaps (NaN)")
    q = st.settle_share
    if share[0] >= q:
        raise ValueError("the hand never moved in these views: no slap to time")
    k = int(np.argmax(share >= q))
    if k >= n - 3:
        raise ValueError("the hand was still moving near the last view: it did not come to rest")
    dt = float(track.times[k] - track.times[k - 1])
    f = (q - share[k - 1]) / max(share[k] - share[k - 1], 1e-9)
    t_stop = float(track.times[k - 1]) + float(np.clip(f, 0.0, 1.0)) * dt
    sd = math.hypot(st.lead_sd_s, dt / math.sqrt(12.0) * 0.5)
    # a stop is sharp when most of the arm comes to rest within the last two views before it
    sharp = float(np.clip((share[k] - share[max(0, k - 2)]) / 0.5, 0.0, 1.0))
    arm = float(np.median(track.arm_mm2[k:]))
    quality = sharp * float(np.clip(arm / (3 * st.min_arm_mm2), 0.0, 1.0))
    return ContactEstimate(t_stop - st.lead_s, sd, n, quality, "arm-stop", t_stop, (math.nan, math.nan))


def hand_layering(tracks: dict[Player, HandTrack], settings: HandSettings | None = None) -> Layering:
    """Which hand lies underneath: the later hand lands on top and covers part of the first,
    so the first loses visible area near the pile and the other does not. Each hand is told by
    its own colour (``HandTrack.by_colour_mm2``, learnt where the hands lay apart), not by the
    split between them, which follows edges that two hands of one skin hardly show. Per player,
    the share of its largest visible area that is gone in the last views (the mean of the
    last three); a difference under ``layering_dead_zone`` says nothing, else P(A underneath)
    = logistic(``covered_logit`` * (A's lost share - B's))."""
    st = settings or HandSettings()
    lost: dict[Player, float] = {}
    most: dict[Player, float] = {}
    shown: dict[Player, tuple[int, int]] = {}
    for p, tr in tracks.items():
        if tr.by_colour_mm2 is None or not len(tr):
            continue
        peak = float(np.max(tr.by_colour_mm2))
        final = float(np.mean(tr.by_colour_mm2[-3:]))
        most[p] = peak
        shown[p] = (int(round(final)), int(round(peak)))
        if peak >= st.min_arm_mm2:
            lost[p] = (peak - final) / peak
    if len(lost) < 2:
        missing = [str(p) for p in (Player.A, Player.B) if p not in lost]
        why = ("their hands' colours were not learnt apart" if not most
               else f"{' and '.join(missing)}'s hand was hardly seen near the pile")
        return Layering(None, 0.5, 0.0, shown, f"no layering: {why}")
    la, lb = lost[Player.A], lost[Player.B]
    what = (f"near the pile A's hand kept {1 - la:.0%} of its largest visible area "
            f"({most[Player.A]:.0f} mm^2), B's {1 - lb:.0%} ({most[Player.B]:.0f} mm^2), by their colours")
    if abs(la - lb) < st.layering_dead_zone:
        return Layering(None, 0.5, 0.0, shown, f"no clear layering: {what}")
    p_a = _logistic(st.covered_logit * (la - lb))
    under = Player.A if p_a >= 0.5 else Player.B
    return Layering(under, p_a, abs(2 * p_a - 1), shown, f"{under}'s hand lies underneath: {what}")


#: The hands' layering counts for at most log-odds 3 (p 0.95): alone it calls a slap race the
#: arms' stops leave open (seed 6016: 12.7 ms apart), and against stops that name the other
#: side the verdict says the evidence disagrees. Over the 40 render slaps (slap-eval seeds
#: 6000-6019 and 7000-7019) it named a side 19 times, all right; the lost area split along
#: the hands' outlines (stop 29) named one 14 times and was right 6 times.
SLAP_DECISION = DecisionSettings(layering_max_logit=3.0)


#: The layering model's reading (:mod:`referee.vision.layering_reader`) counts for at most
#: log-odds 4.6 (p 0.99): it outweighs arms' stops less than about 2 sd apart (the stops err by
#: 10-45 ms, a frame is 33 ms), and stops far apart outweigh it. It named the hand underneath in
#: all 380 of the benchmark's slap races and in 99 % of fresh renders with the hands anywhere on
#: each other (models/HAND_LAYERING.md).
SLAP_DECISION_READ = DecisionSettings(layering_max_logit=4.6)


def decide_slap(contacts: dict[Player, ContactEstimate | None], layering: Layering | None,
                settings: DecisionSettings | None = None) -> Arbitration:
    """E2: whose hand came down on the pile first, like :func:`decide_first_touch`, with
    :data:`SLAP_DECISION` (the layering read by the hands' colours) or, for the layering model's
    reading, :data:`SLAP_DECISION_READ`."""
    return decide(contacts, layering, settings or SLAP_DECISION, what="hand", verb="slapped")


def slap_layering(tracks: dict[Player, HandTrack], hands: HandViews | None, reader: LayeringReader | None,
                  settings: HandSettings | None = None) -> tuple[Layering, DecisionSettings]:
    """Which hand lies underneath and how much that counts: read by the layering model from the
    last view's strip when there is a model (:data:`SLAP_DECISION_READ`), else by the hands'
    colours (:func:`hand_layering`, :data:`SLAP_DECISION`)."""
    if reader is not None and hands is not None:
        return reader.layering(hands.last), SLAP_DECISION_READ
    return hand_layering(tracks, settings), SLAP_DECISION


@dataclass(frozen=True)
class SlapEvidence:
    arbitration: Arbitration
    tracks: dict[Player, HandTrack]
    contacts: dict[Player, ContactEstimate | None]
    errors: dict[Player, str]


def arbitrate_slap(views: Sequence[np.ndarray], times: Sequence[float] | np.ndarray, pile: Zone,
                   geometry: ViewGeometry | None = None, *, background: np.ndarray | None = None,
                   players: Sequence[Player] | None = None, settings: HandSettings | None = None,
                   decision: DecisionSettings | None = None, reader: LayeringReader | None = None
                   ) -> SlapEvidence:
    """E2 from video: both hands round ``pile`` (:func:`hand_tracks`; the last view with both
    hands lying still), their touch times, the layering (:func:`slap_layering`: by ``reader``,
    the layering model, when given), and the call. ``players``: who slapped this pile, when
    the caller knows (from the slaps it saw); otherwise a player takes part when their hand
    covered the pile's core. When only one player's hand came down here, that player is first."""
    st = settings or HandSettings()
    tracks, hands = hand_tracks(views, times, pile, geometry, background=background, settings=st)
    contacts: dict[Player, ContactEstimate | None] = {}
    errors: dict[Player, str] = {}
    for p in (Player.A, Player.B):
        if players is not None and p not in players:
            tracks.pop(p, None)
            contacts[p] = None
            errors[p] = f"{p} did not slap {pile.id}"
            continue
        if p not in tracks:
            contacts[p] = None
            errors[p] = f"no hand of {p} reaches pile {pile.id}'s strip in the last view"
            continue
        if players is None and float(np.max(tracks[p].own_pile_mm2)) < st.min_over_pile_mm2:
            del tracks[p]
            contacts[p] = None
            errors[p] = f"{p}'s hand never came over {pile.id}"
            continue
        try:
            contacts[p] = estimate_slap_contact(tracks[p], st)
        except ValueError as exc:
            contacts[p] = None
            errors[p] = str(exc)
    present = [p for p in (Player.A, Player.B) if p in tracks]
    if len(present) == 1:
        p = present[0]
        arb = Arbitration(p, 1.0, None, f"only {p}'s hand came down on {pile.id}", None, None,
                          dict(contacts), None, p)
        return SlapEvidence(arb, tracks, contacts, errors)
    layering, read_settings = slap_layering(tracks, hands, reader, st)
    return SlapEvidence(decide_slap(contacts, layering, decision or read_settings), tracks, contacts, errors)
