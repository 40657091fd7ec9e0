"""``spit-referee rejudge SESSION``: the matching of verdicts between two runs, and the command on
sessions recorded from a fixture video, whole and damaged.

Two sessions of the ``illegal-rank`` fixture (A plays KD onto 5H: F_ILLEGAL_RANK at 1.0 s, takes it
back at 1.85 s; B plays 8H at 2.4 s), in 1 s segments:

- ``truth``: its frames, with the fixture's true log as the record (a referee that read every card);
- ``tiny``: recorded by ``replay --session`` with the tests' tiny card model, which reads no card.

Rejudged with the tiny model, ``tiny`` has nothing changed and ``truth`` loses its three verdicts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import cv2
import pytest
from click.testing import CliRunner

from referee.cards import Card
from referee.cli.main import main
from referee.eventlog import read_records_strict
from referee.events import Call, CallKind, Outcome, Play, Record, Verdict
from referee.live.source import Frame
from referee.players import Player
from referee.rules import RuleSet
from referee.session.recorder import SessionRecorder
from referee.session.rejudge import Coverage, compare, judgements, version_differences
from referee.vision.calibration import load_calibration

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from card_model import build_card_model  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "illegal-rank"


# ---------------------------------------------------------------------- matching, on records


def _play(t: float, player: str = "A", pile: int = 1, card: str = "KD", *, code: str | None = None,
          first: str | None = None) -> list[Record]:
    evidence = {"arbitration": {"first": first}} if first is not None else None
    event = Play(t=t, frame=round(t * 30), player=Player(player), slot=2, pile=pile, card=Card.parse(card),
                 evidence=evidence)
    verdict = Verdict(t=t, frame=round(t * 30), event=0, player=Player(player),
                      outcome=Outcome.FAULT if code else Outcome.LEGAL, code=code,
                      rule="P3" if code else None, message=f"{player} played {card} onto pile {pile}")
    return [event, verdict]


def _spit(t: float) -> list[Record]:
    return [Call(t=t, frame=round(t * 30), call=CallKind.SPIT, message="Spit!")]


RACE_A, RACE_B = _play(1.0, "A", first="A"), _play(1.03, "B", card="QS", first="A")


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("the same", _play(1.0), _play(1.0), []),
    ("a time within the tolerance", _play(1.0), _play(1.3), []),
    ("a time beyond the tolerance", _play(1.0), _play(1.6), [("removed", 1.0, ()), ("added", 1.6, ())]),
    ("a fault found now", _play(1.0), _play(1.0, code="F_ILLEGAL_RANK"), [("changed", 1.0, ("verdict",))]),
    ("another player", _play(1.0, "A"), _play(1.0, "B"), [("changed", 1.0, ("player",))]),
    ("another pile", _play(1.0, pile=1), _play(1.0, pile=2), [("removed", 1.0, ()), ("added", 1.0, ())]),
    ("the first touch called the other way", RACE_A + RACE_B,
     _play(1.0, "A", first="B") + _play(1.03, "B", card="QS", first="B"),
     [("changed", 1.0, ("first touch",)), ("changed", 1.03, ("first touch",))]),
    ("a race placed the other way round in time", RACE_A + RACE_B,
     _play(1.03, "A", first="A") + _play(1.0, "B", card="QS", first="A"), []),
    ("a call added", _play(1.0), _play(1.0) + _spit(2.0), [("added", 2.0, ())]),
    ("a call removed", _spit(2.0), [], [("removed", 2.0, ())]),
])
def test_verdicts_are_matched_by_kind_place_and_time(case: str, old: list[Record], new: list[Record],
                                                     expected: list[tuple[str, float, tuple[str, ...]]]
                                                     ) -> None:
    result = compare(judgements(old), judgements(new), tolerance=0.5)
    assert [(c.change, c.t, c.what) for c in result.changes] == expected, case


def test_a_change_keeps_its_rule_and_both_texts() -> None:
    (change,) = compare(judgements(_play(1.0)), judgements(_play(1.0, code="F_ILLEGAL_RANK"))).changes
    assert change.rule == "P3" and change.old is not None and change.new is not None
    assert change.old.verdict == "A legal" and change.new.verdict == "A fault F_ILLEGAL_RANK (P3)"
    assert change.to_json()["new"]["text"] == "A played KD onto pile 1"


def test_what_lies_outside_the_coverage_is_not_compared() -> None:
    cover = Coverage(spans=((0.0, 1.5), (3.0, 4.0)), log_end=3.5, margin=0.03)
    old = _play(1.0) + _play(2.0) + _play(3.8)  # 2.0 in a gap of the video, 3.8 after the log's end
    new = _play(1.0, code="F_ILLEGAL_RANK") + _play(3.2, pile=2)
    result = compare(judgements(old), judgements(new), cover)
    assert [(c.change, c.t) for c in result.changes] == [("changed", 1.0), ("added", 3.2)]
    assert [j.t for j in result.not_compared_old] == [2.0, 3.8] and result.not_compared_new == []


def test_version_differences_name_models_rules_and_software(tmp_path: Path) -> None:
    detector, index = tmp_path / "cards.onnx", tmp_path / "cards-index.onnx"
    detector.write_bytes(b"new detector")
    index.write_bytes(b"index")
    same_index = hashlib.sha256(b"index").hexdigest()
    manifest = {"models": [{"file": "cards.onnx", "sha256": "0" * 64}, {"file": "cards-index.onnx",
                                                                         "sha256": same_index}],
                "rules": {**{f: getattr(RuleSet(), f) for f in ("four_piles", "points_limit")},
                          "race_window_s": 0.3, "old_setting": 1},
                "software": {"version": "0.1.0", "git": {"commit": "a" * 40, "modified": False}}}
    now = {"version": "0.1.0", "git": {"commit": "b" * 40, "modified": True}}
    got = version_differences(manifest, [detector, index], RuleSet(), now)
    new_sha = hashlib.sha256(b"new detector").hexdigest()[:12]
    assert got[0] == f"card detector cards.onnx 000000000000 -> cards.onnx {new_sha}"
    assert not any(line.startswith("index classifier") for line in got)
    assert "rule setting race_window_s: 0.3 -> 0.5" in got
    assert "rule setting old_setting: recorded 1, unknown now" in got
    assert f"software git {'a' * 10} -> {'b' * 10} (modified)" in got
    assert version_differences({**manifest, "software": now, "rules": {}}, [], RuleSet(), now)[:2] == [
        "card detector cards.onnx 000000000000 -> none",
        f"index classifier cards-index.onnx {same_index[:12]} -> none"]
    # a face classifier now that the session did not record (sessions before stop 26 have none)
    face = tmp_path / "cards-face.onnx"
    face.write_bytes(b"face")
    got = version_differences(manifest, [detector, index, face], RuleSet(), now)
    assert f"face classifier none -> cards-face.onnx {hashlib.sha256(b'face').hexdigest()[:12]}" in got


# ---------------------------------------------------------------------- the command, on sessions


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_card_model(tmp_path_factory.mktemp("m") / "cards.onnx", [])


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture's frames with its true log as the record (the prelude marked in it)."""
    folder = tmp_path_factory.mktemp("truth") / "session"
    calibration = load_calibration(FIXTURE / "calibration.yaml")
    with (FIXTURE / "events.jsonl").open(encoding="utf-8") as f:
        records = read_records_strict(f)
    cap = cv2.VideoCapture(str(FIXTURE / "video.mp4"))
    source = type("Source", (), {"fps": 30.0, "name": "truth", "size": (960, 540), "live": False})()
    recorder = SessionRecorder.create(folder, calibration=calibration,
                                      calibration_file=FIXTURE / "calibration.yaml", source=source,
                                      prelude=FIXTURE / "events.jsonl", segment_s=1.0)
    k, i = 0, 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        recorder.add_frame(Frame(i, i / 30, image))
        while k < len(records) and (records[k].frame or 0) <= i:
            recorder.log(records[k])
            k += 1
        i += 1
    cap.release()
    recorder.close()
    return folder


