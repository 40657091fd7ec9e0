"""``spit-referee score`` run through click as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.eventlog import read_records_strict, write_records
from referee.events import Play, Record, TableEvent
from referee.scoring import is_prelude

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RACE = str(FIXTURES / "race-2f" / "events.jsonl")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _without_b_play(tmp_path: Path) -> str:
    with open(RACE, encoding="utf-8") as stream:
        records = read_records_strict(stream, RACE)
    kept: list[Record] = [r for r in records
                          if not (isinstance(r, Play) and not is_prelude(r) and r.player == "B")]
    out = tmp_path / "found.jsonl"
    with open(out, "w", encoding="utf-8") as stream:
        write_records(stream, kept)
    return str(out)


def test_help_lists_score() -> None:
    code, out, _ = run("--help")
    assert code == 0 and "score" in out
    code, out, _ = run("score", "--help")
    assert code == 0 and "--tolerance" in out and "--json" in out and "--fps" in out


def test_json_has_the_documented_keys() -> None:
    code, out, err = run("score", "--truth", RACE, "--events", RACE, "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert set(report) == {"truth", "events", "pairs", "games", "tolerance_s", "fps", "fps_from",
                           "table_events", "faults", "first_touch", "slap_order", "timing", "warnings"}
    assert set(report["table_events"]) == {"truth", "found", "matched", "precision", "recall", "by_type",
                                           "missed", "invented"}
    assert set(report["faults"]) == {"truth", "flagged", "missed", "false", "recall", "precision",
                                     "missed_list", "false_list", "withdrawn", "withdrawn_list"}
    assert set(report["first_touch"]) == {"total", "right", "accuracy", "apart", "within_frame", "races"}
    assert set(report["slap_order"]) == {"total", "right", "accuracy", "pairs"}
    assert set(report["timing"]) == {"matched", "median_ms", "p90_ms", "max_ms", "bias_ms"}
    assert report["table_events"]["precision"] == report["table_events"]["recall"] == 1.0
    assert report["table_events"]["by_type"]["play"] == {"truth": 2, "found": 2, "matched": 2,
                                                         "precision": 1.0, "recall": 1.0}
    assert report["faults"]["flagged"] == report["faults"]["truth"] == 1
    assert report["first_touch"]["apart"] == {"total": 1, "right": 1, "accuracy": 1.0}
    assert report["first_touch"]["within_frame"]["accuracy"] is None
    [race] = report["first_touch"]["races"]
    assert race["players"] == ["B", "A"] and race["right"] is True and race["pile"] == 2
    assert (report["tolerance_s"], report["fps"], report["fps_from"]) == (0.25, 30.0, "meta.json")


def test_json_lists_what_was_missed(tmp_path: Path) -> None:
    code, out, _ = run("score", "--truth", RACE, "--events", _without_b_play(tmp_path), "--json",
                       "--tolerance", "0.1", "--fps", "60")
    assert code == 0  # a poor score is still a successful scoring
    report = json.loads(out)
    assert report["table_events"]["recall"] == pytest.approx(2 / 3)
    [missed] = report["table_events"]["missed"]
    assert (missed["type"], missed["player"], missed["card"], missed["index"]) == ("play", "B", "8H", 14)
    assert report["table_events"]["invented"] == []
    assert report["first_touch"]["right"] == 0
    assert (report["tolerance_s"], report["fps"], report["fps_from"]) == (0.1, 60.0, "given")


def test_text_report(tmp_path: Path) -> None:
    code, out, _ = run("score", "--truth", RACE, "--events", _without_b_play(tmp_path))
    assert code == 0
    for text in ("table events", "precision", "faults: 1 in the truth", "first touch", "slap order",
                 "timing over 2 matched events", "unmatched events", "play B 8H slot 2 -> pile 2"):
        assert text in out, text
    code, out, _ = run("score", "--truth", RACE, "--events", RACE)
    assert code == 0 and "unmatched" not in out and "100.0 %" in out
    assert "faults: 1 in the truth, 1 flagged (100.0 %), 0 missed, 0 false" in out


def test_a_torn_last_line_is_scored_with_a_warning(tmp_path: Path) -> None:
    torn = tmp_path / "torn.jsonl"
    torn.write_text(Path(RACE).read_text() + '{"type":"slap","t":2.9')
    code, out, err = run("score", "--truth", RACE, "--events", str(torn), "--json")
    assert code == 0
    assert err.count("\n") == 1 and "warning" in err and "torn.jsonl:36" in err and "torn last line" in err
    assert json.loads(out)["table_events"]["precision"] == 1.0
    assert len(json.loads(out)["warnings"]) == 1


@pytest.mark.parametrize(("content", "extra", "error"), [
    (None, [], "no such log file"),
    ("not json at all\n", [], "bad.jsonl:1: not valid JSON"),
    ('{"type":"game_start","t":0,"rules":{}}\n{"type":"slap","t":1,"player":"Q","pile":1}\n', [],
     "bad.jsonl:2: field 'player'"),
    ('{"type":"deal","t":1.0,"player":"A"}\n', [], "before the first game_start"),
    ("\n", [], "no game_start"),
    (RACE, ["--tolerance", "-0.5"], "tolerance: must be a time in seconds >= 0, not -0.5"),
    (RACE, ["--fps", "0"], "fps: must be a frame rate > 0"),
    (RACE, ["--until", "-1"], "until: must be a time in seconds >= 0, not -1.0"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, content: str | None, extra: list[str],
                                          error: str) -> None:
    bad = tmp_path / "bad.jsonl"
    if content == RACE:
        bad = Path(RACE)
    elif content is not None:
        bad.write_text(content)
    code, out, err = run("score", "--truth", RACE, "--events", str(bad), *extra)
    assert code == 2 and out == ""
    assert error in err and err.count("\n") == 1 and err.startswith("spit-referee: error:")
    assert "Traceback" not in err


def test_until_scores_only_the_start(tmp_path: Path) -> None:
    with open(RACE, encoding="utf-8") as stream:
        records = read_records_strict(stream, RACE)
    last = [r for r in records if isinstance(r, TableEvent) and not is_prelude(r)][-1]
    found = tmp_path / "found.jsonl"
    with open(found, "w", encoding="utf-8") as stream:  # the referee missed the last event
        write_records(stream, [r for r in records if r is not last])
    code, out, _ = run("score", "--truth", RACE, "--events", str(found), "--json")
    assert json.loads(out)["table_events"]["recall"] == pytest.approx(2 / 3)
    code, out, _ = run("score", "--truth", RACE, "--events", str(found), "--json",
                       "--until", f"{last.t - 0.001}")
    assert code == 0
    report = json.loads(out)
    assert report["table_events"]["recall"] == 1.0 and report["table_events"]["truth"] == 2


def test_both_files_are_required() -> None:
    code, _, err = run("score", "--truth", RACE)
    assert code == 2 and "Missing option '--events'" in err
