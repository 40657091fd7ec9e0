"""The session's event log: a plain event log plus a hash chain that shows every edit."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.eventlog import read_records, read_records_strict
from referee.events import Record
from referee.session.log import CHAIN_FILE, LOG_FILE, ChainedLog, check_log, genesis, link

FIXTURE_LOG = Path(__file__).resolve().parents[1] / "fixtures" / "illegal-rank" / "events.jsonl"
SESSION_ID = "test-session"


def _records() -> list[Record]:
    with FIXTURE_LOG.open(encoding="utf-8") as f:
        return read_records_strict(f, str(FIXTURE_LOG))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    writer = ChainedLog(tmp_path, SESSION_ID, sync_every=0.05)
    for record in _records():
        writer(record)
    writer.close()
    return tmp_path


def _lines(folder: Path, name: str = LOG_FILE) -> list[bytes]:
    return (folder / name).read_bytes().splitlines(keepends=True)


def _put(folder: Path, lines: list[bytes], name: str = LOG_FILE) -> None:
    (folder / name).write_bytes(b"".join(lines))


def _edit(folder: Path) -> None:
    lines = _lines(folder)
    lines[9] = lines[9].replace(b'"legal"', b'"fault"').replace(b'"player":"A"', b'"player":"B"')
    _put(folder, lines)


def _delete(folder: Path) -> None:
    lines = _lines(folder)
    del lines[9]
    _put(folder, lines)


def _swap(folder: Path) -> None:
    lines = _lines(folder)
    lines[9], lines[10] = lines[10], lines[9]
    _put(folder, lines)


def _insert(folder: Path) -> None:
    lines = _lines(folder)
    lines.insert(9, lines[2])
    _put(folder, lines)


def _edit_chain(folder: Path) -> None:
    chain = _lines(folder, CHAIN_FILE)
    chain[9] = b"0" * 64 + b"\n"
    _put(folder, chain, CHAIN_FILE)


def _torn(folder: Path) -> None:
    with (folder / LOG_FILE).open("ab") as f:
        f.write(b'{"type":"play","t":3.1,"fra')


def _unhashed(folder: Path, n: int) -> None:
    with (folder / LOG_FILE).open("ab") as f:
        for _ in range(n):
            f.write(_lines(folder)[-1])


def _cut_end(folder: Path) -> None:
    _put(folder, _lines(folder)[:-2])
    _put(folder, _lines(folder, CHAIN_FILE)[:-2], CHAIN_FILE)


Damage = Callable[[Path], None]


@pytest.mark.parametrize(("case", "damage", "level", "where", "message", "verified"), [
    ("intact", lambda f: None, None, None, None, 35),
    ("a line edited", _edit, "bad", "events.jsonl line 10", "does not match its hash", 9),
    ("a line deleted", _delete, "bad", "events.jsonl line 10", "deleted", 9),
    ("two lines swapped", _swap, "bad", "events.jsonl line 10", "moved", 9),
    ("a line inserted", _insert, "bad", "events.jsonl line 10", "inserted", 9),
    ("a hash edited", _edit_chain, "bad", "events.jsonl line 10", "does not match its hash", 9),
    ("torn last line", _torn, "interrupted", "events.jsonl line 36", "torn", 35),
    ("last hash not written", lambda f: _unhashed(f, 1), "interrupted", "events.jsonl line 36",
     "written but not its hash", 35),
    ("lines appended", lambda f: _unhashed(f, 2), "bad", "events.jsonl line 36",
     "2 lines from here have no hash", 35),
    ("the end cut off", _cut_end, None, None, None, 33),  # undetectable without an anchor: see the next test
])
def test_the_chain_finds_every_edit_and_keeps_what_is_intact(folder: Path, case: str, damage: Damage,
                                                             level: str | None, where: str | None,
                                                             message: str | None, verified: int) -> None:
    damage(folder)
    check = check_log(folder, SESSION_ID)
    if level is None:
        assert check.findings == [], case
    else:
        assert check.findings, case
        first = check.findings[0]
        assert (first.level, first.where) == (level, where), case
        assert message is not None and message in first.message, case
    assert check.verified == verified
    assert check.records == _records()[:verified]  # everything before the damage is usable


def test_an_anchor_finds_a_cut_end_and_a_rewritten_chain(folder: Path) -> None:
    count, head = len(_lines(folder)), _lines(folder, CHAIN_FILE)[-1].strip().decode()
    anchor = [(count, head, "the end record")]
    _cut_end(folder)
    check = check_log(folder, SESSION_ID, anchor)
    assert [f.level for f in check.findings] == ["bad"]
    assert "cut short: the end record recorded 35 lines, the log holds 33" in check.findings[0].message

    # a forger who edits a line and recomputes the whole chain is caught by the anchor only
    lines = _lines(folder)
    lines[4] = lines[4].replace(b'"A"', b'"B"')
    _put(folder, lines)
    hashes, h = [], genesis(SESSION_ID)
    for line in lines:
        h = link(h, line)
        hashes.append(h.encode() + b"\n")
    _put(folder, hashes, CHAIN_FILE)
    assert check_log(folder, SESSION_ID).findings == []
    anchored = check_log(folder, SESSION_ID, [(33, head, "x"), (20, "f" * 64, "the index at segment 2")])
    assert any("rewritten: the index at segment 2" in f.message for f in anchored.findings)


def test_the_log_is_a_plain_event_log(folder: Path) -> None:
    contents = read_records(io.StringIO((folder / LOG_FILE).read_text(encoding="utf-8")))
    assert contents.errors == [] and contents.records == _records()
    chain = _lines(folder, CHAIN_FILE)
    assert len(chain) == 35 and all(len(c) == 65 for c in chain)


def test_a_log_of_another_session_does_not_verify(folder: Path) -> None:
    check = check_log(folder, "another-session")
    assert check.verified == 0 and check.findings[0].where == "events.jsonl line 1"


def test_missing_log_or_chain_is_named(folder: Path) -> None:
    (folder / CHAIN_FILE).unlink()
    check = check_log(folder, SESSION_ID)
    assert check.findings[0].where == CHAIN_FILE and "missing" in check.findings[0].message
    (folder / LOG_FILE).unlink()
    check = check_log(folder, SESSION_ID)
    assert check.findings[0].where == LOG_FILE and "missing" in check.findings[0].message


def test_the_writer_syncs_in_the_background_and_anchors(tmp_path: Path) -> None:
    writer = ChainedLog(tmp_path, SESSION_ID, sync_every=0.01)
    records = _records()[:3]
    for record in records:
        writer(record)
    count, head = writer.anchor()
    assert count == 3 and head == _lines(tmp_path, CHAIN_FILE)[-1].strip().decode()
    writer.close()
    writer.close()  # twice is harmless
    assert check_log(tmp_path, SESSION_ID).verified == 3
