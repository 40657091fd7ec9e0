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

Slaps are recomputed as the arbiter made them when it released them (``Arbiter._slaps``):
the tracker's colour views shrunk by 2 (``ZoneTracker.last_view_small``, made again by
:meth:`~referee.vision.tracking.ZoneTracker.update` on the recorded frames) from
``slap_before_frames`` before the first slap seen to the frame the slaps were released, the
background free of hands (:func:`~referee.vision.arbitration.hand_free_background`) from the
views the arbiter kept before the first slap and the tracker's hand cells in them (the tracker
run from ``SLAP_WARMUP_FRAMES`` before those views, so its picture of the mat has settled:
it sees the hands as the referee's did, not exactly so); both hands round the slapped pile
(:func:`~referee.vision.arbitration.hand_tracks`), each hand's stop
(:func:`~referee.vision.arbitration.estimate_slap_contact`) and, for two slaps on one pile,
the layering read by the layering model (:func:`~referee.vision.arbitration.slap_layering`) and the call
(:func:`~referee.vision.arbitration.decide_slap`). A hand not found, or frames of the window
missing from the recording, leave :attr:`HandEvidence.error` saying so.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from referee.events import Move, Play, Slap, TableEvent
from referee.live.arbitrate import ArbiterSettings, first_seen, layering_reader
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
class HandEvidence:
    """One slap: what the log says and the hand's track recomputed from the frames."""

    event: Slap
    logged: dict[str, Any]  # the event's evidence["contact"] (empty when the log has none)
    track: ar.HandTrack | None = None
    contact: ar.ContactEstimate | None = None
    frames: list[int] = field(default_factory=list)  # the recorded frames of the track's views
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
    hands: list[HandEvidence] = field(default_factory=list)
    hand_views: ar.HandViews | None = None  # the strip round the slapped pile, as hand_tracks split it
    layering_strip: np.ndarray | None = None  # the picture the hands' layering was read from (slaps)
    hand_geometry: ar.ViewGeometry | None = None  # of the small views the hands were followed in


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
    slaps = [e for e in events if isinstance(e, Slap)]
    if slaps:
        _slaps(calibration, frames, slaps, out)
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


# ---------------------------------------------------------------------- slaps

SLAP = ArbiterSettings()  # the arbiter's windows (slap_before_frames, slap_after_frames, ...)


SLAP_WARMUP_FRAMES = 30  # the tracker runs this long before the kept views to learn the mat again


def slap_span(events: list[TableEvent], settings: ArbiterSettings = SLAP) -> tuple[int, int] | None:
    """The recorded frames a slap recomputation may need: from the tracker's warm-up before
    the views the arbiter kept to the last frame it could have held the slaps to."""
    slaps = [e for e in events if isinstance(e, Slap)]
    if not slaps:
        return None
    # (from when a hand moved by a blob of both arms first came, ``first_seen``: as many frames
    # earlier at 30 fps, and a few more)
    frames = [int(e.frame or 0) for e in slaps]
    starts = [f - (math.ceil(30 * early) + 2 if (early := _window_early_s(e)) > 0 else 0)
              for f, e in zip(frames, slaps, strict=True)]
    before = settings.slap_before_frames + settings.slap_background_frames + settings.small_history_frames
    used = [int(((e.evidence or {}).get("contact") or {}).get("frames_used") or 0) for e in slaps]
    return (max(0, min(starts) - before - SLAP_WARMUP_FRAMES),
            max(frames) + max(settings.slap_after_frames, *used) + 1)


def _given_t(ev: Slap) -> float:
    """When the observer gave the slap (the arbiter's input; the log's t is the hand's stop)."""
    seen = (ev.evidence or {}).get("seen_t")
    return ev.t if seen is None else float(seen)


def _window_early_s(ev: Slap) -> float:
    """How long before the observer gave the slap its hand window starts (``first_seen``)."""
    return max(0.0, _given_t(ev) - _seen_t(ev))


def _seen_t(ev: Slap) -> float:
    """When the slap was seen, as the arbiter's window counts it (when the observer gave it,
    or when a hand moved by a blob of both arms first came: ``first_seen``)."""
    return first_seen(ev, _given_t(ev))