@pytest.fixture(scope="module")
def tiny(model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiny") / "session"
    result = CliRunner().invoke(main, [
        "replay", str(FIXTURE / "video.mp4"), "--calibration", str(FIXTURE / "calibration.yaml"), "--model",
        str(model), "--out", str(folder), "--prelude", str(FIXTURE / "events.jsonl"), "--no-video",
        "--session", "--segment-seconds", "1"])
    assert result.exit_code == 0, result.stderr
    return folder


def _copy(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "session"))


def _hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _rejudge(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["rejudge", *args])
    return result.exit_code, result.stdout, result.stderr


def test_nothing_changed_when_judged_with_the_same_model(tiny: Path, model: Path, tmp_path: Path) -> None:
    before = _hashes(tiny)
    out = tmp_path / "new"
    code, stdout, err = _rejudge(str(tiny), "--model", str(model), "--out", str(out), "--json")
    assert code == 0, stdout + err
    report = json.loads(stdout)
    assert report == json.loads((out / "rejudge.json").read_text())
    assert report["changed"] is False and report["counts"] == {"changed": 0, "added": 0, "removed": 0}
    assert report["differs_from_record"] == [] and report["changes"] == []
    assert report["compared"] == {"from_t": 0.0, "to_t": 95 / 30, "recorded": 14, "new": 14, "same": 14}
    assert _hashes(tiny) == before  # the record is only read
    assert json.loads((out / "events.jsonl").read_text().splitlines()[0])["type"] == "game_start"
    assert json.loads((out / "summary.json").read_text())["frames"] == 96


