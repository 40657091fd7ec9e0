"""Motion: a game's event log turned into cards and hands moving at the table, over time.

:class:`Choreography` is built once from a game's records (:mod:`referee.events`) and
answers :meth:`Choreography.at` for any time: every card's pose (identity, place, face up or
down) and every hand's pose, as the renderer's :class:`~referee.sim.scene.CardPose` and
:class:`~referee.sim.scene.HandPose`. The event times are the ground truth and are kept
exactly: a played card's lowest point first touches the pile at the event's ``t``; the hand
is at the card at the event's ``start``; a slapping palm touches the pile at ``t``.

The model (docs/sim-motion.md has more):

- Every card has a *track*: rests in a place (a stock slot, a packet, a spit pile) and
  flights between them. A flight moves the card horizontally along a minimum-jerk path that
  ends a few millimetres of sliding *after* the touch (the card lands moving and slides to
  rest), and vertically along :func:`~referee.sim.kinematics.landing_height`, touching at
  exactly ``t``. Resting cards lie ``CARD_THICKNESS_MM`` above the card beneath.
- Every hand has a track of segments: reaches (quintic, bell-shaped speed, lifted in the
  middle), rests at a home pose near its owner's edge of the table, following the card(s)
  it holds (the palm a fixed grip behind the card, the forearm pointing back to the
  shoulder), and slaps. Hands come from their owner's side: A's from large y, B's from small.
- Face-down cards have identities too: the bots' true cards when built with
  :meth:`Choreography.from_selfplay`, otherwise a deterministic assignment consistent with
  every card the log reveals (:class:`_Identities`).
"""

from __future__ import annotations

import bisect
import logging
import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

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
from referee.players import Player
from referee.rules import Game, Phase, RuleSet
from referee.rules.table import Origin
from referee.sim.decks import CARD_H_MM, CARD_W_MM
from referee.sim.kinematics import (
    bump,
    forward,
    landing_height,
    lerp_angle,
    minjerk,
    quintic,
    reach_angle,
    smoothstep,
    wrap_deg,
)
from referee.sim.scene import (
    CARD_THICKNESS_MM,
    DEFAULT_ZONES,
    SKIN_TONES,
    SLEEVES,
    CardPose,
    HandPose,
    Scene,
)

if TYPE_CHECKING:
    from referee.selfplay.bots import SelfPlayConfig

log = logging.getLogger(__name__)

T_CARD = CARD_THICKNESS_MM
GRIP_D_MM = 128.0  # palm centre behind the held card's centre, along the fingers
GRIP_H_MM = 18.5  # palm above the held card's lowest point: the fingertips rest on the card
SLAP_H_MM = 11.0  # palm above the pile's top when the hand lies flat on it
HAND_ON_HAND_MM = 24.0  # a second slapping hand lies this much higher, on the first
SEAT_BACK_MM = 280.0  # a player's body centre behind their edge of the mat
SHOULDER_MM = 170.0  # shoulder to body centre, sideways
HOME_BACK_MM = 85.0  # a waiting palm this far beyond its owner's edge of the mat
HOME_SIDE_MM = 120.0
HOME_H_MM = 40.0
RETREAT_S = 0.35  # time to pull a hand back home after an action
IDLE_SWAY_MM = 3.0  # a waiting hand drifts about this much
GROUP_RAMP_S = 0.12  # a hand holding several cards blends their grips over this time
SLIDE_S = (0.04, 0.09)  # a released card slides this long on the pile before it rests
PILE_SCATTER_MM = 4.0  # sd of where a played card comes to rest around the pile centre
PILE_SCATTER_DEG = 5.0
DEAL_S = 2.0  # a layout takes this long when the log gives no start


# --------------------------------------------------------------------------- public data


@dataclass(frozen=True)
class Contact:
    """An exact instant of the truth: a card first touching where it lands (``touch``), a
    card leaving a pile (``lift``), a palm touching a pile (``slap``).

    ``height`` is the card's lowest point (touch, lift) or the palm's height (slap) in mm;
    ``event`` is the index of the table event in its game (as :class:`Verdict.event`).
    """

    kind: str
    t: float
    player: str
    place: str
    height: float
    event: int
    card: str | None = None


@dataclass(frozen=True)
class TableState:
    """Everything on the table at one instant: the renderer's cards and hands.

    ``settled`` cards lie still, in the order they came to rest (a card that lands later is
    appended, so the renderer's background cache only adds it), a card above another of its
    place never before it; ``moving`` cards are in the air or sliding, lowest first, with the
    cards that lie still on a sliding card of their place (``at_rest``: a card that touched
    the pile after it, drawn over it); ``hands`` lowest first (a slapping hand underneath is
    drawn first).
    """

    time: float
    settled: tuple[CardPose, ...]
    moving: tuple[CardPose, ...]
    hands: tuple[HandPose, ...]

    @property
    def cards(self) -> tuple[CardPose, ...]:
        return self.settled + self.moving

    def scene(self, base: Scene, frame_index: int = 0) -> Scene:
        """``base`` (camera, table, light, mat) with this state's cards and hands."""
        return replace(base, settled=self.settled, moving=self.moving, hands=self.hands,
                       time=self.time, frame_index=frame_index)

    def arrays(self) -> dict[str, np.ndarray]:
        """Per-frame truth as parallel arrays, one row per card (settled then moving):
        ``card`` (code), ``place`` (tag), ``x``, ``y``, ``angle``, ``height`` (mm, degrees),
        ``face_up`` (the side facing up, a card mid-turn counting by its flip), ``moving``,
        and ``corners`` (n, 4, 3) world points of each face's corners."""
        cards = self.cards
        return {
            "card": np.array([c.card for c in cards]),
            "place": np.array([c.tag for c in cards]),
            "x": np.array([c.x for c in cards]),
            "y": np.array([c.y for c in cards]),
            "angle": np.array([c.angle for c in cards]),
            "height": np.array([c.height for c in cards]),
            "face_up": np.array([c.face_up != (abs(c.flip_deg) > 90) for c in cards]),
            "moving": np.array([False] * len(self.settled) + [not c.at_rest for c in self.moving]),
            "corners": np.array([c.corners() for c in cards]).reshape(len(cards), 4, 3),
        }

    def hand_arrays(self) -> dict[str, np.ndarray]:
        """Per-frame hand truth as parallel arrays, one row per hand (drawing order):
        ``owner``, ``left``, palm ``x``, ``y``, ``height`` (mm), ``angle`` (degrees, where the
        fingers point), ``spread``, ``velocity`` (n, 2) mm/s."""
        hands = self.hands
        return {
            "owner": np.array([h.owner for h in hands]),
            "left": np.array([h.left for h in hands], dtype=bool),
            "x": np.array([h.x for h in hands]),
            "y": np.array([h.y for h in hands]),
            "height": np.array([h.height for h in hands]),
            "angle": np.array([h.angle for h in hands]),
            "spread": np.array([h.spread for h in hands]),
            "velocity": np.array([h.velocity for h in hands]).reshape(len(hands), 2),
        }


@dataclass(frozen=True)
class DealtCards:
    """The true cards of one layout, as the bots dealt them: each slot's face-down cards
    (bottom first) and the spit packet (top last)."""

    stock: tuple[tuple[str, ...], ...]
    packet: tuple[str, ...]