def slap_window(
    slaps: list[Slap], times: dict[int, float], settings: ArbiterSettings = SLAP
) -> tuple[int, int, int] | str:
    """(oldest view kept, first view, last view) of the arbiter's hand window for ``slaps``,
    as ``Arbiter._hand_views`` chose it when it released them: the last view is the frame it
    released them in (``slap_after_frames`` after the later slap for a pair; for a lone slap
    the log's ``frames_used`` says), the first ``slap_before_frames`` before the first slap
    seen, within the ``small_history_frames`` it kept (from the oldest, the background is
    made). A string says why it cannot be placed."""
    if not times:
        return "no recorded frames"
    later = max(int(e.frame or 0) for e in slaps)
    used = [int(c["frames_used"]) for e in slaps for c in [(e.evidence or {}).get("contact") or {}]
            if c.get("frames_used")]
    first_t = min(_seen_t(e) for e in slaps)
    known = sorted(times)
    dt = float(np.median(np.diff([times[k] for k in known]))) if len(known) > 1 else 1 / 30
    t_bg = first_t - (settings.slap_before_frames + settings.slap_background_frames + 0.5) * dt
    last = later + settings.slap_after_frames
    oldest = last - settings.small_history_frames + 1
    bg = max(oldest, next((k for k in known if times[k] >= t_bg), oldest))
    first = bg + settings.slap_background_frames
    if len({e.player for e in slaps}) < 2 and used:  # a lone slap: held until the wait ran out
        last = first + max(used) - 1
        oldest = last - settings.small_history_frames + 1
    first = min(first, last - 4)
    return max(0, oldest), first, last


def _small_views(calibration: Any, frames: dict[int, Frame], wanted: list[int]
                 ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The tracker's small colour views (``last_view_small``) and hand cells (``hand_cells()``)
    of ``wanted``, made by :meth:`ZoneTracker.update` on the recorded frames from
    ``SLAP_WARMUP_FRAMES`` before the first wanted (those recorded) to the last."""
    tracker = ZoneTracker(calibration)
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    start, end = min(wanted), max(wanted)
    wanted_set = set(wanted)
    for k in sorted(frames):
        if start - SLAP_WARMUP_FRAMES <= k <= end:
            tracker.update(frames[k].image, frames[k].t)
            cells = tracker.hand_cells()
            if k in wanted_set and tracker.last_view_small is not None and cells is not None:
                out[k] = (tracker.last_view_small.copy(), cells)
    return out


def _slaps(calibration: Any, frames: dict[int, Frame], slaps: list[Slap], out: Recomputed) -> None:
    """Each slapped pile's hands followed again, their stops and, for two slaps on one pile,
    the layering and the call, as the arbiter made them."""
    layout = calibration.layout
    hands = [HandEvidence(e, dict((e.evidence or {}).get("contact") or {})) for e in slaps]
    out.hands = hands
    window = slap_window(slaps, out.times)
    if isinstance(window, str):
        for hand in hands:
            hand.error = window
        return
    oldest, first, last = window
    needed = list(range(oldest, last + 1))
    absent = [k for k in needed if k not in frames]
    if absent:
        why = (f"frames {absent[0]}-{absent[-1]} (of {oldest}-{last}: the views the arbiter kept for the "
               "hands) are not in the recording: the video there is missing or damaged")
        for hand in hands:
            hand.error = why
        return
    kept = _small_views(calibration, frames, needed)
    small = {k: v for k, (v, _) in kept.items()}
    first_t = min(_seen_t(e) for e in slaps)
    before = [k for k in needed if frames[k].t < first_t]
    geo = out.geometry
    some = next(iter(small.values()))
    full_w = next(iter(out.views.values())).shape[1] if out.views else some.shape[1] * 2
    out.hand_geometry = ar.ViewGeometry(geo.px_per_mm * some.shape[1] / full_w, geo.margin_mm, geo.mat_mm)
    columns = ar.hand_strip_columns([layout.zone(f"pile{n}") for n in sorted({e.pile for e in slaps})],
                                    out.hand_geometry, some.shape[1])
    background = (ar.hand_free_background([small[k] for k in before], [kept[k][1] for k in before],
                                          columns=columns) if before else small[oldest])
    ks = list(range(first, last + 1))
    views = [small[k] for k in ks]
    times = np.array([frames[k].t for k in ks])
    for pile_n in sorted({e.pile for e in slaps}):
        on = [hand for hand in hands if hand.event.pile == pile_n]
        try:
            tracks, hand_views = ar.hand_tracks(views, times, layout.zone(f"pile{pile_n}"), out.hand_geometry,
                                                background=background)
        except ValueError as exc:
            for hand in on:
                hand.error = str(exc)
            continue
        if out.hand_views is None:
            out.hand_views = hand_views
        for hand in on:
            hand.frames = ks
            if hand.player not in tracks:
                hand.error = f"no hand of {hand.player} reaches pile {pile_n}'s strip in the last view"
                continue
            hand.track = tracks[hand.player]
            try:
                hand.contact = ar.estimate_slap_contact(hand.track)
            except ValueError as exc:
                hand.error = str(exc)
        players = {hand.player for hand in on}
        if len(on) == 2 and len(players) == 2:  # as the arbiter: the layering model reads the picture
            out.layering, decision = ar.slap_layering({p: tracks[p] for p in players if p in tracks},
                                                      hand_views, layering_reader(SLAP))
            out.layering_strip = hand_views.last
            contacts = {hand.player: hand.contact for hand in on}
            out.arbitration = ar.decide_slap(contacts, out.layering, decision)
