"""Observation on made-up zone changes: each rule of docs/observation.md, one at a time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.events import Deal, Hand, Move, Play, Slap, SpitTurn, TakeBack, TakePile, Turn
from referee.players import Player
from referee.rules.hindsight import FOUND_BENEATH
from referee.vision.mat import MatLayout, load_layout
from referee.vision.observation import (
    BACK_HIDDEN_GAP_FRAMES,
    BARE_AFTER_LEFT_S,
    CARRY_SETTLE_AGAIN_FRAMES,
    EARLY_SLAP_FLIP_S,
    EARLY_SLAP_SLOTS_S,
    EARLY_SLAP_STILL_S,
    EARLY_SLAP_WAIT_S,
    EMPTY_UNSEEN_MAX_S,
    GRAB_BEFORE_FRAMES,
    GRAB_TOGETHER_FRAMES,
    LEFT_LAG_S,
    MIN_CARRY_S,
    PAIR_WINDOW_S,
    PLAY_CARRY_S,
    REREAD_EVERY,
    REREAD_FOR_S,
    SECOND_HAND_MM2,
    SLAP_LEAD_S,
    SLOT_REACH_MM,
    SPIT_PLACE_S,
    SPIT_READ_CONFIDENCE,
    SPIT_TIP_AFTER_S,
    SPIT_WAIT_S,
    TAKE_BACK_CARRY_S,
    TAKE_BACK_GRAB_S,
    TAKE_BACK_LEAVE_S,
    TAKE_BACK_LIFT_S,
    TOUCH_LAG_S,
    TURN_AFTER_ARRIVAL_S,
    TURN_AFTER_BUSY_MAX_S,
    TURN_HIDDEN_GAP_FRAMES,
    TURN_LOOK_S,
    TURN_UNDER_HAND_LAG_S,
    UNDER_WAIT_S,
    Observer,
    ZoneReading,
)
from referee.vision.tracking import HandBlob, StrayChange, TrackedFrame, ZoneChange, ZoneObservation

FPS = 30.0
START = {"A.stock1": "4D", "A.stock2": "KD", "A.stock3": "back", "A.stock4": "JS", "A.stock5": "7H",
         "B.stock1": "10C", "B.stock2": "QC", "B.stock3": "3S", "B.stock4": "8S", "B.stock5": "AC",
         "A.packet": "back", "B.packet": "back", "pile1": "5D", "pile2": "9H"}


class Table:
    """An observer fed frame by frame with changes we make up."""

    def __init__(self, layout: MatLayout) -> None:
        self.obs = Observer(layout)
        self.frame = 0
        readings = {z: ZoneReading(z, lab, 1.0, 0, 0.0) for z, lab in START.items()}
        self.obs.start(readings, 0, 0.0)
        self.zones = [z.id for z in layout.zones]
        #: when each busy zone went busy, where a test says (ZoneObservation.busy_since)
        self.busy_since: dict[str, int] = {}

    def frame_with(self, changes: dict[str, str] | None = None, hands: tuple[HandBlob, ...] = (),
                   unsettled: tuple[str, ...] = (), hand_over: bool = False, confidence: float = 1.0,
                   before: tuple[HandBlob, ...] | None = None, busy_frames: int = 6,
                   kept: tuple[str, ...] = (), carried: bool = False,
                   beneath: frozenset[str] = frozenset(), elsewhere: frozenset[str] = frozenset(),
                   taken_before: frozenset[str] = frozenset(),
                   runner_up: tuple[str, float] | None = None,
                   guess: str | None = None, showing_number: tuple[str, ...] = (),
                   number_hidden: tuple[str, ...] = (),
                   confidences: dict[str, float] | None = None, difference: float = 20.0,
                   faint: bool = False, bare: tuple[str, ...] = ()) -> list:
        """One frame settling ``changes`` (after ``busy_frames`` frames with them busy, under
        ``before`` hands or else ``hands``; each change began 5 frames before it settles, or
        in ``self.busy_since``), with
        ``unsettled`` zones still busy (those in ``kept`` showing, where no hand covers them, the
        card that lay there; each busy since the frame in ``self.busy_since``, if there);
        ``carried``: the changes settled by a carried landing (ZoneChange.carried), with the
        cards followed to the zone ``beneath`` (of those, ``taken_before``: the follows saw them
        leave their slots before the top's card) and those the follows place ``elsewhere``;
        ``runner_up``: the identity each reading put second;
        ``guess``: for a card not read surely (``card``), the identity it was read as;
        ``showing_number``: zones whose printed number shows when they settle (not occupied),
        as does each zone read "empty" unless in ``number_hidden`` (a hand over it);
        ``confidences``: a reading's confidence where it is not ``confidence``; ``difference``:
        each change's mean grey difference between its settled views; ``faint``: the changes
        are faint (``ZoneChange.faint``); ``bare``: zones showing the printed mat at their centre
        in this frame (``ZoneObservation.bare``)."""
        changes = changes or {}
        showing_number = (*showing_number, *(z for z, label in changes.items()
                                             if label == "empty" and z not in number_hidden))
        for _ in range(busy_frames if changes else 0):  # a hand over the zones first
            self.frame += 1
            t = self.frame / FPS
            busy = set(changes) | set(unsettled)
            zones = {z: ZoneObservation(z, True, z in busy, z not in busy, 1.0, 0.0,
                                        busy_since=self.busy_since.get(z) if z in busy else None)
                     for z in self.zones}
            early = hands if before is None else before
            assert self.obs.update(TrackedFrame(self.frame, t, zones, (), early), {}) == []
        self.frame += 1
        t = self.frame / FPS
        zones = {z: ZoneObservation(z, z not in showing_number, z in unsettled, z not in unsettled, 1.0, 0.0,
                                    0.0 if z in kept else None,
                                    busy_since=self.busy_since.get(z) if z in unsettled else None,
                                    bare=z in bare)
                 for z in self.zones}
        made = tuple(ZoneChange(z, self.frame, t, z not in showing_number, True,
                                self.busy_since.get(z, self.frame - 5), difference,
                                hand_over or carried, self.frame - 3, t - 3 / FPS, carried,
                                elsewhere=elsewhere, beneath=beneath, taken_before=taken_before,
                                faint=faint)
                     for z in changes)
        tracked = TrackedFrame(self.frame, t, zones, made, hands)
        second, second_confidence = runner_up or (None, 0.0)
        sure = {z: (confidences or {}).get(z, confidence) for z in changes}
        readings = {z: ZoneReading(z, lab, sure[z], self.frame, t, runner_up=second,
                                   runner_up_confidence=second_confidence, guess=guess)
                    for z, lab in changes.items()}
        return self.obs.update(tracked, readings)

    def idle(self, n: int, **kwargs: object) -> None:
        for _ in range(n):
            assert self.frame_with(**kwargs) == []  # type: ignore[arg-type]


MAT = load_layout()


def hand(player: Player, *zones: str) -> HandBlob:
    """A hand covering the centres of ``zones``, its tip (the fingers) on the one furthest
    into the mat from the player's edge (A's edge is the mat's far side, y = its height)."""
    tip = (0.0, 0.0)
    if zones:
        centres = [MAT.zone(z).center for z in zones]
        tip = (min if player is Player.A else max)(centres, key=lambda c: c[1])
    return HandBlob(player, 20000.0, (0, 0, 10, 10), tip, zones)


def test_the_first_frame_s_layout_is_dealt_only_when_most_slots_show_a_card(layout: MatLayout) -> None:
    """Game 5005 at 960x540: the first frame showed the first card being dealt in one slot; the
    mat was taken for a dealt layout and both deals were missed."""
    slots = [z.id for z in layout.zones if ".stock" in z.id]
    dealing = {z: ZoneReading(z, "empty", 1.0, 0, 0.0) for z in slots}
    dealing["B.stock2"] = ZoneReading("B.stock2", "card", 0.3, 0, 0.0)
    obs = Observer(layout)
    assert obs.start(dealing, 0, 0.0) == []  # the deals are watched
    obs.note_game(False, {Player.A, Player.B}, 5)
    b_slots = [z for z in slots if z.startswith("B.")]
    events: list = []
    for n, zone in enumerate(b_slots, 1):
        change = ZoneChange(zone, n, n / FPS, True, False, n - 1, 20.0)
        zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in slots}
        events += obs.update(TrackedFrame(n, n / FPS, zones, (change,), ()),
                             {zone: ZoneReading(zone, "back", 0.95, n, n / FPS)})
    assert [(type(e), e.player) for e in events] == [(Deal, Player.B)]
    # a first frame with every slot showing a card: a dealt layout, both deals at once
    dealt = {z: ZoneReading(z, lab, 1.0, 0, 0.0) for z, lab in START.items()}
    assert [(type(e), e.player) for e in Observer(layout).start(dealt, 0, 0.0)][:2] == [
        (Deal, Player.A), (Deal, Player.B)]


def test_a_back_dealt_into_a_slot_under_a_hand_completes_the_deal(layout: MatLayout) -> None:
    """Game 5209: A's hand, in the first frame, left a ghost over slot 5 that the background
    took 2 s to learn; the back dealt there, read 0.76 under it (a slot under a hand needs
    0.8), was not believed, the deal never completed and every later turn and play of A's was
    refused. A back in a dealer's slot is the card dealt; another slot's, still not believed."""
    slots = [z.id for z in layout.zones if ".stock" in z.id]
    b_slots = [z for z in slots if z.startswith("B.")]
    for dealing in (True, False):
        obs = Observer(layout)
        assert obs.start({z: ZoneReading(z, "empty", 1.0, 0, 0.0) for z in slots}, 0, 0.0) == []
        obs.note_game(False, {Player.B} if dealing else set(), 5)
        events: list = []
        for n, zone in enumerate(b_slots, 1):
            last = zone == b_slots[-1]
            change = ZoneChange(zone, n, n / FPS, True, False, n - 1, 20.0, hand_over=last)
            zones = {z: ZoneObservation(z, True, last and z == zone, True, 1.0, 0.0) for z in slots}
            hands = (hand(Player.B, zone),) if last else ()
            events += obs.update(TrackedFrame(n, n / FPS, zones, (change,), hands),
                                 {zone: ZoneReading(zone, "back", 0.76 if last else 0.95, n, n / FPS)})
        assert [(type(e), e.player) for e in events] == ([(Deal, Player.B)] if dealing else [])
        assert (obs.state.tops[b_slots[-1]] == "back") is dealing


def test_a_first_frame_s_card_not_read_surely_is_its_likeliest_card(layout: MatLayout) -> None:
    """Race seeds 6084 and 6096 with the model: a slot's card, read 0.43-0.45 in the first
    frame, stayed unknown; read surely once an arm had passed over the slot, it was given as
    a turn that never happened."""
    readings = {z: ZoneReading(z, lab, 1.0, 0, 0.0) for z, lab in START.items()}
    readings["A.stock4"] = ZoneReading("A.stock4", "card", 0.45, 0, 0.0, guess="JS")
    readings["A.stock5"] = ZoneReading("A.stock5", "card", 0.3, 0, 0.0)  # no likeliest card: unknown
    obs = Observer(layout)
    turns = {e.slot: e for e in obs.start(readings, 0, 0.0) if isinstance(e, Turn) and e.player is Player.A}
    assert str(turns[4].card) == "JS" and turns[4].evidence == {
        "prelude": True, "frame": 0, "guessed": True, "zone": "A.stock4", "read_confidence": 0.45}
    assert 5 not in turns and not (turns[1].evidence or {}).get("guessed")
    assert obs.state.tops["A.stock4"] == "JS" and obs.state.tops["A.stock5"] == "card"
    zones = {z.id: ZoneObservation(z.id, True, False, True, 1.0, 0.0) for z in layout.zones}
    change = ZoneChange("A.stock4", 40, 40 / FPS, True, False, 30, 20.0)
    assert obs.update(TrackedFrame(40, 40 / FPS, zones, (change,), ()),
                      {"A.stock4": ZoneReading("A.stock4", "JS", 0.9, 40, 40 / FPS)}) == []
    # with the reading's runner-up, which a clash with a card read elsewhere may make it take
    # (race-eval seed 6769 with the model: tests/live/test_pipeline.py)
    readings["A.stock4"] = replace(readings["A.stock4"], runner_up="JC", runner_up_confidence=0.391)
    turns = {e.slot: e for e in Observer(layout).start(readings, 0, 0.0)
             if isinstance(e, Turn) and e.player is Player.A}
    evidence = turns[4].evidence or {}
    assert evidence["runner_up"] == "JC" and evidence["runner_up_confidence"] == 0.391


def test_a_continued_game_s_card_not_read_surely_is_the_card_its_log_names(layout: MatLayout) -> None:
    readings = {z: ZoneReading(z, lab, 1.0, 0, 0.0) for z, lab in START.items()}
    readings["A.stock4"] = ZoneReading("A.stock4", "card", 0.45, 0, 0.0, guess="JC")
    readings["pile1"] = ZoneReading("pile1", "card", 0.4, 0, 0.0)
    obs = Observer(layout)
    assert obs.start(readings, 0, 0.0, deal=False, known={"A.stock4": "JS", "pile1": "5D"}) == []
    assert obs.state.tops["A.stock4"] == "JS" and obs.state.tops["pile1"] == "5D"
    assert [c.card for c in obs.state.piles[1]] == ["5D"]


def test_a_play_is_a_departure_and_an_arrival(layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"A.stock1": "back"}) == []  # 4D left its slot (a face-down card beneath)
    table.idle(5)
    events = table.frame_with({"pile1": "4D"})
    assert len(events) == 1 and isinstance(events[0], Play)
    play = events[0]
    assert (play.player, play.slot, play.pile, str(play.card)) == (Player.A, 1, 1, "4D")
    assert play.t < table.frame / FPS and play.start is not None and play.start < play.t
    assert play.evidence and play.evidence["underneath"] == ["5D"]


def test_a_faint_change_of_a_pile_is_believed_only_as_a_card_that_left_a_slot(layout: MatLayout) -> None:
    """Game 5154: A's 3D put square on the 2H changed pile 1 less than a change does (a faint
    change): the play was missed, A's turn in slot 5 refused, and A's 2D on the 3D judged on the
    2H (a false F_ILLEGAL_RANK). A faint change read as the card that left a slot, as the card
    of a slot still busy, or as one read not surely under the hand that turned it, is that
    card; read as its top, or as a card no slot lost, it is nothing (most are a hand's shadow,
    or a card nudged)."""
    table = Table(layout)
    assert table.frame_with({"A.stock1": "back"}) == []  # 4D left its slot
    table.idle(5)
    assert table.frame_with({"pile1": "5D"}, difference=4.0, faint=True) == []  # its top: nothing came
    assert table.frame_with({"pile1": "6D"}, difference=4.0, faint=True) == []  # no slot lost a 6D
    assert table.obs.state.tops["pile1"] == "5D"
    events = table.frame_with({"pile1": "4D"}, difference=4.0, faint=True)
    assert [(type(e), e.player, getattr(e, "slot", None), str(e.card)) for e in events] == [
        (Play, Player.A, 1, "4D")]
    assert events[0].evidence["underneath"] == ["5D"]
    # the card of a slot still under its hand
    events = table.frame_with({"pile2": "8S"}, unsettled=("B.stock4",), difference=4.0, faint=True)
    assert [(type(e), e.player, getattr(e, "slot", None)) for e in events] == [(Play, Player.B, 4)]
    # a card read not surely under the hand that turned it in a slot, a back there again after;
    # the hand that put it down reached the pile with its fingertips only
    table.frame_with({"A.stock3": "3D"}, hands=(hand(Player.A, "A.stock3"),), hand_over=True, confidence=0.5)
    table.frame_with({"A.stock3": "back"}, hands=(hand(Player.A, "A.stock3"),))
    tip = tuple(map(float, layout.zone("pile1").center))
    events = table.frame_with({"pile1": "3D"}, hands=(hand_at(Player.A, tip),), difference=4.0, faint=True)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "3D"), (Play, "3D")]


def test_a_faint_change_of_a_pile_read_as_a_card_seen_nowhere_after_a_packet_visit_is_a_spit_card(
        layout: MatLayout) -> None:
    """Game 5904, both recognitions: A's spit 2D, put on the 3S 50 ms after B's spit card, changed
    pile 1 faintly (5.4); no slot had lost a 2D and it was dropped, and A's next six plays were
    judged before both spit cards (six false F_EARLY). A card seen nowhere yet, read on a pile
    that changed faintly just after its player's hand was at their packet, is their spit card;
    without the visit it is nothing, as before."""
    for visit in (True, False):
        table = Table(layout)
        if visit:
            table.idle(3, hands=(hand(Player.A, "A.packet"),), unsettled=("A.packet",))
        events = table.frame_with({"pile1": "2C"}, hands=(hand(Player.A, "pile1"),), difference=4.0,
                                  faint=True)
        events += frames_of(table, round(SPIT_WAIT_S * FPS) + 2, ())
        expected = [(SpitTurn, Player.A, 1, "2C")] if visit else []
        assert [(type(e), e.player, e.pile, str(e.card)) for e in events] == expected


def test_a_play_seen_on_the_pile_before_its_slot_settles(layout: MatLayout) -> None:
    table = Table(layout)
    events = table.frame_with({"pile2": "8S"}, unsettled=("B.stock4",))  # B's slot 4 still under B's hand
    assert [(type(e), e.player, getattr(e, "slot", None)) for e in events] == [(Play, Player.B, 4)]
    assert table.frame_with({"B.stock4": "back"}) == []  # the departure was already explained
    turn = table.frame_with({"B.stock4": "6C"})
    assert [(type(e), e.player, e.slot, str(e.card)) for e in turn] == [(Turn, Player.B, 4, "6C")]


def test_a_take_back_uncovers_the_card_beneath(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    events = table.frame_with({"pile1": "5D"})
    assert len(events) == 1 and isinstance(events[0], TakeBack)
    assert (events[0].player, str(events[0].card), events[0].pile) == (Player.A, "KD", 1)
    assert table.frame_with({"A.stock2": "KD"}) == []  # back in its slot: no turn


def test_a_pile_showing_the_card_beneath_under_the_other_player_s_hand_alone_is_no_take_back(
        layout: MatLayout) -> None:
    """Game 5223 with the model: B's AH, put on A's 2C, read under B's hand as the AD beneath
    the 2C: a take-back of A's, whose hands were off the mat (a false F_TAKE_BACK). Only the
    other player's hand on the pile: no take-back (B's card that left is B's play, the KD stays);
    with the top's player's hand there too, the take-back stands."""
    for a_there, expected in ((False, [(Play, Player.B, "3S")]), (True, [(TakeBack, Player.A, "KD")])):
        table = Table(layout)
        table.frame_with({"A.stock2": "back"}, hands=(hand(Player.A, "A.stock2"),))
        table.frame_with({"pile1": "KD"}, hands=(hand(Player.A, "pile1"),))
        table.idle(int(PAIR_WINDOW_S * FPS) + 1)  # A's hand long gone
        table.frame_with({"B.stock3": "back"}, hands=(hand(Player.B, "B.stock3"),))
        on_pile = (hand(Player.B, "pile1"),) + ((hand(Player.A, "pile1"),) if a_there else ())
        events = table.frame_with({"pile1": "5D"}, hands=on_pile, hand_over=True)
        assert [(type(e), e.player, str(e.card)) for e in events] == expected
        assert ("KD" in [p.card for p in table.obs.state.piles[1]]) is not a_there


def test_a_top_seen_back_in_its_slot_is_taken_back_though_the_other_hand_alone_was_on_the_pile(
        layout: MatLayout) -> None:
    """Game 5599 with the model: B took the 4S back off pile 2 while A's hand lay on it; the
    pile, read "empty" under both hands, settled showing the 6D beneath only after B's hand had
    left it, with A's hand alone there, and after the 4S was read back in B's slot: the two
    readings agree on a take-back (lost, with B's moves of the 4S after it), timed as the hand
    that took it came over the pile (a card back in its slot, ``_lifted_from_beneath``)."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"}, hands=(hand(Player.A, "pile1"),))
    table.idle(int(PAIR_WINDOW_S * FPS) + 1)
    b = hand(Player.B, "pile1")
    came = (table.frame + 1) / FPS
    assert table.frame_with({"pile1": "empty"}, hands=(b, hand(Player.A, "pile1")), hand_over=True,
                            number_hidden=("pile1",)) == []
    table.busy_since["A.stock2"] = table.frame + 1
    assert table.frame_with({"A.stock2": "KD"}, hands=(b,), before=(b, hand(Player.A, "A.stock2"))) == []
    events = table.frame_with({"pile1": "5D"}, hands=(b,), hand_over=True)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
    assert events[0].t == pytest.approx(came)
    assert table.frame_with({"A.stock2": "KD"}) == []  # still in its slot: no turn


def test_a_pile_read_under_the_slapping_hands_keeps_its_top(layout: MatLayout) -> None:
    """Slap-eval seed 6018: after A's last card (KD on pile 1), pile 1 settled under the
    slapping hands showing the 5 beneath (it peeked out): no take-back; the top stays KD,
    and seen again once the hands have gone it is no new play."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    table.obs.note_round_over(True)
    slapping = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    assert table.frame_with({"pile1": "5D"}, hands=slapping, before=(), hand_over=True) == []
    assert table.obs.state.tops["pile1"] == "KD"
    assert table.frame_with({"pile1": "KD"}) == []
    # seed 6009: pile 2, hidden by the slapping hands, read empty as it settled (the tracker
    # saw no hand over it then) is not taken
    over2 = (hand(Player.A, "pile2"), hand(Player.B, "pile2"))
    assert table.frame_with({"pile2": "empty"}, before=over2, busy_frames=2) == []
    assert table.obs.state.tops["pile2"] == "9H"
    # during play the same reading is a take-back
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),), hand_over=True)
    assert [type(e) for e in events] == [TakeBack]


def test_a_pile_under_hands_keeps_its_top_once_a_player_played_every_stock_card(layout: MatLayout) -> None:
    """Slap-eval seed 6121: A's last stock card (KD, its slot read empty under A's hand) is
    played, and in the same frame, before the rules engine has said the round is over, pile 1
    settles under the slapping hands showing the card beneath: no take-back (A's slots are
    all empty, so the round is over). With a card left in a slot it is a take-back."""
    others_empty = {"A.stock1": "empty", "A.stock3": "empty", "A.stock4": "empty"}
    for left in ("empty", "7H"):
        table = Table(layout)
        table.obs.state.tops.update({**others_empty, "A.stock5": left})
        over_slot = (hand(Player.A, "A.stock2"),)
        assert table.frame_with({"A.stock2": "empty"}, hands=over_slot, hand_over=True) == []
        played = table.frame_with({"pile1": "KD"})
        assert [(type(e), str(e.card)) for e in played] == [(Play, "KD")]
        slapping = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
        events = table.frame_with({"pile1": "5D"}, hands=slapping, before=(), hand_over=True)
        if left == "empty":
            assert events == [] and table.obs.state.tops["pile1"] == "KD"
            # once the engine has judged the play, and allocated the piles with no slap to wait
            # for, a pile taken under a hand is taken (fixture round-end)
            table.obs.note_game(False, set(), 5)
            taken = table.frame_with({"pile1": "empty"}, before=(hand(Player.A, "pile1"),))
            assert [(type(e), e.player) for e in taken] == [(TakePile, Player.A)]
        else:
            assert [type(e) for e in events] == [TakeBack]
    # the last card itself, its slot seen empty first, is played under the hand that puts it
    # there (fixture slap-different)
    table = Table(layout)
    table.obs.state.tops.update({**others_empty, "A.stock5": "empty"})
    assert table.frame_with({"A.stock2": "empty"}) == []
    played = table.frame_with({"pile1": "KD"}, hands=(hand(Player.A, "pile1"),), hand_over=True)
    assert [(type(e), str(e.card)) for e in played] == [(Play, "KD")]


def test_a_pile_read_under_the_slapping_hands_that_waited_past_the_allocation_keeps_its_top(
        layout: MatLayout) -> None:
    """Slap-eval seed 6152: pile 1, read under the slapping hands as a card that was not its
    top (what peeked out), waited for a slot of B's still busy; the slaps were judged and the
    piles allocated before that slot settled. What settled while the round was over is judged
    as it would have been then: the pile keeps its top."""
    table = Table(layout)
    table.frame_with({"A.stock5": "back"})
    played = table.frame_with({"pile1": "7H"})
    assert [(type(e), str(e.card)) for e in played] == [(Play, "7H")]
    table.obs.note_round_over(True)
    table.busy_since["B.stock1"] = table.frame - 5  # B's slot busy from before the slap
    slapping = (hand(Player.A, "pile1"), hand(Player.B, "pile1", "B.stock1"))
    assert table.frame_with({"pile1": "6C"}, hands=slapping, busy_frames=1, unsettled=("B.stock1",)) == []
    table.obs.note_game(False, set(), 5)  # the slaps judged, the piles allocated
    assert table.frame_with({"B.stock1": "10C"}, busy_frames=1) == []
    assert table.obs.state.tops["pile1"] == "7H"


def king_under_ten(layout: MatLayout) -> Table:
    """A's KD from slot 2 on pile 1's five (illegal, to be taken back), B's 10C from slot 1 on it."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    table.frame_with({"B.stock1": "empty"})
    table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))
    return table


def test_a_take_back_needs_a_sure_reading(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    # the pile read as the card beneath, not surely enough: no take-back, the top stays KD
    assert table.frame_with({"pile1": "5D"}, confidence=0.6) == []
    assert table.obs.state.tops["pile1"] == "KD"
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "KD"]
    # surely, but with the top read surely as well, as the runner-up: the top stays
    assert table.frame_with({"pile1": "5D"}, confidence=0.85, runner_up=("KD", 0.8)) == []
    assert table.obs.state.tops["pile1"] == "KD"
    # ... or the top less surely, but at least half as surely as the card read (game 5018)
    assert table.frame_with({"pile1": "5D"}, confidence=0.76, runner_up=("KD", 0.59)) == []
    assert table.obs.state.tops["pile1"] == "KD"
    events = table.frame_with({"pile1": "5D"}, confidence=0.8, runner_up=("KD", 0.1))  # the top not
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "KD")]
    # from under a later card: a slot other than the card's own read unsurely as the card
    # beneath turned it (the engine finds that card on the pile: a clash of readings), and so
    # does another player's slot
    table = king_under_ten(layout)
    events = table.frame_with({"A.stock3": "KD"}, confidence=0.6)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "KD")]
    table.frame_with({"B.stock2": "back"})
    events = table.frame_with({"B.stock2": "5D"})  # A's spit card 5D, read in B's slot
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Turn, Player.B, "5D")]
    # ... unless read so under the hand as well: two readings that agree (game 5009)
    table = king_under_ten(layout)
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    assert table.frame_with({"A.stock3": "KD"}, confidence=0.7, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "KD"}, confidence=0.6)
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "KD")]


def test_a_card_back_in_the_slot_it_was_played_from_is_taken_back(layout: MatLayout) -> None:
    """Game 5009 at 1280x720 (model): B's QC, played illegally and covered by A's 6S, back in
    B's slot 2 read 0.66 under the hand; a slap cleared the pile before the hand left, and the
    QC was taken for a turn. A card from beneath a pile, read in the slot it was played from
    as surely as any card, under a hand or not, was taken back."""
    table = king_under_ten(layout)
    under = {"hands": (hand(Player.A, "A.stock2"),), "hand_over": True}
    events = table.frame_with({"A.stock2": "KD"}, confidence=0.66, **under)
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [(TakeBack, Player.A, "KD", 1)]
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "10C"]
    table = king_under_ten(layout)
    events = table.frame_with({"A.stock2": "KD"}, confidence=0.6)
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "KD")]
    # not a card that was read less surely than any card is: it is read again
    table = king_under_ten(layout)
    assert table.frame_with({"A.stock2": "KD"}, confidence=0.45, **under) == []
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "KD", "10C"]


def test_a_top_back_in_its_slot_is_taken_back_before_the_pile_s_next_card(layout: MatLayout) -> None:
    """Game 5984 with the model: A took the 2H back off pile 1, which read 2H as the hand lifted
    it; the 2H, read 0.92 in A's slot 2, waited for the pile's next change, B's 4D, which was
    put on the 2H: the take-back was lost. The top seen back in its slot was taken back first,
    and the next card lies on the card beneath."""
    table = Table(layout)
    table.frame_with({"A.stock2": "empty"})
    assert [type(e) for e in table.frame_with({"pile1": "KD"})] == [Play]
    on_pile = (hand(Player.A, "pile1"),)
    assert table.frame_with({"pile1": "KD"}, hands=on_pile) == []  # lifted: read as its top again
    assert table.frame_with({"A.stock2": "KD"}, confidence=0.92) == []
    table.frame_with({"B.stock1": "empty"})
    events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD"),
                                                                  (Play, Player.B, "10C")]
    assert events[0].t < events[1].t
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "10C"]
    # the top not seen back in its slot: the card goes on it
    table = Table(layout)
    table.frame_with({"A.stock2": "empty"})
    table.frame_with({"pile1": "KD"})
    table.frame_with({"B.stock1": "empty"})
    events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "KD", "10C"]


def test_a_pile_read_as_a_card_deep_in_it_is_its_runner_up_that_a_take_back_uncovers(
        layout: MatLayout) -> None:
    """Game 5179 with the model: B took the KS back off pile 1; its AD, read AS at 0.58 and AD
    at 0.57 (the AS three cards beneath), was not explained, and the KS, back in its slot under
    the hand (0.77) and played again before the hand left, was lost, with its F_TAKE_BACK."""
    def four_deep() -> Table:
        table = Table(layout)
        for slot, card in (("A.stock1", "4D"), ("B.stock3", "3S"), ("A.stock2", "KD")):
            table.frame_with({slot: "back"})
            assert [type(e) for e in table.frame_with({"pile1": card})] == [Play]
        assert [p.card for p in table.obs.state.piles[1]] == ["5D", "4D", "3S", "KD"]
        return table

    table = four_deep()
    # the 5D cannot show: the runner-up 3S, which the KD's take-back uncovers, is doubted ...
    assert table.frame_with({"pile1": "5D"}, confidence=0.58, runner_up=("3S", 0.57)) == []
    assert table.obs.state.tops["pile1"] == "KD"
    # ... until the KD shows in its slot, under the hand that took it back
    under = {"hands": (hand(Player.A, "A.stock2"),), "hand_over": True}
    events = table.frame_with({"A.stock2": "KD"}, confidence=0.77, **under)
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [(TakeBack, Player.A, "KD", 1)]
    assert table.obs.state.tops["pile1"] == "3S"
    # a runner-up much less sure, or one no take-back uncovers: not that card
    for runner_up in (("3S", 0.2), ("9C", 0.57)):
        table = four_deep()
        table.frame_with({"pile1": "5D"}, confidence=0.58, runner_up=runner_up)
        assert table.obs.state.tops["pile1"] == "5D"


def test_a_take_back_after_a_top_not_explained_uncovers_the_card_beneath_the_pile_s_last(
        layout: MatLayout) -> None:
    """Game 5199 with the model: B's QD, lifted off pile 2, was read JD (from no slot and no
    packet: not explained), then the AC beneath it showed, and was not explained either: the
    take-back was lost."""
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    assert [type(e) for e in table.frame_with({"pile1": "4D"})] == [Play]
    assert table.frame_with({"pile1": "9S"}) == []  # from no slot and no packet
    events = table.frame_with({"pile1": "5D"})
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [(TakeBack, Player.A, "4D", 1)]
    assert [p.card for p in table.obs.state.piles[1]] == ["5D"]


def test_a_doubted_take_back_is_given_when_the_top_shows_in_its_slot(layout: MatLayout) -> None:
    """Game 5009 at 1280x720 (model): pile 2 read 2D at 0.72 when B took the 2S back, then the
    2S read 0.57 in B's slot 5: the two readings agree, and the take-back is given, timed
    from the pile. In either order, within PAIR_WINDOW_S, and only in the slot it came from;
    not for a slot whose last look, not believed, did not show it (game 5639)."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    assert table.frame_with({"pile1": "5D"}, confidence=0.72) == []
    lifted = table.frame / FPS
    events = table.frame_with({"A.stock2": "KD"}, confidence=0.57)
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [(TakeBack, Player.A, "KD", 1)]
    assert events[0].t < lifted
    assert table.obs.state.tops["pile1"] == "5D" and [p.card for p in table.obs.state.piles[1]] == ["5D"]
    # the slot first: the pile's reading is believed when it comes
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    assert table.frame_with({"A.stock2": "KD"}, confidence=0.57) == []
    events = table.frame_with({"pile1": "5D"}, confidence=0.72)
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "KD")]
    # the top read surely too, as the pile's runner-up: doubted, until the top shows in its
    # slot (game 5305 with the model: B's QS, the pile read QC at 0.90 with the QS at 0.45)
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    assert table.frame_with({"pile1": "5D"}, confidence=0.72, runner_up=("KD", 0.6)) == []
    assert table.obs.state.tops["pile1"] == "KD"
    events = table.frame_with({"A.stock2": "KD"}, confidence=0.57)
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "KD")]
    assert table.obs.state.tops["pile1"] == "5D"
    # the slot believed to show the top still, its last look ("empty" under the hand that took
    # the card) not believed: no second reading (game 5639 with the model: B's 10S, read 10H on
    # the pile with the 10S second, taken back with the JS beneath it: two false F_TAKE_BACK)
    table = Table(layout)
    on_slot = (hand(Player.A, "A.stock2"),)
    assert table.frame_with({"A.stock2": "empty"}, hands=on_slot, hand_over=True,
                            number_hidden=("A.stock2",)) == []
    played = table.frame_with({"pile1": "KD"}, hands=(hand(Player.A, "pile1"),) + on_slot)
    assert [type(e) for e in played] == [Play]
    assert table.frame_with({"pile1": "5D"}, hands=on_slot, confidence=0.79, runner_up=("KD", 0.62)) == []
    assert table.obs.state.tops["pile1"] == "KD"
    # the pile read as a card from nowhere of the rank or suit of the card beneath the top (or
    # with it second): a take-back doubted, given when the top shows in its slot (game 5668 with
    # the model: A's 3D taken back off pile 1, whose AS was read AC at 0.52, KS and AC unsurely);
    # a card from nowhere of neither: nothing; since stop 64 one read as faintly as a guess
    # counts too (game 5704 with the model: the QC beneath guessed QS at 0.34), not fainter
    for misread, runner_up, taken, sure in (("5C", None, True, 0.52), ("9S", ("5D", 0.4), True, 0.52),
                                            ("9S", None, False, 0.52), ("5C", None, True, 0.34),
                                            ("5C", None, False, 0.2)):
        table = Table(layout)
        table.frame_with({"A.stock2": "back"})
        table.frame_with({"pile1": "KD"})
        assert table.frame_with({"pile1": misread}, confidence=sure, runner_up=runner_up) == []
        events = table.frame_with({"A.stock2": "KD"}, confidence=0.88)
        assert [(type(e), str(e.card)) for e in events if isinstance(e, TakeBack)] == (
            [(TakeBack, "KD")] if taken else []), misread
        assert (table.obs.state.tops["pile1"] == "5D") is taken, misread
    # too late to agree, or another slot: nothing
    for late, slot in ((True, "A.stock2"), (False, "A.stock3")):
        table = Table(layout)
        table.frame_with({"A.stock2": "back"})
        table.frame_with({"pile1": "KD"})
        assert table.frame_with({"pile1": "5D"}, confidence=0.72) == []
        if late:
            table.idle(int(PAIR_WINDOW_S * FPS) + 1)
        events = table.frame_with({slot: "KD"}, confidence=0.57)
        assert not any(isinstance(e, TakeBack) for e in events)  # (in slot 3, a turn: a clash)
        assert table.obs.state.tops["pile1"] == "KD"


