"""The slapping hands' layering model (referee/vision/layering_reader.py): the shipped model on the
committed slap-same fixture (real H.264 video, a slap race it never saw: B's hand lies under
A's), its symmetry (A's edge turned into B's turns the answer), the bad model files and bad
strips, and the slap call made with it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from referee.errors import InputError, MissingPrerequisite
from referee.events import Slap
from referee.players import Player
from referee.sim.truth import read_events
from referee.train_hands import StripRectifier
from referee.vision import arbitration as ar
from referee.vision.calibration import load_calibration
from referee.vision.layering_reader import DEFAULT_PATH, LayeringReader, standardise
from referee.vision.trackeval import read_video

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@cache
def slap_same() -> tuple[np.ndarray, Player, list[np.ndarray], list[Slap], object]:
    """The strip round the slapped pile 7 frames after the later slap (both hands lie still),
    made as the referee makes it; who slapped first; the fixture's frames and slaps."""
    folder = FIXTURES / "slap-same"
    cal = load_calibration(folder / "calibration.yaml")
    slaps = [e for e in read_events(folder / "events.jsonl") if isinstance(e, Slap)]
    frames = list(read_video(folder / "video.mp4"))
    later = max(s.frame or 0 for s in slaps)
    rectify = StripRectifier(cal, float(cal.layout.zone(f"pile{slaps[0].pile}").center[0]))
    first = Player(min(slaps, key=lambda s: s.t).player)
    return rectify(frames[later + 7]), first, frames, slaps, cal


def test_the_shipped_model_reads_the_hand_underneath() -> None:
    strip, first, *_ = slap_same()
    reader = LayeringReader.load()
    assert reader.input_hw == strip.shape[:2]
    p = reader.p_a_under(strip)
    assert (p < 0.1) if first is Player.B else (p > 0.9), p
    lay = reader.layering(strip)
    assert lay.under is first and lay.confidence > 0.8 and "layering model" in lay.reason


def test_turned_top_to_bottom_the_other_hand_lies_underneath() -> None:
    """A's edge is at the bottom of a strip: turned over, A's arm comes from B's edge, so the
    hand underneath is the other player's."""
    strip, first, *_ = slap_same()
    reader = LayeringReader.load()
    p, turned = reader.p_a_under(strip), reader.p_a_under(np.ascontiguousarray(strip[::-1]))
    assert (p < 0.5) == (turned > 0.5), (p, turned)


def test_a_dimmer_warmer_lamp_does_not_change_the_reading() -> None:
    strip, first, *_ = slap_same()
    x = standardise(strip[None])
    assert np.abs(x.mean(axis=(2, 3))).max() < 1e-3 and 0.8 < float(x.std()) < 1.0
    dimmer = np.clip(strip.astype(np.float32) * (0.6, 0.65, 0.75) + 10, 0, 255).astype(np.uint8)
    assert LayeringReader.load().layering(dimmer).under is first


def test_a_strip_of_another_size_is_resized() -> None:
    strip, first, *_ = slap_same()
    reader = LayeringReader.load()
    big = np.repeat(np.repeat(strip, 2, axis=0), 2, axis=1)
    assert reader.layering(big).under is first


def test_bad_strips_are_refused() -> None:
    reader = LayeringReader.load()
    with pytest.raises(ValueError, match="BGR uint8"):
        reader.p_a_under(np.zeros((251, 110), np.uint8))
    with pytest.raises(ValueError, match="BGR uint8"):
        reader.p_a_under(np.zeros((251, 110, 3), np.float32))
    with pytest.raises(ValueError, match=r"\(n, h, w, 3\)"):
        standardise(np.zeros((251, 110, 3)))


def test_a_missing_or_corrupt_model_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "none.onnx"
    with pytest.raises(MissingPrerequisite, match="train-hand-layering") as info:
        LayeringReader.load(missing)
    assert str(missing) in str(info.value)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(InputError, match="not a readable ONNX model"):
        LayeringReader.load(bad)


def test_a_model_without_its_input_size_is_refused(tmp_path: Path) -> None:
    import onnx

    model = onnx.load(str(DEFAULT_PATH))
    del model.metadata_props[:]
    path = tmp_path / "plain.onnx"
    onnx.save(model, str(path))
    with pytest.raises(InputError, match="input_hw"):
        LayeringReader.load(path)


def test_the_slap_call_uses_the_model() -> None:
    """The same window as test_arbitration's slap-same test, with the model: it names B's
    hand underneath and the call (the arms' stops agree) is B's, surer than by colours."""
    _, first, frames, slaps, cal = slap_same()
    from referee.vision.tracking import ZoneTracker

    tracker = ZoneTracker(cal)
    geo = ar.ViewGeometry.of(tracker)
    k0 = min(s.frame or 0 for s in slaps) - 12
    k1 = max(s.frame or 0 for s in slaps) + 8
    views = [tracker.rectified(f) for f in frames[k0 - 5:k1]]
    pile = cal.layout.zone(f"pile{slaps[0].pile}")
    args = (views[5:], np.arange(k0, k1) / 30.0, pile, geo)
    read = ar.arbitrate_slap(*args, background=views[0], players=[Player.A, Player.B],
                             reader=LayeringReader.load())
    by_colour = ar.arbitrate_slap(*args, background=views[0], players=[Player.A, Player.B])
    assert read.arbitration.first is first, read.arbitration.reason
    assert read.arbitration.layering is not None and read.arbitration.layering.under is first
    assert "layering model" in read.arbitration.reason
    assert read.arbitration.confidence > by_colour.arbitration.confidence