@dataclass(frozen=True)
class MotionConfig:
    """Knobs of the motion model (speeds in mm/s, times in seconds, lengths in mm)."""

    lift_mm: tuple[float, float] = (14.0, 26.0)  # a carried card's lift above the straight path
    approach_speed: float = 900.0  # a hand fetching a card from home (mean speed)
    deal_s: float = DEAL_S
    take_pile_s: float = 0.5  # carrying a taken pile to the packet
    take_back_s: float = 0.4  # carrying a card taken back
    slap_hold_s: float = 0.45  # a slapping hand stays on the pile at least this long
    slap_spread_mm: float = 8.0  # a slapping hand's palm lands this far from the pile's centre (sd)
    #: a second slapping hand lands on the first this much beyond it, toward the other player;
    #: drawn from the range when it is one (``spit-referee train-hand-layering`` renders its
    #: slaps with hands anywhere on each other, so that where a hand lies does not tell its order)
    slap_aside_mm: tuple[float, float] = (18.0, 18.0)
    slap_aside_x_mm: float = 0.0  # ... and this far sideways (sd)


# --------------------------------------------------------------------------- card tracks


@dataclass(frozen=True)
class _Rest:
    x: float
    y: float
    angle: float
    height: float
    face_up: bool
    place: str


@dataclass(frozen=True)
class _Flight:
    """A card moving from ``src`` to ``dst``: leaves at ``t0``, touches at ``t_touch``, rests
    at ``t_rest``. ``turn_over`` turns it about its long axis on the way; ``in_place`` is a
    card turned over where it lies (the lowest edge stays down)."""

    t0: float
    t_touch: float
    t_rest: float
    src: _Rest
    dst: _Rest
    lift: float
    turn_over: bool = False
    in_place: bool = False
    tilt: float = 0.0  # degrees the held (near) end is raised at most; it lands leading edge first

    def pitch(self, u: float) -> float:
        """The card's pitch at normalised carry time ``u`` (0 pick-up, 1 touch)."""
        if not self.tilt:
            return 0.0
        return self.tilt * smoothstep(u, 0.0, 0.3) * (1.0 - 0.5 * smoothstep(u, 0.6, 1.0))

    def pose(self, t: float) -> tuple[float, float, float, float, bool, float, float]:
        """(x, y, angle, height, face_up, flip_deg, pitch_deg) at ``t``."""
        s, d = self.src, self.dst
        span = max(self.t_rest - self.t0, 1e-6)
        m = minjerk((t - self.t0) / span)
        x = s.x + (d.x - s.x) * m
        y = s.y + (d.y - s.y) * m
        angle = lerp_angle(s.angle, d.angle, m)
        if t >= self.t_touch:  # on the pile: it falls flat about its leading edge as it slides
            settle = 1.0 - minjerk((t - self.t_touch) / max(self.t_rest - self.t_touch, 1e-6))
            return x, y, angle, d.height, d.face_up, 0.0, self.pitch(1.0) * settle
        u = (t - self.t0) / max(self.t_touch - self.t0, 1e-6)
        if self.in_place:
            h = s.height + (d.height - s.height) * minjerk(u) + 2.0 * math.sin(math.pi * u)
        else:
            h = landing_height(u, s.height, d.height, self.lift)
        flip = 180.0 * minjerk(u / 0.85) if self.turn_over else 0.0
        face_up = s.face_up
        if flip > 90.0:
            face_up, flip = not face_up, flip - 180.0
        return x, y, angle, h, face_up, flip, self.pitch(u)


class _CardState(NamedTuple):
    x: float
    y: float
    angle: float
    height: float
    face_up: bool
    flip: float
    pitch: float
    place: str
    moving: bool
    rest_since: float  # inf while moving
    seq: int  # order of coming to rest
    touched: bool = False  # moving, but already on its place (sliding to rest)


class _CardTrack:
    """One card's life: rests and flights, in time order."""

    def __init__(self, rest: _Rest, seq: int) -> None:
        self.starts: list[float] = [-math.inf]
        self.items: list[_Rest | _Flight] = [rest]
        self.seqs: list[int] = [seq]

    @property
    def current(self) -> _Rest:
        last = self.items[-1]
        return last.dst if isinstance(last, _Flight) else last

    @property
    def free_at(self) -> float:
        last = self.items[-1]
        return last.t_rest if isinstance(last, _Flight) else self.starts[-1]

    def fly(self, flight: _Flight, seq: int) -> None:
        self.starts.append(flight.t0)
        self.items.append(flight)
        self.seqs.append(-1)
        self.starts.append(flight.t_rest)
        self.items.append(flight.dst)
        self.seqs.append(seq)

    def cut(self, t: float) -> None:
        """A card still sliding at ``t`` stops sliding then (it is picked up again)."""
        if len(self.items) < 2 or not isinstance(self.items[-2], _Flight):
            return
        flight = self.items[-2]
        assert isinstance(flight, _Flight)
        if flight.t_touch <= t < flight.t_rest:
            self.items[-2] = replace(flight, t_rest=t)
            self.starts[-1] = t

    def settle(self, t: float, rest: _Rest, seq: int) -> None:
        """The card lies differently from ``t`` on (a card beneath it was pulled out)."""
        if self.starts[-1] > t:
            t = self.starts[-1]
        self.starts.append(t)
        self.items.append(rest)
        self.seqs.append(seq)

    def index(self, t: float) -> int:
        return max(0, bisect.bisect_right(self.starts, t) - 1)

    def pose(self, t: float) -> _CardState:
        """Where the card is at ``t``."""
        i = self.index(t)
        item = self.items[i]
        if isinstance(item, _Flight):
            x, y, a, h, up, flip, pitch = item.pose(t)
            return _CardState(x, y, a, h, up, flip, pitch, item.dst.place, True, math.inf, 0,
                              t >= item.t_touch)
        return _CardState(item.x, item.y, item.angle, item.height, item.face_up, 0.0, 0.0, item.place,
                          False, self.starts[i], self.seqs[i])


# --------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class _Grip:
    """How a hand holds a card: palm ``d`` behind the card centre along the fingers, ``u``
    to the side, the forearm turned ``twist`` degrees from the shoulder direction."""

    d: float = GRIP_D_MM
    u: float = 0.0
    twist: float = 0.0
    dh: float = 0.0
    spread: float = 0.25


_HPose = tuple[float, float, float, float, float]  # x, y, angle, height, spread


@dataclass(frozen=True)
class _Arm:
    """One hand's fixed geometry: whose, which, where the shoulder and the home pose are."""

    owner: Player
    left: bool
    shoulder: tuple[float, float]
    home: _HPose

    def holding(self, card: _CardState, grip: _Grip) -> _HPose:
        x, y, h, flip, pitch = card.x, card.y, card.height, card.flip, card.pitch
        a = reach_angle(self.shoulder, (x, y)) + grip.twist
        fx, fy = forward(a)
        rx, ry = -fy, fx
        px = x - fx * grip.d - rx * grip.u
        py = y - fy * grip.d - ry * grip.u
        # the fingertips are on the raised edge of a card being turned, or its raised near end
        lift = (CARD_W_MM / 2 * abs(math.sin(math.radians(flip)))
                + CARD_H_MM * abs(math.sin(math.radians(pitch))))
        return px, py, a, h + lift + GRIP_H_MM + grip.dh, grip.spread

    def over(self, x: float, y: float, height: float, spread: float) -> _HPose:
        """The palm at (x, y), the forearm pointing back to the shoulder."""
        return x, y, reach_angle(self.shoulder, (x, y)), height, spread


class _HSeg:
    t0: float
    t1: float

    def pose(self, t: float) -> _HPose:
        raise NotImplementedError


