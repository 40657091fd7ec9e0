"""The realism pass: table textures, hands, paper, sensor; each stays deterministic and keeps
the truth exact."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from referee.sim.camera import Camera
from referee.sim.decks import builtin_deck
from referee.sim.hands import _ARM, hand_polys
from referee.sim.lens import noise_bank, noise_lut
from referee.sim.matart import mat_art
from referee.sim.render import Renderer
from referee.sim.scene import CardPose, Effects, HandPose, Lighting, Scene
from referee.sim.textures import TABLE_KINDS, TableStyle, draw_table, random_table

SIZE = (640, 360)


@pytest.fixture(scope="module")
def deck():
    return builtin_deck("kennard")


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_every_table_kind_has_grain_and_is_deterministic(kind: str) -> None:
    rng = np.random.default_rng(4)
    style = next(s for s in (random_table(rng) for _ in range(400)) if s.kind == kind)
    a = draw_table(style, (300, 200), 2.0)
    b = draw_table(style, (300, 200), 2.0)
    assert a.shape == (400, 600, 3) and a.flags.c_contiguous
    assert a.tobytes() == b.tobytes()
    # photographic grain: fine detail, not a flat colour (but not noise that swamps it)
    detail = cv2.absdiff(a, cv2.GaussianBlur(a, (0, 0), 2.0)).mean()
    assert 0.4 < detail < 25, detail
    # the colour is about the style's colour
    assert np.abs(a.reshape(-1, 3).mean(0) - np.array(style.colour)).max() < 60


def test_random_tables_include_carpet_and_cloth() -> None:
    rng = np.random.default_rng(0)
    kinds = {random_table(rng).kind for _ in range(200)}
    assert kinds == set(TABLE_KINDS)


def test_forearm_tapers_to_the_wrist_and_the_sleeve_covers_it() -> None:
    fingers, palm, arm, sleeve = hand_polys(HandPose(300, 300, 0, height=30))
    n = len(_ARM)
    width = np.linalg.norm(arm[1 : n + 1, :2] - np.concatenate([arm[:1], arm[n + 1 :][::-1]])[:, :2],
                           axis=1)
    assert width[0] < width[3] and width[-1] < width[3] + 1  # narrow wrist, fuller forearm
    assert cv2.contourArea(sleeve[:, :2].astype(np.float32)) < cv2.contourArea(
        arm[:, :2].astype(np.float32)) * 1.2
    assert len(fingers) == 5 and len(palm) == 24


def test_sensor_noise_depends_on_the_signal_and_has_colour() -> None:
    lut = noise_lut(3.0).ravel()
    assert lut[20] > lut[128] > lut[250]  # shadows noisier, highlights clipped
    assert lut[128] == pytest.approx(3.0, rel=1e-3)
    bank = noise_bank((64, 36), 1.0)
    assert bank.dtype == np.float32 and bank.shape == (100, 128, 3)
    corr = np.corrcoef(bank[..., 0].ravel(), bank[..., 2].ravel())[0, 1]
    assert 0.0 < corr < 0.9  # partly shared grain, partly colour noise


def _scene(effects: Effects, lighting: Lighting | None = None) -> Scene:
    cam = Camera.look_at((300, 420, -800), (297, 210, 0), SIZE, 55)
    return Scene(camera=cam, table=TableStyle("felt", (60, 110, 35), (60, 110, 35), 3),
                 lighting=lighting or Lighting(), effects=effects,
                 moving=(CardPose("QH", 297, 210, 10, 0.3),))


def test_exposure_drift_and_aberration_are_deterministic(deck) -> None:
    fx = Effects(noise_sigma=2, exposure_s=0, jpeg_quality=None, exposure_drift=0.03,
                 aberration_px=1.0, chroma_noise=1.0)
    a, _ = Renderer(deck).render(_scene(fx))
    b, _ = Renderer(deck).render(_scene(fx))
    assert a.tobytes() == b.tobytes()
    later, _ = Renderer(deck).render(replace(_scene(fx), time=1.2))
    clean, _ = Renderer(deck).render(replace(_scene(replace(fx, noise_sigma=0)), time=1.2))
    base, _ = Renderer(deck).render(replace(_scene(replace(fx, noise_sigma=0)), time=0.0))
    assert later.tobytes() != a.tobytes()
    assert abs(float(clean.mean()) - float(base.mean())) > 0.2  # the exposure hunts


def test_aberration_moves_red_and_blue_apart_at_the_corners(deck) -> None:
    fx = Effects(noise_sigma=0, exposure_s=0, defocus_sigma=0, jpeg_quality=None)
    card = CardPose("QH", 60, 40, 0, 0.3)  # near the image corner
    cam = Camera.look_at((297, 210, -700), (297, 210, 0), SIZE, 70)
    scene = Scene(camera=cam, table=TableStyle("plain", (40, 40, 40), (40, 40, 40), 1),
                  lighting=Lighting(vignette=0, shadow_strength=0), effects=fx, moving=(card,))
    plain, _ = Renderer(deck).render(scene)
    shifted, _ = Renderer(deck).render(replace(scene, effects=replace(fx, aberration_px=2.0)))
    assert np.array_equal(plain[..., 1], shifted[..., 1])  # green is the reference
    assert not np.array_equal(plain[..., 2], shifted[..., 2])


@pytest.mark.parametrize("kind", ["wood", "carpet", "cloth"])
def test_truth_quad_covers_the_card_on_a_textured_table_and_paper_mat(deck, kind) -> None:
    """Grain and card shading change the look, never the geometry (cards on the table beside
    the paper mat, whose relief is drawn too)."""
    mat, _ = mat_art()
    rng = np.random.default_rng(7)
    style = next(s for s in (random_table(rng) for _ in range(400)) if s.kind == kind)
    fx = Effects(noise_sigma=0, exposure_s=0, defocus_sigma=0, jpeg_quality=None)
    cam = Camera.look_at((330, 420, -800), (297, 210, 0), SIZE, 55, roll_deg=4,
                         dist=(-0.15, 0.03, 0.001, -0.0005, 0.0))
    base = Scene(camera=cam, table=replace(style, clutter=0), mat=mat, effects=fx,
                 lighting=Lighting(vignette=0, shadow_strength=0))
    for card in (CardPose("7C", -45, 200, -10, 0.3), CardPose("7C", 645, 120, 30, 2.0)):
        empty, _ = Renderer(deck).render(base)
        img, truth = Renderer(deck).render(replace(base, moving=(card,)))
        changed = (cv2.absdiff(img, empty).max(axis=2) > 40).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        edge = np.concatenate([np.linspace(card.corners()[i], card.corners()[(i + 1) % 4], 20)
                               for i in range(4)])
        want = np.zeros_like(changed)
        cv2.fillPoly(want, [np.round(cam.project(edge) * 16).astype(np.int32)], 1,
                     cv2.LINE_8, 4)
        inter = np.logical_and(changed, want).sum()
        union = np.logical_or(changed, want).sum()
        assert inter / union > 0.9, (kind, card.x, inter / union)
        assert np.allclose(truth.cards[0].quad, cam.project(card.corners()), atol=1e-3)
