"""Truth files: frames of events, the true calibration (checked against the markers the
renderer drew), compact per-frame truth."""

from __future__ import annotations

import gzip
from fractions import Fraction

import numpy as np
import pytest

from referee.errors import InputError
from referee.events import Call, CallKind, GameStart, Play, Verdict
from referee.players import Player
from referee.rules import RuleSet
from referee.sim import truth as files
from referee.sim.camera import Camera
from referee.sim.decks import builtin_deck
from referee.sim.matart import mat_art
from referee.sim.render import Renderer
from referee.sim.scene import CardPose, Effects, Lighting, Scene
from referee.sim.textures import TableStyle
from referee.vision.calibration import calibrate
from referee.vision.markers import MarkerDetector
from referee.vision.mat import load_layout

CLEAN = Effects(noise_sigma=0, exposure_s=0, defocus_sigma=0, jpeg_quality=None)


@pytest.mark.parametrize("t, fps, frame", [
    (0.0, Fraction(30), 0),
    (1 / 30, Fraction(30), 1),           # on a boundary: the frame that starts there
    (round(36 / 30, 6), Fraction(30), 36),  # a microsecond-rounded boundary still counts
    (1.2999, Fraction(30), 38),
    (1.0, Fraction(30000, 1001), 29),
    (1.0011, Fraction(30000, 1001), 30),
])
def test_frame_of(t: float, fps: Fraction, frame: int) -> None:
    assert files.frame_of(t, fps) == frame


def test_every_record_gets_its_frame(tmp_path) -> None:
    from referee.cards import Card

    records = [GameStart(t=0.0, rules=RuleSet(), seed=1),
               Play(t=1.2, player=Player.A, slot=1, pile=1, card=Card.parse("4H")),
               Verdict(t=1.2, event=0, player=Player.A, outcome="legal"),  # type: ignore[arg-type]
               Call(t=2.01, call=CallKind.SPIT)]
    framed = files.with_frames(records, Fraction(30))
    assert [r.frame for r in framed] == [0, 36, 36, 60]
    files.write_events(tmp_path / "e.jsonl", framed)
    assert files.read_events(tmp_path / "e.jsonl") == framed


def _camera(distorted: bool) -> Camera:
    dist = (-0.16, 0.03, 0.0008, -0.0005, 0.0) if distorted else (0.0,) * 5
    return Camera.look_at((340, 430, -820), (297, 210, 0), (960, 540), 58, roll_deg=3, dist=dist)


@pytest.mark.parametrize("distorted", [False, True])
def test_true_calibration_maps_the_mat_where_the_renderer_drew_it(tmp_path, distorted: bool) -> None:
    mat, _ = mat_art()
    layout = load_layout()
    camera = _camera(distorted)
    scene = Scene(camera=camera, table=TableStyle("plain", (60, 90, 60), (60, 90, 60), 1),
                  lighting=Lighting(vignette=0, shadow_strength=0), effects=CLEAN, mat=mat)
    image, _ = Renderer(builtin_deck("kennard")).render(scene)
    path = tmp_path / "calibration.yaml"
    files.write_calibration(path, camera, layout, "test")
    cal = files.read_calibration(path)
    assert (cal.lens is not None) == distorted
    found = MarkerDetector(layout).detect(image)
    assert len(found) >= 8
    for marker_id, corners in zip(found.ids, found.corners, strict=True):  # detector noise ~1 px
        expected = cal.mat_to_image(layout.marker(int(marker_id)).corners())
        assert np.linalg.norm(corners.mean(0) - expected.mean(0)) < 0.8, marker_id
    # an independent calibration from the rendered pixels agrees all over the mat
    fitted, _ = calibrate([image], layout, lens=cal.lens)
    grid = np.stack(np.meshgrid(np.linspace(0, 594, 12), np.linspace(0, 420, 9)), -1).reshape(-1, 2)
    assert np.abs(fitted.mat_to_image(grid) - cal.mat_to_image(grid)).max() < 0.5
    # a point of the mat (the middle of pile 1) both ways
    centre = cal.mat_to_image(np.array([[229.0, 210.0]]))[0]
    assert np.allclose(centre, camera.project(np.array([[229.0, 210.0, 0.0]]))[0], atol=1e-3)
    assert np.allclose(cal.image_to_mat(centre[None])[0], [229.0, 210.0], atol=1e-3)


def _truths() -> list:
    mat, _ = mat_art()
    cam = _camera(False)
    base = Scene(camera=cam, table=TableStyle("plain", (60, 90, 60), (60, 90, 60), 1), effects=CLEAN,
                 mat=mat, settled=(CardPose("QH", 229, 210), CardPose("2S", 229, 210, height=0.3,
                                                                          face_up=False)))
    renderer = Renderer(builtin_deck("kennard"))
    out = []
    for i, camera in enumerate((cam, cam, cam.nudged((5, 0, 0)))):
        moving = (CardPose("7D", 300 + 10 * i, 300, height=20, velocity=(300, 0)),)
        out.append(renderer.render(Scene(**{**base.__dict__, "camera": camera, "moving": moving,
                                             "frame_index": i, "time": i / 30}))[1])
    return out


def test_frames_file_is_compact_deterministic_and_reads_back(tmp_path) -> None:
    truths = _truths()
    for name in ("a.jsonl.gz", "b.jsonl.gz"):
        with files.FramesWriter(tmp_path / name) as writer:
            for t in truths:
                writer.write(t)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    raw = gzip.decompress((tmp_path / "a.jsonl.gz").read_bytes()).decode().splitlines()
    assert '"camera"' in raw[0] and '"camera"' not in raw[1] and '"camera"' in raw[2]
    frames = files.read_frames(tmp_path / "a.jsonl.gz")
    assert [f["frame"] for f in frames] == [0, 1, 2]
    assert frames[1]["camera"] == frames[0]["camera"] != frames[2]["camera"]
    cards = {c["card"]: c for c in frames[1]["cards"]}
    assert "2S" in cards and "QH" not in cards  # the queen lies under the 2S: not visible
    assert cards["2S"]["face_up"] is False and cards["7D"]["moving"] is True
    assert np.allclose(cards["7D"]["quad"], truths[1].cards[-1].quad, atol=0.006)


def test_bad_frames_and_meta_files(tmp_path) -> None:
    bad = tmp_path / "frames.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"frame": 0, "cards": []}\n'))
    with pytest.raises(InputError, match="no camera"):
        files.read_frames(bad)
    bad.write_bytes(b"not gzip")
    with pytest.raises(InputError, match="cannot read"):
        files.read_frames(bad)
    meta = tmp_path / "meta.json"
    meta.write_text('{"format": "something else"}')
    with pytest.raises(InputError, match="not a simulator meta.json"):
        files.read_meta(meta)
    files.write_meta(meta, {"seed": 3})
    assert files.read_meta(meta)["seed"] == 3