@pytest.mark.parametrize("bare", [True, False])
def test_a_card_left_its_slot_before_the_slot_first_showed_the_printed_mat(
        layout: MatLayout, bare: bool) -> None:
    """Game 5757, both recognitions: B's 10C, taken from slot 1 while B's other hand played the
    5C, was given as leaving 0.52 s late: another arm kept the slot busy after the card had
    gone, and the two hands in play (F_TWO_HANDS) went unseen. A slot that shows the printed
    mat has lost its card: it left at least ``BARE_AFTER_LEFT_S`` before."""
    table = Table(layout)
    table.busy_since["A.stock1"] = table.frame + 1
    table.idle(3, unsettled=("A.stock1",), hands=(hand(Player.A, "A.stock1"),))
    table.idle(1, unsettled=("A.stock1",), bare=("A.stock1",) if bare else ())
    bared = table.frame / FPS
    table.idle(12, unsettled=("A.stock1",), hands=(hand(Player.B, "A.stock1"),))  # an arm over it
    table.frame_with({"A.stock1": "empty"})
    quiet = (table.frame - 3) / FPS
    events = table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D")]
    start = events[0].start
    assert start == pytest.approx(bared - BARE_AFTER_LEFT_S if bare else quiet - LEFT_LAG_S)


def test_a_take_back_is_not_put_before_the_hand_came(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    events = table.frame_with({"pile1": "5D"}, busy_frames=2)  # the pile was busy 2 frames only
    came = (table.frame - 2) / FPS
    assert isinstance(events[0], TakeBack) and events[0].t >= came + TAKE_BACK_GRAB_S - 1e-9
    assert events[0].t < table.frame / FPS


def test_a_card_taken_back_from_under_a_later_card(layout: MatLayout) -> None:
    table = king_under_ten(layout)
    # the king is taken from under the ten: the pile's top stays, the king is back in its slot
    events = table.frame_with({"A.stock2": "KD"}, busy_frames=9)
    assert [(type(e), e.player, e.pile, str(e.card)) for e in events] == [(TakeBack, Player.A, 1, "KD")]
    assert events[0].evidence and events[0].evidence["beneath"] is True
    # judged in its place by the referee when timed before events already judged (since stop 55:
    # game 5366, A's JC taken back before B's QH went on, found when the JC showed in its slot)
    assert events[0].evidence[FOUND_BENEATH] is True
    since = (table.frame - 9) / FPS  # the hand came over the slot: the card had left the pile before
    assert since - 0.5 < events[0].t < since
    # the pile as the observer sees it now: 5D, 10C (the king is gone from it)
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "10C"]


def test_a_card_taken_from_under_a_later_card_left_the_pile_as_the_hand_came_over_it(
        layout: MatLayout) -> None:
    # game 5051: A's arm, reaching for the pile, crossed A's slot first; the slot went busy
    # 0.21 s before the card left the pile, and the take-back was put 0.46 s early
    table = king_under_ten(layout)
    table.busy_since["A.stock2"] = table.frame + 1
    table.idle(6, hands=(hand(Player.A, "A.stock2"),), unsettled=("A.stock2",))
    lifted = (table.frame + 1) / FPS  # the hand over the pile, pulling the king out
    table.idle(4, hands=(hand(Player.A, "A.stock2", "pile1"),), unsettled=("A.stock2",))
    events = table.frame_with({"A.stock2": "KD"}, busy_frames=9, hands=(hand(Player.A, "A.stock2"),))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
    assert events[0].t == pytest.approx(lifted)


def test_a_card_taken_from_under_a_later_card_by_fingertips_alone_left_as_they_came(
        layout: MatLayout) -> None:
    """Game 5757, both recognitions: A's hand, seen on pile 2 by its fingertips alone, took the
    5S from under A's 7C 0.1 s after they came; with no visit seen, the take-back was timed
    from A's slot going busy (the arm crossed it on the way out), 0.52 s early."""
    table = king_under_ten(layout)
    table.busy_since["A.stock2"] = table.frame + 1
    table.idle(6, hands=(hand(Player.A, "A.stock2"),), unsettled=("A.stock2",))
    came = (table.frame + 1) / FPS  # the fingertips on the pile, pulling the king out
    table.idle(4, hands=(fingertips(Player.A, "pile1"),), unsettled=("A.stock2",))
    events = table.frame_with({"A.stock2": "KD"}, busy_frames=9, hands=(hand(Player.A, "A.stock2"),))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
    assert events[0].t == pytest.approx(came)


def test_a_card_taken_from_under_a_later_card_with_no_visit_seen_left_after_that_card_came(
        layout: MatLayout) -> None:
    """Game 5414 with the model: B's arm crossed B's slot 2 on its way to pile 2, and B's hand,
    never seen over the pile, lifted the 6D from under A's 5H; timed from when the slot went
    busy, the take-back was put before the 5H touched, judged before it, and made it a false
    F_ILLEGAL_RANK. With no visit of the hand that ended before the later card came, nothing
    says the card left first; unless that card's own time is only its pile's settle (game 5319
    with the model: B's 4C, timed 1.3 s late, had lain beneath the 6C taken back off it)."""
    for by_carry in (True, False):
        table = Table(layout)
        table.frame_with({"A.stock2": "back"})
        table.frame_with({"pile1": "KD"})
        table.frame_with({"B.stock1": "empty"})
        table.busy_since["A.stock2"] = table.frame + 1
        busy = (table.frame + 1) / FPS
        table.idle(3, unsettled=("A.stock2",))  # A's arm over slot 2, no hand seen on the pile
        events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),), unsettled=("A.stock2",))
        assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]
        ten = events[0].t
        table.obs.retimed_play(events[0].frame, "10C", ten, by_carry=by_carry)
        events = table.frame_with({"A.stock2": "KD"}, busy_frames=2)
        assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
        assert events[0].t == pytest.approx(ten + 1 / FPS if by_carry else busy - TAKE_BACK_CARRY_S)


def king_played_ten_taken(layout: MatLayout) -> Table:
    """A's KD played from slot 2 onto pile 1, B's 10C taken from slot 1, the table quiet since."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    table.frame_with({"B.stock1": "empty"})
    table.idle(10)
    return table


@pytest.mark.parametrize("stays", [False, True])
def test_a_card_taken_by_a_hand_that_came_well_before_a_later_card_and_left_soon_after_left_first(
        layout: MatLayout, stays: bool) -> None:
    """Game 5710, both recognitions: B's hand came over pile 1 0.15 s before A's 2S touched
    there and left 0.05 s after, taking the AS back (0.13 s before the touch); the take-back,
    put after the touch (the hand may wait while a card comes on top), made the 2S legal on the
    AS. A hand lifts a card at most ``TAKE_BACK_LIFT_S`` after it came, and leaves at least
    ``TAKE_BACK_LEAVE_S`` after the lift: this one lifted it before the 2S came. One that stayed
    longer may have lifted it after."""
    table = king_played_ten_taken(layout)
    came = (table.frame + 1) / FPS
    table.idle(9 if stays else 6, hands=(hand(Player.A, "pile1"),))  # A's hand pulls the KD out
    left = table.frame / FPS
    # the KD carried back over A's slot 2 meanwhile
    events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),), unsettled=("A.stock2",))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]
    ten = came + 0.15  # the 10C touched, as its carry says
    assert ten - came >= TAKE_BACK_LIFT_S and (left - ten < TAKE_BACK_LEAVE_S) is not stays
    table.obs.retimed_play(events[0].frame, "10C", ten, by_carry=True)
    events = table.frame_with({"A.stock2": "KD"}, busy_frames=2)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
    assert events[0].t == pytest.approx(ten + 1 / FPS if stays else came)


@pytest.mark.parametrize("cover", ["put while there", "timed while there", "timed after"])
def test_a_card_taken_from_under_a_card_that_settled_while_the_hand_was_there_left_after_it(
        layout: MatLayout, cover: str) -> None:
    """Game 5744, both recognitions: A's KS, its carry lost when the follow ran off with B's
    hand carrying the QH away, was timed from its pile's settle, 0.01 s after B's hand came
    over the pile (A's hand there too); the take-back of the QH from under it (0.08 s after the
    hand came), put when the hand came, was judged first and made the KS a false
    F_ILLEGAL_RANK on the JC beneath (and two later plays on it). A card timed from the settle
    within the taking hand's visit, its own player's hand over the pile then, came before the
    lift; one timed so with no hand of its player there, or after the hand left, may have lain
    beneath all along (game 5319 with the model)."""
    table = king_played_ten_taken(layout)
    came = (table.frame + 1) / FPS
    hands = (hand(Player.A, "pile1"),) + ((hand(Player.B, "pile1"),) if cover == "put while there" else ())
    table.idle(6, hands=hands)  # A's hand pulls the KD out
    left = table.frame / FPS
    events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),), unsettled=("A.stock2",))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]
    ten = left + 0.3 if cover == "timed after" else came + 0.01  # the 10C's touch, from the settle
    table.obs.retimed_play(events[0].frame, "10C", ten, by_carry=False)
    events = table.frame_with({"A.stock2": "KD"}, busy_frames=2)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "KD")]
    assert events[0].t == pytest.approx(ten + 1 / FPS if cover == "put while there" else came)


def four_under_three(layout: MatLayout) -> Table:
    """A's 4D from slot 1 on pile 1's five, B's 3S from slot 3 on it."""
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))
    table.frame_with({"B.stock3": "back"})
    table.frame_with({"pile1": "3S"}, hands=(hand(Player.B, "pile1"),))
    table.idle(2)
    return table


def test_a_card_taken_from_under_a_later_card_and_played_on_at_once_is_a_take_back_and_a_play(
        layout: MatLayout) -> None:
    """Game 5413 with perfect recognition: A's AD, covered on pile 2 by B's spit 3H, taken back
    from under it and carried straight to pile 1, never resting in its slot: the AD on pile 1
    was "not explained", and B's next plays there were judged on the card beneath it."""
    table = four_under_three(layout)
    came = (table.frame + 1) / FPS
    table.idle(4, hands=(hand(Player.A, "pile1"),))  # A's hand pulls the 4D from under the 3S
    table.idle(3)
    events = table.frame_with({"pile2": "4D"}, hands=(hand(Player.A, "pile2"),))
    assert [(type(e), e.player, e.pile, str(e.card)) for e in events] == [
        (TakeBack, Player.A, 1, "4D"), (Play, Player.A, 2, "4D")]
    taken, played = events
    assert taken.evidence[FOUND_BENEATH] is True and taken.t == pytest.approx(came)
    assert played.slot == 1 and played.start == taken.t < played.t
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "3S"]
    # B's hand alone on pile 2: not A's card carried there
    table = four_under_three(layout)
    events = table.frame_with({"pile2": "4D"}, hands=(hand(Player.B, "pile2"),))
    assert not any(isinstance(e, TakeBack) for e in events)


@pytest.mark.parametrize("slot_settles_first", [False, True])
def test_a_card_read_unsurely_under_the_hand_that_turned_it_and_then_on_a_pile_was_turned_and_played(
        layout: MatLayout, slot_settles_first: bool) -> None:
    # game 5062 with the model: A's 10D read 0.56 and 0.80 under the hand in slot 3, then on
    # pile 2, from no slot: the turn and the play were lost, and plays onto it judged on the 9D
    table = Table(layout)
    on_slot = (hand(Player.A, "A.stock3"),)
    assert table.frame_with({"A.stock3": "6D"}, hands=on_slot, hand_over=True, confidence=0.56) == []
    turned = table.frame / FPS
    if slot_settles_first:  # the next card's back shows again before the pile settles
        assert table.frame_with({"A.stock3": "back"}) == []
        events = table.frame_with({"pile1": "6D"}, hands=(hand(Player.A, "pile1"),))
    else:
        events = table.frame_with({"pile1": "6D"}, hands=(hand(Player.A, "pile1"),), unsettled=("A.stock3",))
    assert [(type(e), e.player, e.slot, str(e.card)) for e in events] == [(Turn, Player.A, 3, "6D"),
                                                                          (Play, Player.A, 3, "6D")]
    assert events[0].t <= turned < events[1].t
    if slot_settles_first:  # it left in the spell that showed the back again: the play's start
        # (game 5678 with the model: A's QS, taken with the QH; with no start, the two cards at
        # once went unseen and the QS was a false F_ILLEGAL_RANK)
        assert events[1].start is not None and turned < events[1].start < events[1].t
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "6D"]
    assert table.frame_with({"A.stock3": "back"}) == []  # the slot's next card: nothing more


def test_a_card_read_unsurely_under_the_hand_that_turned_it_is_not_taken_for_an_alike_card(
        layout: MatLayout) -> None:
    """Game 5230 with the model: A's 8D, read 0.68 under the hand resting on slot 4, played
    before the hand left; on the pile it was read 8D, but taken for A's 8S, alike, in a slot
    the arm lay over (the turn and the play lost, the 8S's own play later too). The card read
    under the hand that turned it is the one turned and played."""
    table = Table(layout)
    on_slot = (hand(Player.A, "A.stock3"),)
    assert table.frame_with({"A.stock3": "6D"}, hands=on_slot, hand_over=True, confidence=0.56) == []
    assert table.frame_with({"A.stock3": "back"}, hands=on_slot) == []  # its next card's back
    # A's arm lies over slot 1 (4D: a diamond, like the 6D) on its way to the pile
    # (its part clear of the arm still shows the 4D: the pile does not wait for it)
    events = table.frame_with({"pile1": "6D"}, hands=(hand(Player.A, "pile1", "A.stock1"),),
                              unsettled=("A.stock1",), kept=("A.stock1",))
    assert [(type(e), e.player, e.slot, str(e.card)) for e in events] == [(Turn, Player.A, 3, "6D"),
                                                                          (Play, Player.A, 3, "6D")]


def test_a_card_read_under_the_hand_that_turned_it_then_empty_is_not_taken_for_its_runner_up(
        layout: MatLayout) -> None:
    """Game 5622 with the model: A's 8C, turned in slot 2 and read 0.76 under the hand, then
    "empty" under it as A took it with the 8S from slot 1 (two cards at once); pile 1 read 8C
    with the 8S second (at 0.002) was taken for the 8S, which had left its slot, and the 8C was
    found only 1.2 s later (its F_TWO_CARDS late, a false and a missed fault). The card read under
    the hand that turned it is the one turned and played, the 8S beneath it."""
    table = Table(layout)
    on_slot = (hand(Player.A, "A.stock3"),)
    assert table.frame_with({"A.stock3": "6D"}, hands=on_slot, hand_over=True, confidence=0.76) == []
    turned = table.frame / FPS
    assert table.frame_with({"A.stock1": "empty"}, hands=on_slot) == []  # the 4D left slot 1
    assert table.frame_with({"A.stock3": "empty"}, hands=on_slot, hand_over=True,
                            number_hidden=("A.stock3",)) == []  # the 6D taken under the hand
    events = table.frame_with({"pile1": "6D"}, hands=(hand(Player.A, "pile1"),) + on_slot,
                              runner_up=("4D", 0.002))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [
        (Turn, 3, "6D"), (Play, 1, "4D"), (Play, 3, "6D")]
    assert events[0].t <= turned
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "4D", "6D"]


def test_a_card_from_no_slot_is_not_taken_for_one_read_unsurely_in_another_player_s_slot(
        layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6D"}, hands=(hand(Player.A, "A.stock3"),), hand_over=True,
                            confidence=0.56) == []
    # B's hand put the card on the pile: not A's turned card
    events = table.frame_with({"pile1": "6D"}, hands=(hand(Player.B, "pile1"),), unsettled=("A.stock3",))
    assert not any(isinstance(e, (Turn, Play)) for e in events)


@pytest.mark.parametrize("seen_to_leave", [True, False])
def test_a_move_read_as_a_card_beneath_a_pile_whose_runner_up_just_left_a_slot_is_that_move(
        layout: MatLayout, seen_to_leave: bool) -> None:
    # game 5074 with the model: A's AS moved from slot 2 to the empty slot 1, read AC 0.82 with
    # AS 0.70 second, the AC lying under pile 1's top (slot 2 read only under the hand since,
    # not believed): a false F_TAKE_BACK
    table = king_under_ten(layout)
    assert table.frame_with({"A.stock5": "empty"}) == []  # (A's 7H gone long ago: a slot to move to)
    table.idle(int(PAIR_WINDOW_S * FPS) + 1)
    if seen_to_leave:
        assert table.frame_with({"A.stock4": "empty"}) == []  # the JS leaves slot 4 ...
    else:  # ... or its slot is read so only under the hand
        over = (hand(Player.A, "A.stock4"),)
        assert table.frame_with({"A.stock4": "empty"}, hands=over, hand_over=True) == []
    events = table.frame_with({"A.stock5": "KD"}, confidence=0.82, runner_up=("JS", 0.7))  # ... misread
    assert [(type(e), e.player, getattr(e, "from_slot", None), getattr(e, "to_slot", None), str(e.card))
            for e in events] == [(Move, Player.A, 4, 5, "JS")]
    assert [p.card for p in table.obs.state.piles[1]] == ["5D", "KD", "10C"]  # the king still beneath


def test_two_cards_taken_back_while_the_hands_stayed_on_the_pile(layout: MatLayout) -> None:
    table = king_under_ten(layout)
    # both are taken back in one busy spell: the pile settles showing the five again
    events = table.frame_with({"pile1": "5D"}, busy_frames=20)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.B, "10C"),
                                                                 (TakeBack, Player.A, "KD")]
    came = (table.frame - 20) / FPS
    assert came < events[0].t < events[1].t < table.frame / FPS  # the top one first, as the hands came
    assert table.frame_with({"A.stock2": "KD"}) == [] and table.frame_with({"B.stock1": "10C"}) == []


def test_a_card_pulled_from_under_the_other_players_top_is_taken_back_first(layout: MatLayout) -> None:
    """Game 5590, both recognitions: A's JC, under B's 10H, pulled out by A while the pile still
    showed the 10H (a change read as its top again), then B took the 10H back: both were put in
    the pile's second change, the 10H first, 0.28 s early (a false and a missed F_TAKE_BACK).
    The card beneath was lifted in the change where its player's hand was on the pile. Not when
    only the top's player's hand was there then."""
    for pulling in (Player.A, Player.B):
        table = king_under_ten(layout)
        assert table.frame_with({"pile1": "10C"}, hands=(hand(pulling, "pile1"),)) == []  # top read again
        first = table.frame / FPS
        table.idle(10)
        events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.B, "pile1"),))
        cards = [(type(e), e.player, str(e.card)) for e in events]
        if pulling is Player.A:
            assert cards == [(TakeBack, Player.A, "KD"), (TakeBack, Player.B, "10C")]
            assert events[0].t < first < events[1].t
        else:
            assert cards == [(TakeBack, Player.B, "10C"), (TakeBack, Player.A, "KD")]
            assert first < events[0].t <= events[1].t


def test_a_card_taken_back_and_played_again_before_its_slot_showed_it(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"pile1": "KD"})
    assert [type(e) for e in table.frame_with({"pile1": "5D"})] == [TakeBack]
    # the hand that put it back lifted it again before the slot settled: the slot never shows it
    events = table.frame_with({"pile2": "KD"}, hands=(hand(Player.A, "pile2"),))
    assert [(type(e), e.player, e.slot, e.pile, str(e.card)) for e in events] == [
        (Play, Player.A, 2, 2, "KD")]


def test_a_card_taken_back_and_moved_to_an_empty_slot_before_its_own_showed_it(layout: MatLayout) -> None:
    # game 5138: B's QS taken back to slot 3 and moved on to the empty slot 1 before slot 3
    # ever showed it; the QS arriving in slot 1 dropped its way back to slot 3 from the
    # observer's memory, and was taken for a turn there
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    table.frame_with({"pile1": "4D"}, hands=(touching(Player.A, "pile1"),))
    table.frame_with({"A.stock2": "back"})
    assert [type(e) for e in table.frame_with({"pile2": "KD"})] == [Play]
    assert [type(e) for e in table.frame_with({"pile2": "9H"})] == [TakeBack]
    events = table.frame_with({"A.stock1": "KD"})
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.A, 2, 1, "KD")]


def test_a_card_taken_back_and_moved_on_before_its_slot_settled(layout: MatLayout) -> None:
    # as above, but the slot never settled between the play and the take-back (the hand over
    # it all along): the slot, settling on the card beneath, was taken for the play's own
    # departure, and the card arriving in the empty slot for a turn there
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})  # 4D left slot 1 ...
    table.frame_with({"pile1": "4D"}, hands=(touching(Player.A, "pile1"),))  # ... onto pile 1
    over = (hand(Player.A, "pile2", "A.stock2"),)
    played = table.frame_with({"pile2": "KD"}, hands=over, unsettled=("A.stock2",))
    assert [(type(e), e.slot, str(e.card)) for e in played] == [(Play, 2, "KD")]
    back = table.frame_with({"pile2": "9H"}, hands=over, unsettled=("A.stock2",))
    assert [(type(e), str(e.card)) for e in back] == [(TakeBack, "KD")]
    assert table.frame_with({"A.stock2": "back"}, hand_over=True) == []  # it left again ...
    events = table.frame_with({"A.stock1": "KD"})  # ... for the empty slot
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.A, 2, 1, "KD")]


@pytest.mark.parametrize("fingers", [True, False])
def test_a_card_followed_outside_the_zones_left_its_slot_though_the_slot_was_read_only_under_the_hand(
        layout: MatLayout, fingers: bool) -> None:
    """Game 5060: B's AS put beside the mat's corner slot and back 1 s later, B's hand over the
    slot and near the card all along: the slot never settled clear of it. Not from a slot that
    lay only under the arm, the fingers never near it (race-eval seed 6607 with the model: A's
    2D, its slot read "empty" under the arm A reached pile 1 with, was taken for a card put
    outside the zones: a false F_SIXTH_PILE, then a false F_BAD_MOVE when it "came back")."""
    table = Table(layout)
    arm = HandBlob(Player.B, 20000.0, (300.0, 0.0, 420.0, 220.0), layout.zone("pile2").center, ("B.stock2",))
    over = (hand(Player.B, "B.stock2") if fingers else arm,)
    assert table.frame_with({"B.stock2": "empty"}, hands=over, hand_over=True) == []
    left = table.frame / FPS
    table.idle(10, hands=over)
    table.frame += 1
    t = table.frame / FPS
    still = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    followed = StrayChange(-1, True, table.frame, t, (5.0, 20.0, 70.0, 110.0), 5600.0, t - 0.3,
                           card="QC", player=Player.B)
    events = table.obs.update(TrackedFrame(table.frame, t, still, (), over, (followed,)), {})
    if not fingers:
        assert events == []
        return
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.B, 2, 6, "QC")]
    assert left - 0.5 < events[0].t < t
    # ... and back: a move from the sixth pile
    events = table.frame_with({"B.stock2": "QC"}, hands=over, hand_over=True)
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.B, 6, 2, "QC")]


def test_a_slot_emptied_under_a_hand_is_read_again_once_the_hand_has_gone(layout: MatLayout) -> None:
    table = Table(layout)
    over = (hand(Player.B, "B.stock1"),)
    # B's slot 1 settles empty with B's hand over it: "empty" may be the hand, not believed yet
    assert table.frame_with({"B.stock1": "empty"}, hands=over, hand_over=True) == []
    # (its number shows: the card has gone)
    still = {z: ZoneObservation(z, z != "B.stock1", False, True, 1.0, 0.0) for z in table.zones}
    table.frame += 1
    assert "B.stock1" not in table.obs.rereads(TrackedFrame(table.frame, table.frame / FPS, still, (), over))
    # the card lies outside the zones on B's half (a sixth pile); then the hand is gone
    table.frame += 1
    t = table.frame / FPS
    stray = StrayChange(1, True, table.frame, t, (5.0, 20.0, 70.0, 110.0), 5600.0, t - 0.2)
    tracked = TrackedFrame(table.frame, t, still, (), (), (stray,))
    assert table.obs.rereads(tracked) == ["B.stock1"]
    events = table.obs.update(tracked, {"B.stock1": ZoneReading("B.stock1", "empty", 1.0, table.frame, t)})
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.B, 1, 6, "10C")]
    assert table.obs.rereads(TrackedFrame(table.frame + 1, t, still, (), ())) == []  # read once


def test_a_slot_read_empty_under_a_hand_has_no_believed_card_for_the_faces(layout: MatLayout) -> None:
    # race-eval seed 6324: the arbiter cut a face of B's 8H from a view of B's emptied slot
    table = Table(layout)
    assert table.obs.believed_tops()["B.stock1"] == "10C"
    assert table.frame_with({"B.stock1": "empty"}, hands=(hand(Player.B, "B.stock1"),), hand_over=True) == []
    assert table.obs.state.tops["B.stock1"] == "10C"  # not believed gone yet ...
    assert "B.stock1" not in table.obs.believed_tops()  # ... nor believed there
    assert table.obs.believed_tops()["B.stock2"] == "QC"


def test_a_card_followed_to_rest_outside_the_zones_is_the_card_that_moved_there(layout: MatLayout) -> None:
    """A stray found by following a card from its slot (``Arbiter.strays``) names the card: it
    is that card's move to a sixth pile, not the player's last departure; a card that never
    left its slot (a follow run off with another card) moves nowhere."""
    table = Table(layout)
    assert table.frame_with({"B.stock1": "empty"}) == []  # 10C left
    assert table.frame_with({"B.stock2": "empty"}) == []  # then QC
    t = table.frame / FPS
    still = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    for number, card in ((-1, "10C"), (-2, "3S")):
        table.frame += 1
        stray = StrayChange(number, True, table.frame, t, (5.0, 20.0, 70.0, 110.0), 5544.0, t,
                            card=card, player=Player.B)
        events = table.obs.update(TrackedFrame(table.frame, t, still, (), (), (stray,)), {})
        moved = [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events]
        assert moved == ([(Move, Player.B, 1, 6, "10C")] if card == "10C" else [])


def test_a_slot_read_empty_under_a_hand_and_again_after_it_lost_its_card_at_first(layout: MatLayout) -> None:
    """Game 5009 at 1280x720: B's slot 1 read empty under B's arm at 11.1 s, and again with no
    hand at 11.4 s: the 2D left as the hand came, before the first change settled (timed from
    the second, its play was put 0.54 s late)."""
    table = Table(layout)
    assert table.frame_with({"B.stock1": "empty"}, hands=(hand(Player.B, "B.stock1"),), hand_over=True) == []
    first = table.frame / FPS
    table.idle(3)
    assert table.frame_with({"B.stock1": "empty"}, busy_frames=4) == []
    events = table.frame_with({"pile2": "10C"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), e.player, e.slot, str(e.card)) for e in events] == [(Play, Player.B, 1, "10C")]
    assert abs(events[0].start - (first - 3 / FPS - LEFT_LAG_S)) < 1e-9


def test_a_card_back_in_a_slot_that_settled_empty_under_a_lingering_hand_came_back(layout: MatLayout) -> None:
    table = Table(layout)
    over = {"hands": (hand(Player.A, "A.stock2"),), "hand_over": True}
    assert table.frame_with({"A.stock2": "empty"}, **over) == []  # KD lifted: "empty" may be the hand
    moved = table.frame_with({"A.stock1": "KD"}, **over)  # onto slot 1, the hand still over slot 2
    assert [(type(e), e.from_slot, e.to_slot) for e in moved] == [(Move, 2, 1)]
    assert table.frame_with({"A.stock1": "4D"}, **over) == []  # lifted off the four again
    # the hand leaves slot 2 only as it puts the king back: slot 2 "changes" from KD to KD
    events = table.frame_with({"A.stock2": "KD"})
    assert [(type(e), e.player, e.from_slot, e.to_slot, str(e.card)) for e in events] == [
        (Move, Player.A, 1, 2, "KD")]


def test_a_slot_that_looked_empty_under_a_hand_and_shows_its_card_again_changed_nothing(
        layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"A.stock2": "empty"}, hands=(hand(Player.A, "A.stock2"),), hand_over=True) == []
    assert table.frame_with({"A.stock2": "KD"}) == []  # the hand's shadow: the king never left
    assert table.frame_with({"A.stock2": "back"}) == []  # ... and leaves later: played from slot 2
    events = table.frame_with({"pile1": "KD"})
    assert [(type(e), e.slot) for e in events] == [(Play, 2)]


