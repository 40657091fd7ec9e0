"""The arbitration evidence of a disputed moment, recomputed from the recorded frames.

The event log keeps what the referee concluded (each play's contact time, its sd and quality,
the frame its card's face was cut from, the race's call and reason) but not the trajectories
themselves. They are recomputed here with the referee's own code
(:mod:`referee.vision.arbitration`), exactly as :class:`referee.live.arbitrate.Arbiter` ran
it: the card's face cut from its stock slot in the frame the log names (``face_frame``), the
card followed through the recorded frames from there to the frame the pile settled in, its
touch placed on the fitted carry; for a race, the layering of the settled pile and the call.
Nothing is invented: a card the log names no face frame for, or whose frames are not in the
recording, has no trajectory, and :attr:`CardEvidence.error` says why.

Slaps: the log's hand-stop contact times are shown; hand tracks are not recomputed here.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from referee.events import Move, Play, TableEvent
from referee.live.source import Frame
from referee.players import Player
from referee.vision import arbitration as ar
from referee.vision.tracking import ZoneTracker

log = logging.getLogger(__name__)


@dataclass
class CardEvidence:
    """One contested card: what the log says and what the frames give again."""

    event: TableEvent
    logged: dict[str, Any]  # the event's evidence["contact"] (empty when the log has none)
    track: ar.CardTrack | None = None
    contact: ar.ContactEstimate | None = None
    fit: ar.CarryFit | None = None
    pose: ar.CardPose | None = None  # where it came to rest
    template: ar.CardTemplate | None = None
    toward: tuple[float, float] = (math.nan, math.nan)  # where it went (mat mm)
    error: str = ""  # why there is no track or no contact estimate

    @property
    def player(self) -> Player:
        return self.event.player


@dataclass
class Recomputed:
    """The recomputed evidence and the rectified views it came from."""

    geometry: ar.ViewGeometry
    views: dict[int, np.ndarray]  # frame -> rectified colour view (1.5 px/mm)
    times: dict[int, float]
    cards: list[CardEvidence] = field(default_factory=list)
    layering: ar.Layering | None = None
    arbitration: ar.Arbitration | None = None
    settled_frame: int | None = None
    notes: list[str] = field(default_factory=list)


def rectify_frames(
    calibration: Any, frames: dict[int, Frame]
) -> tuple[ar.ViewGeometry, dict[int, np.ndarray]]:
    """The tracker's rectified views of ``frames`` (the views the arbiter followed cards in)."""
    tracker = ZoneTracker(calibration)
    views = {k: tracker.rectified(f.image) for k, f in sorted(frames.items())}
    return ar.ViewGeometry.of(tracker), views


def recompute(calibration: Any, frames: dict[int, Frame], events: list[TableEvent]) -> Recomputed:
    """Follow the contested cards (plays and moves) through ``frames``; for two plays on one
    pile (a race), read the layering and make the call again."""
    geo, views = rectify_frames(calibration, frames)
    out = Recomputed(geo, views, {k: f.t for k, f in frames.items()})
    cards = [e for e in events if isinstance(e, Play | Move)]
    if not cards:
        return out
    out.settled_frame = max(_settled_frame(e) for e in cards)
    layout = calibration.layout
    race = (
        len(cards) == 2 and all(isinstance(e, Play) for e in cards) and cards[0].player is not cards[1].player
    )
    faces = [_face_frame(e) for e in cards]
    # a race's cards are followed through one window from the earlier face (as the arbiter did)
    first = min((f for f in faces if f is not None), default=None) if race else None
    for ev in cards:
        out.cards.append(_card(ev, layout, geo, views, out, first))
    if race:
        _race(out.cards, geo, views, out)
    return out


def _settled_frame(ev: TableEvent) -> int:
    value = (ev.evidence or {}).get("settled_frame", ev.frame)
    return int(value) if value is not None else 0


def _face_frame(ev: TableEvent) -> int | None:
    face = ((ev.evidence or {}).get("contact") or {}).get("face_frame")
    return None if face is None else int(face)


def _card(
    ev: Play | Move,
    layout: Any,
    geo: ar.ViewGeometry,
    views: dict[int, np.ndarray],
    out: Recomputed,
    first: int | None,
) -> CardEvidence:
    logged = dict((ev.evidence or {}).get("contact") or {})
    if isinstance(ev, Play):
        slot, target = ev.slot, f"pile{ev.pile}"
    else:
        slot, target = ev.from_slot, f"{ev.player}.stock{ev.to_slot}"
    centre = layout.zone(target).center
    card = CardEvidence(ev, logged, toward=(float(centre[0]), float(centre[1])))
    face = logged.get("face_frame")
    if face is None:
        card.error = "the log names no frame the card's face was cut from" + (
            f" (the referee: {logged['error']})" if logged.get("error") else ""
        )
        return card
    face = int(face)
    start_frame = face if first is None else min(first, face)
    last = out.settled_frame if out.settled_frame is not None else _settled_frame(ev)
    absent = [k for k in range(start_frame, last + 1) if k not in views]
    if absent:
        card.error = (f"frames {absent[0]}-{absent[-1]} (of {start_frame}-{last}, from the face to the "
                      "settled pile) are not in the recording: the video there is missing or damaged")
        return card
    window = list(range(start_frame, last + 1))
    zone = layout.zone(f"{ev.player}.stock{slot}")
    card.template = ar.slot_template(views[face], zone, geo, label=str(ev.card))
    grey = [cv2.cvtColor(views[k], cv2.COLOR_BGR2GRAY) for k in window]
    times = np.array([out.times[k] for k in window])
    card.track = ar.track_card(grey, times, card.template, geo, start=window.index(face), toward=card.toward)
    try:
        card.contact = ar.estimate_contact(card.track)
    except ValueError as exc:
        card.error = str(exc)
    card.fit = _fit(card.track)
    card.pose = ar.rest_pose(card.track, card.contact)
    return card


def _fit(track: ar.CardTrack) -> ar.CarryFit | None:
    """The carry fitted as :func:`~referee.vision.arbitration.estimate_contact` fits it."""
    weights = np.where(track.found, np.clip(track.scores, 0.05, 1.0), np.nan)
    try:
        return ar.fit_carry(track.times, track.centres_mm, weights)
    except ValueError:
        return None


def _race(
    plays: list[CardEvidence], geo: ar.ViewGeometry, views: dict[int, np.ndarray], out: Recomputed
) -> None:
    """The layering in the settled view and the call (P8), as the arbiter made them."""
    after = out.settled_frame
    templates = {c.player: c.template for c in plays if c.template is not None}
    if after is None or after not in views:
        out.notes.append(f"the settled frame {after} is not in the recording: no layering")
        return
    if len(templates) < 2:
        out.notes.append("a card's face could not be cut: no layering")
    else:
        poses = {c.player: c.pose for c in plays if c.pose is not None}
        read = (plays[0].event.evidence or {}).get("read")
        identities = {c.player: str(getattr(c.event, "card", "")) for c in plays}
        out.layering = ar.card_layering(
            views[after],
            {p: t for p, t in templates.items() if t is not None},
            plays[0].toward,
            geo,
            poses=poses,
            top_identity=str(read) if read else None,
            identities=identities,
        )
    out.arbitration = ar.decide_first_touch({c.player: c.contact for c in plays}, out.layering)
