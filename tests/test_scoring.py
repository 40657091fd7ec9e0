"""Scoring a found event log against the truth, on the recorded fixtures and edited copies."""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cards import Card
from referee.errors import InputError
from referee.eventlog import read_records_strict, write_records
from referee.events import (
    Correction,
    GameStart,
    Outcome,
    Play,
    Record,
    Slap,
    TableEvent,
    TakeBack,
    Turn,
    Verdict,
)
from referee.players import Player
from referee.scoring import (
    DEFAULT_FPS,
    EventLog,
    Score,
    Timing,
    is_prelude,
    parse_log,
    percentile,
    read_log,
    score,
    score_files,
    score_many,
    window,
)

FIXTURES = Path(__file__).parent / "fixtures"
ALL_FIXTURES = sorted(p.name for p in FIXTURES.iterdir() if (p / "events.jsonl").is_file())


def fixture_records(name: str) -> list[Record]:
    with open(FIXTURES / name / "events.jsonl", encoding="utf-8") as stream:
        return read_records_strict(stream, name)


def write(path: Path, records: list[Record]) -> Path:
    with open(path, "w", encoding="utf-8") as stream:
        write_records(stream, records)
    return path


def edited(records: list[Record], pick: Callable[[Record], bool], change: Callable[[Record], Record | None],
           ) -> list[Record]:
    """A copy with every picked record changed (or dropped when ``change`` returns None)."""
    out: list[Record] = []
    hits = 0
    for r in records:
        if pick(r):
            hits += 1
            new = change(r)
            if new is not None:
                out.append(new)
        else:
            out.append(r)
    assert hits, "the edit picked nothing"
    return out


def live(r: Record) -> bool:
    return isinstance(r, TableEvent) and not is_prelude(r)


def is_play(player: str) -> Callable[[Record], bool]:
    return lambda r: isinstance(r, Play) and live(r) and r.player == Player(player)


def score_pair(tmp_path: Path, truth: list[Record], found: list[Record], **kw: float) -> Score:
    t = write(tmp_path / "truth.jsonl", truth)
    f = write(tmp_path / "found.jsonl", found)
    return score_files(t, f, **kw)


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_the_truth_scored_against_itself_is_perfect(name: str) -> None:
    path = FIXTURES / name / "events.jsonl"
    result = score_files(path, path)
    c = result.counts()
    assert c.truth == c.found == c.matched > 0
    assert c.precision == c.recall == 1.0
    assert not result.missed and not result.invented
    assert all(r.right for r in result.races) and all(r.right for r in result.slaps)
    assert result.faults().right == result.faults().total
    assert not result.false_faults
    assert result.timing().max_ms == 0 and result.timing().bias_ms == 0
    meta = json.loads((FIXTURES / name / "meta.json").read_text())
    assert result.faults().total == len(meta["faults"])
    assert result.fps == meta["fps_float"] and result.fps_from == "meta.json"


def test_the_prelude_is_not_scored() -> None:
    result = score_files(FIXTURES / "race-2f" / "events.jsonl", FIXTURES / "race-2f" / "events.jsonl")
    # 14 prelude events lay out the table; the clip has two plays and a take-back
    assert result.truth_counts == {"play": 2, "take_back": 1}


def test_a_log_without_its_prelude_still_scores_perfectly(tmp_path: Path) -> None:
    truth = fixture_records("illegal-rank")
    found = [r for r in truth if not (isinstance(r, TableEvent) and is_prelude(r))
             and not (isinstance(r, Verdict) and r.event < 14)]
    # the found verdicts now point at the wrong table events (indices shifted by 14)...
    result = score_pair(tmp_path, truth, found)
    assert result.counts().recall == 1.0 and result.counts().precision == 1.0
    # ...so the fault is found by time; renumbered, it is found by its event
    assert [f.by for f in result.flagged] == ["time"]
    renumbered = [dataclasses.replace(r, event=r.event - 14) if isinstance(r, Verdict) else r for r in found]
    result = score_pair(tmp_path, truth, renumbered)
    assert [f.by for f in result.flagged] == ["event"]