def test_a_pile_that_looked_empty_under_a_hand_and_shows_its_top_again_changed_nothing(
        layout: MatLayout) -> None:
    """Slap-eval seed 6004: pile 2 was read empty under the slapping hands; when they left it
    showed its 9H again. It was neither taken nor dealt the same card again."""
    table = Table(layout)
    assert table.frame_with({"pile2": "empty"}, hands=(hand(Player.B, "pile2"),), hand_over=True) == []
    assert table.frame_with({"pile2": "9H"}) == []
    assert table.obs.state.tops["pile2"] == "9H"
    assert [c.card for c in table.obs.state.piles[2]][-1:] == ["9H"]
    table.frame_with({"B.stock1": "back"})  # B's 10C left its slot ...
    events = table.frame_with({"pile2": "10C"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]  # ... onto the 9H, still there


def test_a_card_carried_onto_a_pile_read_as_its_old_top_under_the_hand_came_with_the_carry(
        layout: MatLayout) -> None:
    """Slap-eval seed 6012 with the model: A's last card 7C was followed onto the 6D, but read
    6D under the fingers that lay on its corner; read 7C only when the hand had gone and the
    pile changed again, and timed then, 0.3 s late."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})  # A's KD left its slot
    on_pile = (hand(Player.A, "pile1"),)
    assert table.frame_with({"pile1": "5D"}, hands=on_pile, carried=True, confidence=0.63) == []
    landed = table.frame / FPS
    table.idle(10)
    events = table.frame_with({"pile1": "KD"}, confidence=0.87)  # settled again, clear of the hand
    assert [(type(e), e.player, e.slot, str(e.card)) for e in events] == [(Play, Player.A, 2, "KD")]
    assert events[0].t < landed  # touched before the carried landing settled, not 10 frames later
    # read as the old top with the card that left as its runner-up: that card, at once (game
    # 5004 at 1280x720: B's QD on the JD, read JD at 0.71, QD second)
    table.frame_with({"B.stock2": "back"})  # B's QC left its slot
    events = table.frame_with({"pile1": "KD"}, hands=(hand(Player.B, "pile1"),), carried=True,
                              confidence=0.71, runner_up=("QC", 0.2))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Play, Player.B, "QC")]


def test_the_card_underneath_after_a_race_touched_first(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty", "B.stock2": "back"})
    both = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    table.frame_with(hands=both, unsettled=("pile1",))
    events = table.frame_with({"pile1": "QC"}, hands=both)  # only B's card is seen: A's is under it
    assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC")]
    assert events[0].t < events[1].t and events[0].evidence["underneath"] is True



def test_a_card_underneath_from_a_hand_whose_tip_reached_the_pile_in_joined_arms(layout: MatLayout) -> None:
    """Race-eval seed 6228: A's and B's arms joined over pile 1, and the tracker's split gave the
    pile's centre to B; A's part reached it only with its tip. A's 10C, under B's 8C, was not
    looked for underneath (taken for a play onto the 8C when B took it back). Race-eval seed
    6554: A's part stopped 14 mm short of pile 2, where A's 10H lay under B's 8H."""
    pile = layout.zone("pile1").center
    left = float(layout.zone("pile1").polygon()[:, 0].min())
    joined = (replace(hand(Player.A), tip_mm=pile, merged=True),
              replace(hand(Player.B, "pile1"), merged=True))
    for tip in (pile, (left - 14.0, pile[1])):
        table = Table(layout)
        table.frame_with({"A.stock1": "empty", "B.stock2": "back"})
        arms = (replace(joined[0], tip_mm=tip), joined[1])
        table.frame_with(hands=arms, unsettled=("pile1",))
        events = table.frame_with({"pile1": "QC"}, hands=(hand(Player.B, "pile1"),), before=arms)
        assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC")], tip
    # not a tip off the pile, nor one of a hand not joined to another
    for a_hand in (replace(joined[0], tip_mm=(pile[0], pile[1] + 80)),
                   replace(joined[0], tip_mm=(left - 30.0, pile[1])), replace(joined[0], merged=False)):
        table = Table(layout)
        table.frame_with({"A.stock1": "empty", "B.stock2": "back"})
        arms = (a_hand, joined[1])
        table.frame_with(hands=arms, unsettled=("pile1",))
        events = table.frame_with({"pile1": "QC"}, hands=(hand(Player.B, "pile1"),), before=arms)
        assert [(e.player, str(e.card)) for e in events] == [(Player.B, "QC")]

def test_a_card_underneath_touched_about_a_carry_after_it_left(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    left = table.obs._departures[-1].start
    both = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    table.frame_with({"B.stock2": "back"}, hands=both)
    table.idle(30, hands=both, unsettled=("pile1",))  # the pile stays busy for a second
    events = table.frame_with({"pile1": "QC"}, hands=both)
    assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC")]
    # not just before the top card: a carry (PLAY_CARRY_S) after it left its slot
    assert events[0].t == left + PLAY_CARRY_S < events[1].t - 0.5


def test_a_card_on_the_way_to_the_other_pile_is_not_underneath(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty", "A.stock5": "back"})
    two = (hand(Player.A, "pile1"), hand(Player.A, "pile2"))
    table.frame_with(hands=two, unsettled=("pile1", "pile2"))
    # pile 1 waits for pile 2, where 7H may have touched first: the engine gets both in order,
    # in the same frame, though A's slot 2 is still busy
    assert table.frame_with({"pile1": "4D"}, hands=two, unsettled=("pile2", "A.stock2")) == []
    both = table.frame_with({"pile2": "7H"}, busy_frames=0, unsettled=("A.stock2",))
    assert sorted((str(e.card), e.pile) for e in both) == [("4D", 1), ("7H", 2)]
    assert [e.t for e in both] == sorted(e.t for e in both)
    assert not any((e.evidence or {}).get("underneath") is True for e in both)


def test_a_pile_waiting_for_the_other_pile_settling_with_it_goes_with_it(layout: MatLayout) -> None:
    """Game 5016 at 960x540: both piles settled in one frame; pile 1 waited, for pile 2 and
    for a slot of B's, and pile 2's later play was judged first: A's F_TWO_HANDS became a
    false F_ILLEGAL_RANK. Pile 1 goes right after pile 2, in time order, as when pile 2
    settles later."""
    table = Table(layout)
    table.frame_with({"A.stock1": "empty", "A.stock5": "back"})
    hands = (hand(Player.A, "pile1"), hand(Player.A, "pile2"), hand(Player.B, "pile1"))
    table.frame_with(hands=hands, unsettled=("pile1", "pile2", "B.stock2"))
    both = table.frame_with({"pile1": "4D", "pile2": "7H"}, hands=hands, unsettled=("B.stock2",))
    assert sorted((str(e.card), e.pile) for e in both) == [("4D", 1), ("7H", 2)]
    assert [e.t for e in both] == sorted(e.t for e in both)


def test_a_card_on_the_way_to_a_pile_not_read_surely_yet_is_not_underneath(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty", "A.stock5": "back"})
    two = (hand(Player.A, "pile1"), hand(Player.A, "pile2"))
    table.frame_with(hands=two, unsettled=("pile1", "pile2"))
    assert table.frame_with({"pile1": "4D"}, hands=two, unsettled=("pile2",)) == []
    # pile 2 settles showing a card not read surely: it is read again before it is explained
    first = table.frame_with({"pile2": "card"}, busy_frames=0)
    assert not any(str(e.card) == "7H" for e in first)  # not taken for a card under 4D
    table.frame += 1
    t = table.frame / FPS
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    again = table.obs.update(TrackedFrame(table.frame, t, zones, (), ()),
                             {"pile2": ZoneReading("pile2", "7H", 1.0, table.frame, t)})
    plays = [(str(e.card), e.pile, (e.evidence or {}).get("underneath")) for e in first + again]
    assert sorted(plays) == [("4D", 1, ["5D"]), ("7H", 2, ["9H"])]


def test_a_card_on_the_way_to_the_other_pile_under_a_hand_that_only_touches_it(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"B.stock1": "empty", "B.stock3": "back"})
    # B's two hands: one over pile 1, the other reaching pile 2 without covering its centre
    two = (hand(Player.B, "pile1"), replace(hand(Player.B), touches=("pile2",)))
    table.frame_with(hands=two, unsettled=("pile1", "pile2"))
    assert table.frame_with({"pile1": "3S"}, hands=two, unsettled=("pile2",)) == []
    # pile 2 stays busy past the wait: pile 1 is explained without it, and 10C, on its way
    # there, is not underneath 3S
    waited = [e for _ in range(int(UNDER_WAIT_S * FPS) + 1)
              for e in table.frame_with(hands=two, unsettled=("pile2",))]
    assert [(str(e.card), e.pile) for e in waited] == [("3S", 1)]
    second = table.frame_with({"pile2": "10C"})
    assert [(type(e), str(e.card), e.pile) for e in second] == [(Play, "10C", 2)]


def arm(player: Player, comes_in_x: float, tip: tuple[float, float], edge_y: float) -> HandBlob:
    x0, x1 = sorted((comes_in_x, tip[0]))
    return HandBlob(player, 20000.0, (x0 - 40, min(tip[1], edge_y), x1 + 40, max(tip[1], edge_y)), tip, (),
                    base_mm=(comes_in_x, edge_y))


def test_the_hand_that_took_a_card_is_the_one_whose_tip_was_at_the_slot(layout: MatLayout) -> None:
    zones = {z.id: z for z in layout.zones}
    slot1, slot5 = zones["A.stock1"].center, zones["A.stock5"].center
    edge = layout.size_mm[1]
    # A's left arm comes in on A's left but reaches past the right arm, to slot 5; the right arm
    # takes from slot 1: the middles of the blobs lie the other way round
    arms = (arm(Player.A, slot1[0] - 30, slot5, edge), arm(Player.A, slot5[0] + 30, slot1, edge))
    table = Table(layout)
    table.frame_with({"A.stock1": "back", "A.stock5": "back"}, hands=arms)
    table.idle(3, hands=arms)
    events = table.frame_with({"pile1": "4D", "pile2": "7H"})
    hands = {str(e.card): e.hand for e in events if isinstance(e, Play)}
    assert hands == {"4D": Hand.RIGHT, "7H": Hand.LEFT}


def test_a_card_taken_with_another_by_two_hands_about_as_near_went_with_the_other_hand(
        layout: MatLayout) -> None:
    """Game 5093: A's right hand, on its way to slot 5, was a little nearer slot 4 (72 mm) than
    A's left hand coming for it (81 mm); both cards were given to the right hand, and two hands
    at once were called two cards at once. The right hand clearly took slot 5's card: slot 4's
    went with the left."""
    edge = layout.size_mm[1]
    arms = (arm(Player.A, 431.0, (455.0, 375.0), edge), arm(Player.A, 249.0, (308.0, 383.0), edge))
    table = Table(layout)
    table.frame_with({"A.stock4": "back", "A.stock5": "back"}, hands=arms)
    table.idle(3, hands=arms)
    events = table.frame_with({"pile1": "7H", "pile2": "JS"})
    assert {str(e.card): e.hand for e in events if isinstance(e, Play)} == {"7H": Hand.RIGHT, "JS": Hand.LEFT}
    # alone, slot 4's card went with the nearer hand
    table = Table(layout)
    table.frame_with({"A.stock4": "back"}, hands=arms)
    table.idle(3, hands=arms)
    assert [(type(e), e.hand) for e in table.frame_with({"pile2": "JS"})] == [(Play, Hand.RIGHT)]


def test_a_small_second_blob_is_not_the_player_s_other_hand(layout: MatLayout) -> None:
    zones = {z.id: z for z in layout.zones}
    slot1 = zones["A.stock1"].center
    edge = layout.size_mm[1]
    # one arm takes from slot 1; a small still blob at A's edge (games 5014, 5015: B's edge,
    # 2900-5200 mm^2, no hand in the frame) is no hand: which hand took the card is not known
    still = arm(Player.A, slot1[0] + 250, (slot1[0] + 250, edge - 20), edge)
    small = replace(still, area_mm2=SECOND_HAND_MM2 - 1)
    arms = (arm(Player.A, slot1[0] + 60, slot1, edge), small)
    table = Table(layout)
    table.frame_with({"A.stock1": "back"}, hands=arms)
    table.idle(3, hands=arms)
    events = table.frame_with({"pile1": "4D"})
    assert [(type(e), e.hand) for e in events] == [(Play, None)]
    # as large as a hand: it is the other hand, and the one at the slot took the card
    table = Table(layout)
    big = replace(small, area_mm2=SECOND_HAND_MM2)
    table.frame_with({"A.stock1": "back"}, hands=(arms[0], big))
    table.idle(3, hands=(arms[0], big))
    assert [(type(e), e.hand) for e in table.frame_with({"pile1": "4D"})] == [(Play, Hand.LEFT)]


def test_a_pile_waits_while_a_passing_arm_may_carry_its_card_to_the_other_pile(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})  # KD left A's slot 2 ...
    table.frame_with({"B.stock4": "back"})  # ... and 8S B's slot 4
    # B puts 8S on pile 1 while A's arm passes over pile 1 on its way to pile 2 (still busy):
    # KD might lie under 8S, or be on its way; pile 1 waits for pile 2
    over_pile1 = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    assert table.frame_with({"pile1": "8S"}, hands=over_pile1, unsettled=("pile2",)) == []
    events = table.frame_with({"pile2": "KD"}, hands=(hand(Player.A, "pile2"),), busy_frames=0)
    assert [(e.player, str(e.card), e.pile) for e in events] == [(Player.B, "8S", 1), (Player.A, "KD", 2)]
    assert (events[0].evidence or {}).get("underneath") is not True


def test_a_pile_does_not_wait_for_the_other_pile_busy_under_the_other_player_s_hand_only(
        layout: MatLayout) -> None:
    """Game 5857 with the model: A put KH and KC on pile 1 together while B's hand was on pile 2;
    pile 1 waited for pile 2 (an arm of A's might have carried a card on to it) until B's AD
    settled there 0.4 s later, and its two faults reached the board as late. No hand of A's
    came to pile 2: pile 1 is explained when it settles."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})  # KD left A's slot 2 ...
    table.frame_with({"A.stock5": "back"})  # ... and 7H A's slot 5
    hands = (hand(Player.A, "pile1"), hand(Player.B, "pile2"))
    events = table.frame_with({"pile1": "7H"}, hands=hands, unsettled=("pile2",))
    assert [(e.player, str(e.card), e.pile) for e in events] == [(Player.A, "KD", 1), (Player.A, "7H", 1)]
    # an arm of A's over pile 2 as well: A's KD may be on its way there, and pile 1 waits
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"A.stock5": "back"})
    hands = (hand(Player.A, "pile1"), hand(Player.A, "pile2"), hand(Player.B, "pile2"))
    assert table.frame_with({"pile1": "7H"}, hands=hands, unsettled=("pile2",)) == []
    # so does it when no hand is seen on the busy pile (one the tracker lost)
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    table.frame_with({"A.stock5": "back"})
    assert table.frame_with({"pile1": "7H"}, hands=(hand(Player.A, "pile1"),), unsettled=("pile2",)) == []


def test_a_pile_does_not_wait_for_a_busy_slot_whose_card_lies_on_the_other_pile(layout: MatLayout) -> None:
    """Game 5864 with the model: B put 10S from slot 4 on pile 2 and 10H from slot 2 on pile 1,
    one hand each; pile 1 waited for slot 4, still under B's hand, though its one face-up card
    was on pile 2 already, and held pile 2's F_ILLEGAL_RANK 0.23 s behind it."""
    table = Table(layout)
    table.busy_since = {"B.stock2": 1, "B.stock4": 1}
    slots = ("B.stock2", "B.stock4")
    table.idle(2, hands=(hand(Player.B, "B.stock2"), hand(Player.B, "B.stock4")), unsettled=slots)
    hands = (hand(Player.B, "pile1", "B.stock2"), hand(Player.B, "pile2", "B.stock4"))
    # pile 2 waits for slot 2, which went busy with slot 4: QC may lie under the 8S
    assert table.frame_with({"pile2": "8S"}, hands=hands, unsettled=("pile1", *slots)) == []
    # pile 1 takes QC; slot 4's one face-up card lies on pile 2: both go now
    both = table.frame_with({"pile1": "QC"}, hands=hands, unsettled=slots, busy_frames=0)
    assert [(str(e.card), e.pile) for e in both] == [("8S", 2), ("QC", 1)]


def test_a_spit_card_waits_for_a_busy_slot_whose_turn_came_first(layout: MatLayout) -> None:
    table = Table(layout)
    # A turns the card of slot 3 and the arm stays over the slot; then B turns a spit card
    table.idle(20, hands=(hand(Player.A, "A.stock3"), hand(Player.B, "B.packet")), unsettled=("A.stock3",))
    turned_at = 1 / FPS  # the hand came over the slot in the first frame
    spit_hands = (hand(Player.A, "A.stock3"), hand(Player.B, "pile2"))
    assert table.frame_with({"pile2": "4C"}, hands=spit_hands, unsettled=("A.stock3",)) == []  # held
    table.idle(20, unsettled=("A.stock3",))  # held while the slot stays busy
    events = table.frame_with({"A.stock3": "6C"}, busy_frames=0)
    assert [(type(e), e.player) for e in events] == [(Turn, Player.A), (SpitTurn, Player.B)]
    turn, spit = events
    assert turn.t < spit.t and turn.evidence["before_spit"] is True
    assert abs(turn.t - (turned_at + TURN_AFTER_ARRIVAL_S)) < 1e-3


def test_a_held_spit_card_waits_no_longer_than_its_limit(layout: MatLayout) -> None:
    table = Table(layout)
    table.idle(2, hands=(hand(Player.A, "A.stock3"), hand(Player.B, "B.packet")), unsettled=("A.stock3",))
    assert table.frame_with({"pile2": "4C"}, hands=(hand(Player.B, "pile2"),), unsettled=("A.stock3",)) == []
    given = []
    for _ in range(int(SPIT_WAIT_S * FPS) + 2):
        given += table.frame_with(unsettled=("A.stock3",))
    assert [type(e) for e in given] == [SpitTurn]
    assert table.obs.flush(TrackedFrame(table.frame, table.frame / FPS, {}, (), ())) == []


def test_a_spit_card_explained_late_leaves_the_player_s_next_packet_visit_to_their_next_card(
        layout: MatLayout) -> None:
    """Game 5261 with the model: B's 2S, explained 0.5 s after its pile settled, took the packet
    visit B's hand was making by then for B's next spit card; that card went to A, and A's own
    spit card was taken for a play (six false F_EARLY). A spit card comes from a visit before
    its pile settled."""
    table = Table(layout)
    table.idle(2, hands=(hand(Player.B, "B.packet", "B.stock2"),), unsettled=("B.stock2",))
    # it waits for B's slot 2, busy under B's hand: its QC may lie under the new top
    assert table.frame_with({"pile2": "4C"}, hands=(hand(Player.B, "pile2", "B.stock2"),),
                            unsettled=("B.stock2",)) == []
    table.idle(3, hands=(hand(Player.B, "B.packet"),), unsettled=("B.stock2",))  # B's next card
    events = table.frame_with({"B.stock2": "QC"}, busy_frames=0)
    assert [(type(e), e.player) for e in events] == [(SpitTurn, Player.B)]
    events = table.frame_with({"pile2": "5D"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(SpitTurn, Player.B, "5D")]


@pytest.mark.parametrize("slot_shows", ["its card still", "a back", "no packet visit", "onto a card"])
def test_a_card_on_an_empty_pile_a_busy_slot_still_shows_after_a_packet_visit_waits_for_that_slot(
        layout: MatLayout, slot_shows: str) -> None:
    """Game 5439 with the model: A's spit AC landed on the empty pile 1 while A's arm lay over
    slot 2, whose AS had been misread AC at its turn; it was taken for a play from slot 2 before
    the spit cards (nine false F_EARLY followed). A card on an empty pile that a busy slot still
    shows, its player's hand just at their packet, waits for that slot: still showing its card
    when it settles, the card is the spit card; its card gone, it was played from there. With no
    packet visit, or onto a pile's card (an arm that passed over its packet on the way to a
    touch race: race-eval seed 6678), it is a play from the slot at once, as before."""
    table = Table(layout)
    if slot_shows != "onto a card":
        taken = table.frame_with({"pile1": "empty"}, hands=(hand(Player.B, "pile1"),))
        assert [type(e) for e in taken] == [TakePile]
        table.idle(5)
    if slot_shows != "no packet visit":
        table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile1",))
    on = (hand(Player.A, "pile1", "A.stock2"),)
    events = table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock2",))
    if slot_shows in ("no packet visit", "onto a card"):
        assert [(type(e), e.player, getattr(e, "slot", None)) for e in events] == [(Play, Player.A, 2)]
        return
    assert events == []  # waits for slot 2
    if slot_shows == "its card still":
        events = table.frame_with()  # slot 2 settles as it was: the arm only passed over it
        assert [(type(e), e.player, str(e.card)) for e in events] == [(SpitTurn, Player.A, "KD")]
    else:
        events = table.frame_with({"A.stock2": "back"}, busy_frames=0)
        assert [(type(e), e.player, getattr(e, "slot", None)) for e in events] == [(Play, Player.A, 2)]


def test_a_card_moved_to_an_empty_slot_and_a_spit_card(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    table.frame_with({"pile1": "4D"})
    events = table.frame_with({"A.stock1": "JS"}, unsettled=("A.stock4",))  # from slot 4, still busy
    assert isinstance(events[0], Move) and (events[0].from_slot, events[0].to_slot) == (4, 1)
    # a card no slot held, with no hand at its player's packet: not explained, nothing given
    assert table.frame_with({"pile2": "2H"}, hands=(hand(Player.B, "pile2"),)) == []
    spit = table.frame_with({"pile2": "3C"}, hands=(hand(Player.B, "pile2", "B.packet"),))
    assert isinstance(spit[0], SpitTurn) and spit[0].player is Player.B


def test_a_pile_read_as_a_card_lying_still_in_a_slot_keeps_its_top(layout: MatLayout) -> None:
    """Game 5848 with the model: pile 1's JS read 10S at 0.45-0.52 once the hand had gone, the
    10S lying face up in A's slot 5: not explained, yet taken for the pile's top, so that A's
    10S played there 1.3 s later changed nothing (six false F_ILLEGAL_RANK after it). One card
    lies in one place: the pile keeps its top, and the card's play is found when it comes."""
    table = Table(layout)
    assert table.frame_with({"pile1": "4D"}, confidence=0.5, runner_up=("5D", 0.16)) == []
    assert table.obs.believed_tops()["pile1"] == "5D"
    table.idle(10)
    assert table.frame_with({"A.stock1": "back"}, hands=(hand(Player.A, "A.stock1"),)) == []
    events = table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.player, e.slot, str(e.card)) for e in events] == [(Play, Player.A, 1, "4D")]
    # a card from no slot, not explained, is still taken for the top (what it is may come later)
    assert table.frame_with({"pile2": "2H"}) == []
    assert table.obs.believed_tops()["pile2"] == "2H"


def test_what_is_read_under_a_hand_is_believed_only_when_sure(layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"pile1": "empty"}, hand_over=True) == []  # the hand hides the pile
    assert table.frame_with({"pile1": "card"}) == []  # face up but unread: wait for a reading
    assert table.frame_with({"A.stock1": "back"}) == []
    assert table.frame_with({"pile1": "4D"}, hand_over=True, confidence=0.3) == []
    assert [str(e.card) for e in table.frame_with({"pile1": "4D"}, hand_over=True, confidence=0.9)] == ["4D"]


def test_a_pile_taken_away(layout: MatLayout) -> None:
    table = Table(layout)
    events = table.frame_with({"pile2": "empty"}, hands=(hand(Player.B, "pile2"),))
    assert isinstance(events[0], TakePile) and events[0].player is Player.B and events[0].pile == 2


def fingertips(player: Player, zone: str) -> HandBlob:
    """A hand whose tip lies on ``zone``'s centre, covering no zone."""
    return HandBlob(player, 20000.0, (0, 0, 10, 10), MAT.zone(zone).center, ())


def touching(player: Player, *zones: str) -> HandBlob:
    """A hand that touches zones without covering their centres (HandBlob.touches)."""
    return HandBlob(player, 20000.0, (0, 0, 10, 10), (0.0, 0.0), (), touches=zones)


def test_a_spit_card_is_the_player_whose_hand_came_from_their_packet(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))
    table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile2",))
    # B's hand puts the card down; A's passes over pile 2 after it, on its way to pile 1
    spit = table.frame_with({"pile2": "3C"}, before=(touching(Player.B, "pile2"),),
                            hands=(touching(Player.A, "pile2"),))
    assert [(type(e), e.player, str(e.card)) for e in spit] == [(SpitTurn, Player.B, "3C")]
    # A's packet visit is A's spit card, on the other pile; B's visit was spent
    spit = table.frame_with({"pile1": "JD"}, hands=(touching(Player.A, "pile1"),))
    assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.A)]
    assert table.frame_with({"pile2": "2H"}) == []  # no packet visit left: not explained


@pytest.mark.parametrize("sure", [False, True])
def test_a_card_no_slot_held_read_barely_surely_on_a_pile_is_read_again(layout: MatLayout, sure: bool
                                                                      ) -> None:
    """Race-eval seed 6782 with the model: B's 8H, put on A's 10S, read QH at 0.53 under the
    hands, was taken for B's spit card over the two; the 8H, read 0.68 once the hands had gone,
    for a card beneath it (a take-back read too unsurely): a false F_TAKE_BACK. A card only a
    spit card could be, read less surely than SPIT_READ_CONFIDENCE, is read again first."""
    table = Table(layout)
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))
    weak = SPIT_READ_CONFIDENCE - 0.07
    spit = table.frame_with({"pile2": "3C"}, hands=(touching(Player.B, "pile2"),),
                            confidence=SPIT_READ_CONFIDENCE + 0.1 if sure else weak)
    if sure:
        assert [(type(e), e.player, str(e.card)) for e in spit] == [(SpitTurn, Player.B, "3C")]
        return
    assert spit == [] and table.obs.state.tops["pile2"] == "9H"
    found: list = []
    for _ in range(REREAD_EVERY):  # read again, now surely: the spit card, timed as at first
        found += _look_again(table, {"pile2": ("3C", 0.8, None)})
    assert [(type(e), e.player, str(e.card)) for e in found] == [(SpitTurn, Player.B, "3C")]
    # under a hand and never read more surely: after REREAD_FOR_S, as before
    table = Table(layout)
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))
    assert table.frame_with({"pile2": "3C"}, hands=(touching(Player.B, "pile2"),), hand_over=True,
                            confidence=weak) == []
    found = []
    for _ in range(int(REREAD_FOR_S * FPS) + REREAD_EVERY):
        found += _look_again(table, {"pile2": ("3C", weak, None)})
    assert [(type(e), e.player, str(e.card)) for e in found] == [(SpitTurn, Player.B, "3C")]
    # a card played from a slot is believed as surely as before
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    played = table.frame_with({"pile1": "KD"}, confidence=weak)
    assert [(type(e), str(e.card)) for e in played] == [(Play, "KD")]


def test_a_pile_s_card_never_read_surely_that_nothing_explains_leaves_its_top(layout: MatLayout) -> None:
    """Game 5999 with the model: B's QH on pile 1, read 0.88, was guessed JH at 0.33-0.41 for a
    second as the hand lifted; the JH became the top, A's spit JH 1.8 s later changed nothing,
    and B's next four plays were judged before both spit cards (four false F_EARLY). The
    likeliest guess, when it explains nothing, leaves the pile's top as it was; a card read
    surely that explains nothing still becomes the top."""
    table = Table(layout)
    assert table.frame_with({"pile1": "card"}, guess="JH", confidence=0.35) == []
    found: list = []
    for _ in range(40):  # more than REREAD_FOR_S
        found += _look_again(table, {"pile1": ("card", 0.35, "JH")})
    assert found == [] and table.obs.state.tops["pile1"] == "5D"
    table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile1",))
    spit = table.frame_with({"pile1": "JH"}, hands=(touching(Player.A, "pile1"),))
    assert [(type(e), e.player, str(e.card)) for e in spit] == [(SpitTurn, Player.A, "JH")]
    table = Table(layout)
    assert table.frame_with({"pile1": "JH"}) == [] and table.obs.state.tops["pile1"] == "JH"


@pytest.mark.parametrize("then", ["A alone", "A's fingertips alone", "B there too", "A at A's packet"])
def test_a_card_from_no_slot_uncovered_by_the_top_s_player_alone_lay_beneath_the_top(
        layout: MatLayout, then: str) -> None:
    """Game 5336 (both recognitions): B's spit KC covered 60 ms later by A's 3S was seen only when
    A took the 3S back; it was taken for B's spit card put on the 3S (B's packet visit before
    the 3S still unspent), the 3S's take-back for one from beneath it (a false F_TAKE_BACK) and
    the 3S's F_ILLEGAL_RANK on the KC was missed. A card from no slot that shows when only the
    top's player's hand was on the pile, who did not go to their packet, lay beneath the top:
    the top was taken back, and the card is a spit card found beneath it, timed before it. With
    the other player's hand on the pile, or the top's player at their packet, it is a spit card
    put on the top, as before. The fingertips alone on the pile are the hand there (game 5751,
    both recognitions: B's took the 4D back off A's spit 4H)."""
    table = Table(layout)
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))  # B's spit card
    on = (hand(Player.A, "pile2", "A.stock1"), touching(Player.B, "pile2"))
    table.frame_with({"A.stock1": "back"}, hands=on, unsettled=("pile2",))  # A takes the 4D
    played = table.frame_with({"pile2": "4D"}, hands=on)
    assert [(type(e), str(e.card)) for e in played] == [(Play, "4D")]
    table.idle(20)
    lifting = {"A alone": (hand(Player.A, "pile2"),),
               "B there too": (hand(Player.A, "pile2"), touching(Player.B, "pile2")),
               "A at A's packet": (hand(Player.A, "pile2"), touching(Player.A, "A.packet")),
               "A's fingertips alone": (fingertips(Player.A, "pile2"),)}[then]
    events = table.frame_with({"pile2": "3C"}, hands=lifting)
    if then not in ("A alone", "A's fingertips alone"):
        assert [type(e) for e in events] == [SpitTurn] and FOUND_BENEATH not in (events[0].evidence or {})
        return
    assert [(type(e), e.player, str(e.card)) for e in events] == [
        (SpitTurn, Player.B, "3C"), (TakeBack, Player.A, "4D")]
    spit, back = events
    assert spit.t == pytest.approx(played[0].t - 1 / FPS) and (spit.evidence or {})[FOUND_BENEATH] is True
    assert (spit.evidence or {})["layering"] == "under 4D" and back.t > played[0].t
    assert table.frame_with({"A.stock1": "4D"}, hands=(hand(Player.A, "A.stock1"),)) == []  # back in its slot


@pytest.mark.parametrize("then", ["A alone", "A alone, B's slot settled late", "B there too"])
def test_a_card_from_a_slot_uncovered_by_the_other_player_alone_lay_beneath_the_top(
        layout: MatLayout, then: str) -> None:
    """Game 5764, both recognitions: B's 5H, put on pile 2 0.11 s before A's 7D covered it, was
    seen only when A took the 7D back; it was taken for a card put on the 7D, the 7D's
    take-back for one from beneath it (a false F_TAKE_BACK), and the F_LOST_TOUCH went to B
    instead of A. A card from the other player's slot that shows when only the top's player's
    hand was on the pile lay beneath the top, put before it; with its own player's hand there
    too it may have been put on the top, as before. The card's slot may settle late (the hand
    lingering): it went busy before the top touched (game 5764 with the model)."""
    table = Table(layout)
    late = then == "A alone, B's slot settled late"
    if not late:
        assert table.frame_with({"B.stock3": "back"}, hands=(hand(Player.B, "B.stock3"),)) == []  # 3S left
    table.busy_since["B.stock3"] = table.frame + 1
    table.frame_with({"A.stock1": "back"}, unsettled=("pile2", "B.stock3") if late else ("pile2",))
    played = table.frame_with({"pile2": "4D"}, hands=(hand(Player.A, "pile2"),),
                              unsettled=("B.stock3",) if late else ())
    assert [(type(e), str(e.card)) for e in played] == [(Play, "4D")]
    if late:  # the 3S's slot settles well after the 4D touched
        table.idle(10, unsettled=("B.stock3",), hands=(hand(Player.B, "B.stock3"),))
        assert table.frame_with({"B.stock3": "back"}) == []
    table.idle(20)
    lifting = (hand(Player.A, "pile2"),) + ((hand(Player.B, "pile2"),) if then == "B there too" else ())
    events = table.frame_with({"pile2": "3S"}, hands=lifting)
    if then == "B there too":
        assert [(type(e), str(e.card)) for e in events] == [(Play, "3S")]
        assert FOUND_BENEATH not in (events[0].evidence or {})
        return
    assert [(type(e), e.player, str(e.card)) for e in events] == [
        (Play, Player.B, "3S"), (TakeBack, Player.A, "4D")]
    play, back = events
    assert play.t == pytest.approx(played[0].t - 1 / FPS) and (play.evidence or {})[FOUND_BENEATH] is True
    assert back.t > played[0].t and [p.card for p in table.obs.state.piles[2]][-1] == "3S"


def test_a_card_read_again_in_its_slot_after_it_seemed_gone_did_not_leave_then(layout: MatLayout) -> None:
    """Game 5890 with the model: B's 7C, its slot read "empty" under the hand and 7C again 0.3 s
    later, still lay there when A's 8C went onto pile 1; once A took the 8C back, the KH beneath
    was misread 7C, and the 7C taken for a card put under the 8C from that old departure (a
    false play, F_ILLEGAL_RANK and take-back). The slot's busy spell since it showed the card
    again is when a hand can have come for it: after the top touched, so the card was not
    beneath it."""
    table = Table(layout)
    assert table.frame_with({"B.stock3": "empty"}) == [] and table.frame_with({"B.stock3": "3S"}) == []
    table.frame_with({"A.stock1": "back"})
    assert [type(e) for e in table.frame_with({"pile2": "4D"}, hands=(hand(Player.A, "pile2"),))] == [Play]
    table.idle(20)
    table.busy_since["B.stock3"] = table.frame + 1
    table.idle(2, unsettled=("B.stock3",), hands=(hand(Player.B, "B.stock3"),))
    events = table.frame_with({"pile2": "3S"}, hands=(hand(Player.A, "pile2"),), unsettled=("B.stock3",))
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Play, Player.B, "3S")]
    assert FOUND_BENEATH not in (events[0].evidence or {})


def test_a_slot_that_went_busy_after_a_waiting_pile_change_settled_is_not_its_source(
        layout: MatLayout) -> None:
    """Game 5890 with the model: pile 1's KH, uncovered by A's take-back, misread 7C at 0.53,
    waited for a slot of A's; B's hand came over B's 7C a frame after the pile settled, and the
    7C was taken for a play from there (a false F_TWO_HANDS) and its take-back. The card on the
    pile had landed before that slot went busy: not from it."""
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    table.frame_with({"pile2": "4D"}, hands=(hand(Player.A, "pile2"),))
    table.idle(20)
    table.busy_since["A.stock2"] = table.frame + 1
    assert table.frame_with({"pile2": "3S"}, hands=(hand(Player.A, "pile2"),), unsettled=("A.stock2",)) == []
    table.busy_since["B.stock3"] = table.frame + 1
    busy = ("B.stock3", "A.stock2")
    table.idle(2, unsettled=busy, hands=(hand(Player.A, "pile2"), hand(Player.B, "B.stock3")))
    events = table.frame_with({"pile2": "9H"}, unsettled=busy, hands=(hand(Player.B, "B.stock3"),),
                              busy_frames=0)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(TakeBack, Player.A, "4D")]


def test_a_packet_busy_while_only_its_owner_s_hand_reaches_near_it_was_visited(layout: MatLayout) -> None:
    """Game 5237 with the model: B's fingertips slid the spit card off the far end of B's
    packet, covering a fifth of it in no frame; the packet went busy, but the card on pile 2 was
    taken for one from nowhere. A packet busy while only its owner's hands reach near it (their
    box overlaps it) is a visit; not a packet that stays settled, nor one the other player's
    hand reaches near too."""
    x0, y0 = layout.zone("B.packet").polygon().min(axis=0)
    x1, y1 = layout.zone("B.packet").polygon().max(axis=0)
    beside = (float(x1) - 5.0, float(y0), float(x1) + 80.0, float(y1))  # overlaps the packet's end
    b_near = HandBlob(Player.B, 20000.0, beside, (float(x1) + 2.0, float(y0 + y1) / 2), ("B.stock3",))
    a_near = replace(b_near, player=Player.A, zones=())
    for busy, hands, expected in (
            (("B.packet",), (b_near,), [(SpitTurn, Player.B, "3C")]),
            ((), (b_near,), []),  # the packet stayed settled: only an arm beside it
            (("B.packet",), (b_near, a_near), [])):  # whose hand moved it is not known
        table = Table(layout)
        table.frame_with(hands=hands, unsettled=busy + ("pile2",))
        events = table.frame_with({"pile2": "3C"}, hands=(hand(Player.B, "pile2"),))
        assert [(type(e), e.player, str(e.card)) for e in events] == expected, (busy, len(hands))


