"""The dispute report: one contested moment of a recorded session, as a self-contained HTML page.

    path = write_dispute(Path("games/g1"), event=31, out=Path("dispute.html"))   # or at=1.21

What it shows (docs/reports.md): the verdict and the rule that applied (its text from
RULES.md); the frames before, at and after the contact with the zones and what the log says
lies on them; crops of the contested pile through the moment with each card's track; a
timeline of both cards' distance to the pile with their fitted carries and estimated contact
times (each with its sd); the layering evidence; a table of how sure each piece of evidence
is, as the log recorded it and as recomputed from the recorded frames
(:mod:`referee.session.evidence`); the log lines themselves and the session's state. For a
slap race, the timeline shows each hand followed again round the pile (how much its picture
still changes, the area it covers over the pile) with its stop and the call made again. A
piece of evidence that is missing is named, with the reason.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import InputError
from referee.events import Play, TableEvent
from referee.live.overlay import describe
from referee.session import html as h
from referee.session.evidence import (
    CardEvidence,
    HandEvidence,
    Recomputed,
    recompute,
    rectify_frames,
    slap_span,
)
from referee.session.moment import (
    Moment,
    Numbered,
    calibration_at,
    frame_at,
    moment_by_line,
    moment_by_time,
    numbered,
    read_frames,
    tops_at,
)
from referee.session.verify import Session, open_session
from referee.vision import arbitration as ar

log = logging.getLogger(__name__)

BEFORE_S = 0.6  # frames decoded from this long before the earliest contested moment ...
AFTER_S = 0.5  # ... to this long after the last
FRAME_WIDTH = 400  # CSS px of each whole frame
CROP_MM = (150.0, 170.0)  # the pile crops: width and height round the pile's centre
CROPS = 6
MAX_FRAME_GAP_S = 0.05  # a frame shown for an instant is at most this far from it
MAT_MARGIN_PX = 60  # the frames are cut to the zones and this much round them
CROP_WIDTH = 190  # CSS px of each pile crop
#: the rule that governs each kind of event when its verdict names none (a legal event)
KIND_RULES = {
    "play": "P3",
    "move": "P5",
    "turn": "P4",
    "spit": "P1",
    "take_back": "P7",
    "slap": "E2",
    "take_pile": "E2",
    "deal": "S2",
}


def write_dispute(
    folder: Path, *, event: int | None = None, at: float | None = None, out: Path | None = None
) -> tuple[Path, Moment]:
    """Build the dispute report of ``folder`` for log line ``event`` or time ``at`` and write
    it (default: ``dispute-<line or time>.html`` in the session folder)."""
    if (event is None) == (at is None):
        raise InputError("give exactly one of --event N and --at TIME")
    session = open_session(folder)
    moment = (
        moment_by_line(session, event) if event is not None else moment_by_time(session, float(at or 0.0))
    )
    page = dispute_page(session, moment)
    name = f"dispute-line{event}.html" if event is not None else f"dispute-t{at:.2f}.html"
    return page.write(out or folder / name), moment


def dispute_page(session: Session, moment: Moment) -> h.Page:
    """The whole page for ``moment`` of ``session``."""
    page = h.Page(
        _title(moment),
        subtitle=f"session {session.folder} (id {session.manifest.get('id')}); chosen by {moment.chosen}",
    )
    h.session_warnings(session, page)
    records = numbered(session)
    first, last = _frame_span(session, moment)
    frames = read_frames(session, first, last) if first is not None and last is not None else {}
    calibration = calibration_at(session, first or 0)
    events = moment.table_events
    if frames:
        evidence = recompute(calibration, frames, events)
    else:
        geo = rectify_frames(calibration, {})[0]
        evidence = Recomputed(geo, {}, {})
        page.warning(
            f"no recorded frames for this moment (frames {first}-{last}): the video there is "
            "missing or damaged; the report shows what the log says"
        )
    page.add(_verdicts(moment))
    page.section("The rule that applied", _rules(moment))
    page.section(
        "Frames before, at and after the contact",
        _frames(session, moment, frames, calibration, records, evidence),
    )
    page.section("The contested pile", _crops(moment, evidence, calibration))
    page.section("Trajectories and contact times", _timeline(moment, evidence))
    page.section("Layering", _layering(moment, evidence))
    page.section("How sure each piece of evidence is", _sureness(moment, evidence))
    page.section("The log", _log_lines(session, moment))
    page.section("The session", h.session_facts(session))
    return page


# ---------------------------------------------------------------------- choosing


def _title(moment: Moment) -> str:
    events = moment.table_events
    if not events:
        return f"Dispute at {moment.t:.2f} s: no event"
    kinds = {e.kind for e in events}
    pile = getattr(events[0], "pile", None)
    if len(events) == 2 and kinds == {"play"}:
        return f"Dispute: touch race on pile {pile} at {events[0].t:.2f} s"
    if len(events) == 2 and kinds == {"slap"}:
        return f"Dispute: slap race on pile {pile} at {events[0].t:.2f} s"
    return f"Dispute: {describe(events[0])} at {events[0].t:.2f} s"


def _frame_span(session: Session, moment: Moment) -> tuple[int | None, int | None]:
    """The recorded frames the report needs: from before the earliest card left (or
    ``BEFORE_S`` before the moment) to ``AFTER_S`` after the pile settled."""
    events = moment.table_events
    t0 = min([moment.t] + [e.t for e in events]) - BEFORE_S
    t1 = max([moment.t] + [e.t for e in events]) + AFTER_S
    first, last = frame_at(session, t0), frame_at(session, t1)
    faces = [
        int(c["face_frame"])
        for e in events
        for c in [(e.evidence or {}).get("contact") or {}]
        if "face_frame" in c
    ]
    settled = [int((e.evidence or {}).get("settled_frame", e.frame or 0)) for e in events]
    if first is not None and faces:
        first = min([first, *faces])
    slaps = slap_span(events)  # the hands' window, as the arbiter kept it
    if slaps is not None and first is not None and last is not None:
        first, last = min(first, slaps[0]), max(last, slaps[1])
    if last is not None and settled:
        last = max([last, *[s + 6 for s in settled]])
    return first, last


# ---------------------------------------------------------------------- the verdict and the rule


def _verdicts(moment: Moment) -> str:
    if not moment.events:
        return (
            f'<div class="verdict" style="background:{h.VERDICT_COLOURS["none"]}">No table event was '
            f"recorded within 1 s of {moment.t:.2f} s: below are the frames around that time.</div>"
        )
    out = []
    for item in moment.events:
        ev = item.record
        assert isinstance(ev, TableEvent)
        verdict = moment.verdict_of(item)
        if verdict is None:
            out.append(
                f'<div class="verdict" style="background:{h.VERDICT_COLOURS["none"]}"><b>NO VERDICT</b> '
                f"for {h.esc(describe(ev))} (line {item.line}): the log holds none (it was cut short "
                "or the verdict line is not verified)</div>"
            )
            continue
        colour = h.VERDICT_COLOURS.get(verdict.outcome.value, h.VERDICT_COLOURS["none"])
        code = f" {verdict.code} ({verdict.rule})" if verdict.code else ""
        out.append(
            f'<div class="verdict" style="background:{colour}">'
            f"<b>{verdict.outcome.value.upper()}{h.esc(code)}"
            f'</b> &nbsp; {h.esc(verdict.message or describe(ev))} &nbsp; <span class="small" '
            f'style="color:#eee">t {ev.t:.3f} s, frame {ev.frame}, log line {item.line}</span></div>'
        )
    for call in moment.calls:
        message = getattr(call.record, "message", "")
        out.append(
            f'<div class="verdict" style="background:#1d70b8">CALL: {h.esc(message)} '
            f'<span class="small" style="color:#eee">(log line {call.line})</span></div>'
        )
    return "".join(out)


def _rule_ids(moment: Moment) -> list[str]:
    ids: list[str] = []
    events = moment.table_events
    for item in moment.events:
        verdict = moment.verdict_of(item)
        if verdict is not None and verdict.rule:
            ids += [r.strip() for r in verdict.rule.split(",")]
    if len(events) == 2 and {e.kind for e in events} == {"play"}:
        ids += ["P8", "P7"]
    ids += [KIND_RULES[e.kind] for e in events if e.kind in KIND_RULES]
    return list(dict.fromkeys(ids))


def _rules(moment: Moment) -> str:
    ids = _rule_ids(moment)
    if not ids:
        return h.missing("No event, so no rule: nothing was judged at this moment.")
    out = []
    for rule_id in ids:
        text, source = h.rule_text(rule_id)
        body = h.esc(text) if text else '<span class="missing">its text was not found</span>'
        out.append(
            f'<div class="rule"><b>{h.esc(rule_id)}</b> {body} <span class="small">({h.esc(source)})'
            "</span></div>"
        )
    arbitration = _logged_arbitration(moment)
    if arbitration:
        out.append(f"<p><b>The referee's call:</b> {h.esc(arbitration.get('reason', ''))}</p>")
    return "".join(out)


def _logged_arbitration(moment: Moment) -> dict[str, Any]:
    for ev in moment.table_events:
        arb = (ev.evidence or {}).get("arbitration")
        if isinstance(arb, dict):
            return arb
    return {}


# ---------------------------------------------------------------------- pictures


def _recomputed(ev: TableEvent, evidence: Recomputed) -> CardEvidence | HandEvidence | None:
    """The recomputed evidence of ``ev`` (a card's or a hand's), if any."""
    found: list[CardEvidence | HandEvidence] = [*evidence.cards, *evidence.hands]
    return next((c for c in found if c.event is ev), None)


def _contact_t(ev: TableEvent, evidence: Recomputed) -> float:
    again = _recomputed(ev, evidence)
    if again is not None and again.contact is not None:
        return again.contact.t
    return ev.t


def _frames(
    session: Session,
    moment: Moment,
    frames: dict[int, Any],
    calibration: Any,
    records: list[Numbered],
    evidence: Recomputed,
) -> str:
    if not frames:
        return h.missing("No recorded frames: the video segments holding this moment are missing or damaged.")
    events = moment.table_events
    contact = min((_contact_t(e, evidence) for e in events), default=moment.t)
    left = [
        float(c["left_t"]) for e in events for c in [(e.evidence or {}).get("contact") or {}] if "left_t" in c
    ]
    settled = evidence.settled_frame
    picks = [
        ("before: the card leaves" if left else "before", (min(left) if left else contact - 0.3)),
        ("at the first contact", contact),
        (
            "after: the pile settled" if settled is not None else "after",
            evidence.times.get(settled, contact + 0.3) if settled is not None else contact + 0.3,
        ),
    ]
    out = []
    for what, t in picks:
        k = min(frames, key=lambda n: abs(frames[n].t - t))
        if abs(frames[k].t - t) > MAX_FRAME_GAP_S:
            out.append(h.missing(f"{what} (t {t:.3f} s): no recorded frame there"))
            continue
        image = draw_frame(frames[k].image, calibration, tops_at(records, frames[k].t), events)
        out.append(
            h.figure(
                h.img_tag(image, width=FRAME_WIDTH, alt=f"frame {k}"),
                f"<b>{h.esc(what)}</b>: frame {k}, t {frames[k].t:.3f} s",
            )
        )
    note = (
        '<p class="small">Zones as calibrated; labels: what the log says lies on top at that instant '
        "(a card taken by a hand shows where the log puts it). The contested pile is outlined thick.</p>"
    )
    return "".join(out) + note


def draw_frame(
    image: np.ndarray, calibration: Any, tops: dict[str, str], events: list[TableEvent]
) -> np.ndarray:
    """``image`` with every zone outlined and labelled with its top card; the contested pile
    thick, the slots the contested cards came from in their player's colour."""
    polygons = calibration.zone_polygons(samples_per_edge=4)
    out = _mat_area(image, polygons)
    offset = np.array(_mat_offset(image, polygons))
    scale = 0.9 * out.shape[1] / 600  # labels that stay readable at FRAME_WIDTH
    piles = {f"pile{p}" for e in events for p in [getattr(e, "pile", None)] if p is not None}
    slots = {
        f"{e.player}.stock{s}": e.player
        for e in events
        for s in [getattr(e, "slot", None) or getattr(e, "from_slot", None)]
        if s is not None
    }
    for zid, poly in polygons.items():
        pts = np.round(poly - offset).astype(np.int32).reshape(-1, 1, 2)
        colour = (
            (0, 200, 255) if zid in piles else h.PLAYER_BGR[slots[zid]] if zid in slots else (90, 200, 90)
        )
        cv2.polylines(out, [pts], True, colour, 4 if zid in piles or zid in slots else 2, cv2.LINE_AA)
        label = tops.get(zid, "")
        if label:
            x, y = pts.reshape(-1, 2).min(axis=0)
            _label(out, label, (int(x) + 3, int(y) + int(24 * scale)), scale * 0.75, colour)
    return out