def test_the_referees_corrections_are_not_scored_as_events(tmp_path: Path) -> None:
    truth = fixture_records("illegal-rank")
    events = [r for r in truth if isinstance(r, TableEvent)]
    turned = next(e for e in events if isinstance(e, Turn) and e.player is Player.B)
    fix = Correction(t=events[-1].t + 0.5, player=Player.B, slot=turned.slot, card=Card.parse("AS"),
                     was=turned.card)
    said = Verdict(t=fix.t, event=len(events), player=Player.B, outcome=Outcome.LEGAL, message="corrected")
    result = score_pair(tmp_path, truth, [*truth, fix, said])
    assert result.counts().precision == result.counts().recall == 1.0
    assert "correct" not in result.found_counts and not result.invented and not result.false_faults


def test_dropping_one_event_lowers_recall_by_exactly_one(tmp_path: Path) -> None:
    truth = fixture_records("exchange")
    found = edited(truth, lambda r: isinstance(r, Play) and live(r) and r.card.code == "7C", lambda r: None)
    whole = score_files(FIXTURES / "exchange" / "events.jsonl", FIXTURES / "exchange" / "events.jsonl")
    result = score_pair(tmp_path, truth, found)
    n = whole.counts().truth
    assert result.counts().matched == n - 1
    assert result.counts().recall == pytest.approx((n - 1) / n)
    assert result.counts().precision == 1.0
    assert result.counts("play").matched == whole.counts("play").matched - 1
    assert result.counts("turn").recall == 1.0
    [missed] = result.missed
    assert isinstance(missed.ref.event, Play) and missed.ref.event.card.code == "7C"
    assert missed.nearest is None and not result.invented


def test_a_shift_beyond_the_tolerance_is_unmatched_on_both_sides(tmp_path: Path) -> None:
    truth = fixture_records("race-2f")
    found = edited(truth, is_play("A"), lambda r: dataclasses.replace(r, t=r.t + 0.3))
    result = score_pair(tmp_path, truth, found)
    assert result.counts().matched == 2 and result.counts().truth == result.counts().found == 3
    assert [u.ref.event.player for u in result.missed] == [Player.A]
    assert [u.ref.event.player for u in result.invented] == [Player.A]
    assert result.missed[0].differs == ("t",)
    assert result.missed[0].nearest == result.invented[0].ref
    assert result.first_touch().right == 0  # one of the two racing plays is missing


def test_a_shift_within_the_tolerance_matches_and_shows_in_the_timing(tmp_path: Path) -> None:
    truth = fixture_records("race-2f")
    found = edited(truth, is_play("B"), lambda r: dataclasses.replace(r, t=r.t + 0.02))
    result = score_pair(tmp_path, truth, found)
    assert result.counts().recall == 1.0
    timing = result.timing()
    assert timing.matched == 3
    assert timing.max_ms == pytest.approx(20)
    assert timing.median_ms == pytest.approx(0)
    assert timing.p90_ms == pytest.approx(16)  # linear between the ranks: 0, 0, 20
    assert timing.bias_ms == pytest.approx(20 / 3)
    # tolerance 0 asks for exact times
    assert score_pair(tmp_path, truth, found, tolerance_s=0).counts().matched == 2
    # a wide tolerance is inclusive at exactly the difference
    assert score_pair(tmp_path, truth, found, tolerance_s=0.02).counts().matched == 3


def test_a_changed_card_is_a_mismatch(tmp_path: Path) -> None:
    truth = fixture_records("race-2f")
    found = edited(truth, is_play("B"), lambda r: dataclasses.replace(r, card=type(r.card).parse("7H")))
    result = score_pair(tmp_path, truth, found)
    assert result.counts("play").matched == 1
    [missed], [invented] = result.missed, result.invented
    assert missed.differs == ("card",) and missed.nearest == invented.ref
    assert result.counts().precision == result.counts().recall == pytest.approx(2 / 3)


@pytest.mark.parametrize(("field", "value"), [("slot", 3), ("pile", 1), ("player", Player.A)])
def test_other_identity_fields_must_match(tmp_path: Path, field: str, value: object) -> None:
    truth = fixture_records("race-2f")
    found = edited(truth, is_play("B"), lambda r: dataclasses.replace(r, **{field: value}))
    result = score_pair(tmp_path, truth, found)
    assert result.counts().matched == 2
    assert result.missed[0].differs == (field,)