def test_a_pile_read_as_a_card_from_nowhere_shows_the_one_alike_card_that_left(layout: MatLayout) -> None:
    """Game 5084 with the model: B's JH on pile 2 read QH at 0.62, its runner-up AD, was left
    unexplained, and B's KS moved to the slot the JH had left was judged a move onto an
    occupied slot (a false F_BAD_MOVE). The one card of the rank or suit read that left a slot
    of a player whose hand was on the pile is the card; not when the picture changed little (an
    arm passing), nor when a hand was at a packet (a spit card), nor a card unlike it."""
    on_pile = (hand(Player.B, "pile2"),)
    # (else the card that left is taken for one underneath, and the QH is not explained)
    cases = ((("B.stock2", "back"), 20.0, (), [(Play, "QC", False)]),  # QC left B's slot 2: a queen
             (("B.stock2", "back"), 6.8, (), [(Play, "QC", True)]),  # the picture hardly changed
             (("B.stock2", "back"), 20.0, ("B.packet",), [(Play, "QC", True), (SpitTurn, "QH", False)]),
             (("B.stock3", "back"), 20.0, (), [(Play, "3S", True)]))  # 3S: neither a queen nor a heart
    for (slot, now), difference, packet, expected in cases:
        table = Table(layout)
        table.frame_with({slot: now}, hands=(hand(Player.B, slot),))
        if packet:  # (a spit card is fetched before it is put down)
            table.frame_with(hands=(hand(Player.B, *packet),), unsettled=("pile2",))
        events = table.frame_with({"pile2": "QH"}, hands=(hand(Player.B, "pile2", *packet),),
                                  difference=difference, runner_up=("AD", 0.2), confidence=0.62,
                                  before=on_pile)
        assert [(type(e), str(e.card), e.evidence.get("underneath") is True) for e in events] == expected, \
            (slot, difference, packet)
    # a reading fainter than a guess hints at neither rank nor suit: the one card that left is
    # the card, alike or not, and a card alike in a slot still busy is not (game 5849 with the
    # model: pile 1 read KS at 0.24 as A's QC landed, taken for B's KH in its busy slot; the
    # QC and the KH, played 1.2 s later, were lost)
    for confidence, expected in ((0.62, [(Play, "3S", True), (Play, "QC", False)]),
                                 (0.24, [(Play, "3S", False)])):
        table = Table(layout)
        table.frame_with({"B.stock3": "back"}, hands=(hand(Player.B, "B.stock3"),))
        events = table.frame_with({"pile2": "QH"}, hands=on_pile, unsettled=("B.stock2",), difference=20.0,
                                  confidence=confidence, before=on_pile)
        assert [(type(e), str(e.card), e.evidence.get("underneath") is True) for e in events] == expected, \
            confidence

def test_of_two_spitters_as_long_on_the_pile_the_one_whose_fingertips_lay_on_it_placed_the_card(
        layout: MatLayout) -> None:
    """Game 5110: A's arm and B's, each crossing over the other's pile to put a spit card on the
    far one, covered pile 1 as long; A's fingertips lay on it, B's passed on to pile 2. The card
    was given to B, whose packet visit was the later, and B's own spit card to A."""
    for a_tip_on_pile in (True, False):
        table = Table(layout)
        table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile1",))
        table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile1",))
        a_tip = layout.zone("pile1").center if a_tip_on_pile else layout.zone("A.stock3").center
        hands = (hand_at(Player.A, (float(a_tip[0]), float(a_tip[1])), "pile1"),
                 hand_at(Player.B, tuple(map(float, layout.zone("pile2").center)), "pile1", "pile2"))
        spit = table.frame_with({"pile1": "3C"}, hands=hands)
        # no fingertips on it either: the later visit, as before
        assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.A if a_tip_on_pile else Player.B)]


def test_of_two_spitters_the_one_whose_fingertips_lay_on_the_pile_placed_the_card_though_covered_longer(
        layout: MatLayout) -> None:
    """Game 5149: B put a spit card on pile 2 while A's hand, reaching for A's packet beside it,
    covered the pile's centre; B's fingertips lay on it, A's wrist did not bring A's tip there.
    The card was given to A (on the pile longer), and A's own spit card on pile 1 to B."""
    for b_tip_on_pile in (True, False):
        table = Table(layout)
        table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))
        table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile2",))
        b_tip = layout.zone("pile2").center if b_tip_on_pile else layout.zone("B.stock3").center
        a_reach = hand_at(Player.A, tuple(map(float, layout.zone("A.packet").center)), "pile2", "A.packet")
        b_place = replace(touching(Player.B, "pile2"), tip_mm=(float(b_tip[0]), float(b_tip[1])))
        spit = table.frame_with({"pile2": "5C"}, hands=(a_reach, b_place))
        # no fingertips on it: the hand on it longer, A's, as before
        assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.B if b_tip_on_pile else Player.A)]


def test_of_two_spitters_whose_fingertips_lay_on_the_pile_the_one_whose_arm_did_not_cross_on_placed_the_card(
        layout: MatLayout) -> None:
    """Game 5162: B's fingertips put B's spit card on pile 2, then A's arm crossed the pile on its
    way to pile 1, A's hand covering it more; each tip lay on it as long round the touch. The
    card was given to A, and A's own spit card on pile 1 to B. (Fixture stalemate: A's arm
    crossed pile 2 just before B's card came, its tip there longer.)"""
    pile1, pile2 = (tuple(map(float, layout.zone(z).center)) for z in ("pile1", "pile2"))
    b_tip = replace(touching(Player.B, "pile2"), tip_mm=pile2)
    a_tip = hand_at(Player.A, pile2, "pile2")
    a_on = hand_at(Player.A, pile1, "pile1")
    for crossing in ([(b_tip,)] * 2 + [(a_tip,)] * 2, [(a_tip,)] * 3 + [(b_tip,)] * 2):
        table = Table(layout)
        table.frame_with(hands=(touching(Player.B, "B.packet"),))
        table.frame_with(hands=(touching(Player.A, "A.packet"),))
        for hands in crossing + [(a_on,)] * 4:
            table.frame_with(hands=hands, unsettled=("pile2",))
        spit = table.frame_with({"pile2": "5C"}, busy_frames=0)
        assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.B)], crossing


def test_a_spit_card_whose_hand_lingered_on_the_pile_touched_as_the_hand_came(layout: MatLayout) -> None:
    """Game 5370 (both recognitions): B's hand lay on pile 2 0.37 s after putting the 7D down, and
    the spit, timed from the pile's settle, was 0.30 s late. A spit card touches at most
    ``SPIT_PLACE_S`` after its player's hand came onto the pile in the pile's busy spell; a hand
    that leaves at once times it from the settle, as before, and so does one that lay over the
    pile before the spell began (game 5469: B's arm over pile 2 for 2.5 s, the 2C put 2.3 s
    early by a first form)."""
    for linger, before in ((20, 0), (2, 0), (20, 10)):
        table = Table(layout)
        table.idle(30)
        table.frame_with(hands=(touching(Player.B, "B.packet"),))
        table.idle(before, hands=(hand(Player.B, "pile2"),))
        came = (table.frame + 1 - before) / FPS
        table.busy_since["pile2"] = table.frame + 1
        table.idle(3 + linger, hands=(hand(Player.B, "pile2"),), unsettled=("pile2",))
        spit = table.frame_with({"pile2": "5C"}, busy_frames=0)
        assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.B)]
        from_settle = (table.frame - 3) / FPS - TOUCH_LAG_S["spit"]
        bounded = linger == 20 and not before
        assert abs(spit[0].t - (min(from_settle, came + SPIT_PLACE_S) if bounded else from_settle)) < 1e-9
        assert (spit[0].t < from_settle - 0.1) is bounded
    # game 5577 (both recognitions): B's 2H put down in a visit of 0.13 s, the hand back on the
    # pile 0.17 s later and lingering: from the first visit in the spell (from the second, 0.33 s
    # late)
    table = Table(layout)
    table.idle(30)
    table.frame_with(hands=(touching(Player.B, "B.packet"),))
    table.busy_since["pile2"] = table.frame + 1
    came = (table.frame + 1) / FPS
    table.idle(4, hands=(hand(Player.B, "pile2"),), unsettled=("pile2",))
    table.idle(5, unsettled=("pile2",))
    table.idle(12, hands=(hand(Player.B, "pile2"),), unsettled=("pile2",))
    spit = table.frame_with({"pile2": "5C"}, busy_frames=0)
    assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.B)]
    assert abs(spit[0].t - (came + SPIT_PLACE_S)) < 1e-9


def test_a_packet_visit_made_after_the_spit_card_touched_did_not_fetch_it(layout: MatLayout) -> None:
    """Game 5702 with perfect recognition: B put B's spit 10C on pile 2; A's hand, back from
    putting the KH on pile 1, lay on pile 2 too, then went to A's packet for the next card while
    the pile, under the hands, had not settled. The visit made after the card touched was taken
    for the one that fetched it: the 10C went to A (two false F_EARLY). Only a visit before the
    touch counts."""
    table = Table(layout)
    table.idle(30)
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile2",))
    both = (hand(Player.A, "pile2"), hand(Player.B, "pile2"))
    spit = table.frame_with({"pile2": "3C"}, before=both, hands=(touching(Player.A, "A.packet"),))
    assert [(type(e), e.player, str(e.card)) for e in spit] == [(SpitTurn, Player.B, "3C")]
    # A's visit is left for A's own card, on the other pile
    spit = table.frame_with({"pile1": "JD"}, hands=(touching(Player.A, "pile1"),))
    assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.A)]


def test_a_spitters_fingertips_seen_on_the_pile_just_after_the_card_touched_placed_it(
        layout: MatLayout) -> None:
    """Game 5460 (both recognitions): A's arm crossed pile 2 on its way to pile 1, then B's hand
    put B's spit card on pile 2, B's fingertips first seen on it 54 ms after the card touched
    (the card reaches further than the fingers). With no tip counted, the card went to A (on the
    pile longer), and A's own card on pile 1 to B. Tips count up to ``SPIT_TIP_AFTER_S`` after
    the touch; A's, moved on to pile 1, does not."""
    pile1, pile2 = (tuple(map(float, layout.zone(z).center)) for z in ("pile1", "pile2"))
    a_crossing, a_on = hand_at(Player.A, pile2, "pile2"), hand_at(Player.A, pile1, "pile1")
    b_on = hand_at(Player.B, pile2, "pile2")
    table = Table(layout)
    table.frame_with(hands=(touching(Player.B, "B.packet"),))
    table.frame_with(hands=(touching(Player.A, "A.packet"),))
    table.idle(2, hands=(a_crossing,), unsettled=("pile2",))
    table.idle(2, hands=(a_on,), unsettled=("pile2", "pile1"))
    table.idle(4, hands=(a_on, b_on), unsettled=("pile2", "pile1"))  # B's tip from 3 frames after the touch
    spit = table.frame_with({"pile2": "5C"}, hands=(a_on, b_on), unsettled=("pile1",), busy_frames=0)
    assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.B)]
    assert spit[0].t + SPIT_TIP_AFTER_S >= (table.frame - 4) / FPS > spit[0].t + 1.5 / FPS
    spit = table.frame_with({"pile1": "JD"}, hands=(a_on,), busy_frames=0)
    assert [(type(e), e.player) for e in spit] == [(SpitTurn, Player.A)]


def test_a_spit_card_on_a_card_just_played_by_the_other_hand_on_the_pile_is_the_other_players(
        layout: MatLayout) -> None:
    """Game 5506 (both recognitions): A played the 7S onto pile 2 early (A had turned A's spit
    card, B not yet), A's arm touching A's packet on the way, and A's hand stayed on the pile;
    B's spit 8D came onto the 7S 0.18 s later, B's tip on the pile only as it touched. The spit
    card went to A (on the pile longer): a false F_EARLY for it and one for B's next play. The
    hand of the player whose card was found beneath it in the same change was there for that
    play: of two spitters' tips on the pile, the card is the other's."""
    pile1 = tuple(map(float, layout.zone("pile1").center))
    a_on = hand_at(Player.A, pile1, "pile1", "A.packet")  # the arm over A's packet, the tip on the pile
    b_on = hand_at(Player.B, pile1, "pile1")
    for b_spits in (True, False):
        table = Table(layout)
        table.idle(30)
        table.busy_since["A.stock1"] = table.frame + 1
        table.idle(3, hands=(hand(Player.A, "A.stock1"),), unsettled=("A.stock1",))
        table.busy_since["pile1"] = table.frame + 1
        table.idle(3, hands=(a_on,), unsettled=("A.stock1", "pile1"))
        left = table.frame_with({"A.stock1": "empty"}, hands=(a_on,), unsettled=("pile1",), busy_frames=1)
        assert left == []
        b_packet = touching(Player.B, "B.packet") if b_spits else hand(Player.B, "B.stock3")
        table.idle(2, hands=(a_on, b_packet), unsettled=("pile1",))
        table.idle(5, hands=(a_on, b_on), unsettled=("pile1",))
        events = table.frame_with({"pile1": "KH"}, busy_frames=0)
        cards = [(type(e), e.player, str(e.card)) for e in events]
        # (no visit of B's to B's packet: A's, as before)
        assert cards == [(Play, Player.A, "4D"), (SpitTurn, Player.B if b_spits else Player.A, "KH")]


def test_a_spit_card_both_players_fingertips_touched_waits_for_the_arm_crossing_to_the_other_pile(
        layout: MatLayout) -> None:
    """Game 5444 with perfect recognition: A put A's spit card on pile 1, then B's arm passed
    over it on its way to pile 2, B's fingertips on pile 1 as the pile settled. The card went
    to B (on the pile longer), and B's own spit card on pile 2, A's packet visit left, to A.
    While the other pile is busy the card waits: the arm that moves on to it was crossing."""
    pile1, pile2 = (tuple(map(float, layout.zone(z).center)) for z in ("pile1", "pile2"))
    table = Table(layout)
    table.frame_with(hands=(touching(Player.A, "A.packet"),), unsettled=("pile1",))
    table.frame_with(hands=(touching(Player.B, "B.packet"),), unsettled=("pile1",))
    table.idle(3, hands=(hand_at(Player.A, pile1, "pile1"),), unsettled=("pile1",))
    table.idle(4, hands=(hand_at(Player.B, pile1, "pile1"),), unsettled=("pile1", "pile2"))
    between = hand_at(Player.B, ((pile1[0] + pile2[0]) / 2, pile1[1]), "pile1")  # on its way
    table.idle(4, hands=(between,), unsettled=("pile1", "pile2"))
    assert table.frame_with({"pile1": "AD"}, hands=(between,), unsettled=("pile2",), busy_frames=0) == []
    # B's fingertips reach pile 2: B's arm was crossing, the card is A's
    events = [e for _ in range(3)
              for e in table.frame_with(hands=(hand_at(Player.B, pile2, "pile2"),), unsettled=("pile2",))]
    assert [(type(e), e.player, str(e.card)) for e in events] == [(SpitTurn, Player.A, "AD")]
    events = table.frame_with({"pile2": "JD"}, busy_frames=0)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(SpitTurn, Player.B, "JD")]


def test_a_pile_read_as_its_top_a_spit_card_nearly_as_sure_shows_that_spit_card(layout: MatLayout) -> None:
    """Game 5083 with the model: B's spit AC on the 5C, read 5C at 0.79 and AC at 0.74, was
    missed (and A's next play judged before both spit cards were turned: a false F_EARLY).
    Not a runner-up read much less surely, nor one in play, nor with no hand at a packet, nor
    when the picture changed little."""
    table = Table(layout)
    assert table.frame_with({"pile2": "9H"}, hands=(hand(Player.B, "pile2"),), confidence=0.79,
                            runner_up=("AD", 0.74)) == []  # no hand at a packet
    assert table.frame_with({"pile2": "9H"}, hands=(hand(Player.B, "pile2", "B.packet"),), confidence=0.79,
                            runner_up=("QC", 0.74)) == []  # B's QC lies in B's slot 2
    assert table.frame_with({"pile2": "9H"}, hands=(hand(Player.B, "pile2", "B.packet"),), confidence=0.79,
                            runner_up=("AD", 0.5)) == []  # read much less surely
    # the picture changed little, as when an arm passes over it (game 5113: 6.8, B's arm on its
    # way to put B's spit card on the other pile; read 2H at 0.88 as before, 2D at 0.74)
    assert table.frame_with({"pile2": "9H"}, hands=(hand(Player.B, "pile2", "B.packet"),), confidence=0.79,
                            runner_up=("AD", 0.74), difference=6.8) == []
    spit = table.frame_with({"pile2": "9H"}, hands=(hand(Player.B, "pile2", "B.packet"),), confidence=0.79,
                            runner_up=("AD", 0.74))
    assert [(type(e), e.player, str(e.card)) for e in spit] == [(SpitTurn, Player.B, "AD")]
    assert table.obs.state.tops["pile2"] == "AD"


def test_a_pile_waiting_for_a_slot_is_not_released_by_an_arm_over_a_kept_card(layout: MatLayout) -> None:
    """Race-eval seed 6423 with the model: pile 2 took B's 8D while A's slot 4, whose 10C had
    touched first underneath, was still busy; B's arm passing over B's QC released the pile
    before A's slot settled, and the 10C was lost (its F_LOST_TOUCH missed). A slot of that
    player showing another card does release it."""
    table = Table(layout)
    table.busy_since["B.stock3"] = 1  # busy as B's slot 1 went busy: B's hand may hold its 3S
    table.frame_with({"B.stock1": "back"}, unsettled=("B.stock3",))  # 10C left B's slot 1
    table.idle(6, unsettled=("A.stock5", "B.stock3"))  # A's hand took 7H well before the touch
    waiting = table.frame_with({"pile1": "10C"}, hands=(hand(Player.A, "pile1"), hand(Player.B, "pile1")),
                               unsettled=("A.stock5", "B.stock2", "B.stock3"))
    assert waiting == []  # A's slot 5 may hold a card underneath, B's hand the 3S
    # B's arm leaves B's QC: the same card, nothing new, the pile still waits
    assert table.frame_with({"B.stock2": "QC"}, unsettled=("A.stock5", "B.stock3")) == []
    events = table.frame_with({"A.stock5": "back", "B.stock3": "3S"})
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Play, Player.A, "7H"),
                                                                   (Play, Player.B, "10C")]


@pytest.mark.parametrize("then", ["at once", "later", "another runner-up"])
def test_a_pile_read_as_another_card_as_the_hand_lifts_off_the_card_it_carried_shows_that_card(
        layout: MatLayout, then: str) -> None:
    """Game 5719 with the model: B's QC landed on pile 2 (a carried landing), read QC at 0.69 with
    QS second; as the hand lifted off it, the pile changed again at once and read QS at 0.66, QC
    second at 0.61, and B's QS, in slot 2 under B's arm, was taken for played with it (a false
    F_TWO_CARDS, B's moves of the QS lost). A pile going busy again within
    ``CARRY_SETTLE_AGAIN_FRAMES`` of a carried landing, read as another card with the card that
    landed second nearly as surely, shows that card still; later, or with another runner-up,
    it is a new card as before."""
    table = Table(layout)
    table.frame_with({"B.stock2": "back"})  # the QC leaves B's slot 2
    on_pile = (hand(Player.B, "pile2", "B.stock3"),)
    landed = table.frame_with({"pile2": "QC"}, hands=on_pile, carried=True, unsettled=("B.stock3",))
    assert [(type(e), str(e.card)) for e in landed] == [(Play, "QC")]
    if then == "later":
        table.idle(CARRY_SETTLE_AGAIN_FRAMES + 1, hands=on_pile, unsettled=("B.stock3",))
    table.busy_since["pile2"] = table.frame + 1
    second = ("QC" if then != "another runner-up" else "QD", 0.61)
    events = table.frame_with({"pile2": "3S"}, busy_frames=1, confidence=0.66, runner_up=second,
                              hands=on_pile, unsettled=("B.stock3",))
    if then == "at once":
        assert events == [] and table.obs.state.tops["pile2"] == "QC"
    else:
        assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 3, "3S")]


def test_a_pile_change_waits_for_a_slot_whose_card_may_lie_underneath(layout: MatLayout) -> None:
    table = Table(layout)
    # 7H left slot 5; one hand took 4D from slot 1 with it (busy since)
    table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))
    table.busy_since["A.stock1"] = table.frame - 5
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    # 7H is seen on pile 1 while slot 1 (4D) is still under A's hand: 4D may be underneath it
    assert table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",)) == []
    # slot 1 settles without 4D, which had left before the pile settled: it went first, underneath
    events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [
        (Play, Player.A, "4D", 1), (Play, Player.A, "7H", 1)]
    assert events[0].evidence["underneath"] is True and events[0].t < events[1].t


def test_a_pile_read_empty_under_a_hand_whose_next_change_waits_is_explained_by_that_change(
        layout: MatLayout) -> None:
    """Game 5692 with the model: pile 2 read "empty" under B's early-slapping hand; A's 6C came
    0.6 s later and its change waited for A's slot; the pile, read again clear of the hands
    meanwhile, explained the slap's change: the 6C was timed from it, 0.77 s early (a false
    F_ILLEGAL_RANK, the F_TWO_HANDS missed). The waiting change explains it."""
    table = Table(layout)
    assert table.frame_with({"pile1": "empty"}, hands=(hand(Player.B, "pile1"),), hand_over=True,
                            number_hidden=("pile1",)) == []
    slapped = table.frame / FPS
    table.idle(10)
    table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))
    table.busy_since["A.stock1"] = table.frame - 5
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    assert table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",)) == []  # waits
    landed = table.frame / FPS
    table.frame += 1  # pile 1 clear of the hands, read again
    t = table.frame / FPS
    zones = {z: ZoneObservation(z, True, z == "A.stock1", z != "A.stock1", 1.0, 0.0) for z in table.zones}
    events = table.obs.update(TrackedFrame(table.frame, t, zones, (), ()),
                              {"pile1": ZoneReading("pile1", "7H", 1.0, table.frame, t)})
    events += table.frame_with({"A.stock1": "back"}, busy_frames=1)
    played = [e for e in events if str(e.card) == "7H"]
    assert [type(e) for e in played] == [Play] and played[0].t > landed - 0.3 > slapped


def test_what_comes_after_a_pile_change_waiting_for_a_slot_waits_with_it(layout: MatLayout) -> None:
    """Game 5162: A's JH and 7S, seen on pile 1, waited for A's slot 4 under the lingering arm
    while B turned a card; the turn, given first, put both plays after it (the JH 0.27 s
    late: its F_ILLEGAL_RANK counted missed, and a false one)."""
    table = Table(layout)
    table.frame_with({"B.stock4": "back"})  # B's 8S left ...
    assert [type(e) for e in table.frame_with({"pile2": "8S"})] == [Play]  # ... onto pile 2
    table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))  # 7H left slot 5; 4D going
    table.busy_since["A.stock1"] = table.frame - 5
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    assert table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",)) == []  # waits
    assert table.frame_with({"B.stock4": "2C"}, busy_frames=2, unsettled=("A.stock1",)) == []  # B's turn
    events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D"), (Play, "7H"), (Turn, "2C")]
    assert [e.t for e in events] == sorted(e.t for e in events)


def test_a_card_followed_to_rest_under_a_pile_s_top_lies_there_though_its_hand_was_not_seen(
        layout: MatLayout) -> None:
    """Race-eval seed 6454 (both recognitions): B's pale hand over the white mat was not seen on
    pile 2; B's 8S, followed from B's slot to rest on the pile under A's 10H, was found only
    when A took the 10H back (a false F_LOST_TOUCH, the true one missed)."""
    for followed in (frozenset({"3S"}), frozenset()):
        table = Table(layout)
        table.frame_with({"B.stock3": "back"})  # B's 3S left, B's hand never seen
        table.idle(6, unsettled=("A.stock1",))
        table.frame_with({"A.stock1": "back"})  # A's 4D left
        events = table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),), carried=True,
                                  beneath=followed)
        played = [(e.player, str(e.card), e.evidence.get("underneath"))
                  for e in events if isinstance(e, Play)]
        if followed:
            assert played == [(Player.B, "3S", True), (Player.A, "4D", ["5D", "3S"])]
        else:  # no hand of B's on the pile, no follow: not known to lie there
            assert played == [(Player.A, "4D", ["5D"])]


def test_a_card_whose_slot_went_busy_as_the_top_touched_does_not_lie_underneath(layout: MatLayout) -> None:
    """Game 5097: B's hand took KC and KH from B's slots 2 and 3, busy from 0.1 s before A's QS
    touched pile 1, and put them on the QS; pile 1 waited for the slots, and the KH was taken
    for a card under the QS, then the QS for a card taken back (the F_TWO_CARDS missed, a false
    F_TAKE_BACK). A card carried takes at least MIN_CARRY_S: it comes after the top."""
    for busy_before, under in ((0, False), (6, True)):
        table = Table(layout)
        table.frame_with({"A.stock1": "back"})  # A's 4D left slot 1
        if busy_before:  # B's hand came to slot 3 this many frames before the pile went busy
            table.idle(busy_before, unsettled=("B.stock3",))
        hands = (hand(Player.A, "pile1"), hand(Player.B, "pile1", "B.stock3"))
        assert table.frame_with({"pile1": "4D"}, hands=hands, unsettled=("B.stock3",)) == []  # waits
        events = table.frame_with({"B.stock3": "back"})
        played = [(e.player, str(e.card)) for e in events if isinstance(e, Play)]
        if under:  # B's slot busy long enough before the touch: the 3S may lie under the 4D
            assert played == [(Player.B, "3S"), (Player.A, "4D")]
        else:
            assert played == [(Player.A, "4D")]
            on_top = table.frame_with({"pile1": "3S"})
            assert [(type(e), e.player, str(e.card)) for e in on_top] == [(Play, Player.B, "3S")]


def test_a_card_of_the_same_hand_found_beneath_a_carried_top_lies_underneath_when_taken_first(
        layout: MatLayout) -> None:
    """Game 5054 at 1280x720, both recognitions: B's 3S and QD in one hand onto pile 1, the
    3S's slot busy 6 frames before the QD's and settled 3 frames after the pile, which settled
    by the QD's carry with the follows placing the 3S beneath it: the 3S was lost, the QD
    judged on the card below (a false F_ILLEGAL_RANK, the F_TWO_CARDS missed). A hand holds the
    card it took first beneath the second; one taken after the top is not taken for one
    underneath (it may be held above the pile, game 5009). Game 5123 at 1280x720, both
    recognitions: A's arm came over slot 3 (5S) before slot 2 (9S), but the hand took the 9S
    first, and the follows saw it leave first (``taken_before``): the 9S was lost under the 5S
    until the 5S was taken back, and the 5S judged on the 10H below (a false F_ILLEGAL_RANK)."""
    for slot_busy_first, follows_first in ((True, False), (False, False), (False, True)):
        table = Table(layout)
        if not slot_busy_first:
            table.busy_since["A.stock5"] = 0  # 7H's slot busy before slot 1 (4D)
        table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))  # 7H left slot 5
        events = table.frame_with({"pile1": "7H"}, hands=(touching(Player.A, "pile1"),),
                                  unsettled=("A.stock1",), carried=True, beneath=frozenset({"4D"}),
                                  taken_before=frozenset({"4D"}) if follows_first else frozenset())
        cards = [(type(e), str(e.card), (e.evidence or {}).get("underneath")) for e in events]
        if slot_busy_first or follows_first:
            assert cards == [(Play, "4D", True), (Play, "7H", ["5D", "4D"])]
        else:
            assert cards == [(Play, "7H", ["5D"])]


def test_a_card_whose_slot_stayed_busy_under_the_arm_was_taken_when_the_fingers_left_it(
        layout: MatLayout) -> None:
    """Game 5460 (both recognitions): A took the 4C and then the 2S in one hand (22.73 and
    22.78 s) onto pile 1, under B's 2H; A's arm lay over the 2S's slot until 23.6 s, so the 2S
    "left" at 23.5 s, after the 4C touched (23.19 s), and the F_TWO_CARDS was missed. A card
    was taken no later than its player's fingers were last at its slot before they reached a
    pile; the cards beneath keep the order of their slots' settles (that of the 2H's race)."""
    table = Table(layout)
    table.idle(30)
    table.busy_since["A.stock1"] = table.frame + 1
    table.idle(3, hands=(hand(Player.A, "A.stock1"),), unsettled=("A.stock1",))
    table.busy_since["A.stock4"] = table.frame + 1
    table.idle(3, hands=(hand(Player.A, "A.stock4"),), unsettled=("A.stock1", "A.stock4"))
    fingers_left = table.frame / FPS  # the last frame the fingers were at slot 4
    arm = (hand(Player.A, "pile1", "A.stock4"),)  # over slot 4, the tip on the pile
    busy = ("A.stock4", "pile1")
    assert table.frame_with({"A.stock1": "empty"}, hands=arm, unsettled=busy, busy_frames=3) == []
    table.idle(6, hands=arm, unsettled=busy)
    both = (*arm, hand(Player.B, "pile1"))
    assert table.frame_with({"B.stock1": "empty"}, hands=both, unsettled=busy, busy_frames=3) == []
    table.idle(3, hands=both, unsettled=busy)
    assert table.frame_with({"A.stock4": "empty"}, hands=(hand(Player.B, "pile1"),), unsettled=("pile1",),
                            busy_frames=2) == []
    quiet = (table.frame - 3) / FPS - LEFT_LAG_S  # when the slot's picture stopped moving
    events = table.frame_with({"pile1": "10C"}, busy_frames=3)
    cards = [(e.player, str(e.card)) for e in events]
    assert cards == [(Player.A, "4D"), (Player.A, "JS"), (Player.B, "10C")]
    assert events[1].start is not None and abs(events[1].start - fingers_left) < 1e-9
    assert events[1].start < events[0].t < quiet  # it began before the 4D touched: one hand, two cards
    # touched a carry after it was taken, and after the 4D beneath it
    assert events[0].t <= events[1].t == min(events[2].t, max(events[0].t, fingers_left + PLAY_CARRY_S))
    assert events[1].t < quiet + PLAY_CARRY_S - 0.1  # (timed from the slot's settle: later)


@pytest.mark.parametrize("fingers", ["at the slot", "never", "too late"])
def test_a_card_followed_beneath_a_carried_top_from_a_slot_only_under_the_arm_did_not_leave(
        layout: MatLayout, fingers: str) -> None:
    """Race-eval seed 6617 with the model: the follows had A's KH land under B's 8H (at quality
    0.01) while A's arm lay over the KH's slot on its way to pile 1, the fingers 53 mm off the
    slot at their nearest: a false play of the KH and its take-back, and a false F_TWO_CARDS
    for the 10H A did play. A card followed from a slot its player's fingers came to did; not
    when they came too late to carry it to the pile before it settled (game 5753, both
    recognitions: B's 2D, followed with the KC carried over its slot, the fingers within reach
    of slot 2 0.03 s before pile 2 settled: a false play, F_ILLEGAL_RANK and take-back)."""
    table = Table(layout)
    tip = layout.zone("A.stock1").center if fingers == "at the slot" else layout.zone("pile1").center
    arm = (HandBlob(Player.A, 20000.0, (80.0, 180.0, 300.0, 420.0), tip, ("A.stock1",), touches=("pile1",)),)
    table.idle(5, hands=arm)
    table.busy_since["A.stock1"] = table.frame - 2  # busier before the 7H's slot than one grab
    table.idle(GRAB_BEFORE_FRAMES, hands=arm, unsettled=("A.stock1",))
    table.frame_with({"A.stock5": "back"}, hands=arm, unsettled=("A.stock1",))  # 7H left slot 5
    at_slot = HandBlob(Player.A, 20000.0, (80.0, 180.0, 300.0, 420.0), layout.zone("A.stock1").center,
                       ("A.stock1",))
    last = arm if fingers != "too late" else (at_slot,)  # the fingers at the slot as the pile settles
    events = table.frame_with({"pile1": "7H"}, before=arm, hands=last, unsettled=("A.stock1",),
                              carried=True, beneath=frozenset({"4D"}), taken_before=frozenset({"4D"}))
    cards = [(type(e), str(e.card), (e.evidence or {}).get("underneath")) for e in events]
    if fingers == "at the slot":
        assert cards == [(Play, "4D", True), (Play, "7H", ["5D", "4D"])]
    else:
        assert cards == [(Play, "7H", ["5D"])]


def test_a_card_already_on_the_pile_found_beneath_a_carried_top_is_not_played_again(
        layout: MatLayout) -> None:
    """Game 5209 with the model: B's QH was played onto pile 1 while its slot, read empty under
    the hand, kept it as its top; when the pile settled by the carry of the next cards, the
    follows found the QH beneath them and it was played a second time (then taken back: a
    false F_TAKE_BACK)."""
    table = Table(layout)
    on_pile = (touching(Player.A, "pile1"),)
    events = table.frame_with({"pile1": "4D"}, hands=on_pile, unsettled=("A.stock1",))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D")]
    assert table.obs.state.tops["A.stock1"] == "4D"  # its slot not settled yet
    table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))  # 7H left slot 5
    events = table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",), carried=True,
                              beneath=frozenset({"4D"}), taken_before=frozenset({"4D"}))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "7H")]


