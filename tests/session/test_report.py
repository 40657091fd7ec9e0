"""``spit-referee report``: the whole game of a session, on the round-end fixture's log (three
rounds, slaps, piles taken, faults) recorded as a session."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import main
from referee.eventlog import read_records_strict
from referee.events import Call, CallKind, Outcome, Play, TableEvent, TakePile, Verdict
from referee.players import Player

from ._reportdata import FIXTURES, copy_session, record_log

LOG = FIXTURES / "round-end" / "events.jsonl"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_log(LOG, tmp_path_factory.mktemp("game") / "session")


def report(folder: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["report", str(folder), *args])
    return result.exit_code, result.stdout, result.stderr


def expected() -> tuple[int, Counter[Player], Counter[Player], dict[Player, list[int]]]:
    """Rounds, faults and legal plays per player, piles taken per player: counted from the log."""
    with LOG.open(encoding="utf-8") as f:
        records = read_records_strict(f)
    ends = sum(1 for r in records if isinstance(r, Call) and r.call is CallKind.ROUND_END)
    after = any(isinstance(r, TableEvent) for r in records[max(i for i, r in enumerate(records)
                                                                if isinstance(r, Call)
                                                                and r.call is CallKind.ROUND_END):])
    faults = Counter(r.player for r in records if isinstance(r, Verdict) and r.outcome is Outcome.FAULT)
    events = [r for r in records if isinstance(r, TableEvent)]
    verdicts = {r.event: r for r in records if isinstance(r, Verdict)}  # one game: indices are unique
    plays = Counter(e.player for i, e in enumerate(events)
                    if isinstance(e, Play) and verdicts[i].outcome is Outcome.LEGAL)
    piles: dict[Player, list[int]] = {Player.A: [], Player.B: []}
    for e in events:
        if isinstance(e, TakePile):
            piles[e.player].append(e.pile)
    return ends + int(after), faults, plays, piles


def test_the_report_counts_rounds_plays_faults_and_piles(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    code, stdout, stderr = report(folder)
    assert code == 0, stderr
    rounds, faults, plays, piles = expected()
    assert rounds == 4 and sum(faults.values()) > 0  # the fixture: 3 round ends, then a new deal
    facts = (f"{rounds} round(s), ", f"plays A {plays[Player.A]}, B {plays[Player.B]}",
             f"faults A {faults[Player.A]}, B {faults[Player.B]}")
    assert all(f in stdout for f in facts), stdout
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert all(f in page for f in facts)
    assert page.count("game 1, round ") == 2 * rounds  # one row per player and round
    taken = re.findall(r"<td>(pile \d(?:, pile \d)*)</td>", page)
    assert sorted(p for row in taken for p in re.findall(r"\d", row)) == sorted(
        str(n) for n in piles[Player.A] + piles[Player.B])
    assert "round_end" in page and "slap_winner" in page


def test_every_event_shows_the_line_dispute_takes(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    assert report(folder, "--out", str(tmp_path / "r.html"))[0] == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    lines = LOG.read_text(encoding="utf-8").splitlines()
    fault_line = next(n for n, text in enumerate(lines, 1) if '"outcome":"fault"' in text)
    event_line = fault_line - 1  # the pipeline writes each verdict right after its event
    assert '"type":"verdict"' not in lines[event_line - 1]
    row = re.search(rf"<tr><td>{event_line}</td>(.*?)</tr>", page)
    assert row is not None and "fault" in row.group(1)


def test_the_report_is_self_contained(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    assert report(folder)[0] == 0
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"https?://", page) and "<script" not in page and "<link" not in page
    sources = re.findall(r'<img[^>]*\ssrc="([^"]*)"', page)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)


def test_a_damaged_log_is_reported_from_what_is_intact(recorded: Path, tmp_path: Path) -> None:
    folder = copy_session(recorded, tmp_path / "s")
    path = folder / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[99] = lines[99].replace('"t":', '"t": ', 1)  # line 100 edited
    path.write_text("".join(lines))
    code, stdout, _ = report(folder)
    assert code == 0
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "the session is damaged" in page and "events.jsonl line 100: does not match its hash" in page
    assert "<tr><td>98</td>" in page or "<tr><td>99</td>" in page  # lines before the break are listed
    assert not re.search(r"<tr><td>1[0-9][0-9]</td>", page)  # nothing after it


def test_not_a_session(tmp_path: Path) -> None:
    code, _, stderr = report(tmp_path / "missing")
    assert code == 2 and "no such session folder" in stderr