def test_the_verdicts_a_model_that_reads_nothing_loses(truth: Path, model: Path, tmp_path: Path) -> None:
    code, stdout, err = _rejudge(str(truth), "--model", str(model), "--out", str(tmp_path / "new"))
    assert code == 1, stdout + err
    assert "card detector none -> cards.onnx" in stdout  # the record named no model; the tiny one is used now
    assert "REMOVED t 1.00 s (frame 30) play on pile 1, rule P3\n" \
           "      was: A fault F_ILLEGAL_RANK (P3): A played KD from slot 2 onto pile 1 (5H)" in stdout
    assert "REMOVED t 1.85 s (frame 55) take_back on pile 1, rule -" in stdout
    assert "REMOVED t 2.40 s (frame 72) play on pile 2" in stdout
    assert stdout.strip().endswith("rejudge: 3 differences (0 changed, 0 added, 3 removed)")
    report = json.loads((tmp_path / "new" / "rejudge.json").read_text())
    assert [(c["change"], c["t"], c["rule"]) for c in report["changes"]] == [
        ("removed", 1.0, "P3"), ("removed", 1.85, None), ("removed", 2.4, None)]
    assert report["changes"][0]["old"]["code"] == "F_ILLEGAL_RANK" and report["changes"][0]["new"] is None


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:2000])