def test_a_card_may_lie_underneath_from_when_its_slot_went_busy_under_a_lingering_arm(
        layout: MatLayout) -> None:
    """Race seed 6041: A's 10D went to pile 2 first, B's 8S on it; A's arm lay over A's slot 4
    until after the pile had settled, so the slot's picture stopped moving only then and the
    10D seemed to have left after the pile settled: it was not taken for the card underneath,
    and was found only when B took the 8S back."""
    table = Table(layout)
    table.frame_with({"A.stock5": "back"}, unsettled=("A.stock1",))  # 7H left slot 5
    table.busy_since["A.stock1"] = table.frame - 5  # slot 1 busy from before: 4D went too
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    assert table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",)) == []
    settled = table.frame / FPS
    table.idle(6, hands=on_pile, unsettled=("A.stock1",))  # the arm stays over slot 1
    events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
    assert [(type(e), e.player, str(e.card), e.pile) for e in events] == [
        (Play, Player.A, "4D", 1), (Play, Player.A, "7H", 1)]
    assert events[0].evidence["underneath"] is True and events[0].start > settled  # seen to leave late


def test_a_play_from_a_slot_not_settled_yet_starts_when_the_slot_went_busy_or_a_carry_before(
        layout: MatLayout) -> None:
    """Game 5029 at 1280x720: A's KD was played while its slot was still under A's hand (it
    settled after the pile): the play had no start, so the rules engine could not see that it
    overlapped A's play onto the other pile (F_TWO_HANDS missed, a false F_ILLEGAL_RANK). It
    left no earlier than its slot went busy, and no earlier than a carry before it touched;
    which hand took it is not known."""
    for busy_frames in (3, 30):
        table = Table(layout)
        over = (hand(Player.A, "A.stock2"), touching(Player.A, "pile1"))
        went_busy = (table.frame + 1) / FPS
        table.idle(busy_frames, hands=over, unsettled=("A.stock2",))
        events = table.frame_with({"pile1": "KD"}, hands=over, unsettled=("A.stock2",))
        assert [(type(e), str(e.card), e.slot) for e in events] == [(Play, "KD", 2)]
        expected = max(went_busy, events[0].t - PLAY_CARRY_S)
        assert events[0].start is not None and abs(events[0].start - expected) < 1e-9, busy_frames
        assert events[0].hand is None
        assert (expected == went_busy) is (busy_frames == 3)


@pytest.mark.parametrize("seen_gone", [True, False])
def test_a_play_whose_slot_read_empty_under_the_hand_then_went_busy_again_starts_in_the_first_spell(
        layout: MatLayout, seen_gone: bool) -> None:
    """Game 5543, both recognitions: B's 6C, taken with the 2C in one hand, its slot busy from
    27.17 s, read empty under the hand at 28.03 and busy again at 28.13 as the hand moved; the
    play's start was taken from that second spell, after its touch, and dropped: the two cards
    in one hand (F_TWO_CARDS) went unseen and the 6C was judged alone (a false F_ILLEGAL_RANK).
    It left in the spell that showed it gone. A slot read as its card under the hand shows no
    such thing: the spell going on stands."""
    table = Table(layout)
    over = (hand(Player.A, "A.stock2"), touching(Player.A, "pile1"))
    went_busy = (table.frame + 1) / FPS
    table.idle(20, hands=over, unsettled=("A.stock2",))
    # the slot settles under the hand: not believed, the hand may hide the card
    shown = "empty" if seen_gone else "KD"
    assert table.frame_with({"A.stock2": shown}, hands=over, hand_over=True, busy_frames=0,
                            confidences={"A.stock2": 0.5}, number_hidden=("A.stock2",)) == []
    again = (table.frame + 1) / FPS
    table.idle(3, hands=over, unsettled=("A.stock2",))  # busy again: the hand moved over it
    events = table.frame_with({"pile1": "KD"}, hands=over, unsettled=("A.stock2",))
    assert [(type(e), str(e.card), e.slot) for e in events] == [(Play, "KD", 2)]
    expected = max(went_busy if seen_gone else again, events[0].t - PLAY_CARRY_S)
    assert events[0].start is not None and abs(events[0].start - expected) < 1e-9
    assert (events[0].start < again) is seen_gone


def test_a_slot_seen_to_lose_its_card_too_late_for_the_carry_gives_the_play_an_earlier_start(
        layout: MatLayout) -> None:
    """Game 5044 at 1280x720: A's arm lay over A's slot 2 while it carried the 7D to pile 1,
    so the slot settled just before the pile: the play's start (when the slot's picture stopped
    moving) came 13 ms before its touch, after B's 9D had touched, and the rules engine saw no
    race (F_ILLEGAL_RANK instead of F_LOST_TOUCH). No hand carries a card that fast: the play
    left no earlier than the slot went busy and no earlier than a carry before the touch. A
    slot that settled in time keeps its start."""
    for frames_between, late in ((0, True), (12, False)):
        table = Table(layout)
        over = (hand(Player.A, "A.stock2", "pile1"),)
        went_busy = (table.frame + 1) / FPS
        table.busy_since["A.stock2"] = table.frame + 1
        # KD left slot 2, the pile busy with it
        table.frame_with({"A.stock2": "back"}, hands=over, busy_frames=24, unsettled=("pile1",))
        left = table.frame / FPS - 3 / FPS - LEFT_LAG_S
        table.idle(frames_between, hands=over, unsettled=("pile1",))
        events = table.frame_with({"pile1": "KD"}, hands=over, busy_frames=0)
        assert [(type(e), str(e.card), e.slot) for e in events] == [(Play, "KD", 2)], frames_between
        touched = events[0].t
        expected = max(went_busy, touched - PLAY_CARRY_S) if late else left
        assert touched - left < MIN_CARRY_S if late else touched - left >= MIN_CARRY_S
        assert events[0].start is not None and abs(events[0].start - expected) < 1e-9, frames_between


def test_a_pile_change_waits_for_a_slot_of_its_player_read_as_a_back_under_the_hand(
        layout: MatLayout) -> None:
    """Game 5030 at 1280x720 with the model: B took 7D and AH in one hand, the 7D's slot busy
    6 frames before the AH's; the 7D's slot read as a back at 0.57 under the hand (not believed
    there), the pile settled with the AH before the slot was read again: the 7D underneath and
    its F_TWO_CARDS were lost. A face-up card's slot showing a back under the hand may have lost
    its card, as one read empty there: waited for."""
    # (a back read less surely than a card on a pile under a hand: race-eval seed 6300 with the
    # model, B's 3S under B's arm read as a back at 0.33; the wait let A's 10D under B's 8D go)
    cases = (("back", 0.57, True), ("6C", 0.57, False), ("back", 0.33, False))
    for seen_under_hand, confidence, waits in cases:
        table = Table(layout)
        table.busy_since["A.stock1"] = 1
        table.busy_since["A.stock5"] = 1 + GRAB_BEFORE_FRAMES + 3  # not grabbed together
        on_pile = (touching(Player.A, "pile1"),)
        assert table.frame_with({"A.stock1": seen_under_hand}, hands=(hand(Player.A, "A.stock1"),),
                                hand_over=True, confidence=confidence, unsettled=("A.stock5",)) == []
        table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock5"))
        events = table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock5",))
        assert (events == []) is waits, seen_under_hand
        if waits:
            events = table.frame_with({"A.stock1": "back"}, busy_frames=1, unsettled=("A.stock5",))
            assert [(type(e), str(e.card)) for e in events] == [(Play, "4D"), (Play, "7H")]
            assert events[0].evidence["underneath"] is True


def test_a_waiting_pile_change_is_given_before_what_may_depend_on_it(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})  # 4D left slot 1
    table.busy_since["A.stock4"] = table.frame - 5  # one hand took JS from slot 4 with it
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock4"))
    assert table.frame_with({"pile1": "4D"}, hands=on_pile, unsettled=("A.stock4",)) == []  # JS may be under
    # JS moved from slot 4 into the emptied slot 1: the play from slot 1 must come first
    events = table.frame_with({"A.stock1": "JS"}, unsettled=("A.stock4",))
    assert [type(e) for e in events] == [Play, Move]
    assert (str(events[0].card), events[1].from_slot, events[1].to_slot) == ("4D", 4, 1)


def test_a_pile_change_waits_no_longer_than_its_limit(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock5": "back"})
    table.busy_since["A.stock1"] = table.frame - 5
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    assert table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",)) == []
    given = []
    for _ in range(int(UNDER_WAIT_S * FPS) + 1):  # slot 1 stays busy: the play is given alone
        given += table.frame_with(unsettled=("A.stock1",))
    assert [(type(e), str(e.card)) for e in given] == [(Play, "7H")]


def test_a_pile_change_does_not_wait_for_an_arm_over_another_slot_of_its_player(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock5": "back"})  # 7H left slot 5
    table.busy_since["A.stock1"] = table.frame + 1  # A's arm came over slot 1 after 7H had gone
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    events = table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "7H")]


def test_a_take_back_does_not_wait_for_a_busy_slot(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})  # 4D left slot 1
    played = table.frame_with({"pile1": "4D"}, hands=(touching(Player.A, "pile1"),))
    assert [str(e.card) for e in played] == ["4D"]
    # A takes 4D back (5D shows again) while the arm lies over slot 2: nothing can lie under 5D
    on = (hand(Player.A, "pile1", "A.stock2"),)
    events = table.frame_with({"pile1": "5D"}, hands=on, unsettled=("A.stock2",))
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "4D")]


def test_a_pile_change_does_not_wait_for_a_slot_that_still_shows_its_card(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock5": "back"})
    on_pile = (touching(Player.A, "pile1"),)
    table.frame_with(hands=on_pile, unsettled=("pile1", "A.stock1"))
    # the arm lies over slot 1, but the part of it that shows is unchanged: 4D is still there
    events = table.frame_with({"pile1": "7H"}, hands=on_pile, unsettled=("A.stock1",), kept=("A.stock1",))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "7H")]


def _look_again(table: Table, readings: dict[str, tuple[str, float, str | None]]) -> list:
    """One frame with nothing settling, in which the zones the observer asks for are read."""
    table.frame += 1
    t = table.frame / FPS
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    tracked = TrackedFrame(table.frame, t, zones, (), ())
    asked = table.obs.rereads(tracked)
    given = {z: ZoneReading(z, lab, conf, table.frame, t, guess=guess)
             for z, (lab, conf, guess) in readings.items() if z in asked}
    return table.obs.update(tracked, given)


def test_a_card_played_onto_an_empty_pile_and_taken_back_is_a_take_back(layout: MatLayout) -> None:
    """Game 5057 at 1280x720, both recognitions: A's QD, played onto pile 2 before the spit
    cards were turned (F_EARLY), was taken back, and the pile, empty again, was taken for a
    pile taken before the round ended: a false F_WRONG_TAKE. A pile that holds a spit card
    emptied under a hand is still taken."""
    table = Table(layout)
    assert [type(e) for e in table.frame_with({"pile2": "empty"}, hands=(hand(Player.B, "pile2"),))] \
        == [TakePile]
    on_pile = (hand(Player.A, "pile2"),)
    table.frame_with({"A.stock2": "empty"})
    played = table.frame_with({"pile2": "KD"}, hands=on_pile)
    assert [(type(e), str(e.card)) for e in played] == [(Play, "KD")]
    events = table.frame_with({"pile2": "empty"}, hands=on_pile)
    assert [(type(e), e.player, e.pile, str(e.card)) for e in events] == [(TakeBack, Player.A, 2, "KD")]
    assert table.frame_with({"A.stock2": "KD"}) == []  # back in its slot
    # a spit card on it, then a play: emptied, the pile was taken
    spitting = (hand(Player.B, "pile2", "B.packet"),)
    assert [type(e) for e in table.frame_with({"pile2": "8S"}, hands=spitting)] == [SpitTurn]
    table.frame_with({"A.stock2": "empty"})
    assert [type(e) for e in table.frame_with({"pile2": "KD"}, hands=on_pile)] == [Play]
    assert [type(e) for e in table.frame_with({"pile2": "empty"}, hands=on_pile)] == [TakePile]


def test_a_card_not_read_surely_is_read_again_and_later_plays_wait_for_it(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"pile1": "empty"}, hands=(hand(Player.A, "pile1"),))
    table.frame_with({"pile2": "empty"}, hands=(hand(Player.B, "pile2"),))
    spit = ZoneReading("pile1", "card", 0.38, 0, 0.0, guess="5S")
    table.frame_with(hands=(touching(Player.A, "A.packet"),))  # A fetches a spit card
    table.frame += 6
    t = table.frame / FPS
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    change = ZoneChange("pile1", table.frame, t, True, False, table.frame - 5, 20.0, False,
                        table.frame - 3, t - 3 / FPS)
    spitting = (hand(Player.A, "pile1", "A.packet"),)
    assert table.obs.update(TrackedFrame(table.frame, t, zones, (change,), spitting),
                            {"pile1": replace(spit, frame=table.frame, time=t)}) == []
    # B's play onto pile 2 settles before pile 1 is read again: it waits behind it
    assert table.frame_with({"B.stock2": "back"}) == []
    assert table.frame_with({"pile2": "QC"}, unsettled=("B.stock4",)) == []
    events = _look_again(table, {"pile1": ("5S", 0.88, None)})
    assert [(type(e), str(e.card)) for e in events] == [(SpitTurn, "5S"), (Play, "QC")]
    assert events[0].player is Player.A and events[0].t < events[1].t


@pytest.mark.parametrize(("guess", "held"), [("KD", False), ("KH", True)])
def test_later_plays_wait_for_a_slot_not_read_surely_only_when_it_may_show_another_card(
        layout: MatLayout, guess: str, held: bool) -> None:
    # A's arm passed over A's slot 2 (KD): read unsurely as KD, nothing changed there; as
    # another card, A may have turned one
    table = Table(layout)
    assert table.frame_with({"A.stock2": "card"}, confidence=0.35, guess=guess) == []
    assert table.frame_with({"B.stock2": "back"}) == []
    events = table.frame_with({"pile2": "QC"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == ([] if held else [(Play, "QC")])


def test_a_card_never_read_surely_is_taken_as_the_card_read_most_often(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"pile1": "empty"}, hands=(hand(Player.A, "pile1"),))
    events = table.frame_with({"pile1": "card"}, hands=(hand(Player.A, "pile1", "A.packet"),),
                              confidence=0.4)
    assert events == [] and table.obs.rereads(TrackedFrame(table.frame, 0.0, {}, (), ())) == []
    found: list = []
    for k in range(40):  # more than REREAD_FOR_S
        found += _look_again(table, {"pile1": ("card", 0.4, "3D" if k % 3 else "3H")})
    assert [(type(e), str(e.card)) for e in found] == [(SpitTurn, "3D")]


@pytest.mark.parametrize("then", ["back in its slot", "guessed as the top", "nowhere"])
def test_a_pile_showing_a_card_never_read_whose_top_shows_in_its_slot_again_was_a_take_back(
        layout: MatLayout, then: str) -> None:
    """Game 5704 with the model: B took the QC back off pile 2 to slot 4, read QC there at 0.54;
    the 10H it uncovered was never read (a face-up card, no guess), the take-back was lost, and
    the QC, played from slot 4 again, was refused. A pile whose card was never read, its top
    believed back in its slot, had its top taken back; not when the pile's card was guessed as
    one like the top, nor with the top nowhere else."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    assert [type(e) for e in table.frame_with({"pile1": "KD"})] == [Play]
    assert table.frame_with({"pile1": "card"}, hands=(hand(Player.A, "pile1"),), confidence=0.89) == []
    if then != "nowhere":
        assert table.frame_with({"A.stock2": "KD"}, confidence=0.54) == []
    found: list = []
    guess = "KH" if then == "guessed as the top" else None
    for _ in range(40):  # more than REREAD_FOR_S
        found += _look_again(table, {"pile1": ("card", 0.89, guess)})
    taken = then == "back in its slot"
    assert [(type(e), e.player, str(e.card)) for e in found] == (
        [(TakeBack, Player.A, "KD")] if taken else [])
    assert (table.obs.state.tops["pile1"] == "5D") is taken


def test_a_card_read_in_a_still_slot_is_not_the_source_of_a_pile_card(layout: MatLayout) -> None:
    # A's slot 1 was read 4D; a 4D on a pile while slot 1 lies still is a spit card (one of
    # the two readings is wrong, and the slot that did not move kept its card)
    table = Table(layout)
    events = table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1", "A.packet"),))
    assert [type(e) for e in events] == [SpitTurn]


def test_a_renamed_card_is_followed_under_its_new_name(layout: MatLayout) -> None:
    # the referee says A's slot 1 holds 3D, not the 4D it was read as
    table = Table(layout)
    table.obs.rename("A.stock1", "4D", "3D")
    assert table.obs.state.tops["A.stock1"] == "3D"
    assert table.frame_with({"A.stock1": "back"}) == []  # it left
    events = table.frame_with({"pile1": "3D"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 1, "3D")]
    # a pile's top, renamed, is what a take-back finds beneath
    table.obs.rename("pile1", "3D", "6D")
    assert table.obs.state.piles[1][-1].card == "6D" and table.obs.state.tops["pile1"] == "6D"
    table.obs.rename("pile1", "KS", "QS")  # not there: nothing changes
    assert [e.card for e in table.obs.state.piles[1]] == ["5D", "6D"]


def test_a_card_read_again_in_its_slot_had_not_left(layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"B.stock4": "empty"}) == []  # misread: the arm's shadow
    assert table.frame_with({"B.stock4": "8S"}) == []  # no turn: it never left
    assert table.frame_with({"B.stock3": "back"}) == []  # 3S left
    events = table.frame_with({"pile2": "3S"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "3S")]  # no 8S underneath


def test_a_slot_read_as_a_card_read_there_before_or_from_nowhere_keeps_its_card(layout: MatLayout) -> None:
    # game 5004 with the model: B's 6D read as 4D and back as B's arm passed; the last time,
    # as B played another card, the 6D was taken to have left, for a card under the pile's top
    table = Table(layout)
    turns = table.frame_with({"B.stock4": "6S"}, runner_up=("8S", 0.4))  # the runner-up: 8S
    assert [(type(e), str(e.card)) for e in turns] == [(Turn, "6S")]  # for the referee to weigh
    table.frame_with({"B.stock4": "8S"}, runner_up=("9S", 0.1))
    assert table.frame_with({"B.stock5": "back"}) == []  # AC left
    table.frame_with({"B.stock4": "6S"}, runner_up=("9S", 0.1))  # read as 6S before
    events = table.frame_with({"pile2": "AC"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "AC")]  # no card underneath
    # a card it was never read as, from nowhere: the same card, misread
    turns = table.frame_with({"B.stock4": "2H"}, runner_up=("3H", 0.1))
    assert [(type(e), str(e.card)) for e in turns] == [(Turn, "2H")]
    assert table.frame_with({"B.stock1": "back"}) == []  # 10C left
    events = table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "10C")]  # no 2H underneath
    # a card moved in from another slot: the card there left (it may lie under a pile)
    assert table.frame_with({"B.stock3": "back"}) == []  # 3S left
    moved = table.frame_with({"B.stock4": "3S"}, runner_up=("9S", 0.1))
    assert [(type(e), e.from_slot, e.to_slot) for e in moved] == [(Move, 3, 4)]
    assert table.frame_with({"B.stock2": "back"}) == []  # QC left
    events = table.frame_with({"pile2": "QC"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "2H"), (Play, "QC")]


def test_a_slot_read_as_a_card_still_in_a_busy_slot_its_own_card_second_is_not_a_move_onto_it(
        layout: MatLayout) -> None:
    """Game 5559 with the model: B's AS read AC at 0.60, the AS second at 0.32, while B's hand
    passed over B's AC in slot 2 (busy, still showing it): taken for a move of the AC onto the
    AS, a false F_BAD_MOVE. The same card misread (its runner-up is the card it showed): a card
    comes from a slot then only when seen leaving it. Another runner-up: a move, as before."""
    for runner_up, moved in (("8S", False), ("9S", True)):
        table = Table(layout)
        events = table.frame_with({"B.stock4": "3S"}, runner_up=(runner_up, 0.32), confidence=0.6,
                                  unsettled=("B.stock3",), hands=(hand(Player.B, "B.stock3"),))
        assert any(isinstance(e, Move) for e in events) is moved, runner_up
        if moved:
            continue
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "3S")]  # for the referee to weigh
        # the 3S still in slot 3, played from there
        assert table.frame_with({"B.stock3": "back"}) == []
        events = table.frame_with({"pile2": "3S"}, hands=(hand(Player.B, "pile2"),))
        assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 3, "3S")]


def test_a_card_read_in_two_places_at_once_lies_where_it_is_read_more_surely(layout: MatLayout) -> None:
    # race-eval seed 6243 with the model: A's 10S, played onto pile 1 and read there at 0.73,
    # was read at 0.57 in the same frame on A's slot 4, whose JS lay under A's arm: a move onto
    # the JS (a false F_BAD_MOVE) and the play lost
    table = Table(layout)
    assert table.frame_with({"A.stock1": "back"}) == []  # 4D left
    events = table.frame_with({"A.stock4": "4D", "pile1": "4D"}, hands=(hand(Player.A, "pile1", "A.stock4"),),
                              confidences={"A.stock4": 0.57, "pile1": 0.73})
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D")]
    # the JS still lies in slot 4: played, it is found there
    assert table.frame_with({"A.stock4": "back"}) == []
    events = table.frame_with({"pile2": "JS"}, hands=(hand(Player.A, "pile2"),))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 4, "JS")]


def test_a_card_taken_for_one_moved_in_and_read_as_before_lets_that_card_go_on(layout: MatLayout) -> None:
    # game 5013: B's 4H read as 5H, just gone from B's slot 2, as if moved onto it; read 4H
    # again (5H its runner-up): the 5H must still be found when it lands on a pile
    table = Table(layout)
    assert table.frame_with({"B.stock2": "back"}) == []  # QC left
    moved = table.frame_with({"B.stock4": "QC"}, runner_up=("9S", 0.3))
    assert [(type(e), str(e.card)) for e in moved] == [(Move, "QC")]
    assert table.frame_with({"B.stock4": "8S"}, runner_up=("QC", 0.5)) == []  # 8S had not left
    events = table.frame_with({"pile2": "QC"}, hands=(hand(Player.B, "pile2"),))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "QC")]


def test_a_pile_card_from_nowhere_whose_runner_up_just_left_a_slot_is_that_card(layout: MatLayout) -> None:
    # game 5004: A's 5C read on the pile as 4C, then 5C, was taken for a 5C underneath and a
    # spit card 4C on it (from A's packet)
    table = Table(layout)
    assert table.frame_with({"A.stock1": "back"}) == []  # 4D left
    events = table.frame_with({"pile1": "3D"}, hands=(touching(Player.A, "pile1", "A.packet"),),
                              runner_up=("4D", 0.6), confidence=0.74)
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D")]
    assert events[0].evidence["underneath"] == ["5D"] and events[0].evidence["runner_up"] == "3D"
    assert table.obs.state.tops["pile1"] == "4D"
    # a runner-up that left no slot: the card read (a spit card), and 4D is underneath
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    events = table.frame_with({"pile1": "3D"}, hands=(touching(Player.A, "pile1", "A.packet"),),
                              runner_up=("4C", 0.6), confidence=0.74)
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D"), (SpitTurn, "3D")]
    # read as the card it showed, with the card that left as the runner-up: that card came
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),), runner_up=("4D", 0.3))
    assert [(type(e), str(e.card)) for e in events] == [(Play, "4D")]
    # ... with another runner-up: nothing new
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})
    assert table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),), runner_up=("6D", 0.3)) == []


def test_a_turn_settled_under_the_still_hand_is_timed_from_the_settle(layout: MatLayout) -> None:
    table = Table(layout)
    events = table.frame_with({"A.stock3": "6C"}, hands=(hand(Player.A, "A.stock3"),), hand_over=True)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (table.frame / FPS - TURN_UNDER_HAND_LAG_S)) < 1e-9
    assert events[0].evidence["under_hand"] is True


def test_a_turn_under_a_hand_that_stays_long_is_timed_from_when_its_slot_went_busy(layout: MatLayout) -> None:
    """The hand that turned the card stays over the slot, moving, and the slot settles a second
    after it went busy: the card landed at most ``TURN_AFTER_BUSY_MAX_S`` after (game 5002 at
    1280x720: B's KS, turned at 7.27 s, settled at 8.01 s)."""
    table = Table(layout)
    events = table.frame_with({"A.stock3": "6C"}, hands=(hand(Player.A, "A.stock3"),), hand_over=True,
                              busy_frames=30)
    went_busy = (table.frame - 30) / FPS
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert events[0].evidence["since_t"] == round(went_busy, 4)
    assert abs(events[0].t - (went_busy + TURN_AFTER_BUSY_MAX_S)) < 1e-9
    assert events[0].t < table.frame / FPS - TURN_UNDER_HAND_LAG_S - 0.4


def test_a_turn_whose_slot_settles_long_after_the_hand_came_is_timed_from_when_it_went_busy(
        layout: MatLayout) -> None:
    """Games 5289 and 5290 with perfect recognition: the hand that turned the card lingered over
    the slot, moving, and left; the slot settled 0.6-0.8 s after it went busy, not under the
    hand, and the turn, timed from when its picture stopped moving, was 0.27 s late. As under
    the hand, the card landed at most ``TURN_AFTER_BUSY_MAX_S`` after; a slot busy briefly is
    timed from its quiet time, as before."""
    for busy_frames in (25, 6):
        table = Table(layout)
        table.idle(30)
        events = table.frame_with({"A.stock3": "6C"}, hands=(hand(Player.A, "A.stock3"),),
                                  busy_frames=busy_frames)
        went_busy, quiet = (table.frame - busy_frames) / FPS, (table.frame - 3) / FPS
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
        assert events[0].evidence.get("under_hand") is None
        expected = min(went_busy + TURN_AFTER_BUSY_MAX_S, quiet - TOUCH_LAG_S["turn"])
        assert abs(events[0].t - expected) < 1e-9, busy_frames
        assert (expected == quiet - TOUCH_LAG_S["turn"]) is (busy_frames == 6)


@pytest.mark.parametrize("first_read", ["empty", "back", "back under the arm", "back, the fingers late",
                                        "empty, then an arm", "back, read unsurely"])
@pytest.mark.parametrize("gap", [0, 5, 12])
def test_a_turn_after_its_slot_settled_under_the_hand_is_timed_from_the_first_spell(
        layout: MatLayout, gap: int, first_read: str) -> None:
    """Game 5323 with the model: A's JD, turned 0.3 s after A's hand came over the slot; the
    slot settled under the hand for 5 frames, read "empty" (the hand over the card), went busy
    again and showed the JD 0.4 s later: timed from the second busy spell, 0.78 s late. Game
    5455 (both recognitions), the same with the slot read as its back under the fingers (A's
    7C, 0.26 s late). A slot busy again within ``TURN_HIDDEN_GAP_FRAMES`` is the same visit of
    the hand, within ``BACK_HIDDEN_GAP_FRAMES`` after a back (game 5455: a pause of 1 frame; game
    5543: B's hand lay still on the 6C's back 5 frames, then turned it: timed from the first spell,
    0.29 s early), within ``TURN_HIDDEN_GAP_FRAMES`` after a back read unsurely (game 5738 with
    the model: A's 9H, read "back" at 0.51 under the hand, busy again 5 frames later: timed from
    the second spell, 0.43 s late); after a longer pause the second spell stands, as it does
    after a back under an arm whose fingers were elsewhere (fixture exchange: B's arm over slot 4
    on its way to pile 2, the hand back to turn the 6D 0.4 s later). The visit begins when the
    fingers came (game 5459: A's arm back over slot 2 at 18.8 s, the fingers there at 19.07 s,
    the 8H turned at 19.57 s; timed from the arm, 0.27 s early). A second spell after a longer pause with no
    fingers at the slot, only an arm over it, is no visit either (game 5504 with the model: A's
    10S, read "empty" at 0.75 under A's arm on its way to the packet, the arm back over the slot
    on its way to pile 1 0.23 s later; timed from that, 0.72 s late)."""
    table = Table(layout)
    table.idle(30)
    over = (hand(Player.A, "A.stock3"),)
    arm = (hand(Player.A, "A.stock3", "pile1"),)  # over the slot, the fingers on the pile
    first_over = arm if first_read == "back under the arm" else over
    late = first_read == "back, the fingers late"  # over the slot as it settled only
    unsure = first_read == "back, read unsurely"
    assert table.frame_with({"A.stock3": first_read.split()[0].strip(",")}, hands=first_over, hand_over=True,
                            busy_frames=15, before=arm if late else None,
                            confidence=0.51 if unsure else 1.0) == []
    first_busy = (table.frame - (0 if late else 15)) / FPS
    then = arm if first_read == "empty, then an arm" else over
    table.idle(gap, hands=then)
    table.busy_since["A.stock3"] = table.frame + 1
    second_busy = (table.frame + 1) / FPS
    events = table.frame_with({"A.stock3": "6C"}, hands=then, busy_frames=20)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    quiet = (table.frame - 3) / FPS - TOUCH_LAG_S["turn"]
    limit = TURN_HIDDEN_GAP_FRAMES if first_read.startswith("empty") or unsure else BACK_HIDDEN_GAP_FRAMES
    same_visit = (gap + 1 <= limit and first_read != "back under the arm") \
        or first_read == "empty, then an arm"
    if gap == 5:  # busy again 6 frames after it settled: game 5543 after a back, 5323 after "empty"
        assert same_visit is (first_read.startswith("empty") or unsure)
    went_busy = first_busy if same_visit else second_busy
    assert abs(events[0].t - min(quiet, went_busy + TURN_AFTER_BUSY_MAX_S)) < 1e-9
    assert late or (events[0].t < quiet - 0.1) is same_visit


def test_a_turn_after_a_play_from_its_busy_slot_is_timed_from_the_hand_coming_back(
        layout: MatLayout) -> None:
    """Game 5458 (both recognitions): A played the KD from slot 4, found on the pile while the
    slot was busy still (the slot showed it), and the hand came back to turn the 2S and stayed
    0.5 s more; the slot settled under the hand 1.4 s after the play and the turn, timed from
    that settle, came 0.55 s late. Now at most ``TURN_AFTER_BUSY_MAX_S`` after the hand's tip
    came back to the slot, as a turn from a back after its slot went busy."""
    table = Table(layout)
    table.idle(30)
    table.busy_since["A.stock1"] = table.frame + 1
    at_slot = (hand(Player.A, "A.stock1"),)
    on_pile = (hand(Player.A, "pile1", "A.stock1"),)  # the arm over the slot, the tip on the pile
    table.idle(10, hands=at_slot, unsettled=("A.stock1",))
    played = table.frame_with({"pile1": "4D"}, hands=on_pile, unsettled=("A.stock1",))
    assert [(type(e), e.player, getattr(e, "slot", None)) for e in played] == [(Play, Player.A, 1)]
    table.idle(5, hands=on_pile, unsettled=("A.stock1",))
    back = (table.frame + 1) / FPS
    events = table.frame_with({"A.stock1": "8H"}, hands=at_slot, hand_over=True, busy_frames=40)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Turn, Player.A, "8H")]
    assert abs(events[0].t - (back + TURN_AFTER_BUSY_MAX_S)) < 1e-9
    assert events[0].t < table.frame / FPS - TURN_UNDER_HAND_LAG_S - 0.5  # (the settle, as before)


@pytest.mark.parametrize("frames_on_pile", [8, 1])
def test_a_turn_whose_slot_went_busy_under_the_arm_of_a_play_is_timed_from_the_fingers_back(
        layout: MatLayout, frames_on_pile: int) -> None:
    """Game 5500 (both recognitions): A played the 6H from slot 2, the slot settled showing the
    back under the arm and went busy again at once, the arm over it while the tip lay on the
    pile; the fingers came back 0.27 s later and turned the 2S. Bounded from the slot going
    busy, the turn was 0.29 s early (games 5491, 5505 and 5509 the same). Bounded from the
    fingers coming back from the pile instead; a tip on the pile for a frame only (the fingers
    touching its edge as they turn the card: game 5500, B's 4S) is no visit to it."""
    table = Table(layout)
    table.idle(30)
    table.busy_since["A.stock1"] = table.frame + 1
    table.idle(3, hands=(hand(Player.A, "A.stock1"),), unsettled=("A.stock1",))
    arm = (hand(Player.A, "pile1", "A.stock1"),)  # over the slot, the tip on the pile
    table.busy_since["pile1"] = table.frame + 1
    table.idle(3, hands=arm, unsettled=("A.stock1", "pile1"))
    assert table.frame_with({"A.stock1": "back"}, hands=arm, hand_over=True, unsettled=("pile1",),
                            busy_frames=1) == []
    went_busy = (table.frame + 1) / FPS
    table.busy_since["A.stock1"] = table.frame + 1
    played = table.frame_with({"pile1": "4D"}, hands=arm, unsettled=("A.stock1",), busy_frames=1)
    assert [(type(e), str(e.card)) for e in played] == [(Play, "4D")]
    at_slot = (hand(Player.A, "A.stock1"),)
    table.idle(frames_on_pile - 1, hands=arm, unsettled=("A.stock1",))
    table.idle(8 - frames_on_pile, hands=at_slot, unsettled=("A.stock1",))
    back = (table.frame + 1) / FPS
    table.idle(20, hands=at_slot, unsettled=("A.stock1",))
    events = table.frame_with({"A.stock1": "8H"}, hands=at_slot, busy_frames=6)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Turn, Player.A, "8H")]
    visited = frames_on_pile > 1
    assert abs(events[0].t - ((back if visited else went_busy) + TURN_AFTER_BUSY_MAX_S)) < 1e-9
    assert events[0].t < (table.frame - 3) / FPS - TOUCH_LAG_S["turn"] - 0.1  # (the settle: later)