@dataclass
class _HStill(_HSeg):
    """A hand waiting at ``at``; with ``sway`` (mm) it drifts a little, as a waiting hand
    does, easing in and out so that it joins its neighbours smoothly."""

    t0: float
    t1: float
    at: _HPose
    sway: float = 0.0
    phase: float = 0.0

    def pose(self, t: float) -> _HPose:
        if not self.sway:
            return self.at
        w = 1.0
        if self.t0 > -math.inf:
            w *= smoothstep(t, self.t0, self.t0 + 0.5)
        if self.t1 < math.inf:
            w *= 1.0 - smoothstep(t, self.t1 - 0.5, self.t1)
        if w <= 0.0:
            return self.at
        a, two_pi = self.sway * w, 2.0 * math.pi
        ph = self.phase
        x, y, ang, h, sp = self.at
        return (x + a * (math.sin(two_pi * 0.23 * t + ph) + 0.4 * math.sin(two_pi * 0.61 * t + 2 * ph)),
                y + a * (math.sin(two_pi * 0.17 * t + 3 * ph) + 0.4 * math.sin(two_pi * 0.47 * t + ph)),
                ang + 0.5 * a * math.sin(two_pi * 0.13 * t + 5 * ph),
                h + 0.6 * a * math.sin(two_pi * 0.31 * t + 7 * ph), sp)


@dataclass
class _HReach(_HSeg):
    t0: float
    t1: float
    p0: _HPose
    v0: _HPose
    p1: _HPose
    arc: float

    def pose(self, t: float) -> _HPose:
        d, tau = self.t1 - self.t0, t - self.t0
        x = quintic(self.p0[0], self.v0[0], self.p1[0], 0.0, d, tau)
        y = quintic(self.p0[1], self.v0[1], self.p1[1], 0.0, d, tau)
        a1 = self.p0[2] + wrap_deg(self.p1[2] - self.p0[2])
        a = quintic(self.p0[2], self.v0[2], a1, 0.0, d, tau)
        h = quintic(self.p0[3], self.v0[3], self.p1[3], 0.0, d, tau)
        h = max(h, min(self.p0[3], self.p1[3])) + self.arc * bump(tau / d if d > 0 else 1.0)
        sp = quintic(self.p0[4], 0.0, self.p1[4], 0.0, d, tau)
        return x, y, a, h, sp


@dataclass
class _HFollow(_HSeg):
    """A hand holding one or more cards: their grips blended (one card: exactly its grip)."""

    t0: float
    t1: float
    arm: _Arm
    members: list[tuple[_CardTrack, float, float, _Grip]]  # track, grab, release, grip

    def pose(self, t: float) -> _HPose:
        if len(self.members) == 1:
            track, _, _, grip = self.members[0]
            return self.arm.holding(track.pose(t), grip)
        acc = np.zeros(6)
        total = 0.0
        best: tuple[float, _HPose] | None = None
        for track, a, e, grip in self.members:
            w = smoothstep(t, a - GROUP_RAMP_S, a) * (1.0 - smoothstep(t, e, e + GROUP_RAMP_S))
            p = self.arm.holding(track.pose(t), grip)
            gap = max(a - t, t - e, 0.0)
            if best is None or gap < best[0]:
                best = (gap, p)
            if w <= 0.0:
                continue
            r = math.radians(p[2])
            acc += w * np.array([p[0], p[1], math.cos(r), math.sin(r), p[3], p[4]])
            total += w
        if total <= 1e-9:
            assert best is not None
            return best[1]
        acc /= total
        return (float(acc[0]), float(acc[1]), math.degrees(math.atan2(acc[3], acc[2])),
                float(acc[4]), min(1.0, float(acc[5]) + 0.25))


@dataclass
class _HSlap(_HSeg):
    """A palm coming down onto a pile, touching at ``t_contact``, staying until ``t1``."""

    t0: float
    t_contact: float
    t1: float
    p0: _HPose
    contact: _HPose
    lift: float

    def pose(self, t: float) -> _HPose:
        if t >= self.t_contact:
            return self.contact
        d = self.t_contact - self.t0
        hd = max(d - 0.03, d * 0.7)
        m = minjerk((t - self.t0) / hd)
        x = self.p0[0] + (self.contact[0] - self.p0[0]) * m
        y = self.p0[1] + (self.contact[1] - self.p0[1]) * m
        a = lerp_angle(self.p0[2], self.contact[2], m)
        h = landing_height((t - self.t0) / d, self.p0[3], self.contact[3], self.lift)
        sp = self.p0[4] + (self.contact[4] - self.p0[4]) * m
        return x, y, a, h, sp


@dataclass
class _HKeys(_HSeg):
    """A hand visiting poses at given times, stopping briefly at each (dealing along the
    row, gathering the stock): minimum-jerk between consecutive keys, lifted between."""

    t0: float
    t1: float
    keys: list[tuple[float, _HPose]]

    def pose(self, t: float) -> _HPose:
        times = [k[0] for k in self.keys]
        i = bisect.bisect_right(times, t) - 1
        if i < 0:
            return self.keys[0][1]
        if i >= len(self.keys) - 1:
            return self.keys[-1][1]
        (ta, pa), (tb, pb) = self.keys[i], self.keys[i + 1]
        s = (t - ta) / max(tb - ta, 1e-6)
        m = minjerk(s)
        dist = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
        return (pa[0] + (pb[0] - pa[0]) * m, pa[1] + (pb[1] - pa[1]) * m, lerp_angle(pa[2], pb[2], m),
                pa[3] + (pb[3] - pa[3]) * m + min(20.0, 0.15 * dist) * bump(s),
                pa[4] + (pb[4] - pa[4]) * m)


@dataclass
class _Action:
    """Something one hand does. ``arrive``/``first`` fix where the hand must be when the
    action begins (None for a slap, which starts from wherever the hand is at ``set_off``)."""

    set_off: float | None
    arrive: float
    end: float
    members: list[tuple[_CardTrack, float, float, _Grip]] = field(default_factory=list)
    slap: tuple[float, _HPose, float] | None = None  # contact time, contact pose, lift
    keys: list[tuple[float, _HPose]] | None = None  # visit these instead of following cards


class _HandTrack:
    def __init__(self, arm: _Arm, segments: list[_HSeg]) -> None:
        self.arm = arm
        self.segments = segments
        self.starts = [s.t0 for s in segments]

    def pose(self, t: float) -> _HPose:
        i = max(0, bisect.bisect_right(self.starts, t) - 1)
        seg = self.segments[i]
        if t > seg.t1 and i == len(self.segments) - 1:
            t = seg.t1
        return seg.pose(t)

    def velocity(self, t: float, dt: float = 0.004) -> _HPose:
        a, b = self.pose(t - dt), self.pose(t + dt)
        return tuple((q - p) / (2 * dt) if k != 2 else wrap_deg(q - p) / (2 * dt)
                     for k, (p, q) in enumerate(zip(a, b, strict=True)))  # type: ignore[return-value]


def _merge_overlaps(actions: list[_Action]) -> list[_Action]:
    """One hand's actions in time order, carries that overlap merged into one (a hand that
    holds two cards at once, a deal); a slap overlapping something cuts it short."""
    out: list[_Action] = []
    for act in sorted(actions, key=lambda a: a.arrive):
        prev = out[-1] if out else None
        if prev is not None and act.arrive < prev.end + 0.02:
            if prev.slap is None and act.slap is None and prev.keys is None and act.keys is None:
                prev.members = sorted(prev.members + act.members, key=lambda m: m[1])
                prev.end = max(prev.end, act.end)
                continue
            prev.end = max(prev.arrive, min(prev.end, act.arrive - 0.02))
        out.append(act)
    return out