def test_matching_is_one_to_one_by_smallest_dt(tmp_path: Path) -> None:
    truth = fixture_records("race-2f")
    take_back = next(r for r in truth if isinstance(r, TakeBack))
    # two found copies of one truth take-back: the closer one matches, the other is invented
    found = [*truth, dataclasses.replace(take_back, t=take_back.t + 0.1)]
    far = edited(found, lambda r: r is take_back, lambda r: dataclasses.replace(r, t=r.t + 0.15))
    result = score_pair(tmp_path, truth, far)
    [m] = [m for m in result.matches if m.truth.event.kind == "take_back"]
    assert m.dt == pytest.approx(0.1)
    assert [u.ref.event.t for u in result.invented] == [pytest.approx(take_back.t + 0.15)]
    assert result.counts().precision == pytest.approx(3 / 4)


@pytest.mark.parametrize(("name", "within_frame"), [
    ("race-4f", False), ("race-2f", False), ("race-1f", False), ("race-subframe", True)])
def test_races_are_the_fixture_races(name: str, within_frame: bool) -> None:
    path = FIXTURES / name / "events.jsonl"
    result = score_files(path, path)
    meta = json.loads((FIXTURES / name / "meta.json").read_text())["visuals"]["race"]
    [race] = result.races
    assert [race.first.event.t, race.second.event.t] == meta["touches"]
    assert str(race.first.event.player) == meta["first"]
    assert race.within_frame is within_frame
    assert result.first_touch(within_frame=within_frame).accuracy == 1.0
    assert result.first_touch(within_frame=not within_frame).total == 0


def test_swapped_race_touches_make_first_touch_wrong(tmp_path: Path) -> None:
    truth = fixture_records("race-2f")
    a, b = (next(r for r in truth if is_play(p)(r)) for p in "AB")
    found = edited(truth, lambda r: r in (a, b), lambda r: dataclasses.replace(r, t=(b if r is a else a).t))
    result = score_pair(tmp_path, truth, found)
    assert result.counts().matched == 3  # 67 ms apart: both still match
    [race] = result.races
    assert not race.right and result.first_touch().accuracy == 0.0


def test_a_found_tie_is_wrong(tmp_path: Path) -> None:
    truth = fixture_records("race-subframe")
    a = next(r for r in truth if is_play("A")(r))
    found = edited(truth, is_play("B"), lambda r: dataclasses.replace(r, t=a.t))
    result = score_pair(tmp_path, truth, found)
    assert result.counts().recall == 1.0
    assert result.first_touch(within_frame=True).right == 0


def test_the_race_window_comes_from_the_game_rules(tmp_path: Path) -> None:
    truth = edited(fixture_records("race-4f"), lambda r: isinstance(r, GameStart),
                   lambda r: dataclasses.replace(r, rules=dataclasses.replace(r.rules, race_window_s=0.1)))
    result = score_pair(tmp_path, truth, truth)
    assert result.races == []  # 133 ms apart is no race under a 100 ms window


def test_the_frame_rate_splits_the_races(tmp_path: Path) -> None:
    path = FIXTURES / "race-1f" / "events.jsonl"
    assert score_files(path, path).first_touch(within_frame=False).total == 1
    # at 15 fps, 33 ms is within one frame
    assert score_files(path, path, fps=15).first_touch(within_frame=True).total == 1
    # meta.json beside the truth gives the rate; without one, 30
    copy = tmp_path / "clip"
    copy.mkdir()
    shutil.copy(path, copy / "events.jsonl")
    assert score_files(copy / "events.jsonl", path).fps_from == "default"
    assert score_files(copy / "events.jsonl", path).fps == DEFAULT_FPS
    meta = json.loads((FIXTURES / "race-1f" / "meta.json").read_text())
    del meta["fps_float"]
    meta["fps"] = "15"
    (copy / "meta.json").write_text(json.dumps(meta))
    result = score_files(copy / "events.jsonl", path)
    assert (result.fps, result.fps_from) == (15.0, "meta.json")
    assert result.first_touch(within_frame=True).total == 1