def test_a_play_whose_hand_left_the_pile_before_the_pile_went_busy_lay_there_by_then(
        layout: MatLayout) -> None:
    """Game 5457 with perfect recognition: A put the JH on pile 2 while B's slapping hand lay on it; the
    pile stayed settled under the hands, went busy only when B's hand moved, 0.17 s after A's
    hand had gone, and the play, timed from the pile's settle, came 0.41 s late. The card lay
    there when the hand that put it down left the pile; a hand that stays over the busy pile
    times it from the pile, as before."""
    for stays in (False, True):
        table = Table(layout)
        table.idle(30)
        assert table.frame_with({"A.stock1": "back"}, hands=(hand(Player.A, "A.stock1"),)) == []
        table.idle(4, hands=(hand(Player.A, "pile1"), hand(Player.B, "pile1")))
        left = table.frame / FPS
        table.idle(3, hands=(hand(Player.B, "pile1"),))
        over = (hand(Player.A, "pile1"),) if stays else ()
        events = table.frame_with({"pile1": "4D"}, hands=over, busy_frames=8)
        assert [(type(e), e.player, str(e.card)) for e in events] == [(Play, Player.A, "4D")]
        from_pile = (table.frame - 3) / FPS - TOUCH_LAG_S["play"]
        assert abs(events[0].t - (from_pile if stays else left)) < 1e-9, stays
        assert stays or events[0].t < from_pile - 0.1
    # the slot settled only after the hand had left the pile (game 5649 with the model: B's 3H
    # put on pile 1 under A's slapping hand, B's arm back over the slot until after; 0.4 s late):
    # the card was taken when the fingers were last at the slot, and lay on the pile by then too
    table = Table(layout)
    table.idle(30)
    table.idle(4, hands=(hand(Player.A, "A.stock1"),), unsettled=("A.stock1",))
    table.idle(4, hands=(hand(Player.A, "pile1"), hand(Player.B, "pile1")), unsettled=("A.stock1",))
    left = table.frame / FPS
    table.idle(3, hands=(hand(Player.B, "pile1"),), unsettled=("A.stock1",))
    assert table.frame_with({"A.stock1": "back"}, hands=(hand(Player.B, "pile1"),)) == []
    table.idle(5, hands=(hand(Player.B, "pile1"),))
    events = table.frame_with({"pile1": "4D"}, busy_frames=4)
    assert [(type(e), e.player, str(e.card)) for e in events] == [(Play, Player.A, "4D")]
    assert abs(events[0].t - left) < 1e-9


def test_a_card_read_surely_only_after_a_hand_came_back_is_timed_from_the_first_change(
        layout: MatLayout) -> None:
    """Game 5015 at 1280x720: B's 7S, turned at 6.69 s, read 7S at 0.47 when its slot settled
    under the hand (6.77 s); the hand came back over it before it was read again, and it was
    read surely when the slot settled again (7.33 s): the turn is the first change's."""
    table = Table(layout)
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    assert table.frame_with({"A.stock3": "card"}, confidence=0.47, guess="6C", **under) == []
    first = table.frame / FPS
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.85, busy_frames=15, **under)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert events[0].t < first and events[0].evidence["settled_frame"] == round(first * FPS)
    # read surely as another card than guessed, where a back lay: the first change all the same
    # (stop 27: in the 40 evaluation games the card read surely lay there at the first change
    # 17 of 17 times; game 5012 at 960x540, B's 3C guessed 2S at 0.39 came 0.6 s late) ...
    table = Table(layout)
    assert table.frame_with({"A.stock3": "card"}, confidence=0.41, guess="8H", **under) == []
    first = table.frame / FPS
    events = table.frame_with({"A.stock3": "QH"}, confidence=0.95, busy_frames=15, **under)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "QH")] and events[0].t < first
    # ... but not after a face-up card with no guess at all (3 of 3 times the back still lay
    # there at the first), nor after a guess of neither its rank nor its suit made faintly
    # (game 5609 with the model: A's AC guessed JS at 0.06 as the back turned, 0.29 s early);
    # a faint guess of its suit (stop 62: 9 of 9 such guesses at 0.11-0.48 were right) or of
    # its rank is the first change still
    for guess, from_first in ((None, False), ("JS", False), ("9H", True), ("QC", True)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "card"}, confidence=0.06 if guess else 0.47, guess=guess,
                                **under) == []
        first = table.frame / FPS
        events = table.frame_with({"A.stock3": "QH"}, confidence=0.95, busy_frames=15, **under)
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "QH")], guess
        assert (events[0].t < first) is from_first, guess


def test_a_card_guessed_under_the_hand_then_read_clear_of_it_is_timed_as_settled_under_it(
        layout: MatLayout) -> None:
    """Game 5704 with the model: A's 3H guessed AH at 0.4 when its slot settled under the hand,
    then read 3H at 0.68 when the slot settled again clear of it: the reading, not sure enough
    for a slot under a hand, was held as one until the slot was read again, and the turn then
    timed as one clear of the hand, 0.21 s early (B's 8C, 3D and KH the same). A reading taken
    clear of the hand is believed at once, the turn timed from the first change as one settled
    under the hand; one taken under a hand still waits for a surer one."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    for clear in (True, False):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "card"}, confidence=0.4, guess="AH", **under) == []
        first = table.frame / FPS
        again = {} if clear else under
        events = table.frame_with({"A.stock3": "3H"}, confidence=0.68, busy_frames=4, **again)
        if not clear:
            assert events == []
            continue
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "3H")]
        assert abs(events[0].t - (first - TURN_UNDER_HAND_LAG_S)) < 1e-9


def test_a_turn_guessed_then_changed_faintly_and_read_again_is_timed_from_the_first_change(
        layout: MatLayout) -> None:
    """Game 5509 with the model: B's KC, turned at 4.15 s, guessed KS at 0.40 when its slot
    settled (4.5 s), changed faintly twice after (guessed again each time) and was read as KC
    only by looking again after the last change, without another: timed from that last change,
    1.1 s late. As when read surely at a change, the first change's; whether read surely at
    last or given up to its likeliest guess. Not when the first change was not guessed."""
    for sure, guessed in ((True, True), (False, True), (True, False)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "card"}, confidence=0.4, guess="6S" if guessed else None) == []
        first = table.frame
        assert table.frame_with({"A.stock3": "card"}, confidence=0.37, guess="6S", busy_frames=8) == []
        last = table.frame
        zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
        events: list = []
        for _ in range(1 if sure else round(REREAD_FOR_S * FPS) + 1):
            table.frame += 1
            look = ZoneReading("A.stock3", "6C" if sure else "card", 0.9 if sure else 0.4, table.frame,
                               table.frame / FPS, guess=None if sure else "6C")
            events += table.obs.update(TrackedFrame(table.frame, table.frame / FPS, zones, (), ()),
                                       {"A.stock3": look})
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")], (sure, guessed)
        assert events[0].evidence["settled_frame"] == (first if guessed else last), (sure, guessed)


def test_a_later_change_read_again_is_not_replaced_by_an_earlier_one_under_the_hand(
        layout: MatLayout) -> None:
    """Game 5531 with the model: B's slot 2 settled under the hand still a back, read at 0.49
    (not surely: kept for when the hand goes), then changed again as the 5D landed, read
    unsurely (guessed 5D) and read again; when the hand had gone, the slot's first change was
    read again as a face-up card and took the place of the second: the turn, read surely
    later, was timed from the first change under the hand, 0.45 s early. The later change
    stands (the test's 6C for the 5D)."""
    table = Table(layout)
    over = (hand(Player.A, "A.stock3"),)
    assert table.frame_with({"A.stock3": "back"}, confidence=0.49, hands=over, hand_over=True) == []
    under_hand = table.frame / FPS
    assert table.frame_with({"A.stock3": "card"}, confidence=0.35, guess="6C", busy_frames=10) == []
    landed = table.frame / FPS
    # the hand gone, read again, not surely yet
    table.frame += 1
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    look = ZoneReading("A.stock3", "card", 0.37, table.frame, table.frame / FPS, guess="6C")
    tracked = TrackedFrame(table.frame, table.frame / FPS, zones, (), ())
    assert table.obs.update(tracked, {"A.stock3": look}) == []
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.91, busy_frames=3)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert events[0].evidence["settled_frame"] == round(landed * FPS)
    assert events[0].t > under_hand


def test_a_card_guessed_in_two_changes_and_read_surely_after_is_timed_from_the_first(
        layout: MatLayout) -> None:
    """Game 5029 at 1280x720 with the model: A's JS, turned at 7.22 s, guessed JC under the
    hand, the hand came back and it was guessed again, then read JS surely: the turn is the
    first change's (it was timed from the second, 0.49 s late). Not when the first change was
    not guessed as any card."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    # (a faint guess of neither its rank nor its suit too: game 5554 with the model, B's 8C
    # guessed 6S at 0.09 as it landed, 8C at 0.45 after the hand came back, then read surely)
    for first_guess, confidence, from_first in (("6S", 0.41, True), ("9D", 0.09, True), (None, 0.41, False)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "card"}, confidence=confidence, guess=first_guess, **under) == []
        first = table.frame / FPS
        assert table.frame_with({"A.stock3": "card"}, confidence=0.23, guess="6C", busy_frames=10,
                                **under) == []
        second = table.frame / FPS
        events = table.frame_with({"A.stock3": "6C"}, confidence=0.85, busy_frames=10, **under)
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
        assert (events[0].t < first) is from_first and events[0].t < second, first_guess


def test_a_card_guessed_under_the_hand_while_its_slot_is_busy_again_past_the_looks_is_timed_from_the_guess(
        layout: MatLayout) -> None:
    """Game 5963 with the model: B's 2S, guessed 2S at 0.39 under the hand that turned it, its
    slot busy again with B's arm for 1.1 s, then read 2S surely: the looks had ended meanwhile
    (REREAD_FOR_S) and the turn was timed from the second change, 0.6 s late. A guess given up
    while its zone is busy again still times the card that change shows; not another card."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    for card, from_first in (("6C", True), ("9D", False)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "card"}, confidence=0.39, guess="6C", **under) == []
        first = table.frame / FPS
        events = table.frame_with({"A.stock3": card}, confidence=0.85,
                                  busy_frames=int(REREAD_FOR_S * FPS) + 6, **under)
        assert [(type(e), str(e.card)) for e in events] == [(Turn, card)]
        assert (events[0].t < first) is from_first


def test_a_card_guessed_before_the_hands_covered_its_pile_is_timed_from_then(layout: MatLayout) -> None:
    """Slap-eval seed 6164 with the model: A's last card (7D) was guessed rightly but not
    surely under A's lingering hand, then read empty under the slapping hands, and surely only
    when they had gone: it is timed from its first change (it was 0.45 s late)."""
    over_slot = (hand(Player.A, "A.stock5"),)
    table = Table(layout)
    table.frame_with({"A.stock5": "empty"}, hands=over_slot, hand_over=True)  # not believed yet
    assert table.frame_with({"pile1": "card"}, guess="7H", confidence=0.3,
                            hands=(touching(Player.A, "pile1"),)) == []
    first_settled = table.frame / FPS
    slapping = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    assert table.frame_with({"pile1": "empty"}, hands=slapping, before=(), hand_over=True) == []
    events = table.frame_with({"pile1": "7H"})
    assert [(type(e), str(e.card)) for e in events] == [(Play, "7H")]
    assert events[0].t < first_settled
    # guessed as another card, the card read surely came at the last change
    table = Table(layout)
    table.frame_with({"A.stock5": "empty"}, hands=over_slot, hand_over=True)
    table.frame_with({"pile1": "card"}, guess="7D", confidence=0.3, hands=(touching(Player.A, "pile1"),))
    first_settled = table.frame / FPS
    table.frame_with({"pile1": "empty"}, hands=slapping, before=(), hand_over=True)
    events = table.frame_with({"pile1": "7H"})
    assert [(type(e), str(e.card)) for e in events] == [(Play, "7H")]
    assert events[0].t > first_settled



def test_a_pile_read_unsurely_under_racing_hands_then_surely_dates_from_the_first_change(
        layout: MatLayout) -> None:
    """Race-eval seeds 6172 and 6209 with the model: A's and B's cards landed together on a
    pile, read unsurely under the hands (guessed as a third card), then surely as B's card on
    top once A's hand had gone. B's card came with the first change, and A's, which had left
    its slot while A's hand was over the pile then, lies underneath it."""
    table = Table(layout)
    table.frame_with({"A.stock1": "empty", "B.stock2": "back"})  # A's 4D and B's QC left their slots
    both = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    assert table.frame_with({"pile1": "card"}, hands=both, confidence=0.3, guess="KC") == []
    first = table.frame / FPS
    events = table.frame_with({"pile1": "QC"}, hands=(hand(Player.B, "pile1"),), busy_frames=12)
    assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC")]
    assert events[0].evidence["underneath"] is True and events[0].t < events[1].t < first
    # a card already in the pile showing again is a take-back, done when it shows (race-eval
    # seed 6124 with the model: timed from the unsure reading of the pile before, 0.55 s early)
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    assert [str(e.card) for e in table.frame_with({"pile1": "4D"})] == ["4D"]
    assert table.frame_with({"pile1": "card"}, hands=(hand(Player.A, "pile1"),), confidence=0.3,
                            guess="KC") == []
    first = table.frame / FPS
    events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),), busy_frames=12)
    assert [(type(e), str(e.card)) for e in events] == [(TakeBack, "4D")] and events[0].t > first

def test_a_card_read_twice_unsurely_under_a_hand_is_timed_from_the_first_change(layout: MatLayout) -> None:
    """Game 5004 at 1280x720: B's 8C, turned at 5.57 s, read 8C at 0.76 under the hand, again
    at 0.79 under it after the hand moved over the slot again, and surely once the hand had
    gone: the turn is the first change's."""
    table = Table(layout)
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.76, **under) == []
    first = table.frame / FPS
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.79, busy_frames=15, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.9)  # the hand has gone
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (first - TURN_UNDER_HAND_LAG_S)) < 1e-9
    assert events[0].evidence["settled_frame"] == round(first * FPS)
    # read as another card under the hand the second time: that card, from the second change
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.76, **under) == []
    first = table.frame / FPS
    assert table.frame_with({"A.stock3": "8C"}, confidence=0.79, busy_frames=15, **under) == []
    second = table.frame / FPS
    table.idle(8)
    events = table.frame_with({"A.stock3": "8C"}, confidence=0.9)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "8C")]
    assert abs(events[0].t - (second - TURN_UNDER_HAND_LAG_S)) < 1e-9 and second > first + 0.3


def test_a_slot_read_empty_with_its_number_hidden_by_a_hand_beside_its_centre_is_not_believed(
        layout: MatLayout) -> None:
    """Game 5009 at 1280x720: B's hand lay over slot 3 (7S), seen by the tracker only round
    the slot's centre; the slot, read "empty", was taken for a card gone under the pile's new
    top (a false F_TWO_CARDS). Its printed number hidden, the reading waits for the hand to go."""
    beside = (touching(Player.B, "B.stock3"),)
    table = Table(layout)
    assert table.frame_with({"B.stock2": "back"}, hands=beside) == []  # QC left slot 2
    # 3S hidden by the hand
    assert table.frame_with({"B.stock3": "empty"}, hands=beside, number_hidden=("B.stock3",)) == []
    on_pile = (hand(Player.B, "pile1"), *beside)
    events = table.frame_with({"pile1": "QC"}, hands=on_pile)
    for _ in range(round(UNDER_WAIT_S * FPS) + 2):  # it may wait for the slot the hand lies on
        events += table.frame_with(hands=on_pile)
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 2, "QC")]
    table.idle(8)
    assert table.frame_with({"B.stock3": "3S"}) == []  # the hand has gone: 3S never left
    # the slot's number showing beside the hand: it is empty, and its card is under the QC
    table = Table(layout)
    table.frame_with({"B.stock2": "back"}, hands=beside)
    assert table.frame_with({"B.stock3": "empty"}, hands=beside, showing_number=("B.stock3",)) == []
    on_pile = (hand(Player.B, "pile1"), *beside)
    events = table.frame_with({"pile1": "QC"}, hands=on_pile)
    for _ in range(round(UNDER_WAIT_S * FPS) + 2):  # it may wait for the slot the hand lies on
        events += table.frame_with(hands=on_pile)
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 3, "3S"), (Play, 2, "QC")]


@pytest.mark.parametrize("zone", ["B.stock1", "pile1"])
def test_a_zone_read_empty_with_its_label_hidden_and_no_hand_seen_waits_for_a_while(
        layout: MatLayout, zone: str) -> None:
    """Game 5309 with the model: A's pale hand over A's JS passed into the tracker's background;
    the slot, read "empty" (no card found) with its printed number hidden, was taken for the JS
    gone, the card A played with the 7S: four false faults followed. Since stop 62 a spit pile
    too (game 5604 with the model: A's hand slapping pile 1 during play, unseen as the pile
    settled, the pile read "empty" with its printed label hidden: a take-pile, a false
    F_WRONG_TAKE, and the F_EARLY_SLAP lost)."""
    card = START[zone]
    table = Table(layout)
    assert table.frame_with({zone: "empty"}, number_hidden=(zone,)) == []  # no hand seen
    assert table.obs.state.tops[zone] == card  # not believed gone
    hidden = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    looks, believed_at = [], None
    while believed_at is None and table.frame < 3 * FPS:
        table.frame += 1
        t = table.frame / FPS
        tracked = TrackedFrame(table.frame, t, hidden, (), ())
        if zone in table.obs.rereads(tracked):
            looks.append(t)
            empty = ZoneReading(zone, "empty", 0.75, table.frame, t)
            assert table.obs.update(tracked, {zone: empty}) == []
            if table.obs.state.tops[zone] == "empty":
                believed_at = t
        else:
            assert table.obs.update(tracked, {}) == []
    assert believed_at is not None and EMPTY_UNSEEN_MAX_S <= believed_at - looks[0] < EMPTY_UNSEEN_MAX_S + 0.2
    assert all(round((b - a) * FPS) == REREAD_EVERY for a, b in zip(looks, looks[1:], strict=False))
    # the card seen again meanwhile: it never left
    table = Table(layout)
    table.frame_with({zone: "empty"}, number_hidden=(zone,))
    assert table.frame_with({zone: card}) == [] and table.obs.state.tops[zone] == card
    # its label showing: empty at once
    table = Table(layout)
    assert table.frame_with({zone: "empty"}) == [] and table.obs.state.tops[zone] == "empty"


def test_a_slot_read_empty_under_an_arm_the_tracker_saw_only_in_its_box_is_not_believed(
        layout: MatLayout) -> None:
    """Race seed 6083 with the model: B's arm reached over slot 4 (5C) to pile 1; of one
    colour with the card, it was not seen over the slot, only in the hand's box. Read "empty",
    the 5C was taken for B's card on the pile and B's 8C, played from slot 3, for a second card."""
    x, y = layout.zone("B.stock3").center
    reaching = (HandBlob(Player.B, 30000.0, (x - 20, 0.0, x + 150, 220.0), (x + 100, 210.0), ("pile1",),
                         touches=("pile1",)),)
    table = Table(layout)
    assert table.frame_with({"B.stock2": "back"}, hands=reaching) == []  # QC left slot 2
    # 3S under the arm
    assert table.frame_with({"B.stock3": "empty"}, hands=reaching, number_hidden=("B.stock3",)) == []
    still = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    assert "B.stock3" not in table.obs.rereads(TrackedFrame(table.frame + 1, 0.0, still, (), reaching))
    events = table.frame_with({"pile1": "QC"}, hands=reaching)
    for _ in range(round(UNDER_WAIT_S * FPS) + 2):
        events += table.frame_with(hands=reaching)
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 2, "QC")]
    table.idle(8)
    assert table.frame_with({"B.stock3": "3S"}) == []  # the arm has gone: 3S never left


def test_a_pile_top_not_read_under_the_hand_is_the_only_card_that_can_have_come(layout: MatLayout) -> None:
    """Slap-eval seeds 6030 and 6090 with the model: A's last stock card, under A's hand on the
    pile, was read 0.07-0.20 as another card and read surely only when the hands had gone, 1.4
    s later: the round was known over after both players had slapped, and a slap was lost."""
    on_pile = (hand(Player.A, "pile1"),)
    table = Table(layout)
    assert table.frame_with({"A.stock5": "empty"}, hands=(hand(Player.A, "A.stock5"),),
                            showing_number=("A.stock5",)) == []  # 7H left
    events = table.frame_with({"pile1": "card"}, hands=on_pile, hand_over=True, confidence=0.2, guess="8H")
    [play] = [e for e in events if isinstance(e, Play)]
    assert (play.player, play.slot, play.pile, str(play.card)) == (Player.A, 5, 1, "7H")
    assert play.evidence is not None and play.evidence["read_confidence"] == 0.2
    assert "the only card that can have come, from A's slot 5" in str(play.evidence["identity"])
    # two cards left slots: which one lies on top is not known, and the pile is read again
    table = Table(layout)
    table.frame_with({"A.stock5": "empty", "B.stock1": "empty"},
                     hands=(hand(Player.A, "A.stock5"), hand(Player.B, "B.stock1")),
                     showing_number=("A.stock5", "B.stock1"))
    both = (hand(Player.A, "pile1"), hand(Player.B, "pile1"))
    events = table.frame_with({"pile1": "card"}, hands=both, hand_over=True, confidence=0.2, guess="8H")
    assert not [e for e in events if isinstance(e, Play)]
    assert "pile1" in table.obs.rereads(TrackedFrame(table.frame + 5, (table.frame + 5) / FPS, {
        z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}, (), ()))
    # one card seen leaving, but the other player's hand was on the pile too: its card may have
    # come from a slot not seen empty yet (race seed 6045: B's 8D taken for A's 10C on top of it)
    table = Table(layout)
    table.frame_with({"A.stock5": "empty"}, hands=(hand(Player.A, "A.stock5"),), showing_number=("A.stock5",))
    events = table.frame_with({"pile1": "card"}, hands=both, hand_over=True, confidence=0.2, guess="8H")
    assert not [e for e in events if isinstance(e, Play)]


def test_a_slot_the_hand_touched_is_read_again_when_it_no_longer_does_though_its_box_lies_over_it(
        layout: MatLayout) -> None:
    """Slap-eval seed 6080 with perfect recognition: A's slot 5, emptied by A's last play and
    read "empty" under A's hand, was not read again while A's slapping arm (whose box lies over
    the slots it passes) was on the pile; a spit and a false F_TAKE_BACK followed."""
    table = Table(layout)
    assert table.frame_with({"B.stock1": "empty"}, hands=(hand(Player.B, "B.stock1"),), hand_over=True) == []
    x, y = layout.zone("B.stock1").center
    slapping = (HandBlob(Player.B, 30000.0, (x - 40, 0.0, x + 150, 220.0), (x + 100, 210.0), ("pile1",),
                         touches=("pile1",)),)
    still = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    assert table.obs.rereads(TrackedFrame(table.frame + 1, 0.0, still, (), slapping)) == ["B.stock1"]


def test_a_turn_read_under_the_hand_as_its_twin_is_timed_under_the_hand(layout: MatLayout) -> None:
    """Game 5007 at 1280x720: B's AH, turned at 2.74 s, read AD at 0.53 under the hand and
    surely as AH once the hand had gone, 0.5 s later: the same rank and colour, one card. Game
    5552 with the model: B's QC read KC at 0.67 under the hand: turned from a back, a card of
    the same suit or rank is the same card misread too; another is not."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    for first, timed_first in (("6S", True), ("6H", True), ("7C", True), ("KC", True), ("5D", False)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": first}, confidence=0.53, **under) == []
        settled_under = table.frame / FPS
        table.idle(8)
        events = table.frame_with({"A.stock3": "6C"}, confidence=0.9)  # the hand has gone
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
        assert (abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9) is timed_first, first


def test_a_card_read_unsurely_under_the_hand_and_gone_when_it_left_was_turned(layout: MatLayout) -> None:
    """Game 5015 at 960x540: A's 5S, turned and read 0.54 and 0.78 under the hand (a slot
    under a hand needs 0.8), was played before the hand left: the slot, clear again, showed
    nothing. The card read under the hand was there: its turn, then its play."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.6, **under) == []
    settled_under = table.frame / FPS
    events = table.frame_with({"A.stock3": "empty"}, busy_frames=10)  # the hand has gone, and 6C
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    events = table.frame_with({"pile1": "6C"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 3, "6C")]
    # game 5142: B's KD, read 0.71 and 0.79 under the hand, then "empty" under it (the hand
    # over the card, or gone with it), played before the hand left: the same
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.7, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    events = table.frame_with({"A.stock3": "empty"}, busy_frames=10)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    events = table.frame_with({"pile1": "6C"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 3, "6C")]
    # read under the hand less surely than the referee believes any card: nothing
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.45, **under) == []
    assert table.frame_with({"A.stock3": "empty"}, busy_frames=10) == []


def test_a_card_read_under_the_hand_as_the_one_that_just_left_another_slot_was_moved(
        layout: MatLayout) -> None:
    """Game 5014 at 960x540: B's JS, moved from slot 2 to slot 1, read 0.70 under the hand
    (a slot under a hand needs 0.8); the move came only when the hand had gone, after the turn
    in slot 2, which the engine refused."""
    table = Table(layout)
    table.frame_with({"B.stock1": "empty"})
    assert [type(e) for e in table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))] == [Play]
    assert table.frame_with({"B.stock2": "back"}, hands=(hand(Player.B, "B.stock2"),), hand_over=True,
                            confidence=0.94) == []  # QC left slot 2
    events = table.frame_with({"B.stock1": "QC"}, hands=(hand(Player.B, "B.stock1"),), hand_over=True,
                              confidence=0.7)
    assert [(type(e), e.from_slot, e.to_slot, str(e.card)) for e in events] == [(Move, 2, 1, "QC")]
    # another card, read as unsurely under the hand: not believed yet
    table = Table(layout)
    table.frame_with({"B.stock1": "empty"})
    table.frame_with({"pile1": "10C"}, hands=(hand(Player.B, "pile1"),))
    assert table.frame_with({"B.stock1": "QS"}, hands=(hand(Player.B, "B.stock1"),), hand_over=True,
                            confidence=0.7) == []


def test_a_card_read_under_the_hand_as_the_top_of_a_slot_read_empty_under_it_was_moved(
        layout: MatLayout) -> None:
    """Game 5648 with the model: A's QH moved from slot 2 onto slot 1's 3C, read 0.66 there
    under the hand; slot 2, under the hand too, was read "empty" (not believed: the hand may hide
    its card), so no departure was seen, and the QH went back to slot 2 before the hand left:
    both moves and the F_BAD_MOVE were lost. The card on top of another of the player's slots
    read "empty" under the hand was moved; another card is not believed so."""
    for card, moved in (("QC", True), ("QS", False)):
        table = Table(layout)
        over = {"hand_over": True, "number_hidden": ("B.stock2",)}
        assert table.frame_with({"B.stock2": "empty"}, hands=(hand(Player.B, "B.stock2"),), **over) == []
        events = table.frame_with({"B.stock1": card}, hands=(hand(Player.B, "B.stock1"),), hand_over=True,
                                  confidence=0.66)
        assert [(type(e), e.from_slot, e.to_slot, str(e.card)) for e in events] == (
            [(Move, 2, 1, "QC")] if moved else []), card
        if moved:  # and back: the 10C shows again, the QC in slot 2
            assert table.frame_with({"B.stock1": "10C"}) == []
            events = table.frame_with({"B.stock2": "QC"})
            assert [(type(e), e.from_slot, e.to_slot, str(e.card)) for e in events] == [(Move, 1, 2, "QC")]


def test_a_slot_read_unsurely_under_a_hand_stays_a_source(layout: MatLayout) -> None:
    table = Table(layout)
    # slot 1 settles under the hand that lifts 4D, read unsurely: not believed, still busy
    assert table.frame_with({"A.stock1": "back"}, hands=(hand(Player.A, "A.stock1"),), hand_over=True,
                            confidence=0.6) == []
    events = table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 1, "4D")]


def test_a_slot_under_a_hand_is_believed_only_when_read_very_surely(layout: MatLayout) -> None:
    table = Table(layout)
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.7, **under) == []  # a pile would believe 0.7
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.85, **under)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]


def test_a_turn_read_unsurely_under_the_hand_and_surely_after_is_timed_under_the_hand(
        layout: MatLayout) -> None:
    table = Table(layout)
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.6, **under) == []
    settled_under = table.frame / FPS
    table.idle(8)
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.9)  # the hand has gone
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    assert events[0].evidence["read_confidence"] == 0.9 and events[0].evidence["under_hand"] is True
    # read as another card after the hand (neither its rank nor its suit): that card, timed from
    # its own settle
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.6, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "8D"}, confidence=0.9)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "8D")]
    assert events[0].t > settled_under + 0.1 and "under_hand" not in events[0].evidence


@pytest.mark.parametrize("confidence", [1.0, 0.7])
def test_a_back_lifted_under_the_hand_and_landed_in_a_later_spell_is_timed_from_that_spell(
        layout: MatLayout, confidence: float) -> None:
    """Game 5690 (both recognitions): B's slot 2 settled "empty" under the hand as the 2S was
    lifted to be turned, went busy again and settled, still under the hand, with nothing new
    seen (the card landing); read 2S once the hand had gone, the turn was timed from the first
    spell, 0.46 s early. It is timed from the later spell, as a turn settled under the hand
    (the reading, taken clear of it, believed however sure). With no later spell, from the
    first, as before."""
    for later_spell in (True, False):
        table = Table(layout)
        over = (hand(Player.A, "A.stock3"),)
        assert table.frame_with({"A.stock3": "empty"}, hands=over, hand_over=True,
                                number_hidden=("A.stock3",)) == []
        lifted = table.frame
        settled = None
        for busy in (True,) * 4 + (False,) * 3 if later_spell else (False,) * 7:
            table.frame += 1
            zones = {z: ZoneObservation(z, True, z == "A.stock3", not (busy and z == "A.stock3"), 1.0, 0.0)
                     for z in table.zones}
            assert table.obs.update(TrackedFrame(table.frame, table.frame / FPS, zones, (), over), {}) == []
            if settled is None and later_spell and not busy:
                settled = table.frame / FPS
        table.frame += 1  # the hand gone, the slot read again
        zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
        reading = ZoneReading("A.stock3", "6C", confidence, table.frame, table.frame / FPS)
        events = table.obs.update(TrackedFrame(table.frame, table.frame / FPS, zones, (), ()),
                                  {"A.stock3": reading})
        assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
        if settled is None:
            assert events[0].t < lifted / FPS
        else:
            assert abs(events[0].t - (settled - TURN_UNDER_HAND_LAG_S)) < 1e-9


def test_a_card_read_under_the_hand_then_empty_under_it_and_surely_after_is_timed_under_the_hand(
        layout: MatLayout) -> None:
    """Games 5024 and 5033 at 1280x720 with the model: A's 4D and 2H, turned and read 0.70 and
    0.62 under the hand, then "empty" under it (the hand over the card), and surely once the
    hand had gone: 0.7 and 0.8 s late, timed from the sure reading. So with another card read
    between (game 5172), and, since stop 62, for a back's turn first read under the hand as a
    card of its rank or suit (game 5616 with the model: B's KH read JH at 0.54 under the hand,
    then "empty" under it, KH once it had gone: 0.65 s late)."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.7, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.9)  # the hand has gone
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    # another card read surely after: that card, from its own settle; one of the same suit or
    # rank, turned from a back, the card read first (game 5616)
    for after, timed_first in (("8D", False), ("8C", True), ("6H", True)):
        table = Table(layout)
        assert table.frame_with({"A.stock3": "6C"}, confidence=0.7, **under) == []
        settled_under = table.frame / FPS
        assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
        table.idle(8)
        events = table.frame_with({"A.stock3": after}, confidence=0.9)
        assert [(type(e), str(e.card)) for e in events] == [(Turn, after)]
        assert (abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9) is timed_first, after
        assert timed_first or events[0].t > settled_under + 0.1
    # game 5172: read under the hand as the card, then as another (0.57), then surely as the
    # card once the hand had gone: timed from the first (it was 0.85 s late)
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.65, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "QC"}, confidence=0.57, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.9)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    # game 5459 with the model: read under the hand as the card, then "empty" under it, then as
    # the card again under it, and surely once the hand had gone: the first too (1.7 s late)
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.56, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.76, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": "6C"}, confidence=0.74)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    # game 5564 with the model: the same, but the hand went without changing the slot again:
    # read again clear of the hand, the first too (it was timed from the last, 1.7 s late)
    table = Table(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.7, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.77, **under) == []
    table.frame += 1
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    look = ZoneReading("A.stock3", "6C", 0.78, table.frame, table.frame / FPS)
    events = table.obs.update(TrackedFrame(table.frame, table.frame / FPS, zones, (), ()), {"A.stock3": look})
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C")]
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9


@pytest.mark.parametrize(("after", "timed_first"), [("6S", True), ("6C", True), ("8D", False)])
def test_a_card_guessed_under_the_hand_then_empty_under_it_is_timed_from_the_guess(
        layout: MatLayout, after: str, timed_first: bool) -> None:
    """Game 5766 with the model: A's AC, turned under the hand, read only as a face-up card
    (guess AS, 0.44), then "empty" under the hand (the hand over it), then AC at 0.74: timed from
    the last, 0.63 s late. The guess counts as the card read under the hand: the card read
    surely later, it or its twin, is timed from the first change; another card from its own."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    table = Table(layout)
    assert table.frame_with({"A.stock3": "card"}, confidence=0.44, guess="6C", **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    assert table.frame_with({"A.stock3": after}, confidence=0.74, **under) == []
    table.idle(8)
    events = table.frame_with({"A.stock3": after}, confidence=0.9)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, after)]
    assert (abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9) is timed_first
    assert timed_first or events[0].t > settled_under + 0.1