def _build_hand(arm: _Arm, actions: list[_Action], cfg: MotionConfig) -> _HandTrack:
    """Connect a hand's actions with reaches, going home between them when there is time."""
    segs: list[_HSeg] = []
    home = arm.home
    cursor_t, cursor_p, cursor_v = -math.inf, home, (0.0,) * 5

    def add(seg: _HSeg) -> None:
        segs.append(seg)

    def end_state(t: float) -> tuple[_HPose, _HPose]:
        seg = segs[-1]
        dt = 0.004
        p1, p0 = seg.pose(t), seg.pose(t - dt)
        v = tuple((q - p) / dt if k != 2 else wrap_deg(q - p) / dt
                  for k, (p, q) in enumerate(zip(p0, p1, strict=True)))
        return p1, v  # type: ignore[return-value]

    def go(t0: float, t1: float, p0: _HPose, v0: _HPose, p1: _HPose) -> None:
        dist = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
        add(_HReach(t0, t1, p0, v0, p1, min(40.0, 0.12 * dist)))

    phase = (home[0] * 0.37 + home[1] * 0.11) % (2 * math.pi)

    def wait(t0: float, t1: float) -> _HStill:
        return _HStill(t0, t1, home, IDLE_SWAY_MM, phase)

    def retreat_then(t_go: float) -> _HPose:
        """From the cursor, home if there is time before ``t_go``; the pose at ``t_go``."""
        nonlocal cursor_t
        if cursor_t == -math.inf:
            add(wait(-math.inf, t_go))
            return home
        if t_go - cursor_t >= RETREAT_S + 0.05:
            go(cursor_t, cursor_t + RETREAT_S, cursor_p, cursor_v, home)
            add(wait(cursor_t + RETREAT_S, t_go))
            return home
        return cursor_p

    for act in _merge_overlaps(actions):
        if act.slap is not None:
            t_contact, contact, lift = act.slap
            sigma = max(act.set_off if act.set_off is not None else t_contact - 0.25, cursor_t)
            sigma = min(sigma, t_contact - 0.06)
            if sigma > cursor_t:
                start_p = retreat_then(sigma)
                if start_p is cursor_p and cursor_t != -math.inf:
                    stop = (*cursor_p[:3], cursor_p[3] + 10.0, cursor_p[4])
                    go(cursor_t, sigma, cursor_p, cursor_v, stop)
                    start_p = stop
            else:
                start_p = cursor_p
            add(_HSlap(sigma, t_contact, act.end, start_p, contact, lift))
            cursor_t = act.end
            cursor_p, cursor_v = contact, (0.0,) * 5
            continue
        follow: _HSeg = (_HKeys(act.arrive, act.end, act.keys) if act.keys is not None
                         else _HFollow(act.arrive, act.end, arm, act.members))
        first = follow.pose(act.arrive)
        if act.set_off is not None:
            sigma = act.set_off
        else:
            dist = math.hypot(first[0] - home[0], first[1] - home[1])
            sigma = act.arrive - min(0.6, max(0.25, 0.12 + dist / cfg.approach_speed))
        if act.arrive <= cursor_t + 1e-6:
            log.debug("hand %s%s: action at %.3f overlaps the previous one (till %.3f)",
                      arm.owner, "L" if arm.left else "R", act.arrive, cursor_t)
        elif sigma - cursor_t >= RETREAT_S + 0.05 or cursor_t == -math.inf:
            retreat_then(sigma)
            go(sigma, act.arrive, home, (0.0,) * 5, first)
        else:
            go(cursor_t, act.arrive, cursor_p, cursor_v, first)
        add(follow)
        cursor_t = act.end
        cursor_p, cursor_v = end_state(act.end)
    if cursor_t == -math.inf:
        add(wait(-math.inf, math.inf))
    else:
        go(cursor_t, cursor_t + RETREAT_S, cursor_p, cursor_v, home)
        add(wait(cursor_t + RETREAT_S, math.inf))
    return _HandTrack(arm, segs)


# --------------------------------------------------------------------------- identities


class _Identities:
    """Which physical card (token 0-51) is which card, bound as the log reveals them.

    Tokens that are never revealed get the cards no one saw, in a seeded order, at the end.
    """

    def __init__(self) -> None:
        self.of: dict[int, str] = {}
        self.token: dict[str, int] = {}

    def bind(self, token: int, card: str) -> None:
        old = self.of.get(token)
        if old == card:
            return
        if old is not None or card in self.token:
            raise MotionError(f"card {card} cannot be token {token} (already {old}, "
                              f"or {card} is token {self.token.get(card)})")
        self.of[token] = card
        self.token[card] = token

    def finish(self, rng: random.Random) -> dict[int, str]:
        free = [str(c) for c in FULL_DECK if str(c) not in self.token]
        rng.shuffle(free)
        for tok in range(52):
            if tok not in self.of:
                self.bind(tok, free.pop())
        return dict(self.of)


class MotionError(ValueError):
    """A log the motion cannot follow (it contradicts the cards on the table)."""


# --------------------------------------------------------------------------- the builder


def _zones_from_mat(path: str | Path | None = None) -> dict[str, tuple[float, float, float]]:
    try:
        from referee.vision.mat import load_layout

        layout = load_layout(path)
        return {z.id: (float(z.center[0]), float(z.center[1]), float(z.angle_deg))
                for z in layout.zones}
    except (ImportError, OSError) as exc:  # pragma: no cover - the mat ships with the package
        log.warning("mat layout unavailable (%s); using the built-in default zones", exc)
        return dict(DEFAULT_ZONES)