def test_slap_order(tmp_path: Path) -> None:
    truth = fixture_records("slap-same")
    result = score_pair(tmp_path, truth, truth)
    [pair] = result.slaps
    assert [str(pair.first.event.player), str(pair.second.event.player)] == ["B", "A"]
    assert result.slap_order().accuracy == 1.0
    slaps = [r for r in truth if isinstance(r, Slap)]
    found = edited(truth, lambda r: r in slaps,
                   lambda r: dataclasses.replace(r, t=(slaps[1] if r is slaps[0] else slaps[0]).t))
    assert score_pair(tmp_path, truth, found).slap_order().accuracy == 0.0
    # slaps on different piles are no slap race
    assert score_files(FIXTURES / "slap-different" / "events.jsonl",
                       FIXTURES / "slap-different" / "events.jsonl").slaps == []


def test_until_cuts_both_logs_and_renumbers_the_verdicts(tmp_path: Path) -> None:
    truth = fixture_records("illegal-rank")
    t_fault = next(r.t for r in truth if _fault(r))
    # the referee missed everything after the fault, and invented a play late in the clip
    found = [r for r in truth if r.t <= t_fault]
    last = [r for r in truth if live(r) and isinstance(r, Play)][-1]
    late = dataclasses.replace(last, t=t_fault + 5.0, card=Card.parse("2S"))
    found.append(late)
    whole = score_pair(tmp_path, truth, found)
    assert whole.counts().recall < 1.0 and whole.invented
    cut = score_pair(tmp_path, truth, found, until_s=t_fault)
    assert cut.counts().precision == cut.counts().recall == 1.0 and not cut.invented
    # the fault is still found by its event: its index was renumbered on both sides
    assert [f.by for f in cut.flagged] == ["event"] and not cut.false_faults
    events = [r for r in truth if isinstance(r, TableEvent)]
    kept = read_log_of(tmp_path, truth).until(t_fault)
    assert len(kept.games[0].events) == sum(1 for e in events if e.t <= t_fault)
    assert all(v.event < len(kept.games[0].events) for v in kept.games[0].verdicts)


@pytest.mark.parametrize("shift", [0.1, -0.1])
def test_an_event_seen_across_the_cut_is_matched(tmp_path: Path, shift: float) -> None:
    truth = fixture_records("race-2f")
    last = [r for r in truth if live(r)][-1]
    found = edited(truth, lambda r: r is last, lambda r: dataclasses.replace(r, t=r.t + shift))
    end = last.t + shift / 2  # the truth's event on one side of the cut, the found one on the other
    t_log, f_log = read_log_of(tmp_path, truth), read_log(write(tmp_path / "found.jsonl", found))
    cut = score(t_log.until(end), f_log.until(end))
    assert cut.counts().matched == cut.counts().truth - (shift > 0) == cut.counts().found - (shift < 0)
    assert window(t_log, f_log, end)[0].games[0].events[-1].t == last.t
    kept = score(*window(t_log, f_log, end))
    assert kept.counts().precision == kept.counts().recall == 1.0 and kept.counts().truth == 3


def read_log_of(tmp_path: Path, records: list[Record]) -> EventLog:
    return read_log(write(tmp_path / "log.jsonl", records))


def _fault(r: Record) -> bool:
    return isinstance(r, Verdict) and r.outcome == Outcome.FAULT


def test_faults_on_illegal_rank(tmp_path: Path) -> None:
    truth = fixture_records("illegal-rank")
    result = score_pair(tmp_path, truth, truth)
    assert (result.faults().total, result.faults().right) == (1, 1)
    assert result.flagged[0].truth.verdict.code == "F_ILLEGAL_RANK" and result.flagged[0].by == "event"

    # the referee said nothing: missed
    silent = edited(truth, _fault,
                    lambda r: dataclasses.replace(r, outcome=Outcome.LEGAL, code=None, rule=None))
    result = score_pair(tmp_path, truth, silent)
    assert (result.faults().right, len(result.missed_faults), len(result.false_faults)) == (0, 1, 0)
    assert result.counts().recall == 1.0  # the table events were all seen

    # the wrong fault: one missed, one false
    wrong = edited(truth, _fault, lambda r: dataclasses.replace(r, code="F_TAKE_BACK", rule="P7"))
    result = score_pair(tmp_path, truth, wrong)
    assert (result.faults().right, len(result.missed_faults), len(result.false_faults)) == (0, 1, 1)
    assert result.false_faults[0].verdict.code == "F_TAKE_BACK"

    # a fault on a legal play: false
    legal_b = next(i for i, r in enumerate(truth) if isinstance(r, Verdict) and r.player == Player.B
                   and r.event >= 14)
    extra = list(truth)
    extra[legal_b] = dataclasses.replace(truth[legal_b], outcome=Outcome.FAULT, code="F_ILLEGAL_RANK",
                                         rule="P3")
    result = score_pair(tmp_path, truth, extra)
    assert (result.faults().right, len(result.false_faults)) == (1, 1)
    assert result.false_faults[0].verdict.player == Player.B


