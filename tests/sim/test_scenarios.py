"""Scenarios: deterministic fragments whose faults are exactly what the rules engine says."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest

from referee.eventlog import write_records
from referee.events import Call, Deal, Play, Slap, SpitTurn, TableEvent, Turn, Verdict
from referee.sim.clip import choreography, motion_records
from referee.sim.scenarios import SCENARIOS, Fragment, make_fragment, rejudge
from referee.sim.truth import frame_of

FPS = Fraction(30)

#: scenario: (fault codes in the clip, calls in the clip) -- what each scenario is for.
EXPECTED: dict[str, tuple[list[str], set[str]]] = {
    "exchange": ([], set()),
    "illegal-rank": (["F_ILLEGAL_RANK"], set()),
    "race-4f": (["F_LOST_TOUCH"], set()),
    "race-2f": (["F_LOST_TOUCH"], set()),
    "race-1f": (["F_LOST_TOUCH"], set()),
    "race-subframe": (["F_LOST_TOUCH"], set()),
    "slap-same": ([], {"round_end", "slap_winner", "piles"}),
    "slap-different": ([], {"round_end", "piles"}),
    "stalemate": ([], {"spit"}),
    "round-end": ([], {"round_end", "piles"}),
    "endgame": ([], {"round_end", "game_over"}),
    "fill-slot": ([], set()),
    "take-back": (["F_TAKE_BACK"], set()),
    "two-hands": (["F_TWO_HANDS"], set()),
    "two-cards": (["F_TWO_CARDS"], set()),
    "lighting": ([], set()),
    "camera-nudge": ([], set()),
    "sixth-pile": (["F_SIXTH_PILE"], set()),
}
FIXTURES = [name for name, sc in SCENARIOS.items() if sc.fixture]


def _text(fragment: Fragment) -> str:
    buffer = io.StringIO()
    write_records(buffer, fragment.records)
    return buffer.getvalue()


def test_every_fixture_scenario_is_listed_here() -> None:
    assert set(FIXTURES) == set(EXPECTED)


@pytest.mark.parametrize("name", FIXTURES)
def test_scenario_shows_what_it_is_for(name: str) -> None:
    fragment = make_fragment(name, 4)
    faults, calls = EXPECTED[name]
    in_clip = [r for r in fragment.records if r.t > 0]
    assert [v.code for v in in_clip if isinstance(v, Verdict) and v.code] == faults
    assert {str(c.call) for c in in_clip if isinstance(c, Call)} >= calls
    assert 1.5 <= fragment.duration <= 8.0
    # the truth's verdicts and calls are exactly the engine's, judged afresh
    assert _text(fragment) == _text(Fragment(name, 4, tuple(rejudge(fragment.records)), (), 0))
    # the prelude lays out the table at t = 0, the action starts after it
    events = fragment.table_events
    prelude = [e for e in events if e.evidence and e.evidence.get("prelude")]
    assert prelude and events[: len(prelude)] == prelude
    assert all(e.t == 0.0 and e.start is None for e in prelude)
    assert min(e.t for e in events[len(prelude):]) >= 0.4
    # one true layout per deal, with every card turned later where the deal put it
    assert len(fragment.deals) == sum(isinstance(e, Deal) for e in events)


@pytest.mark.parametrize("name", ["exchange", "race-1f", "endgame"])
def test_same_seed_same_fragment_other_seed_other_cards(name: str) -> None:
    assert _text(make_fragment(name, 7)) == _text(make_fragment(name, 7))
    assert make_fragment(name, 7).deals == make_fragment(name, 7).deals
    assert _text(make_fragment(name, 7)) != _text(make_fragment(name, 8))


@pytest.mark.parametrize("name, gap", [("race-4f", 4), ("race-2f", 2), ("race-1f", 1), ("race-subframe", 0)])
def test_race_touches_are_the_stated_frames_apart(name: str, gap: int) -> None:
    fragment = make_fragment(name, 2)
    plays = [e for e in fragment.table_events if isinstance(e, Play) and e.t > 0][:2]
    assert plays[0].pile == plays[1].pile
    assert plays[0].t < plays[1].t
    assert frame_of(plays[1].t, FPS) - frame_of(plays[0].t, FPS) == gap
    # the loser set off before the winner touched (P8), and the motion has the first card
    # down on the pile while the second is still in the air
    assert plays[1].start is not None and plays[1].start < plays[0].t
    choreo = choreography(fragment)
    mid = (plays[0].t + plays[1].t) / 2
    first = choreo.card_pose(str(plays[0].card), mid)
    second = choreo.card_pose(str(plays[1].card), mid)
    assert second.height > first.height
    assert choreo.card_pose(str(plays[1].card), plays[1].t - 0.01).height > \
        choreo.card_pose(str(plays[1].card), plays[1].t).height


def test_turned_cards_are_the_hidden_cards_of_the_deal() -> None:
    fragment = make_fragment("exchange", 3)
    first_deal = {d.player: d for d in fragment.deals[:2]}
    for d in first_deal.values():
        assert sum(len(s) for s in d.stock) + len(d.packet) == 26
    seen: dict[tuple[str, int], int] = {}
    for e in fragment.table_events:
        if isinstance(e, Turn):
            stack = first_deal[e.player].stock[e.slot - 1]
            depth = seen.get((e.player, e.slot), 0)
            seen[(e.player, e.slot)] = depth + 1
            assert stack[-1 - depth] == str(e.card)
        elif isinstance(e, SpitTurn):
            assert str(e.card) in first_deal[e.player].packet


def test_motion_follows_every_fixture_scenario() -> None:
    for name in FIXTURES:
        fragment = make_fragment(name, 1)
        choreo = choreography(fragment)
        state = choreo.at(0.0)
        assert len(state.cards) == 52
        assert not state.moving, name  # the prelude is over before the clip begins
        # the prelude is spread out before t = 0 for the motion; the clip's own events keep t
        moved = [r for r in motion_records(fragment) if isinstance(r, TableEvent)]
        assert all(r.t < 0 for r in moved[: fragment.prelude_events])
        assert moved[fragment.prelude_events:] == fragment.table_events[fragment.prelude_events:]


def test_selfplay_scenario_is_a_whole_game() -> None:
    fragment = make_fragment("selfplay", 3)
    assert fragment.prelude_events == 0
    assert any(isinstance(r, Call) and r.call == "game_over" for r in fragment.records)
    assert fragment.duration > 60


def test_unknown_scenario() -> None:
    from referee.errors import InputError

    with pytest.raises(InputError, match="unknown scenario 'nope'"):
        make_fragment("nope", 1)


@pytest.mark.parametrize("name, kind", [("race-eval", Play), ("slap-eval", Slap)])
def test_evaluation_races_vary_with_the_seed_and_alternate_their_gaps(name: str, kind: type) -> None:
    frame = 1 / 30
    piles, firsts = set(), set()
    for seed in range(6000, 6016):
        fragment = make_fragment(name, seed)
        assert not SCENARIOS[name].fixture
        first, second = sorted((e for e in fragment.table_events if isinstance(e, kind) and e.t > 0),
                               key=lambda e: e.t)[:2]
        assert first.pile == second.pile and first.player != second.player
        gap = second.t - first.t
        # even seeds race inside one frame interval, odd ones one to four apart
        assert (0 < gap < frame) if seed % 2 == 0 else (frame < gap <= 4 * frame)
        piles.add(first.pile)
        firsts.add(first.player)
        faults = [v.code for v in fragment.records if isinstance(v, Verdict) and v.code and v.t > 0]
        assert faults == (["F_LOST_TOUCH"] if name == "race-eval" else [])
        assert _text(fragment) == _text(Fragment(name, seed, tuple(rejudge(fragment.records)), (), 0))
    assert piles == {1, 2} and len(firsts) == 2