def _mat_offset(image: np.ndarray, polygons: dict[str, np.ndarray]) -> tuple[int, int]:
    """The top-left corner of :func:`_mat_area` in the frame."""
    pts = np.concatenate(list(polygons.values()))
    x0, y0 = pts.min(axis=0) - MAT_MARGIN_PX
    return max(0, int(x0)), max(0, int(y0))


def _mat_area(image: np.ndarray, polygons: dict[str, np.ndarray]) -> np.ndarray:
    """A copy of the part of the frame round the zones (the table beyond says nothing)."""
    pts = np.concatenate(list(polygons.values()))
    x0, y0 = _mat_offset(image, polygons)
    x1, y1 = pts.max(axis=0) + MAT_MARGIN_PX
    h, w = image.shape[:2]
    return image[y0 : min(h, int(y1)), x0 : min(w, int(x1))].copy()


def _label(
    image: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    """Text on a dark box."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    x, y = org
    cv2.rectangle(image, (x - 2, y - th - 3), (x + tw + 2, y + base), (0, 0, 0), -1)
    cv2.putText(image, text, org, font, scale, colour, thick, cv2.LINE_AA)


def _pile_of(moment: Moment, calibration: Any) -> list[str]:
    piles = [f"pile{p}" for e in moment.table_events for p in [getattr(e, "pile", None)] if p is not None]
    return list(dict.fromkeys(piles)) or ["pile1", "pile2"]


def _crops(moment: Moment, evidence: Recomputed, calibration: Any) -> str:
    if not evidence.views:
        return h.missing("No recorded frames: no crops of the pile.")
    out = []
    for pile in _pile_of(moment, calibration):
        centre = calibration.layout.zone(pile).center
        frames = _crop_frames(moment, evidence)
        if not frames:
            out.append(h.missing(f"{pile}: no recorded frames round the contact."))
            continue
        row = []
        for k in frames:
            crop = pile_crop(evidence, k, (float(centre[0]), float(centre[1])), final=k == frames[-1])
            row.append(
                h.figure(
                    h.img_tag(crop, width=CROP_WIDTH, alt=f"{pile} frame {k}"),
                    f"frame {k}, t {evidence.times[k]:.3f} s",
                )
            )
        out.append(
            f"<p><b>{h.esc(pile)}</b>, seen from above (the table rectified, A's side at the bottom); "
            "dots: where each card was found in each frame so far (A red, B blue); on the last "
            "crop the outlines where the cards came to rest.</p>" + "".join(row)
        )
    return "".join(out)


def _crop_frames(moment: Moment, evidence: Recomputed) -> list[int]:
    """``CROPS`` frames spread from just before the first contact to the settled pile."""
    ks = sorted(evidence.views)
    contact = min((t for _, t, _, _ in _contacts(moment, evidence)), default=moment.t)
    t0, t1 = contact - 0.2, evidence.times.get(evidence.settled_frame or -1, contact + 0.25)
    inside = [k for k in ks if t0 <= evidence.times[k] <= t1 + 1e-6]
    if not inside:
        return []
    picks = np.linspace(0, len(inside) - 1, min(CROPS, len(inside))).round().astype(int)
    return [inside[i] for i in dict.fromkeys(picks.tolist())]


def pile_crop(evidence: Recomputed, frame: int, centre: tuple[float, float], *, final: bool) -> np.ndarray:
    """The rectified view round ``centre`` (mat mm) in ``frame``, with the cards' tracks so far."""
    geo = evidence.geometry
    view = evidence.views[frame].copy()
    t = evidence.times[frame]
    for card in evidence.cards:
        colour = h.PLAYER_BGR[card.player]
        if card.track is not None:
            for i in np.flatnonzero(card.track.found):
                if card.track.times[i] <= t + 1e-6:
                    u, v = geo.to_px(*card.track.centres_mm[i])
                    cv2.circle(view, (round(u), round(v)), 3, colour, -1, cv2.LINE_AA)
        if final and card.pose is not None:
            corners = np.array([geo.to_px(x, y) for x, y in card.pose.corners()])
            cv2.polylines(
                view, [np.round(corners).astype(np.int32).reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA
            )
    w, hgt = CROP_MM
    u0, v0 = geo.to_px(centre[0] - w / 2, centre[1] - hgt / 2)
    u1, v1 = geo.to_px(centre[0] + w / 2, centre[1] + hgt / 2)
    H, W = view.shape[:2]
    return view[max(0, round(v0)) : min(H, round(v1)), max(0, round(u0)) : min(W, round(u1))].copy()


# ---------------------------------------------------------------------- timeline


def _timeline(moment: Moment, evidence: Recomputed) -> str:
    events = moment.table_events
    if not events:
        return h.missing("No event at this moment: no trajectories.")
    if evidence.hands:
        return _hand_timeline(moment, evidence)
    fig, (ax, zoom) = h.new_figure(1180, 400, columns=2, ratios=(3, 2))
    for card in evidence.cards:
        _plot_card(ax, card)
    for ev in events:
        _plot_logged(ax, ev, with_track=any(c.event is ev and c.track is not None for c in evidence.cards))
    _frame_ticks(ax, evidence)
    ax.set_xlabel("game time (s)")
    ax.set_ylabel("distance to the pile's centre (mm)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(
        "Each card's distance to the pile (dots: where it was found; line: the fitted carry)", fontsize=10
    )
    _plot_contacts(zoom, moment, evidence)
    fig.tight_layout()
    body = h.plot_tag(fig, alt="timeline of the contested cards")
    return (
        body
        + _contact_table(moment, evidence)
        + "".join(
            h.missing(f"{c.player}'s {getattr(c.event, 'card', '')}: no trajectory: {c.error}")
            for c in evidence.cards
            if c.track is None or c.contact is None
        )
    )


def _frame_ticks(ax: Any, evidence: Recomputed) -> None:
    if evidence.times:
        ts = sorted(evidence.times.values())
        ax.vlines(ts, 0, 6, colors="#777777", linewidth=0.8)


def _contacts(moment: Moment, evidence: Recomputed) -> list[tuple[TableEvent, float, float, str]]:
    """(event, t, sd, where from) of each contested event's contact: recomputed, else logged."""
    out = []
    for ev in moment.table_events:
        card = _recomputed(ev, evidence)
        logged = (ev.evidence or {}).get("contact") or {}
        if card is not None and card.contact is not None:
            out.append((ev, card.contact.t, card.contact.sd, "recomputed"))
        elif "contact_t" in logged and logged.get("contact_sd"):
            out.append((ev, float(logged["contact_t"]), float(logged["contact_sd"]), "logged"))
    return out


def _plot_contacts(ax: Any, moment: Moment, evidence: Recomputed) -> None:
    """Each contact time as its probability density (t +- sd), the frame times below."""
    contacts = _contacts(moment, evidence)
    if not contacts:
        ax.text(0.5, 0.5, "no contact time estimated", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    lo = min(t - 3.5 * sd for _, t, sd, _ in contacts)
    hi = max(t + 3.5 * sd for _, t, sd, _ in contacts)
    ts = np.linspace(lo, hi, 300)
    peak = max(1 / (sd * math.sqrt(2 * math.pi)) for _, _, sd, _ in contacts)
    for ev, t, sd, source in contacts:
        colour = h.PLAYER_COLOURS[ev.player]
        density = np.exp(-0.5 * ((ts - t) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
        ax.fill_between(ts, density, color=colour, alpha=0.25)
        ax.plot(
            ts,
            density,
            color=colour,
            linewidth=1.5,
            label=f"{ev.player} {getattr(ev, 'card', ev.kind)}: {t:.3f} ± {sd:.3f} s ({source})",
        )
        ax.axvline(t, color=colour, linewidth=1)
    frames = [ft for ft in evidence.times.values() if lo <= ft <= hi]
    ax.plot(frames, [0] * len(frames), "|", color="#333333", markersize=14, label="recorded frames")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, peak * 1.7)  # room for the legend above the curves
    ax.set_yticks([])
    ax.set_xlabel("game time (s)")
    ax.set_title("When each card touched the pile (estimate and its spread)", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, axis="x")


def _plot_card(ax: Any, card: CardEvidence) -> bool:
    if card.track is None:
        return False
    colour = h.PLAYER_COLOURS[card.player]
    track = card.track
    found = track.found
    dist = np.hypot(*(track.centres_mm - np.array(card.toward)).T)
    name = f"{card.player} {getattr(card.event, 'card', '')}"
    ax.plot(track.times[found], dist[found], "o", color=colour, markersize=4, label=f"{name}: tracked")
    if card.fit is not None:
        ts = np.linspace(track.times[0], track.times[-1], 200)
        fd = np.hypot(*(card.fit.position(ts) - np.array(card.toward)).T)
        ax.plot(ts, fd, "-", color=colour, linewidth=1.2, label=f"{name}: fitted carry")
    if card.contact is not None:
        c = card.contact
        ax.axvspan(c.t - c.sd, c.t + c.sd, color=colour, alpha=0.15)
        ax.axvline(c.t, color=colour, linewidth=1.2, label=f"{name}: contact {c.t:.3f} s")
    return True


def _plot_logged(ax: Any, ev: TableEvent, *, with_track: bool) -> bool:
    """The log's own contact time (and, with no recomputed track, its sd band)."""
    contact = (ev.evidence or {}).get("contact") or {}
    colour = h.PLAYER_COLOURS[ev.player]
    t = contact.get("contact_t", ev.t)
    sd = contact.get("contact_sd")
    ax.plot(
        [t],
        [2],
        "v",
        color=colour,
        markersize=9,
        markeredgecolor="black",
        label=f"{ev.player} {ev.kind}: logged t {float(t):.3f} s",
    )
    if not with_track and sd:
        ax.axvspan(float(t) - float(sd), float(t) + float(sd), color=colour, alpha=0.15)
    return True


def _hand_timeline(moment: Moment, evidence: Recomputed) -> str:
    """Slaps: the share of each arm at rest and each hand's area over the pile, its stop, the spreads."""
    fig, (ax, zoom) = h.new_figure(1180, 520, columns=2, ratios=(3, 2))
    area = ax.twinx()
    for hand in evidence.hands:
        _plot_hand(ax, area, hand)
    for ev in moment.table_events:
        _plot_logged(ax, ev, with_track=any(c.event is ev and c.track is not None for c in evidence.hands))
    _frame_ticks(ax, evidence)
    ax.set_xlabel("game time (s)")
    ax.set_ylabel("share of the arm at rest")
    area.set_ylabel("hand area at the pile (mm², dashed)")
    ts = [t for c in evidence.hands if c.track is not None for t in c.track.times]
    if ts:
        ax.set_xlim(min(ts) - 0.05, max(ts) + 0.05)
    ax.set_ylim(0, 1.05)
    area.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    lines, labels = ax.get_legend_handles_labels()
    more, more_labels = area.get_legend_handles_labels()
    ax.legend(lines + more, labels + more_labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncol=3)
    ax.set_title("Each arm at the player's edge: it comes to rest when the palm lands", fontsize=10)
    _plot_contacts(zoom, moment, evidence)
    zoom.set_title("When each hand came down (estimate and spread)", fontsize=10)
    fig.tight_layout()
    body = h.plot_tag(fig, alt="timeline of the slapping hands")
    window = next((c.frames for c in evidence.hands if c.frames), [])
    what = (
        f'<p class="small">Recomputed from frames {window[0]}-{window[-1]} (the arbiter\'s window: '
        "from before the first slap to both hands lying still), the hands split round the pile as the "
        "referee split them (docs/arbitration.md, \"How: slaps\"); the stop is where 95 % of the arm, "
        "where it crosses the player's edge, is at rest. Triangles: the times the log recorded.</p>"
        if window
        else ""
    )
    return (
        body
        + what
        + _contact_table(moment, evidence)
        + "".join(
            h.missing(f"{c.player}'s slap: no hand track: {c.error}")
            for c in evidence.hands
            if c.track is None or c.contact is None
        )
    )


def _plot_hand(ax: Any, area: Any, hand: HandEvidence) -> None:
    if hand.track is None:
        return
    colour = h.PLAYER_COLOURS[hand.player]
    track = hand.track
    ax.plot(track.times, track.settled, "o-", color=colour, markersize=4, linewidth=1,
            label=f"{hand.player}'s arm: share at rest")
    if track.by_colour_mm2 is not None:  # what the layering reads: the hand near the pile, by its colour
        area.plot(track.times, track.by_colour_mm2, "--", color=colour, linewidth=1.2,
                  label=f"{hand.player}'s hand near the pile (by its colour)")
    else:
        area.plot(track.times, track.own_pile_mm2, "--", color=colour, linewidth=1.2,
                  label=f"{hand.player}'s hand: area over the pile")
    if hand.contact is not None:
        c = hand.contact
        ax.axvspan(c.t - c.sd, c.t + c.sd, color=colour, alpha=0.15)
        ax.axvline(c.t, color=colour, linewidth=1.2, label=f"{hand.player}: slap {c.t:.3f} s")


def _contact_table(moment: Moment, evidence: Recomputed) -> str:
    rows = []
    for ev in moment.table_events:
        contact = (ev.evidence or {}).get("contact") or {}
        card = _recomputed(ev, evidence)
        again = card.contact if card is not None else None
        rows.append(
            [
                describe(ev),
                _logged_contact(contact, ev),
                (ev.evidence or {}).get("touch_from", "not recorded"),
                _contact_text(again)
                if again is not None
                else "not recomputed" + (f": {card.error}" if card is not None and card.error else ""),
                f"{round((again.t - float(contact['contact_t'])) * 1000, 1) + 0.0:+.1f} ms"
                if again is not None and "contact_t" in contact
                else "",
            ]
        )
    return h.table(
        rows, ["event", "contact in the log", "time judged from", "recomputed from the frames", "difference"]
    ) + (
        '<p class="small">The recorded video is re-encoded (H.264), so a recomputed estimate may differ '
        "from the referee's by a few ms.</p>"
    ) + _hand_split_note(moment, evidence)


def _hand_split_note(moment: Moment, evidence: Recomputed) -> str:
    """A slap whose recomputed stop lies more than two sds from the logged one: why it can."""
    off = []
    for hand in evidence.hands:
        t = hand.logged.get("contact_t")
        c = hand.contact
        if c is not None and t is not None and abs(c.t - float(t)) > 2 * c.sd:
            off.append(f"{hand.player}'s ({(c.t - float(t)) * 1000:+.0f} ms)")
    if not off:
        return ""
    return (
        f"<p><b>Note:</b> {' and '.join(off)} recomputed hand stop differs from the log's by more than "
        "twice its spread. The hands over the pile are split between the players along colour edges "
        "and what moves (docs/arbitration.md, \"Hands of the same skin\"); on the re-encoded video the "
        "split can fall elsewhere, and a hand given part of the other hand's moving pixels stops later. "
        "The referee judged the frames it saw: the log's times are what it used.</p>"
    )


def _logged_contact(contact: dict[str, Any], ev: TableEvent) -> str:
    if "contact_t" not in contact:
        return f"none ({contact.get('error', 'no contact evidence')}); event t {ev.t:.3f} s"
    return (
        f"{contact['contact_t']:.3f} +- {contact.get('contact_sd', math.nan):.3f} s, quality "
        f"{contact.get('quality', math.nan):.2f}, {contact.get('frames_used', '?')} frames"
    )


def _contact_text(c: ar.ContactEstimate) -> str:
    return f"{c.t:.3f} +- {c.sd:.3f} s, quality {c.quality:.2f}, {c.frames_used} frames"


# ---------------------------------------------------------------------- layering and sureness


def _layering(moment: Moment, evidence: Recomputed) -> str:
    arbitration = _logged_arbitration(moment)
    parts = []
    reason = str(arbitration.get("reason", ""))
    logged = next((p.strip() for p in reason.split("; ") if p.strip().startswith("layering:")), "")
    parts.append(
        f"<p><b>In the log:</b> {h.esc(logged)}</p>"
        if logged
        else h.missing(
            "The log records no layering evidence for this moment (it is read only for two "
            "cards on one pile, or two hands)."
        )
    )
    lay = evidence.layering
    if lay is not None and evidence.hands and evidence.layering_strip is not None and not lay.shown:
        strip = evidence.layering_strip
        parts.append(
            f"<p><b>Recomputed from the hands' last frame:</b> {h.esc(lay.reason)} "
            f"(P(A's hand underneath) {lay.p_a_under:.2f})</p>"
        )
        parts.append(h.figure(h.img_tag(strip, width=3 * strip.shape[1], alt="the picture read"),
                              "the mat round the pile as the layering model read it "
                              "(A's edge at the bottom)"))
        parts.append(
            '<p class="small">The hand that came down first lies underneath: the later one lands on it. '
            "A small model trained on simulator slaps reads which from this picture "
            "(models/HAND_LAYERING.md; measured on renders only).</p>"
        )
    elif lay is not None and evidence.hands:
        rows = [[str(p), f"{last} mm²", f"{most} mm²", f"{1 - last / most:.0%}" if most else "-"]
                for p, (last, most) in sorted(lay.shown.items())]
        parts.append(
            f"<p><b>Recomputed from the hands' last frame:</b> {h.esc(lay.reason)} "
            f"(P(A's hand underneath) {lay.p_a_under:.2f})</p>"
        )
        parts.append(h.table(rows, ["player", "its hand over the pile at the end", "at most", "lost"]))
        parts.append(
            '<p class="small">The hand that came down first lies underneath: the later hand covers part '
            "of it, so it loses area over the pile and the later one does not.</p>"
        )
    elif evidence.hands:
        why = evidence.notes + [f"{c.player}: {c.error}" for c in evidence.hands if c.error]
        parts.append(h.missing("Not recomputed: " + ("; ".join(why) or "one slap only")))
    elif lay is not None:
        rows = [[str(p), f"{shown} of {blocks}"] for p, (shown, blocks) in sorted(lay.shown.items())]
        parts.append(
            f"<p><b>Recomputed from the settled frame {evidence.settled_frame}:</b> {h.esc(lay.reason)} "
            f"(P(A's card underneath) {lay.p_a_under:.2f})</p>"
        )
        parts.append(h.table(rows, ["player", "blocks of its face the settled pile shows"]))
        parts.append(
            '<p class="small">The card that touched first lies underneath (P8): it shows less of its '
            "face where the two cards overlap.</p>"
        )
    elif evidence.cards:
        parts.append(h.missing("Not recomputed: " + ("; ".join(evidence.notes) or "not a race of two cards")))
    for ev in moment.table_events:
        under = (ev.evidence or {}).get("underneath")
        if isinstance(under, list):
            parts.append(
                f"<p>{h.esc(ev.player)}'s {h.esc(getattr(ev, 'card', ''))}: the pile read underneath it "
                f"(bottom to top): {h.esc(', '.join(map(str, under)))}</p>"
            )
    return "".join(parts)


def _quality_word(q: float) -> str:
    return "good" if q >= 0.5 else "usable" if q >= 0.1 else "too weak to use"


def _sure(p: float | None) -> str:
    if p is None:
        return "no evidence"
    conf = max(p, 1 - p)
    word = "sure" if conf >= 0.9 else "leaning" if conf >= 0.8 else "weak"
    return f"{conf:.2f} ({word})"


def _sureness(moment: Moment, evidence: Recomputed) -> str:
    rows: list[list[str]] = []
    for ev in moment.table_events:
        contact = (ev.evidence or {}).get("contact") or {}
        q = contact.get("quality")
        rows.append(
            [
                f"{ev.player}'s touch time",
                _logged_contact(contact, ev),
                "not estimated"
                if q is None
                else f"quality {q:.2f} ({_quality_word(q)})",
            ]
        )
        read = (ev.evidence or {}).get("read")
        if read is not None and isinstance(ev, Play):
            rows.append(
                [
                    f"card read on the pile after {ev.player}'s play",
                    str(read),
                    f"recogniser confidence {(ev.evidence or {}).get('read_confidence', math.nan):.2f}",
                ]
            )
    arb = evidence.arbitration
    logged = _logged_arbitration(moment)
    hands = bool(evidence.hands)
    for hand in evidence.hands:
        rows.append(
            [
                f"{hand.player}'s hand stop, recomputed",
                _contact_text(hand.contact) if hand.contact is not None else f"not recomputed: {hand.error}",
                "not estimated"
                if hand.contact is None
                else f"quality {hand.contact.quality:.2f} ({_quality_word(hand.contact.quality)})",
            ]
        )
    if arb is not None:
        rows.append(
            [
                "hand stops: who slapped first" if hands else "trajectories: who touched first",
                "no usable pair of times"
                if arb.p_a_first_trajectory is None
                else f"P(A first) {arb.p_a_first_trajectory:.2f}",
                _sure(arb.p_a_first_trajectory),
            ]
        )
        rows.append(
            [
                "layering: whose hand is underneath" if hands else "layering: whose card is underneath",
                "no evidence"
                if arb.p_a_first_layering is None
                else f"P(A underneath) {arb.p_a_first_layering:.2f}",
                _sure(arb.p_a_first_layering),
            ]
        )
        rows.append(
            [
                "the slap order, recomputed" if hands else "the call, recomputed",
                _order(arb.first, moment) + f"; agree: {_agree(arb.agree)}",
                f"{arb.confidence:.3f}",
            ]
        )
    if logged:
        rows.append(
            [
                "the slap order in the log" if hands else "the call in the log",
                _order(logged.get("first"), moment) + f"; agree: {_agree(logged.get('agree'))}",
                f"{logged.get('confidence')}",
            ]
        )
        if arb is not None and (str(arb.first) if arb.first else None) != logged.get("first"):
            rows.append(["note", "the recomputed call differs from the referee's", "see the reasons above"])
    if not rows:
        return h.missing("No event at this moment: nothing was judged, so there is no evidence to weigh.")
    return h.table(rows, ["evidence", "what it says", "how sure"]) + (
        '<p class="small">A kind of evidence "says" a side when it is at least 0.8 sure; the referee names a '
        "first player when the combined evidence is at least 0.9 sure and the two kinds do not disagree "
        "(docs/arbitration.md).</p>"
    )


def _order(first: object, moment: Moment) -> str:
    """``first`` in words: for a slap race, the order of the two slaps."""
    if not first:
        return "no call"
    players = {str(e.player) for e in moment.table_events}
    slaps = all(e.kind == "slap" for e in moment.table_events)
    if len(moment.table_events) == 2 and slaps and len(players) == 2:
        other = next(p for p in players if p != str(first))
        return f"{first} first, then {other}"
    return str(first)


def _agree(value: object) -> str:
    return {True: "yes", False: "NO: the evidence disagrees", None: "one kind says nothing"}.get(
        value if isinstance(value, bool) or value is None else None, str(value)
    )


# ---------------------------------------------------------------------- the log and the session


def _log_lines(session: Session, moment: Moment) -> str:
    lines = sorted(
        {n.line for n in moment.events}
        | {v.line for v in moment.verdicts.values()}
        | {c.line for c in moment.calls}
    )
    if not lines:
        return h.missing("No log line at this moment.")
    try:
        text = (session.folder / "events.jsonl").read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError as exc:
        return h.missing(f"events.jsonl cannot be read: {exc}")
    rows = [[str(n), text[n - 1] if n - 1 < len(text) else ""] for n in lines]
    verified = session.report.log.verified
    return (
        f"<p>Lines 1-{verified} of events.jsonl are verified by the hash chain (events.chain); all "
        "lines below are among them.</p>"
        + h.table([[r[0], f"<code>{h.esc(r[1])}</code>"] for r in rows], ["line", "record"], raw=True)
    )


__all__ = ["dispute_page", "draw_frame", "pile_crop", "write_dispute"]