class Choreography:
    """The motion of one game: build once, then ask :meth:`at` for any time.

    ``records``: one game's log (``game_start`` first; further games are ignored).
    ``dealt``: the true face-down cards of each layout, keyed by the index of the ``deal``
    event among the game's table events (:meth:`from_selfplay` fills it); without it the
    face-down cards get a deterministic assignment consistent with every revealed card.
    ``seed`` draws everything random (offsets, grips, lifts, skin); the same records and seed
    give the same motion.
    """

    def __init__(self, records: Iterable[Record], seed: int = 0,
                 dealt: Mapping[int, DealtCards] | None = None,
                 zones: Mapping[str, tuple[float, float, float]] | None = None,
                 mat_size: tuple[float, float] = (594.0, 420.0),
                 config: MotionConfig | None = None) -> None:
        self.seed = seed
        self.config = config or MotionConfig()
        self.zones = dict(zones) if zones is not None else _zones_from_mat()
        self.mat_size = mat_size
        self.rules = RuleSet()
        events: list[TableEvent] = []
        started = False
        for rec in records:
            if isinstance(rec, GameStart):
                if started:
                    break
                started = True
                self.rules = rec.rules
            elif isinstance(rec, TableEvent):
                events.append(rec)
        self.events: tuple[TableEvent, ...] = tuple(events)
        self.contacts: list[Contact] = []
        self._rng = random.Random(seed)
        self._dealt = dict(dealt or {})
        self._build()

    # ------------------------------------------------------------------ construction helpers

    @classmethod
    def from_selfplay(cls, seed: int, selfplay_config: SelfPlayConfig | None = None, *,
                      motion_seed: int | None = None,
                      zones: Mapping[str, tuple[float, float, float]] | None = None,
                      config: MotionConfig | None = None) -> Choreography:
        """Play a game with the bots (``SelfPlay(seed, selfplay_config)``) and follow it with
        the bots' true face-down cards; the motion's randomness is seeded by ``motion_seed``
        (default ``seed``)."""
        records, dealt = selfplay_with_truth(seed, selfplay_config)
        return cls(records, seed=seed if motion_seed is None else motion_seed, dealt=dealt,
                   zones=zones, config=config)

    def _zone(self, name: str) -> tuple[float, float, float]:
        if name in self.zones:
            return self.zones[name]
        # A slot beyond the mat's zones (the sixth pile): one step past the last slot.
        player, rest = name.split(".")
        n = int(rest.removeprefix("stock"))
        last = max(int(z.split(".stock")[1]) for z in self.zones if z.startswith(f"{player}.stock"))
        x1, y1, a = self.zones[f"{player}.stock{last}"]
        x0, y0, _ = self.zones[f"{player}.stock{last - 1}"]
        k = n - last
        return x1 + (x1 - x0) * k, y1 + (y1 - y0) * k, a

    def _arm(self, player: Player, left: bool) -> _Arm:
        w, h = self.mat_size
        rng = random.Random(f"{self.seed}-arm-{player}-{left}")
        if player is Player.A:
            body = (w / 2, h + SEAT_BACK_MM)
            right = (1.0, 0.0)
            home_y = h + HOME_BACK_MM + rng.uniform(-15, 15)
        else:
            body = (w / 2, -SEAT_BACK_MM)
            right = (-1.0, 0.0)
            home_y = -HOME_BACK_MM + rng.uniform(-15, 15)
        side = -1.0 if left else 1.0
        shoulder = (body[0] + side * right[0] * SHOULDER_MM, body[1])
        home_x = body[0] + side * right[0] * (HOME_SIDE_MM + rng.uniform(-20, 20))
        angle = reach_angle(shoulder, (home_x, home_y)) + rng.uniform(-8, 8)
        return _Arm(player, left, shoulder, (home_x, home_y, angle, HOME_H_MM + rng.uniform(-8, 8), 0.3))

    # ------------------------------------------------------------------ the build

    def _build(self) -> None:
        rng = self._rng
        self._tracks: dict[int, _CardTrack] = {}
        self._places: dict[str, list[int]] = {}
        self._ids = _Identities()
        self._seq = 0
        self._actions: dict[tuple[Player, bool], list[_Action]] = {
            (p, left): [] for p in Player for left in (False, True)}
        self._used_hands: set[tuple[Player, bool]] = set()
        self._last_end: dict[Player, float] = {p: 0.0 for p in Player}
        self._slaps: dict[int, list[tuple[float, float]]] = {1: [], 2: []}  # pile -> (t, height)
        self._slap_actions: dict[int, list[_Action]] = {1: [], 2: []}
        self._primary = {p: self._primary_hand(p) for p in Player}
        # The deck, halved: 26 face-down cards in each player's packet.
        for p in Player:
            place = f"{p}.packet"
            for i in range(26):
                tok = (0 if p is Player.A else 26) + i
                self._places.setdefault(place, []).append(tok)
                self._tracks[tok] = _CardTrack(self._rest_at(place, i, False), self._next_seq())
        game = Game(self.rules)
        for index, ev in enumerate(self.events):
            before_phase = game.phase
            allocation = dict(game.allocation or {})
            taken = set(game.taken)
            origin = None
            if isinstance(ev, TakeBack):
                entry = next((e for e in reversed(game.piles[ev.pile].cards) if e.card == ev.card), None)
                origin = entry
            game.apply(ev)
            if isinstance(ev, Deal):
                self._deal(index, ev, game, before_phase, allocation, taken)
            elif isinstance(ev, Turn):
                self._turn(index, ev)
            elif isinstance(ev, SpitTurn):
                self._carry_to_pile(index, ev, f"{ev.player}.packet", ev.pile, turn_over=True)
            elif isinstance(ev, Play):
                self._carry_to_pile(index, ev, f"{ev.player}.stock{ev.slot}", ev.pile)
            elif isinstance(ev, Move):
                self._move(index, ev)
            elif isinstance(ev, TakeBack):
                assert origin is not None
                self._take_back(index, ev, origin.player, origin.origin, origin.slot)
            elif isinstance(ev, Slap):
                self._slap(index, ev)
            elif isinstance(ev, TakePile):
                self._take_pile(index, ev, moved=ev.pile in game.taken)
        self.identities = self._ids.finish(random.Random(f"{self.seed}-identities"))
        arms = {key: self._arm(*key) for key in self._actions}
        self._hands = [_build_hand(arms[key], self._actions[key], self.config)
                       for key in sorted(self._actions, key=lambda k: (k[0], k[1]))
                       if key in self._used_hands]
        look = random.Random(f"{self.seed}-look")
        self._look = {p: (SKIN_TONES[look.randrange(len(SKIN_TONES))],
                          SLEEVES[look.randrange(len(SLEEVES))], look.uniform(0.92, 1.08))
                      for p in Player}
        self._token_list = sorted(self._tracks)
        log.debug("motion: %d events, %.1f s, %d hands, %d contacts", len(self.events),
                  self.duration, len(self._hands), len(self.contacts))
        del rng

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _rest_at(self, place: str, index: int, face_up: bool, player: Player | None = None) -> _Rest:
        """Where a card comes to rest as card number ``index`` (0 = bottom) of ``place``."""
        rng = self._rng
        h = (index + 0.5) * T_CARD
        if place.startswith("pile"):
            x, y, _ = self._zone(place)
            base = 180.0 if player is Player.B else 0.0
            return _Rest(x + rng.gauss(0, PILE_SCATTER_MM), y + rng.gauss(0, PILE_SCATTER_MM),
                         base + rng.gauss(0, PILE_SCATTER_DEG), h, face_up, place)
        x, y, a = self._zone(place)
        sd = 0.6 if place.endswith("packet") else 1.0
        return _Rest(x + rng.gauss(0, sd), y + rng.gauss(0, sd), a + rng.gauss(0, 1.2), h, face_up,
                     place)

    def _hand_key(self, ev: TableEvent) -> tuple[Player, bool]:
        if ev.hand is not None:
            left = ev.hand is Hand.LEFT
        else:
            left = self._default_left(ev.player)
        key = (ev.player, left)
        self._used_hands.add(key)
        return key

    def _default_left(self, player: Player) -> bool:
        return self._primary[player]

    def _primary_hand(self, player: Player) -> bool:
        """True when the player mostly uses the left hand (by the log's ``hand`` fields)."""
        hands = [ev.hand for ev in self.events if ev.player is player and ev.hand is not None]
        return sum(h is Hand.LEFT for h in hands) > len(hands) / 2

    def _grip(self, spread: float = 0.25, d: float = GRIP_D_MM) -> _Grip:
        rng = self._rng
        return _Grip(d + rng.uniform(-8, 6), rng.uniform(-12, 12), rng.uniform(-10, 10), 0.0, spread)

    def _fly(self, token: int, t0: float, t_touch: float, dst: _Rest, *, turn_over: bool = False,
             in_place: bool = False, slide: float | None = None, lift: float | None = None,
             tilt: float = 0.0) -> _Flight:
        track = self._tracks[token]
        src = track.current
        track.cut(t0)
        t0 = max(t0, track.free_at)
        t_touch = max(t_touch, t0 + 1e-3)
        if slide is None:
            slide = self._rng.uniform(*SLIDE_S)
        if lift is None:
            lift = self._rng.uniform(*self.config.lift_mm)
        flight = _Flight(t0, t_touch, t_touch + slide, src, dst, lift, turn_over, in_place, tilt)
        track.fly(flight, self._next_seq())
        return flight

    def _tilt(self) -> float:
        """How far a carried card's held end is raised (degrees): it lands leading edge first."""
        return self._rng.uniform(5.0, 12.0)

    def _take_top(self, place: str) -> int:
        stack = self._places.get(place)
        if not stack:
            raise MotionError(f"no card in {place}")
        return stack.pop()

    def _put(self, place: str, token: int) -> int:
        stack = self._places.setdefault(place, [])
        stack.append(token)
        return len(stack) - 1

    def _reveal(self, token: int, card: Card, place: str) -> int:
        """Bind the face-down ``token`` just taken from the top of ``place`` to ``card``.

        When the log reveals a card the assignment did not put there (a card taken back or
        a pile taken onto a packet in an unusual order), a face-down card of the same place
        that can be ``card`` takes the top's place unseen; the token to move is returned.
        """
        code = str(card)
        if self._ids.of.get(token) == code:
            return token
        if token not in self._ids.of and code not in self._ids.token:
            self._ids.bind(token, code)
            return token
        stack = self._places.get(place, [])
        want = self._ids.token.get(code)
        for k in range(len(stack) - 1, -1, -1):
            cand = stack[k]
            if cand == want or (want is None and cand not in self._ids.of):
                if self._tracks[cand].current.face_up:
                    continue
                log.warning("%s revealed from %s: a face-down card swapped to the top", code, place)
                a, b = self._tracks[token], self._tracks[cand]
                pa, pb = a.current, b.current
                when = max(a.free_at, b.free_at)
                a.settle(when, pb, self._next_seq())
                b.settle(when, pa, self._next_seq())
                stack[k] = token
                if want is None:
                    self._ids.bind(cand, code)
                return cand
        raise MotionError(f"{code} revealed from {place}, but no face-down card there can be it")

    def _check(self, token: int, card: Card, place: str) -> None:
        code = str(card)
        if self._ids.of.get(token) != code:
            raise MotionError(f"{code} is not the top card of {place} "
                              f"({self._ids.of.get(token, 'a face-down card')})")

    def _touch(self, kind: str, index: int, ev: TableEvent, place: str, height: float,
               token: int | None) -> None:
        card = None if token is None else self._ids.of.get(token)
        self.contacts.append(Contact(kind, ev.t, str(ev.player), place, height, index, card))

    # ------------------------------------------------------------------ events

    def _carry_to_pile(self, index: int, ev: Play | SpitTurn, src_place: str, pile: int,
                       turn_over: bool = False) -> None:
        token = self._take_top(src_place)
        if turn_over:
            token = self._reveal(token, ev.card, src_place)
        else:
            self._check(token, ev.card, src_place)
        dst_place = f"pile{pile}"
        i = self._put(dst_place, token)
        dst = self._rest_at(dst_place, i, True, ev.player)
        start = _start(ev, 0.45)
        flight = self._fly(token, start, ev.t, dst, turn_over=turn_over, tilt=self._tilt())
        self._touch("touch", index, ev, dst_place, dst.height, token)
        self._hold(ev, token, flight.t0, flight.t_touch)

    def _next_start(self, index: int, player: Player) -> float:
        """When the player's next action after event ``index`` begins (inf if none)."""
        for ev in self.events[index + 1:]:
            if ev.player is player:
                return ev.start if ev.start is not None else ev.t - 0.3
        return math.inf

    def _hold(self, ev: TableEvent, token: int, grab: float, release: float,
              set_off: float | None = None, grip: _Grip | None = None) -> None:
        key = self._hand_key(ev)
        member = (self._tracks[token], grab, release, grip or self._grip())
        self._actions[key].append(_Action(set_off, grab, release, [member]))
        self._last_end[ev.player] = max(self._last_end[ev.player], release)

    def _turn(self, index: int, ev: Turn) -> None:
        place = f"{ev.player}.stock{ev.slot}"
        token = self._take_top(place)
        token = self._reveal(token, ev.card, place)
        i = self._put(place, token)
        src = self._tracks[token].current
        dst = replace(src, face_up=True, height=(i + 0.5) * T_CARD,
                      angle=src.angle + self._rng.gauss(0, 1.5))
        start = _start(ev, 0.25)
        self._fly(token, start, ev.t, dst, turn_over=True, in_place=True, slide=0.0)
        self._touch("touch", index, ev, place, dst.height, token)
        self._hold(ev, token, start, ev.t, grip=self._grip(spread=0.35, d=GRIP_D_MM - 25))

    def _move(self, index: int, ev: Move) -> None:
        src_place = f"{ev.player}.stock{ev.from_slot}"
        dst_place = f"{ev.player}.stock{ev.to_slot}"
        token = self._take_top(src_place)
        self._check(token, ev.card, src_place)
        i = self._put(dst_place, token)
        dst = self._rest_at(dst_place, i, True)
        start = _start(ev, 0.45)
        self._fly(token, start, ev.t, dst, tilt=self._tilt())
        self._touch("touch", index, ev, dst_place, dst.height, token)
        self._hold(ev, token, start, ev.t)

    def _take_back(self, index: int, ev: TakeBack, owner: Player, origin: Origin,
                   slot: int | None) -> None:
        pile_place = f"pile{ev.pile}"
        stack = self._places[pile_place]
        pos = next((k for k in range(len(stack) - 1, -1, -1)
                    if self._ids.of.get(stack[k]) == str(ev.card)), None)
        if pos is None:
            raise MotionError(f"{ev.card} is not on {pile_place}")
        token = stack.pop(pos)
        for k in range(pos, len(stack)):  # the cards above drop by one thickness
            tr = self._tracks[stack[k]]
            tr.settle(ev.t, replace(tr.current, height=(k + 0.5) * T_CARD), self._next_seq())
        if origin is Origin.STOCK:
            dst_place = f"{owner}.stock{slot}"
            face_up = True
        else:
            dst_place = f"{owner}.packet"
            face_up = False
        i = self._put(dst_place, token)
        dst = self._rest_at(dst_place, i, face_up)
        lift_height = self._tracks[token].current.height
        carry = min(self.config.take_back_s, max(0.2, self._next_start(index, ev.player) - ev.t - 0.25))
        flight = self._fly(token, ev.t, ev.t + carry, dst, turn_over=not face_up,
                           tilt=self._tilt())
        self.contacts.append(Contact("lift", flight.t0, str(ev.player), pile_place, lift_height, index,
                                     str(ev.card)))
        set_off = _start(ev, 0.35)
        self._hold(ev, token, flight.t0, flight.t_touch, set_off=set_off)

    def _slap(self, index: int, ev: Slap) -> None:
        key = self._hand_key(ev)
        arm = self._arm(*key)
        pile_place = f"pile{ev.pile}"
        x, y, _ = self._zone(pile_place)
        top = len(self._places.get(pile_place, [])) * T_CARD
        height = top + SLAP_H_MM
        # A hand already lying on this pile: this one lands on it, a little aside.
        under = [h for (t_c, h) in self._slaps[ev.pile] if ev.t - 1.0 < t_c <= ev.t]
        if under:
            height = max(under) + HAND_ON_HAND_MM
        rng = self._rng
        cfg = self.config
        cx, cy = x + rng.gauss(0, cfg.slap_spread_mm), y + rng.gauss(0, cfg.slap_spread_mm)
        if under:
            low, high = cfg.slap_aside_mm
            aside = low if low == high else rng.uniform(low, high)
            cy += -aside if ev.player is Player.A else aside
            if cfg.slap_aside_x_mm > 0:
                cx += rng.gauss(0, cfg.slap_aside_x_mm)
        contact = arm.over(cx, cy, height, 0.85)
        hold = ev.t + self.config.slap_hold_s + rng.uniform(0, 0.15)
        # A hand already underneath stays until this one has landed on it.
        for act in self._slap_actions[ev.pile]:
            if act.slap is not None and ev.t - 1.0 < act.slap[0] <= ev.t:
                act.end = max(act.end, ev.t + 0.25 + rng.uniform(0, 0.1))
        set_off = _start(ev, 0.25)
        action = _Action(set_off, ev.t, hold, [], (ev.t, contact, rng.uniform(30, 45)))
        self._actions[key].append(action)
        self._slap_actions[ev.pile].append(action)
        self._slaps[ev.pile].append((ev.t, height))
        self.contacts.append(Contact("slap", ev.t, str(ev.player), pile_place, height, index))
        self._last_end[ev.player] = max(self._last_end[ev.player], hold)

    def _take_pile(self, index: int, ev: TakePile, moved: bool) -> None:
        pile_place = f"pile{ev.pile}"
        key = self._hand_key(ev)
        set_off = _start(ev, 0.5)
        if not moved:  # a wrong take: the hand touches the pile and lets it be
            arm = self._arm(*key)
            x, y, _ = self._zone(pile_place)
            top = len(self._places.get(pile_place, [])) * T_CARD
            contact = arm.over(x, y, top + SLAP_H_MM + 4, 0.5)
            self._actions[key].append(_Action(set_off, ev.t, ev.t + 0.3, [], (ev.t, contact, 12.0)))
            self._last_end[ev.player] = max(self._last_end[ev.player], ev.t + 0.3)
            return
        tokens = list(self._places.get(pile_place, []))
        if not tokens:
            return
        self._places[pile_place] = []
        packet = f"{ev.player}.packet"
        carry = self.config.take_pile_s
        lift = self._rng.uniform(10, 16)
        px, py, _ = self._zone(pile_place)
        qx, qy, qa = self._zone(packet)
        base = 180.0 if ev.player is Player.B else 0.0
        # The pile is turned over as one block onto the packet: its bottom card ends on top,
        # its scatter is squared up a little on the way.
        flights = []
        for token in reversed(tokens):
            src = self._tracks[token].current
            i = self._put(packet, token)
            dst = _Rest(qx + 0.4 * (src.x - px) + self._rng.gauss(0, 0.5),
                        qy + 0.4 * (src.y - py) + self._rng.gauss(0, 0.5),
                        qa + 0.4 * _fold(src.angle - base), (i + 0.5) * T_CARD, False, packet)
            flights.append(self._fly(token, ev.t, ev.t + carry, dst, turn_over=True, slide=0.0, lift=lift))
        last = flights[-1]
        self.contacts.append(Contact("lift", ev.t, str(ev.player), pile_place,
                                     flights[0].src.height, index))
        self._actions[key].append(_Action(set_off, last.t0, last.t_touch,
                                          [(self._tracks[tokens[0]], last.t0, last.t_touch,
                                            self._grip(0.5, GRIP_D_MM - 10))]))
        self._last_end[ev.player] = max(self._last_end[ev.player], last.t_rest)

    # ------------------------------------------------------------------ deal

    def _deal(self, index: int, ev: Deal, game: Game, before: Phase, allocation: dict[int, Player],
              taken: set[int]) -> None:
        """Gather what is left of the player's stock onto the packet, then deal the new layout
        slot by slot, face down, finishing at the event's ``t``. The hand visits each slot."""
        p = ev.player
        packet = f"{p}.packet"
        t_end = ev.t
        w0 = max(self._last_end[p] + 0.35, t_end - self.config.deal_s)
        if t_end - w0 < 0.8:
            w0 = t_end - 0.8
        rng = self._rng
        key = (p, self._default_left(p))
        arm = self._arm(*key)
        grip = _Grip(GRIP_D_MM - 10, rng.uniform(-8, 8), 0.0, 4.0, 0.45)
        keys: list[tuple[float, _HPose]] = []

        def over(rest: _Rest, t: float) -> None:
            pose = arm.holding(_CardState(rest.x, rest.y, rest.angle, rest.height, rest.face_up, 0.0,
                                          0.0, rest.place, False, t, 0), grip)
            if keys and t <= keys[-1][0] + 0.05:
                t = keys[-1][0] + 0.05
            keys.append((t, pose))

        t = w0
        # Piles the engine hands out without a take_pile event slide to their takers.
        if before is Phase.ROUND_OVER:
            for n, q in allocation.items():
                if n in taken:
                    continue
                for token in self._places.get(f"pile{n}", []):
                    i = self._put(f"{q}.packet", token)
                    self._fly(token, w0, w0 + 0.4, self._rest_at(f"{q}.packet", i, False),
                              turn_over=True, slide=0.0, lift=8.0)
                self._places[f"pile{n}"] = []
        # Gather what is left of this player's stock into the packet, slot by slot: the hand
        # visits each slot and sends its cards (face down) onto the packet.
        stock_places = sorted((pl for pl in self._places if pl.startswith(f"{p}.stock")
                               and self._places[pl]), key=lambda pl: int(pl.split("stock")[1]))
        span = t_end - w0
        if stock_places:
            collect = 0.35 * span
            fly = min(0.3, collect * 0.4)
            per_slot = (collect - fly) / len(stock_places)
            last_touch = t
            for j, pl in enumerate(stock_places):
                t_slot = t + j * per_slot
                over(self._tracks[self._places[pl][-1]].current, t_slot)
                for k, token in enumerate(reversed(list(self._places[pl]))):
                    self._places[pl].remove(token)
                    i = self._put(packet, token)
                    face_up = self._tracks[token].current.face_up
                    f = self._fly(token, t_slot + 0.02 * k, t_slot + 0.02 * k + fly,
                                  self._rest_at(packet, i, False), turn_over=face_up, slide=0.0,
                                  lift=10.0 + 2.0 * k)
                    last_touch = max(last_touch, f.t_touch)
            over(self._tracks[self._places[packet][-1]].current, last_touch)
            t = w0 + collect + 0.1 * span
        # Shuffle (the packet's order is decided here), then deal slot by slot.
        counts = [s.down for s in game.sides[p].stock]
        self._shuffle(index, p, counts)
        n = sum(counts)
        deal_span = t_end - t
        step = deal_span * 0.75 / max(1, n)
        fly = min(0.28, max(0.12, 1.6 * step), deal_span * 0.4)
        step = (deal_span - fly - 0.02) / max(1, n - 1)
        if n and self._places.get(packet):
            over(self._tracks[self._places[packet][-1]].current, t)
        k = 0
        for slot, count in enumerate(counts, start=1):
            place = f"{p}.stock{slot}"
            for _ in range(count):
                token = self._take_top(packet)
                i = self._put(place, token)
                f = self._fly(token, t + k * step, t + k * step + fly, self._rest_at(place, i, False),
                              slide=0.0, lift=rng.uniform(8, 14))
                k += 1
            if count:
                over(f.dst, f.t_touch)
        if keys:
            self._used_hands.add(key)
            self._actions[key].append(_Action(w0 - 0.3, keys[0][0], keys[-1][0], keys=keys))
        self._last_end[p] = t_end

    def _shuffle(self, index: int, p: Player, counts: list[int]) -> None:
        """Order the packet before the deal: the true layout when known, else the cards the
        rest of the round reveals where it reveals them, and the others in a seeded order."""
        packet = f"{p}.packet"
        tokens = list(self._places[packet])
        n_deal = sum(counts)
        n_left = len(tokens) - n_deal
        truth = self._dealt.get(index)
        # wanted[slot] top-first identities (None = any); packet_wanted top-first.
        wanted: list[list[str | None]] = [[None] * c for c in counts]
        packet_wanted: list[str | None] = [None] * n_left
        if truth is not None:
            for s, cards in enumerate(truth.stock):
                wanted[s] = list(reversed(cards))
            packet_wanted = list(reversed(truth.packet))
        else:
            self._look_ahead(index, p, wanted, packet_wanted)
        free = [tok for tok in tokens if tok not in self._ids.of]
        self._rng.shuffle(free)
        chosen: set[int] = set()

        def token_for(code: str | None) -> int | None:
            if code is None:
                return None
            tok = self._ids.token.get(code)
            if tok is not None:
                if tok not in tokens or tok in chosen:
                    raise MotionError(f"{p} deals {code}, which is not in their packet")
                return tok
            if not free:
                raise MotionError(f"{p} has no unknown card left to be {code}")
            tok = free.pop()
            self._ids.bind(tok, code)
            return tok

        slot_wanted = [[token_for(c) for c in col] for col in wanted]
        packet_partial = [token_for(c) for c in packet_wanted]
        for col in slot_wanted:
            chosen.update(t for t in col if t is not None)
        chosen.update(t for t in packet_partial if t is not None)
        rest = [tok for tok in tokens if tok not in chosen]
        self._rng.shuffle(rest)
        fill = iter(rest)
        slot_tokens = [[t if t is not None else next(fill) for t in col] for col in slot_wanted]
        packet_tokens = [t if t is not None else next(fill) for t in packet_partial]
        # Packet bottom..top: the spit cards (last spit on the bottom), then the dealt cards,
        # the first dealt (slot 1's bottom card) on top.
        order = list(reversed(packet_tokens))
        deal_sequence = [tok for col in slot_tokens for tok in reversed(col)]
        order += list(reversed(deal_sequence))
        # Face down and squared: each position keeps its pose, only identities move.
        poses = [self._tracks[tok].current for tok in tokens]
        when = max(self._tracks[tok].free_at for tok in tokens)
        self._places[packet] = order
        for tok, pose in zip(order, poses, strict=True):
            self._tracks[tok].settle(when, pose, self._next_seq())

    def _look_ahead(self, index: int, p: Player, wanted: list[list[str | None]],
                    packet_wanted: list[str | None]) -> None:
        """Fill ``wanted`` with what this round reveals from each slot and the packet."""
        depth = [0] * len(wanted)
        fresh = 0
        returned: list[str] = []  # spit cards taken back onto the packet, top last
        spat: set[str] = set()
        for ev in self.events[index + 1:]:
            if isinstance(ev, Deal) and ev.player is p:
                break
            if ev.player is not p and not isinstance(ev, TakeBack):
                continue
            if isinstance(ev, Turn):
                s = ev.slot - 1
                if s < len(wanted) and depth[s] < len(wanted[s]):
                    wanted[s][depth[s]] = str(ev.card)
                    depth[s] += 1
            elif isinstance(ev, SpitTurn):
                code = str(ev.card)
                if returned and returned[-1] == code:
                    returned.pop()
                elif fresh < len(packet_wanted):
                    packet_wanted[fresh] = code
                    fresh += 1
                spat.add(code)
            elif isinstance(ev, TakeBack) and str(ev.card) in spat:
                returned.append(str(ev.card))
                spat.discard(str(ev.card))

    # ------------------------------------------------------------------ queries

    @property
    def duration(self) -> float:
        """Time of the last event plus a second for the hands to settle."""
        return (self.events[-1].t if self.events else 0.0) + 1.0

    def at(self, t: float) -> TableState:
        """The table at time ``t`` (seconds, the log's clock).

        The drawing order is the physical one: a card that touched a place after another
        lies above it from its touch on, whatever their slides do after. Cards in the air or
        sliding are drawn after the settled ones, lowest first; a card lying still on a card
        of its place that still slides is drawn with them (``at_rest``), above it. Settled
        cards come in the order they came to rest, except that a card never comes before one
        beneath it in its place (it counts as resting from when everything beneath rests).
        """
        states = [(tok, self._tracks[tok].pose(t)) for tok in self._token_list]
        sliding: dict[str, float] = {}  # per place, the lowest card still sliding on it
        for _, st in states:
            if st.moving and st.touched:
                sliding[st.place] = min(st.height, sliding.get(st.place, math.inf))
        resting: dict[str, list[tuple[float, int, int]]] = {}
        moving: list[tuple[float, CardPose]] = []
        for tok, st in states:
            code = self.identities[tok]
            if st.moving:
                track = self._tracks[tok]
                x0, y0 = track.pose(t - 0.004)[:2]
                x1, y1 = track.pose(t + 0.004)[:2]
                vel = ((x1 - x0) / 0.008, (y1 - y0) / 0.008)
                moving.append((st.height, CardPose(code, st.x, st.y, st.angle, st.height, st.face_up,
                                                   st.flip, vel, st.place, st.pitch)))
            elif st.height > sliding.get(st.place, math.inf):
                moving.append((st.height, CardPose(code, st.x, st.y, st.angle, st.height, st.face_up,
                                                   tag=st.place, at_rest=True)))
            else:
                resting.setdefault(st.place, []).append((st.height, st.seq, tok))
        settled: list[tuple[float, float, int, CardPose]] = []
        pose = dict(states)
        for cards in resting.values():
            since = -math.inf
            for h, seq, tok in sorted(cards):  # bottom up: none rests before what is beneath it
                st = pose[tok]
                since = max(since, st.rest_since)
                settled.append((since, h, seq, CardPose(self.identities[tok], st.x, st.y, st.angle, h,
                                                        st.face_up, tag=st.place)))
        settled.sort(key=lambda s: (s[0], s[1], s[2]))
        moving.sort(key=lambda m: m[0])
        hands = []
        for ht in self._hands:
            x, y, a, h, sp = ht.pose(t)
            v = ht.velocity(t)
            skin, sleeve, scale = self._look[ht.arm.owner]
            hands.append(HandPose(x, y, a, h, sp, skin, sleeve, scale, ht.arm.left, (v[0], v[1]),
                                  str(ht.arm.owner)))
        hands.sort(key=lambda hp: hp.height)
        return TableState(t, tuple(c for *_, c in settled), tuple(c for _, c in moving), tuple(hands))

    def card_pose(self, card: str, t: float) -> CardPose:
        """One card's pose at ``t`` (face-down cards included)."""
        tok = next(k for k, v in self.identities.items() if v == card)
        st = self._tracks[tok].pose(t)
        return CardPose(card, st.x, st.y, st.angle, st.height, st.face_up, st.flip, tag=st.place,
                        pitch_deg=st.pitch)

    def frame_times(self, fps: float, t0: float = 0.0, t1: float | None = None) -> np.ndarray:
        """Frame times from ``t0`` to ``t1`` (default: the end) at ``fps``: ``t0 + i / fps``."""
        end = self.duration if t1 is None else t1
        n = int(math.floor((end - t0) * fps)) + 1
        return t0 + np.arange(n) / fps