def emptied_slot_1(layout: MatLayout) -> Table:
    """A table where A has played the 4D from slot 1, which lies empty."""
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    assert [type(e) for e in table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))] == [Play]
    return table


def test_a_card_turned_under_the_hand_and_moved_on_before_it_left_was_turned_and_moved(
        layout: MatLayout) -> None:
    """Game 5021 at 1280x720 with the model: A's JC, turned in slot 3 and read 0.66 under the
    hand, moved to the empty slot 2 before the hand left (slot 3 showed its back again), read
    there surely: not a turn in an empty slot (which the engine refuses) but a turn and a move."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    table = emptied_slot_1(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.66, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "back"}) == []
    events = table.frame_with({"A.stock1": "6C"}, confidence=0.84)
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C"), (Move, "6C")]
    assert (events[0].slot, events[1].from_slot, events[1].to_slot) == (3, 3, 1)
    assert abs(events[0].t - (settled_under - TURN_UNDER_HAND_LAG_S)) < 1e-9
    # another card in the empty slot: not the one read under the hand (a turn, as before)
    table = emptied_slot_1(layout)
    assert table.frame_with({"A.stock3": "6C"}, confidence=0.66, **under) == []
    assert table.frame_with({"A.stock3": "back"}) == []
    events = table.frame_with({"A.stock1": "9D"}, confidence=0.84)
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Turn, 1, "9D")]


@pytest.mark.parametrize("read_under", ["6C", "9D"])
def test_a_card_turned_under_the_hand_and_moved_onto_a_face_up_card_was_turned_and_moved(
        layout: MatLayout, read_under: str) -> None:
    """Game 5743 with the model: B's 4D, turned in slot 2 (its last card), read 0.70 under the
    hand, then "empty" under it once moved onto B's QC in slot 5, read 4D there: taken for the
    QC misread (the 4D came from nowhere), the turn refused when given, and the move's
    F_BAD_MOVE missed. Not when the card read under the hand was another: the same card, misread."""
    under = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    table = Table(layout)
    assert table.frame_with({"A.stock3": read_under}, confidence=0.7, **under) == []
    settled_under = table.frame / FPS
    assert table.frame_with({"A.stock3": "empty"}, confidence=0.75, **under) == []
    events = table.frame_with({"A.stock4": "6C"}, confidence=0.88)
    if read_under != "6C":
        assert not any(isinstance(e, Move) for e in events)
        return
    assert [(type(e), str(e.card)) for e in events] == [(Turn, "6C"), (Move, "6C")]
    assert (events[0].slot, events[1].from_slot, events[1].to_slot) == (3, 3, 4)
    assert events[0].t == pytest.approx(settled_under - TURN_UNDER_HAND_LAG_S)


def test_a_card_misread_in_its_slot_and_moved_to_an_empty_slot_is_moved(layout: MatLayout) -> None:
    """Games 5034 and 5039 at 1280x720 with the model: A's JD read KD, A's 2C read 2S, in their
    slots; each moved to an empty slot and read right there. A card that came onto an empty
    slot is not a turn: it came from the one slot of the player whose card just left and was
    read as a card of its rank or suit."""
    for moved_as in ("JC", "QS"):  # A's slot 4 holds JS: the same rank, the same suit
        table = emptied_slot_1(layout)
        assert table.frame_with({"A.stock4": "back"}, hands=(hand(Player.A, "A.stock4"),)) == []
        events = table.frame_with({"A.stock1": moved_as}, confidence=0.8)
        assert [(type(e), e.from_slot, e.to_slot, str(e.card)) for e in events] == [(Move, 4, 1, moved_as)]
        assert events[0].evidence["source_read_as"] == "JS"
    # nothing alike left: a turn, as before (for the engine to refuse)
    table = emptied_slot_1(layout)
    assert table.frame_with({"A.stock4": "back"}, hands=(hand(Player.A, "A.stock4"),)) == []
    assert [type(e) for e in table.frame_with({"A.stock1": "9D"}, confidence=0.8)] == [Turn]
    # two such cards left: which one moved is not known
    table = emptied_slot_1(layout)
    both = {"A.stock4": "back", "A.stock2": "back"}
    assert table.frame_with(both, hands=(hand(Player.A, "A.stock4"),)) == []
    assert [type(e) for e in table.frame_with({"A.stock1": "JD"}, confidence=0.8)] == [Turn]


@pytest.mark.parametrize("taken_back", [False, True])
def test_a_card_moved_to_an_empty_slot_read_as_a_quiet_pile_s_top_is_the_alike_card_that_left(
        layout: MatLayout, taken_back: bool) -> None:
    """Game 5739 with the model: A's 2C, read 2C in slot 4, moved to the empty slot 3 and read
    2S there, the 2S lying on pile 2's top, no hand over that pile: taken for the 2S back in
    a slot, waiting for the pile's take-back that never came; the move was lost, and the 9H
    turned in slot 4 taken for a correction. The pile's top stayed: the reading is the misread
    one, and the card that left, alike, was moved. Not when A's hand was over the pile (a
    take-back, given when the pile's change comes)."""
    table = emptied_slot_1(layout)  # pile 1's top: A's 4D
    table.idle(20)
    if taken_back:
        table.idle(3, hands=(hand(Player.A, "pile1"),))
    assert table.frame_with({"A.stock2": "back"}, hands=(hand(Player.A, "A.stock2"),)) == []  # the KD left
    events = table.frame_with({"A.stock1": "4D"}, confidence=0.8)
    if taken_back:
        assert events == [] and table.obs.state.tops["A.stock1"] == "4D"
        return
    assert [(type(e), e.from_slot, e.to_slot, str(e.card)) for e in events] == [(Move, 2, 1, "KD")]
    assert events[0].evidence["misread_as"] == "4D" and events[0].evidence["source_read_as"] == "KD"
    assert table.obs.state.tops["A.stock1"] == "KD" and table.obs.state.tops["pile1"] == "4D"


def hand_at(player: Player, tip: tuple[float, float], *zones: str) -> HandBlob:
    return HandBlob(player, 20000.0, (0, 0, 10, 10), tip, zones)


def frames_of(table: Table, n: int, hands: tuple[HandBlob, ...]) -> list:
    """``n`` frames with nothing settling and ``hands`` over the mat; every event given."""
    return [ev for _ in range(n) for ev in table.frame_with(hands=hands)]


def clear_again(table: Table, zone: str, as_before: bool, unsettled: tuple[str, ...] = (),
                read: str | None = None, hands: tuple[HandBlob, ...] = ()) -> list:
    """One frame, in which ``zone`` is clear again, looking as before or not (``unsettled``
    zones still busy; ``read``: ``zone`` settles in it, read as that; ``hands`` elsewhere)."""
    table.frame += 1
    t = table.frame / FPS
    zones = {z: ZoneObservation(z, True, z in unsettled, z not in unsettled, 1.0, 0.0, None,
                                as_before if z == zone else None)
             for z in table.zones}
    if read is None:
        return table.obs.update(TrackedFrame(table.frame, t, zones, (), hands), {})
    change = ZoneChange(zone, table.frame, t, True, True, table.frame - 5, 20.0, False, table.frame - 3,
                        t - 3 / FPS, False)
    return table.obs.update(TrackedFrame(table.frame, t, zones, (change,), hands),
                            {zone: ZoneReading(zone, read, 1.0, table.frame, t)})


def test_a_hand_that_lay_still_on_a_pile_during_play_is_an_early_slap(layout: MatLayout) -> None:
    table = Table(layout)
    came = (table.frame + 1) / FPS
    still = round(EARLY_SLAP_STILL_S * FPS)
    assert frames_of(table, still + 10, (hand_at(Player.A, (300.0, 200.0), "pile1"),)) == []
    assert frames_of(table, 3, ()) == []  # gone; the pile not yet clear again
    assert clear_again(table, "pile1", as_before=True) == []  # as it was: nothing put down or taken
    # ... and none of A's slots changed since just before the hand came until a while after
    events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]
    assert events[0].evidence["during_play"] is True and events[0].evidence["still_s"] >= EARLY_SLAP_STILL_S
    assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9
    assert clear_again(table, "pile1", as_before=True) == []  # one slap per visit


@pytest.mark.parametrize("pile_busy_first", [True, False])
def test_a_still_hand_whose_tip_jumps_while_its_pile_stays_settled_is_an_early_slap(
        layout: MatLayout, pile_busy_first: bool) -> None:
    """Game 5801, both recognitions: B's hand lay on pile 2 for 0.55 s during play, its tip (the
    hand's furthest point into the mat) 29 mm aside after 0.3 s while the pile, busy as the hand
    came, stayed settled under it: neither rest lasted ``EARLY_SLAP_STILL_S`` and the F_EARLY_SLAP
    was missed. The pile settled under the hand counts as the hand still. A pile that never went
    busy under the hand (a hand at its edge) does not."""
    table = Table(layout)
    came = (table.frame + 1) / FPS
    rest = round(0.3 * FPS)
    if pile_busy_first:
        assert [ev for _ in range(3) for ev in table.frame_with(
            hands=(hand_at(Player.A, (300.0, 200.0), "pile1"),), unsettled=("pile1",))] == []
    assert frames_of(table, rest, (hand_at(Player.A, (300.0, 200.0), "pile1"),)) == []
    assert frames_of(table, rest, (hand_at(Player.A, (329.0, 198.0), "pile1"),)) == []
    assert frames_of(table, 3, ()) == []
    events = clear_again(table, "pile1", as_before=True)
    events += frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == ([(Slap, Player.A, 1)] if pile_busy_first else [])
    if pile_busy_first:
        assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9
        assert events[0].evidence["still_s"] >= EARLY_SLAP_STILL_S


def test_a_hand_that_carried_a_card_from_a_slot_made_no_slap(layout: MatLayout) -> None:
    table = Table(layout)
    # a card put down and taken back under a still hand, never read: the pile looks as before,
    # but the slot it came from (busy while the hand was out), clear again, does not
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    n = 2 * round(EARLY_SLAP_STILL_S * FPS)
    assert [ev for _ in range(n) for ev in table.frame_with(hands=lingering, unsettled=("A.stock2",))] == []
    assert clear_again(table, "pile1", as_before=True, unsettled=("A.stock2",)) == []
    # the slot still busy after the hand left: the slap waits for it
    assert [ev for _ in range(round(2 * EARLY_SLAP_SLOTS_S * FPS))
            for ev in table.frame_with(unsettled=("A.stock2",))] == []
    assert clear_again(table, "A.stock2", as_before=False) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_slap_beside_a_slot_that_changed_but_shows_its_card_or_its_turned_card_is_a_slap(
        layout: MatLayout) -> None:
    """Game 5024 at 1280x720: B's other hand lay beside B's slot 2 while B slapped pile 2
    during play, and B had just turned 5C in slot 3; both slots' pictures changed, but slot 2
    was read as its AC each time and slot 3 as the 5C turned there: nothing went under the
    hand, and the early slap stands."""
    n = 2 * round(EARLY_SLAP_STILL_S * FPS)
    # (a slot read as empty before and after names no card: the tests' model that reads no card
    # sees a play and its take-back so, and they are no slap)
    cases = (("A.stock2", "KD", True), ("A.stock3", "6C", True), ("A.stock2", "back", False),
             ("A.stock1", "empty", False))
    for slot, read, slaps in cases:
        table = emptied_slot_1(layout) if slot == "A.stock1" else Table(layout)
        lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
        assert [ev for _ in range(n) for ev in table.frame_with(hands=lingering, unsettled=(slot,))] == []
        settled = clear_again(table, slot, as_before=False, read=read, hands=lingering)
        assert [type(e) for e in settled] == ([Turn] if slot == "A.stock3" else []), (slot, read)
        assert frames_of(table, 2, lingering) == []
        events = clear_again(table, "pile1", as_before=True)
        events += frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == ([(Slap, Player.A, 1)] if slaps else []), \
            (slot, read)


def test_a_slap_followed_by_a_move_from_a_slot_is_a_slap(layout: MatLayout) -> None:
    table = Table(layout)
    # game 5009: the hand lay still on the pile, left, and 0.3 s later took a card from a slot
    came = (table.frame + 1) / FPS
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
    events = clear_again(table, "pile1", as_before=True)
    events += [ev for _ in range(9) for ev in table.frame_with(unsettled=("A.stock2",))]
    events += clear_again(table, "A.stock2", as_before=False)
    events += frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]
    assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9


def test_a_slap_followed_by_a_play_onto_its_pile_is_a_slap(layout: MatLayout) -> None:
    """Game 5009: A's hand lay still on pile 1, its arm over slot 3, left, and 0.5 s later
    played onto pile 1 while slot 3 was still busy: once the pile was seen as before, its
    next change is the player's next move, not a card put down under the hand."""
    table = Table(layout)
    came = (table.frame + 1) / FPS
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1", "A.stock3"),)
    assert [ev for _ in range(2 * round(EARLY_SLAP_STILL_S * FPS))
            for ev in table.frame_with(hands=lingering, unsettled=("A.stock3",))] == []
    events = clear_again(table, "pile1", as_before=True, unsettled=("A.stock3",))
    events += [ev for _ in range(9) for ev in table.frame_with(unsettled=("A.stock3",))]
    events += clear_again(table, "pile1", as_before=False, unsettled=("A.stock3",))  # the next play
    events += clear_again(table, "A.stock3", as_before=True)
    events += frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]
    assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9


def test_a_slap_whose_arm_crossed_a_slot_as_it_left_and_a_play_from_it_to_the_other_pile_is_a_slap(
        layout: MatLayout) -> None:
    """Game 5102: A's arm, leaving pile 1 after slapping it, crossed A's slot 3 two frames
    before it was off the pile, and A's next move took the slot's card to pile 2: the slot had
    changed in a spell begun before the hand left, and the early slap was dropped. Its card lies
    on the other pile: it did not go under the hand. To the slapped pile it may have, unless it
    left its slot after the hand had left the pile (game 5211: B's arm, leaving pile 1, came over
    B's slot 4 and took its QH to the pile 0.7 s later; the F_EARLY_SLAP was missed)."""
    for to_pile, idle, slaps in ((2, 9, True), (1, 9, True), (1, 0, False)):
        table = Table(layout)
        lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
        assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
        events = [ev for _ in range(2) for ev in table.frame_with(hands=lingering, unsettled=("A.stock2",))]
        events += clear_again(table, "pile1", as_before=True, unsettled=("A.stock2",))
        events += [ev for _ in range(idle) for ev in table.frame_with(unsettled=("A.stock2",))]
        pile = f"pile{to_pile}"
        # A's KD from slot 2, at once or a while later
        events += table.frame_with({pile: "KD"}, unsettled=("A.stock2",), busy_frames=6 if idle else 1)
        events += clear_again(table, "A.stock2", as_before=False, read="back")
        events += frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.pile) for e in events if isinstance(e, (Slap, Play))] == (
            [(Play, to_pile), (Slap, 1)] if slaps else [(Play, to_pile)]), (to_pile, idle)


def test_a_slap_whose_arm_crossed_a_slot_as_it_left_waits_for_that_card_to_be_explained(
        layout: MatLayout) -> None:
    """Game 5253: B's arm, leaving pile 1 after slapping it, crossed B's slot 4 just before it
    was off the pile and then took the slot's KC to pile 2; the slot settled before pile 2 did,
    the card's play was not explained yet, and the early slap was dropped. The slap waits for a
    card that left after the hand left the pile to be explained: played onto the other pile, it
    is the player's next move. One never explained leaves it dropped, as before."""
    for played in (True, False):
        table = Table(layout)
        lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
        assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
        events = [ev for _ in range(2) for ev in table.frame_with(hands=lingering, unsettled=("A.stock2",))]
        events += clear_again(table, "pile1", as_before=True, unsettled=("A.stock2",))
        busy = ("pile2",) if played else ()
        events += [ev for _ in range(9) for ev in table.frame_with(unsettled=("A.stock2",) + busy)]
        # the slot settles first (A's KD gone), pile 2 a few frames later
        events += clear_again(table, "A.stock2", as_before=False, read="back", unsettled=busy)
        events += [ev for _ in range(4) for ev in table.frame_with(unsettled=busy)]
        if played:
            events += table.frame_with({"pile2": "KD"}, busy_frames=1)
        events += frames_of(table, round(EARLY_SLAP_WAIT_S * FPS), ())
        assert {(type(e), e.pile) for e in events if isinstance(e, (Slap, Play))} == (
            {(Play, 2), (Slap, 1)} if played else set()), played


def test_a_slap_during_play_still_waiting_when_the_video_ends_is_given(layout: MatLayout) -> None:
    """Game 5104: A's hand left pile 2 0.7 s before the video ended, A's arm still over A's
    slot 4; the slap waited for the slot and was never given (its F_EARLY_SLAP missed)."""
    table = Table(layout)
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1", "A.stock2"),)
    assert [ev for _ in range(2 * round(EARLY_SLAP_STILL_S * FPS))
            for ev in table.frame_with(hands=lingering, unsettled=("A.stock2",))] == []
    assert clear_again(table, "pile1", as_before=True, unsettled=("A.stock2",)) == []
    assert [ev for _ in range(9) for ev in table.frame_with(unsettled=("A.stock2",))] == []
    zones = {z: ZoneObservation(z, True, z == "A.stock2", z != "A.stock2", 1.0, 0.0) for z in table.zones}
    events = table.obs.flush(TrackedFrame(table.frame, table.frame / FPS, zones, (), ()))
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]


def test_a_pile_that_looks_different_after_the_hand_left_was_no_slap(layout: MatLayout) -> None:
    table = Table(layout)
    # a card put down under a hand that lingers, and not read (the pile's top stays): the
    # pile's picture has changed all the same
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
    assert clear_again(table, "pile1", as_before=False) == []
    assert clear_again(table, "pile1", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_pile_that_looks_different_after_the_hand_left_but_is_read_as_its_top_was_slapped(
        layout: MatLayout) -> None:
    """Game 5366: B's hand lay still on pile 1 for 0.8 s during play; the pile settled as it
    left with its picture changed, and was read as its AS again: nothing came or went under
    the hand (a card put down would lie on top), and the F_EARLY_SLAP was missed."""
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    for read in ("5D", None):
        table = Table(layout)
        assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
        assert clear_again(table, "pile1", as_before=False, read=read) == []
        events = frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == ([(Slap, Player.A, 1)] if read else []), read


@pytest.mark.parametrize("read_after", ["5D", "6C"])
def test_a_hand_still_on_a_pile_read_unsurely_under_it_slapped_it_if_its_top_is_read_after(
        layout: MatLayout, read_after: str) -> None:
    """Game 5547 with the model: pile 2 settled under B's hand (and A's arm) read unsurely, so
    the hand's rest was never counted, and the F_EARLY_SLAP was missed once it had gone. It
    counts: once the hand has gone the slap waits for the pile to be read, and a card read
    there then (the test's 6C) was a play, no slap."""
    table = Table(layout)
    lingering = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    assert table.frame_with({"pile1": "card"}, confidence=0.3, guess="5D", hands=lingering,
                            hand_over=True, busy_frames=2) == []
    assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), lingering) == []
    assert clear_again(table, "pile1", as_before=read_after == "5D") == []
    table.frame += 1  # read again, surely, the hand gone
    zones = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    again = ZoneReading("pile1", read_after, 0.95, table.frame, table.frame / FPS)
    events = table.obs.update(TrackedFrame(table.frame, table.frame / FPS, zones, (), ()), {"pile1": again})
    events += frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
    slaps = [(e.player, e.pile) for e in events if isinstance(e, Slap)]
    assert slaps == ([(Player.A, 1)] if read_after == "5D" else [])


def test_a_hand_moving_on_a_pile_or_leaving_soon_is_no_slap(layout: MatLayout) -> None:
    table = Table(layout)
    n = round(EARLY_SLAP_STILL_S * FPS)
    # its tip travels on (a hand sliding a card along): never still for long
    moving = [ev for k in range(2 * n)
              for ev in table.frame_with(hands=(hand_at(Player.B, (300.0 + 15.0 * k, 200.0), "pile2"),))]
    assert moving == [] and clear_again(table, "pile2", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []
    # still, but off again before EARLY_SLAP_STILL_S
    assert frames_of(table, n - 3, (hand_at(Player.B, (300.0, 200.0), "pile2"),)) == []
    assert clear_again(table, "pile2", as_before=True) == []
    # an arm merged with the other player's (or a knocked camera's blob of the whole mat)
    merged = replace(hand_at(Player.B, (300.0, 200.0), "pile2"), merged=True)
    assert frames_of(table, 2 * n, (merged,)) == [] and clear_again(table, "pile2", as_before=True) == []


def joined_arms(b_zone: str) -> tuple[HandBlob, HandBlob]:
    """A's and B's parts of one blob of both arms over pile 2, as the tracker splits it (at a
    guess): A's part on the pile, B's over ``b_zone``."""
    return (replace(hand_at(Player.A, (330.0, 240.0), "pile2"), merged=True),
            replace(hand_at(Player.B, (280.0, 225.0), b_zone), merged=True))


def test_a_hand_at_rest_on_a_pile_joined_by_the_other_arm_is_held_there(layout: MatLayout) -> None:
    """Games 5171 and 5199: the other player's arm, passing or reaching its own slot, touched
    the slapping hand for 0.2-0.4 s of its 0.6-0.7 s on the pile; the blob of both arms was
    split at a guess, and the slap, never still long enough between, was missed. A hand at rest
    on the pile is held there while the arms are joined; in 5199 its tip moved the frame before
    they joined (the other's fingers already in its blob)."""
    n = round(EARLY_SLAP_STILL_S * FPS)
    on_pile = hand_at(Player.B, (350.0, 300.0), "pile2")
    a_part, b_part = joined_arms("A.stock4")
    for jump in (False, True):
        table = Table(layout)
        came = (table.frame + 1) / FPS
        events = frames_of(table, n // 2, (on_pile,))
        if jump:
            events += frames_of(table, 1, (replace(on_pile, tip_mm=(370.0, 290.0)),))
        events += frames_of(table, n // 2 + 2, (a_part, b_part))  # joined: B's part off the pile
        events += frames_of(table, 2, (replace(on_pile, tip_mm=(380.0, 260.0)),))  # lifting
        assert events == [] and clear_again(table, "pile2", as_before=True) == []
        events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.B, 2)], jump
        assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9
    # a hand that came onto the pile joined to the other arm is not held: where either ends
    # is a guess
    table = Table(layout)
    assert frames_of(table, 2 * n, (a_part, replace(b_part, zones=("pile2",)))) == []
    assert frames_of(table, 2, (on_pile,)) == [] and clear_again(table, "pile2", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_hand_seen_elsewhere_on_the_pile_as_the_arms_part_lay_there_since_they_joined(
        layout: MatLayout) -> None:
    """Game 5547, both recognitions: B's hand came onto pile 2, its fingers reaching over it
    to A's slots, while A's arm, turning a card there, joined B's in one blob; when the arms
    parted the tip was seen there, far from where it was as the hand came, and taken to have
    moved then: still 0.33 s after that, too short, and the F_EARLY_SLAP was missed. Where the
    hand lies as the arms part it has lain since they joined; a tip that moves on after that
    still moves."""
    n = round(EARLY_SLAP_STILL_S * FPS)
    coming = hand_at(Player.B, (350.0, 240.0), "pile2")
    a_part, b_part = joined_arms("pile2")
    for sliding in (False, True):
        table = Table(layout)
        came = (table.frame + 1) / FPS
        events = frames_of(table, 2, (coming,))
        events += frames_of(table, 3 * n // 4, (a_part, b_part))  # joined
        for k in range(3 * n // 4):  # parted: the fingers over A's slots, still (or sliding on)
            tip = (330.0 + (15.0 * k if sliding else 0.0), 380.0)
            events += table.frame_with(hands=(hand_at(Player.B, tip, "pile2"),))
        assert events == [] and clear_again(table, "pile2", as_before=True) == []
        events = frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == ([] if sliding else [(Slap, Player.B, 2)])
        if not sliding:
            assert abs(events[0].t - (came + SLAP_LEAD_S)) < 1e-9


def test_a_hand_at_rest_on_a_pile_s_edge_stays_on_it(layout: MatLayout) -> None:
    """Game 5168: A's hand on pile 1, its tip still, covered the pile's centre in 2 of its 17
    frames there; in the others it covered a part of the pile only. Still where it came to
    rest, it stays; a hand that never covered the centre did not come."""
    n = round(EARLY_SLAP_STILL_S * FPS)
    covers = replace(hand_at(Player.A, (190.0, 110.0), "A.stock3", "pile1"), touches=("A.stock3", "pile1"))
    edge = replace(covers, zones=("A.stock3",))
    table = Table(layout)
    assert frames_of(table, 2, (covers,)) + frames_of(table, n, (edge,)) == []
    assert frames_of(table, 1, (replace(edge, tip_mm=(240.0, 160.0)),)) == []  # leaving
    assert clear_again(table, "pile1", as_before=True) == []
    events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]
    # its tip moved on: it left the pile
    table = Table(layout)
    assert frames_of(table, 2, (covers,)) == []
    assert frames_of(table, n, (replace(edge, tip_mm=(230.0, 130.0)),)) == []
    assert clear_again(table, "pile1", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []
    # never on the pile's centre
    table = Table(layout)
    assert frames_of(table, 2 * n, (edge,)) == [] and clear_again(table, "pile1", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_hand_whose_tip_flips_between_two_fingertips_lies_still(layout: MatLayout) -> None:
    """Game 5145: B's hand lay on pile 2 for 0.6 s, its tip (the furthest point into the mat)
    flipping 22 mm aside for 0.1 s, between two fingertips: still where it lay. A tip
    away for longer moved on."""
    here = hand_at(Player.A, (300.0, 200.0), "pile1")
    aside = replace(here, tip_mm=(322.0, 200.0))
    part = round(EARLY_SLAP_STILL_S * FPS) // 2
    flips = (part, 3, part, 3, 2)  # frames here, aside, here, aside, here
    table = Table(layout)
    for i, n in enumerate(flips):
        assert frames_of(table, n, (aside if i % 2 else here,)) == []
    assert frames_of(table, 1, (replace(here, tip_mm=(240.0, 260.0)),)) == []  # leaving
    assert clear_again(table, "pile1", as_before=True) == []
    events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.A, 1)]
    # away for longer: it moved, and came back, never still for long enough
    table = Table(layout)
    away = round(EARLY_SLAP_FLIP_S * FPS) + 2
    for i, n in enumerate((part, away, part)):
        assert frames_of(table, n, (aside if i % 2 else here,)) == []
    assert frames_of(table, 1, (replace(here, tip_mm=(240.0, 260.0)),)) == []
    assert clear_again(table, "pile1", as_before=True) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_hand_still_on_a_pile_where_the_other_player_plays_is_a_slap(layout: MatLayout) -> None:
    """Games 5211 and 5162: B's hand lay still on pile 1 during play while A played onto it;
    the card that came under it was A's, not B's: B's slap stays one, and the pile, clear
    again, shows A's card (with the model, read only once B's hand had left)."""
    n = round(EARLY_SLAP_STILL_S * FPS)
    b = hand_at(Player.B, (300.0, 200.0), "pile1")
    leaving = (replace(b, tip_mm=(300.0, 120.0)),)
    for read_late in (False, True):
        table = Table(layout)
        table.frame_with({"A.stock1": "empty"})  # A's 4D left slot 1
        assert frames_of(table, n // 2, (b,)) == []
        if not read_late:
            events = table.frame_with({"pile1": "4D"}, hands=(b, hand(Player.A, "pile1")))
            assert [(type(e), e.player) for e in events] == [(Play, Player.A)]
        assert frames_of(table, n, (b,)) == [] and frames_of(table, 1, leaving) == []
        if read_late:  # clear again, not as before, the card not read surely yet
            assert clear_again(table, "pile1", as_before=False, read="card") == []
            events = table.frame_with({"pile1": "4D"})
            assert [(type(e), e.player) for e in events] == [(Play, Player.A)]
        else:
            assert clear_again(table, "pile1", as_before=False) == []
        events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.B, 1)], read_late
    # the pile, clear again, unlike before and with no card come: no slap
    table = Table(layout)
    assert frames_of(table, 2 * n, (b,)) == [] and frames_of(table, 1, leaving) == []
    assert clear_again(table, "pile1", as_before=False) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []
    # race-eval seed 6002: A's card, then B's on it; B's hand lay on the pile and took B's card
    # back, uncovering A's: a take-back, no slap
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))
    table.frame_with({"B.stock3": "back"})
    assert [type(e) for e in table.frame_with({"pile1": "3S"}, before=(b,))] == [Play]
    assert frames_of(table, 2 * n, (b,)) == []
    assert [type(e) for e in table.frame_with({"pile1": "4D"}, hands=(b,))] == [TakeBack]
    assert frames_of(table, 1, leaving) == [] and clear_again(table, "pile1", as_before=False) == []
    assert frames_of(table, round(2 * EARLY_SLAP_SLOTS_S * FPS), ()) == []


def test_a_hand_still_on_a_pile_where_the_other_player_takes_a_card_back_is_a_slap(
        layout: MatLayout) -> None:
    """Game 5599, both recognitions: A's hand lay still on pile 2 during play while B took the
    4S back from under it (the card that left was B's, and B's hand took it): A's slap stays
    one, and the pile, clear again, shows the card beneath; with the model the take-back was
    read only once A's hand had gone. (A's own take-back stays a take-back: the test above.)"""
    n = round(EARLY_SLAP_STILL_S * FPS)
    b = hand_at(Player.B, (300.0, 200.0), "pile1")
    leaving = (replace(b, tip_mm=(300.0, 120.0)),)
    for read_late in (False, True):
        table = Table(layout)
        table.frame_with({"A.stock2": "back"})
        table.frame_with({"pile1": "KD"}, hands=(hand(Player.A, "pile1"),))  # A's, illegal or not
        assert frames_of(table, n // 2, (b,)) == []
        both = (b, hand(Player.A, "pile1"))
        if not read_late:
            events = table.frame_with({"pile1": "5D"}, hands=both)
            assert [(type(e), e.player) for e in events] == [(TakeBack, Player.A)]
        else:
            assert frames_of(table, 3, both) == []
        assert frames_of(table, n, (b,)) == [] and frames_of(table, 1, leaving) == []
        if read_late:
            events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),))
            assert [(type(e), e.player) for e in events] == [(TakeBack, Player.A)]
        assert clear_again(table, "pile1", as_before=False) == []
        events = frames_of(table, round(EARLY_SLAP_SLOTS_S * FPS), ())
        assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.B, 1)], read_late


def test_a_hand_that_lingered_on_its_own_card_then_took_it_back_did_not_slap(layout: MatLayout) -> None:
    """Race-eval seed 6728, both recognitions: A's hand, seen on pile 1 only once the arms of
    the race had parted, lay still on A's 10H for 0.67 s, moved off the pile's centre (the pile
    as before) and took the 10H back 0.3 s later, as a player who lost the race must: a false
    F_EARLY_SLAP. The other player's card taken back so stays a slap (the test above)."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})  # KD left A's slot 2
    on_pile = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    # put down under arms the tracker cannot part: the hand is first seen as the KD is explained
    assert [type(e) for e in table.frame_with({"pile1": "KD"}, hands=on_pile, before=())] == [Play]
    assert frames_of(table, round(EARLY_SLAP_STILL_S * FPS) + 2, on_pile) == []
    aside = (hand_at(Player.A, (250.0, 200.0), "A.stock2"),)
    assert frames_of(table, 2, aside) == [] and clear_again(table, "pile1", as_before=True, hands=aside) == []
    events = table.frame_with({"pile1": "5D"}, hands=(hand(Player.A, "pile1"),))
    assert [(type(e), e.player) for e in events] == [(TakeBack, Player.A)]
    events = frames_of(table, 2 * round(EARLY_SLAP_SLOTS_S * FPS), ())
    assert not any(isinstance(e, Slap) for e in events)


def test_a_hand_still_on_a_pile_where_its_card_lands_is_a_play_not_a_slap(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})  # 4D left its slot
    on_pile = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    events = table.frame_with({"pile1": "4D"}, hands=on_pile, hand_over=True)  # put down under the hand
    assert [type(e) for e in events] == [Play]
    assert frames_of(table, 2 * round(EARLY_SLAP_STILL_S * FPS), on_pile) == []
    assert clear_again(table, "pile1", as_before=True) == []


def test_a_hand_on_a_pile_after_the_round_ended_is_a_slap_at_once(layout: MatLayout) -> None:
    table = Table(layout)
    table.obs.note_round_over(True)
    events = frames_of(table, 4, (hand_at(Player.B, (300.0, 200.0), "pile2"),))
    assert [(type(e), e.player, e.pile) for e in events] == [(Slap, Player.B, 2)]
    assert "during_play" not in events[0].evidence


def test_the_other_part_of_both_arms_joined_on_a_slapped_pile_slaps_it_too(layout: MatLayout) -> None:
    """Slap-eval seed 6021: A's hand lay under B's on pile 2, and the tracker's split of the
    one blob of both arms gave the pile to B's part; A's part lay on no pile and A's slap, the
    first, was never given."""
    from dataclasses import replace as with_

    table = Table(layout)
    table.obs.note_round_over(True)
    b_part = with_(hand_at(Player.B, (400.0, 200.0), "pile2"), merged=True)
    a_part = with_(hand_at(Player.A, (300.0, 300.0), "A.stock4"), merged=True)
    events = frames_of(table, 6, (a_part, b_part))
    assert sorted((e.player, e.pile, bool(e.evidence.get("joined"))) for e in events) == [
        (Player.A, 2, True), (Player.B, 2, False)]
    # two arms apart, one on a pile: only that one slapped
    table = Table(layout)
    table.obs.note_round_over(True)
    events = frames_of(table, 6, (with_(a_part, merged=False), with_(b_part, merged=False)))
    assert [(e.player, e.pile) for e in events] == [(Player.B, 2)]
    # slap-eval seed 6262: two blobs, the other's arm ending at the slapped pile's edge (the
    # tracker cut its hand off at the wrist and gave it to the blob on the pile): given joined
    pile = layout.zone("pile2")
    edge_y = float(pile.center[1]) + float(pile.size[1]) / 2
    for gap_mm, given in ((15.0, True), (40.0, False)):
        table = Table(layout)
        table.obs.note_round_over(True)
        a_arm = with_(a_part, merged=False, tip_mm=(float(pile.center[0]), edge_y + gap_mm))
        events = frames_of(table, 6, (a_arm, with_(b_part, merged=False)))
        expected = [(Player.A, 2, True), (Player.B, 2, False)] if given else [(Player.B, 2, False)]
        assert sorted((e.player, e.pile, bool(e.evidence.get("joined"))) for e in events) == expected


def test_a_merged_hand_moved_to_the_other_pile_keeps_when_it_first_came(layout: MatLayout) -> None:
    """Slap-eval seed 6795: B's hand, under A's on pile 2, in one blob of both arms; the blob's
    split put B's tip on pile 1 (through A's card just played there) from 0.17 s after B's hand
    came. The slap stays on the pile seen, but says when the hand first came over a pile, for
    the arbiter's background of the hands (from the views before that)."""
    from dataclasses import replace as with_

    def moved(merged: bool) -> list:
        table = Table(layout)
        table.obs.note_round_over(True)
        on = {n: tuple(float(v) for v in layout.zone(f"pile{n}").center) for n in (1, 2)}
        came = table.frame + 1
        events = frames_of(table, 2, (with_(hand_at(Player.B, on[2], "pile1", "pile2"), merged=merged),))
        events += frames_of(table, 5, (with_(hand_at(Player.B, on[1], "pile1", "pile2"), merged=merged),))
        assert [(e.player, e.pile) for e in events] == [(Player.B, 1)]
        assert events[0].t == pytest.approx((came + 2) / FPS + SLAP_LEAD_S)  # seen on pile 1 since
        return [events[0].evidence.get("merged_came_t"), came / FPS]

    came_t, came = moved(merged=True)
    assert came_t == pytest.approx(came, abs=1e-4)
    assert moved(merged=False)[0] is None  # a hand of its own: its tip is where it lies


