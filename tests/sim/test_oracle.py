"""The perfect-recognition reader (referee/sim/oracle.py) on hand-made frame truth."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from referee.sim.oracle import AT_REST_PX, TruthReader

QUAD = [[100.0, 100.0], [160.0, 100.0], [160.0, 190.0], [100.0, 190.0]]


def _card(card: str, tag: str, moving: bool, face_up: bool = True, shift: float = 0.0) -> dict:
    return {"card": card, "face_up": face_up, "quad": [[x + shift, y] for x, y in QUAD],
            "visible": 0.4, "tag": tag, "moving": moving}


def _reader(tmp_path: Path, frames: list[list[dict]]) -> TruthReader:
    path = tmp_path / "frames.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for n, cards in enumerate(frames):
            record = {"frame": n, "time": n / 30, "cards": cards}
            if n == 0:
                record |= {"camera": {}, "homography": []}
            out.write(json.dumps(record) + "\n")
    return TruthReader(path)


def test_a_card_landing_just_after_the_frame_where_it_lies_is_at_rest_in_that_picture(tmp_path: Path) -> None:
    under = _card("AS", "A.stock1", False, face_up=False)
    frames = [
        [under, _card("7H", "A.stock1", True, shift=9.0)],  # flipping over, still moving
        [under, _card("7H", "A.stock1", True)],  # lands a few ms after this frame, where it lies
        [under, _card("7H", "A.stock1", False)],
    ]
    reader = _reader(tmp_path, frames)
    assert [reader.read(n, ["A.stock1"])[0][0] for n in range(3)] == ["back", "7H", "7H"]


def test_a_card_still_moving_or_landing_elsewhere_is_not_at_rest(tmp_path: Path) -> None:
    frames = [
        [_card("7H", "pile1", True)],
        [_card("7H", "pile1", False, shift=AT_REST_PX * 2)],  # it slid on before it stopped
        [_card("9C", "pile1", True)],
        [_card("9C", "pile2", False)],  # it came to rest on the other pile
        [_card("QD", "pile1", True)],  # the last frame: nothing follows
    ]
    reader = _reader(tmp_path, frames)
    assert [reader.read(n, ["pile1"])[0][0] for n in (0, 2, 4)] == ["empty", "empty", "empty"]