def test_a_verdict_given_anew_replaces_the_event_s_earlier_one(tmp_path: Path) -> None:
    """A verdict with ``revised`` answers an event judged before (a card found beneath it later):
    only the last verdict of an event counts; a fault so replaced by no fault is withdrawn."""
    truth = fixture_records("illegal-rank")
    fault = next(r for r in truth if _fault(r))
    assert isinstance(fault, Verdict)
    # the fault given late: first judged legal, then anew as the fault
    legal = dataclasses.replace(fault, outcome=Outcome.LEGAL, code=None, rule=None)
    late = edited(truth, _fault, lambda r: legal)
    late.append(dataclasses.replace(fault, revised=True))
    result = score_pair(tmp_path, truth, late)
    assert (result.faults().right, len(result.false_faults), len(result.withdrawn_faults)) == (1, 0, 0)
    # the fault withdrawn: given, then replaced by a legal verdict (neither flagged nor false)
    withdrawn = [*truth, dataclasses.replace(legal, revised=True)]
    result = score_pair(tmp_path, truth, withdrawn)
    assert (result.faults().right, len(result.missed_faults), len(result.false_faults)) == (0, 1, 0)
    assert [f.verdict.code for f in result.withdrawn_faults] == ["F_ILLEGAL_RANK"]
    assert result.to_json()["faults"]["withdrawn"] == 1


def test_a_fault_about_an_unmatched_event_is_found_by_time(tmp_path: Path) -> None:
    truth = fixture_records("illegal-rank")
    # the faulty play was seen with the wrong card, 0.1 s late, and the fault called on it
    found = edited(truth, is_play("A"), lambda r: dataclasses.replace(r, t=r.t + 0.1,
                                                                       card=type(r.card).parse("QD")))
    found = edited(found, _fault, lambda r: dataclasses.replace(r, t=r.t + 0.1))
    result = score_pair(tmp_path, truth, found)
    assert [f.by for f in result.flagged] == ["time"]
    late = edited(found, _fault, lambda r: dataclasses.replace(r, t=r.t + 0.3))
    late = edited(late, is_play("A"), lambda r: dataclasses.replace(r, t=r.t + 0.3))
    result = score_pair(tmp_path, truth, late)
    assert result.faults().right == 0 and len(result.false_faults) == 1


def _two_games(records: list[Record]) -> list[Record]:
    second = [dataclasses.replace(r, game=1) if isinstance(r, GameStart) else r for r in records]
    return [*records, *second]


def test_games_are_matched_within_the_same_game(tmp_path: Path) -> None:
    one = fixture_records("race-2f")
    two = _two_games(one)
    result = score_pair(tmp_path, two, two)
    assert result.games == 2 and result.counts().truth == 6 and result.counts().recall == 1.0
    assert len(result.races) == 2 and result.first_touch().accuracy == 1.0
    # a second game's events are not matched in the first, though they are identical in it
    result = score_pair(tmp_path, two, one)
    assert result.counts().matched == 3 and result.counts().recall == 0.5
    assert {u.ref.game for u in result.missed} == {1}
    assert any("2 game(s)" in w for w in result.warnings)


