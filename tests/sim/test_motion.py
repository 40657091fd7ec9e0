"""Motion from a self-played game: exact touch times, hands at the cards, conservation,
races, slaps, pile heights, determinism, and hands that come from their owner's side."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from referee.eventlog import read_records_strict
from referee.events import Deal, Hand, Move, Play, Slap, SpitTurn, TableEvent, Turn
from referee.selfplay.bots import SelfPlayConfig
from referee.sim.kinematics import forward, landing_height, minjerk, quintic
from referee.sim.motion import (
    GRIP_D_MM,
    T_CARD,
    Choreography,
    MotionConfig,
    selfplay_with_truth,
)
from referee.sim.scene import HandPose

SEED = 3
FAULTS = SelfPlayConfig(fault_rate=0.1)


@cache
def game() -> tuple[Choreography, dict]:  # type: ignore[type-arg]
    records, dealt = selfplay_with_truth(SEED, FAULTS)
    return Choreography(records, seed=SEED, dealt=dealt), dealt


def choreo() -> Choreography:
    return game()[0]


def hand_of(c: Choreography, ev: TableEvent, t: float) -> HandPose:
    left = ev.hand is Hand.LEFT
    return next(h for h in c.at(t).hands if h.owner == str(ev.player) and h.left == left)


def single_handed(c: Choreography) -> list[TableEvent]:
    """Events whose hand does nothing else between its start and touch (not two cards)."""
    events = [e for e in c.events if e.start is not None and e.hand is not None]
    out = []
    for e in events:
        assert e.start is not None
        clash = any(o is not e and o.player is e.player and o.hand is e.hand and o.start is not None
                    and o.start < e.t + 0.05 and e.start < o.t + 0.05 for o in events)
        if not clash:
            out.append(e)
    return out


# --------------------------------------------------------------------------- kinematics


def test_profiles_meet_their_ends() -> None:
    assert minjerk(0) == 0 and minjerk(1) == 1 and minjerk(0.5) == pytest.approx(0.5)
    assert quintic(2.0, 5.0, 7.0, -3.0, 0.4, 0.0) == 2.0
    assert quintic(2.0, 5.0, 7.0, -3.0, 0.4, 0.4) == pytest.approx(7.0)
    # slope at the ends is the requested velocity
    d = 1e-6
    assert (quintic(2, 5, 7, -3, 0.4, d) - 2) / d == pytest.approx(5, rel=1e-3)
    assert landing_height(1.0, 0.3, 6.0, 20.0) == pytest.approx(6.0)
    # strictly above the landing height over the second half, even onto a higher pile
    assert all(landing_height(u, 0.3, 15.0, 14.0) > 15.0 for u in np.linspace(0.5, 0.999, 200))


# --------------------------------------------------------------------------- touches


def test_cards_first_touch_the_pile_at_the_event_time() -> None:
    c = choreo()
    touches = [k for k in c.contacts if k.kind == "touch" and k.place.startswith("pile")]
    assert len(touches) > 100
    for k in touches:
        ev = c.events[k.event]
        assert isinstance(ev, Play | SpitTurn) and k.t == ev.t and k.card == str(ev.card)
        at = c.card_pose(k.card, k.t)
        assert at.height == pytest.approx(k.height, abs=1e-9)
        assert at.face_up
        start = ev.start if ev.start is not None else ev.t - 0.3
        for t in np.linspace(start + (ev.t - start) / 2, ev.t, 25, endpoint=False):
            assert c.card_pose(k.card, float(t)).height > k.height, (k, t)


def test_piles_grow_by_one_card_thickness_per_card() -> None:
    c = choreo()
    for k in c.contacts:
        if k.kind != "touch" or not k.place.startswith("pile"):
            continue
        below = [p for p in c.at(k.t - 1e-6).settled if p.tag == k.place]
        sliding = [p for p in c.at(k.t - 1e-6).moving if p.tag == k.place and p.card != k.card
                   and p.height < k.height]
        assert k.height == pytest.approx((len(below) + len(sliding) + 0.5) * T_CARD)
    for t in np.arange(0.0, c.duration, 3.7):
        state = c.at(float(t))
        for place in {p.tag for p in state.settled}:
            heights = sorted(p.height for p in state.settled if p.tag == place)
            if any(p.tag == place for p in state.moving):
                continue
            assert heights == pytest.approx(list((np.arange(len(heights)) + 0.5) * T_CARD)), place


def test_hand_is_at_the_card_when_it_is_picked_up() -> None:
    c = choreo()
    checked = 0
    for ev in single_handed(c):
        if not isinstance(ev, Play | SpitTurn | Move | Turn):
            continue
        assert ev.start is not None
        card = c.card_pose(str(ev.card), ev.start)  # face down for a turn or a spit card
        before = c.card_pose(str(ev.card), ev.start - 0.02)
        after = c.card_pose(str(ev.card), ev.start + 0.05)
        assert (before.x, before.y, before.height) == pytest.approx((card.x, card.y, card.height))
        assert (after.x, after.y, after.height, after.flip_deg) != (card.x, card.y, card.height, 0.0)
        hand = hand_of(c, ev, ev.start)
        fx, fy = forward(hand.angle)
        reach = GRIP_D_MM - (25 if isinstance(ev, Turn) else 0)
        tip = (hand.x + fx * reach, hand.y + fy * reach)
        assert math.dist(tip, (card.x, card.y)) < 16.0, ev
        checked += 1
    assert checked > 200


def test_every_state_holds_the_52_cards_once() -> None:
    c = choreo()
    for t in np.arange(-1.0, c.duration, 0.25):
        state = c.at(float(t))
        codes = [p.card for p in state.cards]
        assert len(codes) == 52 and len(set(codes)) == 52, t


def test_face_down_cards_are_the_bots_true_cards() -> None:
    c, dealt = game()
    deals = [(i, e) for i, e in enumerate(c.events) if isinstance(e, Deal)]
    assert deals
    for i, ev in deals:
        truth = dealt[i]
        state = c.at(ev.t + 0.01)
        for slot, cards in enumerate(truth.stock, start=1):
            here = sorted((p for p in state.cards if p.tag == f"{ev.player}.stock{slot}"),
                          key=lambda p: p.height)
            assert [p.card for p in here] == list(cards)
            assert not any(p.face_up for p in here)
        packet = sorted((p for p in state.cards if p.tag == f"{ev.player}.packet"), key=lambda p: p.height)
        assert [p.card for p in packet] == list(truth.packet)
    for ev in c.events:  # every turned card is the one the bots turned, face up from then on
        if isinstance(ev, Turn):
            assert c.card_pose(str(ev.card), ev.t).face_up
            assert c.card_pose(str(ev.card), ev.t).tag == f"{ev.player}.stock{ev.slot}"


def test_a_log_without_the_bots_truth_gets_consistent_identities() -> None:
    from referee import data

    path = __import__("importlib.resources").resources.files(data) / "demo-game.jsonl"
    with path.open() as f:
        records = read_records_strict(f, "demo-game.jsonl")
    c = Choreography(records, seed=1)
    for t in np.arange(0.0, c.duration, 0.5):
        codes = [p.card for p in c.at(float(t)).cards]
        assert len(set(codes)) == 52
    for ev in c.events:
        if isinstance(ev, Turn | SpitTurn | Play):
            assert c.card_pose(str(ev.card), ev.t).face_up


# --------------------------------------------------------------------------- races and slaps


def races(c: Choreography) -> list[tuple[TableEvent, TableEvent]]:
    plays = [e for e in c.events if isinstance(e, Play | SpitTurn) and e.start is not None]
    out = []
    for a, b in zip(plays, plays[1:], strict=False):
        assert isinstance(a, Play | SpitTurn) and isinstance(b, Play | SpitTurn)
        if a.player is not b.player and a.pile == b.pile and b.start is not None and b.start < a.t:
            out.append((a, b))
    return out


def test_a_race_ends_with_the_later_card_on_top() -> None:
    c = choreo()
    found = races(c)
    assert found
    checked = 0
    for first, second in found:
        assert isinstance(first, Play | SpitTurn) and isinstance(second, Play | SpitTurn)
        both = c.at((max(first.start or 0, second.start or 0) + first.t) / 2)
        flying = {p.card for p in both.moving}
        assert {str(first.card), str(second.card)} <= flying
        a = c.card_pose(str(first.card), second.t + 0.2)
        b = c.card_pose(str(second.card), second.t + 0.2)
        if a.tag == b.tag == f"pile{first.pile}":  # (not taken back yet)
            assert b.height == pytest.approx(a.height + T_CARD)
            checked += 1
    assert checked


def test_slaps_touch_at_the_event_time_and_the_first_hand_lies_underneath() -> None:
    c = choreo()
    slaps = [(i, e) for i, e in enumerate(c.events) if isinstance(e, Slap)]
    contacts = {k.event: k for k in c.contacts if k.kind == "slap"}
    assert slaps and set(contacts) == {i for i, _ in slaps}
    same_pile = 0
    for (i, a), (j, b) in zip(slaps, slaps[1:], strict=False):
        for n, ev in ((i, a), (j, b)):
            hand = hand_of(c, ev, ev.t)
            assert hand.height == pytest.approx(contacts[n].height)
            assert hand_of(c, ev, ev.t - 0.02).height > contacts[n].height
        if a.player is not b.player and a.pile == b.pile and b.t - a.t < 0.5:
            assert isinstance(a, Slap)
            hands = c.at(b.t + 0.05).hands
            first = next(k for k, h in enumerate(hands) if h.owner == str(a.player)
                         and h.height == pytest.approx(contacts[i].height))
            second = next(k for k, h in enumerate(hands) if h.owner == str(b.player)
                          and h.height == pytest.approx(contacts[j].height))
            assert first < second  # drawn first: underneath
            assert contacts[j].height > contacts[i].height
            same_pile += 1
    assert same_pile


# --------------------------------------------------------------------------- hands


def test_hands_come_from_their_owners_side() -> None:
    c = choreo()
    owners = set()
    for t in np.arange(0.0, c.duration, 0.3):
        for h in c.at(float(t)).hands:
            fy = forward(h.angle)[1]
            owners.add(h.owner)
            if h.owner == "B":
                assert fy > 0.3, (t, h)  # fingers toward +y: the forearm comes from small y
            else:
                assert fy < -0.3, (t, h)
    assert owners == {"A", "B"}
    rest = c.at(-1.0).hands
    assert all((h.y < 0) if h.owner == "B" else (h.y > 420) for h in rest)


def test_hand_speeds_are_human() -> None:
    c = choreo()
    dt = 0.01
    ts = np.arange(0.0, min(c.duration, 120.0), dt)
    track = np.array([[(h.x, h.y) for h in sorted(c.at(float(t)).hands, key=lambda h: (h.owner, h.left))]
                      for t in ts])
    speed = np.linalg.norm(np.diff(track, axis=0), axis=2) / dt  # (frames, hands) mm/s
    peaks = []  # the peak speed of each movement (a run of frames above 50 mm/s)
    for k in range(speed.shape[1]):
        run = 0.0
        for v in speed[:, k]:
            if v > 50:
                run = max(run, v)
            elif run:
                peaks.append(run)
                run = 0.0
    assert len(peaks) > 100
    assert 500 < np.median(peaks) < 1500  # bell-shaped reaches peak at 0.5-1.5 m/s
    assert np.percentile(speed, 99) < 1700
    assert (speed > 2500).mean() < 0.003  # only the fastest slaps and rushed re-grabs


def test_two_hands_and_two_cards_are_in_the_air_together() -> None:
    c = choreo()
    evs = [e for e in c.events if isinstance(e, Play) and e.start is not None]
    pairs = [(a, b) for a, b in zip(evs, evs[1:], strict=False)
             if a.player is b.player and b.start is not None and b.start < a.t]
    assert pairs
    for a, b in pairs:
        t = (b.start + a.t) / 2  # type: ignore[operator]
        state = c.at(t)
        assert {str(a.card), str(b.card)} <= {p.card for p in state.moving}
        if a.hand is not b.hand:
            assert {h.left for h in state.hands if h.owner == str(a.player)} == {True, False}


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_motion_other_seed_other_offsets() -> None:
    records, dealt = selfplay_with_truth(SEED, FAULTS)
    a = Choreography(records, seed=SEED, dealt=dealt)
    b = Choreography(records, seed=SEED, dealt=dealt)
    other = Choreography(records, seed=SEED + 1, dealt=dealt, config=MotionConfig())
    for t in (0.5, 3.0, 17.25, 40.0, a.duration - 2):
        assert a.at(t) == b.at(t)
    assert a.at(40.0) != other.at(40.0)
    assert [k.t for k in a.contacts] == [k.t for k in other.contacts]


def test_state_arrays_and_scene() -> None:
    c = choreo()
    state = c.at(10.0)
    arr = state.arrays()
    assert arr["corners"].shape == (52, 4, 3)
    assert arr["card"].shape == (52,) and arr["face_up"].dtype == bool
    assert (arr["height"] >= 0).all()
    times = c.frame_times(30.0, 0.0, 1.0)
    assert len(times) == 31 and times[1] == pytest.approx(1 / 30)
    hands = state.hand_arrays()
    assert set(hands["owner"]) == {"A", "B"} and hands["velocity"].shape == (len(state.hands), 2)


def test_a_race_frame_renders_with_the_motion_truth() -> None:
    from referee.sim.camera import random_camera
    from referee.sim.decks import get_deck
    from referee.sim.matart import mat_art
    from referee.sim.render import Renderer
    from referee.sim.scene import Scene
    from referee.sim.textures import random_table

    c = choreo()
    first, second = races(c)[0]
    t = (max(first.start or 0, second.start or 0) + first.t) / 2
    rng = np.random.default_rng(1)
    base = Scene(camera=random_camera(rng, size=(320, 180)), table=random_table(rng), mat=mat_art()[0])
    state = c.at(t)
    image, truth = Renderer(get_deck("kenney")).render(state.scene(base, 0))
    assert image.shape == (180, 320, 3)
    arrays = state.arrays()
    assert [ct.card for ct in truth.cards] == list(arrays["card"])
    assert [ct.moving for ct in truth.cards] == list(arrays["moving"])
    flat = np.array([abs(p.flip_deg) < 60 for p in state.cards])
    seen_up = np.array([ct.face_up for ct in truth.cards])
    assert (seen_up[flat] == arrays["face_up"][flat]).all()


def test_a_log_without_starts_or_hands_still_moves_and_touches_exactly() -> None:
    from dataclasses import replace

    records, _ = selfplay_with_truth(5)
    bare = [replace(r, start=None, hand=None) if isinstance(r, TableEvent) else r for r in records]
    c = Choreography(bare, seed=5)
    touches = [k for k in c.contacts if k.kind == "touch"]
    assert touches
    for k in touches:
        assert c.card_pose(str(k.card), k.t).height == pytest.approx(k.height, abs=1e-9)
    assert {h.owner for h in c.at(10.0).hands} == {"A", "B"}