def _start(ev: TableEvent, default: float) -> float:
    """When the hand begins ``ev``: its ``start``, or ``default`` seconds before ``t`` when
    the log has none or one that is not before ``t``; never later than 50 ms before ``t``."""
    if ev.start is None or ev.start >= ev.t:
        return ev.t - default
    return min(ev.start, ev.t - 0.05)


def _fold(angle: float) -> float:
    """An angle folded into (-90, 90]: a card's turn away from the nearest upright."""
    a = wrap_deg(angle)
    if a > 90.0:
        a -= 180.0
    elif a <= -90.0:
        a += 180.0
    return a


def selfplay_with_truth(seed: int, config: SelfPlayConfig | None = None
                        ) -> tuple[list[Record], dict[int, DealtCards]]:
    """Play one game with the bots and keep, for every layout, the true face-down cards
    (keyed by the index of the ``deal`` event among the game's table events)."""
    from referee.selfplay.bots import SelfPlay

    sp = SelfPlay(seed, config)
    records: list[Record] = []
    dealt: dict[int, DealtCards] = {}
    n_table = 0
    for rec in sp.records():
        records.append(rec)
        if isinstance(rec, TableEvent):
            if isinstance(rec, Deal):
                p = rec.player
                dealt[n_table] = DealtCards(
                    tuple(tuple(str(c) for c in cards) for cards in sp.world.down[p]),
                    tuple(str(c) for c in sp.world.packet[p]))
            n_table += 1
    return records, dealt

