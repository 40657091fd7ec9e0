"""Properties of self-played games (hypothesis): cards accounted for, a winner, replayable."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.eventlog import read_records_strict, write_records
from referee.events import GameStart, TableEvent, Verdict
from referee.judging import judge_records
from referee.rules import Game, Phase, RuleSet
from referee.selfplay import INJECTABLE, SelfPlay, SelfPlayConfig, selfplay_records
from tests.rules.coverage import covers

variant_sets = st.sampled_from([(), ("V1",), ("V2",), ("V3",), ("V4",), ("V5",), ("V7",),
                                ("V1", "V3"), ("V2", "V4", "V5"), ("V7", "V3")])


def _play(seed: int, fault_rate: float, variants: tuple[str, ...]) -> tuple[SelfPlay, list]:
    sp = SelfPlay(seed, SelfPlayConfig(rules=RuleSet.from_variants(variants), fault_rate=fault_rate))
    records = []
    shadow = Game(sp.config.rules)
    for record in sp.records():
        records.append(record)
        if isinstance(record, TableEvent):
            shadow.apply(record)
            assert shadow.defects() == [], (record, shadow.defects())  # 52 cards, no duplicates
    return sp, records


@covers("G3", "E4")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), fault_rate=st.sampled_from([0.0, 0.03, 0.15]), variants=variant_sets)
def test_every_game_accounts_for_52_cards_and_ends_with_a_winner(seed, fault_rate, variants) -> None:
    sp, _ = _play(seed, fault_rate, variants)
    assert sp.game.phase is Phase.GAME_OVER
    assert sp.game.outcome is not None and sp.game.outcome.winner is not None
    assert sp.game.defects() == []


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), fault_rate=st.sampled_from([0.0, 0.1]), variants=variant_sets)
def test_replaying_a_log_gives_the_same_verdicts(seed, fault_rate, variants) -> None:
    _, records = _play(seed, fault_rate, variants)
    buffer = io.StringIO()
    write_records(buffer, records)
    buffer.seek(0)
    (judged,) = judge_records(read_records_strict(buffer))
    recorded = [r for r in records if isinstance(r, Verdict)]
    assert judged.verdicts == recorded and judged.errors == []
    assert judged.disagreements() == []


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_no_fault_corrupts_the_state(seed) -> None:
    sp = SelfPlay(seed, SelfPlayConfig(fault_rate=0.3))
    for record in sp.records():
        if isinstance(record, Verdict) and record.code:
            assert sp.game.defects() == [], record
    assert sp.game.outcome is not None


def test_bots_commit_every_kind_of_fault() -> None:
    seen: set[str] = set()
    config = SelfPlayConfig(fault_rate=0.15)
    for record in selfplay_records(1000, games=30, config=config):
        if isinstance(record, Verdict) and record.code:
            seen.add(record.code)
    assert {f.code for f in INJECTABLE} <= seen


def test_same_seed_same_game() -> None:
    a = list(selfplay_records(7, games=2, config=SelfPlayConfig(fault_rate=0.1)))
    b = list(selfplay_records(7, games=2, config=SelfPlayConfig(fault_rate=0.1)))
    assert a == b and isinstance(a[0], GameStart)