def test_two_hands_on_the_piles_since_the_last_play_are_both_given_when_the_round_ends(
        layout: MatLayout) -> None:
    """Each a lingering hand, neither was given while it waited for the other's slap."""
    table = Table(layout)
    both = (hand_at(Player.A, (300.0, 200.0), "pile1"), hand_at(Player.B, (310.0, 190.0), "pile1"))
    table.frame_with({"A.stock2": "back"})
    assert len(table.frame_with({"pile1": "KD"}, hands=both)) == 1  # the last card, both hands there
    frames_of(table, 2, both)
    table.obs.note_round_over(True)
    events = frames_of(table, 3, both)
    assert sorted((e.player, e.pile) for e in events) == [(Player.A, 1), (Player.B, 1)]
    assert all(e.evidence["lingering"] is True for e in events)  # for the arbiter to time, or drop


def test_slaps_made_before_the_round_was_known_over_are_given_when_it_is(layout: MatLayout) -> None:
    """Slap-eval seed 6056 with the model: the last card was read surely only 1.4 s after it
    was played, when the slapping hands had come and gone; no slap was ever given."""
    table = Table(layout)
    both = (hand_at(Player.A, (300.0, 200.0), "pile1"), hand_at(Player.B, (310.0, 190.0), "pile1"))
    came = table.frame + 1
    assert frames_of(table, 5, both) == []  # the round not known over yet
    frames_of(table, 10, ())  # the hands gone
    table.obs.note_round_over(True)
    events = frames_of(table, 1, ())
    assert sorted((e.player, e.pile) for e in events) == [(Player.A, 1), (Player.B, 1)]
    assert all(e.evidence["before_known"] is True for e in events)
    assert all(e.t == pytest.approx(came / FPS + SLAP_LEAD_S) for e in events)
    assert frames_of(table, 5, both) == []  # once: one slap a player a round
    # a hand that only passed over a pile (one frame) made no slap
    table = Table(layout)
    frames_of(table, 1, both[:1])
    frames_of(table, 10, ())
    table.obs.note_round_over(True)
    assert frames_of(table, 1, ()) == []
    # nor the hand that put the last card down and stayed a while before it left
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    assert len(table.frame_with({"pile1": "KD"}, hands=both[:1])) == 1
    frames_of(table, 10, both[:1])
    frames_of(table, 5, ())
    table.obs.note_round_over(True)
    assert frames_of(table, 1, ()) == []


def test_a_slap_before_the_round_was_known_over_counts_from_the_last_play_as_the_referee_timed_it(
        layout: MatLayout) -> None:
    """Model seed 6056: the last card was read only under B's slapping hand, and given 0.5 s
    late; B's hand, which came before that, was taken for one lingering since before the play.
    The referee timed the play from its card's carry, before B's hand came: the slap is B's."""
    for retimed in (False, True):
        table = Table(layout)
        b_hand = (hand_at(Player.B, (310.0, 190.0), "pile1"),)
        table.frame_with({"A.stock2": "back"})  # KD left A's slot
        came = table.frame + 1
        assert frames_of(table, 12, b_hand) == []
        plays = table.frame_with({"pile1": "KD"}, hands=b_hand, busy_frames=1)
        assert [str(e.card) for e in plays] == ["KD"] and plays[0].t > came / FPS
        if retimed:
            table.obs.retimed_play(plays[0].frame, "KD", came / FPS - 0.5)
        frames_of(table, 5, ())  # the hand gone
        table.obs.note_round_over(True)
        events = frames_of(table, 1, ())
        assert [(type(e), e.player) for e in events] == ([(Slap, Player.B)] if retimed else [])


def test_a_player_s_hand_gives_one_slap_a_round(layout: MatLayout) -> None:
    """Slap-eval seed 7013: B's slap was seen on pile 1 (and put on pile 2 by the arbiter);
    B's hand, lying on pile 2 a moment later, was given as a second slap."""
    table = Table(layout)
    table.obs.note_round_over(True)
    events = frames_of(table, 4, (hand_at(Player.B, (200.0, 200.0), "pile1"),))
    assert [(e.player, e.pile) for e in events] == [(Player.B, 1)]
    assert frames_of(table, 10, (hand_at(Player.B, (400.0, 200.0), "pile2"),)) == []
    # the other player's slap is still given
    events = frames_of(table, 6, (hand_at(Player.A, (400.0, 200.0), "pile2"),))
    assert [(e.player, e.pile) for e in events] == [(Player.A, 2)]


def test_a_hand_on_the_pile_since_the_round_ended_is_given_when_the_other_player_slaps(
        layout: MatLayout) -> None:
    """Slap-eval seeds 6010 and 6017: A played the last card onto pile 1 and slapped it from
    there, never leaving. Its hand is not a slap while it lies there alone; when B slaps, it is
    given too, marked, for the arbiter to time by its arm (or to drop)."""
    table = Table(layout)
    a_hand = (hand_at(Player.A, (300.0, 200.0), "pile1"),)
    table.frame_with({"A.stock2": "back"})
    assert len(table.frame_with({"pile1": "KD"}, hands=a_hand)) == 1  # the last card, the hand stays
    frames_of(table, 2, a_hand)
    table.obs.note_round_over(True)
    assert frames_of(table, 10, a_hand) == []  # lingering, alone
    both = a_hand + (hand_at(Player.B, (310.0, 190.0), "pile1"),)
    events = frames_of(table, 6, both)
    assert [(e.player, e.pile) for e in events] == [(Player.B, 1), (Player.A, 1)]
    b_slap, a_slap = events
    assert a_slap.evidence["lingering"] is True and "lingering" not in b_slap.evidence
    assert a_slap.t == b_slap.t  # no time of its own: the arbiter gives it one
    assert frames_of(table, 6, both) == []  # once


def test_a_hand_that_came_on_a_pile_after_the_last_play_is_slapping_from_when_it_came(
        layout: MatLayout) -> None:
    """Slap-eval seed 6005: A's hand hovered over the last play's pile, so the round was known
    over only 0.6 s after A had slapped the other pile; its hand there is no lingering hand."""
    table = Table(layout)
    table.frame_with({"A.stock2": "back"})
    assert len(table.frame_with({"pile1": "KD"}, hands=(hand_at(Player.A, (300.0, 200.0), "pile1"),))) == 1
    came = table.frame + 1
    on_pile2 = (hand_at(Player.A, (400.0, 200.0), "pile2"),)
    assert frames_of(table, 15, on_pile2) == []  # the round not known over yet
    table.obs.note_round_over(True)
    events = frames_of(table, 1, on_pile2)
    assert [(e.player, e.pile) for e in events] == [(Player.A, 2)]
    assert events[0].t == pytest.approx(came / FPS + SLAP_LEAD_S)


def test_a_pile_waits_for_the_other_players_busy_slot_though_a_card_left_already(layout: MatLayout) -> None:
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})  # A's 4D left: it may lie under whatever lands
    both = (hand(Player.A, "pile1", "A.stock2"), hand(Player.B, "pile1", "B.stock2"))
    table.idle(6, unsettled=("A.stock2", "B.stock2"))  # the hands came for KD and QC
    # pile 1 settles showing A's KD (its slot still busy) while B's slot 2 is busy too, B's hand
    # on the pile: B's QC may have gone between
    assert table.frame_with({"pile1": "KD"}, hands=both, unsettled=("A.stock2", "B.stock2")) == []
    events = table.frame_with({"B.stock2": "back"}, unsettled=("A.stock2",), busy_frames=1, before=both)
    assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC"), (Player.A, "KD")]
    assert [e.evidence["underneath"] is True for e in events] == [True, True, False]


def test_a_pile_settled_by_its_carry_waits_on_when_it_settles_again_clear_of_the_hand(
        layout: MatLayout) -> None:
    """A pile settled early by a carried landing (KD lies still under the moving hand) waits
    for B's busy slot as usual; its second settle, showing the same top once the hand has gone,
    neither releases it nor gives anything, and B's QC, whose slot settles later still, lies
    underneath: it left its slot before the pile settled the second time."""
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})  # A's 4D left: it may lie under whatever lands
    both = (hand(Player.A, "pile1", "A.stock2"), hand(Player.B, "pile1", "B.stock2"))
    busy = ("A.stock2", "B.stock2")
    table.idle(6, unsettled=busy)  # the hands came for KD and QC
    assert table.frame_with({"pile1": "KD"}, hands=both, unsettled=busy, carried=True) == []
    carried_t = table.frame / FPS
    assert table.frame_with({"pile1": "KD"}, hands=both, unsettled=busy) == []  # the same top again
    events = table.frame_with({"B.stock2": "back"}, unsettled=("A.stock2",), busy_frames=1, before=both)
    assert [(e.player, str(e.card)) for e in events] == [(Player.A, "4D"), (Player.B, "QC"), (Player.A, "KD")]
    assert [e.evidence["underneath"] is True for e in events] == [True, True, False]
    assert events[1].start is not None and events[1].start > carried_t  # QC left after the first settle
    assert events[2].evidence["settled_by"] == "carry"


def test_a_card_seen_on_a_pile_settled_by_a_carry_is_not_taken_for_one_under_the_other(
        layout: MatLayout) -> None:
    """Game 5016: A's two hands put 4D on pile 1 and JS on pile 2 while B's 10C lands on 4D.
    Pile 1, settled by 10C's carry with 4D followed onto it, waits for pile 2 (A's hand is
    there too); pile 2's change, explained first, must not take 4D for a card under JS."""
    table = Table(layout)
    table.frame_with({"A.stock1": "back"})  # 4D left
    table.frame_with({"B.stock1": "back"})  # 10C left
    hands = (hand(Player.A, "pile1"), hand(Player.A, "pile2"), hand(Player.B, "pile1"))
    assert table.frame_with({"pile1": "10C"}, hands=hands, unsettled=("pile2", "A.stock4"), carried=True,
                            beneath=frozenset({"4D"})) == []  # waits for pile 2
    events = table.frame_with({"pile2": "JS"}, hands=hands, unsettled=("A.stock4",))
    assert sorted((e.pile, str(e.card)) for e in events) == [(1, "10C"), (1, "4D"), (2, "JS")]


def test_a_card_followed_under_a_pile_settled_by_its_carry_needs_no_wait_for_its_slot(
        layout: MatLayout) -> None:
    """Race seed 6060: B's 8H, followed from its slot, lies still on pile 1 with A's 10C
    followed there first, while A's arm lies back over A's slots. The pile need not wait for
    A's slot to settle (0.23 s): the follows say 10C left it and lies underneath. When A's
    slot settles later, its departure is already explained."""
    table = Table(layout)
    both = (hand(Player.A, "pile1", "A.stock1", "A.stock2"), hand(Player.B, "pile1", "B.stock2"))
    busy = ("A.stock1", "A.stock2", "B.stock2")
    events = table.frame_with({"pile1": "QC"}, hands=both, unsettled=busy, carried=True,
                              beneath=frozenset({"4D"}))
    assert [(e.player, getattr(e, "slot", None), str(e.card), e.evidence["underneath"] is True)
            for e in events] == [(Player.A, 1, "4D", True), (Player.B, 2, "QC", False)]
    assert events[0].t < events[1].t
    assert table.frame_with({"A.stock1": "back"}, unsettled=("A.stock2", "B.stock2"), busy_frames=1) == []
    assert table.frame_with({"B.stock2": "back"}, unsettled=("A.stock2",), busy_frames=1) == []
    # not settled by a carry (nothing followed beneath): the pile waits for A's slots
    table = Table(layout)
    assert table.frame_with({"pile1": "QC"}, hands=both, unsettled=busy) == []


def test_a_second_card_of_the_top_s_own_hand_is_waited_for_wherever_the_follows_place_it(
        layout: MatLayout) -> None:
    """The follows' places are not trusted for the slots of the player who put the top down: a
    card found on the pile may be in the same hand above it (game 5009), and in game 5014 at
    1280x720 (B's AD put under 3D by the hand that held both) the wait for B's slot whose card
    the follows placed elsewhere is what let AD's departure come before the pile was explained.
    That player's busy slot grabbed with the top's is waited for either way; a card found beneath
    is then taken from the slot's departure."""
    for where in ("beneath", "elsewhere"):
        table = Table(layout)
        on = (hand(Player.A, "pile1", "A.stock1", "A.stock2"),)
        grabbing = (hand(Player.A, "A.stock1", "A.stock2"),)  # the fingers on slot 1
        table.busy_since["A.stock1"] = table.frame + 1  # one hand took KD and 4D
        assert table.frame_with({"A.stock2": "back"}, hands=on, before=grabbing,
                                unsettled=("A.stock1", "pile1")) == []
        assert table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock1",), carried=True,
                                **{where: frozenset({"4D"})}) == []  # type: ignore[arg-type]
        events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
        assert [str(e.card) for e in events] == (["4D", "KD"] if where == "beneath" else ["KD"])


def _busy_frame(table: Table, busy: dict[str, int]) -> TrackedFrame:
    """The table's next frame with ``busy`` zones busy since the frames given."""
    t = (table.frame + 1) / FPS
    zones = {z: ZoneObservation(z, True, z in busy, z not in busy, 1.0, 0.0, busy_since=busy.get(z))
             for z in table.zones}
    return TrackedFrame(table.frame + 1, t, zones, (), ())


def test_a_carry_from_a_slot_read_empty_under_the_hand_is_timed_from_when_the_hand_came(
        layout: MatLayout) -> None:
    """Game 5123 with the model: A's 5S's slot settled under A's arm, read "empty" (not believed:
    the hand may hide the card), so the 5S's departure was not known when the follow had it land
    on pile 1; with no time for the hand's coming, any busy slot of A's (9S's, taken by that hand
    earlier) held the pile back, the carry was not used, and the 9S beneath it was lost. The
    slot's change under the hand tells when the hand came."""
    for apart in (GRAB_TOGETHER_FRAMES + 3, GRAB_TOGETHER_FRAMES - 1):
        table = Table(layout)
        came = table.frame + 1
        table.busy_since["A.stock2"] = came
        assert table.frame_with({"A.stock2": "empty"}, hands=(hand(Player.A, "A.stock2"),),
                                number_hidden=("A.stock2",)) == []
        assert "A.stock2" in table.obs._under_hand  # not believed: no departure
        busy = _busy_frame(table, {"A.stock1": came + apart, "pile1": table.frame})
        assert table.obs.may_settle_by_carry("A.stock2", "KD", busy) == (apart > GRAB_TOGETHER_FRAMES)


def test_a_pile_settles_by_a_carry_only_when_no_other_card_is_unaccounted_for(layout: MatLayout) -> None:
    table = Table(layout)
    k = table.frame
    # A took KD from slot 2 alone: nothing else in flight
    alone = {"A.stock2": k, "pile1": k + 9}
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, alone))
    # ... while A's slot 1 went busy 2 frames after it (one hand took 4D too): it may land on top
    both = {"A.stock2": k, "A.stock1": k + GRAB_TOGETHER_FRAMES - 1, "pile1": k + 9}
    assert not table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, both))
    # ... unless the follows place its card, 4D, elsewhere (moving in the hand, above the pile
    # too, or last seen on the other pile); beneath (last seen still on this pile) is not
    # enough: the hand may hide it
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, both), elsewhere={"4D"})
    assert not table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, both), beneath={"4D"})
    # ... an arm lying over A's slot 1 from long after does not count
    late = {**both, "A.stock1": k + GRAB_TOGETHER_FRAMES + 5}
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, late))
    # ... also when KD's slot settles in this very frame (game 5009): its change tells when the
    # hand came; not known when, any busy slot of A's may hold a card of that hand
    settling = _busy_frame(table, {"A.stock1": late["A.stock1"], "pile1": k + 9})
    slot_change = ZoneChange("A.stock2", settling.frame, settling.time, True, True, k, 30.0)
    assert table.obs.may_settle_by_carry("A.stock2", "KD", replace(settling, changes=(slot_change,)))
    assert not table.obs.may_settle_by_carry("A.stock2", "KD", settling)
    # a card that left B's slot 1 and has landed nowhere yet: it may lie under, or go on top
    table.frame_with({"B.stock1": "empty"})
    assert not table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, {"A.stock2": table.frame}))
    # ... unless the follows place it: last seen on the pile (it touched first, and lies
    # underneath), or elsewhere
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, {"A.stock2": table.frame}),
                                         beneath={"10C"})
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, {"A.stock2": table.frame}),
                                         elsewhere={"10C"})
    assert table.frame_with({"pile2": "10C"}, hands=(hand(Player.B, "pile2"),))  # 10C landed: accounted for
    assert table.obs.may_settle_by_carry("A.stock2", "KD", _busy_frame(table, {"A.stock2": table.frame}))
    assert not table.obs.may_settle_by_carry("pile1", "KD", _busy_frame(table, {}))  # not a slot


@pytest.mark.parametrize("apart", [1, 7, 10])
def test_a_pile_waits_for_a_slot_grabbed_with_its_new_top_by_one_hand(layout: MatLayout, apart: int) -> None:
    """Both slots go busy together when ``apart`` is 1 frame; slot 1 goes busy 7 frames before
    slot 2 when the hand came over it first (game 5585, both recognitions: B's AC, 7 frames
    before the 5S's, lost under it with its F_TWO_CARDS); 10 frames before: another grab."""
    table = Table(layout)
    table.frame_with({"B.stock2": "back"})  # B's QC left: it may lie under what lands next
    on = (hand(Player.A, "pile1", "A.stock1", "A.stock2"), hand(Player.B, "pile1"))
    grabbing = (hand(Player.A, "A.stock1", "A.stock2"), hand(Player.B, "pile1"))  # A's fingers on slot 1
    # A's hand takes KD from slot 2 and, with it, 4D from slot 1
    grabbed = table.frame + 2  # when slot 2's busy spell begins (5 frames before it settles)
    table.busy_since["A.stock1"] = grabbed - apart
    assert table.frame_with({"A.stock2": "back"}, hands=on, before=grabbing,
                            unsettled=("A.stock1", "pile1")) == []
    events = table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock1",))
    if apart > GRAB_BEFORE_FRAMES:  # not one grab: the new top's player is not waited for
        assert [(e.player, str(e.card)) for e in events] == [(Player.B, "QC"), (Player.A, "KD")]
        return
    assert events == []  # 4D may lie under KD
    events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
    assert [(e.player, str(e.card), e.evidence["underneath"] is True) for e in events] == [
        (Player.B, "QC", True), (Player.A, "4D", True), (Player.A, "KD", False)]


def test_a_pile_settled_by_its_carry_does_not_wait_for_a_slot_whose_card_it_holds_beneath(
        layout: MatLayout) -> None:
    """Game 5567, both recognitions: B took the AC and the AH in one hand, the AC's slot busy 6
    frames before the AH's; pile 2 settled by the AH's carry with the AC followed beneath it,
    yet waited 0.1 s for the AC's slot to settle. The follows saw that card leave first and
    place it beneath: known (one seen leaving after may be in the hand above, as before)."""
    for followed in (True, False):
        table = Table(layout)
        on = (hand(Player.A, "pile1", "A.stock1", "A.stock2"),)
        grabbing = (hand(Player.A, "A.stock1", "A.stock2"),)
        table.busy_since["A.stock1"] = table.frame + 2 - 6
        assert table.frame_with({"A.stock2": "back"}, hands=on, before=grabbing,
                                unsettled=("A.stock1", "pile1")) == []
        beneath = frozenset({"4D"}) if followed else frozenset()
        events = table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock1",), carried=True,
                                  beneath=beneath, taken_before=beneath)
        if not followed:
            assert events == []  # the 4D may lie under the KD: its slot is waited for
            events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
        assert [(str(e.card), e.evidence["underneath"] is True) for e in events] == [
            ("4D", True), ("KD", False)], followed


@pytest.mark.parametrize("seen", ["arm", "fingers", "near", "lost"])
def test_a_pile_does_not_wait_for_a_slot_that_lay_only_under_its_player_s_arm(layout: MatLayout,
                                                                             seen: str) -> None:
    """Race-eval seed 6581 with the model: pile 2's race waited 0.53 s for A's slot 4, under the
    arm A reached pile 2 with, its tip 96 mm off the slot at its nearest (the slot read as a
    back under the arm). A slot under the arm only, never under the fingers, kept its card; one
    the fingers came near, or in a frame where the player's hand was not seen, may have lost it,
    and is waited for."""
    table = Table(layout)
    table.frame_with({"B.stock2": "back"})  # B's QC left: it may lie under what lands next
    slot1, slot2 = layout.zone("A.stock1"), layout.zone("A.stock2")
    x0, y0 = slot1.polygon().min(axis=0)
    tip = {"arm": slot2.center, "fingers": slot1.center, "lost": slot2.center,
           "near": (float(x0) - SLOT_REACH_MM + 2.0, float(y0) + 10.0)}[seen]  # 18 mm off slot 1
    # A's hand takes KD from slot 2, A's arm over slot 1 from the frame slot 2 went busy
    grabbing = HandBlob(Player.A, 20000.0, (80.0, 300.0, 260.0, 420.0), tip, ("A.stock1", "A.stock2"))
    on = (hand(Player.A, "pile1", "A.stock1"), hand(Player.B, "pile1"))
    table.busy_since["A.stock1"] = table.frame + 2
    if seen == "lost":  # a frame with no hand of A seen while slot 1 is busy
        table.frame_with(hands=(hand(Player.B, "pile1"),), unsettled=("A.stock1",))
        table.busy_since["A.stock1"] -= 1
    assert table.frame_with({"A.stock2": "back"}, hands=on, before=(grabbing, hand(Player.B, "pile1")),
                            unsettled=("A.stock1", "pile1")) == []
    events = table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock1",))
    if seen == "arm":
        assert [(e.player, str(e.card)) for e in events] == [(Player.B, "QC"), (Player.A, "KD")]
        return
    assert events == []  # 4D may lie under KD
    events = table.frame_with({"A.stock1": "back"}, busy_frames=1)
    assert [(e.player, str(e.card)) for e in events] == [(Player.B, "QC"), (Player.A, "4D"), (Player.A, "KD")]


def test_a_slot_the_fingers_reach_only_after_the_pile_settled_is_not_waited_for(layout: MatLayout) -> None:
    """Game 5370 with perfect recognition: pile 1 (A's spit card) waited for pile 2; A's fingers
    reached slot 4, under A's arm until then, two frames after pile 1 settled, and the pile then
    waited for the slot: A's 2H, which left it then for the other pile, was taken for a card
    beneath the spit card (a false F_ILLEGAL_RANK, a race and its F_LOST_TOUCH lost). What the
    fingers did after the pile settled cannot have put a card under it."""
    table = Table(layout)
    table.frame_with({"B.stock2": "back"})  # B's QC left: it may lie under what lands next
    slot1, slot2 = layout.zone("A.stock1"), layout.zone("A.stock2")
    box = (80.0, 300.0, 260.0, 420.0)
    grabbing = HandBlob(Player.A, 20000.0, box, slot2.center, ("A.stock1", "A.stock2"))
    on = (hand(Player.A, "pile1", "A.stock1"), hand(Player.B, "pile1"))  # A's arm over slot 1
    table.busy_since["A.stock1"] = table.frame + 2
    assert table.frame_with({"A.stock2": "back"}, hands=on, before=(grabbing, hand(Player.B, "pile1")),
                            unsettled=("A.stock1", "pile1", "pile2")) == []
    assert table.frame_with({"pile1": "KD"}, hands=on, unsettled=("A.stock1", "pile2")) == []  # pile 2 busy
    fingers = (HandBlob(Player.A, 20000.0, box, slot1.center, ("A.stock1",)), hand(Player.B, "pile1"))
    assert table.frame_with(hands=fingers, unsettled=("A.stock1", "pile2")) == []
    events = table.frame_with(hands=fingers, unsettled=("A.stock1",))  # pile 2 settles as it was
    assert [(e.player, str(e.card)) for e in events] == [(Player.B, "QC"), (Player.A, "KD")]


def test_a_pile_waits_for_a_slot_that_settled_empty_under_the_hand(layout: MatLayout) -> None:
    table = Table(layout)
    on = (hand(Player.B, "pile2", "B.stock2", "B.stock4"),)
    # B lifts QC from slot 2 (it settles "empty" under the hand: not believed yet), then 8S from
    # slot 4, and puts both on pile 2: the pile shows 8S, QC lies under it
    # the hand came over slot 4 seven frames after slot 2 (game 5009): slot 2's empty look counts
    table.busy_since["B.stock4"] = table.frame + 9
    assert table.frame_with({"B.stock2": "empty"}, hands=(hand(Player.B, "B.stock2", "B.stock4"),),
                            hand_over=True, unsettled=("B.stock4",)) == []
    # slot 2 is busy again and what shows of it looks as when it settled (empty): it still counts
    assert table.frame_with({"pile2": "8S"}, hands=on, before=(hand(Player.B, "B.stock4"),),
                            unsettled=("B.stock2", "B.stock4"), kept=("B.stock2",)) == []
    # slot 4 settles showing a back: no event of its own, so the pile goes on waiting for slot 2
    assert table.frame_with({"B.stock4": "back"}, hands=on, unsettled=("B.stock2",), kept=("B.stock2",),
                            busy_frames=1) == []
    events = table.frame_with({"B.stock2": "back"}, busy_frames=1)  # QC had left before the pile settled
    assert [(type(e), e.slot, str(e.card), e.evidence["underneath"] is True) for e in events] == [
        (Play, 2, "QC", True), (Play, 4, "8S", False)]


def test_a_slot_settled_under_the_hand_as_its_card_lands_is_looked_at_again(layout: MatLayout) -> None:
    table = Table(layout)
    turning = {"hands": (hand(Player.A, "A.stock3"),), "hand_over": True}
    # the slot settles as the hand stops, a moment before the card lies flat: still the back
    assert table.frame_with({"A.stock3": "back"}, **turning) == []
    settled_t = table.frame / FPS
    assert _look_again(table, {"A.stock3": ("6C", 0.95, None)}) == []  # not asked yet (REREAD_EVERY)
    events = []
    for _ in range(3):
        events += _look_again(table, {"A.stock3": ("6C", 0.95, None)})
    assert [(type(e), e.slot, str(e.card)) for e in events] == [(Turn, 3, "6C")]
    assert abs(events[0].t - (settled_t - TURN_UNDER_HAND_LAG_S)) < 1e-9  # timed from the settle


def test_a_slot_that_keeps_its_back_under_a_hand_is_looked_at_only_briefly(layout: MatLayout) -> None:
    table = Table(layout)
    assert table.frame_with({"A.stock3": "back"}, hands=(hand(Player.A, "A.stock3"),), hand_over=True) == []
    asked = 0
    still = {z: ZoneObservation(z, True, False, True, 1.0, 0.0) for z in table.zones}
    for _ in range(round(3 * TURN_LOOK_S * FPS)):
        table.frame += 1
        tracked = TrackedFrame(table.frame, table.frame / FPS, still, (), ())
        zones = table.obs.rereads(tracked)
        asked += len(zones)
        readings = {z: ZoneReading(z, "back", 1.0, table.frame, tracked.time) for z in zones}
        assert table.obs.update(tracked, readings) == []
    assert 1 <= asked <= TURN_LOOK_S * FPS / 3 + 1
    # a slot that settled with nothing over it is not looked at again
    assert table.frame_with({"A.stock3": "back"}) == []
    assert table.obs.rereads(TrackedFrame(table.frame + 5, 0.0, still, (), ())) == []


def test_a_move_s_evidence_says_when_fingers_first_came_within_reach_of_its_slot(layout: MatLayout) -> None:
    """Game 5361 with the model: A's 5D, moved from slot 2 to slot 1, "left" 1 s early by its
    track (A's arm over the slot): a false F_TWO_CARDS. A move carries ``reached_t`` too."""
    table = Table(layout)
    table.frame_with({"A.stock1": "empty"})
    assert [type(e) for e in table.frame_with({"pile1": "4D"}, hands=(hand(Player.A, "pile1"),))] == [Play]
    passing = (hand_at(Player.A, layout.zone("A.packet").center, "A.stock4"),)
    fingers = (hand_at(Player.A, layout.zone("A.stock4").center, "A.stock4"),)
    table.busy_since["A.stock4"] = table.frame + 1
    table.idle(5, hands=passing, unsettled=("A.stock4",))
    came = (table.frame + 1) / FPS
    table.idle(2, hands=fingers, unsettled=("A.stock4",))
    assert table.frame_with({"A.stock4": "back"}, hands=passing, before=fingers) == []
    events = table.frame_with({"A.stock1": "JS"}, hands=(hand(Player.A, "A.stock1"),))
    assert [(type(e), e.from_slot, e.to_slot) for e in events] == [(Move, 4, 1)]
    assert abs(events[0].evidence["reached_t"] - came) < 1e-3


def test_a_card_from_a_slot_that_settled_unread_came_from_there(layout: MatLayout) -> None:
    """Game 5361 with the model: A's AC left slot 2 for pile 2; the slot settled showing a card
    read at 0.26 (not surely: read again), and the AC on the pile, from no busy slot, was
    taken for A's 6C, alike, from slot 4 under A's arm (a false F_ILLEGAL_RANK). A slot that
    changed and is not read yet may have lost its card."""
    table = Table(layout)
    assert table.frame_with({"A.stock4": "card"}, confidence=0.26) == []  # read again later
    events = table.frame_with({"pile2": "JS"}, hands=(hand(Player.A, "pile2"),))
    events += [e for _ in range(40) for e in table.frame_with()]  # (held while the slot is read again)
    assert [(type(e), e.player, e.slot, e.pile, str(e.card)) for e in events] == [
        (Play, Player.A, 4, 2, "JS")]


def test_a_play_s_evidence_says_when_fingers_first_came_within_reach_of_its_slot(layout: MatLayout) -> None:
    """Game 5370: A's arm passed over slot 4 on its way to A's packet 0.6 s before A's fingers
    came for the 2H there; the arbiter's track of the 2H, following the arm, put its start then
    (a false F_TWO_CARDS with A's spit card). The play's evidence says when a hand could first
    have taken the card: the first frame a tip came within reach of the slot, or no hand of
    the player was seen (a hand the tracker lost may have taken it)."""
    slot = layout.zone("A.stock4")
    passing = (hand_at(Player.A, layout.zone("A.packet").center, "A.stock4"),)
    fingers = (hand_at(Player.A, slot.center, "A.stock4"),)
    for lost in (False, True):
        table = Table(layout)
        table.busy_since["A.stock4"] = table.frame + 1
        table.idle(5, hands=passing, unsettled=("A.stock4",))
        came = (table.frame + 1) / FPS
        table.idle(2, hands=() if lost else fingers, unsettled=("A.stock4",))
        assert table.frame_with({"A.stock4": "back"}, hands=passing, before=fingers) == []
        events = table.frame_with({"pile1": "JS"}, hands=(hand(Player.A, "pile1"),))
        assert [(type(e), e.slot, str(e.card)) for e in events] == [(Play, 4, "JS")]
        assert abs(events[0].evidence["reached_t"] - came) < 1e-3
