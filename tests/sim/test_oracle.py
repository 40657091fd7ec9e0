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


def _reader(tmp_path: Path, frames: list[list[dict]], hands: dict[int, list[dict]] | None = None
            ) -> TruthReader:
    path = tmp_path / "frames.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for n, cards in enumerate(frames):
            record = {"frame": n, "time": n / 30, "cards": cards, "hands": (hands or {}).get(n, [])}
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


def test_a_top_wholly_under_a_hand_is_still_the_top(tmp_path: Path) -> None:
    """Game 5191: B's KD, wholly under B's arm, was left out of the frames' truth and its slot
    read as the back beneath it (a sliver of which showed): a turn face down, then a take-back."""
    beneath, kd = _card("2S", "B.stock2", False, face_up=False), _card("KD", "B.stock2", False)
    arm = {"owner": "B", "outline": [[90.0, 0.0], [170.0, 0.0], [170.0, 200.0], [90.0, 200.0]]}
    frames = [[beneath, kd], [beneath], [beneath], [beneath], [beneath, _card("9C", "B.stock2", False)],
              [beneath]]
    reader = _reader(tmp_path, frames, hands={1: [arm], 2: [arm], 4: [arm], 5: [arm]})
    # under the arm: the KD; the arm gone, the KD with it (taken while hidden): the back
    assert [reader.read(n, ["B.stock2"])[0][0] for n in range(4)] == ["KD", "KD", "KD", "back"]
    # a card not there before, listed on top: it is the top; wholly hidden in turn, it stays
    assert [reader.read(n, ["B.stock2"])[0][0] for n in (4, 5)] == ["9C", "9C"]
    # a card in flight into the zone while the top was last listed, come to rest on it since
    # (game 5162: A's 9D, put on pile 2 under both players' hands, covered the 10D)
    coming = _card("9C", "B.stock2", True, shift=30.0)
    frames = [[beneath, kd, coming], [beneath, coming], [beneath, _card("9C", "B.stock2", False)]]
    reader = _reader(tmp_path, frames, hands={1: [arm], 2: [arm]})
    assert [reader.read(n, ["B.stock2"])[0][0] for n in range(3)] == ["KD", "KD", "9C"]


def test_a_card_beneath_the_hidden_top_that_shows_again_is_not_put_on_it(tmp_path: Path) -> None:
    """Game 5266: A's QC, listed alone on its slot, then wholly under A's arm while a sliver of
    the back beneath it showed again, was read as that back (a play under the 7D, then a take-back)."""
    beneath, qc = _card("JH", "A.stock4", False, face_up=False), _card("QC", "A.stock4", False)
    arm = {"owner": "A", "outline": [[90.0, 0.0], [170.0, 0.0], [170.0, 200.0], [90.0, 200.0]]}
    frames = [[beneath, qc], [qc], [beneath], [beneath]]
    reader = _reader(tmp_path, frames, hands={2: [arm]})
    # under the arm: the QC; the arm gone, the QC with it: the back
    assert [reader.read(n, ["A.stock4"])[0][0] for n in range(4)] == ["QC", "QC", "QC", "back"]
