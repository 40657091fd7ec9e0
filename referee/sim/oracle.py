"""Perfect recognition from a fixture's per-frame truth, to measure the rest of the referee alone.

:class:`TruthReader` answers what recognition is asked in the pipeline ("what lies on top of
these zones in this frame?") from ``frames.jsonl.gz`` instead of from pixels. Scoring the
pipeline once with it and once with the card model separates observation and arbitration
errors from recognition errors (``benchmarks/referee_eval.py``). It is never used on a real
table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.events import Record, TableEvent
from referee.sim.truth import read_frames

#: A clip whose prelude holds one of these started mid-game: its first frame is not a layout.
MID_GAME_KINDS = frozenset({"play", "move", "take_pile"})


class TruthReader:
    """Zone tops per frame from the simulator's truth."""

    def __init__(self, frames_path: str | Path) -> None:
        self.frames = read_frames(frames_path)
        self._hidden = hidden_tops(self.frames)

    def read(self, frame: int, zones: Sequence[str]) -> list[tuple[str, float]]:
        """(label, confidence) per zone: the card code on top (face up), ``back`` or ``empty``.

        The top is the last card drawn with the zone's tag that is not in flight. A card the
        truth still has in flight at this frame, but that lands before the next one exactly
        where this picture shows it (:func:`at_rest_in_picture`), is at rest in the picture. A
        top wholly under a hand, which the truth leaves out, is still the top
        (:func:`hidden_tops`)."""
        index = min(max(frame, 0), len(self.frames) - 1)
        cards = self.frames[index]["cards"]
        following = self.frames[index + 1]["cards"] if index + 1 < len(self.frames) else []
        out = []
        for zone in zones:
            top = None
            for card in cards:
                if card["tag"] == zone and (not card["moving"] or at_rest_in_picture(card, following)):
                    top = card
            hidden = self._hidden[index].get(zone)
            if hidden is not None and (top is None or top["card"] in hidden[1]):
                top = hidden[0]  # (not under a card that came since)
            if top is None:
                out.append(("empty", 1.0))
            else:
                out.append((top["card"] if top["face_up"] else "back", 1.0))
        return out


#: a card's corners move less than this many pixels to where it rests: still in the picture
AT_REST_PX = 1.0


def at_rest_in_picture(card: dict[str, Any], following: Sequence[dict[str, Any]]) -> bool:
    """Whether ``card``, in flight in the truth of one frame, lies still in that frame's
    picture: in the next frame it rests in the same zone, with the same face up, each corner
    within ``AT_REST_PX`` of where it is now (it landed a few milliseconds after this frame)."""
    later = next((c for c in following if c["card"] == card["card"]), None)
    if later is None or later["moving"] or later["tag"] != card["tag"] or later["face_up"] != card["face_up"]:
        return False
    corners = np.asarray(card["quad"], float) - np.asarray(later["quad"], float)
    return bool(np.all(np.hypot(corners[:, 0], corners[:, 1]) <= AT_REST_PX))


def hidden_tops(frames: Sequence[dict[str, Any]]) -> list[dict[str, tuple[dict[str, Any], frozenset[str]]]]:
    """Per frame, the zones whose top card lies wholly under a hand: ``frames.jsonl.gz`` lists
    only cards with some part visible, so such a card is left out, and the top would be read
    as the card beneath it (game 5191: B's KD, under B's arm as it passed, was read as the back
    beneath it, a sliver of which showed, and its slot seen turned face down). A zone's top at
    rest that is no longer listed, in a frame where a hand covers the middle of where it lay,
    lies there still, until it is listed again or the hand has left; but not under a card
    that was not at rest in the zone then (put on top since: the top read as usual). Each as
    (the card, the codes of the cards at rest in the zone while it was listed on top: a card
    beneath it, hidden while the top was listed and showing a sliver once the top is hidden, is
    no card put on it; game 5266: A's QC, under A's arm, was read as the back beneath it, a
    play under the 7D and a take-back)."""
    out: list[dict[str, tuple[dict[str, Any], frozenset[str]]]] = []
    before: dict[str, tuple[dict[str, Any], frozenset[str]]] = {}  # zone -> (top, the zone's cards then)
    for frame in frames:
        cards = frame["cards"]
        listed = {c["card"] for c in cards}
        resting: dict[str, list[dict[str, Any]]] = {}
        for c in cards:
            if not c["moving"]:
                resting.setdefault(c["tag"], []).append(c)
        hands = [np.asarray(h["outline"], np.float32) for h in frame.get("hands", ())]
        hidden: dict[str, tuple[dict[str, Any], frozenset[str]]] = {}
        for zone, (top, then) in before.items():
            middle = np.asarray(top["quad"], np.float32).mean(axis=0)
            if top["card"] not in listed and {c["card"] for c in resting.get(zone, ())} <= then \
                    and any(cv2.pointPolygonTest(h, (float(middle[0]), float(middle[1])), False) >= 0
                            for h in hands):
                hidden[zone] = (top, then)
        out.append(hidden)
        last, before = before, dict(hidden)
        for zone, at_rest in resting.items():
            if zone not in hidden:
                top, then = at_rest[-1], frozenset(c["card"] for c in at_rest)
                if zone in last and last[zone][0]["card"] == top["card"]:
                    then |= last[zone][1]  # the same top: the cards seen beneath it all along
                before[zone] = (top, then)
    return out


class TruthZoneReader:
    """:class:`TruthReader` with the pipeline's reader signature
    (``referee.live.pipeline.ZoneReader``); ``reads`` counts the batches asked for."""

    def __init__(self, clip: str | Path) -> None:
        self.truth = TruthReader(Path(clip) / "frames.jsonl.gz")
        self.reads = 0

    def read(self, image: np.ndarray, frame: int, zones: Sequence[str]) -> list[tuple[str, float]]:
        self.reads += 1
        return self.truth.read(frame, zones)


def game_so_far(records: Iterable[Record]) -> list[TableEvent]:
    """The table events before a clip (``"prelude": true``) when it starts mid-game, to give the
    referee as ``prelude``; none when the clip starts at a layout its first frame shows."""
    prelude = [r for r in records if isinstance(r, TableEvent) and (r.evidence or {}).get("prelude")]
    return prelude if any(r.kind in MID_GAME_KINDS for r in prelude) else []