def test_score_many_adds_up(tmp_path: Path) -> None:
    a = FIXTURES / "race-2f" / "events.jsonl"
    b = FIXTURES / "illegal-rank" / "events.jsonl"
    dropped = write(tmp_path / "dropped.jsonl",
                    edited(fixture_records("illegal-rank"), is_play("B"), lambda r: None))
    parts = [score_files(a, a), score_files(b, dropped)]
    total = score_many([(a, a), (b, dropped)])
    assert total.pairs == 2 and total.games == 2
    for kind in (None, "play", "take_back"):
        assert total.counts(kind) == type(total.counts(kind))(
            *(sum(getattr(p.counts(kind), f) for p in parts) for f in ("truth", "found", "matched")))
    assert total.faults().total == 2 and total.first_touch().total == 1
    assert len(total.missed) == 1 and total.missed[0].ref.source == str(b)
    assert total.timing().matched == sum(p.timing().matched for p in parts)
    assert total.to_json()["table_events"]["truth"] == sum(p.counts().truth for p in parts)
    with pytest.raises(InputError, match="no pairs"):
        score_many([])


def test_timing_statistics() -> None:
    t = Timing.of([0.010, -0.020, 0.030, 0.0, 0.005])
    assert t.matched == 5
    assert t.median_ms == pytest.approx(10) and t.max_ms == pytest.approx(30)
    assert t.p90_ms == pytest.approx(26)  # between 20 and 30 at 0.6
    assert t.bias_ms == pytest.approx(5)
    assert Timing.of([]) == Timing(0, None, None, None, None)
    assert percentile([1.0], 0.9) == 1.0


def test_the_torn_last_line_is_left_out_with_a_warning(tmp_path: Path) -> None:
    text = (FIXTURES / "race-2f" / "events.jsonl").read_text()
    torn = tmp_path / "torn.jsonl"
    torn.write_text(text + '{"type":"play","t":2.5,"frame":7')
    log = read_log(torn)
    assert len(log.warnings) == 1 and "torn.jsonl:36" in log.warnings[0] and "torn" in log.warnings[0]
    result = score_files(FIXTURES / "race-2f" / "events.jsonl", torn)
    assert result.counts().precision == 1.0 and result.warnings == list(log.warnings)


@pytest.mark.parametrize(("text", "error"), [
    ("", "no game_start"),
    ('{"type":"deal","t":1,"player":"A"}\n', "bad.jsonl:1: a 'deal' record before the first game_start"),
    ("not json at all\n", "bad.jsonl:1: not valid JSON"),
    ('{"type":"game_start","t":0,"rules":{}}\n{"type":"play","t":1,"player":"A","slot":1,"pile":1,'
     '"card":"ZZ"}\n', "bad.jsonl:2: field 'card' unknown card code 'ZZ'"),
    ('{"type":"game_start","t":0,"rules":{}}\n{"type":"deal","t":1,"player":"A"}\n{"nope"\n',
     "bad.jsonl:3: not valid JSON"),  # a bad last line that ends in a newline is not torn
    ('{"a": 1}\n[1, 2]\n', "(and 1 more bad line(s))"),
])
def test_bad_logs_are_refused(tmp_path: Path, text: str, error: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    with pytest.raises(InputError) as exc:
        read_log(bad)
    assert error in str(exc.value)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"tolerance_s": -0.1}, "tolerance: must be a time in seconds >= 0"),
    ({"tolerance_s": float("nan")}, "tolerance"),
    ({"fps": 0.0}, "fps: must be a frame rate > 0"),
    ({"until_s": -1.0}, "until: must be a time in seconds >= 0"),
    ({"until_s": float("inf")}, "until"),
])
def test_bad_settings_are_refused(kwargs: dict[str, float], error: str) -> None:
    path = FIXTURES / "race-2f" / "events.jsonl"
    with pytest.raises(InputError, match=error):
        score_files(path, path, **kwargs)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nope.jsonl: no such log file"):
        score_files(FIXTURES / "race-2f" / "events.jsonl", tmp_path / "nope.jsonl")


def test_in_memory_logs_score_the_same() -> None:
    records = fixture_records("race-2f")
    log = EventLog.from_records(records, "race-2f")
    text = (FIXTURES / "race-2f" / "events.jsonl").read_text()
    assert score(log, parse_log(text, "x")).to_json()["table_events"]["matched"] == 3