def _edit_log(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[32] = lines[32].replace(b"as required", b"as it should")  # the take-back's verdict
    path.write_bytes(b"".join(lines))


def _tear_log(path: Path) -> None:
    with path.open("ab") as f:
        f.write(b'{"type":"call","t":3.1')


@pytest.mark.parametrize(("case", "file", "damage", "said", "removed"), [
    ("truncated last segment", "video/000003.mp4", _truncate,
     "not compared: video/000003.mp4: truncated, nothing decodes: t 3.00-3.17 s not replayed",
     [1.0, 1.85, 2.4]),
    ("missing segment", "video/000002.mp4", Path.unlink,
     "not compared: video/000002.mp4: missing, nothing decodes: t 2.00-2.97 s not replayed", [1.0, 1.85]),
    ("bad log hash", "events.jsonl", _edit_log,
     "not compared: events.jsonl: compared only up to its last verified record (t 1.85 s, line 32): "
     "events.jsonl line 33: does not match its hash", [1.0]),
    ("torn last log line", "events.jsonl", _tear_log,
     "not compared: events.jsonl: compared only up to its last verified record (t 2.40 s, line 35): "
     "its last line is torn", [1.0, 1.85, 2.4]),
])
def test_a_damaged_session_is_rejudged_where_it_is_intact(truth: Path, model: Path, tmp_path: Path, case: str,
                                                          file: str, damage: object, said: str,
                                                          removed: list[float]) -> None:
    session = _copy(truth, tmp_path)
    damage(session / file)  # type: ignore[operator]
    code, stdout, err = _rejudge(str(session), "--model", str(model), "--out", str(tmp_path / "new"))
    assert code == 1, stdout + err
    assert said in stdout, (case, stdout)
    report = json.loads((tmp_path / "new" / "rejudge.json").read_text())
    assert [(c["change"], c["t"]) for c in report["changes"]] == [("removed", t) for t in removed], case
    if case != "torn last log line":  # a torn line is what a crash leaves, not damage
        assert "the session is damaged" in stdout


@pytest.mark.parametrize(("case", "error"), [
    ("not a session", "not a session: no session.json"),
    ("out in the session", "--out is inside the session folder"),
    ("out holds a session", "--out holds a session"),
    ("every segment missing", "no recorded frame can be read"),
    ("prelude lost", "the session continued a game from a prelude"),
])
def test_rejudge_names_bad_input(tiny: Path, model: Path, tmp_path: Path, case: str, error: str) -> None:
    session = _copy(tiny, tmp_path)
    args = [str(session), "--model", str(model)]
    if case == "not a session":
        args[0] = str(tmp_path)
    elif case == "out in the session":
        args += ["--out", str(session / "video" / "new")]
    elif case == "out holds a session":
        args += ["--out", str(tiny)]
    elif case == "every segment missing":
        for path in (session / "video").glob("*.mp4"):
            path.unlink()
    else:
        lines = (session / "events.jsonl").read_bytes().splitlines(keepends=True)
        (session / "events.jsonl").write_bytes(lines[0])  # the prelude gone: the chain breaks at line 2
        manifest = json.loads((session / "session.json").read_text())
        manifest["prelude"]["path"] = str(tmp_path / "gone.jsonl")
        (session / "session.json").write_text(json.dumps(manifest))
    code, stdout, err = _rejudge(*args)
    assert code == 2 and error in err, (case, stdout, err)
    assert not (session / "video" / "new").exists()


def test_the_game_so_far_comes_from_the_record(tiny: Path) -> None:
    """The prelude is the log's events marked as such; the rules its game_start's."""
    from referee.session.rejudge import recorded_game
    from referee.session.verify import open_session

    game = recorded_game(open_session(tiny))
    assert len(game.prelude) == 14 and game.prelude_from == "the session's log (events marked prelude)"
    assert all((e.evidence or {}).get("prelude") for e in game.prelude)
    assert [e.kind for e in game.prelude[:3]] == ["deal", "deal", "turn"]


# ---------------------------------------------------------------------- replay and times, damaged sessions


def _replay_session(session: Path, model: Path, out: Path) -> Any:
    return CliRunner().invoke(main, ["replay", str(session), "--calibration", "session",
                                     "--model", str(model), "--out", str(out), "--no-video"])


def test_replay_of_a_session_with_a_missing_segment_says_what_it_left_out(truth: Path, model: Path,
                                                                           tmp_path: Path) -> None:
    session = _copy(truth, tmp_path)
    (session / "video" / "000002.mp4").unlink()
    result = _replay_session(session, model, tmp_path / "again")
    assert result.exit_code == 0, result.stderr
    assert "warning: the session is damaged (video/000002.mp4: missing" in result.stderr
    assert "not replayed: 000002.mp4: missing" in result.stdout
    summary = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert summary["skipped"] == ["000002.mp4: missing"] and summary["frames"] == 96 - 30


def test_replay_of_a_session_with_no_readable_frame_is_refused(truth: Path, model: Path,
                                                               tmp_path: Path) -> None:
    session = _copy(truth, tmp_path)
    for path in (session / "video").glob("*.mp4"):
        path.write_bytes(b"")
    result = _replay_session(session, model, tmp_path / "again")
    assert result.exit_code == 2 and "no recorded frame can be read" in result.stderr
    assert not (tmp_path / "again" / "events.jsonl").exists()


@pytest.mark.parametrize(("t", "error"), [
    (-1.0, "t -1.00 s is outside the session: its video runs t 0.00-3.17 s"),
    (5.0, "t 5.00 s is outside the session: its video runs t 0.00-3.17 s"),
    (2.5, "t 2.50 s falls in video/000002.mp4, which is missing (spit-referee verify says more); the video "
          "is intact at t 0.00-1.97 s, 3.00-3.17 s"),
    (1.5, None),
    (3.17, None),
])
def test_a_time_is_found_in_the_session_or_named_as_outside_it(truth: Path, tmp_path: Path, t: float,
                                                               error: str | None) -> None:
    from referee.errors import InputError
    from referee.session.verify import open_session

    session = _copy(truth, tmp_path)
    (session / "video" / "000002.mp4").unlink()
    opened = open_session(session)
    if error is None:
        check = opened.locate(t)
        assert check.state == "ok" and check.info.first_t <= t <= (check.info.last_t or 0) + 0.02
    else:
        with pytest.raises(InputError) as caught:
            opened.locate(t)
        assert caught.value.message == error
