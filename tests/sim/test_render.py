"""Renderer: deterministic frames, truth that matches the pixels, visibility."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from referee.sim.camera import Camera
from referee.sim.decks import builtin_deck
from referee.sim.matart import mat_art
from referee.sim.render import Renderer
from referee.sim.scene import CardPose, Effects, HandPose, Lighting, Scene, random_scene
from referee.sim.textures import TableStyle

SIZE = (640, 360)
CLEAN = Effects(noise_sigma=0, exposure_s=0, defocus_sigma=0, jpeg_quality=None)
FLAT = Lighting(vignette=0, shadow_strength=0)


@pytest.fixture(scope="module")
def deck():
    return builtin_deck("kennard")


def _camera(distorted: bool) -> Camera:
    dist = (-0.15, 0.03, 0.001, -0.0005, 0.0) if distorted else (0.0,) * 5
    return Camera.look_at((330, 420, -800), (297, 210, 0), SIZE, 55, roll_deg=4, dist=dist)


def _plain_scene(distorted: bool, cards: tuple[CardPose, ...]) -> Scene:
    return Scene(camera=_camera(distorted), table=TableStyle("plain", (30, 150, 30), (30, 150, 30),
                                                             1),
                 lighting=FLAT, effects=CLEAN, moving=cards)


def _scene(seed: int) -> Scene:
    mat, zones = mat_art()
    return random_scene(seed, SIZE, mat=mat, zones=zones, moving_cards=2, hands=2)


def test_same_seed_same_frame_and_truth(deck) -> None:
    a_img, a_truth = Renderer(deck).render(_scene(11))
    b_img, b_truth = Renderer(deck).render(_scene(11))
    assert a_img.tobytes() == b_img.tobytes()
    assert len(a_truth.cards) == len(b_truth.cards)
    for a, b in zip(a_truth.cards, b_truth.cards, strict=True):
        assert (a.card, a.face_up, a.visible, a.tag) == (b.card, b.face_up, b.visible, b.tag)
        assert a.quad.tobytes() == b.quad.tobytes()
    assert np.array_equal(a_truth.homography, b_truth.homography)
    c_img, _ = Renderer(deck).render(_scene(12))
    assert c_img.tobytes() != a_img.tobytes()


def test_cached_background_gives_the_same_frames(deck) -> None:
    scene = _scene(3)
    later = replace(scene, frame_index=5, moving=tuple(replace(c, x=c.x + 20)
                                                      for c in scene.moving))
    r = Renderer(deck)
    r.render(scene)
    cached, _ = r.render(later)
    fresh, _ = Renderer(deck).render(later)
    assert cached.tobytes() == fresh.tobytes()


@pytest.mark.parametrize("change", ["add", "remove", "move"])
def test_settled_cards_update_like_a_fresh_render(deck, change: str) -> None:
    scene = _scene(4)
    new = CardPose("KS", 230, 215, 12, 5.0, tag="pile1")
    settled = {"add": (*scene.settled, new), "remove": scene.settled[:-3],
               "move": (replace(scene.settled[0], x=scene.settled[0].x + 10),
                        *scene.settled[1:])}[change]
    later = replace(scene, settled=settled, frame_index=1)
    r = Renderer(deck)
    r.render(scene)
    img, truth = r.render(later)
    fresh, fresh_truth = Renderer(deck).render(later)
    assert img.tobytes() == fresh.tobytes()
    assert [c.visible for c in truth.cards] == [c.visible for c in fresh_truth.cards]


@pytest.mark.parametrize("distorted", [False, True])
@pytest.mark.parametrize(("x", "y", "angle", "height", "face_up"),
                         [(297, 210, 0, 0.3, True), (150, 120, 33, 20, True),
                          (420, 300, -70, 5, False), (250, 330, 180, 40, True),
                          (300, 200, 20, 10, True)])
def test_truth_quad_covers_the_card_pixels(deck, distorted, x, y, angle, height,
                                           face_up) -> None:
    tilt = {"flip_deg": 35.0, "pitch_deg": -20.0} if height == 10 else {}
    card = CardPose("QH", x, y, angle, height, face_up, **tilt)
    empty, _ = Renderer(deck).render(_plain_scene(distorted, ()))
    img, truth = Renderer(deck).render(_plain_scene(distorted, (card,)))
    (t,) = truth.cards
    assert t.card == "QH" and t.face_up == face_up and t.visible > 0.99
    changed = (cv2.absdiff(img, empty).max(axis=2) > 40).astype(np.uint8)
    want = np.zeros_like(changed)
    # the quad's edges bow a little under distortion: compare against the projected outline
    edge = np.concatenate([np.linspace(card.corners()[i], card.corners()[(i + 1) % 4], 20)
                           for i in range(4)])
    outline = truth.camera.project(edge)
    cv2.fillPoly(want, [np.round(outline * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    inter = np.logical_and(changed, want).sum()
    union = np.logical_or(changed, want).sum()
    assert inter / union > 0.95
    # corners of the truth quad agree with the outline's start points
    assert np.allclose(t.quad, outline[::20], atol=1e-3)


def test_homography_maps_table_points_to_their_pixels(deck) -> None:
    """A mark at known table mm lands where the truth homography says (no distortion)."""
    mark = CardPose("AS", 200, 150, 0, 0.3)
    img, truth = Renderer(deck).render(_plain_scene(False, (mark,)))
    h = truth.homography
    corners = np.array([[200 - 31.5, 150 - 44], [200 + 31.5, 150 - 44], [200 + 31.5, 150 + 44],
                        [200 - 31.5, 150 + 44]])
    p = np.column_stack([corners, np.ones(4)]) @ h.T
    p = p[:, :2] / p[:, 2:]
    # the card lies 0.3 mm above the table: within a fraction of a pixel
    assert np.allclose(p, truth.cards[0].quad, atol=0.5)


def test_face_down_card_shows_its_back(deck) -> None:
    up = CardPose("QH", 297, 210, 0, 0.3, True)
    down = replace(up, face_up=False)
    img_up, t_up = Renderer(deck).render(_plain_scene(False, (up,)))
    img_down, t_down = Renderer(deck).render(_plain_scene(False, (down,)))
    assert t_up.cards[0].face_up and not t_down.cards[0].face_up
    c = np.round(t_up.cards[0].quad.mean(0)).astype(int)
    assert not np.array_equal(img_up[c[1], c[0]], img_down[c[1], c[0]])
    # a card half turned over stands on its edge: nearly no area, one edge on the table
    edge = replace(up, flip_deg=89.0)
    _, t_edge = Renderer(deck).render(_plain_scene(False, (edge,)))
    q = t_edge.cards[0].quad
    assert cv2.contourArea(q) < 0.1 * cv2.contourArea(t_up.cards[0].quad)
    heights = -edge.corners()[:, 2]
    assert heights.min() == pytest.approx(0.3) and heights.max() == pytest.approx(0.3 + 63, 0.01)
    # turned past the edge, the back shows
    _, t_over = Renderer(deck).render(_plain_scene(False, (replace(up, flip_deg=120.0),)))
    assert not t_over.cards[0].face_up


def test_visibility_counts_occlusion_and_the_frame(deck) -> None:
    below = CardPose("2C", 297, 210, 0, 0.3, tag="below")
    above = CardPose("3C", 297, 210, 0, 0.6, tag="above")
    outside = CardPose("4C", 5000, 210, 0, 0.3, tag="outside")
    hand = HandPose(200, 200, 90, height=40, owner="A")
    scene = replace(_plain_scene(False, (above, outside)), settled=(below,), hands=(hand,))
    _, truth = Renderer(deck).render(scene)
    vis = {c.tag: c.visible for c in truth.cards}
    assert vis["below"] < 0.1
    assert vis["outside"] == 0.0
    assert 0.0 < vis["above"] < 1.0  # partly under the hand
    assert len(truth.hands) == 1 and len(truth.hands[0].outline) > 10
    assert [c.tag for c in truth.visible_cards()] == ["above"]


def test_truth_serialises_to_json(deck) -> None:
    import json

    _, truth = Renderer(deck).render(_scene(5))
    d = json.loads(json.dumps(truth.to_dict()))
    assert len(d["cards"]) == len(truth.cards)
    assert d["cards"][0]["card"] == truth.cards[0].card
    assert np.allclose(d["homography"], truth.homography / truth.homography[2, 2])


def test_lighting_blends_between_two_lights(deck) -> None:
    from referee.sim.scene import blend_lighting

    dark, bright = Lighting(gain=0.6), Lighting(gain=1.2, gradient=(0.2, 0.0))
    assert blend_lighting(dark, bright, 0.0) == dark
    assert blend_lighting(dark, bright, 1.0) == bright
    assert blend_lighting(dark, bright, 0.5).gain == pytest.approx(0.9)
    scene = _plain_scene(False, (CardPose("QH", 297, 210),))
    a, _ = Renderer(deck).render(replace(scene, lighting=dark))
    b, _ = Renderer(deck).render(replace(scene, lighting=bright))
    assert a.mean() < b.mean()


@pytest.mark.parametrize("distorted", [False, True])
def test_hand_outline_covers_the_hand_pixels(deck, distorted: bool) -> None:
    hand = HandPose(297, 230, 10, height=30, skin=(60, 90, 200), sleeve=(200, 40, 40),
                    owner="A")
    base = _plain_scene(distorted, ())
    empty, _ = Renderer(deck).render(base)
    img, truth = Renderer(deck).render(replace(base, hands=(hand,)))
    changed = (cv2.absdiff(img, empty).max(axis=2) > 40).astype(np.uint8)
    want = np.zeros_like(changed)
    cv2.fillPoly(want, [np.round(truth.hands[0].outline).astype(np.int32)], 1)
    inter = np.logical_and(changed, want).sum()
    union = np.logical_or(changed, want).sum()
    assert inter / union > 0.9
